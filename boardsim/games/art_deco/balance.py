"""Art Deco rule-variant statistics: who wins, and is it the best hand or the best bidding?"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from boardsim.analysis.stats import game_sums, wilson


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
    per_seat = pd.DataFrame({
        "cell": cell.index,
        "seat": np.arange(cell.n_players),
        "policy": [s.label() for s in cell.seats],
        "auctions_won": stats["auctions_won"],
        "mean_overbid": np.where(stats["auctions_won"] > 0,
                                 stats["overbid"] / np.maximum(stats["auctions_won"], 1), np.nan),
    })
    return {"variants": pd.DataFrame([row]), "overbid": per_seat}
