"""The ``local`` placement policy: a cheap estimate of each spot's gain, read from the cells around the card.

Exact greedy placement (``search.py``) scores every legal spot exactly, which costs a full analysis of
the town per search and the components a card may split at every spot.  ``local`` reads only the
card's 4 cells and their 8 outside edge neighbours, against land labels computed once per search:

- Land groups: each group the card's cells form (inside the card and with the same-land labels on
  their edge neighbours) is as large as its card cells plus those labels' sizes, less their cells
  under the card; a covered component is assumed not to split.  A land's largest group is the
  larger of that and its largest base component after the covered cells are taken off it (or the
  second largest base component).
- Goals that read only a cell and its neighbours (between, away, next-to, on-land, isolated,
  enclosed), count goals (majorities, symbol minus land) and ``land_group_bonus`` are exact given
  that estimate; ``symbol_largest_cluster`` counts the card's symbols when they touch the symbol,
  ``symbol_near_largest_group`` the card's symbols on or next to the largest group of the land.

The value of a spot is the estimated *gain* (the base town counts 0), lands + goal_weight x goals,
and ties keep the first spot in scan order, as exact greedy does.  ``benchmarks/bench_wagons_local.py``
measures how often the estimate picks a spot of the exact best value and what it costs a player.
Scratch: rows 0..5 of the engine's ``ws`` (``town.score``'s), nothing else.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.wagons import search as S
from boardsim.games.wagons import town as T

# ws[5] columns: symbol counts 0..5, land counts 6..11 (as town.score), largest base component per land
# 12..17 and its root 18..23, second largest 24..29, base points of each goal 30..32
B_BEST, B_ROOT, B_SECOND, B_GOAL = 12, 18, 24, 30
# ws[4] columns, per position: covered cells' roots 0..3; per edge cell its root 4..11, size less its covered
# cells 12..19, land 20..27 (-1 empty) and the earlier edge cells with the same root 28..35 (bits); each
# land's largest group without the card's cells 36..41, the lands' change from covering alone 42, old
# local goal points 43..45 and the edge cells they read 46..48
P_COV, P_EROOT, P_ESIZE, P_ELAND, P_EDUP, P_REST, P_LOSS, P_OLD, P_MASK = 0, 4, 12, 20, 28, 36, 42, 43, 46
NEG = -1.0e18


@njit(cache=True, nogil=True, _nrt=False)
def prepare(land, sym, idx, cx, cy, n, goals, gp, opp_cnt, with_goals, ws):
    """Label the base town's land components and take its counts and count-goal points, once per search."""
    for k in range(B_GOAL + 3):
        ws[5, k] = 0
    for c in range(T.N_LANDS):
        ws[5, B_ROOT + c] = -1
    for i in range(n):
        ws[0, i] = i
        ws[2, i] = 0
    for i in range(n):
        x = cx[i]
        y = cy[i]
        lnd = land[y, x]
        ws[5, sym[y, x]] += 1
        ws[5, T.N_SYMBOLS + lnd] += 1
        j = idx[y, x + 1]
        if j >= 0 and land[y, x + 1] == lnd:
            a = T.find(ws, 0, i)
            b = T.find(ws, 0, j)
            if a != b:
                ws[0, a] = b
        j = idx[y + 1, x]
        if j >= 0 and land[y + 1, x] == lnd:
            a = T.find(ws, 0, i)
            b = T.find(ws, 0, j)
            if a != b:
                ws[0, a] = b
    for i in range(n):
        r = T.find(ws, 0, i)
        ws[1, i] = r
        ws[2, r] += 1
    for i in range(n):
        if ws[1, i] != i:
            continue
        c = land[cy[i], cx[i]]
        sz = ws[2, i]
        if sz > ws[5, B_BEST + c]:
            ws[5, B_SECOND + c] = ws[5, B_BEST + c]
            ws[5, B_BEST + c] = sz
            ws[5, B_ROOT + c] = i
        elif sz > ws[5, B_SECOND + c]:
            ws[5, B_SECOND + c] = sz
    if with_goals:
        for g in range(goals.shape[0]):
            kind, s, lnd, a, b = S._goal(goals, gp, g)
            if kind == T.K_MAJ_PEN:
                ws[5, B_GOAL + g] = a * opp_cnt[s] if ws[5, s] > opp_cnt[s] else 0
            elif kind == T.K_MAJ_BON:
                ws[5, B_GOAL + g] = a if ws[5, s] > opp_cnt[s] else 0
            elif kind == T.K_MINUS:
                ws[5, B_GOAL + g] = a * ws[5, s] + b * ws[5, T.N_SYMBOLS + lnd]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _position(land, sym, idx, x, y, goals, gp, with_goals, has_local, ws):
    """Work shared by every card and rotation at (x, y), read from the base town."""
    for p in range(4):
        j = idx[y + (p >> 1), x + (p & 1)]
        ws[4, P_COV + p] = ws[1, j] if j >= 0 else -1
    for e in range(8):
        qx = x + S.EDGE_DX[e]
        qy = y + S.EDGE_DY[e]
        j = idx[qy, qx]
        ws[4, P_ELAND + e] = land[qy, qx]
        if j < 0:
            ws[4, P_EROOT + e] = -1
            continue
        r = ws[1, j]
        sz = ws[2, r]
        for p in range(4):
            if ws[4, P_COV + p] == r:
                sz -= 1
        dup = 0
        for f in range(e):
            if ws[4, P_EROOT + f] == r:
                dup |= 1 << f
        ws[4, P_EROOT + e] = r
        ws[4, P_ESIZE + e] = sz
        ws[4, P_EDUP + e] = dup
    loss = 0
    for c in range(T.N_LANDS):
        best = ws[5, B_BEST + c]
        r = ws[5, B_ROOT + c]
        for p in range(4):
            if r >= 0 and ws[4, P_COV + p] == r:
                best -= 1
        rest = max(best, ws[5, B_SECOND + c])
        ws[4, P_REST + c] = rest
        loss += rest - ws[5, B_BEST + c]
    ws[4, P_LOSS] = loss
    if not has_local:
        return
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = S._goal(goals, gp, g)
        if not S._is_local(kind):
            continue
        # the edge cells whose points can change, as in search.position
        mask = 0
        if kind != T.K_ON:
            for e in range(8):
                qx = x + S.EDGE_DX[e]
                qy = y + S.EDGE_DY[e]
                if kind == T.K_ENCLOSED:
                    rel = idx[qy, qx] < 0
                elif kind == T.K_BETWEEN:
                    rel = sym[qy, qx] == s and (e & 1) == 0
                else:
                    rel = sym[qy, qx] == s
                if rel:
                    mask |= 1 << e
        ws[4, P_MASK + g] = mask
        ws[4, P_OLD + g] = _area_points(kind, s, gp[goals[g], T.GP_SYM2], lnd, a, b, land, sym, idx, x, y, mask)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _area_points(kind, s, s2, lnd, a, b, land, sym, idx, x, y, mask):
    """A local goal's points on the card's 4 cells and the masked edge cells."""
    pts = 0
    for k in range(12):
        if k >= 4 and (mask >> (k - 4)) & 1 == 0:
            continue
        pts += S._local_points(kind, s, s2, lnd, a, b, land, sym, idx, x + S.AREA_DX[k], y + S.AREA_DY[k])
    return pts


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def gain(land, sym, idx, x, y, card_land, card_sym, rot, goals, gp, opp_cnt, with_goals, gw, ws, saved):
    """Estimated gain of the card at (x, y, rot), after ``_position`` (and ``town.write_card`` when local
    goals are in play: they read the grid)."""
    t0 = 0 if rot == 0 else 3
    t1 = 1 if rot == 0 else 2
    t2 = 2 if rot == 0 else 1
    t3 = 3 if rot == 0 else 0
    c0 = np.int64(card_land[t0])
    c1 = np.int64(card_land[t1])
    c2 = np.int64(card_land[t2])
    c3 = np.int64(card_land[t3])
    # a land's group through the card: its card cells (taken as one group) and each distinct same-land
    # label next to them, without that label's covered cells
    for c in range(T.N_LANDS):
        ws[3, c] = 0
    ws[3, c0] += 1
    ws[3, c1] += 1
    ws[3, c2] += 1
    ws[3, c3] += 1
    active = 0
    for e in range(8):
        if ws[4, P_EROOT + e] >= 0 and ws[4, P_ELAND + e] == S._pick(S.EDGE_P[e], c0, c1, c2, c3):
            active |= 1 << e
    for e in range(8):
        if (active >> e) & 1 and ws[4, P_EDUP + e] & active == 0:
            ws[3, ws[4, P_ELAND + e]] += ws[4, P_ESIZE + e]
    lands = ws[4, P_LOSS]
    for c in range(T.N_LANDS):
        rest = ws[4, P_REST + c]
        if ws[3, c] > rest:
            lands += ws[3, c] - rest
        else:
            ws[3, c] = rest  # now each land's largest group with the card
    if not with_goals:
        return float(lands)
    pts = 0
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = S._goal(goals, gp, g)
        if kind == T.K_LAND_GROUP:
            pts += a * (ws[3, lnd] - ws[5, B_BEST + lnd])
        elif kind == T.K_MAJ_PEN or kind == T.K_MAJ_BON or kind == T.K_MINUS:
            cs = ws[5, s]
            cland = ws[5, T.N_SYMBOLS + lnd] if lnd >= 0 else 0
            for p in range(4):
                if saved[4 + p] == s:
                    cs -= 1
                if saved[p] == lnd:
                    cland -= 1
                if card_sym[p] == s:
                    cs += 1
                if card_land[p] == lnd:
                    cland += 1
            if kind == T.K_MAJ_PEN:
                new = a * opp_cnt[s] if cs > opp_cnt[s] else 0
            elif kind == T.K_MAJ_BON:
                new = a if cs > opp_cnt[s] else 0
            else:
                new = a * cs + b * cland
            pts += new - ws[5, B_GOAL + g]
        elif kind == T.K_CLUSTER or kind == T.K_NEAR:
            # cluster: the card's S cells count when one touches an S outside the card; near: the card's S
            # cells on the land or next to its largest base group.  Covered S cells are lost.
            r = ws[5, B_ROOT + lnd] if kind == T.K_NEAR else -1
            mine = 0
            touch = False
            for p in range(4):
                if saved[4 + p] == s and (kind == T.K_CLUSTER or (r >= 0 and ws[4, P_COV + p] == r)):
                    pts -= a
                if card_sym[p if rot == 0 else 3 - p] != s:
                    continue
                if kind == T.K_NEAR and S._pick(p, c0, c1, c2, c3) == lnd:
                    pts += a
                    continue
                for e in range(2 * p, 2 * p + 2):
                    j = ws[4, P_EROOT + e]
                    if j >= 0 and (sym[y + S.EDGE_DY[e], x + S.EDGE_DX[e]] == s if kind == T.K_CLUSTER else j == r):
                        touch = True
                mine += 1
                if kind == T.K_NEAR and touch:
                    pts += a
                    touch = False
            if kind == T.K_CLUSTER and touch:
                pts += a * mine
        elif S._is_local(kind):
            pts += _area_points(kind, s, gp[goals[g], T.GP_SYM2], lnd, a, b, land, sym, idx, x, y,
                                ws[4, P_MASK + g]) - ws[4, P_OLD + g]
    return float(lands) + gw * float(pts)


