"""The incremental greedy search's value of every spot equals a full rescoring of the town.

``town.score`` is the readable reference (``explain.score_town`` is a thin wrapper around it); the
search (``search.position``, ``town.claim``, ``town.write_card``, ``search.value``) must give the
same number for every legal spot and rotation, on random towns with every goal kind in play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, policies
from boardsim.games.wagons import search as SR
from boardsim.games.wagons import town as TW
from tests.games.wagons.towns import random_town


@njit(cache=True)
def _mismatches(land, sym, idx, cx, cy, meta, card_land, card_sym, goals, gp, opp_cnt, gw, ws, ws2, detail, saved):
    """(spots x rotations compared, how many differ) for one card on one town."""
    policies.analyse(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, policies.PLACE_GREEDY, gw, ws, detail)
    nlay = ws[SR.OLD_ROW, SR.O_NLAY]
    n = meta[TW.META_N]
    seen = 0
    bad = 0
    for y in range(meta[TW.META_Y0] - 2, meta[TW.META_Y1] + 2):
        for x in range(meta[TW.META_X0] - 2, meta[TW.META_X1] + 2):
            if not TW.is_legal(idx, n, x, y):
                continue
            SR.position(land, sym, idx, cx, cy, x, y, goals, gp, nlay, True, ws)
            TW.claim(land, sym, idx, cx, cy, meta, x, y, saved)
            for rot in range(2):
                TW.write_card(land, sym, x, y, card_land, card_sym, rot)
                v = SR.value(land, sym, idx, cx, cy, x, y, card_land, card_sym, rot, goals, gp, opp_cnt, True, gw, ws,
                             saved)
                TW.score(land, sym, idx, cx, cy, meta[TW.META_N], goals, gp, opp_cnt, True, ws2, detail)
                want = 0.0
                for k in range(TW.N_LANDS):
                    want += detail[k]
                g = 0.0
                for k in range(goals.shape[0]):
                    g += detail[TW.N_LANDS + k]
                want += gw * g
                seen += 1
                if v != want:
                    bad += 1
            TW.unplace(land, sym, idx, meta, x, y, saved)
    return seen, bad


def test_search_values_equal_full_rescoring_on_random_towns():
    prep = GAME.prepare(2, [Seat("first"), Seat("first")], {}, GAME.card_table())
    cl, cs, gp = prep["card_land"], prep["card_sym"], prep["goal_params"]
    rnd = np.random.default_rng(1717)
    ws = np.zeros((SR.FS_ROWS, SR.FS_WIDTH), dtype=np.int64)
    ws2 = np.zeros((SR.FS_ROWS, SR.FS_WIDTH), dtype=np.int64)
    detail = np.zeros(TW.N_LANDS + 3, dtype=np.int64)
    saved = np.zeros(TW.N_SAVED, dtype=np.int64)
    kinds = set()
    seen = bad = 0
    for _ in range(2000):
        land, sym, idx, cx, cy, meta = random_town(rnd, int(rnd.integers(1, 15)), cl, cs)
        goals = rnd.choice(18, size=3, replace=False).astype(np.int64)
        kinds.update(int(gp[g, TW.GP_KIND]) for g in goals)
        opp_cnt = rnd.integers(0, 8, size=TW.N_SYMBOLS).astype(np.int64)
        gw = float(rnd.choice([1.0, 1.0, 0.5, 2.0, -1.5]))
        c = int(rnd.integers(18))
        s, b = _mismatches(land, sym, idx, cx, cy, meta, cl[c], cs[c], goals, gp, opp_cnt, gw, ws, ws2, detail, saved)
        seen += s
        bad += b
    assert kinds == set(range(12))  # every goal kind was in play
    assert seen > 100_000
    assert bad == 0


def _searcher(cl, cs, gp):
    """policies.search as the engine calls it (its own analysis, no fast code): (town value, bestv, spots)."""
    ws = np.zeros((SR.FS_ROWS, SR.FS_WIDTH), dtype=np.int64)
    detail, saved = np.zeros(TW.N_LANDS + 3, dtype=np.int64), np.zeros(TW.N_SAVED, dtype=np.int64)
    state, bestv, spots = np.zeros(4, dtype=np.uint64), np.zeros(15), np.zeros((15, 3), dtype=np.int64)

    def run(town, seq, n, goals, opp_cnt, mode, gw, rank, weight, gifts):
        v = policies.search(*town, cl, cs, seq, np.int64(0), np.int64(n), goals, gp, opp_cnt, np.int64(mode), gw, ws,
                            detail, saved, state, bestv, spots, rank, 0.0, weight, gifts, None, True)
        return v, bestv[:n].copy(), spots[:n].copy()
    return run


def _net_pick(gain, gifts, weight):
    """decide._pick(T_BEST_NET): the first candidate with the largest gain - weight * gift."""
    best, pick = -1.0e18, 0
    for k in range(len(gain)):
        v = gain[k] - weight * gifts[k]
        if v > best:
            best, pick = v, k
    return pick


def test_gift_floor_gives_the_exact_gifts_pick_on_random_towns():
    """decide.draft's gift floor: RANK_SPOT is a lower bound on each card's best value; ranking the own town
    against the bounds (RANK_FLOOR) and searching the opponent's town only when the bounds cannot settle the
    pick (with two candidates only until the gift settles it: RANK_TARGET) gives the pick, its gain and its
    spot that exact gifts give (RANK_PICK), on random towns and goals."""
    prep = GAME.prepare(2, [Seat("first"), Seat("first")], {}, GAME.card_table())
    cl, cs, gp = prep["card_land"], prep["card_sym"], prep["goal_params"]
    run = _searcher(cl, cs, gp)
    rnd = np.random.default_rng(2828)
    kinds = set()
    skipped = later = 0
    trials = 1500
    for _ in range(trials):
        own = random_town(rnd, int(rnd.integers(0, 14)), cl, cs)
        opp = random_town(rnd, int(rnd.integers(0, 14)), cl, cs)
        cnt_own, cnt_opp = np.zeros(TW.N_SYMBOLS, dtype=np.int64), np.zeros(TW.N_SYMBOLS, dtype=np.int64)
        TW.count_symbols(own[1], own[3], own[4], own[5][0], cnt_own)
        TW.count_symbols(opp[1], opp[3], opp[4], opp[5][0], cnt_opp)
        goals = rnd.choice(18, size=3, replace=False).astype(np.int64)
        kinds.update(int(gp[g, TW.GP_KIND]) for g in goals)
        look = int(rnd.choice([2, 2, 3, 4]))
        seq = rnd.choice(18, size=look, replace=False).astype(np.int64)
        mode = policies.PLACE_LANDS if rnd.random() < 0.15 else policies.PLACE_GREEDY
        gw = float(rnd.choice([1.0, 1.0, 0.5, 2.5]))
        weight = float(rnd.choice([1.0, 1.0, 0.5, 3.0]))
        # exact gifts, then the own search ranked against them (the draft before the floor)
        gifts = np.zeros(15)
        now_op, best_op, _ = run(opp, seq, look - 1, goals, cnt_own, mode, gw, policies.RANK_NONE, 0.0, gifts)
        for k in range(look - 1):
            gifts[k + 1] = gifts[k] + (best_op[k] - now_op)
        now, best, spots = run(own, seq, look, goals, cnt_opp, mode, gw, policies.RANK_PICK, weight, gifts)
        want = _net_pick(best - now, gifts, weight)
        # the floor
        floor = np.zeros(15)
        now_f, spot_op, _ = run(opp, seq, look - 1, goals, cnt_own, mode, gw, policies.RANK_SPOT, 0.0, floor)
        assert now_f == now_op
        assert (spot_op <= best_op).all()
        for k in range(look - 1):
            floor[k + 1] = floor[k] + (spot_op[k] - now_op)
        now_f, best_f, spots_f = run(own, seq, look, goals, cnt_opp, mode, gw, policies.RANK_FLOOR, weight, floor)
        got = _net_pick(best_f - now_f, floor, weight)
        if got == 0:
            skipped += 1
        elif look == 2:
            # the gift search that stops once the gift settles the pick for the first card (RANK_TARGET)
            later += 1
            held = np.zeros(15)
            held[:2] = best_f - now_f
            now_t, best_t, _ = run(opp, seq, 1, goals, cnt_own, mode, gw, policies.RANK_TARGET, weight, held)
            target = np.zeros(15)
            target[1] = target[0] + (best_t[0] - now_t)
            got = _net_pick(best_f - now_f, target, weight)
            if got == 1:
                assert best_t[0] == best_op[0]  # it ran to the end: the exact gift
        else:
            later += 1
            got = _net_pick(best_f - now_f, gifts, weight)
        assert got == want
        assert best_f[got] == best[got] and (spots_f[got] == spots[got]).all()
    assert kinds == set(range(12))
    assert skipped > trials // 3 and later > trials // 20  # both branches of the floor ran
