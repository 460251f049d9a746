"""Circle the Wagons balance: goals, the starting card, the first player and skipping."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from boardsim.games.base import WIN_UNITS  # win shares x WIN_UNITS are whole numbers
from boardsim.stats.intervals import mean_interval, wilson

N_GOALS = 18
N_CARDS = 18

# report captions for this module's charts, by table name (base.BalanceModule); none needs one
CHART_NOTES: dict[str, str] = {}


def _first_slot(out: Mapping[str, np.ndarray]) -> np.ndarray:
    """The slot (scenario seat) that played first in each game."""
    return np.argmax(out["position"] == out["first_player"][:, None], axis=1)


def chunk_stats(out: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    n = out["win"].shape[0]
    rows = np.arange(n)
    win_units = np.rint(out["win"] * WIN_UNITS).astype(np.int64)
    first = _first_slot(out)
    p1_win = win_units[rows, first]
    in_play = np.zeros((n, N_GOALS), dtype=bool)
    pts = np.zeros((n, 2, N_GOALS), dtype=np.int64)
    for k in range(3):
        g = out[f"goal{k}"]
        in_play[rows, g] = True
        pts[rows, :, g] = out[f"goal{k}_points"]
    diff = pts[:, 0, :] - pts[:, 1, :]
    leader = np.where(diff > 0, 0, 1)
    leader_wins = win_units[rows[:, None], leader]  # (n, goals): win units of whoever scored more from it
    decided = in_play & (diff != 0)
    start = out["start_card"]
    skipped = out["skipped"]
    return {
        "goal_games": in_play.sum(axis=0).astype(np.int64),
        "goal_points": pts.sum(axis=(0, 1)),
        "goal_points_sq": (pts * pts).sum(axis=(0, 1)),
        "goal_seat0_wins": (win_units[:, 0:1] * in_play).sum(axis=0),
        "goal_p1_wins": (p1_win[:, None] * in_play).sum(axis=0),
        "goal_decided": decided.sum(axis=0).astype(np.int64),
        "goal_leader_wins": (leader_wins * decided).sum(axis=0),
        "seat0_wins": np.array([win_units[:, 0].sum()]),
        "p1_wins": np.array([p1_win.sum()]),
        "start_games": np.bincount(start, minlength=N_CARDS)[:N_CARDS].astype(np.int64),
        "start_p1_wins": np.bincount(start, weights=p1_win, minlength=N_CARDS)[:N_CARDS].astype(np.int64),
        "skipped": skipped.sum(axis=0).astype(np.int64),
        "taken": out["taken"].sum(axis=0).astype(np.int64),
        "games_with_skip": (skipped > 0).sum(axis=0).astype(np.int64),
        "skip_game_wins": (win_units * (skipped > 0)).sum(axis=0),
    }


def balance_tables(cell, stats: Mapping[str, np.ndarray], games: int) -> dict[str, pd.DataFrame]:
    goal_names = list(cell.cards.attrs.get("goals", {}).get("name", [f"goal {g + 1}" for g in range(N_GOALS)]))
    card_names = list(cell.cards["card"]) if "card" in cell.cards.columns else [str(c) for c in range(N_CARDS)]
    # known / synthetic / edited / user: the report warns when synthetic data were in play
    goal_source = list(cell.cards.attrs.get("goals", {}).get("source", ["known"] * N_GOALS))
    card_source = list(cell.cards["source"]) if "source" in cell.cards.columns else ["known"] * N_CARDS
    gg = stats["goal_games"]
    n_pts = 2 * gg  # one sample per seat per game in play
    mean, sd, lo, hi = mean_interval(stats["goal_points"], stats["goal_points_sq"], n_pts)
    seat0 = stats["goal_seat0_wins"] / WIN_UNITS
    s_lo, s_hi = wilson(seat0, gg)
    out_games = games - gg
    seat0_out = (stats["seat0_wins"][0] / WIN_UNITS) - seat0
    effect = np.where(gg > 0, seat0 / np.maximum(gg, 1), np.nan) - np.where(
        out_games > 0, seat0_out / np.maximum(out_games, 1), np.nan)
    p1 = stats["goal_p1_wins"] / WIN_UNITS
    p_lo, p_hi = wilson(p1, gg)
    lead = stats["goal_leader_wins"] / WIN_UNITS
    l_lo, l_hi = wilson(lead, stats["goal_decided"])
    goals = pd.DataFrame({
        "cell": cell.index,
        "goal": np.arange(1, N_GOALS + 1),
        "name": goal_names[:N_GOALS],
        "source": goal_source[:N_GOALS],
        "games_in_play": gg,
        "points_mean": mean,
        "points_sd": sd,
        "points_lo": lo,
        "points_hi": hi,
        "seat0_win_rate": seat0 / np.maximum(gg, 1),
        "seat0_win_lo": s_lo,
        "seat0_win_hi": s_hi,
        "seat0_effect": effect,
        "p1_win_rate": p1 / np.maximum(gg, 1),
        "p1_win_lo": p_lo,
        "p1_win_hi": p_hi,
        "decided_games": stats["goal_decided"],
        "leader_win_rate": lead / np.maximum(stats["goal_decided"], 1),
        "leader_win_lo": l_lo,
        "leader_win_hi": l_hi,
    })
    goals = goals[goals["games_in_play"] > 0].reset_index(drop=True)
    sg = stats["start_games"]
    sw = stats["start_p1_wins"] / WIN_UNITS
    st_lo, st_hi = wilson(sw, sg)
    start = pd.DataFrame({"cell": cell.index, "card": card_names[:N_CARDS], "source": card_source[:N_CARDS],
                          "games": sg,
                          "p1_win_rate": sw / np.maximum(sg, 1), "p1_win_lo": st_lo, "p1_win_hi": st_hi})
    start = start[start["games"] > 0].reset_index(drop=True)
    wg = stats["games_with_skip"]
    sk_lo, sk_hi = wilson(wg, np.full(2, games))
    ww = stats["skip_game_wins"] / WIN_UNITS
    w_lo, w_hi = wilson(ww, wg)
    skips = pd.DataFrame({
        "cell": cell.index,
        "seat": [0, 1],
        "policy": [s.label() for s in cell.seats],
        "games": games,
        "mean_taken": stats["taken"] / games,
        "mean_skipped": stats["skipped"] / games,
        "skip_games_rate": wg / games,
        "skip_games_lo": sk_lo,
        "skip_games_hi": sk_hi,
        "win_rate_when_skipping": ww / np.maximum(wg, 1),
        "win_when_skipping_lo": w_lo,
        "win_when_skipping_hi": w_hi,
    })
    return {"goals": goals, "start_card": start, "skips": skips}
