"""Invariants over simulated games, replayed independently of the engine."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import types

from boardsim import rng
from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, kernel, score_town
from boardsim.games.wagons import engine as E

KEY = 0x5EED


def prepared(a="gain_minus_gift", b="first", rules=None, pa=None, pb=None):
    return GAME.prepare(2, [Seat(a, pa or {}), Seat(b, pb or {})], rules or {}, GAME.card_table())


def circle_order(key, index, card_goal, fixed=-1):
    """The engine's shuffle, redone from the game seed (setup only draws this first)."""
    state = rng.new_state(np.uint64(rng.game_seed(np.uint64(key), index)))
    order = np.arange(18)
    rng.shuffle(state, order, 18)
    if fixed >= 0:
        j = int(np.nonzero(card_goal[order] == fixed)[0][0])
        order[0], order[j] = order[j], order[0]
    return order


def check_game(prep, key, index, result_row):
    events = GAME.trace_events(prep, key, index)
    names = list(prep["card_names"])
    card_goal = prep["card_goal"]
    fixed = prep.rules["fixed_goal"] - 1
    order = circle_order(key, index, card_goal, fixed)
    goals = [int(result_row[f"goal{g}"]) for g in range(3)]
    assert goals == [int(card_goal[c]) for c in order[:3]]
    if fixed >= 0:
        assert fixed in goals
    circle = list(order[3:])
    # exactly 15 cards placed, each circle card once, none of the centre cards
    assert len(events) == 15 and (events[:, E.EV_SEAT] >= 0).all()
    assert sorted(events[:, E.EV_CARD]) == sorted(circle)
    # the draft walks the circle from the starting card: per turn the free cards (to the
    # non-active seat, in circle order) then the taken card
    start = circle.index(int(result_row["start_card"]))
    seq = circle[start:] + circle[:start]
    walked = []
    turns = {}
    for e in events:
        turns.setdefault(int(e[E.EV_TURN]), []).append(e)
    active = int(result_row["first_player"])
    for t in sorted(turns):
        rows = turns[t]
        taken, free = rows[0], rows[1:]
        assert taken[E.EV_FREE] == 0 and taken[E.EV_SEAT] == active
        assert all(f[E.EV_FREE] == 1 and f[E.EV_SEAT] == 1 - active for f in free)
        walked += [int(f[E.EV_CARD]) for f in free] + [int(taken[E.EV_CARD])]
        active = 1 - active
    assert walked == seq
    assert len(turns) == result_row["rounds"]
    # replay each town with a plain-Python model of stacking: every visible cell is the topmost card's
    towns = [[], []]
    model = [{}, {}]
    land = prep["card_land"]
    for e in events:
        p, c, x, y, rot = (int(v) for v in e[:5])
        towns[p].append((names[c], x, y, 180 * rot))
        for k in range(4):
            t = k if rot == 0 else 3 - k
            model[p][(x + (k & 1), y + (k >> 1))] = int(land[c, t])
    goal_names = [str(prep["goal_names"][g]) for g in goals]
    for p in range(2):
        s = score_town(towns[p], goals=[g + 1 for g in goals], opponent=towns[1 - p])  # raises if illegal
        assert {xy: ls[0] for xy, ls in s.cells.items()} == {
            xy: ("Desert", "Forest", "Mountain", "Plains", "Snow", "Water")[v] for xy, v in model[p].items()}
        assert s.total == result_row["score"][p]
        assert sum(s.lands.values()) == result_row["land_points"][p]
        assert [s.goals[g] for g in goal_names] == [result_row[f"goal{k}_points"][p] for k in range(3)]
        assert s.guns == result_row["guns"][p]
    taken = result_row["taken"]
    assert taken.sum() == result_row["rounds"]
    assert taken.sum() + result_row["skipped"].sum() == 15


def rows(result, i):
    return {k: v[i] for k, v in result.items()}


@pytest.mark.parametrize(
    "a,b,rules,pa",
    [
        ("gain_minus_gift", "first", {}, {}),
        ("random", "random", {"first_player": "random"}, {}),
        ("gain", "random", {"fixed_goal": 16}, {"placement": "lands"}),
        ("gain_minus_gift", "gain_minus_gift", {"tie_break": "guns"}, {"placement": "random", "lookahead": 15}),
    ],
)
def test_invariants_random_games(a, b, rules, pa):
    prep = prepared(a, b, rules, pa)
    n = 12
    result = GAME.play(prep, KEY, 0, n)
    for i in range(n):
        check_game(prep, KEY, i, rows(result, i))
    assert np.allclose(result["win"].sum(axis=1), 1.0)


@pytest.mark.parametrize("fixed_goal", [1, 2, 4, 5, 6, 7, 12, 14, 15, 16])  # every goal kind
def test_invariants_fast_placement(fixed_goal):
    """Seats placing with the ``fast`` estimate still play legal, rule-scored games."""
    prep = prepared("gain_minus_gift", "gain", {"fixed_goal": fixed_goal}, {"placement": "fast"},
                    {"placement": "fast", "goal_weight": 2.0})
    result = GAME.play(prep, KEY, 0, 4)
    for i in range(4):
        check_game(prep, KEY, i, rows(result, i))


