"""Circle the Wagons' rule helpers and output layout: placing a card, the winner rule (step.py plays the
game with them, kernel.py's batch kernels through step.py).

Setup: shuffle 18 cards; the first 3 go to the centre and their backs are the
goals; the other 15 form the circle.  P2 picks the starting card.  Because every
card from the first available up to the taken one leaves the circle, the draft
is a walk along the circle read from the starting card (``seq``): a turn takes
seq[t + k] and hands seq[t .. t+k-1] to the opponent, who places them in that
(circle) order after the active player placed its own card.
"""

from __future__ import annotations

from numba import njit

from boardsim.games.wagons import policies
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW
from boardsim.games.wagons.rules import R_TIE, TIE_GUNS

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
