"""The ``fast`` placement policy: each spot's gain estimated from the 12 cells around the card, no floods.

Exact greedy placement (``search.py``) values every legal spot exactly, which needs the components a
card may split at each spot.  ``fast`` labels the town's groups once per search (``prepare``: a
union-find over at most 60 cells, with bit rows of the largest groups and of what each goal looks for)
and then works in two stages:

1. ``_quick`` ranks every legal spot and rotation by an integer read from bit rows and the grid, no
   flood, no memory written: each card cell counts 1 when the card's cells of its land touch that
   land's largest group (or the land is new to the town), a covered cell of a largest group shown as
   another land counts -1, the covered cells' goal points are taken off, and per goal a card cell
   showing its symbol gains or loses the goal's points next to an edge cell that changes what it earns.
   The rank is read from words packed per land (nibble c, bit p: card cell p): each card and rotation's
   lands once per search (``_card_words``), each spot's edge and covered cells once for all the cards
   (``_touch``, ``_cover``), so a card costs a few word operations per spot.  Each spot's words are kept
   (R_SPOT) for the next search of the same, unchanged town, which then reads them instead.
2. The ``TOP`` best-ranked spots of each card are valued by ``gain`` after ``_position``, reading the
   card's 4 cells and their 8 outside edge neighbours (the cells' local goal points come from
   ``prepare``).  The kept spots of all the cards are valued in one pass in scan order, so a position
   kept for several cards or rotations is read once:

   - Land groups: the card's cells of one land count as one group, joined with each distinct same-land
     group on the edge cells next to them (those groups' cells under the card taken off); a covered
     group is assumed not to split.  A land's largest group is the larger of that and the largest base
     group after its covered cells are taken off (or the second largest).
   - Goals that read a cell and its 4 neighbours (between, away, next-to, on-land, isolated, enclosed)
     and the count goals (majorities, symbol minus land) are exact: the card cells' new points, the
     edge cells' change (each touches one card cell) and the covered cells' lost points.
   - ``land_group_bonus`` follows the land estimate; ``symbol_largest_cluster`` is estimated like a land
     (the card's cells showing the symbol join the clusters next to them); ``symbol_near_largest_group``
     counts the card's symbols on the land's group through the card when that group is the largest, or
     next to the base largest group, less the covered ones that counted.

A spot's value is its estimated gain (the town before the card counts 0), lands + goal_weight x goals;
ties keep the first spot in scan order, as exact greedy does.

``quick`` (``search``'s argument ``quick``; placement = "quick") stops after stage 1: each card goes to
its best first-ranked spot and rotation, valued lands + goal_weight x the goal terms of that ranking.
It shares ``prepare`` and the kept spot words with ``fast`` and skips stage 2, which held ~35% of a
search's time; it is ~1.6x fast's games per CPU-second and further from greedy (57.2% same value, 0.857
points lost per placement, 18.0% head to head against greedy, against fast's 72.9%, 0.462 and 37.6%).

``benchmarks/bench_wagons_fast.py`` measures, for both, how often they pick a spot of greedy's exact
value and what it costs a player.  Scratch: rows
SR.FS_ROWS..WS_ROWS-1 of the engine's ``ws``, after exact search's rows, so that ``prepare``'s analysis of a
town survives other work on ``ws`` and the next search of the same, unchanged town reuses it (R_KEY).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.wagons import search as SR
from boardsim.games.wagons import town as TW

FI = dict(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
NEG = -1.0e18
# ws rows, after exact search's (SR.FS_ROWS): nothing but this module writes them, so ``prepare``'s rows
# still hold a town's analysis when the next search of that town comes (R_KEY says which town).  Land
# groups: union-find parent, root per cell, size per root.  One cluster goal's symbol groups take 3 rows
# of their own (at most 3 goals).
_B = SR.FS_ROWS
R_PAR, R_ROOT, R_SIZE = _B, _B + 1, _B + 2
R_CLUSTER = _B + 3  # + 3 * g: parent, root, size for goal slot g
R_BASE = _B + 12  # base town: counts, largest groups, goal base points
R_POS = _B + 13  # per position: the card-independent reading
R_EDGE = _B + 14  # + g: per local goal, its masked edge cells' old points and other-neighbour flag
R_LAYER = _B + 17  # + layer (0 lands, 1 + g clusters): per position edge colour, root, size, dup mask; rest
R_CARD = _B + 21  # per card and rotation: group sums per first card cell, new largest per land
R_OCC = _B + 22  # occupancy bits per grid row
R_BIG = _B + 39  # per grid row: bits of the cells in their land's largest group
R_MARK = _B + 40  # + g: per grid row, bits of the cells goal g's first-ranking term looks for (_marked)
R_CELL = _B + 38  # per cell: its goal points that covering it may lose (the first ranking)
R_TOP = _B + 23  # + k: card k's best first-ranked spots, 4 columns each: rank value, scan order, rotation
TOP = 4
T_MIN = 4 * TOP  # R_TOP column: the worst value kept
T_WORDS = T_MIN + 1  # R_TOP columns: per rotation, the card's _card_words and goal symbol masks (3 each)
R_LOC = R_MARK + 3  # + g: per cell, the points it holds for local or near goal g (what covering it loses)
R_SORT = R_LOC + 3  # the kept spots of all cards in scan order
R_KEY = R_SORT + 1  # the town and goals ``prepare`` analysed last (_same_town)
R_SPOT = R_KEY + 1  # + 2 * block: that town's legal spots' first-ranking words (2 rows a block of SR.FS_WIDTH)
SPOT_BLOCKS = 3
SPOT_CAP = SPOT_BLOCKS * SR.FS_WIDTH  # a town with more legal spots than this keeps none
WS_ROWS = R_SPOT + 2 * SPOT_BLOCKS  # the rows of the engine's ws (state.new_state): exact search's, then these
# R_KEY columns: cell count, bounding box, with_goals, goal count, the goals' parameter rows, the number of
# spots in R_SPOT (-1: none kept yet), the cells
K_N, K_META, K_WITH, K_NG, K_GP, K_SPOTS, K_CELLS = 0, 1, 5, 6, 7, 26, 32
if K_GP + 3 * TW.GP_B + 3 > K_SPOTS or K_CELLS + TW.MAX_CELLS > SR.FS_WIDTH:
    raise ImportError("fast.py's R_KEY columns do not fit in search.FS_WIDTH")
SECOND_COL = TW.MAX_CELLS  # a cluster's second largest, in its size row past the cells
# R_BASE columns
B_SYM, B_LAND, B_BEST, B_ROOT, B_SECOND, B_GOAL, B_NEAR = 0, 6, 12, 18, 24, 30, 33
# R_POS columns: covered cells' land 0..3 and symbol 4..7, edge cells' land 8..15 and symbol 16..23,
# lands' change from covering alone 24, per goal: old points 25.., edge mask 28.., constant gain 31..
P_CLAND, P_CSYM, P_ELAND, P_ESYM, P_LOSS, P_OLD, P_MASK, P_CONST = 0, 4, 8, 16, 24, 25, 28, 31
# R_LAYER columns: edge root 0..7, size less covered 8..15, dup mask 16..23, covered roots 24..27,
# largest group after covering, per colour 28..33
L_ROOT, L_SIZE, L_DUP, L_COV, L_REST = 0, 8, 16, 24, 28


@njit(**FI)
def _union_find(land, sym, idx, cx, cy, n, s, ws, r0):
    """Label edge-connected groups of cells: of one land each (s < 0), or of the cells showing s."""
    for i in range(n):
        ws[r0, i] = i
        ws[r0 + 2, i] = 0
    for i in range(n):
        x = cx[i]
        y = cy[i]
        if s < 0:
            c = land[y, x]
            right = land[y, x + 1] == c
            down = land[y + 1, x] == c
        else:
            if sym[y, x] != s:
                continue
            right = sym[y, x + 1] == s
            down = sym[y + 1, x] == s
        if right:
            _join(ws, r0, i, idx[y, x + 1])
        if down:
            _join(ws, r0, i, idx[y + 1, x])
    for i in range(n):
        r = TW.find(ws, r0, i)
        ws[r0 + 1, i] = r
        ws[r0 + 2, r] += 1


@njit(**FI)
def _join(ws, r0, a, b):
    ra = TW.find(ws, r0, a)
    rb = TW.find(ws, r0, b)
    if ra != rb:
        ws[r0, ra] = rb


@njit(cache=True, nogil=True, _nrt=False)
def prepare(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, with_goals, ws):
    """Label the base town's groups and take its counts and goal base points, once per search.

    A town that ``prepare`` read last, unchanged, with the same goals, is not read again: only the
    majority goals' base points, which depend on the opponent's counts, are taken anew.  In a draft the
    opponent's town is searched for gifts, then searched for its own gains on the opponent's turn; when no
    card was skipped to it in between, that second search reuses the first one's analysis.
    """
    if _same_town(land, sym, cx, cy, meta, goals, gp, with_goals, ws):
        if with_goals:
            _majority_points(goals, gp, opp_cnt, ws)
        return
    _remember(land, sym, cx, cy, meta, goals, gp, with_goals, ws)
    n = meta[TW.META_N]
    for k in range(B_NEAR + 3):
        ws[R_BASE, k] = 0
    for c in range(TW.N_LANDS):
        ws[R_BASE, B_ROOT + c] = -1
    _union_find(land, sym, idx, cx, cy, n, np.int64(-1), ws, R_PAR)
    for i in range(n):
        x = cx[i]
        y = cy[i]
        ws[R_BASE, B_SYM + sym[y, x]] += 1
        ws[R_BASE, B_LAND + land[y, x]] += 1
        if ws[R_ROOT, i] != i:
            continue
        c = land[y, x]
        sz = ws[R_SIZE, i]
        if sz > ws[R_BASE, B_BEST + c]:
            ws[R_BASE, B_SECOND + c] = ws[R_BASE, B_BEST + c]
            ws[R_BASE, B_BEST + c] = sz
            ws[R_BASE, B_ROOT + c] = i
        elif sz > ws[R_BASE, B_SECOND + c]:
            ws[R_BASE, B_SECOND + c] = sz
    # occupancy rows for the legal spots (a card may sit up to 2 rows above or below the town)
    TW.occupancy(cx, cy, n, meta[TW.META_Y0] - 3, meta[TW.META_Y1] + 3, ws[R_OCC])
    for y in range(meta[TW.META_Y0] - 3, meta[TW.META_Y1] + 4):
        ws[R_BIG, y] = 0
    for i in range(n):
        if ws[R_ROOT, i] == ws[R_BASE, B_ROOT + land[cy[i], cx[i]]]:
            ws[R_BIG, cy[i]] |= np.int64(1) << cx[i]
    for i in range(n):
        ws[R_CELL, i] = 0
    if not with_goals:
        return
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = SR._goal(goals, gp, g)
        if SR._is_local(kind) and kind != TW.K_ENCLOSED:
            SR.local_table(land, sym, idx, cx, cy, n, gp, goals[g], ws, R_LOC + g)
            for i in range(n):
                ws[R_CELL, i] += ws[R_LOC + g, i]
        cs = ws[R_BASE, B_SYM + s] if s >= 0 else 0
        if kind == TW.K_MINUS:
            ws[R_BASE, B_GOAL + g] = a * cs + b * ws[R_BASE, B_LAND + lnd]
        elif kind == TW.K_CLUSTER:
            r0 = R_CLUSTER + 3 * g
            _union_find(land, sym, idx, cx, cy, n, s, ws, r0)
            best = 0
            second = 0
            root = -1
            for i in range(n):
                if ws[r0 + 1, i] == i and sym[cy[i], cx[i]] == s:
                    sz = ws[r0 + 2, i]
                    if sz > best:
                        second = best
                        best = sz
                        root = i
                    elif sz > second:
                        second = sz
            ws[R_BASE, B_GOAL + g] = best  # largest cluster (not points)
            ws[R_BASE, B_NEAR + g] = root
            for i in range(n):
                if ws[r0 + 1, i] == root and sym[cy[i], cx[i]] == s:
                    ws[R_CELL, i] += a
            ws[r0 + 2, SECOND_COL] = second
        elif kind == TW.K_NEAR:
            r = ws[R_BASE, B_ROOT + lnd]
            ws[R_BASE, B_NEAR + g] = r
            for i in range(n):
                ws[R_LOC + g, i] = 0
                if r >= 0 and sym[cy[i], cx[i]] == s and TW._next_to_comp(idx, ws, cx[i], cy[i], r, np.int64(R_ROOT)):
                    ws[R_LOC + g, i] = a
                    ws[R_CELL, i] += a
    _majority_points(goals, gp, opp_cnt, ws)
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = SR._goal(goals, gp, g)
        if _goal_weight1(kind, a, b) == 0:
            continue
        for y in range(meta[TW.META_Y0] - 3, meta[TW.META_Y1] + 4):
            ws[R_MARK + g, y] = 0
        for i in range(n):
            if _marked(kind, s, gp[goals[g], TW.GP_SYM2], lnd, land, sym, ws, g, i, cx[i], cy[i]):
                ws[R_MARK + g, cy[i]] |= np.int64(1) << cx[i]


@njit(**FI)
def _cell_word(cx, cy, land, sym, i):
    """A town cell as one word for R_KEY: its position, land and symbol."""
    x = cx[i]
    y = cy[i]
    return x | y << 8 | np.int64(land[y, x] + 1) << 16 | np.int64(sym[y, x] + 1) << 24


@njit(**FI)
def _same_town(land, sym, cx, cy, meta, goals, gp, with_goals, ws):
    """Whether R_KEY holds this town (its cells in the same order, so the same cell indices) and goals:
    ``prepare``'s rows then hold its analysis, less the majority goals' base points."""
    n = meta[TW.META_N]
    ng = goals.shape[0]
    if ws[R_KEY, K_N] != n or ws[R_KEY, K_WITH] != with_goals or ws[R_KEY, K_NG] != ng:
        return False
    for k in range(4):
        if ws[R_KEY, K_META + k] != meta[1 + k]:
            return False
    for g in range(ng):
        for k in range(TW.GP_B + 1):
            if ws[R_KEY, K_GP + (TW.GP_B + 1) * g + k] != gp[goals[g], k]:
                return False
    for i in range(n):
        if ws[R_KEY, K_CELLS + i] != _cell_word(cx, cy, land, sym, i):
            return False
    return True


@njit(**FI)
def _remember(land, sym, cx, cy, meta, goals, gp, with_goals, ws):
    """Write the town and goals that ``prepare`` analyses into R_KEY (``_same_town`` compares them)."""
    n = meta[TW.META_N]
    ws[R_KEY, K_N] = n
    ws[R_KEY, K_SPOTS] = -1  # the first search of the town ranks every spot and keeps their words
    ws[R_KEY, K_WITH] = with_goals
    ws[R_KEY, K_NG] = goals.shape[0]
    for k in range(4):
        ws[R_KEY, K_META + k] = meta[1 + k]
    for g in range(goals.shape[0]):
        for k in range(TW.GP_B + 1):
            ws[R_KEY, K_GP + (TW.GP_B + 1) * g + k] = gp[goals[g], k]
    for i in range(n):
        ws[R_KEY, K_CELLS + i] = _cell_word(cx, cy, land, sym, i)


@njit(**FI)
def _majority_points(goals, gp, opp_cnt, ws):
    """The majority goals' base points, from the town's symbol counts (R_BASE) and the opponent's."""
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = SR._goal(goals, gp, g)
        if kind == TW.K_MAJ_PEN:
            cs = ws[R_BASE, B_SYM + s]
            ws[R_BASE, B_GOAL + g] = a * opp_cnt[s] if cs > opp_cnt[s] else 0
        elif kind == TW.K_MAJ_BON:
            cs = ws[R_BASE, B_SYM + s]
            ws[R_BASE, B_GOAL + g] = a if cs > opp_cnt[s] else 0


