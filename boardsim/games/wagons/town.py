"""Jitted town model: a territory-cell grid, placement, legality and scoring.

A town is five arrays (one slice per player in the engine):

- ``land``, ``sym``: int8[G, G], the visible land and symbol of each cell, -1 if empty;
- ``idx``: int16[G, G], the cell's position in the cell list, -1 if empty;
- ``cx``, ``cy``: int64[MAX_CELLS], the cell list (cells never become empty, so
  covering a cell leaves its index alone);
- ``meta``: int64[5] = number of cells, bounding box min x, min y, max x, max y.

Scoring walks the cell list (at most 60 cells) instead of the grid, so a full
evaluation costs about a microsecond; policies evaluate candidates by placing,
scoring and undoing (``place``/``unplace``) instead of copying the grid.
Grid is indexed ``[y, x]``; x grows right, y down.
"""

from __future__ import annotations

import numpy as np
from numba import njit

G = 64  # 15 cards grow a town by at most 2 cells per card from the centre: 2 + 2 * 28 < 64
CENTER = 31
MAX_CELLS = 64
N_LANDS = 6
N_SYMBOLS = 6
GUN = 3
# a town's meta row: its cell count, then its bounding box (x0, y0 inclusive; x1, y1 exclusive)
META_N, META_X0, META_Y0, META_X1, META_Y1 = range(5)
N_META = 5
# what place saves and unplace restores: the 4 covered cells' lands, their symbols, the cell count before
SAVED_LAND, SAVED_SYM, SAVED_N = 0, 4, 8
N_SAVED = 9
# ws rows: union-find parents, component root, component size, symbol parents, symbol sizes, misc
WS_ROWS = 6
# rows 0 and 3 as typed int64 for the union-find helpers: a bare literal argument compiles a separate copy
_ROW0, _ROW3 = np.int64(0), np.int64(3)
# ws[5] layout: symbol counts 0..5, land totals 6..11, largest group per land 12..17, goal misc 18..
M_SYM, M_LAND, M_BEST = 0, 6, 12
# goal kind codes, same order as cards.GOAL_KINDS
(K_BETWEEN, K_MAJ_PEN, K_AWAY, K_CLUSTER, K_NEAR, K_NEXT, K_ON, K_MINUS, K_MAJ_BON, K_ISOLATED,
 K_LAND_GROUP, K_ENCLOSED) = range(12)
GP_KIND, GP_SYM, GP_SYM2, GP_LAND, GP_A, GP_B = range(6)
# a cell (k = 0) and its 4 orthogonal neighbours (k = 1..4: left, right, up, down)
NB_DX = np.array([0, -1, 1, 0, 0], dtype=np.int64)
NB_DY = np.array([0, 0, 0, -1, 1], dtype=np.int64)


def new_towns(n: int = 2):
    """Empty towns for ``n`` players (host-side helper; the engine allocates its own)."""
    land = np.full((n, G, G), -1, dtype=np.int8)
    sym = np.full((n, G, G), -1, dtype=np.int8)
    idx = np.full((n, G, G), -1, dtype=np.int16)
    cx = np.zeros((n, MAX_CELLS), dtype=np.int64)
    cy = np.zeros((n, MAX_CELLS), dtype=np.int64)
    meta = np.zeros((n, N_META), dtype=np.int64)
    return land, sym, idx, cx, cy, meta


@njit(cache=True, nogil=True, _nrt=False)
def clear_town(land, sym, idx, meta, cx, cy):
    """Empty a town, touching only the cells it used."""
    for i in range(meta[META_N]):
        land[cy[i], cx[i]] = -1
        sym[cy[i], cx[i]] = -1
        idx[cy[i], cx[i]] = -1
    meta[META_N] = 0


@njit(cache=True, nogil=True, _nrt=False)
def in_window(x, y):
    """A card's top-left may sit where the card and its edge neighbours stay on the grid."""
    return 1 <= x <= G - 3 and 1 <= y <= G - 3


