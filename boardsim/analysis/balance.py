"""Paired experiments: the effect of a change measured on the same deals.

Two *arms* (seats, card tables, rules) play the same deals — the same cell
key, every deal in every seat rotation — and the per-deal difference of one
seat's win share is averaged.  Because deal luck cancels, far fewer games
are needed than for two independent runs, and two identical arms give an
effect of exactly zero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from boardsim import rng
from boardsim.analysis.card_fields import sweepable_fields  # noqa: F401  (re-exported)
from boardsim.analysis.stats import deal_interval
from boardsim.cell import DEFAULT_CHUNK, make_cell, play_chunk
from boardsim.errors import BadInput
from boardsim.games.base import Game, Seat


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
    seating: str = "all",
    b_mean: bool = False,
) -> dict[str, float]:
    """Win share of ``seat`` in arm A minus arm B, per deal, with a t interval.

    Each deal is played in every arrangement of the ``seating`` design in each arm and averaged over
    them, so the deal is the unit.  With ``b_mean`` arm B's side is the mean share of all its seats: for a
    base player in every seat that is the base seat's share in every position, the positions the seat of
    arm A visits (arm B's single arrangement always puts ``seat`` first, so its own share there would be
    the first player's rate and bias the effect by ``1/P - first-player rate``).

    Returns ``effect``, ``effect_lo``, ``effect_hi``, ``p_value`` (two-sided
    t test of no effect), ``win_a`` and ``win_b`` with their ``_lo``/``_hi`` intervals, ``deals`` and
    ``games`` (games in arm A).
    """
    cell_a = make_cell(game, players, arm_a.seats, arm_a.rules, arm_a.cards, seating_design=seating)
    cell_b = make_cell(game, players, arm_b.seats, arm_b.rules, arm_b.cards, seating_design=seating)
    key = rng.cell_key(seed, 0)
    n_a, n_b = len(cell_a.prepared), len(cell_b.prepared)
    deals = -(-games // n_a)
    sums = np.zeros((3, 2))  # rows: a, b, a - b; columns: sum, sum of squares over deals
    for start in range(0, deals, chunk_size):
        count = min(chunk_size, deals - start)
        # rows come arrangement-major: reshape to (arrangement, deal) and average each deal over them
        a = play_chunk(cell_a, key, start, count)["win"][:, seat].reshape(n_a, count).mean(axis=0)
        win_b = play_chunk(cell_b, key, start, count)["win"]
        b = (win_b.mean(axis=1) if b_mean else win_b[:, seat]).reshape(n_b, count).mean(axis=0)
        for row, y in enumerate((a, b, a - b)):
            sums[row] += (y.sum(), (y * y).sum())
    mean, lo, hi = deal_interval(sums[:, 0], sums[:, 1], deals, 1.0, confidence)
    var = max(sums[2, 1] - deals * mean[2] * mean[2], 0.0) / max(deals - 1, 1)
    se = np.sqrt(var / deals)
    p_value = float(2 * stats.t.sf(abs(mean[2]) / se, max(deals - 1, 1))) if se > 0 else float(mean[2] == 0.0)
    return {
        "effect": float(mean[2]),
        "effect_lo": float(lo[2]),
        "effect_hi": float(hi[2]),
        "p_value": p_value,
        "win_a": float(mean[0]),
        "win_a_lo": float(lo[0]),
        "win_a_hi": float(hi[0]),
        "win_b": float(mean[1]),
        "win_b_lo": float(lo[1]),
        "win_b_hi": float(hi[1]),
        "deals": deals,
        "games": deals * n_a,
    }


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment: family-wise error control for any dependence between the tests.

    The k-th smallest p-value is multiplied by (m - k + 1), then made non-decreasing in that order.
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(np.maximum.accumulate(p[order] * (m - np.arange(m))), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def flag_effects(table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Flag rows whose effect differs from zero after Holm's correction across all rows (the family).

    ``strong`` (positive effect) or ``weak`` (negative) when the Holm-adjusted p-value is below
    ``alpha``.  A row's flag depends only on its own test and the family size, so testing a subset of
    cards changes flags only through the smaller family.
    """
    out = table.copy()
    out["p_holm"] = holm(out["p_value"]) if len(out) else []
    out["correction"] = f"holm over {len(out)} tests"
    significant = out["p_holm"] < alpha
    out["flag"] = np.where(significant & (out["effect"] > 0), "strong",
                           np.where(significant & (out["effect"] < 0), "weak", ""))
    return out


def card_strength(
    game: Game,
    players: int | Sequence[int],
    base: Seat | Sequence[Seat],
    favour: Callable[[str, Seat], Seat],
    cards: Sequence[str],
    table: pd.DataFrame,
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    progress=None,
    seating: str = "all",
) -> pd.DataFrame:
    """Win rate added by each card: seat 0 made to favour it (``favour(card, base) -> Seat``) vs ``base``.

    Both arms play the same deals with the other seats on ``base``.  The favouring seat plays every position;
    it is compared with the base player's share over those positions (the base arm's mean seat share,
    ``1/P`` whenever a game always has a winner), so a first-player edge does not leak into the effect.

    ``base`` may be several players (a skill
    axis: ``fame_per_cost`` and ``mcts(...)``): each card's effect is measured under each on the same deals,
    and the ``base`` column says which.  Every (base, card, count) is one test.  Rows are sorted by base, then
    player count, then from the strongest card down, and flagged where the effect differs from zero after
    Holm's correction over all tests (cards x player counts x skill levels).
    """
    counts = [players] if isinstance(players, int) else list(players)
    bases = [base] if isinstance(base, Seat) else list(base)
    rows = []
    for b in bases:
        for n in counts:
            others = [b] * (n - 1)
            for card in cards:
                r = paired_effect(game, n, Arm([favour(card, b)] + others, table, rules),
                                  Arm([b] + others, table, rules), seat=0, games=games, seed=seed, seating=seating,
                                  b_mean=True)
                rows.append({"base": b.label(), "players": n, "card": card, **r})
                if progress is not None:
                    progress(card, r)
    ranked = flag_effects(pd.DataFrame(rows))
    order = {b.label(): i for i, b in enumerate(bases)}
    ranked = ranked.assign(_b=ranked["base"].map(order)).sort_values(
        ["_b", "players", "effect"], ascending=[True, True, False], kind="stable").drop(columns="_b")
    ranked = ranked.reset_index(drop=True)
    ranked.insert(3, "rank", ranked.groupby(["base", "players"]).cumcount() + 1)
    return ranked


def card_cost(game: Game, players: Sequence[int], bases: Sequence[Seat], favour: Callable[[str, Seat], Seat],
              cards: Sequence[str], table: pd.DataFrame, games: int, seed: int,
              rules: Mapping[str, Any] | None = None) -> tuple[float, float]:
    """(estimated seconds of ``card_strength``, seconds the calibration took): per base and player count, one
    arm of each kind timed (``cost.seconds_per_game``) on the first card, times cards and games per arm."""
    from boardsim.analysis import cost

    t0 = time.perf_counter()
    total = 0.0
    for b in bases:
        for n in players:
            for lineup in ([favour(cards[0], b)] + [b] * (n - 1), [b] * n):
                total += cost.seconds_per_game(game, n, lineup, seed=seed, rules=rules, cards=table) * games
    return total * len(cards), time.perf_counter() - t0


def verdict_changes(strength: pd.DataFrame) -> pd.DataFrame:
    """Cards whose verdict differs between skill levels (the ``base`` column), per player count: flagged at one
    level and not at another, or an effect whose sign changes with both signs clear of zero (each level's
    interval excludes zero on its own side).  One row per (players, card) that changes, with each level's
    flag and effect."""
    if "base" not in strength.columns or strength["base"].nunique() < 2:
        return pd.DataFrame(columns=["players", "card", "change"])
    rows = []
    for (n, card), part in strength.groupby(["players", "card"], sort=False):
        flags = part["flag"].astype(object).fillna("").astype(str)
        clear_pos = (part["effect_lo"] > 0).any()
        clear_neg = (part["effect_hi"] < 0).any()
        changes = []
        if flags.nunique() > 1:
            changes.append("flag")
        if clear_pos and clear_neg:
            changes.append("sign")
        if changes:
            row = {"players": n, "card": card, "change": " and ".join(changes)}
            for b, f, e in zip(part["base"], flags, part["effect"], strict=True):
                row[f"flag [{b}]"] = f or "-"
                row[f"effect [{b}]"] = e
            rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else ["players", "card", "change"])


