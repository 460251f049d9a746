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
from boardsim.cell import DEFAULT_CHUNK, make_cell
from boardsim.errors import BadInput
from boardsim.games.base import Game, Seat
from boardsim.stats.intervals import deal_interval


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
    executor: Any = None,
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
    deals = -(-games // len(cell_a.prepared))
    a = deal_shares(cell_a, key, seat, 0, deals, chunk_size=chunk_size, executor=executor)
    b = deal_shares(cell_b, key, seat, 0, deals, mean_seats=b_mean, chunk_size=chunk_size, executor=executor)
    effect, lo, hi, p_value = paired_stats(a - b, confidence)
    (wa, wa_lo, wa_hi, _), (wb, wb_lo, wb_hi, _) = paired_stats(a, confidence), paired_stats(b, confidence)
    return {"effect": effect, "effect_lo": lo, "effect_hi": hi, "p_value": p_value,
            "win_a": wa, "win_a_lo": wa_lo, "win_a_hi": wa_hi, "win_b": wb, "win_b_lo": wb_lo, "win_b_hi": wb_hi,
            "deals": deals, "games": deals * len(cell_a.prepared)}


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


REFERENCE = "(average card)"  # the reference arms' label: a seat that favours (avoids) the average market card
REF_BLOCK = 64  # deals per block of a reference arm (each block favours, or avoids, one market card in turn)


def deal_shares(cell: Any, key: int, seat: int, start: int, count: int, mean_seats: bool = False,
                chunk_size: int = DEFAULT_CHUNK, executor: Any = None) -> np.ndarray:
    """Per deal of ``start .. start + count - 1``: ``seat``'s win share (``mean_seats``: the mean share of
    every seat) averaged over the cell's arrangements, so the deal is the unit.  The deals are played in
    ranges of ``chunk_size`` on ``executor`` (local threads by default, processes or Dask): the same shares
    on any of them (``executors.per_deal``)."""
    from boardsim.executors import per_deal

    def share(raw: dict[str, np.ndarray]) -> np.ndarray:
        return raw["win"].mean(axis=1) if mean_seats else raw["win"][:, seat]

    return per_deal(cell, key, start, count, share, chunk_size, executor) / len(cell.prepared)


def reference_blocks(start: int, count: int, k: int, block: int = REF_BLOCK) -> list[tuple[int, int, int]]:
    """A reference arm's runs over deals ``start .. start + count - 1``: (market card index, first deal,
    deals).  Deal ``d`` plays market card ``(d // block) % k``'s arm, so every card has the same share of
    deals (to within a block) and the arm's expected share is the mean over market cards of their arms:
    "favour (or avoid) the average card".  The runs depend on the deal numbers only, never on the chunking."""
    out = []
    d, end = start, start + count
    while d < end:
        stop = min(end, (d // block + 1) * block)
        out.append(((d // block) % k, d, stop - d))
        d = stop
    return out


def reference_arm(market: Sequence[str], shares: Mapping[str, np.ndarray],
                  play: Callable[[str, int, int], np.ndarray], deals: int) -> np.ndarray:
    """Per deal, a reference arm's share ("favour", or "avoid", "the average market card"): deal ``d`` plays
    the arm of its block's card (``reference_blocks``, blocks of at most REF_BLOCK and deals / k deals), taken from
    ``shares`` where that card's arm was played, else ``play(card, first deal, deals)``; weighted by
    ``deals / (k * deals of that card)`` so every card counts 1/k exactly and the mean over deals is the mean
    over cards of their arms' means."""
    k = len(market)
    # blocks no longer than deals / k, so every card has deals of its own once there are k deals
    blocks = reference_blocks(0, deals, k, max(1, min(REF_BLOCK, deals // k)))
    n = np.zeros(k)
    for j, _, c in blocks:
        n[j] += c
    present = int((n > 0).sum())  # fewer than k deals: the mean over the cards that have one
    ref = np.empty(deals)
    for j, s, c in blocks:
        own = shares.get(market[j])
        y = own[s:s + c] if own is not None else play(market[j], s, c)
        ref[s:s + c] = y * (deals / (present * n[j]))
    return ref


def paired_stats(y: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Mean of per-deal values ``y`` (a paired difference), its t interval and two-sided p-value of 0."""
    n = y.size
    mean, lo, hi = deal_interval(y.sum(), (y * y).sum(), n, 1.0, confidence)
    se = float(y.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    p = float(2 * stats.t.sf(abs(float(mean)) / se, max(n - 1, 1))) if se > 0 else float(float(mean) == 0.0)
    return float(mean), float(lo), float(hi), p


def card_effects(
    game: Game,
    players: int,
    base: Seat,
    cards: Sequence[str],
    table: pd.DataFrame,
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    seating: str = "all",
    progress: Callable[[str, int], None] | None = None,
    executor: Any = None,
) -> list[dict[str, Any]]:
    """Each card's strength and regret at one table (``players``, ``base`` in the other seats), every arm on
    the same deals (docs/guide/measure-a-card.md).

    - ``swing``: the win share of a seat that hires the card whenever it can (``game.favour``) minus that
      of a seat that never hires it (``game.avoid``), both otherwise the base player, paired on deals: how
      much of a seat's win share hangs on the card.
    - ``effect`` (**strength**): the card's swing minus the average market card's (``swing_ref``: the mean
      over market cards, exact when every market card is measured, else the reference arms of
      ``reference_arm``).  0 is the average card of this market; the test is of strength 0.
    - ``regret``: the favouring seat's share minus the base player's own mean seat share (1/P: every game's
      win shares sum to 1): what forcing the card costs or gains against the base's own choices.  0 is a
      ceiling for a card the base already hires; it is the measure ``cards`` reported before strength.

    The measured seat plays every position of the ``seating`` design in every arm, so a first-player edge
    cancels.  ``progress(label, games)`` hears each arm as it finishes.  ``executor``: where the games run
    (``deal_shares``); the result does not depend on it.
    """
    market = game.market_cards(table)
    key = rng.cell_key(seed, 0)
    others = [base] * (players - 1)
    cells: dict[tuple[str, str], Any] = {}
    make = {"favour": game.favour, "avoid": game.avoid}

    def play(kind: str, card: str, start: int, count: int) -> np.ndarray:
        if (kind, card) not in cells:
            cells[kind, card] = make_cell(game, players, [make[kind](card, base)] + others, rules, table,
                                          seating_design=seating)
        return deal_shares(cells[kind, card], key, 0, start, count, executor=executor)

    play("favour", market[0], 0, 0)  # builds the cell: its arrangements (a lineup of one base alone has one)
    n_arr = len(cells["favour", market[0]].prepared)
    deals = -(-games // n_arr)
    fav, avo = {}, {}
    for card in cards:
        for kind, into in (("favour", fav), ("avoid", avo)):
            into[card] = play(kind, card, 0, deals)
            if progress is not None:
                progress(f"{card} ({kind})", deals * n_arr)
    if all(c in fav for c in market):  # every market card's arms played: their exact mean, deal by deal
        ref = np.mean([fav[c] - avo[c] for c in market], axis=0)
    else:
        ref = (reference_arm(market, fav, lambda c, s, n: play("favour", c, s, n), deals)
               - reference_arm(market, avo, lambda c, s, n: play("avoid", c, s, n), deals))
        if progress is not None:
            progress(REFERENCE, 2 * deals * n_arr)
    r_mean, r_lo, r_hi, _ = paired_stats(ref)
    rows = []
    for card in cards:
        d = fav[card] - avo[card]
        e, lo, hi, p = paired_stats(d - ref)
        sw, sw_lo, sw_hi, _ = paired_stats(d)
        w, w_lo, w_hi, _ = paired_stats(fav[card])
        v, v_lo, v_hi, _ = paired_stats(avo[card])
        fair = 1.0 / players  # the base player's mean seat share: every game's win shares sum to 1
        rows.append({"card": card, "effect": e, "effect_lo": lo, "effect_hi": hi, "p_value": p,
                     "swing": sw, "swing_lo": sw_lo, "swing_hi": sw_hi,
                     "swing_ref": r_mean, "swing_ref_lo": r_lo, "swing_ref_hi": r_hi,
                     "win_favour": w, "win_favour_lo": w_lo, "win_favour_hi": w_hi,
                     "win_avoid": v, "win_avoid_lo": v_lo, "win_avoid_hi": v_hi,
                     "regret": w - fair, "regret_lo": w_lo - fair, "regret_hi": w_hi - fair,
                     "deals": deals, "games": deals * n_arr})
    return rows


def card_strength(
    game: Game,
    players: int | Sequence[int],
    base: Seat | Sequence[Seat],
    cards: Sequence[str],
    table: pd.DataFrame,
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    progress: Callable[[str, int], None] | None = None,
    seating: str = "all",
    executor: Any = None,
) -> pd.DataFrame:
    """Each card's strength (``card_effects``: its swing, hiring it whenever possible against never, minus
    the average market card's, paired on deals) and its regret, per base player and player count.

    ``base`` may be several players (a skill axis: ``fame_per_cost`` and ``mcts(...)``): each card is measured
    under each on the same deals, and the ``base`` column says which.  Every (base, card, count) is one test.
    Rows are sorted by base, then player count, then from the strongest card down, and flagged where the
    strength differs from zero after Holm's correction over all tests (cards x player counts x skill levels).
    """
    counts = [players] if isinstance(players, int) else list(players)
    bases = [base] if isinstance(base, Seat) else list(base)
    rows = []
    for b in bases:
        for n in counts:
            for r in card_effects(game, n, b, cards, table, games, seed, rules, seating, progress=progress,
                                  executor=executor):
                rows.append({"base": b.label(), "players": n, **r})
    ranked = flag_effects(pd.DataFrame(rows))
    order = {b.label(): i for i, b in enumerate(bases)}
    ranked = ranked.assign(_b=ranked["base"].map(order)).sort_values(
        ["_b", "players", "effect"], ascending=[True, True, False], kind="stable").drop(columns="_b")
    ranked = ranked.reset_index(drop=True)
    ranked.insert(3, "rank", ranked.groupby(["base", "players"]).cumcount() + 1)
    return ranked


def card_cost(game: Game, players: Sequence[int], bases: Sequence[Seat], cards: Sequence[str], table: pd.DataFrame,
              games: int, seed: int, rules: Mapping[str, Any] | None = None) -> tuple[float, float]:
    """(estimated seconds of ``card_strength``, seconds the calibration took): per base and player count, the
    favouring and the avoiding arm of the first card timed (``cost.seconds_per_game``), times the arms
    (``card_arms``) and games per arm."""
    from boardsim import cost

    t0 = time.perf_counter()
    total = 0.0
    for b in bases:
        for n in players:
            pair = sum(cost.seconds_per_game(game, n, [seat] + [b] * (n - 1), seed=seed, rules=rules, cards=table)
                       for seat in (game.favour(cards[0], b), game.avoid(cards[0], b)))
            total += pair / 2 * games * card_arms(game, cards, table)
    return total, time.perf_counter() - t0


def card_arms(game: Game, cards: Sequence[str], table: pd.DataFrame) -> int:
    """Arms ``card_effects`` plays per base and player count: a favouring and an avoiding arm per card, and two
    reference arms unless every market card is among them (then the reference is their mean)."""
    return 2 * len(cards) + (2 if set(game.market_cards(table)) - set(cards) else 0)


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


def skill_table(strength: pd.DataFrame) -> pd.DataFrame:
    """One row per (players, card) on a skill axis: each base player's strength with its interval and verdict
    side by side (``strength [base]``, ``lo [base]``, ``hi [base]``, ``verdict [base]``: strong, weak or -), and
    ``verdict_changes`` (flag, sign, both, or empty: the rule of ``verdict_changes``).  Empty with one base."""
    if "base" not in strength.columns or strength["base"].nunique() < 2:
        return pd.DataFrame()
    levels = list(dict.fromkeys(strength["base"]))
    changes = verdict_changes(strength)
    changed = {(r["players"], r["card"]): r["change"] for r in changes.to_dict("records")} if len(changes) else {}
    rows = []
    for (n, card), part in strength.groupby(["players", "card"], sort=False):
        by = part.set_index("base")
        row: dict[str, Any] = {"players": n, "card": card}
        for b in levels:
            if b in by.index:
                flag = by.loc[b, "flag"]
                row.update({f"strength [{b}]": by.loc[b, "effect"], f"lo [{b}]": by.loc[b, "effect_lo"],
                            f"hi [{b}]": by.loc[b, "effect_hi"],
                            f"verdict [{b}]": flag if isinstance(flag, str) and flag else "-"})
        row["verdict_changes"] = changed.get((n, card), "")
        rows.append(row)
    first = f"strength [{levels[0]}]"
    return pd.DataFrame(rows).sort_values(["players", first], ascending=[True, False], kind="stable").reset_index(
        drop=True)


def value_sweep(
    game: Game,
    players: int | Sequence[int],
    base: Seat | Sequence[Seat],
    card: str,
    field: str,
    values: Sequence[int],
    games: int,
    seed: int,
    rules: Mapping[str, Any] | None = None,
    seating: str = "all",
    progress: Callable[[str, int], None] | None = None,
    executor: Any = None,
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The card's strength (``card_effects``) at each integer value of one of its fields, at each player
    count and under each base player (a skill axis), on the same deals.

    Values the card's field does not accept are skipped.  The suggestion is one value for every level and
    count: the value whose worst |strength| over them is smallest, with each (base, count)'s strength there,
    and ``fair_everywhere``: whether every one of those intervals contains 0 (None if no value was valid).
    """
    counts = [players] if isinstance(players, int) else list(players)
    bases = [base] if isinstance(base, Seat) else list(base)
    rows = []
    for value in values:
        try:
            table = game.card_table({card: {field: int(value)}})
        except BadInput:
            continue
        for b in bases:
            for n in counts:
                (r,) = card_effects(game, n, b, [card], table, games, seed, rules, seating, progress=progress,
                                    executor=executor)
                rows.append({"base": b.label(), "players": n, "label": f"{field}={value}", "field": field,
                             "value": int(value), **r})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame, None
    worst = frame.assign(abs_effect=frame["effect"].abs()).groupby("value")["abs_effect"].max()
    best = int(worst.idxmin())
    at = frame[frame["value"] == best]
    fair = bool(((at["effect_lo"] <= 0) & (at["effect_hi"] >= 0)).all())
    one = len(bases) == 1
    suggestion = {"card": card, "field": field, "suggested": best, "worst_abs_effect": float(worst[best]),
                  "fair_everywhere": fair,
                  **{(f"effect_at_{int(n)}p" if one else f"effect_at_{int(n)}p [{b}]"): float(e)
                     for b, n, e in zip(at["base"], at["players"], at["effect"], strict=True)}}
    return frame, suggestion