@njit(**FI)
def _layer_edges(sym, idx, x, y, s, ws, r0, row):
    """Edge groups of one layer at (x, y) (lands: s < 0, else the cells showing s): each edge cell's root,
    its group's size less the covered cells, the earlier edges with the same root; the covered roots."""
    for p in range(4):
        j = idx[y + (p >> 1), x + (p & 1)]
        ws[row, L_COV + p] = ws[r0 + 1, j] if j >= 0 and (s < 0 or ws[R_POS, P_CSYM + p] == s) else -1
    for e in range(8):
        qx = x + SR.EDGE_DX[e]
        qy = y + SR.EDGE_DY[e]
        j = idx[qy, qx]
        if j < 0 or (s >= 0 and sym[qy, qx] != s):
            ws[row, L_ROOT + e] = -1
            continue
        r = ws[r0 + 1, j]
        sz = ws[r0 + 2, r]
        for p in range(4):
            if ws[row, L_COV + p] == r:
                sz -= 1
        dup = 0
        for f in range(e):
            if ws[row, L_ROOT + f] == r:
                dup |= 1 << f
        ws[row, L_ROOT + e] = r
        ws[row, L_SIZE + e] = sz
        ws[row, L_DUP + e] = dup


@njit(**FI)
def _rest(ws, row, best, root, second):
    """A colour's largest group once the card covers its cells: the base largest less its covered
    cells, or the second largest (a covered group is assumed not to split)."""
    for p in range(4):
        if root >= 0 and ws[row, L_COV + p] == root:
            best -= 1
    return max(best, second)


