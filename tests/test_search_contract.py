"""The mcts contract, for every registered game: one search loop (boardsim.tree.search) reaches each game
through its hooks, and every game's search keeps the same promises."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest

from boardsim.games import get, names
from boardsim.games.base import Seat

KEY = 0x5EA4C4


# the mcts parameters a game passes on to its playout policy's row (the rest are the search's own)
PASSED_ON = {"wagons": ("placement",)}


def _playout(game):
    """The mcts seat's default playout policy as a seat of its own, with the mcts defaults it is given."""
    mcts = {o.name: o.default for o in game.policy("mcts").params}
    return Seat(mcts["playout"], {k: mcts[k] for k in PASSED_ON.get(game.name, ())})


def _prep(game, first, second):
    return game.prepare(2, [first, second], None, game.card_table())


def _visits(text):
    """Every mcts decision's root visits a trace prints: (V visits) or (mcts: V of N visits)."""
    return [int(v) for v in re.findall(r"(\d+)(?: of \d+)? visits\)", text)]


@pytest.mark.parametrize("name", names())
def test_one_iteration_plays_whole_games(name):
    """A 1-iteration search returns an action the game takes: every game ends with its win shares summing to
    1, and each searched decision's chosen action has the one visit."""
    game = get(name)
    prep = _prep(game, Seat("mcts", {"iterations": 1}), Seat(game.default_policy))
    out = game.play(prep, KEY, 0, 6)
    np.testing.assert_allclose(out["win"].sum(axis=1), 1.0)
    visits = _visits(game.trace(prep, KEY, 0))
    assert visits and set(visits) <= {0, 1}, visits


@pytest.mark.parametrize("name", names())
def test_zero_iterations_plays_the_playout_policys_game(name):
    """With 0 iterations the search returns its playout policy's choice: mcts against the playout policy plays
    the playout policy's own games, result for result."""
    game = get(name)
    playout = _playout(game)
    prep = _prep(game, Seat("mcts"), playout)
    prep["mcts"][:, importlib.import_module(f"boardsim.games.{name}.mcts").M_ITER] = 0
    ref = game.play(_prep(game, playout, playout), KEY, 0, 6)
    got = game.play(prep, KEY, 0, 6)
    for k in ("score", "win"):
        np.testing.assert_array_equal(ref[k], got[k], err_msg=k)


@pytest.mark.parametrize("name", names())
def test_search_is_deterministic_and_its_visits_consistent(name):
    """The same cell and seed give the same games and the same traced choices; each decision's visits are at
    most its iterations, and a search spreads them (some choice has more than one)."""
    game = get(name)
    prep = _prep(game, Seat("mcts", {"iterations": 30}), Seat(game.default_policy))
    a, b = game.play(prep, KEY, 0, 4), game.play(prep, KEY, 0, 4)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    text = game.trace(prep, KEY, 1)
    assert text == game.trace(prep, KEY, 1)
    visits = _visits(text)
    assert visits and max(visits) <= 30 and max(visits) > 1, visits
