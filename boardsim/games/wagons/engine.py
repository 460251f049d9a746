"""The jitted Circle the Wagons engine: a run of games in ``_play_range``, a batch in ``play_batch``.

Setup: shuffle 18 cards; the first 3 go to the centre and their backs are the
goals; the other 15 form the circle.  P2 picks the starting card.  Because every
card from the first available up to the taken one leaves the circle, the draft
is a walk along the circle read from the starting card (``seq``): a turn takes
seq[t + k] and hands seq[t .. t+k-1] to the opponent, who places them in that
(circle) order after the active player placed its own card.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange, types

from boardsim import custom, rng
from boardsim.games.base import pointer_kernel
from boardsim.games.wagons import decide as D
from boardsim.games.wagons import policies as P
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as T
from boardsim.rulelist import RuleArrays

N_CARDS = 18
N_CIRCLE = ST.N_CIRCLE
N_GOALS_IN_PLAY = ST.N_GOALS_IN_PLAY
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
def _place_for(p, c, x, y, rot, town, tab, saved, events, ne, free, turn):
    """Put card c into seat p's town at (x, y, rot) and log it."""
    was_empty = town.meta[p, 0] == 0
    T.place(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], tab.card_land[c],
            tab.card_sym[c], x, y, rot, saved)
    T.commit(town.meta[p], x, y, was_empty)
    T.count_symbols(town.sym[p], town.cx[p], town.cy[p], town.meta[p, 0], town.cnt[p])
    town.cards[p] += 1
    events[ne, EV_SEAT] = p
    events[ne, EV_CARD] = c
    events[ne, EV_X] = x
    events[ne, EV_Y] = y
    events[ne, EV_ROT] = rot
    events[ne, EV_FREE] = free
    events[ne, EV_TURN] = turn


# play_batch calls _play_range through a function pointer; base.pointer_kernel says why and compiles both.
_I64_2, _F64_1, _F64_2 = types.int64[:, ::1], types.float64[::1], types.float64[:, ::1]
RULE_ARRAYS = types.NamedTuple((_I64_2, _F64_2, _I64_2, _I64_2, _F64_2), RuleArrays)
# rules .. scorers (Wagons._args): the rule vector, the cards, the policy matrix, the seats' rules and scorers
_TABLES = (_F64_1, _I64_2, _I64_2, types.int64[::1], _I64_2, _F64_2, RULE_ARRAYS, custom.SCORERS)
_OUTS = (types.int64[:, ::1], _F64_2, types.int64[:, :, ::1], types.int64[:, ::1], types.int64[:, :, ::1])
# Four engine variants, told apart by the arguments ``user`` (user_flag) and ``fast`` (fast_flag): None
# leaves out the code of rules and custom seats (decide.draft's) or of fast placement (numba prunes it,
# policies.THIN's note), True keeps it.  Each variant has its own dispatchers, compiled on first use for
# their one signature: the default seats compile neither the rule interpreter nor fast.py.  All take
# policies.search as a function pointer (``find``, its type P.SEARCH[fast]).
_RANGE_ARGS = (types.uint64, types.int64, types.int64, types.int64, *_TABLES, *_OUTS, _I64_2)


def _signatures(user: bool | None, fast: bool | None) -> tuple[Any, Any]:
    """(_play_range's, play_batch's) signature in one variant."""
    flags = tuple(types.none if f is None else types.boolean for f in (user, fast))
    find = types.FunctionType(P.SEARCH[fast])
    range_sig = types.int64(*_RANGE_ARGS, *flags, find)
    return range_sig, types.void(types.FunctionType(range_sig), types.uint64, types.int64, *_TABLES, *_OUTS, *flags,
                                 find)


PLAY_RANGE, PLAY_BATCH = _signatures(None, None)  # the default seats' variant


