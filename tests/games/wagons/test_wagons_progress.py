"""Each seat's town points after every turn: ``play``'s ``progress`` output with ``Prepared.progress`` (issue 43
item 1; docs/rules/circle-the-wagons.md, "Progress per turn (feel)")."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, kernel, mcts, policies, score_town
from boardsim.games.wagons import engine as E

KEY = 0x5EED
R = 15  # the most turns a game has: one circle card taken a turn


UNSET = -(1 << 40)


@pytest.fixture(autouse=True)
def unset_progress(monkeypatch):
    """The engines' progress arrays start UNSET instead of 0, so a turn nobody wrote shows."""
    real = kernel.progress_array

    def unset(count, on):
        return np.full_like(real(count, on), UNSET)

    monkeypatch.setattr(kernel, "progress_array", unset)
    monkeypatch.setattr(mcts, "progress_array", unset)


def prepared(seats, rules=None, progress=False):
    prep = GAME.prepare(2, [s if isinstance(s, Seat) else Seat(s) for s in seats], rules or {}, GAME.card_table())
    return dataclasses.replace(prep, progress=progress)


def both(seats, rules=None, start=0, count=200):
    """(off, on): the same games played without and with progress."""
    return (GAME.play(prepared(seats, rules), KEY, start, count),
            GAME.play(prepared(seats, rules, True), KEY, start, count))


def check(off, on):
    """The recording changes no game, gives both seats a value every turn, ends at the score and holds it."""
    assert "progress" not in off
    assert set(on) == set(off) | {"progress"}
    for k in off:
        np.testing.assert_array_equal(np.asarray(off[k]), np.asarray(on[k]), err_msg=k)
    pr, rounds = on["progress"], on["rounds"]
    n = len(rounds)
    assert pr.shape == (n, 2, R) and pr.dtype == np.int64
    assert ((1 <= rounds) & (rounds <= R)).all()
    np.testing.assert_array_equal(pr[np.arange(n), :, rounds - 1], on["score"])
    for i in range(n):
        assert (pr[i, :, rounds[i]:] == on["score"][i][:, None]).all()  # turns after the last: the final value
    assert (pr != UNSET).all()  # both seats got a value at every turn (the arrays start UNSET here)


@pytest.mark.parametrize("seats,rules", [
    (("gain_minus_gift", "gain_minus_gift"), None),
    (("gain_minus_gift", "random"), {"tie_break": "guns"}),
    (("gain", "first"), {"tie_break": "guns", "first_player": "random", "fixed_goal": 2}),  # One Too Many
    (("random", "gain_minus_gift"), {"fixed_goal": 12}),  # Trail Boss: a majority goal
    (("gain_minus_gift", "gain"), {"fixed_goal": 16, "tie_break": "shared"}),  # Homestead
])
def test_last_turn_is_the_score(seats, rules):
    check(*both(seats, rules, count=300))


def _towns_through(events, names, turn):
    """Both towns as score_town's placement lists, every placement of turns 0 .. ``turn`` (the engine's grid
    coordinates; score_town shifts them)."""
    towns = [[], []]
    for e in events:
        if e[E.EV_TURN] <= turn:
            p, c, x, y, rot = (int(v) for v in e[:5])
            towns[p].append((names[c], x, y, 180 * rot))
    return towns


def test_golden_game_turn_one_by_hand():
    """Game 0 of KEY, default seats (its trace: P1 = seat 0 takes G and places it alone; P2 has no card yet).
    G is [Plains/Bottle, Forest/Cow / Mountain/Cow, Plains/Gun]: largest groups Plains 1 (its two Plains
    touch only at a corner), Forest 1, Mountain 1, the rest 0, so 3 land points; the goals (Badlands, Cool
    Water, Fort Apache) need a Desert, a Water or a Fort: 0.  Seat 1's empty town: 0.  After turn 2 seat 1
    has L alone, [Water/Pickaxe, Mountain/Gun / Plains/Pickaxe, Snow/Pickaxe]: four lands of one each, 4."""
    prep = prepared(("gain_minus_gift", "gain_minus_gift"), progress=True)
    text = GAME.trace(prep, KEY, 0)
    assert "turn 1: seat 0 takes G, places it at (0, 0) rotation 0" in text
    assert "turn 2: seat 1 takes L, places it at (0, 0) rotation 0" in text
    assert "goals: Badlands (#1); Cool Water (#5); Fort Apache (#18)" in text
    pr = GAME.play(prep, KEY, 0, 1)["progress"][0]
    assert pr[:, 0].tolist() == [3, 0]
    assert pr[1, 1] == 4
    assert pr[:, -1].tolist() == GAME.trace_scores(text)


