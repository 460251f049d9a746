"""Tune one seat's numeric policy parameters against a field with differential evolution.

Every candidate is scored on the same deals (common random numbers: one fixed cell seed, every deal
in every seat arrangement), so the optimiser compares parameters, not luck.  The winner is then
re-measured against the starting parameters on fresh deals, paired: the answer is the per-deal
difference best - start with its interval, and the best parameters are also given rounded to the
precision that difference supports (``supported_precision``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import differential_evolution

from boardsim import rng
from boardsim.analysis.balance import Arm, paired_effect
from boardsim.analysis.patch import deal_figures, meta_figure
from boardsim.cell import make_cell
from boardsim.errors import BadInput
from boardsim.games.base import WIN_UNITS, Game, Seat
from boardsim.runner import run_cell
from boardsim.stats import feel as F
from boardsim.stats import metagame as MG


@dataclass
class TuneResult:
    policy: str
    seat: int
    names: list[str]
    best: dict[str, float]
    start: dict[str, Any]
    search_win_rate: float
    check: pd.DataFrame  # start vs best on fresh seeds, with intervals
    history: pd.DataFrame  # generation, best win rate so far, evaluations
    evaluations: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    improvement: dict[str, float] = field(default_factory=dict)  # best - start on fresh deals, paired
    rounded: dict[str, float] = field(default_factory=dict)  # best, to the precision the data support
    steps: dict[str, float] = field(default_factory=dict)  # that precision per parameter


def seat_win_rate(game: Game, players: int, seats: Sequence[Seat], rules, cards: pd.DataFrame, seat: int,
                  games: int, seed: int, threads_ok: bool = True, executor: Any = None) -> tuple[float, int]:
    """Win share of ``seat`` over ``games`` games (every seat arrangement); returns (wins, games played)."""
    cell = make_cell(game, players, seats, rules, cards, seating_design="all")
    agg = cell.new_aggregate()  # the sweep's exact sums: the seat's wins in whole WIN_UNITS
    run_cell(cell, seed, games, agg.add, progress=False, executor=executor, reduce=True)
    return int(agg.wins[seat]) / WIN_UNITS, agg.games


def lineup_feel(game: Game, players: int, seats: Sequence[Seat], rules, cards: pd.DataFrame, target: F.Target,
                deals: int, seed: int, first: int = 0, executor: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``first .. first + deals - 1``, every seat arrangement played with progress on: the sum of
    ``target``'s feel figure over the deal's games that define it, and how many do (analysis.patch.deal_figures,
    docs/guide/feel.md)."""
    cell = make_cell(game, players, seats, rules, cards, seating_design="all")
    return deal_figures(cell, rng.cell_key(seed, 0), first, deals, target.metric, executor)


def ratio_difference(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray],
                     confidence: float = 0.95) -> tuple[float, float, float]:
    """sum(num_a)/sum(den_a) - sum(num_b)/sum(den_b) over the same deals, with a deal-level (delta method)
    t interval: the two figures' linearised per-deal residuals, paired on the deal."""
    (na, da), (nb, db) = a, b
    ra, rb = na.sum() / max(da.sum(), 1e-300), nb.sum() / max(db.sum(), 1e-300)
    d = len(na)
    z = (na - ra * da) / max(da.mean(), 1e-300) - (nb - rb * db) / max(db.mean(), 1e-300)
    se = float(np.sqrt(d / max(d - 1, 1) * (z * z).sum()) / d)
    half = float(stats.t.ppf(0.5 + confidence / 2, max(d - 1, 1))) * se
    diff = float(ra - rb)
    return diff, diff - half, diff + half