@njit(cache=True, nogil=True)
def _play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
                seat_out, game_out, goal_out, events, user, fast, find):
    """Games first+lo .. first+hi-1 of a cell into output rows lo..hi-1; ``events`` receives each game's 15
    placements (the last game's stay).  Every choice a seat makes comes from decide.py (``rl`` and
    ``scorers`` serve its rules and custom seats; ``user`` and ``fast`` are None in the engine variants
    without their code, see ``user_flag`` and ``fast_flag``; ``find`` is policies.search).

    One game is the loop body, not an inline="always" function: numba deep-copies an inlined
    function's IR block by block, each copy with the whole scope, and the game with decide.py inlined
    into it cost about 20 CPU-s of a cold compile in those copies alone.
    """
    town, scr, dr = ST.new_state()
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    for row in range(lo, hi):
        seed = rng.game_seed(key, first + row)
        state = rng.new_state(seed)
        for p in range(2):
            T.clear_town(town.land[p], town.sym[p], town.idx[p], town.meta[p], town.cx[p], town.cy[p])
            for s in range(T.N_SYMBOLS):
                town.cnt[p, s] = 0
            town.cards[p] = 0
        order = np.arange(N_CARDS)
        rng.shuffle(state, order, N_CARDS)
        fixed = int(rules[R_FIXED])
        if fixed >= 0:  # force the card carrying this goal into the centre
            for j in range(N_CARDS):
                if tab.card_goal[order[j]] == fixed:
                    tmp = order[0]
                    order[0] = order[j]
                    order[j] = tmp
                    break
        goals = np.empty(N_GOALS_IN_PLAY, dtype=np.int64)
        for g in range(N_GOALS_IN_PLAY):
            goals[g] = tab.card_goal[order[g]]
        D.new_game(dr, goals)
        circle = order[N_GOALS_IN_PLAY:]
        p1 = 0 if rules[R_FIRST] == 0 else rng.below(state, np.int64(2))
        second = 1 - p1
        start = D.start(pol[second], circle, p1, town, tab, goals, scr, state, fast, find)
        seq = np.empty(N_CIRCLE, dtype=np.int64)
        for k in range(N_CIRCLE):
            seq[k] = circle[(start + k) % N_CIRCLE]
        for p in range(2):
            for k in range(N_SEAT):
                seat_out[row, p, k] = 0
        # np.int64(...), not bare literals, for values handed to other jitted functions: Numba compiles a
        # separate copy of a callee for each literal argument (and for a loop variable's first literal type)
        t = np.int64(0)
        me = p1
        turn = np.int64(0)
        ne = np.int64(0)
        while t < N_CIRCLE:
            op = 1 - me
            k = D.draft(pol, rl, scorers, me, p1, seq, t, turn, town, tab, goals, scr, dr, state, user, fast,
                        find)
            D.place_taken(pol, me, seq, t + k, town, tab, goals, scr, dr, state, fast, find)
            _place_for(me, seq[t + k], scr.spots[0, 0], scr.spots[0, 1], scr.spots[0, 2], town, tab, scr.saved, events,
                       ne, np.int64(0), turn)
            ne += 1
            seat_out[row, me, S_TAKEN] += 1
            seat_out[row, me, S_SKIPPED] += k
            # free cards: the receiver places them one at a time in circle order
            for j in range(k):
                D.place_free(pol, op, me, seq, t + j, j == 0, town, tab, goals, scr, dr, state, fast, find)
                _place_for(op, seq[t + j], scr.spots[0, 0], scr.spots[0, 1], scr.spots[0, 2], town, tab, scr.saved,
                           events, ne, np.int64(1), turn)
                ne += 1
            t += k + 1
            turn += 1
            me = op
        for p in range(2):
            q = 1 - p
            total = T.score(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p, 0], goals,
                            tab.gp, town.cnt[q], np.bool_(True), scr.ws, scr.detail)
            score[row, p] = total
            lp = 0
            for k in range(T.N_LANDS):
                lp += scr.detail[k]
            seat_out[row, p, S_LAND] = lp
            seat_out[row, p, S_GOAL] = total - lp
            for g in range(N_GOALS_IN_PLAY):
                goal_out[row, p, g] = scr.detail[T.N_LANDS + g]
                seat_out[row, p, S_GOAL0 + g] = scr.detail[T.N_LANDS + g]
            seat_out[row, p, S_GUNS] = town.cnt[p, T.GUN]
        win[row, 0] = 0.0
        win[row, 1] = 0.0
        if score[row, 0] != score[row, 1]:
            win[row, 0 if score[row, 0] > score[row, 1] else 1] = 1.0
        elif rules[R_TIE] == TIE_GUNS and town.cnt[0, T.GUN] != town.cnt[1, T.GUN]:
            win[row, 0 if town.cnt[0, T.GUN] > town.cnt[1, T.GUN] else 1] = 1.0
        else:
            win[row, 0] = 0.5
            win[row, 1] = 0.5
        game_out[row, G_ROUNDS] = turn
        game_out[row, G_FIRST] = p1
        game_out[row, G_END] = 0
        game_out[row, G_START] = seq[0]
        for g in range(N_GOALS_IN_PLAY):
            game_out[row, G_GOAL0 + g] = goals[g]
    return 0


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play_range, key, first, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
               seat_out, game_out, goal_out, user, fast, find):
    """Games first..first+n-1 of a cell; each game writes only its own rows."""
    n = score.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        lo = np.int64(b) * BLOCK
        hi = min(n, lo + BLOCK)
        events = np.zeros((N_CIRCLE, EV_WIDTH), dtype=np.int64)
        play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
                   seat_out, game_out, goal_out, events, user, fast, find)


