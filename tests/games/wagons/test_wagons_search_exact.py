"""The incremental greedy search's value of every spot equals a full rescoring of the town.

``town.score`` is the readable reference (``explain.score_town`` is a thin wrapper around it); the
search (``search.position``, ``town.claim``, ``town.write_card``, ``search.value``) must give the
same number for every legal spot and rotation, on random towns with every goal kind in play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME
from boardsim.games.wagons import policies as P
from boardsim.games.wagons import search as S
from boardsim.games.wagons import town as T
from tests.games.wagons.towns import random_town


@njit(cache=True)
def _mismatches(land, sym, idx, cx, cy, meta, card_land, card_sym, goals, gp, opp_cnt, gw, ws, ws2, detail, saved):
    """(spots x rotations compared, how many differ) for one card on one town."""
    P.analyse(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, P.PLACE_GREEDY, gw, ws, detail)
    nlay = ws[S.OLD_ROW, S.O_NLAY]
    n = meta[0]
    seen = 0
    bad = 0
    for y in range(meta[2] - 2, meta[4] + 2):
        for x in range(meta[1] - 2, meta[3] + 2):
            if not T.is_legal(idx, n, x, y):
                continue
            S.position(land, sym, idx, cx, cy, x, y, goals, gp, nlay, True, ws)
            T.claim(land, sym, idx, cx, cy, meta, x, y, saved)
            for rot in range(2):
                T.write_card(land, sym, x, y, card_land, card_sym, rot)
                v = S.value(land, sym, idx, cx, cy, x, y, card_land, card_sym, rot, goals, gp, opp_cnt, True, gw, ws,
                            saved)
                T.score(land, sym, idx, cx, cy, meta[0], goals, gp, opp_cnt, True, ws2, detail)
                want = 0.0
                for k in range(T.N_LANDS):
                    want += detail[k]
                g = 0.0
                for k in range(goals.shape[0]):
                    g += detail[T.N_LANDS + k]
                want += gw * g
                seen += 1
                if v != want:
                    bad += 1
            T.unplace(land, sym, idx, meta, x, y, saved)
    return seen, bad


def test_search_values_equal_full_rescoring_on_random_towns():
    prep = GAME.prepare(2, [Seat("first"), Seat("first")], {}, GAME.card_table())
    cl, cs, gp = prep["card_land"], prep["card_sym"], prep["goal_params"]
    rnd = np.random.default_rng(1717)
    ws = np.zeros((S.FS_ROWS, S.FS_WIDTH), dtype=np.int64)
    ws2 = np.zeros((S.FS_ROWS, S.FS_WIDTH), dtype=np.int64)
    detail = np.zeros(T.N_LANDS + 3, dtype=np.int64)
    saved = np.zeros(9, dtype=np.int64)
    kinds = set()
    seen = bad = 0
    for _ in range(2000):
        land, sym, idx, cx, cy, meta = random_town(rnd, int(rnd.integers(1, 15)), cl, cs)
        goals = rnd.choice(18, size=3, replace=False).astype(np.int64)
        kinds.update(int(gp[g, T.GP_KIND]) for g in goals)
        opp_cnt = rnd.integers(0, 8, size=T.N_SYMBOLS).astype(np.int64)
        gw = float(rnd.choice([1.0, 1.0, 0.5, 2.0, -1.5]))
        c = int(rnd.integers(18))
        s, b = _mismatches(land, sym, idx, cx, cy, meta, cl[c], cs[c], goals, gp, opp_cnt, gw, ws, ws2, detail, saved)
        seen += s
        bad += b
    assert kinds == set(range(12))  # every goal kind was in play
    assert seen > 100_000
    assert bad == 0
