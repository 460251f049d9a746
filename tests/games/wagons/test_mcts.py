"""The step interface and the mcts player of Circle the Wagons (issue 25).

Compiles the mcts engine variant (default seats' flags) and ``mcts.decide_python`` once; every search
here runs a few dozen iterations.
"""

from __future__ import annotations

import numpy as np
import pytest

import boardsim
from boardsim import cli, rng
from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, mcts, policies, step
from boardsim.games.wagons import engine as E
from boardsim.games.wagons import fast as F
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW

KEY = 0x5EED


def _prep(a, b, rules=None):
    return GAME.prepare(2, [Seat(*a) if isinstance(a, tuple) else Seat(a), Seat(*b) if isinstance(b, tuple) else
                            Seat(b)], rules, GAME.card_table())


@pytest.mark.parametrize("seats,rules", [
    (("gain_minus_gift", "gain_minus_gift"), None),
    ((("gain_minus_gift", {"placement": "fast"}), ("gain", {"placement": "fast", "lookahead": 3})),
     {"first_player": "random"}),
    ((("random", {}), ("first", {"placement": "lands"})), {"tie_break": "guns"}),
    ((("gain_minus_gift", {"placement": "quick"}), ("gain", {"placement": "fast", "goal_weight": 2.0})), None),
])
def test_step_interface_plays_the_batch_kernels_games(seats, rules):
    """Games played through step.py, each decision what the built-in policy chooses, are the batch
    kernel's games exactly (scores, wins and every counter)."""
    prep = _prep(*seats, rules=rules)
    ref = GAME.play(prep, KEY, 5, 40)
    out = mcts.run(GAME._args(prep), prep["mcts"], KEY, 5, 40, None)
    got = GAME.result_arrays(out[0], out[1], out[3], out[2])
    assert set(ref) == set(got)
    for k in ref:
        np.testing.assert_array_equal(np.asarray(ref[k]), np.asarray(got[k]), err_msg=k)


def test_the_logged_placements_are_legal_steps():
    """Replaying a step-interface game's log: every placement is in step.legal's list."""
    prep = _prep("gain_minus_gift", "gain")
    game = GAME._trace_game(prep, KEY, 0)
    ev, start_card = game[5], int(game[3][0, E.G_START])
    w, tab, scr, dr = _world(prep, KEY, 0)
    buf = np.zeros(step.MAX_LEGAL, dtype=np.int64)
    t = 0
    for e in ev:
        if w.v[step.V_PHASE] == step.PH_START:
            n = step.legal(w, buf)
            s = int(np.flatnonzero(w.circle == start_card)[0])
            assert s in buf[:n]
            step.apply(w, s, tab, scr)
        if w.v[step.V_PHASE] == step.PH_DRAFT:
            k = int(np.flatnonzero(w.seq == e[1])[0]) - int(w.v[step.V_T])
            n = step.legal(w, buf)
            assert k in buf[:n]
            step.apply(w, k, tab, scr)
        a = step.spot_action(e[2], e[3], e[4])
        n = step.legal(w, buf)
        assert a in buf[:n]
        assert step.card_to_place(w) == e[1]
        step.apply(w, a, tab, scr)
        t += 1
    assert w.v[step.V_PHASE] == step.PH_OVER and t == 15


# -- Python-side helpers over the step interface ------------------------------------------------------------------


def _world(prep, key, index):
    rules, card_land, card_sym, card_goal, gp = GAME._args(prep)[:5]
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    _t, scr, dr = ST.new_state()
    w = step.new_world()
    state = rng.new_state(np.uint64(rng.game_seed(np.uint64(key), np.int64(index))))
    step.setup(w, np.uint64(key), np.int64(index), rules, tab, dr, state)
    return w, tab, scr, dr


class Searcher:
    """decide() called from Python on a prepared cell's first seat."""

    def __init__(self, prep, **params):
        self.prep = prep
        self.args = GAME._args(prep)
        self.rules, cl, cs, cg, gp, _pol, self.rl, self.scorers = self.args
        self.tab = ST.Tables(cl, cs, cg, gp)
        _t, self.scr, self.dr = ST.new_state()
        self.world = step.new_world()
        self.buf = np.zeros(mcts.BRANCHING, dtype=np.int64)
        self.stats = np.zeros(3)
        self.fn = mcts.decide_python()
        self.row = prep["mcts"][0].copy()
        self.ppol = np.ascontiguousarray(np.tile(self.row[mcts.M_PLAY:], (2, 1)))

    def __call__(self, w, iterations, state=None, scr=None, dr=None):
        self.row[mcts.M_ITER] = iterations
        tr = mcts.TR.new_tree(max(2, iterations + 1))
        state = np.zeros(4, dtype=np.uint64) + np.uint64(7) if state is None else state
        a = self.fn(w, self.world, tr, self.buf, self.row, self.ppol, self.rules, self.tab,
                    self.scr if scr is None else scr, self.dr if dr is None else dr, self.rl, self.scorers, state,
                    self.stats, None, True, policies.search)
        return int(a), self.stats.copy()


