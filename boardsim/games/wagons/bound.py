"""The upper bound with which exact greedy placement (``policies.search``) skips candidates.

``bound`` gives, from ``search.position``'s per-position work, an upper bound on the value of both
rotations of a card (each land's largest group at most its largest untouched piece or the card's cells
plus every label on the edge cells; goals bounded kind by kind).  ``policies.search`` skips a card whose
bound is not above its best value so far, which cannot change the argmax because ties keep the first
candidate.  It reads and writes search.py's rows of the engine's ``ws``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.wagons import town as TW
from boardsim.games.wagons.search import (
    EDGE_DX,
    EDGE_DY,
    I_EJOIN,
    I_PMAX,
    L_INFO,
    L_ROOT,
    LAND_LAYER,
    LAYER_ROW0,
    LAYER_ROWS,
    NEAR_ROW0,
    OLD_ROW,
    W_MAX,
    W_NEG,
    _count_points,
    _goal,
    _is_local,
    _local_points,
)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _near_bound(land, sym, idx, x, y, card_sym, ws, wrow, lnd, saved):
    """At least the near-group points (weight row wrow) with the card at (x, y), either rotation.

    The best group's weight is at most that of an untouched component, a piece (at most its
    component's base weight) or the group joined through the card (at most the base weights of the
    components on its edge cells plus the symbols on the edge cells), plus the card's own symbols.
    Covering a negatively weighted symbol can raise a weight, so then every positive symbol counts.
    """
    card_w = 0
    for p in range(4):
        card_w += max(ws[wrow, 64 + card_sym[p]], 0)
    if ws[wrow, W_NEG]:
        total = 0
        for q in range(TW.N_SYMBOLS):
            w = ws[wrow, 64 + q]
            if w > 0:
                cq = ws[OLD_ROW, 32 + q]
                for p in range(4):
                    if saved[TW.SAVED_SYM + p] == q:
                        cq -= 1
                total += w * cq
        return total + card_w
    r0 = LAND_LAYER
    joined = 0
    for e in range(8):
        qx = x + EDGE_DX[e]
        qy = y + EDGE_DY[e]
        j = idx[qy, qx]
        if j < 0:
            continue
        joined += max(ws[wrow, 64 + sym[qy, qx]], 0)
        if land[qy, qx] != lnd:
            continue
        r = ws[r0 + L_ROOT, j]
        dup = False
        for f in range(e):
            jf = idx[y + EDGE_DY[f], x + EDGE_DX[f]]
            if jf >= 0 and land[y + EDGE_DY[f], x + EDGE_DX[f]] == lnd and ws[r0 + L_ROOT, jf] == r:
                dup = True
        if not dup:
            joined += ws[wrow, r]
    return max(ws[wrow, W_MAX], joined) + card_w


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def bound(land, sym, idx, cx, cy, x, y, card_land, card_sym, goals, gp, opp_cnt, with_goals, gw, ws, saved):
    """An upper bound on ``value`` at (x, y) for both rotations of a card, after ``position``.

    Needs gw >= 0 when with_goals.  Each land's largest group is at most the larger of its largest
    untouched component or piece and the card's cells of that land plus every label on the card's
    outside edge cells; goals are bounded kind by kind the same way (count goals are exact, local
    goals count every cell that could change as scoring its best, near goals take every symbol in the
    town).  A candidate whose bound is not above the best value found cannot be chosen (ties keep the
    first), so ``policies.search`` skips it without changing any result.
    """
    r0 = LAND_LAYER
    lands = 0
    for c in range(TW.N_LANDS):
        m = ws[r0 + L_INFO, I_PMAX + c]
        k = 0
        for p in range(4):
            if card_land[p] == c:
                k += 1
        if k > 0 and k + ws[r0 + L_INFO, I_EJOIN + c] > m:
            m = k + ws[r0 + L_INFO, I_EJOIN + c]
        ws[r0 + L_INFO, 24 + c] = m
        lands += m
    if not with_goals:
        return float(lands)
    pts = 0
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = _goal(goals, gp, g)
        if kind == TW.K_CLUSTER:
            rl = LAYER_ROW0 + ws[OLD_ROW, 8 + g] * LAYER_ROWS
            m = ws[rl + L_INFO, I_PMAX]
            if a >= 0:
                k = 0
                for p in range(4):
                    if card_sym[p] == s:
                        k += 1
                if k > 0 and k + ws[rl + L_INFO, I_EJOIN] > m:
                    m = k + ws[rl + L_INFO, I_EJOIN]
            pts += a * m
        elif kind == TW.K_LAND_GROUP:
            pts += a * (ws[r0 + L_INFO, 24 + lnd] if a >= 0 else ws[r0 + L_INFO, I_PMAX + lnd])
        elif kind == TW.K_MAJ_PEN or kind == TW.K_MAJ_BON or kind == TW.K_MINUS:
            pts += _count_points(kind, s, lnd, a, b, card_land, card_sym, opp_cnt, ws, saved)
        elif kind == TW.K_NEAR:
            wrow = ws[OLD_ROW, 16 + g]
            if wrow >= NEAR_ROW0:
                pts += _near_bound(land, sym, idx, x, y, card_sym, ws, wrow, lnd, saved)
        elif _is_local(kind):
            # base - old points of the cells that can change + the most those cells can score
            mask = ws[OLD_ROW, 48 + g]
            new = 0
            if kind == TW.K_ON:
                for p in range(4):
                    if card_sym[p] == s and card_land[p] == lnd:
                        new += a
            elif kind == TW.K_ENCLOSED:
                # only empty edge cells can be enclosed, and whether they are reads nothing but idx
                for e in range(8):
                    if (mask >> e) & 1:
                        new += _local_points(kind, s, np.int64(-1), lnd, a, b, land, sym, idx, x + EDGE_DX[e],
                                             y + EDGE_DY[e])
            else:
                top = max(a, b, 0) if kind == TW.K_NEXT else max(a, 0)
                cells = 0
                for e in range(8):
                    if (mask >> e) & 1:
                        cells += 1
                for p in range(4):
                    if card_sym[p] == s:
                        cells += 1
                new = cells * top
            pts += ws[OLD_ROW, g] + new - ws[OLD_ROW, 24 + g]
    return float(lands) + gw * float(pts)
