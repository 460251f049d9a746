"""Tune one seat's numeric policy parameters against a field with differential evolution.

Every candidate is scored on the same deals (common random numbers: one
fixed cell seed, seats rotated), so the optimiser compares parameters, not
luck.  The winner is then re-measured on fresh seeds, which gives an honest
win rate with a Wilson interval, next to the starting parameters' rate on
the same fresh seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from boardsim.analysis.stats import wilson
from boardsim.errors import BadInput
from boardsim.games.base import Game, Seat
from boardsim.runner import WIN_UNITS, make_cell, run_cell


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


def seat_win_rate(game: Game, players: int, seats: Sequence[Seat], rules, cards: pd.DataFrame, seat: int,
                  games: int, seed: int, threads_ok: bool = True) -> tuple[float, int]:
    """Win share of ``seat`` over ``games`` games (seats rotated); returns (wins, games played)."""
    cell = make_cell(game, players, seats, rules, cards, rotate=True)
    total = {"wins": 0, "games": 0}

    def sink(out: Mapping[str, np.ndarray]) -> None:
        total["wins"] += int(np.rint(out["win"][:, seat] * WIN_UNITS).sum())
        total["games"] += out["win"].shape[0]

    run_cell(cell, seed, games, sink, progress=False)
    return total["wins"] / WIN_UNITS, total["games"]


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
) -> TuneResult:
    """Differential evolution over ``bounds`` ({param: [low, high]}) for ``seats[seat]``."""
    if not 0 <= seat < len(seats):
        raise BadInput("optimize.seat", f"got {seat}; allowed: 0 to {len(seats) - 1}")
    pol = game.policy(seats[seat].policy)
    known = {o.name: o for o in pol.params}
    names = list(bounds)
    if not names:
        raise BadInput("optimize.params", "name at least one parameter to tune, e.g. multiple = [0.5, 3.0]")
    lows, highs, integral = [], [], []
    for name in names:
        if name not in known or known[name].kind not in ("int", "float"):
            numeric = [o.name for o in pol.params if o.kind in ("int", "float")]
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

    def objective(x: np.ndarray) -> float:
        evaluations["n"] += 1
        wins, n = seat_win_rate(game, players, with_params(x), rules, cards, seat, games, seed)
        return -wins / n

    history = []

    def callback(intermediate_result) -> None:
        history.append({"generation": len(history) + 1, "best_win_rate": -float(intermediate_result.fun),
                        "evaluations": evaluations["n"]})

    x0 = np.clip([float(start[n]) for n in names], lows, highs)
    res = optimize.differential_evolution(
        objective, list(zip(lows, highs, strict=True)), maxiter=maxiter, popsize=popsize, seed=seed, x0=x0,
        integrality=integral, polish=False, callback=callback, tol=0.0, updating="deferred",
    )
    best_seats = with_params(res.x)
    best = dict(best_seats[seat].params)
    check_rows = []
    for label, candidate in (("start", list(seats)), ("best", best_seats)):
        wins, n = seat_win_rate(game, players, candidate, rules, cards, seat, check_games, seed + 1)
        lo, hi = wilson(wins, n)
        check_rows.append({"which": label, "params": candidate[seat].label(), "games": n, "wins": wins,
                           "win_rate": wins / n, "win_lo": float(lo), "win_hi": float(hi),
                           "fair_share": 1.0 / players})
    return TuneResult(pol.name, seat, names, {n: best[n] for n in names}, start, -float(res.fun),
                      pd.DataFrame(check_rows), pd.DataFrame(history), evaluations["n"])
