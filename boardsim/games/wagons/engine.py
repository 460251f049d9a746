"""The jitted Circle the Wagons engine: one game in ``play_game``, a batch in ``play_batch``.

Setup: shuffle 18 cards; the first 3 go to the centre and their backs are the
goals; the other 15 form the circle.  P2 picks the starting card.  Because every
card from the first available up to the taken one leaves the circle, the draft
is a walk along the circle read from the starting card (``seq``): a turn takes
seq[t + k] and hands seq[t .. t+k-1] to the opponent, who places them in that
(circle) order after the active player placed its own card.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from boardsim import rng
from boardsim.games.base import pointer_kernel
from boardsim.games.wagons import policies as P
from boardsim.games.wagons import search as S
from boardsim.games.wagons import town as T

N_CARDS = 18
N_CIRCLE = 15
N_GOALS_IN_PLAY = 3
R_TIE, R_FIXED, R_FIRST = range(3)
RULES_WIDTH = 3
TIE_GUNS, TIE_SHARED = 0, 1

# goalK_points: points from the goal in centre slot K (slot 0 holds the fixed_goal when one is set)
SEAT_COUNTERS = ("land_points", "goal_points", "taken", "skipped", "guns", "goal0_points", "goal1_points",
                 "goal2_points")
S_LAND, S_GOAL, S_TAKEN, S_SKIPPED, S_GUNS, S_GOAL0 = range(6)
N_SEAT = len(SEAT_COUNTERS)
GAME_COUNTERS = ("start_card", "goal0", "goal1", "goal2")
# game_out columns: rounds, first_player, end, then GAME_COUNTERS
G_ROUNDS, G_FIRST, G_END, G_START, G_GOAL0 = range(5)
N_GAME = 3 + len(GAME_COUNTERS)
END_REASONS = ("circle_empty",)
# events: one row per placement
EV_SEAT, EV_CARD, EV_X, EV_Y, EV_ROT, EV_FREE, EV_TURN = range(7)
EV_WIDTH = 7
BLOCK = 32


@njit(**P.THIN)
def _place_for(p, c, x, y, rot, land, sym, idx, cx, cy, meta, card_land, card_sym, saved, cnt, events, ne,
               free, turn):
    was_empty = meta[p, 0] == 0
    T.place(land[p], sym[p], idx[p], cx[p], cy[p], meta[p], card_land[c], card_sym[c], x, y, rot, saved)
    T.commit(meta[p], x, y, was_empty)
    T.count_symbols(sym[p], cx[p], cy[p], meta[p, 0], cnt[p])
    events[ne, EV_SEAT] = p
    events[ne, EV_CARD] = c
    events[ne, EV_X] = x
    events[ne, EV_Y] = y
    events[ne, EV_ROT] = rot
    events[ne, EV_FREE] = free
    events[ne, EV_TURN] = turn


@njit(**P.THIN)
def _gift_spot_holds(spot, pol, me, op, goals, gp, cnt):
    """Whether the spot choose_draft found for the first skipped card in the opponent's town is the one
    the opponent's own greedy placement would find now: same town (it is placed first), same mode and
    goal weight, and the same opponent counts wherever a majority goal reads them."""
    omode = int(pol[op, P.COL_PLACE])
    if spot[7] == 0 or omode == P.PLACE_RANDOM or omode != P.eval_mode(pol[me]):
        return False
    if pol[op, P.COL_GOALW] != pol[me, P.COL_GOALW]:
        return False
    if omode == P.PLACE_LANDS or pol[op, P.COL_GOALW] == 0.0:
        return True  # goals are not scored, so the counts do not matter
    for g in range(goals.shape[0]):
        kind = gp[goals[g], T.GP_KIND]
        if kind == T.K_MAJ_PEN or kind == T.K_MAJ_BON:
            s = gp[goals[g], T.GP_SYM]
            if cnt[me, s] != spot[8 + s]:
                return False
    return True


@njit(cache=True, nogil=True, inline="always")
def play_game(seed, rules, card_land, card_sym, card_goal, gp, pol, land, sym, idx, cx, cy, meta, ws, saved,
              spot, gifts, bestv, spots, cnt, zero_cnt, detail, events, row, score, win, seat_out, game_out, goal_out):
    """Play one game into output row ``row``; ``events`` receives the 15 placements."""
    state = rng.new_state(seed)
    for p in range(2):
        T.clear_town(land[p], sym[p], idx[p], meta[p], cx[p], cy[p])
        for s in range(T.N_SYMBOLS):
            cnt[p, s] = 0
    order = np.arange(N_CARDS)
    rng.shuffle(state, order, N_CARDS)
    fixed = int(rules[R_FIXED])
    if fixed >= 0:  # force the card carrying this goal into the centre
        for j in range(N_CARDS):
            if card_goal[order[j]] == fixed:
                tmp = order[0]
                order[0] = order[j]
                order[j] = tmp
                break
    goals = np.empty(N_GOALS_IN_PLAY, dtype=np.int64)
    for g in range(N_GOALS_IN_PLAY):
        goals[g] = card_goal[order[g]]
    circle = order[N_GOALS_IN_PLAY:]
    first = 0 if rules[R_FIRST] == 0 else rng.below(state, 2)
    second = 1 - first
    start = P.choose_start(pol[second], circle, land[first], sym[first], idx[first], cx[first], cy[first],
                           meta[first], card_land, card_sym, goals, gp, zero_cnt, ws, detail, saved, state, bestv,
                           spots)
    seq = np.empty(N_CIRCLE, dtype=np.int64)
    for k in range(N_CIRCLE):
        seq[k] = circle[(start + k) % N_CIRCLE]
    for p in range(2):
        for k in range(N_SEAT):
            seat_out[row, p, k] = 0
    # np.int64(...), not bare literals, for values handed to other jitted functions: Numba compiles a
    # separate copy of a callee for each literal argument (and for a loop variable's first literal type)
    t = np.int64(0)
    me = first
    turn = np.int64(0)
    ne = np.int64(0)
    while t < N_CIRCLE:
        op = 1 - me
        k = P.choose_draft(pol[me], me, seq, t, land, sym, idx, cx, cy, meta, card_land, card_sym, goals, gp,
                           cnt, ws, detail, saved, state, spot, gifts, bestv, spots)
        c = seq[t + k]
        mode = int(pol[me, P.COL_PLACE])
        if spot[3] == 1 and mode != P.PLACE_RANDOM:
            spots[0, 0] = spot[0]
            spots[0, 1] = spot[1]
            spots[0, 2] = spot[2]
        else:
            P.best_placement(land[me], sym[me], idx[me], cx[me], cy[me], meta[me], card_land, card_sym, seq, t + k,
                             goals, gp, cnt[op], mode, pol[me, P.COL_GOALW], ws, detail, saved, state, bestv, spots)
        _place_for(me, c, spots[0, 0], spots[0, 1], spots[0, 2], land, sym, idx, cx, cy, meta, card_land, card_sym,
                   saved, cnt, events, ne, np.int64(0), turn)
        ne += 1
        seat_out[row, me, S_TAKEN] += 1
        seat_out[row, me, S_SKIPPED] += k
        # free cards: the receiver places them one at a time in circle order
        omode = int(pol[op, P.COL_PLACE])
        for j in range(k):
            f = seq[t + j]
            if j == 0 and _gift_spot_holds(spot, pol, me, op, goals, gp, cnt):
                spots[0, 0] = spot[4]
                spots[0, 1] = spot[5]
                spots[0, 2] = spot[6]
            else:
                P.best_placement(land[op], sym[op], idx[op], cx[op], cy[op], meta[op], card_land, card_sym, seq, t + j,
                                 goals, gp, cnt[me], omode, pol[op, P.COL_GOALW], ws, detail, saved, state, bestv,
                                 spots)
            _place_for(op, f, spots[0, 0], spots[0, 1], spots[0, 2], land, sym, idx, cx, cy, meta, card_land, card_sym,
                       saved, cnt, events, ne, np.int64(1), turn)
            ne += 1
        t += k + 1
        turn += 1
        me = op
    for p in range(2):
        q = 1 - p
        total = T.score(land[p], sym[p], idx[p], cx[p], cy[p], meta[p, 0], goals, gp, cnt[q], np.bool_(True), ws,
                        detail)
        score[row, p] = total
        lp = 0
        for k in range(T.N_LANDS):
            lp += detail[k]
        seat_out[row, p, S_LAND] = lp
        seat_out[row, p, S_GOAL] = total - lp
        for g in range(N_GOALS_IN_PLAY):
            goal_out[row, p, g] = detail[T.N_LANDS + g]
            seat_out[row, p, S_GOAL0 + g] = detail[T.N_LANDS + g]
        seat_out[row, p, S_GUNS] = cnt[p, T.GUN]
    win[row, 0] = 0.0
    win[row, 1] = 0.0
    if score[row, 0] != score[row, 1]:
        win[row, 0 if score[row, 0] > score[row, 1] else 1] = 1.0
    elif rules[R_TIE] == TIE_GUNS and cnt[0, T.GUN] != cnt[1, T.GUN]:
        win[row, 0 if cnt[0, T.GUN] > cnt[1, T.GUN] else 1] = 1.0
    else:
        win[row, 0] = 0.5
        win[row, 1] = 0.5
    game_out[row, G_ROUNDS] = turn
    game_out[row, G_FIRST] = first
    game_out[row, G_END] = 0
    game_out[row, G_START] = seq[0]
    for g in range(N_GOALS_IN_PLAY):
        game_out[row, G_GOAL0 + g] = goals[g]
    return ne


@njit(cache=True, nogil=True)
def _workspace():
    land = np.full((2, T.G, T.G), -1, dtype=np.int8)
    sym = np.full((2, T.G, T.G), -1, dtype=np.int8)
    idx = np.full((2, T.G, T.G), -1, dtype=np.int16)
    cx = np.zeros((2, T.MAX_CELLS), dtype=np.int64)
    cy = np.zeros((2, T.MAX_CELLS), dtype=np.int64)
    meta = np.zeros((2, 5), dtype=np.int64)
    return land, sym, idx, cx, cy, meta


# play_batch calls _play_range through a function pointer; base.pointer_kernel says why and compiles both.
_I64_2, _F64_1, _F64_2 = types.int64[:, ::1], types.float64[::1], types.float64[:, ::1]
_TABLES = (_F64_1, _I64_2, _I64_2, types.int64[::1], _I64_2, _F64_2)  # rules .. pol (Wagons._args)
_OUTS = (types.int64[:, ::1], _F64_2, types.int64[:, :, ::1], types.int64[:, ::1], types.int64[:, :, ::1])
PLAY_RANGE = types.int64(types.uint64, types.int64, types.int64, types.int64, *_TABLES, *_OUTS, _I64_2)
PLAY_BATCH = types.void(types.FunctionType(PLAY_RANGE), types.uint64, types.int64, *_TABLES, *_OUTS)


@njit(cache=True, nogil=True)
def _play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, score, win, seat_out,
                game_out, goal_out, events):
    land, sym, idx, cx, cy, meta = _workspace()
    ws = np.zeros((S.FS_ROWS, S.FS_WIDTH), dtype=np.int64)  # town.score's rows + search.py's scratch
    saved = np.zeros(9, dtype=np.int64)
    bestv = np.zeros(N_CIRCLE, dtype=np.float64)
    spots = np.zeros((N_CIRCLE, 3), dtype=np.int64)
    spot = np.zeros(8 + T.N_SYMBOLS, dtype=np.int64)
    gifts = np.zeros(N_CIRCLE, dtype=np.float64)
    cnt = np.zeros((2, T.N_SYMBOLS), dtype=np.int64)
    zero_cnt = np.zeros(T.N_SYMBOLS, dtype=np.int64)
    detail = np.zeros(T.N_LANDS + N_GOALS_IN_PLAY, dtype=np.int64)
    for i in range(lo, hi):
        seed = rng.game_seed(key, first + i)
        play_game(seed, rules, card_land, card_sym, card_goal, gp, pol, land, sym, idx, cx, cy, meta, ws, saved,
                  spot, gifts, bestv, spots, cnt, zero_cnt, detail, events, i, score, win, seat_out, game_out,
                  goal_out)
    return 0


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play_range, key, first, rules, card_land, card_sym, card_goal, gp, pol, score, win, seat_out,
               game_out, goal_out):
    """Games first..first+n-1 of a cell; each game writes only its own rows."""
    n = score.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        lo = np.int64(b) * BLOCK
        hi = min(n, lo + BLOCK)
        events = np.zeros((N_CIRCLE, EV_WIDTH), dtype=np.int64)
        play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, score, win, seat_out,
                   game_out, goal_out, events)


def batch_kernel():
    """play_batch compiled for its one signature; call it as ``batch_kernel()(_play_range, key, ...)``."""
    return pointer_kernel(play_batch, _play_range, PLAY_BATCH, PLAY_RANGE)


def trace_game(key, index, rules, card_land, card_sym, card_goal, gp, pol):
    """One game with its placement log: (score, win, seat_out, game_out, goal_out, events).

    Plain Python around the batch's own compiled ``_play_range`` (one game, log on): a jitted wrapper
    would link and re-optimise the whole engine again, about 8 s more of cold compile for a trace.
    """
    score = np.zeros((1, 2), dtype=np.int64)
    win = np.zeros((1, 2), dtype=np.float64)
    seat_out = np.zeros((1, 2, N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, N_GAME), dtype=np.int64)
    goal_out = np.zeros((1, 2, N_GOALS_IN_PLAY), dtype=np.int64)
    events = np.full((N_CIRCLE, EV_WIDTH), -1, dtype=np.int64)
    batch_kernel()  # compiles (or loads) _play_range for PLAY_RANGE, the types passed here
    _play_range(np.uint64(key), np.int64(index), np.int64(0), np.int64(1), rules, card_land, card_sym, card_goal,
                gp, pol, score, win, seat_out, game_out, goal_out, events)
    return score, win, seat_out, game_out, goal_out, events
