"""Tidy tables from per-cell aggregates.  Columns are documented in docs/reference/output-files.md."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from boardsim.aggregate import Aggregate
from boardsim.cell import Cell
from boardsim.games.base import WIN_UNITS
from boardsim.stats.intervals import deal_interval, mean_interval, wilson

SUMMARY_BASE = [
    "scenario", "game", "cell", "label", "players", "level", "seat", "policy", "seats", "games", "deals", "wins",
    "win_rate", "win_lo", "win_hi", "interval", "score_mean", "score_sd", "score_lo", "score_hi",
    "no_winner_rate", "rounds_mean", "seating", "arrangements", "seating_spread",
]

# the row label of the first player's edge in a patch's tables, beside the cards' rows
FIRST = "(first player)"
TARGET_KINDS = ("feel", "meta")  # a patch test whose effect is the shortfall from a target (its figure's own units)


def cell_label(cell: Cell) -> str:
    """Short text naming a cell by its grid values (``all`` when there is no grid)."""
    if not cell.values:
        return "all"
    # "; " between grid keys, so that a list value can keep its own ", "
    return "; ".join(f"{short_key(k)}={_short(v)}" for k, v in cell.values.items())


def short_key(key: str) -> str:
    """``seats[0].params.multiple`` -> ``seat 0 multiple``; ``rules.rounds`` -> ``rounds``."""
    m = re.match(r"^seats\[(\d+)\]\.(?:params\.)?(.+)$", key)
    if m:
        return f"seat {m.group(1)} {m.group(2)}"
    if key.startswith("rules."):
        return key[len("rules."):]
    if key.startswith("cards."):
        return key[len("cards."):].replace(".", " ")
    return key


def _short(v) -> str:
    """A grid value as text; a list reads ``3, 4, 7, 10, 15``."""
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def _rate_interval(units_total, units_sq, agg: Aggregate, seats_each) -> tuple:
    """Win rate per seat and its 95% interval, and which interval it is.

    Games are independent when each deal is played once (``fixed``) and the row is one seat: then
    Wilson.  Otherwise the games of a deal (its arrangements, the policy's several seats) share cards,
    so the interval is a t interval on per-deal means (``deal_interval``): the deal is the unit.
    """
    seats_each = np.asarray(seats_each, dtype=np.float64)
    scale = agg.n_arr * seats_each * WIN_UNITS
    rate, lo, hi = deal_interval(units_total, units_sq, agg.deals, scale)
    wilson_ok = (agg.n_arr == 1) & (seats_each == 1)
    wlo, whi = wilson(np.asarray(units_total) / WIN_UNITS, np.full(len(seats_each), agg.games))
    lo = np.clip(np.where(wilson_ok, wlo, lo), 0.0, 1.0)
    hi = np.clip(np.where(wilson_ok, whi, hi), 0.0, 1.0)
    method = np.where(wilson_ok, "wilson", "deal t")
    return rate, lo, hi, method


def _score_interval(total, total_sq, games_sq, agg: Aggregate, seats_each) -> tuple:
    """Score mean, sd over games, and the interval of the mean (per deal where games share a deal)."""
    seats_each = np.asarray(seats_each, dtype=np.float64)
    n = agg.games * seats_each
    mean, sd, nlo, nhi = mean_interval(total, games_sq, n)
    _, dlo, dhi = deal_interval(total, total_sq, agg.deals, agg.n_arr * seats_each)
    single = (agg.n_arr == 1) & (seats_each == 1)
    return mean, sd, np.where(single, nlo, dlo), np.where(single, nhi, dhi)


def seating_spread(agg: Aggregate) -> tuple[np.ndarray, np.ndarray]:
    """Per slot and per policy: max - min over arrangements of the arrangement's win rate."""
    per_arr = agg.arr_wins / WIN_UNITS / max(agg.deals, 1)  # (A, P) win rate per seat
    seats_each = agg.group_matrix().sum(axis=0)
    per_arr_group = (agg.arr_wins @ agg.group_matrix()) / WIN_UNITS / max(agg.deals, 1) / seats_each
    return np.ptp(per_arr, axis=0), np.ptp(per_arr_group, axis=0)


def summary_rows(scenario_name: str, cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """One row per seat of one cell, then (``level = policy``) one row per distinct policy.

    A policy row covers every seat the policy holds and every arrangement: its win rate is per seat
    (comparable with the fair share 1/players), its interval counts deals.
    """
    P = cell.n_players
    gm = agg.group_matrix()
    names = cell.policies
    slot_spread, group_spread = seating_spread(agg)
    one = np.ones(P)
    seats_each = gm.sum(axis=0)
    w_rate, w_lo, w_hi, w_how = _rate_interval(agg.wins, agg.deal_win_sq, agg, one)
    s_mean, s_sd, s_lo, s_hi = _score_interval(agg.score_sum, agg.deal_score_sq, agg.score_sq, agg, one)
    g_wins = agg.wins @ gm
    g_rate, g_lo, g_hi, g_how = _rate_interval(g_wins, agg.group_win_sq, agg, seats_each)
    g_mean, g_sd, g_lo_s, g_hi_s = _score_interval(agg.score_sum @ gm, agg.group_score_sq, agg.score_sq @ gm,
                                                   agg, seats_each)
    common = {"scenario": scenario_name, "game": cell.game.name, "cell": cell.index, "label": cell_label(cell),
              **{k: _short(v) for k, v in cell.values.items()}, "players": P}
    no_winner = agg.no_winner / max(agg.games, 1)
    rounds = agg.rounds_sum / max(agg.games, 1)
    counters = agg.counter_sum / max(agg.games, 1)  # (P, counters)
    seat_rows = pd.DataFrame({
        **{k: [v] * P for k, v in common.items()},
        "level": "seat",
        "seat": pd.array(np.arange(P), dtype="Int64"),
        "policy": [s.label() for s in cell.seats],
        "seats": 1,
        "games": agg.games,
        "deals": agg.deals,
        "wins": agg.wins / WIN_UNITS,
        "win_rate": w_rate, "win_lo": w_lo, "win_hi": w_hi, "interval": w_how,
        "score_mean": s_mean, "score_sd": s_sd, "score_lo": s_lo, "score_hi": s_hi,
        "no_winner_rate": no_winner, "rounds_mean": rounds,
        "seating": cell.seating, "arrangements": agg.n_arr, "seating_spread": slot_spread,
    })
    G = len(names)
    policy_rows = pd.DataFrame({
        **{k: [v] * G for k, v in common.items()},
        "level": "policy",
        "seat": pd.array([pd.NA] * G, dtype="Int64"),
        "policy": names,
        "seats": seats_each,
        "games": agg.games,
        "deals": agg.deals,
        "wins": g_wins / WIN_UNITS,
        "win_rate": g_rate, "win_lo": g_lo, "win_hi": g_hi, "interval": g_how,
        "score_mean": g_mean, "score_sd": g_sd, "score_lo": g_lo_s, "score_hi": g_hi_s,
        "no_winner_rate": no_winner, "rounds_mean": rounds,
        "seating": cell.seating, "arrangements": agg.n_arr, "seating_spread": group_spread,
    })
    # how the cell's games ended (share per end reason), the same on every row of the cell
    ends = agg.end_counts / max(agg.games, 1)
    for k, reason in enumerate(cell.game.end_reasons):
        seat_rows[f"end_{reason}"] = ends[k]
        policy_rows[f"end_{reason}"] = ends[k]
    for k, name in enumerate(agg.seat_counters):
        seat_rows[f"mean_{name}"] = counters[:, k]
        policy_rows[f"mean_{name}"] = (counters[:, k] @ gm) / seats_each
    return pd.concat([seat_rows, policy_rows], ignore_index=True)


def seating_rows(scenario_name: str, cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """One row per arrangement and policy: who sat where, and the policy's win rate in that arrangement.

    Within one arrangement every deal is played once, so its games are independent: a policy in one
    seat gets a Wilson interval; a policy in several seats a t interval over its games.
    """
    gm = agg.group_matrix()
    names = cell.policies
    seats_each = gm.sum(axis=0)
    labels = [s.label() for s in cell.seats]
    rows = []
    group_wins = agg.arr_wins @ gm  # (A, G)
    for k, position_of_slot in enumerate(cell.arrangements):
        by_position = [""] * cell.n_players
        for j, p in enumerate(position_of_slot):
            by_position[p] = labels[j]
        order = " | ".join(by_position)
        for g, name in enumerate(names):
            wins = group_wins[k, g] / WIN_UNITS
            n = agg.deals
            if seats_each[g] == 1:
                lo, hi = wilson(wins, n)
            else:
                _, lo, hi = deal_interval(group_wins[k, g], agg.arr_group_win_sq[k, g], n,
                                          seats_each[g] * WIN_UNITS)
            rows.append({"scenario": scenario_name, "cell": cell.index, "label": cell_label(cell),
                         "players": cell.n_players, "arrangement": k, "order": order, "policy": name,
                         "positions": " ".join(str(p) for j, p in enumerate(position_of_slot) if labels[j] == name),
                         "games": n, "wins": wins, "win_rate": wins / max(n * seats_each[g], 1),
                         "win_lo": float(np.clip(lo, 0, 1)), "win_hi": float(np.clip(hi, 0, 1))})
    return pd.DataFrame(rows)


def position_rows(scenario_name: str, cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """Win rate by place in turn order (0 = the game's first player), for first-player effects."""
    P = cell.n_players
    n = np.full(P, agg.games)
    wins = agg.wins_by_position / WIN_UNITS
    lo, hi = wilson(wins, n)
    return pd.DataFrame(
        {
            "scenario": scenario_name,
            "cell": cell.index,
            "label": cell_label(cell),
            "players": P,
            "position": np.arange(P),
            "games": n,
            "wins": wins,
            "win_rate": wins / np.maximum(n, 1),
            "win_lo": lo,
            "win_hi": hi,
        }
    )


def score_rows(cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """Score histogram: one row per cell, seat and score value that occurred."""
    scores = sorted(agg.score_hist)
    if not scores:
        return pd.DataFrame(columns=["cell", "label", "seat", "policy", "score", "count"])
    counts = np.stack([agg.score_hist[s] for s in scores])  # (n_scores, P)
    parts = []
    for j, seat in enumerate(cell.seats):
        keep = counts[:, j] > 0
        parts.append(
            pd.DataFrame(
                {
                    "cell": cell.index,
                    "label": cell_label(cell),
                    "seat": j,
                    "policy": seat.label(),
                    "score": np.asarray(scores)[keep],
                    "count": counts[keep, j],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def rounds_rows(cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """Game length histogram: one row per cell and number of rounds played."""
    rounds = sorted(agg.rounds_hist)
    return pd.DataFrame({
        "cell": cell.index,
        "label": cell_label(cell),
        "rounds": rounds,
        "count": [agg.rounds_hist[r] for r in rounds],
    })


def balance_rows(cell: Cell, agg: Aggregate) -> dict[str, pd.DataFrame]:
    """The game's own tables for one cell, each tagged with the cell label."""
    out = {}
    for name, frame in cell.game.balance_tables(cell, agg.extra, agg.games).items():
        frame = frame.copy()
        if "label" not in frame.columns:
            frame.insert(1 if "cell" in frame.columns else 0, "label", cell_label(cell))
        out[name] = frame
    return out
