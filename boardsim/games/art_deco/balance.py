"""Art Deco rule-variant statistics: who wins, and is it the best hand or the best bidding?"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from numba import njit

from boardsim.games.art_deco.state import SEAT_COUNTERS
from boardsim.games.base import WIN_UNITS
from boardsim.stats.intervals import mean_interval, wilson

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
CHART_NOTES: dict[str, str] = {"overbid": IDENTITY}


def chunk_stats(out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The chunk's sums for the balance tables, in one compiled pass (``_stats``): the NumPy version
    cost a quarter of a game (0.25 us of 1.4) in a sweep."""
    counters = np.ascontiguousarray(out["counters"], dtype=np.int64)
    win = np.ascontiguousarray(out["win"], dtype=np.float64)
    score = np.ascontiguousarray(out["score"], dtype=np.int64)
    (with_winner, best12, overbid, overbid_sq, dealt, score_sum, auctions,
     no_winner) = _stats(win, score, counters, *(_COLUMN[name] for name in _READ))
    return {
        "games_with_winner": np.array([with_winner]),
        "best_hand_wins12": np.array([best12]),
        "overbid": overbid,
        "overbid_sq": overbid_sq,
        "dealt_value": dealt,
        "score": score_sum,
        "auctions_won": auctions,
        "no_winner": np.array([no_winner]),
    }


_COLUMN = {name: k for k, name in enumerate(SEAT_COUNTERS)}
_READ = ("eligible", "dealt_value", "overbid", "auctions_won")


@njit(cache=True, nogil=True)
def _stats(win, score, counters, c_elig, c_dealt, c_over, c_auct):
    """Per chunk: games with a winner; the win share (in twelfths) that went to a player holding the best
    dealt hand among eligible players; per-seat sums of overbid, its square, dealt value, score and
    auctions won; games with no winner."""
    n, P = score.shape
    overbid = np.zeros(P, dtype=np.int64)
    overbid_sq = np.zeros(P, dtype=np.int64)
    dealt = np.zeros(P, dtype=np.int64)
    score_sum = np.zeros(P, dtype=np.int64)
    auctions = np.zeros(P, dtype=np.int64)
    with_winner = 0
    best12 = 0
    for i in range(n):
        total = 0.0
        best = np.iinfo(np.int64).min
        for j in range(P):
            total += win[i, j]
            o = counters[i, j, c_over]
            overbid[j] += o
            overbid_sq[j] += o * o
            dealt[j] += counters[i, j, c_dealt]
            score_sum[j] += score[i, j]
            auctions[j] += counters[i, j, c_auct]
            if counters[i, j, c_elig] != 0:
                best = max(best, counters[i, j, c_dealt])
        if total > 0:
            with_winner += 1
        share = 0.0
        for j in range(P):
            if counters[i, j, c_elig] != 0 and counters[i, j, c_dealt] == best:
                share += win[i, j]
        best12 += np.int64(np.rint(share * WIN_UNITS))
    return with_winner, best12, overbid, overbid_sq, dealt, score_sum, auctions, n - with_winner


def balance_tables(cell, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]:
    with_winner = int(stats["games_with_winner"][0])
    best = stats["best_hand_wins12"][0] / WIN_UNITS  # (the key predates WIN_UNITS; its value is 12)
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
