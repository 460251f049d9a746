"""FlipToons balance: per-card hire, ownership and owner win rates, fame per appearance,
the Critic's Choice effect and per-round fame curves."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from numba import njit

from boardsim.games.base import WIN_UNITS  # win shares x WIN_UNITS are whole numbers
from boardsim.stats.intervals import wilson

# report captions for this module's charts, by table name (base.BalanceModule); none needs one
CHART_NOTES: dict[str, str] = {}


def chunk_stats(out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The chunk's per-card, Critic's Choice and per-round sums, in one compiled pass (``_stats``): the
    NumPy version made about ten passes over the per-card blocks, a tenth of a game's time in a sweep."""
    c = np.ascontiguousarray
    has_app = "appearances" in out
    (total_wins, hires, hired_games, dismissals, owner_games, owner_wins, kind_fame, app, critic_games, critic_wins,
     round_fame, round_games) = _stats(
        c(out["win"], dtype=np.float64), _card_block(out), has_app, c(out["critic"], dtype=np.int64),
        c(out["position"], dtype=np.int64), c(out["round_fame"], dtype=np.int16), c(out["rounds"], dtype=np.int64),
        float(WIN_UNITS))
    n, P = out["win"].shape
    stats = {
        "seat_games": np.array([n * P]),
        "hires": hires,
        "hired_games": hired_games,
        "dismissals": dismissals,
        "owner_games": owner_games,
        "owner_wins": owner_wins,
        "nonowner_wins": total_wins - owner_wins,
        "kind_fame": kind_fame,
        "total_wins": np.array([total_wins]),
    }
    if has_app:
        stats["appearances"] = app
    stats["critic_games"] = np.array([critic_games])  # games where somebody holds the Critic's Choice
    stats["critic_wins"] = np.array([critic_wins])  # ... and the holder's win share there
    stats["round_fame"] = round_fame  # (P, R): fame per round, over the games that reached the round
    stats["round_games"] = round_games  # (R,)
    return stats


_CARD_ARRAYS = ("owned", "hired", "dismissed", "kind_fame", "appearances")  # engine.ST_* order


def _card_block(out: Mapping[str, np.ndarray]) -> np.ndarray:
    """The per-card arrays as one (games, stat, seat, card) int32 block: the kernel's own block when they are
    still its views (fixed seats: no copy), else stacked (their copies per arrangement are separate)."""
    views = [out[name] for name in _CARD_ARRAYS if name in out]
    block = views[0].base
    if (isinstance(block, np.ndarray) and block.ndim == 4 and block.dtype == np.int32 and block.flags.c_contiguous
            and block.shape[1] == len(_CARD_ARRAYS) and all(v.base is block for v in views)
            and all(np.shares_memory(v, block[:, k]) for k, v in enumerate(views))):
        return block
    return np.ascontiguousarray(np.stack(views, axis=1), dtype=np.int32)


@njit(cache=True, nogil=True)
def _stats(win, block, has_app, critic, position, round_fame, rounds, win_units):
    owned = block[:, 0]
    hired = block[:, 1]
    dismissed = block[:, 2]
    kind_fame = block[:, 3]
    appearances = block[:, 4 if has_app else 0]
    n, P, K = owned.shape
    R = round_fame.shape[2]
    hires = np.zeros(K, dtype=np.int64)
    hired_games = np.zeros(K, dtype=np.int64)
    dismissals = np.zeros(K, dtype=np.int64)
    owner_games = np.zeros(K, dtype=np.int64)
    owner_wins = np.zeros(K, dtype=np.int64)
    kinds = np.zeros(kind_fame.shape[2], dtype=np.int64)
    app = np.zeros(appearances.shape[2] if has_app else 0, dtype=np.int64)
    fame = np.zeros((P, R), dtype=np.int64)
    round_games = np.zeros(R, dtype=np.int64)
    total_wins = 0
    critic_games = 0
    critic_wins = 0
    for i in range(n):
        reached = min(rounds[i], R)
        holder = 0  # the slot that sat where the Critic's Choice holder sat (slot 0 if none matches)
        for j in range(P - 1, -1, -1):
            if position[i, j] == critic[i]:
                holder = j
        for j in range(P):
            u = np.int64(np.rint(win[i, j] * win_units))
            total_wins += u
            if critic[i] >= 0 and j == holder:
                critic_wins += u
            for k in range(K):
                if owned[i, j, k] > 0:
                    owner_games[k] += 1
                    owner_wins[k] += u
                h = hired[i, j, k]
                hires[k] += h
                if h > 0:
                    hired_games[k] += 1
                dismissals[k] += dismissed[i, j, k]
            for k in range(kinds.size):
                kinds[k] += kind_fame[i, j, k]
            for k in range(app.size):
                app[k] += appearances[i, j, k]
            for r in range(reached):
                fame[j, r] += round_fame[i, j, r]
        for r in range(reached):
            round_games[r] += 1
        if critic[i] >= 0:
            critic_games += 1
    return (total_wins, hires, hired_games, dismissals, owner_games, owner_wins, kinds, app, critic_games, critic_wins,
            fame, round_games)