def _copy(w):
    c = step.new_world()
    step.copy_world(w, c)
    return c


def _after(w, a, tab, scr):
    c = _copy(w)
    step.apply(c, a, tab, scr)
    return c


def _reward(w, rules, tab, scr, seat):
    tot = np.zeros(2, dtype=np.int64)
    out = np.zeros(2)
    step.scores(w, tab, scr, tot)
    step.win_shares(w, rules, tot[0], tot[1], out)
    return out[seat]


def _candidates(w, tab, scr, look=3, nspots=4):
    """mcts.candidates, in Python: the fast estimate's kept spots, its best first."""
    ph = w.v[step.V_PHASE]
    if ph == step.PH_DRAFT:
        return list(range(min(look, ST.N_CIRCLE - int(w.v[step.V_T]))))
    p = step.to_move(w)
    town = w.town
    if town.meta[p, TW.META_N] == 0:
        return [step.spot_action(TW.CENTER, TW.CENTER, 0)]
    at = int(w.v[step.V_T] + (w.v[step.V_K] if ph == step.PH_TAKEN else w.v[step.V_J]))
    state = np.zeros(4, dtype=np.uint64)
    policies.search(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], tab.card_land,
                    tab.card_sym, w.seq, at, 1, w.goals, tab.gp, town.cnt[1 - p], policies.PLACE_FAST, 1.0, scr.ws,
                    scr.detail,
                    scr.saved, state, scr.bestv, scr.spots, policies.RANK_NONE, 0.0, 0.0, scr.bestv, True, True)
    out = [step.spot_action(*scr.spots[0])]
    kept = [(scr.ws[F.R_TOP, 4 * i], i) for i in range(F.TOP) if scr.ws[F.R_TOP, 4 * i] > -mcts.BIG]
    for _v, i in sorted(kept, key=lambda vi: (-vi[0], vi[1])):
        xy = int(scr.ws[F.R_TOP, 4 * i + 1])
        a = step.spot_action(xy % TW.G, xy // TW.G, int(scr.ws[F.R_TOP, 4 * i + 2]))
        if a not in out and len(out) < nspots:
            out.append(a)
    return out


def _advance(search, w, stop):
    """Play the playout policy's choices until ``stop(w)``."""
    state = np.zeros(4, dtype=np.uint64)
    while w.v[step.V_PHASE] != step.PH_OVER and not stop(w):
        a, _ = search(w, 0, state)
        step.apply(w, a, search.tab, search.scr)


def _last_placement(w):
    ph, t, k, j = (int(v) for v in w.v[[step.V_PHASE, step.V_T, step.V_K, step.V_J]])
    return (ph == step.PH_TAKEN and k == 0 and t == 14) or (ph == step.PH_FREE and t + k == 14 and j == k - 1)


def _value(w, seat, rules, tab, scr):
    """Exact win share of ``seat`` with both seats choosing among mcts's candidates."""
    if w.v[step.V_PHASE] == step.PH_OVER:
        return _reward(w, rules, tab, scr, seat)
    vals = [_value(_after(w, a, tab, scr), seat, rules, tab, scr) for a in _candidates(w, tab, scr)]
    return max(vals) if step.to_move(w) == seat else min(vals)


@pytest.fixture(scope="module")
def search():
    return Searcher(_prep(("mcts", {"iterations": 50}), "gain_minus_gift"))


def test_golden_last_placement_wins_at_once(search):
    """At a game's last placement where one candidate wins at once and another does not, a
    20-iteration search picks a winning one."""
    found = 0
    for i in range(80):
        w, tab, scr, _ = _world(search.prep, KEY, i)
        _advance(search, w, _last_placement)
        seat = step.to_move(w)
        cands = _candidates(w, tab, scr)
        out = [_reward(_after(w, a, tab, scr), search.rules, tab, scr, seat) for a in cands]
        if max(out) == 1.0 and min(out) < 1.0:
            a, stats = search(w, 20)
            assert out[cands.index(a)] == 1.0
            found += 1
    assert found >= 1


def test_golden_last_draft_avoids_the_losing_skip(search):
    """With two cards left, taking the first and skipping to the second differ: one wins for the
    drafting seat under best play of both (exact, over the same candidates), the other does not; a
    300-iteration search drafts the winning one."""
    found = 0
    for i in range(40):
        w, tab, scr, _ = _world(search.prep, KEY, 100 + i)
        _advance(search, w, lambda x: x.v[step.V_PHASE] == step.PH_DRAFT and x.v[step.V_T] >= 13)
        if w.v[step.V_T] != 13 or w.v[step.V_PHASE] != step.PH_DRAFT:
            continue
        seat = step.to_move(w)
        vals = [_value(_after(w, k, tab, scr), seat, search.rules, tab, scr) for k in (0, 1)]
        if abs(vals[0] - vals[1]) == 1.0:
            a, _ = search(w, 300)
            assert vals[a] == max(vals), (i, vals, a)
            found += 1
            if found == 3:
                break
    assert found >= 1


def test_search_is_blind_to_everything_but_the_position(search):
    """Nothing is hidden in Circle the Wagons, so a seat's information set is the position: two states
    equal in it, one with the scratch and draft buffers of another game's search, its placement log
    scrambled and another generator state, give the same decision and the same root statistics."""
    w, tab, scr, _ = _world(search.prep, KEY, 7)
    _advance(search, w, lambda x: x.v[step.V_TURN] >= 4 and x.v[step.V_PHASE] == step.PH_DRAFT)
    a1, s1 = search(_copy(w), 60, state=np.arange(4, dtype=np.uint64) + np.uint64(1))
    other = _world(search.prep, KEY, 8)[0]
    _advance(search, other, lambda x: x.v[step.V_TURN] >= 6)
    _ts, scr2, dr2 = ST.new_state()
    search(other, 30, scr=scr2, dr=dr2)  # dirty buffers
    w2 = _copy(w)
    w2.events[:] = 99
    a2, s2 = search(w2, 60, state=np.arange(4, dtype=np.uint64) + np.uint64(99), scr=scr2, dr=dr2)
    assert a1 == a2
    np.testing.assert_array_equal(s1, s2)


def test_mcts_games_are_identical_on_any_thread_count_and_chunk_size():
    pols = [("mcts", {"iterations": 8, "spots": 2}), "gain_minus_gift"]
    a = boardsim.simulate("wagons", 12, pols, seed=3, threads=1, seating="all")
    b = boardsim.simulate("wagons", 12, pols, seed=3, threads=2, chunk_size=2, seating="all")
    cols = [c for c in a.columns if c not in ("seconds",)]
    assert a[cols].equals(b[cols])


def test_play_traces_mcts_choices(capsys):
    code = cli.main(["play", "wagons", "--policies", "mcts(iterations=30),gain_minus_gift"])
    out = capsys.readouterr().out
    assert code == 0
    assert "mcts" in out and "visits)" in out and "takes" in out


def test_learned_rollouts_play_the_model_in_every_seat_and_name_a_bad_model():
    """playout = "learned": every seat inside the search asks the mcts seat's model (the bundled one, or
    ``model``), so the searches differ from gain_minus_gift rollouts on the same deals, the bundled file named
    explicitly plays as the default, a model of another game is one error naming the seat's ``model``, and
    ``learn`` makes such a search its next teacher (expert iteration)."""
    from boardsim.analysis.learn import playout_teacher
    from boardsim.errors import BadInput
    from boardsim.learned import bundled_path

    def prep(mcts_params):
        return _prep(("mcts", {"iterations": 12, **mcts_params}), "gain_minus_gift")

    def games(mcts_params):
        return GAME.play(prep(mcts_params), 31, 0, 4)

    learned, named, gmg = (games({"playout": "learned"}),
                           games({"playout": "learned", "model": str(bundled_path("wagons", 2))}), games({}))
    assert all(np.array_equal(learned[k], named[k]) for k in learned)
    assert any(not np.array_equal(learned[k], gmg[k]) for k in learned)
    with pytest.raises(BadInput) as e:
        games({"playout": "learned", "model": str(bundled_path("fliptoons", 2))})
    assert e.value.key == "seats[0].params.model"
    with pytest.raises(BadInput) as e:  # a model the rollouts would never read is refused, not ignored
        games({"model": str(bundled_path("wagons", 2))})
    assert e.value.key == "seats[0].params.model" and 'playout="learned"' in str(e.value)
    teacher = playout_teacher(GAME, Seat("mcts", {"iterations": 1000}), bundled_path("wagons", 2))
    assert teacher.params == {"iterations": 1000, "playout": "learned", "model": str(bundled_path("wagons", 2))}
