"""Circle the Wagons one decision at a time: the step interface the ``mcts`` player searches with.

A game in progress is a ``World`` (named fixed-size arrays): both towns (state.Towns), the circle as dealt,
the circle read from its starting card (``seq``), the goals, a placement log and a small vector ``v`` of
counters (``V_*``).  These functions are the game's one rules loop: the batch kernel (kernel._play_range), a
trace and the search all play through them.  ``apply`` places cards with engine._place_for (town.place,
commit, count_symbols), ``builtin`` asks decide.py what a built-in seat chooses (start, draft, placement),
``finish`` scores a finished game and writes its results.

The decisions (``phase``), who makes them (``to_move``) and their actions:

- ``PH_START``: P2 picks the starting card; action s = its circle position (0..14).
- ``PH_DRAFT``: the active seat skips k cards and takes seq[t + k]; action k (0..cards left - 1).
- ``PH_TAKEN``: the active seat places the card it took; ``PH_FREE``: the opponent places the next free
  card (seq[t + j], in circle order).  A placement's action is ``(y * G + x) * 2 + rot`` (``spot_action``).
- ``PH_OVER``: all 15 cards are placed.

``apply`` applies one action and moves to the next decision (there is no automatic play in between:
every step of Circle the Wagons is a decision).  ``legal`` lists every legal action of the decision;
``copy_world`` copies one World into another preallocated one.  The functions a game steps through are
inlined by LLVM (``forceinline``) and compiled without reference counting (``_nrt=False``): called, and
counting the references of a World's arrays at each call, they cost a cheap game (the ``random`` policy's)
30% of its time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardsim import rng
from boardsim.games.wagons import decide as D
from boardsim.games.wagons import engine as E
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW
from boardsim.games.wagons.rules import R_FIRST, R_FIXED

PH_START, PH_DRAFT, PH_TAKEN, PH_FREE, PH_OVER = range(5)
# v columns: phase, t (first available card in seq), active seat, turn, P1, k (cards skipped this turn),
# j (free cards placed this turn), ne (placements logged), taken and skipped per seat
V_PHASE, V_T, V_ME, V_TURN, V_P1, V_K, V_J, V_NE, V_TAKEN, V_SKIPPED = 0, 1, 2, 3, 4, 5, 6, 7, 8, 10
N_V = 12
# the most actions one decision has: every (x, y, rot) of the town window
MAX_LEGAL = 2 * TW.G * TW.G


class World(NamedTuple):
    town: ST.Towns
    circle: np.ndarray  # int64[15]: the circle as dealt
    seq: np.ndarray  # int64[15]: the circle read from the starting card (set by the start decision)
    goals: np.ndarray  # int64[3]: the goal rows in play
    events: np.ndarray  # int64[15, engine.EV_WIDTH]: the placement log
    v: np.ndarray  # int64[N_V]


@njit(cache=True, nogil=True)
def new_world():
    town = ST.Towns(np.full((2, TW.G, TW.G), -1, dtype=np.int8), np.full((2, TW.G, TW.G), -1, dtype=np.int8),
                    np.full((2, TW.G, TW.G), -1, dtype=np.int16), np.zeros((2, TW.MAX_CELLS), dtype=np.int64),
                    np.zeros((2, TW.MAX_CELLS), dtype=np.int64), np.zeros((2, 5), dtype=np.int64),
                    np.zeros((2, TW.N_SYMBOLS), dtype=np.int64), np.zeros(2, dtype=np.int64))
    return World(town, np.zeros(ST.N_CIRCLE, dtype=np.int64), np.zeros(ST.N_CIRCLE, dtype=np.int64),
                 np.zeros(ST.N_GOALS_IN_PLAY, dtype=np.int64), np.zeros((ST.N_CIRCLE, E.EV_WIDTH), dtype=np.int64),
                 np.zeros(N_V, dtype=np.int64))


@njit(cache=True, nogil=True)
def copy_world(src, dst):
    """dst = src (all but the placement log)."""
    a, b = src.town, dst.town
    b.land[:] = a.land
    b.sym[:] = a.sym
    b.idx[:] = a.idx
    b.cx[:] = a.cx
    b.cy[:] = a.cy
    b.meta[:] = a.meta
    b.cnt[:] = a.cnt
    b.cards[:] = a.cards
    dst.circle[:] = src.circle
    dst.seq[:] = src.seq
    dst.goals[:] = src.goals
    dst.v[:] = src.v


@njit(cache=True, nogil=True, forceinline=True)
def setup(w, key, index, rules, tab, dr, state):
    """Deal game ``index`` of cell ``key`` (the engine's setup, the same draws from ``state``, which the
    caller seeds with rng.game_seed(key, index)) up to P2's start decision."""
    town = w.town
    for p in range(2):
        TW.clear_town(town.land[p], town.sym[p], town.idx[p], town.meta[p], town.cx[p], town.cy[p])
        for s in range(TW.N_SYMBOLS):
            town.cnt[p, s] = 0
        town.cards[p] = 0
    order = np.arange(E.N_CARDS)
    rng.shuffle(state, order, E.N_CARDS)
    fixed = int(rules[R_FIXED])
    if fixed >= 0:
        for j in range(E.N_CARDS):
            if tab.card_goal[order[j]] == fixed:
                tmp = order[0]
                order[0] = order[j]
                order[j] = tmp
                break
    for g in range(ST.N_GOALS_IN_PLAY):
        w.goals[g] = tab.card_goal[order[g]]
    D.new_game(dr, w.goals)
    for k in range(ST.N_CIRCLE):
        w.circle[k] = order[ST.N_GOALS_IN_PLAY + k]
        w.seq[k] = w.circle[k]
    p1 = 0 if rules[R_FIRST] == 0 else rng.below(state, np.int64(2))
    for i in range(N_V):
        w.v[i] = 0
    w.v[V_P1] = p1
    w.v[V_ME] = p1
    w.v[V_PHASE] = PH_START
    for i in range(ST.N_CIRCLE):
        for j in range(E.EV_WIDTH):
            w.events[i, j] = -1


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def to_move(w):
    """The seat that makes the current decision (-1 when the game is over)."""
    ph = w.v[V_PHASE]
    if ph == PH_START:
        return 1 - w.v[V_P1]
    if ph == PH_DRAFT or ph == PH_TAKEN:
        return w.v[V_ME]
    if ph == PH_FREE:
        return 1 - w.v[V_ME]
    return -1


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def card_to_place(w):
    """The card of the current placement decision."""
    t, k = w.v[V_T], w.v[V_K]
    return w.seq[t + k] if w.v[V_PHASE] == PH_TAKEN else w.seq[t + w.v[V_J]]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def spot_action(x, y, rot):
    return (y * TW.G + x) * 2 + rot


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _end_turn(w):
    w.v[V_T] += w.v[V_K] + 1
    w.v[V_TURN] += 1
    w.v[V_ME] = 1 - w.v[V_ME]
    w.v[V_K] = 0
    w.v[V_J] = 0
    w.v[V_PHASE] = PH_OVER if w.v[V_T] >= ST.N_CIRCLE else PH_DRAFT


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def apply(w, a, tab, scr):
    """Apply action ``a`` of the current decision and move to the next one."""
    ph = w.v[V_PHASE]
    if ph == PH_START:
        for k in range(ST.N_CIRCLE):
            w.seq[k] = w.circle[(a + k) % ST.N_CIRCLE]
        w.v[V_PHASE] = PH_DRAFT
        return
    me = w.v[V_ME]
    if ph == PH_DRAFT:
        w.v[V_K] = a
        w.v[V_J] = 0
        w.v[V_PHASE] = PH_TAKEN
        return
    rot = a & 1
    xy = a >> 1
    x = xy % TW.G
    y = xy // TW.G
    t, k = w.v[V_T], w.v[V_K]
    if ph == PH_TAKEN:
        E._place_for(me, w.seq[t + k], x, y, rot, w.town, tab, scr.saved, w.events, w.v[V_NE], np.int64(0),
                     w.v[V_TURN])
        w.v[V_NE] += 1
        w.v[V_TAKEN + me] += 1
        w.v[V_SKIPPED + me] += k
        if k > 0:
            w.v[V_PHASE] = PH_FREE
        else:
            _end_turn(w)
        return
    E._place_for(1 - me, w.seq[t + w.v[V_J]], x, y, rot, w.town, tab, scr.saved, w.events, w.v[V_NE],
                 np.int64(1), w.v[V_TURN])
    w.v[V_NE] += 1
    w.v[V_J] += 1
    if w.v[V_J] == k:
        _end_turn(w)


