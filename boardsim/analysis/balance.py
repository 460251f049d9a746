"""Paired experiments: the effect of a change measured on the same deals.

Two *arms* (seats, card tables, rules) play the same deals — the same cell
key, every deal in every seat rotation — and the per-deal difference of one
seat's win share is averaged.  Because deal luck cancels, far fewer games
are needed than for two independent runs, and two identical arms give an
effect of exactly zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from boardsim import rng
from boardsim.games.base import Game, Seat
from boardsim.runner import DEFAULT_CHUNK, make_cell, play_chunk


@dataclass
class Arm:
    """One side of a paired experiment."""

    seats: Sequence[Seat]
    cards: pd.DataFrame
    rules: Mapping[str, Any] | None = None


def paired_effect(
    game: Game,
    players: int,
    arm_a: Arm,
    arm_b: Arm,
    seat: int,
    games: int,
    seed: int,
    confidence: float = 0.95,
    chunk_size: int = DEFAULT_CHUNK,
) -> dict[str, float]:
    """Win share of ``seat`` in arm A minus arm B, per deal, with a t interval.

    Returns ``effect``, ``effect_lo``, ``effect_hi``, ``win_a``, ``win_b``,
    ``deals`` and ``games`` (games per arm).
    """
    cell_a = make_cell(game, players, arm_a.seats, arm_a.rules, arm_a.cards, rotate=True)
    cell_b = make_cell(game, players, arm_b.seats, arm_b.rules, arm_b.cards, rotate=True)
    key = rng.cell_key(seed, 0)
    n_rot = len(cell_a.rotations)
    deals = -(-games // n_rot)
    total = total_sq = win_a = win_b = 0.0
    for start in range(0, deals, chunk_size):
        count = min(chunk_size, deals - start)
        # rows come rotation-major: reshape to (rotation, deal) and average each deal over rotations
        a = play_chunk(cell_a, key, start, count)["win"][:, seat].reshape(n_rot, count).mean(axis=0)
        b = play_chunk(cell_b, key, start, count)["win"][:, seat].reshape(n_rot, count).mean(axis=0)
        diff = a - b
        total += diff.sum()
        total_sq += (diff * diff).sum()
        win_a += a.sum()
        win_b += b.sum()
    mean = total / deals
    var = max(total_sq - deals * mean * mean, 0.0) / max(deals - 1, 1)
    half = stats.t.ppf(0.5 + confidence / 2.0, max(deals - 1, 1)) * np.sqrt(var / deals)
    return {
        "effect": mean,
        "effect_lo": mean - half,
        "effect_hi": mean + half,
        "win_a": win_a / deals,
        "win_b": win_b / deals,
        "deals": deals,
        "games": deals * n_rot,
    }


def zero_crossing(values: Sequence[float], effects: Sequence[float]) -> float | None:
    """Where a swept value's effect crosses zero, by linear interpolation (None if it never does)."""
    v = np.asarray(values, dtype=float)
    e = np.asarray(effects, dtype=float)
    order = np.argsort(v)
    v, e = v[order], e[order]
    for i in range(len(v)):
        if e[i] == 0.0:
            return float(v[i])
        if i + 1 < len(v) and np.sign(e[i]) != np.sign(e[i + 1]):
            return float(v[i] + (v[i + 1] - v[i]) * (0.0 - e[i]) / (e[i + 1] - e[i]))
    return None


def flag_outliers(table: pd.DataFrame, value: str = "effect", lo: str = "effect_lo", hi: str = "effect_hi"):
    """Mark rows whose interval excludes the median row's value: 'strong', 'weak' or ''."""
    median = float(np.median(table[value]))
    flag = np.where(table[lo] > median, "strong", np.where(table[hi] < median, "weak", ""))
    out = table.copy()
    out["median_effect"] = median
    out["flag"] = flag
    return out


def card_strength(
    game: Game,
    players: int,
    base: Seat,
    favour,
    cards: Sequence[str],
    table: pd.DataFrame,
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    progress=None,
) -> pd.DataFrame:
    """Win rate added by each card: seat 0 made to favour it (``favour(card) -> Seat``) vs ``base``.

    Both arms play the same deals with the other seats on ``base``; rows are sorted from the
    strongest card down and flagged where the interval excludes the median card's effect.
    """
    others = [base] * (players - 1)
    rows = []
    for card in cards:
        r = paired_effect(game, players, Arm([favour(card)] + others, table, rules), Arm([base] + others, table, rules),
                          seat=0, games=games, seed=seed)
        rows.append({"card": card, **r})
        if progress is not None:
            progress(card, r)
    ranked = flag_outliers(pd.DataFrame(rows)).sort_values("effect", ascending=False).reset_index(drop=True)
    ranked.insert(1, "rank", np.arange(1, len(ranked) + 1))
    return ranked


def value_sweep(
    game: Game,
    players: int,
    base: Seat,
    favour,
    card: str,
    field: str,
    values: Sequence[int],
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, float | None]:
    """The card's win-rate-added at each value of one of its fields, and where it crosses zero."""
    rows = []
    for value in values:
        table = game.card_table({card: {field: value}})
        r = paired_effect(game, players, Arm([favour(card)] + [base] * (players - 1), table, rules),
                          Arm([base] * players, table, rules), seat=0, games=games, seed=seed)
        rows.append({"card": card, "label": f"{field}={value}", "field": field, "value": value, **r})
    frame = pd.DataFrame(rows)
    return frame, zero_crossing(frame["value"], frame["effect"])