@njit(cache=True, nogil=True, _nrt=False)
def is_legal(idx, n, x, y):
    """First card anywhere; later cards must cover a town cell or share an edge with one."""
    if not in_window(x, y):
        return False
    if n == 0:
        return True
    if idx[y, x] >= 0 or idx[y, x + 1] >= 0 or idx[y + 1, x] >= 0 or idx[y + 1, x + 1] >= 0:
        return True
    return (
        idx[y, x - 1] >= 0 or idx[y + 1, x - 1] >= 0 or idx[y, x + 2] >= 0 or idx[y + 1, x + 2] >= 0
        or idx[y - 1, x] >= 0 or idx[y - 1, x + 1] >= 0 or idx[y + 2, x] >= 0 or idx[y + 2, x + 1] >= 0
    )


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def occupancy(cx, cy, n, y0, y1, occ):
    """occ[y] = the town's cells in grid row y as bits (bit x), for rows y0..y1 (``legal_row`` reads them)."""
    for y in range(y0, y1 + 1):
        occ[y] = 0
    for i in range(n):
        occ[cy[i]] |= np.int64(1) << cx[i]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def legal_row(occ, y):
    """Bit x set when a card at (x, y) covers a cell of a non-empty town or shares an edge with one: what
    ``is_legal`` tests cell by cell, for a whole row at once (``in_window`` aside)."""
    a = occ[y] | occ[y + 1]  # columns the card's two rows could cover or touch sideways
    b = occ[y - 1] | occ[y + 2]  # the rows above and below the card
    return a | (a >> 1) | (a << 1) | (a >> 2) | b | (b >> 1)


@njit(cache=True, nogil=True, _nrt=False)
def corner_only(idx, n, x, y):
    """True when an illegal card would touch the town only at a corner (for error messages)."""
    return n > 0 and (idx[y - 1, x - 1] >= 0 or idx[y - 1, x + 2] >= 0 or idx[y + 2, x - 1] >= 0
                      or idx[y + 2, x + 2] >= 0)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def claim(land, sym, idx, cx, cy, meta, x, y, saved):
    """First half of ``place``: save the 4 cells under a card at (x, y) into ``saved`` and give the
    empty ones cell indices.  A search that tries several cards or rotations at one spot claims it
    once and then only rewrites the cells (``write_card``); one ``unplace`` undoes either."""
    n = meta[META_N]
    saved[SAVED_N] = n
    for p in range(4):
        xx = x + (p & 1)
        yy = y + (p >> 1)
        saved[SAVED_LAND + p] = land[yy, xx]
        saved[SAVED_SYM + p] = sym[yy, xx]
        if idx[yy, xx] < 0:
            idx[yy, xx] = n
            cx[n] = xx
            cy[n] = yy
            n += 1
    meta[META_N] = n


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def write_card(land, sym, x, y, card_land, card_sym, rot):
    """Show a card's 4 territories at (x, y); rot 1 = 180 degrees (TL<->BR, TR<->BL)."""
    for p in range(4):
        t = p if rot == 0 else 3 - p
        land[y + (p >> 1), x + (p & 1)] = card_land[t]
        sym[y + (p >> 1), x + (p & 1)] = card_sym[t]


@njit(cache=True, nogil=True, _nrt=False)
def place(land, sym, idx, cx, cy, meta, card_land, card_sym, x, y, rot, saved):
    """Put a card on top at (x, y); rot 1 = 180 degrees (TL<->BR, TR<->BL).

    ``saved`` (int64[9]) receives what ``unplace`` needs to undo this.
    """
    claim(land, sym, idx, cx, cy, meta, x, y, saved)
    write_card(land, sym, x, y, card_land, card_sym, rot)


@njit(cache=True, nogil=True, _nrt=False)
def unplace(land, sym, idx, meta, x, y, saved):
    for p in range(4):
        xx = x + (p & 1)
        yy = y + (p >> 1)
        land[yy, xx] = saved[SAVED_LAND + p]
        sym[yy, xx] = saved[SAVED_SYM + p]
        if idx[yy, xx] >= saved[SAVED_N]:
            idx[yy, xx] = -1
    meta[META_N] = saved[SAVED_N]


@njit(cache=True, nogil=True, _nrt=False)
def commit(meta, x, y, was_empty):
    """Grow the bounding box after a real (not trial) placement."""
    if was_empty:
        meta[META_X0] = x
        meta[META_Y0] = y
        meta[META_X1] = x + 1
        meta[META_Y1] = y + 1
    else:
        meta[META_X0] = min(meta[META_X0], x)
        meta[META_Y0] = min(meta[META_Y0], y)
        meta[META_X1] = max(meta[META_X1], x + 1)
        meta[META_Y1] = max(meta[META_Y1], y + 1)


@njit(cache=True, nogil=True, _nrt=False)
def count_symbols(sym, cx, cy, n, out):
    for s in range(N_SYMBOLS):
        out[s] = 0
    for i in range(n):
        out[sym[cy[i], cx[i]]] += 1


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def find(ws, row, i):
    """Union-find root of i in ws[row], halving the path (also the search module's)."""
    while ws[row, i] != i:
        ws[row, i] = ws[row, ws[row, i]]
        i = ws[row, i]
    return i