@njit(cache=True, nogil=True)
def legal(w, out):
    """Every legal action of the current decision into out[:n]; returns n (out: MAX_LEGAL long)."""
    ph = w.v[V_PHASE]
    if ph == PH_START:
        for s in range(ST.N_CIRCLE):
            out[s] = s
        return ST.N_CIRCLE
    if ph == PH_DRAFT:
        n = ST.N_CIRCLE - w.v[V_T]
        for k in range(n):
            out[k] = k
        return n
    if ph == PH_OVER:
        return 0
    p = to_move(w)
    town = w.town
    n = town.meta[p, TW.META_N]
    if n == 0:
        out[0] = spot_action(TW.CENTER, TW.CENTER, 0)
        out[1] = spot_action(TW.CENTER, TW.CENTER, 1)
        return 2
    m = 0
    for y in range(town.meta[p, TW.META_Y0] - 2, town.meta[p, TW.META_Y1] + 2):
        for x in range(town.meta[p, TW.META_X0] - 2, town.meta[p, TW.META_X1] + 2):
            if TW.in_window(x, y) and TW.is_legal(town.idx[p], n, x, y):
                out[m] = spot_action(x, y, 0)
                out[m + 1] = spot_action(x, y, 1)
                m += 2
    return m


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def builtin(w, pol, rl, scorers, tab, scr, dr, state, user, fast, find):
    """The action the built-in (or rules/custom) seat to move chooses, from decide.py as the engine asks it."""
    ph = w.v[V_PHASE]
    town = w.town
    me = w.v[V_ME]
    t = w.v[V_T]
    if ph == PH_START:
        p1 = w.v[V_P1]
        return D.start(pol[1 - p1], w.circle, p1, town, tab, w.goals, scr, state, fast, find)
    if ph == PH_DRAFT:
        return D.draft(pol, rl, scorers, me, w.v[V_P1], w.seq, t, w.v[V_TURN], town, tab, w.goals, scr, dr,
                       state, user, fast, find)
    if ph == PH_TAKEN:
        D.place_taken(pol, me, w.seq, t + w.v[V_K], town, tab, w.goals, scr, dr, state, fast, find)
    else:
        j = w.v[V_J]
        D.place_free(pol, 1 - me, me, w.seq, t + j, j == 0, town, tab, w.goals, scr, dr, state, fast, find)
    return spot_action(scr.spots[0, ST.SPOT_X], scr.spots[0, ST.SPOT_Y], scr.spots[0, ST.SPOT_ROT])