def value_sweep(
    game: Game,
    players: int | Sequence[int],
    base: Seat,
    favour,
    card: str,
    field: str,
    values: Sequence[int],
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    seating: str = "all",
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The card's win-rate-added at each integer value of one of its fields, at each player count.

    Values the card's field does not accept are skipped.  The suggestion is the value whose worst
    |effect| over the player counts is smallest, with each count's effect there (None if no value was
    valid).
    """
    counts = [players] if isinstance(players, int) else list(players)
    rows = []
    for value in values:
        try:
            table = game.card_table({card: {field: int(value)}})
        except BadInput:
            continue
        for n in counts:
            r = paired_effect(game, n, Arm([favour(card, base)] + [base] * (n - 1), table, rules),
                              Arm([base] * n, table, rules), seat=0, games=games, seed=seed, seating=seating,
                              b_mean=True)
            rows.append({"card": card, "players": n, "label": f"{field}={value}", "field": field,
                         "value": int(value), **r})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame, None
    worst = frame.assign(abs_effect=frame["effect"].abs()).groupby("value")["abs_effect"].max()
    best = int(worst.idxmin())
    at = frame[frame["value"] == best]
    suggestion = {"card": card, "field": field, "suggested": best, "worst_abs_effect": float(worst[best]),
                  **{f"effect_at_{int(n)}p": float(e) for n, e in zip(at["players"], at["effect"], strict=True)}}
    return frame, suggestion