@njit(**FI)
def _position(land, sym, idx, x, y, goals, gp, with_goals, ws):
    """Work shared by every card and rotation at (x, y), read from the base town."""
    for p in range(4):
        xx = x + (p & 1)
        yy = y + (p >> 1)
        ws[R_POS, P_CLAND + p] = land[yy, xx]
        ws[R_POS, P_CSYM + p] = sym[yy, xx]
    for e in range(8):
        qx = x + SR.EDGE_DX[e]
        qy = y + SR.EDGE_DY[e]
        ws[R_POS, P_ELAND + e] = land[qy, qx]
        ws[R_POS, P_ESYM + e] = sym[qy, qx]
    _layer_edges(sym, idx, x, y, np.int64(-1), ws, R_PAR, R_LAYER)
    loss = 0
    for c in range(TW.N_LANDS):
        rest = _rest(ws, R_LAYER, ws[R_BASE, B_BEST + c], ws[R_BASE, B_ROOT + c], ws[R_BASE, B_SECOND + c])
        ws[R_LAYER, L_REST + c] = rest
        loss += rest - ws[R_BASE, B_BEST + c]
    ws[R_POS, P_LOSS] = loss
    if not with_goals:
        return
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = SR._goal(goals, gp, g)
        ws[R_POS, P_CONST + g] = 0
        if kind == TW.K_CLUSTER:
            # one colour (0): the cluster's largest (B_GOAL + g), its root (B_NEAR + g) and the second largest
            row = R_LAYER + 1 + g
            r0 = R_CLUSTER + 3 * g
            _layer_edges(sym, idx, x, y, s, ws, r0, row)
            best = ws[R_BASE, B_GOAL + g]
            rest = _rest(ws, row, best, ws[R_BASE, B_NEAR + g], ws[r0 + 2, SECOND_COL])
            ws[row, L_REST] = rest
            ws[R_POS, P_CONST + g] = a * (rest - best)
        elif kind == TW.K_NEAR:
            # the covered cells showing s that were on or next to the base largest group count no more
            lost = 0
            for p in range(4):
                j = idx[y + (p >> 1), x + (p & 1)]
                if j >= 0:
                    lost += ws[R_LOC + g, j]
            ws[R_POS, P_CONST + g] = -lost
        elif kind == TW.K_ENCLOSED:
            # holes change only with occupancy: covered holes are filled, empty edge cells may close
            d = 0
            for p in range(4):
                if idx[y + (p >> 1), x + (p & 1)] < 0 and _enclosed(idx, x, y, x + (p & 1), y + (p >> 1), False):
                    d -= a
            for e in range(8):
                qx = x + SR.EDGE_DX[e]
                qy = y + SR.EDGE_DY[e]
                if idx[qy, qx] < 0:
                    d += a * (int(_enclosed(idx, x, y, qx, qy, True)) - int(_enclosed(idx, x, y, qx, qy, False)))
            ws[R_POS, P_CONST + g] = d
        elif SR._is_local(kind) and kind != TW.K_ON:
            # old points of the covered cells and of the edge cells whose points can change; for those,
            # whether their 3 neighbours outside the card satisfy the goal's neighbour test
            old = 0
            for p in range(4):
                j = idx[y + (p >> 1), x + (p & 1)]
                if j >= 0:
                    old += ws[R_LOC + g, j]
            mask = 0
            for e in range(8):
                qx = x + SR.EDGE_DX[e]
                qy = y + SR.EDGE_DY[e]
                if sym[qy, qx] != s or (kind == TW.K_BETWEEN and (e & 1) == 1) or (kind == TW.K_AWAY and
                                                                                    land[qy, qx] == lnd):
                    continue
                mask |= 1 << e
                old += ws[R_LOC + g, idx[qy, qx]]  # it shows s: a town cell
                ws[R_EDGE + g, 8 + e] = _others(kind, s, gp[goals[g], TW.GP_SYM2], lnd, land, sym, qx, qy,
                                                SR.EDGE_DX[e], SR.EDGE_DY[e])
            ws[R_POS, P_OLD + g] = old
            ws[R_POS, P_MASK + g] = mask
        elif kind == TW.K_ON:
            old = 0
            for p in range(4):
                if ws[R_POS, P_CSYM + p] == s and ws[R_POS, P_CLAND + p] == lnd:
                    old += a
            ws[R_POS, P_CONST + g] = -old


