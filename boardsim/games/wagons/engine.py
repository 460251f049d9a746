"""The jitted Circle the Wagons rules: a run of games in ``_play_range`` (the batch kernels are ``kernel.py``'s).

Setup: shuffle 18 cards; the first 3 go to the centre and their backs are the
goals; the other 15 form the circle.  P2 picks the starting card.  Because every
card from the first available up to the taken one leaves the circle, the draft
is a walk along the circle read from the starting card (``seq``): a turn takes
seq[t + k] and hands seq[t .. t+k-1] to the opponent, who places them in that
(circle) order after the active player placed its own card.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim import rng
from boardsim.games.wagons import decide as D
from boardsim.games.wagons import policies
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW
from boardsim.games.wagons.rules import R_FIRST, R_FIXED, R_TIE, TIE_GUNS

N_CARDS = 18
N_CIRCLE = ST.N_CIRCLE
N_GOALS_IN_PLAY = ST.N_GOALS_IN_PLAY

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


@njit(cache=True, nogil=True)
def tie_rule(rules, s0, s1, guns0, guns1, out):
    """The winner rule, written once (the batch engine's end and step.py's): the higher total wins; equal
    totals go to more guns under the ``tie_break = "guns"`` rule; otherwise the two share the win (0.5 each)."""
    out[0] = 0.0
    out[1] = 0.0
    if s0 != s1:
        out[0 if s0 > s1 else 1] = 1.0
    elif rules[R_TIE] == TIE_GUNS and guns0 != guns1:
        out[0 if guns0 > guns1 else 1] = 1.0
    else:
        out[0] = 0.5
        out[1] = 0.5


@njit(**policies.THIN)
def _place_for(p, c, x, y, rot, town, tab, saved, events, ne, free, turn):
    """Put card c into seat p's town at (x, y, rot) and log it."""
    was_empty = town.meta[p, TW.META_N] == 0
    TW.place(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], tab.card_land[c],
             tab.card_sym[c], x, y, rot, saved)
    TW.commit(town.meta[p], x, y, was_empty)
    TW.count_symbols(town.sym[p], town.cx[p], town.cy[p], town.meta[p, TW.META_N], town.cnt[p])
    town.cards[p] += 1
    events[ne, EV_SEAT] = p
    events[ne, EV_CARD] = c
    events[ne, EV_X] = x
    events[ne, EV_Y] = y
    events[ne, EV_ROT] = rot
    events[ne, EV_FREE] = free
    events[ne, EV_TURN] = turn


@njit(cache=True, nogil=True)
def _play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
                seat_out, game_out, goal_out, events, user, fast, find):
    """Games first+lo .. first+hi-1 of a cell into output rows lo..hi-1; ``events`` receives each game's 15
    placements (the last game's stay).  Every choice a seat makes comes from decide.py (``rl`` and
    ``scorers`` serve its rules and custom seats; ``user`` and ``fast`` are None in the engine variants
    without their code, see ``Wagons._flags``; ``find`` is policies.search).

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
            TW.clear_town(town.land[p], town.sym[p], town.idx[p], town.meta[p], town.cx[p], town.cy[p])
            for s in range(TW.N_SYMBOLS):
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
            _place_for(me, seq[t + k], scr.spots[0, ST.SPOT_X], scr.spots[0, ST.SPOT_Y], scr.spots[0, ST.SPOT_ROT],
                       town, tab, scr.saved, events, ne, np.int64(0), turn)
            ne += 1
            seat_out[row, me, S_TAKEN] += 1
            seat_out[row, me, S_SKIPPED] += k
            # free cards: the receiver places them one at a time in circle order
            for j in range(k):
                D.place_free(pol, op, me, seq, t + j, j == 0, town, tab, goals, scr, dr, state, fast, find)
                _place_for(op, seq[t + j], scr.spots[0, ST.SPOT_X], scr.spots[0, ST.SPOT_Y],
                           scr.spots[0, ST.SPOT_ROT], town, tab, scr.saved, events, ne, np.int64(1), turn)
                ne += 1
            t += k + 1
            turn += 1
            me = op
        for p in range(2):
            q = 1 - p
            total = TW.score(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p, TW.META_N],
                             goals, tab.gp, town.cnt[q], np.bool_(True), scr.ws, scr.detail)
            score[row, p] = total
            lp = 0
            for k in range(TW.N_LANDS):
                lp += scr.detail[k]
            seat_out[row, p, S_LAND] = lp
            seat_out[row, p, S_GOAL] = total - lp
            for g in range(N_GOALS_IN_PLAY):
                goal_out[row, p, g] = scr.detail[TW.N_LANDS + g]
                seat_out[row, p, S_GOAL0 + g] = scr.detail[TW.N_LANDS + g]
            seat_out[row, p, S_GUNS] = town.cnt[p, TW.GUN]
        tie_rule(rules, score[row, 0], score[row, 1], town.cnt[0, TW.GUN], town.cnt[1, TW.GUN], win[row])
        game_out[row, G_ROUNDS] = turn
        game_out[row, G_FIRST] = p1
        game_out[row, G_END] = 0
        game_out[row, G_START] = seq[0]
        for g in range(N_GOALS_IN_PLAY):
            game_out[row, G_GOAL0 + g] = goals[g]
    return 0
