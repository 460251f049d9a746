"""FlipToons balance: per-card hire, ownership and owner win rates, fame per appearance,
the Critic's Choice effect and per-round fame curves."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from boardsim.analysis.stats import wilson

WIN_UNITS = 12  # shares are 1/k for k <= 4


def chunk_stats(out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    # einsum sums in int64 without the temporaries of (win * owned).sum(axis=(0, 1)) and friends
    win = np.rint(out["win"] * WIN_UNITS).astype(np.int64)  # (n, P)
    owned = out["owned"] > 0  # (n, P, K)
    hired = out["hired"]
    n, P = win.shape
    rows = np.arange(n)
    total_wins = int(win.sum())
    owner_wins = np.einsum("ij,ijk->k", win, owned, dtype=np.int64)
    stats = {
        "seat_games": np.array([n * P]),
        "hires": np.einsum("ijk->k", hired, dtype=np.int64),
        "hired_games": np.einsum("ijk->k", hired > 0, dtype=np.int64),
        "dismissals": np.einsum("ijk->k", out["dismissed"], dtype=np.int64),
        "owner_games": np.einsum("ijk->k", owned, dtype=np.int64),
        "owner_wins": owner_wins,
        "nonowner_wins": total_wins - owner_wins,
        "kind_fame": np.einsum("ijk->k", out["kind_fame"], dtype=np.int64),
        "total_wins": np.array([total_wins]),
    }
    if "appearances" in out:
        stats["appearances"] = np.einsum("ijk->k", out["appearances"], dtype=np.int64)
    # Critic's Choice: the holder's win share, where somebody holds it
    critic = out["critic"]
    held = critic >= 0
    holder_slot = np.argmax(out["position"] == critic[:, None], axis=1)
    stats["critic_games"] = np.array([int(held.sum())])
    stats["critic_wins"] = np.array([int(win[rows, holder_slot][held].sum())])
    # per-round fame: summed over games that reached the round
    rf = out["round_fame"]  # (n, P, R)
    R = rf.shape[2]
    reached = out["rounds"][:, None] > np.arange(R)[None, :]  # (n, R)
    stats["round_fame"] = np.einsum("ijr,ir->jr", rf, reached, dtype=np.int64)  # (P, R)
    stats["round_games"] = reached.sum(axis=0).astype(np.int64)  # (R,)
    return stats


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