@njit(**FI)
def _enclosed(idx, x, y, qx, qy, with_card):
    """Is the empty cell (qx, qy) enclosed (4 occupied neighbours), with or without the card at (x, y)?"""
    for k in range(1, 5):
        nx = qx + TW.NB_DX[k]
        ny = qy + TW.NB_DY[k]
        if idx[ny, nx] < 0 and not (with_card and x <= nx <= x + 1 and y <= ny <= y + 1):
            return False
    return True


@njit(**FI)
def _others(kind, s, s2, lnd, land, sym, qx, qy, dx, dy):
    """An edge cell's neighbour test over its 3 neighbours outside the card (the 4th is at -dx, -dy
    from it... i.e. towards the card): between reads the far side only."""
    # the card cell next to (qx, qy) lies at (qx - sx, qy - sy)
    sx = 1 if dx > 1 else (-1 if dx < 0 else 0)
    sy = 1 if dy > 1 else (-1 if dy < 0 else 0)
    if kind == TW.K_BETWEEN:  # horizontal edges only: the land on the far side
        return np.int64(land[qy, qx + sx] == lnd)
    hit = np.int64(0)
    for k in range(1, 5):
        if TW.NB_DX[k] == -sx and TW.NB_DY[k] == -sy:
            continue  # the card's side
        nx = qx + TW.NB_DX[k]
        ny = qy + TW.NB_DY[k]
        if kind == TW.K_AWAY:
            hit |= land[ny, nx] == lnd
        elif kind == TW.K_NEXT:
            hit |= sym[ny, nx] == s2
        else:  # K_ISOLATED
            hit |= sym[ny, nx] == s
    return hit