@njit(cache=True, nogil=True, _nrt=False)
def search(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, count, goals, gp, opp_cnt, with_goals,
           gw, ws, saved, bestv, spots):
    """Best estimated spot of each card cards[at : at + count] (into bestv[k], spots[k]) on a non-empty town
    that ``prepare`` has just labelled."""
    occ = ws[S.OCC_ROW]
    T.occupancy(cx, cy, meta[0], meta[2] - 3, meta[4] + 3, occ)
    has_local = False
    if with_goals:
        for g in range(goals.shape[0]):
            has_local = has_local or S._is_local(gp[goals[g], T.GP_KIND])
    for k in range(count):
        bestv[k] = NEG
    for y in range(meta[2] - 2, meta[4] + 2):
        legal = T.legal_row(occ, y)
        for x in range(meta[1] - 2, meta[3] + 2):
            if (legal >> x) & 1 == 0 or not T.in_window(x, y):
                continue
            _position(land, sym, idx, x, y, goals, gp, with_goals, has_local, ws)
            # the covered cells' base land and symbol, as town.claim saves them (count goals read them)
            for p in range(4):
                saved[p] = land[y + (p >> 1), x + (p & 1)]
                saved[4 + p] = sym[y + (p >> 1), x + (p & 1)]
            if has_local:
                T.claim(land, sym, idx, cx, cy, meta, x, y, saved)
            for k in range(count):
                c = cards[at + k]
                for rot in range(2):
                    if has_local:
                        T.write_card(land, sym, x, y, card_land[c], card_sym[c], rot)
                    v = gain(land, sym, idx, x, y, card_land[c], card_sym[c], rot, goals, gp, opp_cnt, with_goals,
                             gw, ws, saved)
                    if v > bestv[k]:
                        bestv[k] = v
                        spots[k, 0] = x
                        spots[k, 1] = y
                        spots[k, 2] = rot
            if has_local:
                T.unplace(land, sym, idx, meta, x, y, saved)
