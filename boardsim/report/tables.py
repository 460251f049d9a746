"""Tidy tables from per-cell aggregates.  Columns are documented in the README."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from boardsim.analysis.stats import mean_interval, wilson
from boardsim.runner import WIN_UNITS, Aggregate, Cell

SUMMARY_BASE = [
    "scenario", "game", "cell", "label", "players", "seat", "policy", "games", "wins", "win_rate",
    "win_lo", "win_hi", "score_mean", "score_sd", "score_lo", "score_hi", "no_winner_rate",
    "rounds_mean",
]


def cell_label(cell: Cell) -> str:
    """Short text naming a cell by its grid values (``all`` when there is no grid)."""
    if not cell.values:
        return "all"
    return ", ".join(f"{short_key(k)}={_short(v)}" for k, v in cell.values.items())


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
    if isinstance(v, (list, tuple)):
        return "[" + " ".join(map(str, v)) + "]"
    return str(v)


def summary_rows(scenario_name: str, cell: Cell, agg: Aggregate) -> pd.DataFrame:
    """One row per seat of one cell."""
    P = cell.n_players
    n = np.full(P, agg.games)
    wins = agg.wins / WIN_UNITS
    lo, hi = wilson(wins, n)
    mean, sd, mlo, mhi = mean_interval(agg.score_sum, agg.score_sq, n)
    rows = {
        "scenario": scenario_name,
        "game": cell.game.name,
        "cell": cell.index,
        "label": cell_label(cell),
    }
    frame = pd.DataFrame(
        {
            **{k: [v] * P for k, v in rows.items()},
            **{k: [_short(v)] * P for k, v in cell.values.items()},
            "players": P,
            "seat": np.arange(P),
            "policy": [s.label() for s in cell.seats],
            "games": n,
            "wins": wins,
            "win_rate": wins / np.maximum(n, 1),
            "win_lo": lo,
            "win_hi": hi,
            "score_mean": mean,
            "score_sd": sd,
            "score_lo": mlo,
            "score_hi": mhi,
            "no_winner_rate": agg.no_winner / max(agg.games, 1),
            "rounds_mean": agg.rounds_sum / max(agg.games, 1),
        }
    )
    for k, name in enumerate(agg.seat_counters):
        frame[f"mean_{name}"] = agg.counter_sum[:, k] / max(agg.games, 1)
    return frame


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
