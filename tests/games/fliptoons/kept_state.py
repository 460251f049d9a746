"""Drivers shared by the tests of what the engine keeps up to date instead of recounting (the owned cards'
value sum, test_value_sum.py; the grid counts, test_grid_counts.py): whole games of every policy mix, and
random single steps on a table set up by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons.engine import _dismiss_legal, _hire_legal
from boardsim.games.fliptoons.explain import Table
from boardsim.games.fliptoons.kernel import play_game
from boardsim.games.fliptoons.state import GK, GN, LOG_W, N_STATS, Outputs

CELLS = {
    "fpc2": ["fame_per_cost"] * 2,
    "mixed3": ["random", "fame_per_cost", "highest_rank"],  # random seats send the Pig anywhere
    "mixed4": ["priority", "random", "fame_per_cost", "synergy"],
    "solo": ["synergy"],
}


def final_states(cell: str, key: int, games: int) -> Iterator[tuple[tuple, dict]]:
    """(final state, prepared table) of games 0..games-1 of ``CELLS[cell]`` (engine.play_game)."""
    policies = CELLS[cell]
    P = len(policies)
    prep = GAME.prepare(P, [Seat(name) for name in policies], None, GAME.card_table())
    K = prep["cards"].shape[0]
    for index in range(games):
        O = Outputs(np.zeros((N_STATS, P, K), np.int32), np.zeros((P, 60), np.int16), np.zeros((1, LOG_W), np.int32))
        yield play_game(prep, key, index, O), prep


def random_steps(t: Table, rng: np.random.Generator, steps: int, check: Callable[[Table], None],
                 after_flip: Callable[[Table], None] | None = None) -> int:
    """``steps`` random single steps on a 2-player table: a flip (then ``after_flip``), a hire and refill, a
    paid dismissal, the end-of-turn hooks or the least-fame hook, each for a random seat; ``check`` after
    every step.  Returns the steps checked."""
    names = t.names
    for _ in range(steps):
        p = int(rng.integers(0, 2))
        step = rng.integers(0, 5)
        if step == 0:
            t.place_all(p)
            if after_flip is not None:
                after_flip(t)
        elif step == 1:
            slots = [s for s in range(5) if _hire_legal(p, s, t.S, t.C)]
            if slots:
                t.hire(p, int(rng.choice(slots)))
            t.refill()
        elif step == 2:
            pc, pv = t.S[0], t.S[1]
            legal = [g for g in range(pv[p, GN]) if _dismiss_legal(p, g, t.S, t.C)]
            if legal:  # a legal dismissal is face-up, and every copy of its kind is as legal
                t.dismiss(p, names[pc[p, GK, int(rng.choice(legal))]])
        elif step == 3:
            t.end_of_turn_hooks(p)
        else:
            t.least_fame_hook()
        check(t)
    return steps