def _copies(cell) -> np.ndarray:
    col = "solo_copies" if cell.n_players == 1 and "solo_copies" in cell.cards.columns else "copies"
    if col not in cell.cards.columns:
        return np.full(len(cell.cards), np.nan)
    return cell.cards[col].to_numpy()


def balance_tables(cell, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]:
    names = list(cell.cards["name"])
    seat_games = int(stats["seat_games"][0])
    owners = stats["owner_games"]
    non = seat_games - owners
    own_w = stats["owner_wins"] / WIN_UNITS
    non_w = stats["nonowner_wins"] / WIN_UNITS
    h_lo, h_hi = wilson(stats["hired_games"], np.full(len(names), seat_games))
    o_lo, o_hi = wilson(owners, np.full(len(names), seat_games))
    ow_lo, ow_hi = wilson(own_w, owners)
    nw_lo, nw_hi = wilson(non_w, non)
    with np.errstate(invalid="ignore", divide="ignore"):
        owner_rate = np.where(owners > 0, own_w / np.maximum(owners, 1), np.nan)
        non_rate = np.where(non > 0, non_w / np.maximum(non, 1), np.nan)
        appearances = stats.get("appearances")
        per_appearance = (stats["kind_fame"] / appearances) if appearances is not None else np.full(len(names), np.nan)
    cards = pd.DataFrame({
        "cell": cell.index,
        "card": names,
        "rank": cell.cards["rank"].to_numpy() if "rank" in cell.cards.columns else np.nan,
        # copies in the game (solo mode deals solo_copies); a card with none is left out of the charts
        "copies": _copies(cell),
        "seat_games": seat_games,
        "hires_per_game": stats["hires"] / seat_games,
        "hire_rate": stats["hired_games"] / seat_games,
        "hire_lo": h_lo,
        "hire_hi": h_hi,
        "owned_rate": owners / seat_games,
        "owned_lo": o_lo,
        "owned_hi": o_hi,
        "owner_win_rate": owner_rate,
        "owner_win_lo": ow_lo,
        "owner_win_hi": ow_hi,
        "nonowner_win_rate": non_rate,
        "nonowner_win_lo": nw_lo,
        "nonowner_win_hi": nw_hi,
        "owner_edge": owner_rate - non_rate,
        "dismissals_per_game": stats["dismissals"] / seat_games,
        "fame_per_game": stats["kind_fame"] / seat_games,
        "fame_per_appearance": per_appearance,
    })
    cg = int(stats["critic_games"][0])
    cw = stats["critic_wins"][0] / WIN_UNITS
    c_lo, c_hi = wilson(cw, cg)
    critic = pd.DataFrame([{
        "cell": cell.index, "players": cell.n_players, "games": games, "critic_games": cg,
        "critic_holder_win_rate": cw / cg if cg else np.nan, "critic_holder_win_lo": float(c_lo),
        "critic_holder_win_hi": float(c_hi), "fair_share": 1.0 / cell.n_players,
    }])
    rf = stats["round_fame"]
    rg = stats["round_games"]
    keep = rg > 0
    curve_rows = []
    for j, seat in enumerate(cell.seats):
        for r in np.flatnonzero(keep):
            curve_rows.append({"cell": cell.index, "seat": j, "policy": seat.label(), "round": int(r) + 1,
                               "games": int(rg[r]), "mean_fame": rf[j, r] / rg[r]})
    return {"cards": cards, "critic": critic, "fame_curve": pd.DataFrame(curve_rows)}
