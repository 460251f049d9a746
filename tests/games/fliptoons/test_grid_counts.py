"""The grid counts Check Fame reads (engine._count_up and friends) against a recount.

Each seat keeps the face-up copies of every kind in its grid (the FC row) and its face-up, face-down and
duplicate counts (NFU, NFD, DUPS) up to date as cards are placed, turned face-down and removed (issue 28,
item 3), instead of _score_player rescanning the grids.  These tests recount them in plain Python after whole
games of every policy and after random single steps (flips with Eagles, Elephants, Monkeys, Snakes, stacks;
hires; dismissals; hooks; the least-fame hook), and check the fame they give against a scan of the grid.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from boardsim.games.fliptoons.explain import Table
from boardsim.games.fliptoons.grid import _fame
from boardsim.games.fliptoons.state import DUPS, FC, GF, GK, GN, NFD, NFU, NP, POL_RANDOM, State, _recount_grid
from tests.games.fliptoons.kept_state import CELLS, final_states, random_steps


def assert_counts(S, K: int) -> None:
    pc, pv = S[0], S[1]
    for p in range(int(S[3][NP])):
        n = int(pv[p, GN])
        up = Counter(int(pc[p, GK, i]) for i in range(n) if pc[p, GF, i] == 0)
        assert [int(pc[p, FC, k]) for k in range(K)] == [up.get(k, 0) for k in range(K)]
        assert int(pv[p, NFU]) == sum(up.values())
        assert int(pv[p, NFD]) == n - sum(up.values())
        assert int(pv[p, DUPS]) == sum(c - 1 for c in up.values())


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_grid_counts_equal_recount_after_whole_games(cell):
    """The final state's grids are the Final Flip's (and a tie re-flip's): every count as recounted."""
    for S, prep in final_states(cell, 29, 40):
        assert_counts(S, prep["cards"].shape[0])


def fame_as_recounted(t: Table) -> None:
    """Check Fame from the kept counts equals its value from counts recounted on a copy of the state."""
    fame = t.check_fame()
    S2 = tuple(a.copy() for a in t.S)
    for q in range(2):
        _recount_grid(q, S2[0], S2[1])
    assert fame == [int(_fame(q, State(*S2), t.C, None)) for q in range(2)]


def test_grid_counts_equal_recount_after_random_steps():
    """Random decks heavy in placement abilities, then random flips, hires, paid dismissals, hooks and the
    least-fame hook, the counts checked after every step; Check Fame equals its value from a recount."""
    rng = np.random.default_rng(23)
    t0 = Table(2)
    names = t0.names
    K = len(names)
    movers = {"Monkey"}
    placers = ["Eagle", "Elephant", "Ostrich", "Turkey", "Rabbit", "Snake", "Dragonfly", "Dog", "Camel", "Deer",
               "Bull", "Bear", "Cow", "Lion", "Rooster"]
    checked = 0
    for seed in range(60):
        t = Table(2, seed=seed)
        t.set_policy(1, POL_RANDOM)
        t.set_toon(list(rng.choice(names, 30)))
        t.set_market(list(rng.choice(names, 5)))
        for p in range(2):
            deck = [str(x) for x in rng.choice(placers + [n for n in names if n not in movers], 12)]
            deck += ["Monkey"] * int(rng.integers(0, 3))
            t.set_deck(p, list(rng.permutation(deck)))
            t.set_fame(p, int(rng.integers(0, 40)), actions=4)
        assert_counts(t.S, K)
        checked += random_steps(t, rng, 10, lambda t: assert_counts(t.S, K), fame_as_recounted)
    assert checked == 60 * 10
