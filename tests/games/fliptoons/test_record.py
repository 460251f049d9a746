"""The decision recorder (issue 40): record plays ``play``'s games exactly, and each recorded row is the view a
custom scorer receives, with the acting seat's choice (one-hot) or an mcts seat's root visit shares."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons import record as R
from boardsim.games.fliptoons.decide import CANDIDATE_COLUMNS, DECISION_FEATURES, ND
from tests.games.fliptoons.scorers import fame_per_cost

KEY = 0x40
MCTS = Seat("mcts", {"iterations": 30})
FPC = Seat("fame_per_cost")


@numba.njit
def fame_with_counts(features, candidates, params, scores):
    """Reads the features too (count_<Card>, round): hires by gain per cost less params[0] per copy owned, a
    junk dismissal when cheap, and passes late in the game more readily."""
    for i in range(candidates.shape[0]):
        kind = candidates[i, 0]
        if kind == 0.0:
            scores[i] = candidates[i, 5] - params[0] * features[12 + int(candidates[i, 1])]
        elif kind == 1.0:
            scores[i] = 0.1 - candidates[i, 6] if candidates[i, 2] <= 3 else -5.0
        else:
            scores[i] = 0.02 * features[0] - 0.3


def _cell(seats, table=None):
    return GAME.prepare(len(seats), seats, None, GAME.card_table() if table is None else table)


def _check_shapes(rec, prep, count):
    F, C, kinds = R.view_names(prep)
    n = rec["rows"].shape[0]
    assert kinds == ("market",) and C == CANDIDATE_COLUMNS and F[:ND] == DECISION_FEATURES
    assert F[ND:] == tuple(f"count_{c}" for c in prep.card_names)
    assert rec["features"].shape == (n, len(F)) and rec["features"].dtype == np.float64
    width = prep["prices"].shape[0] + int(prep["sizes"][0]) + 1
    assert rec["candidates"].shape == (n, width, len(C)) and rec["target"].shape == (n, width)
    assert rec["score"].shape == rec["win"].shape == (count, prep.n_players)
    assert (rec["rows"] >= 2).all() and (rec["kind"] == 0).all()
    assert np.array_equal(np.unique(rec["game"]), np.arange(count) + rec["game"].min())
    beyond = np.arange(width)[None, :] >= rec["rows"][:, None]
    assert not rec["candidates"][beyond].any() and not rec["target"][beyond].any()
    # the pass row is the last row, and every row's kind is hire, dismiss or pass in that order
    last = rec["candidates"][np.arange(n), rec["rows"] - 1]
    assert (last[:, 0] == 2.0).all()
    assert (0 <= rec["chosen"]).all() and (rec["chosen"] < rec["rows"]).all()
    assert np.allclose(rec["target"].sum(axis=1), 1.0) and (rec["target"] >= 0).all()


@pytest.mark.parametrize("seats", [
    (FPC, Seat("random")),
    (Seat("highest_rank"), FPC, Seat("priority", {"order": ["Tiger", "Cow"]})),
    (FPC, Seat("synergy", {"flips": 2}), Seat("random"), Seat("rules", {"rules": [{"hire": "cheapest"}]})),
    (Seat("lookahead", {"playouts": 2, "horizon": 1}), FPC),
    (FPC,),
], ids=["2p", "3p", "4p", "lookahead", "solo"])
def test_games_equal_play_heuristics(seats):
    prep = _cell(list(seats))
    rec = R.record(prep, KEY, 3, 6)
    ref = GAME.play(prep, KEY, 3, 6)
    assert np.array_equal(rec["score"], ref["score"]) and np.array_equal(rec["win"], ref["win"])
    _check_shapes(rec, prep, 6)
    assert set(rec["seat"].tolist()) == set(range(len(seats)))
    assert (rec["target"].max(axis=1) == 1.0).all()  # one-hot: no seat searches
    assert (rec["target"][np.arange(len(rec["rows"])), rec["chosen"]] == 1.0).all()


def test_games_equal_play_with_mcts_and_a_scorer_seat():
    prep = _cell([MCTS, Seat("custom", {"function": fame_per_cost})])
    rec = R.record(prep, KEY, 0, 3)
    ref = GAME.play(prep, KEY, 0, 3)
    assert np.array_equal(rec["score"], ref["score"]) and np.array_equal(rec["win"], ref["win"])
    _check_shapes(rec, prep, 3)


@pytest.mark.parametrize("scorer, params", [(fame_per_cost, {}), (fame_with_counts, {"copy": 0.4})])
def test_scorer_seat_target_is_its_argmax(scorer, params):
    prep = _cell([Seat("custom", {"function": scorer, **params}), Seat("highest_rank")])
    rec = R.record(prep, KEY, 0, 8)
    ref = GAME.play(prep, KEY, 0, 8)
    assert np.array_equal(rec["score"], ref["score"]) and np.array_equal(rec["win"], ref["win"])
    _check_shapes(rec, prep, 8)
    vec = np.ascontiguousarray(prep["rule_params"][0])
    mine = np.flatnonzero(rec["seat"] == 0)
    assert len(mine) > 50
    picked = set()
    for i in mine:
        n = rec["rows"][i]
        scores = np.zeros(n)
        scorer(np.ascontiguousarray(rec["features"][i]), np.ascontiguousarray(rec["candidates"][i, :n]), vec, scores)
        best = int(np.argmax(scores))  # the first on ties, as the engine takes
        assert rec["chosen"][i] == best
        assert rec["target"][i, best] == 1.0 and rec["target"][i].sum() == 1.0
        picked.add(int(rec["candidates"][i, best, 0]))
    assert picked == {0.0, 1.0, 2.0}  # hires, dismissals and passes all recorded


def _mcts_rows(rec):
    return np.flatnonzero(rec["seat"] == 0)


def test_mcts_targets_are_visit_shares():
    prep = _cell([MCTS, FPC])
    rec = R.record(prep, KEY, 0, 3)
    _check_shapes(rec, prep, 3)
    rows = _mcts_rows(rec)
    t = rec["target"][rows]
    assert len(rows) > 10
    # visit shares of 30 iterations: multiples of 1/30 on the mapped rows, spread over several of them
    assert np.allclose(t * 30, np.round(t * 30))
    assert (np.count_nonzero(t, axis=1) > 1).mean() > 0.5
    assert (t[np.arange(len(rows)), rec["chosen"][rows]] > 0).all()
    other = np.flatnonzero(rec["seat"] == 1)
    assert (rec["target"][other].max(axis=1) == 1.0).all()
    # each visited row's value: the search's mean backed-up win share there (0 where unvisited, and for the
    # seat that does not search)
    v = rec["value"]
    assert ((v >= 0) & (v <= 1)).all() and (v[rec["target"] == 0] == 0).all() and (v[other] == 0).all()
    assert (v[rows] > 0).any()


def test_mcts_chosen_is_the_most_visited_row():
    # without the Pig and the Butterfly no search action has a sub-choice: one row per search action, so the
    # search's most visited action is a row of the largest share
    table = GAME.card_table({"Pig": {"copies": 0}, "Butterfly": {"copies": 0}})
    prep = _cell([MCTS, FPC], table)
    rec = R.record(prep, KEY, 0, 3)
    assert np.array_equal(rec["score"], GAME.play(prep, KEY, 0, 3)["score"])
    rows = _mcts_rows(rec)
    t = rec["target"][rows]
    assert np.array_equal(t[np.arange(len(rows)), rec["chosen"][rows]], t.max(axis=1))


def test_same_inputs_same_arrays(monkeypatch):
    prep = _cell([MCTS, Seat("random")])
    a = R.record(prep, KEY, 0, 4)
    b = R.record(prep, KEY, 0, 4)
    monkeypatch.setattr(R, "ROWS_PER_GAME", 0)  # 16 rows at first: the buffers grow and games are played again
    c = R.record(prep, KEY, 0, 4)
    tail = R.record(prep, KEY, 2, 2)  # a later chunk records the same games
    assert sorted(a) == sorted(b) == sorted(c)
    first = a["game"] >= 2
    for k in a:
        assert np.array_equal(a[k], b[k]) and np.array_equal(a[k], c[k]), k
        if k in ("score", "win"):
            assert np.array_equal(a[k][2:], tail[k]), k
        else:
            assert np.array_equal(a[k][first], tail[k]), k