@njit(cache=True, nogil=True, _nrt=False)
def _union(ws, row, a, b):
    ra = find(ws, row, a)
    rb = find(ws, row, b)
    if ra != rb:
        ws[row, ra] = rb


@njit(cache=True, nogil=True, _nrt=False)
def _next_to_comp(idx, ws, x, y, r, root_row):
    """Is cell (x, y) on or orthogonally next to the component whose root is r (each cell's root in
    ws[root_row]: row 1 in ``score``, fast.R_ROOT in fast placement's analysis)?"""
    j = idx[y, x]
    if j >= 0 and ws[root_row, j] == r:
        return True
    j = idx[y, x - 1]
    if j >= 0 and ws[root_row, j] == r:
        return True
    j = idx[y, x + 1]
    if j >= 0 and ws[root_row, j] == r:
        return True
    j = idx[y - 1, x]
    if j >= 0 and ws[root_row, j] == r:
        return True
    j = idx[y + 1, x]
    return j >= 0 and ws[root_row, j] == r


@njit(cache=True, nogil=True, _nrt=False)
def _has_sym_next(sym, x, y, s):
    return sym[y, x - 1] == s or sym[y, x + 1] == s or sym[y - 1, x] == s or sym[y + 1, x] == s


@njit(cache=True, nogil=True, _nrt=False)
def _has_land_next(land, x, y, lnd):
    return land[y, x - 1] == lnd or land[y, x + 1] == lnd or land[y - 1, x] == lnd or land[y + 1, x] == lnd


@njit(cache=True, nogil=True, _nrt=False)
def _credit_near(land, idx, ws, x, y, lnd, a):
    """Add a to ws[4, root] once for each distinct land-lnd component on or next to (x, y)."""
    r0 = -1
    r1 = -1
    r2 = -1
    r3 = -1
    for k in range(5):
        xx = x + NB_DX[k]
        yy = y + NB_DY[k]
        if land[yy, xx] != lnd:
            continue
        r = ws[1, idx[yy, xx]]
        if r == r0 or r == r1 or r == r2 or r == r3:
            continue
        ws[4, r] += a
        if r0 < 0:
            r0 = r
        elif r1 < 0:
            r1 = r
        elif r2 < 0:
            r2 = r
        else:
            r3 = r