@njit(**FI)
def _group_sums(ws, row, c0, c1, c2, c3, nc, ccol):
    """Per first card cell of each colour: that colour's card cells plus the distinct edge groups next to
    them (into ws[R_CARD, ccol + p]); returns the change of the layer's largest groups' total."""
    for p in range(4):
        ws[R_CARD, ccol + p] = 0
    # first card cell of each cell's colour (the card's cells of one colour count as one group)
    f1 = 0 if c1 == c0 else 1
    f2 = 0 if c2 == c0 else (1 if c2 == c1 else 2)
    f3 = 0 if c3 == c0 else (1 if c3 == c1 else (2 if c3 == c2 else 3))
    ws[R_CARD, ccol + 0] += c0 >= 0
    ws[R_CARD, ccol + f1] += c1 >= 0
    ws[R_CARD, ccol + f2] += c2 >= 0
    ws[R_CARD, ccol + f3] += c3 >= 0
    active = 0
    for e in range(8):
        p = e >> 1
        cp = SR._pick(p, c0, c1, c2, c3)
        if cp >= 0 and ws[row, L_ROOT + e] >= 0 and (nc == 1 or ws[R_POS, P_ELAND + e] == cp):
            active |= 1 << e
    for e in range(8):
        if (active >> e) & 1 and ws[row, L_DUP + e] & active == 0:
            p = e >> 1
            fp = 0 if p == 0 else (f1 if p == 1 else (f2 if p == 2 else f3))
            ws[R_CARD, ccol + fp] += ws[row, L_SIZE + e]
    gain = 0
    for p in range(4):
        cp = SR._pick(p, c0, c1, c2, c3)
        fp = 0 if p == 0 else (f1 if p == 1 else (f2 if p == 2 else f3))
        if fp != p or cp < 0:
            continue
        rest = ws[row, L_REST + (cp if nc > 1 else 0)]
        if ws[R_CARD, ccol + p] > rest:
            gain += ws[R_CARD, ccol + p] - rest
    return gain


@njit(**FI)
def gain(c0, c1, c2, c3, s0, s1, s2, s3, goals, gp, opp_cnt, with_goals, gw, ws):
    """Estimated gain of the card showing lands c0..c3 and symbols s0..s3 on its cells 0..3 at the spot
    ``_position`` read."""
    lands = ws[R_POS, P_LOSS] + _group_sums(ws, R_LAYER, c0, c1, c2, c3, TW.N_LANDS, 0)
    if not with_goals:
        return float(lands)
    pts = 0
    for g in range(goals.shape[0]):
        kind, s, lnd, a, b = SR._goal(goals, gp, g)
        pts += ws[R_POS, P_CONST + g]
        if kind == TW.K_LAND_GROUP or kind == TW.K_NEAR:
            # the land's largest group with the card: the card's group of that land or the rest
            big = ws[R_LAYER, L_REST + lnd]
            through = 0
            for p in range(4):
                if SR._pick(p, c0, c1, c2, c3) == lnd:
                    through = ws[R_CARD, p]  # the first card cell of the land holds its group
                    break
            if kind == TW.K_LAND_GROUP:
                pts += a * (max(big, through) - ws[R_BASE, B_BEST + lnd])
                continue
            r = ws[R_BASE, B_NEAR + g]
            for p in range(4):
                if SR._pick(p, s0, s1, s2, s3) != s:
                    continue
                on = through > 0 and through >= big and (SR._pick(p, c0, c1, c2, c3) == lnd or
                                                         SR._pick(p ^ 1, c0, c1, c2, c3) == lnd or
                                                         SR._pick(p ^ 2, c0, c1, c2, c3) == lnd)
                if not on and r >= 0 and big >= through:
                    on = ws[R_LAYER, L_ROOT + 2 * p] == r or ws[R_LAYER, L_ROOT + 2 * p + 1] == r
                if on:
                    pts += a
        elif kind == TW.K_CLUSTER:
            row = R_LAYER + 1 + g
            d = _group_sums(ws, row, 0 if s0 == s else -1, 0 if s1 == s else -1, 0 if s2 == s else -1,
                            0 if s3 == s else -1, 1, 4)
            pts += a * d
        elif kind == TW.K_MAJ_PEN or kind == TW.K_MAJ_BON or kind == TW.K_MINUS:
            cs = ws[R_BASE, B_SYM + s] + (s0 == s) + (s1 == s) + (s2 == s) + (s3 == s)
            cl = ws[R_BASE, B_LAND + lnd] + (c0 == lnd) + (c1 == lnd) + (c2 == lnd) + (c3 == lnd) if lnd >= 0 else 0
            for p in range(4):
                cs -= ws[R_POS, P_CSYM + p] == s
                if lnd >= 0:
                    cl -= ws[R_POS, P_CLAND + p] == lnd
            if kind == TW.K_MAJ_PEN:
                new = a * opp_cnt[s] if cs > opp_cnt[s] else 0
            elif kind == TW.K_MAJ_BON:
                new = a if cs > opp_cnt[s] else 0
            else:
                new = a * cs + b * cl
            pts += new - ws[R_BASE, B_GOAL + g]
        elif kind == TW.K_ON:
            for p in range(4):
                if SR._pick(p, s0, s1, s2, s3) == s and SR._pick(p, c0, c1, c2, c3) == lnd:
                    pts += a
        elif kind != TW.K_ENCLOSED:
            pts += _local_gain(kind, s, gp[goals[g], TW.GP_SYM2], lnd, a, b, c0, c1, c2, c3, s0, s1, s2, s3, ws, g)
    return float(lands) + gw * float(pts)