def test_results_shape_and_wins():
    prep = prepared("random", "random", {"tie_break": "guns"})
    r = GAME.play(prep, KEY, 0, 200)
    for name in ("score", "win", "land_points", "goal_points", "taken", "skipped", "guns", "goal0_points"):
        assert r[name].shape == (200, 2)
    for name in ("rounds", "first_player", "end", "start_card", "goal0", "goal1", "goal2"):
        assert r[name].shape == (200,)
    assert (r["score"] == r["land_points"] + r["goal_points"]).all()
    assert (r["goal_points"] == r["goal0_points"] + r["goal1_points"] + r["goal2_points"]).all()
    s, w, g = r["score"], r["win"], r["guns"]
    for i in range(200):
        if s[i, 0] != s[i, 1]:
            assert w[i, int(np.argmax(s[i]))] == 1.0
        elif g[i, 0] != g[i, 1]:
            assert w[i, int(np.argmax(g[i]))] == 1.0
        else:
            assert list(w[i]) == [0.5, 0.5]
    goals = np.stack([r["goal0"], r["goal1"], r["goal2"]], axis=1)
    assert ((goals >= 0) & (goals < 18)).all()
    assert all(len(set(row)) == 3 for row in goals)
    assert ((s[:, 0] == s[:, 1]) & (g[:, 0] != g[:, 1])).any()  # the sample has a tie that Guns break


def test_ties_are_shared_by_default():
    """The base rulebook has no tie-break: by default the same games are played, but every tie is shared."""
    guns = GAME.play(prepared("random", "random", {"tie_break": "guns"}), KEY, 0, 200)
    plain = GAME.play(prepared("random", "random"), KEY, 0, 200)
    assert (plain["score"] == guns["score"]).all() and (plain["guns"] == guns["guns"]).all()
    tied = plain["score"][:, 0] == plain["score"][:, 1]
    assert tied.any()
    assert (plain["win"][tied] == 0.5).all()
    assert (plain["win"][~tied] == guns["win"][~tied]).all()


def test_deterministic_across_chunks_and_threads():
    prep = prepared()
    whole = GAME.play(prep, KEY, 0, 40)
    part = GAME.play(prep, KEY, 25, 10)
    for k in whole:
        assert (whole[k][25:35] == part[k]).all(), k
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single = GAME.play(prep, KEY, 0, 40)
    finally:
        numba.set_num_threads(old)
    for k in whole:
        assert (whole[k] == single[k]).all(), k


def test_trace_draws_towns_and_scoring():
    prep = prepared()
    text = GAME.trace(prep, KEY, 3)
    r = GAME.play(prep, KEY, 3, 1)
    assert text.count("places it at") == 15
    assert "scoring" in text and f"total {r['score'][0, 0]}" in text
    assert "goals:" in text


def test_policies_differ_and_first_player():
    r = GAME.play(prepared("gain_minus_gift", "random", {"first_player": "random"}), KEY, 0, 300)
    assert r["win"][:, 0].mean() > 0.7  # a greedy drafter beats random play
    assert 0.35 < r["first_player"].mean() < 0.65
    r = GAME.play(prepared("first", "first"), KEY, 0, 50)
    assert (r["skipped"] == 0).all() and (r["rounds"] == 15).all()


def test_edits_and_weights_do_not_recompile():
    GAME.play(prepared(), KEY, 0, 2)
    before = len(kernel.play_batch.signatures)
    edited = GAME.card_table({"A": {"tl_land": "Snow"}, "Badlands": {"kind": "enclosed_empty", "a": 9}})
    seats = [Seat("gain_minus_gift", {"gift_weight": 0.3, "goal_weight": 2.0}), Seat("random")]
    GAME.play(GAME.prepare(2, seats, {"tie_break": "guns", "fixed_goal": 5}, edited), KEY, 0, 2)
    assert len(kernel.play_batch.signatures) == before


def test_batch_kernel_calls_the_engine_through_a_pointer():
    # A statically linked engine would be re-optimised in the kernel, its gufunc and wrappers (~9 s of
    # cold compile); the kernel's one signature takes the engine as a first-class function instead.
    GAME.play(prepared(), KEY, 0, 2)
    (sig,) = kernel.play_batch.signatures
    assert isinstance(sig[0], types.FunctionType) and sig[0] == types.FunctionType(kernel.PLAY_RANGE)
    a = GAME.play(prepared(), KEY, 0, 70)  # three blocks of BLOCK games, the last one short
    b = GAME.play(prepared(), KEY, 40, 30)
    assert np.array_equal(a["score"][40:], b["score"]) and np.array_equal(a["win"][40:], b["win"])
