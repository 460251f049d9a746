"""Fast greedy placement search: the same values as ``town.score`` for every candidate, found incrementally.

A greedy search tries every legal (x, y, rot) of one card on one town.  Rescoring
the whole town for each candidate (``town.score``) costs a union-find over all
cells; here the town before the card (the *base*) is analysed once per search and
each candidate only looks at what the 2x2 card can change:

- Components ("layers": land groups, and one layer per ``symbol_largest_cluster``
  goal for cells showing its symbol) are labelled once.  At a position, the
  components that lose a covered cell are flood-filled again without the card's
  cells (they may split into *pieces*); every other component keeps its size.
  Per rotation the card's 4 cells join the same-colour components on their 8
  outside edge neighbours (a tiny union-find), so a colour's largest group is
  max(largest untouched component, largest piece, largest joined group).
- Goals whose per-cell points depend only on a cell and its 4 neighbours
  (between, away, next-to, on-land, isolated, enclosed) change only on the card's
  4 cells and their 8 outside neighbours: base points plus the change there.
- Count goals use symbol and land counts corrected by the covered and new cells.
- ``symbol_near_largest_group`` takes, as ``town.score`` does, the best weight
  among the tied largest groups of its land: untouched components use their base
  weight corrected on the card's cells, pieces and joined groups are walked.

The value is the same integer sum as the full score, so the float value, the
argmax and its scan-order tie-breaking are unchanged.

``bound.bound`` gives, from the same per-position work, an upper bound on the value of
both rotations of a card, with which ``policies.search`` skips candidates.  Scratch space is the
engine's ``ws`` array (``FS_ROWS`` x ``FS_WIDTH``); rows 0..5 stay ``town.score``'s.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.wagons import town as TW

FS_WIDTH = 128
MAX_LAYERS = 4  # lands + one per cluster goal (3 goals at most)
LAYER_ROW0 = TW.WS_ROWS
LAYER_ROWS = 9
# per layer rows (offset from the layer's first row)
L_ROOT, L_SIZE, L_NEXT, L_ORD, L_INFO, L_PLAB, L_PSIZE, L_PNEXT, L_MARK = range(LAYER_ROWS)
# L_INFO columns: colour offsets into L_ORD 0..7, broken roots 8..11, counts, position max per colour 16..22
I_OFF, I_BROKEN, I_NBROKEN, I_NPIECE, I_PMAX = 0, 8, 12, 13, 16
# per position, the 8 outside edge cells: colour (-1 empty or not in the layer), label, label size
I_ECOL, I_ELAB, I_ESIZE = 32, 40, 48
# per position and colour: summed sizes of the distinct labels on the 8 outside edge cells (for ``bound``)
I_EJOIN = 56
NEAR_ROW0 = LAYER_ROW0 + MAX_LAYERS * LAYER_ROWS  # base weight per root, one row per near-goal land
W_MAX, W_NEG = 80, 81  # near rows: the largest base weight, whether any symbol weighs below 0
STAMP_ROW = NEAR_ROW0 + 3
STACK_ROW = STAMP_ROW + 1
NODE_ROW = STACK_ROW + 1  # node label, parent, size, group size
OLD_ROW = NODE_ROW + 4  # per goal: base points, old points at this position; goal layer; near-goal slot
LOCAL_ROW = OLD_ROW + 1  # + goal slot: a local goal's points of each base cell (by cell index)
FS_ROWS = LOCAL_ROW + 3
# LAYER_ROW0 as a typed int64: Numba compiles a separate copy of a function for every literal argument
# (``LAYER_ROW0`` itself is one), so calls pass this and ``np.int64(...)`` values instead
LAND_LAYER = np.int64(LAYER_ROW0)
O_NLAY = 100  # OLD_ROW column: the layer count of the town analysed last (policies.analyse)
PIECE = 64  # labels >= PIECE name pieces of a broken component

# the card's 4 cells p (p & 1 = dx, p >> 1 = dy) and their 8 outside edge neighbours
EDGE_P = np.array([0, 0, 1, 1, 2, 2, 3, 3], dtype=np.int64)
EDGE_DX = np.array([-1, 0, 2, 1, -1, 0, 2, 1], dtype=np.int64)
EDGE_DY = np.array([0, -1, 0, -1, 1, 2, 1, 2], dtype=np.int64)
# the 12 cells whose neighbourhood meets the card: the card's 4, then the 8 outside neighbours
AREA_DX = np.array([0, 1, 0, 1, -1, 0, 2, 1, -1, 0, 2, 1], dtype=np.int64)
AREA_DY = np.array([0, 0, 1, 1, 0, -1, 0, -1, 1, 2, 1, 2], dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _colour(land, sym, only, x, y):
    """Colour of a cell in a layer: its land (only < 0) or 0 if it shows symbol ``only``; -1 = not in it."""
    if only < 0:
        return np.int64(land[y, x])
    return np.int64(0) if sym[y, x] == only else np.int64(-1)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _pick(p, c0, c1, c2, c3):
    """The p-th of four per-cell values of the card (kept in scalars, not an array, in the hot path)."""
    if p == 1:
        return c1
    if p == 2:
        return c2
    if p == 3:
        return c3
    return c0


@njit(cache=True, nogil=True, _nrt=False)
def _label_layer(land, sym, idx, cx, cy, n, only, ws, r0):
    """Base components of one layer: root, size, member chain, roots sorted by colour then size."""
    for i in range(n):
        ws[r0 + L_ROOT, i] = i
        ws[r0 + L_SIZE, i] = 0
    for i in range(n):
        x = cx[i]
        y = cy[i]
        c = _colour(land, sym, only, x, y)
        if c < 0:
            ws[r0 + L_ROOT, i] = -1
            continue
        j = np.int64(idx[y, x + 1])  # int64 like i: find then compiles in one signature
        if j >= 0 and _colour(land, sym, only, x + 1, y) == c:
            a = TW.find(ws, r0 + L_ROOT, i)
            b = TW.find(ws, r0 + L_ROOT, j)
            if a != b:
                ws[r0 + L_ROOT, a] = b
        j = np.int64(idx[y + 1, x])
        if j >= 0 and _colour(land, sym, only, x, y + 1) == c:
            a = TW.find(ws, r0 + L_ROOT, i)
            b = TW.find(ws, r0 + L_ROOT, j)
            if a != b:
                ws[r0 + L_ROOT, a] = b
    for k in range(8):
        ws[r0 + L_INFO, I_OFF + k] = 0
    for i in range(n):
        if ws[r0 + L_ROOT, i] >= 0:
            ws[r0 + L_ROOT, i] = TW.find(ws, r0 + L_ROOT, i)
    for i in range(n):
        r = ws[r0 + L_ROOT, i]
        if r < 0:
            continue
        ws[r0 + L_SIZE, r] += 1
        if r == i:
            ws[r0 + L_NEXT, i] = -1
            ws[r0 + L_INFO, I_OFF + 1 + _colour(land, sym, only, cx[i], cy[i])] += 1
    for i in range(n):
        r = ws[r0 + L_ROOT, i]
        if r >= 0 and r != i:
            ws[r0 + L_NEXT, i] = ws[r0 + L_NEXT, r]
            ws[r0 + L_NEXT, r] = i
    for k in range(1, 8):
        ws[r0 + L_INFO, I_OFF + k] += ws[r0 + L_INFO, I_OFF + k - 1]
    # insertion into each colour's segment, largest first (fill counts reuse the position-max columns)
    for k in range(7):
        ws[r0 + L_INFO, I_PMAX + k] = ws[r0 + L_INFO, I_OFF + k]
    for i in range(n):
        if ws[r0 + L_ROOT, i] != i:
            continue
        c = _colour(land, sym, only, cx[i], cy[i])
        lo = ws[r0 + L_INFO, I_OFF + c]
        pos = ws[r0 + L_INFO, I_PMAX + c]
        ws[r0 + L_INFO, I_PMAX + c] = pos + 1
        sz = ws[r0 + L_SIZE, i]
        while pos > lo and ws[r0 + L_SIZE, ws[r0 + L_ORD, pos - 1]] < sz:
            ws[r0 + L_ORD, pos] = ws[r0 + L_ORD, pos - 1]
            pos -= 1
        ws[r0 + L_ORD, pos] = i


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _position_layer(land, sym, idx, only, x, y, ws, r0, n_colours):
    """Split the components that the card at (x, y) covers; max untouched/piece size per colour."""
    nb = 0
    for p in range(4):
        j = idx[y + (p >> 1), x + (p & 1)]
        if j < 0:
            continue
        r = ws[r0 + L_ROOT, j]
        if r < 0:
            continue
        dup = False
        for k in range(nb):
            if ws[r0 + L_INFO, I_BROKEN + k] == r:
                dup = True
        if not dup:
            ws[r0 + L_INFO, I_BROKEN + nb] = r
            nb += 1
    ws[r0 + L_INFO, I_NBROKEN] = nb
    for c in range(n_colours):
        m = 0
        for q in range(ws[r0 + L_INFO, I_OFF + c], ws[r0 + L_INFO, I_OFF + c + 1]):
            r = ws[r0 + L_ORD, q]
            hit = False
            for k in range(nb):
                if ws[r0 + L_INFO, I_BROKEN + k] == r:
                    hit = True
            if not hit:
                m = ws[r0 + L_SIZE, r]
                break
        ws[r0 + L_INFO, I_PMAX + c] = m
    return nb


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _piece_step(idx, qx, qy, x, y, ws, r0, r, st):
    """One flood step of ``_flood_broken``: cell (qx, qy) if it belongs to component r, lies outside the
    card at (x, y) and is not yet marked with stamp st (it is then marked), else -1."""
    j = idx[qy, qx]
    if j < 0 or ws[r0 + L_ROOT, j] != r or ws[r0 + L_MARK, j] == st:
        return -1
    if qx - x >= 0 and qx - x <= 1 and qy - y >= 0 and qy - y <= 1:
        return -1
    ws[r0 + L_MARK, j] = st
    return j


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _flood_broken(land, sym, idx, cx, cy, only, x, y, ws, r0):
    """Pieces of each broken component (its cells outside the card): sizes, and labels of the edge cells.

    Every piece holds one of the card's 8 outside edge neighbours (the component was connected
    through the covered cells), and only those cells' labels are ever looked up.  So one edge cell
    means one piece of known size without any flood; otherwise a breadth-first flood from the first
    edge cell stops once it has reached all of them (one piece, again of known size) and only a real
    split floods every piece.  A piece whose members are "the component minus the card" keeps head
    -2 - root; a flooded piece keeps a member chain (walked by the near-group goals).
    """
    nb = ws[r0 + L_INFO, I_NBROKEN]
    npc = 0
    for k in range(nb):
        r = ws[r0 + L_INFO, I_BROKEN + k]
        c = _colour(land, sym, only, cx[r], cy[r])
        covered = 0
        for p in range(4):
            j = idx[y + (p >> 1), x + (p & 1)]
            if j >= 0 and ws[r0 + L_ROOT, j] == r:
                covered += 1
        ne = 0
        for e in range(8):
            j = idx[y + EDGE_DY[e], x + EDGE_DX[e]]
            if j >= 0 and ws[r0 + L_ROOT, j] == r:
                ws[NODE_ROW + 3, 64 + ne] = j
                ne += 1
        if ne == 0:
            continue
        rest = ws[r0 + L_SIZE, r] - covered
        if ne > 1:
            st = _stamp_next(ws)
            e0 = ws[NODE_ROW + 3, 64]
            ws[r0 + L_MARK, e0] = st
            ws[STACK_ROW, 0] = e0
            head = 0
            tail = 1
            found = 1
            while head < tail and found < ne:
                e = ws[STACK_ROW, head]
                head += 1
                for d in range(1, 5):
                    j = _piece_step(idx, cx[e] + TW.NB_DX[d], cy[e] + TW.NB_DY[d], x, y, ws, r0, r, st)
                    if j < 0:
                        continue
                    ws[STACK_ROW, tail] = j
                    tail += 1
                    for u in range(1, ne):
                        if ws[NODE_ROW + 3, 64 + u] == j:
                            found += 1
            if found < ne:
                # a real split: flood every piece to the end, with member chains
                st = _stamp_next(ws)
                for u in range(ne):
                    e0 = ws[NODE_ROW + 3, 64 + u]
                    if ws[r0 + L_MARK, e0] == st:
                        continue
                    ws[r0 + L_MARK, e0] = st
                    ws[r0 + L_PSIZE, PIECE + npc] = c
                    ws[r0 + L_PNEXT, PIECE + npc] = -1
                    ws[STACK_ROW, 0] = e0
                    top = 1
                    sz = 0
                    while top > 0:
                        top -= 1
                        e = ws[STACK_ROW, top]
                        sz += 1
                        ws[r0 + L_PLAB, e] = npc
                        ws[r0 + L_PNEXT, e] = ws[r0 + L_PNEXT, PIECE + npc]
                        ws[r0 + L_PNEXT, PIECE + npc] = e
                        for d in range(1, 5):
                            j = _piece_step(idx, cx[e] + TW.NB_DX[d], cy[e] + TW.NB_DY[d], x, y, ws, r0, r, st)
                            if j < 0:
                                continue
                            ws[STACK_ROW, top] = j
                            top += 1
                    ws[r0 + L_PSIZE, npc] = sz
                    if sz > ws[r0 + L_INFO, I_PMAX + c]:
                        ws[r0 + L_INFO, I_PMAX + c] = sz
                    npc += 1
                continue
        # one piece: the component minus the card
        for u in range(ne):
            ws[r0 + L_PLAB, ws[NODE_ROW + 3, 64 + u]] = npc
        ws[r0 + L_PSIZE, npc] = rest
        ws[r0 + L_PSIZE, PIECE + npc] = c
        ws[r0 + L_PNEXT, PIECE + npc] = -2 - r
        if rest > ws[r0 + L_INFO, I_PMAX + c]:
            ws[r0 + L_INFO, I_PMAX + c] = rest
        npc += 1
    ws[r0 + L_INFO, I_NPIECE] = npc


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _label_of(ws, r0, j):
    """Label of base cell j outside the card: its root, or PIECE + piece if its component is broken."""
    r = ws[r0 + L_ROOT, j]
    for k in range(ws[r0 + L_INFO, I_NBROKEN]):
        if ws[r0 + L_INFO, I_BROKEN + k] == r:
            return PIECE + ws[r0 + L_PLAB, j]
    return r


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _label_size(ws, r0, lab):
    if lab >= PIECE:
        return ws[r0 + L_PSIZE, lab - PIECE]
    return ws[r0 + L_SIZE, lab]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _edge_labels(land, sym, idx, only, x, y, ws, r0):
    """Colour, label and label size of the 8 outside edge cells, shared by both rotations."""
    for e in range(8):
        qx = x + EDGE_DX[e]
        qy = y + EDGE_DY[e]
        j = idx[qy, qx]
        c = np.int64(-1)
        if j >= 0:
            c = _colour(land, sym, only, qx, qy)
        ws[r0 + L_INFO, I_ECOL + e] = c
        if c >= 0:
            lab = _label_of(ws, r0, j)
            ws[r0 + L_INFO, I_ELAB + e] = lab
            ws[r0 + L_INFO, I_ESIZE + e] = _label_size(ws, r0, lab)
    # the most cells of each colour the card's cells can join (bound): every distinct edge label once
    for c in range(TW.N_LANDS):
        ws[r0 + L_INFO, I_EJOIN + c] = 0
    for e in range(8):
        c = ws[r0 + L_INFO, I_ECOL + e]
        if c < 0:
            continue
        lab = ws[r0 + L_INFO, I_ELAB + e]
        dup = False
        for f in range(e):
            if ws[r0 + L_INFO, I_ECOL + f] >= 0 and ws[r0 + L_INFO, I_ELAB + f] == lab:
                dup = True
        if not dup:
            ws[r0 + L_INFO, I_EJOIN + c] += ws[r0 + L_INFO, I_ESIZE + e]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _join(land, sym, idx, only, x, y, cc0, cc1, cc2, cc3, ws, r0):
    """Union-find of the card's 4 cells (colours cc*) with the labels on their outside neighbours.

    Nodes 0..3 are the card's cells, 4.. the labels; returns the node count.  NODE_ROW rows:
    label, parent, size; group sizes are summed into row NODE_ROW + 3 at each root.
    """
    nl = NODE_ROW
    npar = NODE_ROW + 1
    nsz = NODE_ROW + 2
    gs = NODE_ROW + 3
    for p in range(4):
        ws[npar, p] = p
        ws[nl, p] = -1
    ws[nsz, 0] = 1 if cc0 >= 0 else 0
    ws[nsz, 1] = 1 if cc1 >= 0 else 0
    ws[nsz, 2] = 1 if cc2 >= 0 else 0
    ws[nsz, 3] = 1 if cc3 >= 0 else 0
    if cc0 >= 0 and cc0 == cc1:
        ws[npar, 0] = 1
    if cc2 >= 0 and cc2 == cc3:
        ws[npar, 2] = 3
    if cc0 >= 0 and cc0 == cc2:
        a = TW.find(ws, npar, np.int64(0))
        b = TW.find(ws, npar, np.int64(2))
        if a != b:
            ws[npar, a] = b
    if cc1 >= 0 and cc1 == cc3:
        a = TW.find(ws, npar, np.int64(1))
        b = TW.find(ws, npar, np.int64(3))
        if a != b:
            ws[npar, a] = b
    nn = 4
    for e in range(8):
        p = EDGE_P[e]
        c = _pick(p, cc0, cc1, cc2, cc3)
        if c < 0:
            continue
        if ws[r0 + L_INFO, I_ECOL + e] != c:
            continue
        lab = ws[r0 + L_INFO, I_ELAB + e]
        node = -1
        for k in range(4, nn):
            if ws[nl, k] == lab:
                node = k
        if node < 0:
            node = nn
            ws[nl, node] = lab
            ws[npar, node] = node
            ws[nsz, node] = ws[r0 + L_INFO, I_ESIZE + e]
            nn += 1
        a = TW.find(ws, npar, p)
        b = TW.find(ws, npar, node)
        if a != b:
            ws[npar, a] = b
    for k in range(nn):
        ws[gs, k] = 0
    for k in range(nn):
        r = TW.find(ws, npar, k)
        ws[npar, k] = r
        ws[gs, r] += ws[nsz, k]
    return nn


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _stamp_next(ws):
    s = ws[STAMP_ROW, FS_WIDTH - 1] + 1
    ws[STAMP_ROW, FS_WIDTH - 1] = s
    return s


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _weigh_cell(sym, idx, ws, st, wrow, x, y):
    """Weight of the symbols on or next to cell (x, y) not yet counted under stamp st."""
    w = 0
    for d in range(5):
        qx = x + TW.NB_DX[d]
        qy = y + TW.NB_DY[d]
        j = idx[qy, qx]
        if j >= 0 and ws[STAMP_ROW, j] != st:
            ws[STAMP_ROW, j] = st
            w += ws[wrow, 64 + sym[qy, qx]]
    return w


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _weigh_label(sym, idx, cx, cy, x, y, ws, r0, lab, st, wrow):
    """Walk a label's cells (a base component, a flooded piece, or a component minus the card at (x, y))."""
    w = 0
    if lab >= PIECE:
        m = ws[r0 + L_PNEXT, lab]  # PIECE + piece index = head column
        if m <= -2:
            m = -2 - m
            while m >= 0:
                mx = cx[m]
                my = cy[m]
                if not (mx - x >= 0 and mx - x <= 1 and my - y >= 0 and my - y <= 1):
                    w += _weigh_cell(sym, idx, ws, st, wrow, mx, my)
                m = ws[r0 + L_NEXT, m]
            return w
        while m >= 0:
            w += _weigh_cell(sym, idx, ws, st, wrow, cx[m], cy[m])
            m = ws[r0 + L_PNEXT, m]
    else:
        m = lab
        while m >= 0:
            w += _weigh_cell(sym, idx, ws, st, wrow, cx[m], cy[m])
            m = ws[r0 + L_NEXT, m]
    return w


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _near_value(land, sym, idx, cx, cy, x, y, ws, nn, best, lnd, wrow, saved, cc0, cc1, cc2, cc3):
    """Best weight among the tied largest land-lnd groups after the card (town.score's choice)."""
    r0 = LAND_LAYER
    top = -(1 << 40)
    nb = ws[r0 + L_INFO, I_NBROKEN]
    # (a) untouched base components: base weight, corrected on the card's cells next to them
    for q in range(ws[r0 + L_INFO, I_OFF + lnd], ws[r0 + L_INFO, I_OFF + lnd + 1]):
        r = ws[r0 + L_ORD, q]
        if ws[r0 + L_SIZE, r] != best:
            if ws[r0 + L_SIZE, r] < best:
                break
            continue
        skip = False
        for k in range(nb):
            if ws[r0 + L_INFO, I_BROKEN + k] == r:
                skip = True
        for k in range(4, nn):
            if ws[NODE_ROW, k] == r:
                skip = True
        if skip:
            continue
        w = ws[wrow, r]
        for p in range(4):
            px = x + (p & 1)
            py = y + (p >> 1)
            adj = False
            for e in range(2 * p, 2 * p + 2):
                j = idx[y + EDGE_DY[e], x + EDGE_DX[e]]
                if j >= 0 and ws[r0 + L_ROOT, j] == r:
                    adj = True
            if adj:
                w += ws[wrow, 64 + sym[py, px]]
                if saved[TW.SAVED_SYM + p] >= 0:
                    w -= ws[wrow, 64 + saved[TW.SAVED_SYM + p]]
        if w > top:
            top = w
    # (b) pieces of broken components that no card cell joined
    for k in range(ws[r0 + L_INFO, I_NPIECE]):
        if ws[r0 + L_PSIZE, k] != best or ws[r0 + L_PSIZE, PIECE + k] != lnd:
            continue
        joined = False
        for u in range(4, nn):
            if ws[NODE_ROW, u] == PIECE + k:
                joined = True
        if joined:
            continue
        st = _stamp_next(ws)
        w = _weigh_label(sym, idx, cx, cy, x, y, ws, r0, PIECE + k, st, wrow)
        if w > top:
            top = w
    # (c) groups through the card's cells
    for p in range(4):
        c = _pick(p, cc0, cc1, cc2, cc3)
        if c != lnd:
            continue
        g = ws[NODE_ROW + 1, p]
        if ws[NODE_ROW + 3, g] != best:
            continue
        first = True
        for u in range(p):
            if ws[NODE_ROW + 1, u] == g:
                first = False
        if not first:
            continue
        st = _stamp_next(ws)
        w = 0
        for u in range(nn):
            if ws[NODE_ROW + 1, u] != g:
                continue
            if u < 4:
                w += _weigh_cell(sym, idx, ws, st, wrow, x + (u & 1), y + (u >> 1))
            else:
                w += _weigh_label(sym, idx, cx, cy, x, y, ws, r0, ws[NODE_ROW, u], st, wrow)
        if w > top:
            top = w
    return top


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _local_points(kind, s, s2, lnd, a, b, land, sym, idx, x, y):
    """Points one cell earns for a goal whose rule reads only the cell and its 4 neighbours."""
    if kind == TW.K_ENCLOSED:
        if idx[y, x] < 0 and idx[y, x - 1] >= 0 and idx[y, x + 1] >= 0 and idx[y - 1, x] >= 0 \
                and idx[y + 1, x] >= 0:
            return a
        return 0
    if sym[y, x] != s:
        return 0
    if kind == TW.K_BETWEEN:
        return a if land[y, x - 1] == lnd and land[y, x + 1] == lnd else 0
    if kind == TW.K_AWAY:
        if land[y, x] == lnd:
            return 0
        near = land[y, x - 1] == lnd or land[y, x + 1] == lnd or land[y - 1, x] == lnd or land[y + 1, x] == lnd
        return 0 if near else a
    if kind == TW.K_NEXT:
        near = sym[y, x - 1] == s2 or sym[y, x + 1] == s2 or sym[y - 1, x] == s2 or sym[y + 1, x] == s2
        return a if near else b
    if kind == TW.K_ON:
        return a if land[y, x] == lnd else 0
    # K_ISOLATED
    near = sym[y, x - 1] == s or sym[y, x + 1] == s or sym[y - 1, x] == s or sym[y + 1, x] == s
    return 0 if near else a


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _is_local(kind):
    return (kind == TW.K_BETWEEN or kind == TW.K_AWAY or kind == TW.K_NEXT or kind == TW.K_ON
            or kind == TW.K_ISOLATED or kind == TW.K_ENCLOSED)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def local_table(land, sym, idx, cx, cy, n, gp, row, ws, r):
    """Goal ``row``'s points of each base cell i into ws[r, i] (a local goal other than enclosed: its cells
    are town cells), so that a spot's old points are read, not recomputed (here and in ``fast.py``)."""
    for i in range(n):
        ws[r, i] = _local_points(gp[row, TW.GP_KIND], gp[row, TW.GP_SYM], gp[row, TW.GP_SYM2], gp[row, TW.GP_LAND],
                                 gp[row, TW.GP_A], gp[row, TW.GP_B], land, sym, idx, cx[i], cy[i])