@njit(**FI)
def _local_gain(kind, s, s2, lnd, a, b, c0, c1, c2, c3, s0, s1, s2_, s3, ws, g):
    """between / away / next-to / isolated: new points of the card's cells and of the masked edge
    cells, less the old points of those and of the covered cells."""
    pts = -ws[R_POS, P_OLD + g]
    for p in range(4):
        sp = SR._pick(p, s0, s1, s2_, s3)
        cp = SR._pick(p, c0, c1, c2, c3)
        # neighbours: in the card p ^ 1 (horizontal) and p ^ 2 (vertical), outside edges 2p and 2p + 1
        if sp == s:
            hl = SR._pick(p ^ 1, c0, c1, c2, c3)
            vl = SR._pick(p ^ 2, c0, c1, c2, c3)
            hs = SR._pick(p ^ 1, s0, s1, s2_, s3)
            vs = SR._pick(p ^ 2, s0, s1, s2_, s3)
            el = ws[R_POS, P_ELAND + 2 * p]
            fl = ws[R_POS, P_ELAND + 2 * p + 1]
            es = ws[R_POS, P_ESYM + 2 * p]
            fs = ws[R_POS, P_ESYM + 2 * p + 1]
            if kind == TW.K_BETWEEN:
                pts += a if hl == lnd and el == lnd else 0
            elif kind == TW.K_AWAY:
                if cp != lnd and hl != lnd and vl != lnd and el != lnd and fl != lnd:
                    pts += a
            elif kind == TW.K_NEXT:
                pts += a if hs == s2 or vs == s2 or es == s2 or fs == s2 else b
            elif hs != s and vs != s and es != s and fs != s:  # K_ISOLATED
                pts += a
        mask = ws[R_POS, P_MASK + g] >> (2 * p)
        for k in range(2):
            if (mask >> k) & 1 == 0:
                continue
            other = ws[R_EDGE + g, 8 + 2 * p + k]
            if kind == TW.K_BETWEEN:
                pts += a if other and cp == lnd else 0
            elif kind == TW.K_AWAY:
                pts += a if not other and cp != lnd else 0
            elif kind == TW.K_NEXT:
                pts += a if other or sp == s2 else b
            else:
                pts += a if not other and sp != s else 0
    return pts


@njit(**FI)
def _pop4(m):
    """The number of bits set in a 4-bit mask (a table of 16 nibbles)."""
    return (np.int64(0x4332322132212110) >> (4 * m)) & 15


@njit(**FI)
def _card_words(l0, l1, l2, l3):
    """A card's lands packed per land for ``_quick``: nibble c of the first word has bit p set when card
    cell p shows land c; nibble c of the second holds how many cells show c."""
    one = np.int64(1)
    cm = (one << (4 * l0)) | (one << (4 * l1 + 1)) | (one << (4 * l2 + 2)) | (one << (4 * l3 + 3))
    cnt = (one << (4 * l0)) + (one << (4 * l1)) + (one << (4 * l2)) + (one << (4 * l3))
    return cm, cnt


@njit(**FI)
def _sym_mask(s0, s1, s2, s3, sg):
    """Bit p set when card cell p shows symbol sg."""
    return np.int64(s0 == sg) | np.int64(s1 == sg) << 1 | np.int64(s2 == sg) << 2 | np.int64(s3 == sg) << 3


@njit(**FI)
def _touch(newl, ebig, e0, e1, e2, e3, e4, e5, e6, e7):
    """``_quick``'s touch word: bit p of nibble c when edge cell 2p or 2p + 1 (lands e0..e7; ebig: those in
    their land's largest group) is in land c's largest group; newl: the full nibbles of the lands the town
    lacks.  An empty edge cell is in no group: its land -1 is masked to nibble 7, which no card reads."""
    t = newl | (ebig & 1) << (4 * (e0 & 7)) | ((ebig >> 1) & 1) << (4 * (e1 & 7))
    t |= ((ebig >> 2) & 1) << (4 * (e2 & 7) + 1) | ((ebig >> 3) & 1) << (4 * (e3 & 7) + 1)
    t |= ((ebig >> 4) & 1) << (4 * (e4 & 7) + 2) | ((ebig >> 5) & 1) << (4 * (e5 & 7) + 2)
    return t | ((ebig >> 6) & 1) << (4 * (e6 & 7) + 3) | ((ebig >> 7) & 1) << (4 * (e7 & 7) + 3)


@njit(**FI)
def _cover(k0, k1, k2, k3):
    """``_quick``'s cover word: bit p of nibble c when covered cell p shows land c (empty: nibble 7)."""
    one = np.int64(1)
    return (one << (4 * (k0 & 7))) | (one << (4 * (k1 & 7) + 1)) | (one << (4 * (k2 & 7) + 2)) | (
        one << (4 * (k3 & 7) + 3))


@njit(**FI)
def _quick(touch, cover, cbig, cm, cnt):
    """The first, cheap ranking of a card at a spot, from words packed per land (nibble c, bit p: card
    cell p): each card cell counts 1 when the card's cells of its land touch that land's largest group
    (or the land is new to the town), and each covered cell of a largest group that the card shows
    another land on counts -1.  ``touch``: bit p of nibble c when card cell p has an edge cell in land
    c's largest group (all 4 bits for a land the town lacks); ``cover``: the covered cells' lands;
    ``cbig``: the covered cells in a largest group; ``cm``, ``cnt``: ``_card_words``."""
    hits = touch & cm
    hit = (hits | (hits >> 1) | (hits >> 2) | (hits >> 3)) & 0x111111  # bit 4c: land c's cells touch
    # the counts of the lands that touch, summed over the nibbles (at most 4: no carry between them)
    v = (((cnt & (hit * 15)) * 0x111111) >> 20) & 15
    same = cover & cm  # covered cells shown in the land they had
    same |= same >> 12
    same |= (same >> 4) | (same >> 8)
    return v - _pop4(cbig & ~same & 15)


@njit(**FI)
def _edges(r0, r1, r2, r3, x):
    """The 8 edge cells of a card at (x, y) (bit e) set in bit rows y - 1 .. y + 2 (r0..r3); and its 4
    covered cells."""
    a = r0 >> (x - 1)
    b = r1 >> (x - 1)
    c = r2 >> (x - 1)
    d = r3 >> (x - 1)
    edges = ((b & 1) | ((a >> 1) & 1) << 1 | ((b >> 3) & 1) << 2 | ((a >> 2) & 1) << 3 | (c & 1) << 4
             | ((d >> 1) & 1) << 5 | ((c >> 3) & 1) << 6 | ((d >> 2) & 1) << 7)
    covered = ((b >> 1) & 1) | ((b >> 2) & 1) << 1 | ((c >> 1) & 1) << 2 | ((c >> 2) & 1) << 3
    return edges, covered