def _twin(dispatcher: Any, **flags: Any) -> Any:
    """A second dispatcher of the same function (a plain function under NUMBA_DISABLE_JIT=1)."""
    py_func = getattr(dispatcher, "py_func", None)
    return dispatcher if py_func is None else njit(**flags)(py_func)


def _variant(user: bool | None, fast: bool | None) -> tuple[Any, Any, Any, Any]:
    """(engine, batch kernel, their signatures) of one variant; the default one is the module's own pair."""
    if user is None and fast is None:
        play_range, batch = _play_range, play_batch
    else:
        play_range = _twin(_play_range, cache=True, nogil=True)
        batch = _twin(play_batch, cache=True, nogil=True, parallel=True)
    return (play_range, batch, *_signatures(user, fast))


# (user_flag, fast_flag) -> (engine, batch kernel, their signatures)
_VARIANTS = {(user, fast): _variant(user, fast) for user in (None, True) for fast in (None, True)}


def fast_flag(pol: np.ndarray) -> bool | None:
    """The engines' argument ``fast`` for a policy matrix: True when a seat places with ``fast`` or ``quick``
    (fast.py's code serves both), else None."""
    return True if bool((pol[:, P.COL_PLACE] >= P.PLACE_FAST).any()) else None


def user_flag(pol: np.ndarray) -> bool | None:
    """The engines' argument ``user`` for a policy matrix: True when a seat is ``rules`` or ``custom``, else None."""
    codes = pol[:, P.COL_CODE]
    return True if bool(((codes == P.RULES) | (codes == P.CUSTOM)).any()) else None


def play_range_for(fast: bool | None, user: bool | None = None) -> Any:
    """The engine (``_play_range`` or a twin) that ``batch_kernel(fast, user)`` calls."""
    return _VARIANTS[user, fast][0]


def batch_kernel(fast: bool | None = None, user: bool | None = None) -> Any:
    """play_batch of one variant compiled for its one signature; call it as
    ``batch_kernel(fast, user)(play_range_for(fast, user), key, ..., user, fast, policies.search)``."""
    play_range, batch, range_sig, batch_sig = _VARIANTS[user, fast]
    if hasattr(P.search, "compile"):
        P.search.compile(P.SEARCH[fast])  # the overload whose address the engine gets as ``find``
    kernel = pointer_kernel(batch, play_range, batch_sig, range_sig)
    if hasattr(play_range, "disable_compile"):
        # trace_game calls the engine from Python with the scorers as dispatchers: converted to the
        # compiled signature's function pointers instead of compiling a second engine for their types
        play_range.disable_compile()
    return kernel


def trace_game(key, index, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers):
    """One game with its placement log: (score, win, seat_out, game_out, goal_out, events).

    Plain Python around the batch's own compiled engine (one game, log on): a jitted wrapper
    would link and re-optimise the whole engine again, about 8 s more of cold compile for a trace.
    """
    score = np.zeros((1, 2), dtype=np.int64)
    win = np.zeros((1, 2), dtype=np.float64)
    seat_out = np.zeros((1, 2, N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, N_GAME), dtype=np.int64)
    goal_out = np.zeros((1, 2, N_GOALS_IN_PLAY), dtype=np.int64)
    events = np.full((N_CIRCLE, EV_WIDTH), -1, dtype=np.int64)
    fast, user = fast_flag(pol), user_flag(pol)
    batch_kernel(fast, user)  # compiles (or loads) the variant's engine for its signature, the types passed here
    play_range_for(fast, user)(np.uint64(key), np.int64(index), np.int64(0), np.int64(1), rules, card_land,
                               card_sym, card_goal, gp, pol, rl, scorers, score, win, seat_out, game_out, goal_out,
                               events, user, fast, P.search)
    return score, win, seat_out, game_out, goal_out, events