@njit(cache=True, nogil=True, _nrt=False)
def score(land, sym, idx, cx, cy, n, goals, gp, opp_cnt, with_goals, ws, detail):
    """Total points of a town; detail[0:6] land points, detail[6 + g] points of goals[g].

    ``opp_cnt`` holds the opponent's symbol counts (majority goals).  Ties for a
    largest land group are resolved the way that scores best for the
    ``symbol_near_largest_group`` goals on that land, as the rules let the owner pick.
    """
    ng = goals.shape[0]
    for k in range(18):
        ws[5, k] = 0
    for i in range(n):
        ws[0, i] = i
        ws[2, i] = 0
    for i in range(n):
        x = cx[i]
        y = cy[i]
        lnd = land[y, x]
        ws[5, M_SYM + sym[y, x]] += 1
        ws[5, M_LAND + lnd] += 1
        j = idx[y, x + 1]
        if j >= 0 and land[y, x + 1] == lnd:
            _union(ws, _ROW0, i, np.int64(j))
        j = idx[y + 1, x]
        if j >= 0 and land[y + 1, x] == lnd:
            _union(ws, _ROW0, i, np.int64(j))
    for i in range(n):
        r = find(ws, _ROW0, i)
        ws[1, i] = r
        ws[2, r] += 1
    total = 0
    for i in range(n):
        if ws[1, i] == i:
            lnd = land[cy[i], cx[i]]
            if ws[2, i] > ws[5, M_BEST + lnd]:
                ws[5, M_BEST + lnd] = ws[2, i]
    for lnd in range(N_LANDS):
        detail[lnd] = ws[5, M_BEST + lnd]
        total += ws[5, M_BEST + lnd]
    for g in range(ng):
        detail[N_LANDS + g] = 0
    if not with_goals or n == 0:
        return total
    for g in range(ng):
        row = goals[g]
        kind = gp[row, GP_KIND]
        s = gp[row, GP_SYM]
        s2 = gp[row, GP_SYM2]
        lnd = gp[row, GP_LAND]
        a = gp[row, GP_A]
        b = gp[row, GP_B]
        pts = 0
        if kind == K_BETWEEN:
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] == s and land[y, x - 1] == lnd and land[y, x + 1] == lnd:
                    pts += a
        elif kind == K_MAJ_PEN:
            if ws[5, M_SYM + s] > opp_cnt[s]:
                pts = a * opp_cnt[s]
        elif kind == K_AWAY:
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] == s and land[y, x] != lnd and not _has_land_next(land, x, y, lnd):
                    pts += a
        elif kind == K_CLUSTER:
            for i in range(n):
                ws[3, i] = i
                ws[4, i] = 0
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] != s:
                    continue
                if sym[y, x + 1] == s:
                    _union(ws, _ROW3, i, np.int64(idx[y, x + 1]))
                if sym[y + 1, x] == s:
                    _union(ws, _ROW3, i, np.int64(idx[y + 1, x]))
            biggest = 0
            for i in range(n):
                if sym[cy[i], cx[i]] == s:
                    r = find(ws, _ROW3, i)
                    ws[4, r] += 1
                    if ws[4, r] > biggest:
                        biggest = ws[4, r]
            pts = a * biggest
        elif kind == K_NEAR:
            pts = 0  # filled below, after the tie choice
        elif kind == K_NEXT:
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] == s:
                    pts += a if _has_sym_next(sym, x, y, s2) else b
        elif kind == K_ON:
            for i in range(n):
                if sym[cy[i], cx[i]] == s and land[cy[i], cx[i]] == lnd:
                    pts += a
        elif kind == K_MINUS:
            pts = a * ws[5, M_SYM + s] + b * ws[5, M_LAND + lnd]
        elif kind == K_MAJ_BON:
            if ws[5, M_SYM + s] > opp_cnt[s]:
                pts = a
        elif kind == K_ISOLATED:
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] == s and not _has_sym_next(sym, x, y, s):
                    pts += a
        elif kind == K_LAND_GROUP:
            pts = a * ws[5, M_BEST + lnd]
        elif kind == K_ENCLOSED:
            x0 = cx[0]
            x1 = cx[0]
            y0 = cy[0]
            y1 = cy[0]
            for i in range(1, n):
                x0 = min(x0, cx[i])
                x1 = max(x1, cx[i])
                y0 = min(y0, cy[i])
                y1 = max(y1, cy[i])
            holes = 0
            for y in range(y0 + 1, y1):
                for x in range(x0 + 1, x1):
                    if (idx[y, x] < 0 and idx[y, x - 1] >= 0 and idx[y, x + 1] >= 0 and idx[y - 1, x] >= 0
                            and idx[y + 1, x] >= 0):
                        holes += 1
            pts = a * holes
        detail[N_LANDS + g] = pts
        total += pts
    # symbol_near_largest_group: per land, pick among tied largest groups the one best for these goals
    for g in range(ng):
        row = goals[g]
        if gp[row, GP_KIND] != K_NEAR:
            continue
        lnd = gp[row, GP_LAND]
        done = False
        for h in range(g):
            if gp[goals[h], GP_KIND] == K_NEAR and gp[goals[h], GP_LAND] == lnd:
                done = True
        if done or ws[5, M_BEST + lnd] == 0:
            continue
        # weight per component: sum of the goals' points for S cells on or next to it
        for r in range(n):
            ws[4, r] = 0
        for h in range(g, ng):
            rh = goals[h]
            if gp[rh, GP_KIND] != K_NEAR or gp[rh, GP_LAND] != lnd:
                continue
            s = gp[rh, GP_SYM]
            a = gp[rh, GP_A]
            for i in range(n):
                x = cx[i]
                y = cy[i]
                if sym[y, x] == s:
                    _credit_near(land, idx, ws, x, y, lnd, a)
        best_sum = -(1 << 40)
        pick = np.int64(-1)
        for r in range(n):
            if ws[1, r] == r and ws[2, r] == ws[5, M_BEST + lnd] and land[cy[r], cx[r]] == lnd:
                if ws[4, r] > best_sum:
                    best_sum = ws[4, r]
                    pick = r
        for h in range(g, ng):
            rh = goals[h]
            if gp[rh, GP_KIND] != K_NEAR or gp[rh, GP_LAND] != lnd:
                continue
            c = 0
            for i in range(n):
                if sym[cy[i], cx[i]] == gp[rh, GP_SYM] and _next_to_comp(idx, ws, cx[i], cy[i], pick, np.int64(1)):
                    c += 1
            detail[N_LANDS + h] = c * gp[rh, GP_A]
        total += best_sum
    return total