@njit(cache=True, nogil=True, _nrt=False)
def prepare(land, sym, idx, cx, cy, n, goals, gp, opp_cnt, with_goals, ws, detail):
    """Analyse the base town once per search; returns the number of layers."""
    TW.score(land, sym, idx, cx, cy, n, goals, gp, opp_cnt, with_goals, ws, detail)
    ng = goals.shape[0]
    # base symbol and land counts (score left them in ws[5])
    for k in range(12):
        ws[OLD_ROW, 32 + k] = ws[5, k]
    for g in range(ng):
        ws[OLD_ROW, g] = detail[TW.N_LANDS + g]
        ws[OLD_ROW, 8 + g] = -1
        ws[OLD_ROW, 16 + g] = -1
    _label_layer(land, sym, idx, cx, cy, n, np.int64(-1), ws, LAND_LAYER)
    nlay = 1
    if not with_goals:
        return nlay
    nnear = 0
    for g in range(ng):
        row = goals[g]
        kind = gp[row, TW.GP_KIND]
        if _is_local(kind) and kind != TW.K_ENCLOSED:
            # (an enclosed space is an empty cell: ``position`` computes those)
            local_table(land, sym, idx, cx, cy, n, gp, row, ws, LOCAL_ROW + g)
        elif kind == TW.K_CLUSTER:
            _label_layer(land, sym, idx, cx, cy, n, gp[row, TW.GP_SYM], ws, LAYER_ROW0 + nlay * LAYER_ROWS)
            ws[OLD_ROW, 8 + g] = nlay
            nlay += 1
        elif kind == TW.K_NEAR:
            lnd = gp[row, TW.GP_LAND]
            slot = -1
            for h in range(g):
                if gp[goals[h], TW.GP_KIND] == TW.K_NEAR and gp[goals[h], TW.GP_LAND] == lnd:
                    slot = -2  # counted with the first near goal on this land
            if slot == -2:
                ws[OLD_ROW, 16 + g] = -2
                continue
            wrow = NEAR_ROW0 + nnear
            ws[OLD_ROW, 16 + g] = wrow
            nnear += 1
            for s in range(TW.N_SYMBOLS):
                ws[wrow, 64 + s] = 0
            for h in range(g, ng):
                rh = goals[h]
                if gp[rh, TW.GP_KIND] == TW.K_NEAR and gp[rh, TW.GP_LAND] == lnd:
                    ws[wrow, 64 + gp[rh, TW.GP_SYM]] += gp[rh, TW.GP_A]
            r0 = LAND_LAYER
            top = 0
            neg = False
            for q in range(TW.N_SYMBOLS):
                neg = neg or ws[wrow, 64 + q] < 0
            for q in range(ws[r0 + L_INFO, I_OFF + lnd], ws[r0 + L_INFO, I_OFF + lnd + 1]):
                r = ws[r0 + L_ORD, q]
                st = _stamp_next(ws)
                ws[wrow, r] = _weigh_label(sym, idx, cx, cy, np.int64(-9), np.int64(-9), ws, r0, r, st, wrow)
                top = max(top, ws[wrow, r])
            ws[wrow, W_MAX] = top
            ws[wrow, W_NEG] = neg
    return nlay


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def position(land, sym, idx, cx, cy, x, y, goals, gp, nlay, with_goals, ws):
    """Work shared by both rotations at (x, y): split components, old local goal points."""
    lands = np.int64(-1)  # typed values, not literals: one compiled copy of each helper (see LAND_LAYER)
    _position_layer(land, sym, idx, lands, x, y, ws, LAND_LAYER, np.int64(TW.N_LANDS))
    _flood_broken(land, sym, idx, cx, cy, lands, x, y, ws, LAND_LAYER)
    _edge_labels(land, sym, idx, lands, x, y, ws, LAND_LAYER)
    if not with_goals:
        return
    ng = goals.shape[0]
    for g in range(ng):
        row = goals[g]
        kind = gp[row, TW.GP_KIND]
        lay = ws[OLD_ROW, 8 + g]
        if lay > 0:
            s = gp[row, TW.GP_SYM]
            r0 = LAND_LAYER + lay * LAYER_ROWS
            _position_layer(land, sym, idx, s, x, y, ws, r0, np.int64(1))
            _flood_broken(land, sym, idx, cx, cy, s, x, y, ws, r0)
            _edge_labels(land, sym, idx, s, x, y, ws, r0)
        elif _is_local(kind):
            # outside edge cells whose points can change: those showing S (the between goal reads only
            # left and right, so only the 4 side cells), empty ones for enclosed spaces; none for on-land
            sg = gp[row, TW.GP_SYM]
            mask = 0
            if kind != TW.K_ON:
                for e in range(8):
                    qx = x + EDGE_DX[e]
                    qy = y + EDGE_DY[e]
                    if kind == TW.K_ENCLOSED:
                        rel = idx[qy, qx] < 0
                    elif kind == TW.K_BETWEEN:
                        rel = sym[qy, qx] == sg and (e & 1) == 0
                    else:
                        rel = sym[qy, qx] == sg
                    if rel:
                        mask |= 1 << e
            ws[OLD_ROW, 48 + g] = mask
            old = 0
            for k in range(12):
                if k >= 4 and (mask >> (k - 4)) & 1 == 0:
                    continue
                if kind == TW.K_ENCLOSED:
                    old += _local_points(kind, sg, gp[row, TW.GP_SYM2], gp[row, TW.GP_LAND],
                                         gp[row, TW.GP_A], gp[row, TW.GP_B], land, sym, idx, x + AREA_DX[k],
                                         y + AREA_DY[k])
                else:
                    j = idx[y + AREA_DY[k], x + AREA_DX[k]]
                    if j >= 0:
                        old += ws[LOCAL_ROW + g, j]
            ws[OLD_ROW, 24 + g] = old


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _goal(goals, gp, g):
    """Kind, symbol, land, a and b of the goal in play at slot g."""
    row = goals[g]
    return gp[row, TW.GP_KIND], gp[row, TW.GP_SYM], gp[row, TW.GP_LAND], gp[row, TW.GP_A], gp[row, TW.GP_B]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _count_points(kind, s, lnd, a, b, card_land, card_sym, opp_cnt, ws, saved):
    """Points of a count goal (majorities, symbol minus land) with the card placed: base counts
    corrected by the 4 covered cells (``saved``) and the card's cells, whatever its rotation."""
    cs = ws[OLD_ROW, 32 + s] if s >= 0 else 0
    cland = ws[OLD_ROW, 38 + lnd] if lnd >= 0 else 0
    for p in range(4):
        if saved[TW.SAVED_SYM + p] == s:
            cs -= 1
        if saved[TW.SAVED_LAND + p] == lnd:
            cland -= 1
        if card_sym[p] == s:
            cs += 1
        if card_land[p] == lnd:
            cland += 1
    if kind == TW.K_MAJ_PEN:
        return a * opp_cnt[s] if cs > opp_cnt[s] else 0
    if kind == TW.K_MAJ_BON:
        return a if cs > opp_cnt[s] else 0
    return a * cs + b * cland


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _local_change(land, sym, idx, x, y, goals, gp, ws):
    """Points of all local goals with the card's cells as they are now written: base points minus the
    old and plus the new points of the cells that can change (the card's 4 and the masked edge cells)."""
    pts = 0
    for g in range(goals.shape[0]):
        row = goals[g]
        kind = gp[row, TW.GP_KIND]
        if not _is_local(kind):
            continue
        new = 0
        mask = ws[OLD_ROW, 48 + g]
        for k in range(12):
            if k >= 4 and (mask >> (k - 4)) & 1 == 0:
                continue
            new += _local_points(kind, gp[row, TW.GP_SYM], gp[row, TW.GP_SYM2], gp[row, TW.GP_LAND], gp[row, TW.GP_A],
                                 gp[row, TW.GP_B], land, sym, idx, x + AREA_DX[k], y + AREA_DY[k])
        pts += ws[OLD_ROW, g] + new - ws[OLD_ROW, 24 + g]
    return pts


@njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def value(land, sym, idx, cx, cy, x, y, card_land, card_sym, rot, goals, gp, opp_cnt, with_goals, gw, ws,
          saved):
    """Value of the town with the card already placed at (x, y, rot): what ``policies.evaluate`` returns."""
    t0 = 0 if rot == 0 else 3
    t1 = 1 if rot == 0 else 2
    t2 = 2 if rot == 0 else 1
    t3 = 3 if rot == 0 else 0
    cl0 = np.int64(card_land[t0])
    cl1 = np.int64(card_land[t1])
    cl2 = np.int64(card_land[t2])
    cl3 = np.int64(card_land[t3])
    r0 = LAND_LAYER
    nn = _join(land, sym, idx, np.int64(-1), x, y, cl0, cl1, cl2, cl3, ws, LAND_LAYER)
    for c in range(TW.N_LANDS):
        ws[r0 + L_INFO, 24 + c] = ws[r0 + L_INFO, I_PMAX + c]
    for p in range(4):
        c = _pick(p, cl0, cl1, cl2, cl3)
        gsz = ws[NODE_ROW + 3, ws[NODE_ROW + 1, p]]
        if gsz > ws[r0 + L_INFO, 24 + c]:
            ws[r0 + L_INFO, 24 + c] = gsz
    lands = 0
    for c in range(TW.N_LANDS):
        lands += ws[r0 + L_INFO, 24 + c]
    if not with_goals:
        return float(lands)
    ng = goals.shape[0]
    pts = 0
    has_local = False
    # near goals first: they read the land layer's union-find, which cluster layers overwrite
    for g in range(ng):
        wrow = ws[OLD_ROW, 16 + g]
        if wrow < NEAR_ROW0:
            continue
        lnd = gp[goals[g], TW.GP_LAND]
        best = ws[r0 + L_INFO, 24 + lnd]
        if best > 0:
            pts += _near_value(land, sym, idx, cx, cy, x, y, ws, nn, best, lnd, wrow, saved, cl0, cl1, cl2, cl3)
    for g in range(ng):
        kind, s, lnd, a, b = _goal(goals, gp, g)
        if kind == TW.K_CLUSTER:
            lay = ws[OLD_ROW, 8 + g]
            rl = LAYER_ROW0 + lay * LAYER_ROWS
            c0 = np.int64(0) if card_sym[t0] == s else np.int64(-1)
            c1 = np.int64(0) if card_sym[t1] == s else np.int64(-1)
            c2 = np.int64(0) if card_sym[t2] == s else np.int64(-1)
            c3 = np.int64(0) if card_sym[t3] == s else np.int64(-1)
            big = ws[rl + L_INFO, I_PMAX]
            if c0 >= 0 or c1 >= 0 or c2 >= 0 or c3 >= 0:  # else no card cell joins anything
                _join(land, sym, idx, s, x, y, c0, c1, c2, c3, ws, rl)
                for p in range(4):
                    gsz = ws[NODE_ROW + 3, ws[NODE_ROW + 1, p]]
                    if gsz > big:
                        big = gsz
            pts += a * big
        elif kind == TW.K_LAND_GROUP:
            pts += a * ws[r0 + L_INFO, 24 + lnd]
        elif kind == TW.K_MAJ_PEN or kind == TW.K_MAJ_BON or kind == TW.K_MINUS:
            pts += _count_points(kind, s, lnd, a, b, card_land, card_sym, opp_cnt, ws, saved)
        elif _is_local(kind):
            has_local = True
    if has_local:
        pts += _local_change(land, sym, idx, x, y, goals, gp, ws)
    return float(lands) + gw * float(pts)
