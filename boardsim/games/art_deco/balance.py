"""Art Deco rule-variant statistics: who wins, and is it the best hand or the best bidding?"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from boardsim.analysis.stats import game_sums, mean_interval, wilson

# The report prints this under the overbid chart (the spec's "what a simulator must expect").  It is an
# algebraic identity: score = held + sold - paid, and at price factor 1 a direct buy adds its value to both
# held and paid and a sale moves its value from held to sold, so only (bid - value) per auction remains.
IDENTITY = (
    "Under the default price factors every seat's final score = dealt value − overbid, where overbid is "
    "the sum over the auctions it won of (bid − card value): this chart is how far each seat's score fell "
    "below the value of its dealt hand (a negative overbid, possible only with open_min_bid < 1, is a gain). "
    "Only direct_price_factor ≠ 1 and sale_price_factor ≠ 1 break the identity: a direct buy or a sale then "
    "moves the score by price − value whenever the rounded price differs from the card's value. "
    "credit_limit, unsold, open_min_bid, bid_ceiling, start_player and the other options keep it."
)
# report captions for this module's charts, by table name (balance_<name>.csv)
CHART_NOTES = {"overbid": IDENTITY}


def chunk_stats(out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    win = out["win"]
    eligible = out["eligible"].astype(bool)
    dealt = np.where(eligible, out["dealt_value"], np.iinfo(np.int64).min)
    best = dealt.max(axis=1, keepdims=True)
    has_winner = np.einsum("ij->i", win) > 0
    # share of the win that went to a player holding the best dealt hand among eligible players
    best_share = np.einsum("ij,ij->i", win, eligible & (dealt == best))
    return {
        "games_with_winner": np.array([int(has_winner.sum())]),
        "best_hand_wins12": np.array([int(np.rint(best_share * 12).sum())]),
        "overbid": game_sums(out["overbid"]),
        "overbid_sq": game_sums(out["overbid"] * out["overbid"]),
        "dealt_value": game_sums(out["dealt_value"]),
        "score": game_sums(out["score"]),
        "auctions_won": game_sums(out["auctions_won"]),
        "no_winner": np.array([int((~has_winner).sum())]),
    }


def balance_tables(cell, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]:
    with_winner = int(stats["games_with_winner"][0])
    best = stats["best_hand_wins12"][0] / 12.0
    no_win = int(stats["no_winner"][0])
    lo_nw, hi_nw = wilson(no_win, games)
    lo_b, hi_b = wilson(best, with_winner)
    auctions = stats["auctions_won"].sum()
    row = {
        "cell": cell.index,
        "games": games,
        "no_winner_rate": no_win / games,
        "no_winner_lo": float(lo_nw),
        "no_winner_hi": float(hi_nw),
        "games_with_winner": with_winner,
        "best_hand_rate": best / with_winner if with_winner else np.nan,
        "best_hand_lo": float(lo_b),
        "best_hand_hi": float(hi_b),
        "auctions_won": int(auctions),
        "mean_overbid": stats["overbid"].sum() / auctions if auctions else np.nan,
    }
    # per game, with an interval: under the default price factors score_mean = dealt_value_mean - this
    per_game, _, per_game_lo, per_game_hi = mean_interval(stats["overbid"], stats["overbid_sq"], games)
    per_seat = pd.DataFrame({
        "cell": cell.index,
        "seat": np.arange(cell.n_players),
        "policy": [s.label() for s in cell.seats],
        "auctions_won": stats["auctions_won"],
        "mean_overbid": np.where(stats["auctions_won"] > 0,
                                 stats["overbid"] / np.maximum(stats["auctions_won"], 1), np.nan),
        "dealt_value_mean": stats["dealt_value"] / games,
        "score_mean": stats["score"] / games,
        "overbid_per_game": per_game,
        "overbid_per_game_lo": per_game_lo,
        "overbid_per_game_hi": per_game_hi,
    })
    return {"variants": pd.DataFrame([row]), "overbid": per_seat}