@njit(**FI)
def _keep(ws, k, v, xy, rot):
    """Keep (xy, rot) among card k's TOP best first-ranked spots when v beats the worst kept (so a later
    spot needs a higher value; xy = y * G + x, the scan order); ws[R_TOP + k, T_MIN] holds that worst value."""
    row = R_TOP + k
    if v <= ws[row, T_MIN]:
        return
    worst = 0
    for i in range(1, TOP):
        if ws[row, 4 * i] < ws[row, 4 * worst]:
            worst = i
    ws[row, 4 * worst] = v
    ws[row, 4 * worst + 1] = xy
    ws[row, 4 * worst + 2] = rot
    low = ws[row, 0]
    for i in range(1, TOP):
        low = min(low, ws[row, 4 * i])
    ws[row, T_MIN] = low


@njit(**FI)
def _rank(ws, count, ng, w0, w1, w2, touch, cover, cbig, lost, marks, xy, quick, gw, bestv, spots):
    """Rank cards[at : at + count] at one legal spot by ``_quick`` and the goals' terms, from the spot's
    words; keep each card's TOP best (_keep).  ``quick``: the rank, lands + gw x goal terms, is the value;
    each card's best so far goes straight into bestv[k] and spots[k] (the first on ties, in scan order).
    One test of ``quick`` per spot, outside the loops (fast's own loop is as it was)."""
    if quick:
        for k in range(count):
            for rot in range(2):
                lands, goal = _terms(ws, k, rot, ng, w0, w1, w2, touch, cover, cbig, lost, marks)
                v = float(lands) + gw * float(goal)
                if v > bestv[k]:
                    bestv[k] = v
                    spots[k, 0] = xy % TW.G
                    spots[k, 1] = xy // TW.G
                    spots[k, 2] = rot
    else:
        for k in range(count):
            for rot in range(2):
                lands, goal = _terms(ws, k, rot, ng, w0, w1, w2, touch, cover, cbig, lost, marks)
                _keep(ws, k, lands + goal, xy, rot)


@njit(**FI)
def _terms(ws, k, rot, ng, w0, w1, w2, touch, cover, cbig, lost, marks):
    """Card k's first ranking at a spot in rotation rot: its lands term (``_quick``) and its goal terms."""
    row = R_TOP + k
    lands = _quick(touch, cover, cbig, ws[row, T_WORDS + 3 * rot], ws[row, T_WORDS + 3 * rot + 1])
    goal = -lost
    if ng > 0:
        sm = ws[row, T_WORDS + 3 * rot + 2] & marks
        goal += w0 * _pop4(sm & 15) + w1 * _pop4((sm >> 4) & 15) + w2 * _pop4(sm >> 8)
    return lands, goal


@njit(**FI)
def _turned(c, rot):
    """A card's 4 cells in placement order: as printed (rot 0), or reversed when rotated 180 degrees."""
    if rot == 0:
        return c[0], c[1], c[2], c[3]
    return c[3], c[2], c[1], c[0]


@njit(**FI)
def _near4(m):
    """Per card cell p, whether either of its 2 edge cells (bits 2p, 2p + 1 of m) is set."""
    t = (m | (m >> 1)) & 0x55
    return (t & 1) | ((t >> 1) & 2) | ((t >> 2) & 4) | ((t >> 3) & 8)


@njit(**FI)
def _marked(kind, s, s2, lnd, land, sym, ws, g, i, x, y):
    """Whether cell i at (x, y) changes what a card cell showing the goal's symbol earns next to it:
    an s2 (next-to), the largest s cluster, the largest lnd group (near), an s (isolated), lnd (away,
    and between, which reads it beside the card cell only)."""
    if kind == TW.K_NEXT:
        return sym[y, x] == s2
    if kind == TW.K_CLUSTER:
        return sym[y, x] == s and ws[R_CLUSTER + 3 * g + 1, i] == ws[R_BASE, B_NEAR + g]
    if kind == TW.K_NEAR:
        return ws[R_ROOT, i] == ws[R_BASE, B_NEAR + g]
    if kind == TW.K_ISOLATED:
        return sym[y, x] == s
    return land[y, x] == lnd  # K_AWAY, K_BETWEEN


