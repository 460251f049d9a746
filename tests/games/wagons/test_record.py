"""The Circle the Wagons decision recorder (issue 40): play's games exactly, and at each recorded draft the
decision view a custom scorer gets with the acting policy's choice (an mcts seat's root visit shares).

Compiles record.record_range once (cached); the mcts cell searches 20 iterations a decision, 5 games.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, decide
from boardsim.games.wagons import record as R
from tests.games.wagons import scorers

KEY = 0x5EED
ARRAYS = ("features", "candidates", "rows", "target", "value", "chosen", "game", "seat", "kind")


def _prep(*seats: Seat, rules=None):
    return GAME.prepare(2, list(seats), rules, GAME.card_table())


def _same_games(prep, out, start, count):
    ref = GAME.play(prep, KEY, start, count)
    np.testing.assert_array_equal(out["score"], ref["score"])
    np.testing.assert_array_equal(out["win"], ref["win"])


def _well_formed(out, count, start):
    n = len(out["rows"])
    assert n > 0
    width = out["target"].shape[1]
    feats, cols, kinds = R.view_names(None)
    assert out["features"].shape == (n, len(feats)) and out["candidates"].shape == (n, width, len(cols))
    assert kinds == ("draft",) and (out["kind"] == 0).all()
    assert ((out["rows"] >= 2) & (out["rows"] <= width)).all()
    assert ((out["game"] >= start) & (out["game"] < start + count)).all()
    assert (np.diff(out["game"]) >= 0).all()
    for i in range(n):
        r = out["rows"][i]
        assert r <= out["features"][i, decide.F_CARDS_LEFT]
        assert (out["candidates"][i, r:] == 0).all() and (out["target"][i, r:] == 0).all()
        np.testing.assert_array_equal(out["candidates"][i, :r, decide.C_POSITION], np.arange(r))
        assert out["candidates"][i, 0, decide.C_GIFT] == 0.0
        assert 0 <= out["chosen"][i] < r
    return n


@pytest.mark.parametrize("seats,rules", [
    ((Seat("gain_minus_gift"), Seat("gain")), None),
    ((Seat("gain", {"placement": "fast", "lookahead": 3}), Seat("random", {"lookahead": 4})),
     {"first_player": "random"}),
])
def test_heuristic_seats_play_plays_games(seats, rules):
    """Built-in seats: play's games, every draft recorded one-hot on the pick; a gain_minus_gift seat's pick is
    the argmax of gain - gift in its recorded view (the view is its own valuation: greedy, goal weight 1)."""
    prep = _prep(*seats, rules=rules)
    out = R.record(prep, KEY, 7, 12)
    _same_games(prep, out, 7, 12)
    n = _well_formed(out, 12, 7)
    np.testing.assert_array_equal(out["target"][np.arange(n), out["chosen"]], np.ones(n))
    assert (out["target"].sum(axis=1) == 1.0).all()
    assert set(out["seat"]) == {0, 1}
    for i in np.flatnonzero(out["seat"] == 0):
        r = out["rows"][i]
        c = out["candidates"][i, :r]
        if seats[0].policy == "gain_minus_gift":
            assert out["chosen"][i] == np.argmax(c[:, decide.C_GAIN] - c[:, decide.C_GIFT])
        else:  # gain with fast placement; its view values cards greedily: the rows are the first 3 cards
            assert r == min(3, out["features"][i, decide.F_CARDS_LEFT])


def test_a_fast_view_leaves_the_games_unchanged():
    """A view computed with fast placement (fast.py's town analysis cache touched) keeps play's games."""
    prep = _prep(Seat("gain_minus_gift", {"placement": "fast"}), Seat("gain", {"placement": "quick"}))
    out = R.record(prep, KEY, 0, 10, view={"placement": "fast", "goal_weight": 0.5})
    _same_games(prep, out, 0, 10)
    _well_formed(out, 10, 0)
    with pytest.raises(BadInput, match="view.lookahead"):
        R.record(prep, KEY, 0, 1, view={"lookahead": 3})


def test_custom_seat_records_what_its_scorer_chose():
    """A custom seat: its recorded target is one-hot on the argmax (first on ties) of its own scorer run on
    the recorded features and candidates with its params; games equal play's."""
    seats = (Seat("custom", {"function": scorers.weighted, "w": 0.5, "lookahead": 3}), Seat("gain_minus_gift"))
    prep = _prep(*seats)
    out = R.record(prep, KEY, 2, 10)
    _same_games(prep, out, 2, 10)
    _well_formed(out, 10, 2)
    params = np.ascontiguousarray(prep["rule_params"][0])
    mine = np.flatnonzero(out["seat"] == 0)
    assert len(mine) >= 30
    for i in mine:
        r = out["rows"][i]
        scores = np.zeros(r)
        scorers.weighted(np.ascontiguousarray(out["features"][i]), np.ascontiguousarray(out["candidates"][i, :r]),
                         params, scores)
        pick = int(np.argmax(scores))
        assert out["chosen"][i] == pick
        expect = np.zeros(out["target"].shape[1])
        expect[pick] = 1.0
        np.testing.assert_array_equal(out["target"][i], expect)


@pytest.fixture(scope="module")
def searched():
    prep = _prep(Seat("mcts", {"iterations": 20, "lookahead": 4}), Seat("gain_minus_gift"))
    # game 5 is one whose search reads the draft scratch the view call would leave (record's restore)
    return prep, R.record(prep, KEY, 1, 5)


def test_mcts_seat_plays_plays_games(searched):
    prep, out = searched
    _same_games(prep, out, 1, 5)
    _well_formed(out, 5, 1)
    assert out["target"].shape[1] == 4  # the mcts seat's lookahead: its draft actions are the rows


def test_mcts_targets_are_root_visit_shares(searched):
    """mcts rows: a distribution over the rows (nonnegative, sum 1, zero beyond rows) whose most visited row is
    the one taken; the gain_minus_gift seat's rows stay one-hot."""
    _prep_, out = searched
    mine = np.flatnonzero(out["seat"] == 0)
    assert len(mine) >= 15
    t = out["target"][mine]
    assert (t >= 0).all()
    np.testing.assert_allclose(t.sum(axis=1), 1.0)
    for i, row in zip(mine, t, strict=True):
        assert row[out["chosen"][i]] == row.max()
        # shares of 20 iterations: each a multiple of 1/20 (the search visits every draft action it expands)
        np.testing.assert_allclose(row * 20, np.round(row * 20), atol=1e-9)
    assert (t.max(axis=1) < 1.0).any()  # some decisions are spread over several rows
    other = np.flatnonzero(out["seat"] == 1)
    np.testing.assert_array_equal(out["target"][other].max(axis=1), np.ones(len(other)))
    # each visited row's value: the search's mean backed-up win share there (0 where unvisited or unsearched)
    v = out["value"]
    assert ((v >= 0) & (v <= 1)).all() and (v[out["target"] == 0] == 0).all() and (v[other] == 0).all()
    assert (v[mine] > 0).any()


def test_same_inputs_same_arrays(searched):
    prep, out = searched
    again = R.record(prep, KEY, 1, 5)
    assert set(again) == set(out) == {*ARRAYS, "score", "win"}
    for k in out:
        assert again[k].dtype == out[k].dtype
        np.testing.assert_array_equal(again[k], out[k], err_msg=k)