@njit(cache=True, nogil=True)
def scores(w, tab, scr, out):
    """Both towns' totals now (majority goals against the other town as it stands) into out[0:2]."""
    town = w.town
    for p in range(2):
        q = 1 - p
        out[p] = TW.score(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p, TW.META_N],
                          w.goals, tab.gp, town.cnt[q], np.bool_(True), scr.ws, scr.detail)


@njit(cache=True, nogil=True)
def progress_scratch(progress, scr):
    """(ws, detail): ``record_progress``'s own town.score scratch, shaped as ``scr``'s (zero-size when
    ``progress`` is: nothing is recorded)."""
    on = progress.shape[0] > 0
    return (np.zeros((scr.ws.shape[0] if on else 0, scr.ws.shape[1]), dtype=np.int64),
            np.zeros(scr.detail.shape[0] if on else 0, dtype=np.int64))


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def record_progress(w, turn, row, tab, ws, detail, progress):
    """After an ``apply`` that started during turn ``turn``: when that turn is now over and ``progress`` is not
    zero-size (the cell records progress, ``Prepared.progress``), both towns' totals (``scores``' rule: lands and
    the three goals, majority goals against the other town as it stands) into progress[row, :, turn].
    ``ws`` and ``detail`` are scratch of the recording's own, so the recording changes nothing a seat reads."""
    if progress.shape[0] == 0 or w.v[V_TURN] == turn:
        return
    town = w.town
    for p in range(2):
        q = 1 - p
        progress[row, p, turn] = TW.score(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p],
                                          town.meta[p, TW.META_N], w.goals, tab.gp, town.cnt[q], np.bool_(True),
                                          ws, detail)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def fill_progress(w, row, progress):
    """A finished game's turns after its last (``rounds`` .. R - 1) get its final totals (not read by anyone)."""
    if progress.shape[0] == 0:
        return
    last = w.v[V_TURN] - 1
    for p in range(2):
        for r in range(last + 1, progress.shape[2]):
            progress[row, p, r] = progress[row, p, last]


@njit(cache=True, nogil=True)
def win_shares(w, rules, s0, s1, out):
    """The engine's win shares from totals s0, s1 (tie_break rule) into out[0:2]."""
    E.tie_rule(rules, s0, s1, w.town.cnt[0, TW.GUN], w.town.cnt[1, TW.GUN], out)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def finish(w, row, rules, tab, scr, score, win, seat_out, game_out, goal_out):
    """Write a finished game's results into output row ``row``, the batch layout."""
    town = w.town
    for p in range(2):
        for k in range(E.N_SEAT):
            seat_out[row, p, k] = 0
        q = 1 - p
        total = TW.score(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p, TW.META_N],
                         w.goals, tab.gp, town.cnt[q], np.bool_(True), scr.ws, scr.detail)
        score[row, p] = total
        lp = 0
        for k in range(TW.N_LANDS):
            lp += scr.detail[k]
        seat_out[row, p, E.S_LAND] = lp
        seat_out[row, p, E.S_GOAL] = total - lp
        for g in range(ST.N_GOALS_IN_PLAY):
            goal_out[row, p, g] = scr.detail[TW.N_LANDS + g]
            seat_out[row, p, E.S_GOAL0 + g] = scr.detail[TW.N_LANDS + g]
        seat_out[row, p, E.S_GUNS] = town.cnt[p, TW.GUN]
        seat_out[row, p, E.S_TAKEN] = w.v[V_TAKEN + p]
        seat_out[row, p, E.S_SKIPPED] = w.v[V_SKIPPED + p]
    win_shares(w, rules, score[row, 0], score[row, 1], win[row])
    game_out[row, E.G_ROUNDS] = w.v[V_TURN]
    game_out[row, E.G_FIRST] = w.v[V_P1]
    game_out[row, E.G_END] = 0
    game_out[row, E.G_START] = w.seq[0]
    for g in range(ST.N_GOALS_IN_PLAY):
        game_out[row, E.G_GOAL0 + g] = w.goals[g]