@njit(**FI)
def _goal_weight1(kind, a, b):
    """What one card cell earns next to a marked edge cell in the first ranking (see _marked)."""
    if kind == TW.K_NEXT:
        return a - b
    if kind == TW.K_CLUSTER or kind == TW.K_NEAR or kind == TW.K_BETWEEN:
        return a
    if kind == TW.K_ISOLATED or kind == TW.K_AWAY:
        return -a
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def search(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, count, goals, gp, opp_cnt, with_goals,
           gw, ws, bestv, spots, quick=False):
    """Best estimated spot of each card cards[at : at + count] (into bestv[k], spots[k]) on a non-empty town
    that ``prepare`` has just read: every legal spot ranked by ``_quick``, then the TOP best of each card
    valued by ``gain``."""
    newl = 0  # nibble c full when the town has no land c: any card cell of c then counts
    for c in range(TW.N_LANDS):
        if ws[R_BASE, B_BEST + c] == 0:
            newl |= 15 << (4 * c)
    # up to 3 goals' first-ranking terms: symbol, weight (0: none), and per spot the edge mask
    ng = goals.shape[0] if with_goals else 0
    sg0 = sg1 = sg2 = -1
    w0 = w1 = w2 = 0
    between0 = between1 = between2 = 0xFF  # between reads the land beside a card cell: the even edges
    for g in range(ng):
        kind, sg, lnd, a, b = SR._goal(goals, gp, g)
        w = _goal_weight1(kind, a, b)
        side = 0x55 if kind == TW.K_BETWEEN else 0xFF
        if g == 0:
            sg0, w0, between0 = sg, w, side
        elif g == 1:
            sg1, w1, between1 = sg, w, side
        else:
            sg2, w2, between2 = sg, w, side
    # each card and rotation's words, once per search (rotated 180 degrees, a card shows its cells in
    # reverse order)
    for k in range(count):
        row = R_TOP + k
        for i in range(TOP):
            ws[row, 4 * i] = -(1 << 40)
        ws[row, T_MIN] = -(1 << 40)
        bestv[k] = NEG
        c = cards[at + k]
        cl = card_land[c]
        cs = card_sym[c]
        for rot in range(2):
            l0, l1, l2, l3 = _turned(cl, rot)
            s0, s1, s2, s3 = _turned(cs, rot)
            cm, cnt = _card_words(l0, l1, l2, l3)
            ws[row, T_WORDS + 3 * rot] = cm
            ws[row, T_WORDS + 3 * rot + 1] = cnt
            ws[row, T_WORDS + 3 * rot + 2] = (_sym_mask(s0, s1, s2, s3, sg0) | _sym_mask(s0, s1, s2, s3, sg1) << 4
                                              | _sym_mask(s0, s1, s2, s3, sg2) << 8)
    ns = ws[R_KEY, K_SPOTS]
    if ns >= 0:
        # an earlier search of this town (prepare did not read it again) kept each legal spot's words, in
        # scan order
        for i in range(ns):
            r = R_SPOT + 2 * (i // SR.FS_WIDTH)
            a = ws[r, i % SR.FS_WIDTH]
            b = ws[r + 1, i % SR.FS_WIDTH]
            _rank(ws, count, ng, w0, w1, w2, a & 0xFFFFFFFF, (a >> 32) & 0xFFFFFFFF, (b >> 12) & 15, b >> 32,
                  (b >> 16) & 0xFFF, b & 0xFFF, quick, gw, bestv, spots)
    else:
        ns = 0
        occ = ws[R_OCC]
        for y in range(meta[TW.META_Y0] - 2, meta[TW.META_Y1] + 2):
            legal = TW.legal_row(occ, y)
            # the bit rows a card in this row reads (y - 1 .. y + 2), once per row
            b0, b1, b2, b3 = ws[R_BIG, y - 1], ws[R_BIG, y], ws[R_BIG, y + 1], ws[R_BIG, y + 2]
            g0 = ws[R_MARK, y - 1], ws[R_MARK, y], ws[R_MARK, y + 1], ws[R_MARK, y + 2]
            g1 = ws[R_MARK + 1, y - 1], ws[R_MARK + 1, y], ws[R_MARK + 1, y + 1], ws[R_MARK + 1, y + 2]
            g2 = ws[R_MARK + 2, y - 1], ws[R_MARK + 2, y], ws[R_MARK + 2, y + 1], ws[R_MARK + 2, y + 2]
            for x in range(meta[TW.META_X0] - 2, meta[TW.META_X1] + 2):
                if (legal >> x) & 1 == 0 or not TW.in_window(x, y):
                    continue
                ebig, cbig = _edges(b0, b1, b2, b3, x)
                touch = _touch(newl, ebig, land[y, x - 1], land[y - 1, x], land[y, x + 2], land[y - 1, x + 1],
                               land[y + 1, x - 1], land[y + 2, x], land[y + 1, x + 2], land[y + 2, x + 1])
                cover = _cover(land[y, x], land[y, x + 1], land[y + 1, x], land[y + 1, x + 1])
                lost = 0  # goal points the covered cells hold now
                for p in range(4):
                    j = idx[y + (p >> 1), x + (p & 1)]
                    if j >= 0:
                        lost += ws[R_CELL, j]
                m0 = m1 = m2 = 0
                if w0 != 0:
                    m0 = _near4(_edges(g0[0], g0[1], g0[2], g0[3], x)[0] & between0)
                if w1 != 0:
                    m1 = _near4(_edges(g1[0], g1[1], g1[2], g1[3], x)[0] & between1)
                if w2 != 0:
                    m2 = _near4(_edges(g2[0], g2[1], g2[2], g2[3], x)[0] & between2)
                marks = m0 | m1 << 4 | m2 << 8
                xy = y * TW.G + x
                if ns < SPOT_CAP:  # the spot's words, for the next search of this town
                    r = R_SPOT + 2 * (ns // SR.FS_WIDTH)
                    ws[r, ns % SR.FS_WIDTH] = touch | cover << 32
                    ws[r + 1, ns % SR.FS_WIDTH] = xy | cbig << 12 | marks << 16 | lost << 32
                ns += 1
                _rank(ws, count, ng, w0, w1, w2, touch, cover, cbig, lost, marks, xy, quick, gw, bestv, spots)
        ws[R_KEY, K_SPOTS] = ns if ns <= SPOT_CAP else -1
    if quick:  # the first ranking's best is the choice: nothing is valued further
        return
    # the kept spots of all the cards valued by the 12-cell estimate, in scan order (0 before 180; each
    # card's own spots in that order, so that ties keep the first): a position kept for several cards
    # or rotations is read once (_position depends on the spot only)
    ne = 0
    for k in range(count):
        bestv[k] = NEG
        row = R_TOP + k
        for i in range(TOP):
            if ws[row, 4 * i] > -(1 << 40):
                key = ((ws[row, 4 * i + 1] * 2 + ws[row, 4 * i + 2]) * 16 + k) * 16 + i
                j = ne
                while j > 0 and ws[R_SORT, j - 1] > key:  # insertion sort: a few entries
                    ws[R_SORT, j] = ws[R_SORT, j - 1]
                    j -= 1
                ws[R_SORT, j] = key
                ne += 1
    last = -1
    for j in range(ne):
        key = ws[R_SORT, j]
        i = key & 15
        k = (key >> 4) & 15
        row = R_TOP + k
        xy = ws[row, 4 * i + 1]
        rot = ws[row, 4 * i + 2]
        x = xy % TW.G
        y = xy // TW.G
        if xy != last:
            _position(land, sym, idx, x, y, goals, gp, with_goals, ws)
            last = xy
        c = cards[at + k]
        cl = card_land[c]
        cs = card_sym[c]
        l0, l1, l2, l3 = _turned(cl, rot)
        s0, s1, s2, s3 = _turned(cs, rot)
        v = gain(l0, l1, l2, l3, s0, s1, s2, s3, goals, gp, opp_cnt, with_goals, gw, ws)
        if v > bestv[k]:
            bestv[k] = v
            spots[k, 0] = x
            spots[k, 1] = y
            spots[k, 2] = rot