@pytest.mark.parametrize("rules", [None, {"fixed_goal": 12, "first_player": "random"}, {"fixed_goal": 2}])
def test_every_turn_is_the_scoring_of_the_towns_then(rules):
    """Turn by turn, progress is what score_town (the explain API) gives the two towns rebuilt from the
    trace's placements through that turn, majority goals against the other town as it then stands."""
    prep = prepared(("gain_minus_gift", "gain"), rules, progress=True)
    out = GAME.play(prep, KEY, 0, 4)
    names = list(prep["card_names"])
    for i in range(4):
        events = GAME.trace_events(prep, KEY, i)
        goals = [int(out[f"goal{g}"][i]) + 1 for g in range(3)]
        for t in range(int(out["rounds"][i])):
            towns = _towns_through(events, names, t)
            got = [score_town(towns[p], goals=goals, opponent=towns[1 - p]).total for p in range(2)]
            assert out["progress"][i, :, t].tolist() == got, (i, t)


def _signature_counts(fast, user):
    fns = (kernel.batch_kernel(fast, user), kernel.play_range_for(fast, user), kernel.play_batch,
           kernel._play_range, policies.search)
    return [len(f.signatures) for f in fns]


def test_progress_compiles_nothing_new():
    """Off and on pass the engine arrays of one type (on: (n, 2, 15), off: (0, 2, 15)): one signature."""
    seats = ("gain_minus_gift", "gain_minus_gift")
    GAME.play(prepared(seats), KEY, 0, 2)
    before = _signature_counts(None, None)
    GAME.play(prepared(seats, progress=True), KEY, 0, 2)
    GAME.trace(prepared(seats, progress=True), KEY, 0)
    assert _signature_counts(None, None) == before
    assert before[:2] == [1, 1]


@pytest.mark.parametrize("seats", [
    (Seat("rules", {"rules": [{"draft": "best_gain", "if": "gain - gift > 1"}, {"draft": "first"}]}), "gain"),
    (Seat("learned"), Seat("gain_minus_gift", {"placement": "fast"})),
])
def test_user_and_fast_variants_record_progress(seats):
    """Rules, learned (a custom scorer) and fast-placing seats: their engine variants record as the default
    one does, and compile nothing for it."""
    fast, user = GAME._flags(prepared(seats))
    off = GAME.play(prepared(seats), KEY, 0, 60)
    before = _signature_counts(fast, user)
    check(off, GAME.play(prepared(seats, progress=True), KEY, 0, 60))
    assert _signature_counts(fast, user) == before


def test_progress_is_the_same_on_any_thread_count_and_chunk():
    prep = prepared(("gain_minus_gift", "random"), {"first_player": "random"}, progress=True)
    whole = GAME.play(prep, KEY, 0, 70)["progress"]  # three blocks of kernel.BLOCK games, the last one short
    np.testing.assert_array_equal(whole[40:], GAME.play(prep, KEY, 40, 30)["progress"])
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        np.testing.assert_array_equal(whole, GAME.play(prep, KEY, 0, 70)["progress"])
    finally:
        numba.set_num_threads(old)


def test_mcts_cell_records_the_real_games_turns():
    """An mcts cell (play_stepped): progress as in a batch cell, the search's rollouts recording nothing (the
    games are those of the cell without progress), and no new signature of the mcts variant."""
    seats = (Seat("mcts", {"iterations": 12}), "gain_minus_gift")
    off = GAME.play(prepared(seats), KEY, 0, 3)
    batch, play = mcts.kernel(GAME._flags(prepared(seats))[1])
    before = (len(batch.signatures), len(play.signatures))
    on = GAME.play(prepared(seats, {"tie_break": "guns"}), KEY, 0, 3)  # another rule row: nothing new either
    assert "progress" not in on
    check(off, GAME.play(prepared(seats, progress=True), KEY, 0, 3))
    assert (len(batch.signatures), len(play.signatures)) == before == (1, 1)
    # the trace of an mcts game still works (it passes a zero-size progress)
    assert "mcts:" in GAME.trace(prepared(seats, progress=True), KEY, 1)