def tune(
    game: Game,
    players: int,
    seats: Sequence[Seat],
    rules: Mapping[str, Any] | None,
    cards: pd.DataFrame,
    seat: int,
    bounds: Mapping[str, Sequence[float]],
    games: int = 2000,
    check_games: int = 20_000,
    maxiter: int = 10,
    popsize: int = 8,
    seed: int = 0,
    executor: Any = None,
    objective: str = "win_rate",
) -> TuneResult:
    """Differential evolution over ``bounds`` ({param: [low, high]}) for ``seats[seat]``; every evaluation's
    games and the check's run on ``executor`` (local threads by default), which the result does not depend on.

    ``objective``: ``"win_rate"`` (the seat's, maximised) or a feel target such as ``"comeback_rate>=0.2"``:
    the table's feel figure with the tuned seat (every seat arrangement, docs/guide/feel.md) brought to the
    target, its |shortfall| minimised; the check then gives the figure at the start and the best parameters on
    fresh deals, and their paired difference."""
    target = None
    if objective != "win_rate":
        try:
            target = F.parse_target(str(objective), MG.TARGET_METRICS)
        except ValueError as e:
            raise BadInput("optimize.objective", f"{e}; or win_rate (the default)") from None
    meta = target is not None and target.metric in MG.TARGET_METRICS
    if meta and len({s.label() for s in seats}) < 2:
        raise BadInput("optimize.objective", f"a metagame target ({target.label()}) needs two or more different "
                                             "policies among the seats: their head-to-head table is judged")
    if not 0 <= seat < len(seats):
        raise BadInput("optimize.seat", f"got {seat}; allowed: 0 to {len(seats) - 1}")
    pol = game.policy(seats[seat].policy)
    options = pol.options_for(seats[seat].params)  # a rules or custom seat's own $params count too
    known = {o.name: o for o in options}
    names = list(bounds)
    if not names:
        raise BadInput("optimize.params", "name at least one parameter to tune, e.g. multiple = [0.5, 3.0]")
    lows, highs, integral = [], [], []
    for name in names:
        if name not in known or known[name].kind not in ("int", "float"):
            numeric = [o.name for o in options if o.kind in ("int", "float")]
            raise BadInput(f"optimize.params.{name}",
                           f"not a numeric parameter of {pol.name!r} (known: {', '.join(numeric) or 'none'})")
        b = bounds[name]
        if not (isinstance(b, (list, tuple)) and len(b) == 2 and all(isinstance(v, (int, float)) for v in b)
                and b[0] < b[1]):
            raise BadInput(f"optimize.params.{name}", f"got {b!r}; allowed: [low, high] with low < high")
        for v in b:
            known[name].check(int(v) if known[name].kind == "int" else v)
        lows.append(float(b[0]))
        highs.append(float(b[1]))
        integral.append(known[name].kind == "int")
    start = {n: seats[seat].params.get(n, known[n].default) for n in names}
    evaluations = {"n": 0}

    def with_params(x: np.ndarray) -> list[Seat]:
        params = dict(seats[seat].params)
        for n, v, is_int in zip(names, x, integral, strict=True):
            params[n] = int(round(v)) if is_int else float(v)
        out = list(seats)
        out[seat] = Seat(seats[seat].policy, params)
        return out

    tried: list[tuple[np.ndarray, float]] = []

    arrangements = len(make_cell(game, players, seats, rules, cards, seating_design="all").prepared)
    deals = -(-games // arrangements)
    fixed: dict[tuple[str, str], np.ndarray] = {}  # a metagame's pairs without the tuned seat: played once

    def score(x: np.ndarray) -> float:
        evaluations["n"] += 1
        if meta:  # the metagame figure of the seats' head-to-head table, the tuned seat with x
            sums = field_sums(game, with_params(x), seat, rules, cards, deals // 2 + 1, seed, executor, fixed)
            miss = abs(float(target.shortfall(meta_figure(target, sums, draws=0)[0])))
            tried.append((np.array(x, dtype=float), -miss))
            return miss
        if target is not None:  # the feel figure's |shortfall|, minimised (tried keeps higher = better)
            num, den = lineup_feel(game, players, with_params(x), rules, cards, target, deals, seed,
                                   executor=executor)
            miss = abs(float(target.shortfall(num.sum() / max(den.sum(), 1.0))))
            tried.append((np.array(x, dtype=float), -miss))
            return miss
        wins, n = seat_win_rate(game, players, with_params(x), rules, cards, seat, games, seed, executor=executor)
        tried.append((np.array(x, dtype=float), wins / n))
        return -wins / n

    history = []

    def callback(intermediate_result) -> None:
        best_key = ("best_win_rate", -1.0) if target is None else ("best_shortfall", 1.0)
        history.append({"generation": len(history) + 1, best_key[0]: best_key[1] * float(intermediate_result.fun),
                        "evaluations": evaluations["n"]})

    x0 = np.clip([float(start[n]) for n in names], lows, highs)
    res = differential_evolution(
        score, list(zip(lows, highs, strict=True)), maxiter=maxiter, popsize=popsize, seed=seed, x0=x0,
        integrality=integral, polish=False, callback=callback, tol=0.0, updating="deferred",
    )
    best_seats = with_params(res.x)
    best = dict(best_seats[seat].params)
    if meta:
        return _meta_result(game, seats, best_seats, rules, cards, seat, target, names, start, res, tried, history,
                            evaluations["n"], highs, lows, integral, check_games, seed, executor)
    if target is not None:
        return _feel_result(game, players, seats, best_seats, rules, cards, seat, target, names, start, res,
                            tried, history, evaluations["n"], highs, lows, integral, -(-check_games // arrangements),
                            seed, executor)
    paired = paired_effect(game, players, Arm(best_seats, cards, rules), Arm(list(seats), cards, rules), seat,
                           check_games, seed + 1, executor=executor)
    check_rows = []
    for which, candidate, arm in (("start", list(seats), "b"), ("best", best_seats, "a")):
        check_rows.append({"which": which, "params": candidate[seat].label(), "games": paired["games"],
                           "deals": paired["deals"], "win_rate": paired[f"win_{arm}"],
                           "win_lo": paired[f"win_{arm}_lo"], "win_hi": paired[f"win_{arm}_hi"],
                           "fair_share": 1.0 / players})
    check_rows.append({"which": "best - start", "params": "paired on the same deals", "games": paired["games"],
                       "deals": paired["deals"], "win_rate": paired["effect"], "win_lo": paired["effect_lo"],
                       "win_hi": paired["effect_hi"], "fair_share": 0.0})
    half = (paired["effect_hi"] - paired["effect_lo"]) / 2.0
    steps = supported_precision(tried, np.asarray(res.x, dtype=float), -float(res.fun), half,
                                np.array(highs) - np.array(lows), integral)
    rounded = {n: _round_to(float(best[n]), step, is_int)
               for n, step, is_int in zip(names, steps, integral, strict=True)}
    return TuneResult(pol.name, seat, names, {n: best[n] for n in names}, start, -float(res.fun),
                      pd.DataFrame(check_rows), pd.DataFrame(history), evaluations["n"],
                      improvement={k: paired[k] for k in ("effect", "effect_lo", "effect_hi", "p_value")},
                      rounded=rounded, steps=dict(zip(names, steps, strict=True)))


def supported_precision(tried: Sequence[tuple[np.ndarray, float]], best_x: np.ndarray, best_rate: float,
                        half_width: float, spans: np.ndarray, integral: Sequence[bool]) -> list[float]:
    """Per parameter, the rounding step the measurements support.

    Candidates whose search win rate is within ``half_width`` (the half-width of the paired best - start
    interval) of the best are indistinguishable from it; a parameter is known no better than the range it
    takes over them, so the step is the power of ten just below that range.  When no other candidate is
    that close, the step is 1% of the search range.  Integer parameters never get a step below 1.
    """
    close = [x for x, rate in tried if rate >= best_rate - half_width]
    close.append(best_x)
    spread = np.ptp(np.vstack(close), axis=0)
    steps = []
    for width, span, is_int in zip(spread, spans, integral, strict=True):
        basis = width if width > 0 else span / 100.0
        step = 10.0 ** np.floor(np.log10(basis)) if basis > 0 else 1.0
        steps.append(float(max(step, 1.0)) if is_int else float(step))
    return steps


def _round_to(value: float, step: float, is_int: bool) -> float:
    rounded = round(value / step) * step
    decimals = max(0, -int(np.floor(np.log10(step)))) if step < 1 else 0
    return int(round(rounded)) if is_int or step >= 1 else round(rounded, decimals)


def optimize(
    game: str | Game,
    policies: Sequence[Any],
    seat: int,
    bounds: Mapping[str, Sequence[float]],
    players: int | None = None,
    rules: Mapping[str, Any] | None = None,
    cards: Mapping[str, Mapping[str, Any]] | None = None,
    **options: Any,
) -> TuneResult:
    """``tune`` from the Python API: seats as ``simulate`` takes them (names, ``(name, params)``,
    ``boardsim.rules_policy(...)`` or ``boardsim.custom_policy(...)``), card edits as a mapping.

    ``options`` are ``tune``'s ``games``, ``check_games``, ``maxiter``, ``popsize``, ``seed`` and ``executor``.
    """
    from boardsim.games import get as get_game
    from boardsim.seat import as_seat, fill_seats

    g = get_game(game) if isinstance(game, str) else game
    n = g.default_players if players is None else players
    g.check_players(n)
    seats = fill_seats([as_seat(p) for p in policies], n)
    return tune(g, n, seats, rules, g.card_table(cards), seat, bounds, **options)


def _feel_result(game: Game, players: int, seats: Sequence[Seat], best_seats: list[Seat], rules, cards, seat: int,
                 target: F.Target, names: list[str], start: dict[str, Any], res: Any, tried: list, history: list,
                 evaluations: int, highs: list, lows: list, integral: list, deals: int, seed: int,
                 executor: Any) -> TuneResult:
    """A feel target's check on ``deals`` fresh deals (seed + 1): the figure at the start and at the best
    parameters, each with its deal-level interval, and best - start paired on the deals."""
    arms = {which: lineup_feel(game, players, s, rules, cards, target, deals, seed + 1, executor=executor)
            for which, s in (("start", list(seats)), ("best", best_seats))}
    rows = []
    for which, s in (("start", list(seats)), ("best", best_seats)):
        fig, lo, hi = F.ratio_interval(*arms[which])
        rows.append({"which": which, "params": s[seat].label(), "games": int(arms[which][1].sum()), "deals": deals,
                     "figure": fig, "figure_lo": lo, "figure_hi": hi, "target": target.label(),
                     "shortfall": float(target.shortfall(fig))})
    diff, lo, hi = ratio_difference(arms["best"], arms["start"])
    rows.append({"which": "best - start", "params": "paired on the same deals", "games": rows[1]["games"],
                 "deals": deals, "figure": diff, "figure_lo": lo, "figure_hi": hi, "target": target.label(),
                 "shortfall": np.nan})
    return _target_result(game, seats, best_seats, seat, target, names, start, res, tried, history, evaluations,
                          highs, lows, integral, rows, {"effect": diff, "effect_lo": lo, "effect_hi": hi},
                          (hi - lo) / 2.0)


def field_sums(game: Game, seats: Sequence[Seat], seat: int, rules, cards: pd.DataFrame, deals: int, seed: int,
               executor: Any = None, fixed: dict | None = None, first: int = 0) -> np.ndarray:
    """The head-to-head pair sums (analysis.patch.pair_sums) of the seats' distinct policies at 2 players, on
    deals ``first ..``; pairs without ``seats[seat]`` are kept in ``fixed`` (they do not change with it)."""
    from boardsim.analysis.patch import pair_sums

    # in the order of their labels: the figure's bootstrap must not depend on the order the seats are listed in
    distinct = sorted({s.label(): s for s in seats}.values(), key=lambda s: s.label())
    tuned = seats[seat].label()
    key = rng.cell_key(seed, 0)
    out = []
    for i in range(len(distinct)):
        for j in range(i + 1, len(distinct)):
            a, b = distinct[i], distinct[j]
            memo = (a.label(), b.label(), first, deals)
            if fixed is not None and tuned not in memo[:2] and memo in fixed:
                out.append(fixed[memo])
                continue
            sums, _ = pair_sums(game, a, b, rules, cards, key, first, deals, executor=executor)
            if fixed is not None and tuned not in memo[:2]:
                fixed[memo] = sums
            out.append(sums)
    return np.concatenate(out)


def _meta_result(game: Game, seats: Sequence[Seat], best_seats: list[Seat], rules, cards, seat: int,
                 target: F.Target, names: list[str], start: dict[str, Any], res: Any, tried: list, history: list,
                 evaluations: int, highs: list, lows: list, integral: list, check_games: int, seed: int,
                 executor: Any) -> TuneResult:
    """A metagame target's check: the figure of the head-to-head table at the start and at the best parameters on
    fresh deals (seed + 1), each with its parametric bootstrap interval (analysis.patch.meta_figure)."""
    pairs = len({s.label() for s in seats}) * (len({s.label() for s in seats}) - 1) // 2
    deals = max(2, check_games // (2 * max(pairs, 1)))
    rows = []
    for which, s in (("start", list(seats)), ("best", best_seats)):
        fig, lo, hi, _ = meta_figure(target, field_sums(game, s, seat, rules, cards, deals, seed + 1, executor))
        rows.append({"which": which, "params": s[seat].label(), "games": deals * 2 * pairs, "deals": deals,
                     "figure": fig, "figure_lo": lo, "figure_hi": hi, "target": target.label(),
                     "shortfall": float(target.shortfall(fig))})
    # each side has its own bootstrap interval; a paired difference of two such figures is not estimated
    return _target_result(game, seats, best_seats, seat, target, names, start, res, tried, history, evaluations,
                          highs, lows, integral, rows, {"effect": rows[1]["figure"] - rows[0]["figure"],
                                                        "effect_lo": math.nan, "effect_hi": math.nan}, 0.0)


def _target_result(game: Game, seats: Sequence[Seat], best_seats: list[Seat], seat: int, target: F.Target,
                   names: list[str], start: dict[str, Any], res: Any, tried: list, history: list, evaluations: int,
                   highs: list, lows: list, integral: list, rows: list[dict], improvement: dict[str, float],
                   half: float) -> TuneResult:
    """A target's TuneResult: the check rows, and the best parameters rounded to the precision ``half`` (the
    check's half-width; 0: the search range's hundredth) supports."""
    steps = supported_precision(tried, np.asarray(res.x, dtype=float), -float(res.fun), half,
                                np.array(highs) - np.array(lows), integral)
    best = dict(best_seats[seat].params)
    rounded = {n: _round_to(float(best[n]), step, is_int)
               for n, step, is_int in zip(names, steps, integral, strict=True)}
    return TuneResult(game.policy(seats[seat].policy).name, seat, names, {n: best[n] for n in names}, start,
                      -float(res.fun), pd.DataFrame(rows), pd.DataFrame(history), evaluations,
                      extra={"objective": target.label(), "search_shortfall": float(res.fun)},
                      improvement=improvement, rounded=rounded, steps=dict(zip(names, steps, strict=True)))
