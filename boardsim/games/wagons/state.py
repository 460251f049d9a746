"""Named state of one Circle the Wagons game: tuples of arrays that Numba compiles like the bare arrays.

Engine and decision code read ``town.land[p]`` or ``draft.gifts`` instead of positional arguments.
Every array is allocated once per batch block (``new_state``) and reused game after game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardsim import rulelist
from boardsim.games.wagons import fast as F
from boardsim.games.wagons import search as SR
from boardsim.games.wagons import town as TW

N_CIRCLE = 15
N_GOALS_IN_PLAY = 3
# decision view sizes (decide.DECISION_FEATURES, decide.CANDIDATE_COLUMNS); decide.py checks they agree
N_DECISION = 25
N_FEATURES = N_DECISION + 4
N_COLUMNS = 4


class Towns(NamedTuple):
    """Both seats' towns, first index the seat (town.py's layout), and what they show."""

    land: np.ndarray  # int8[2, G, G]: visible land of each cell, -1 empty
    sym: np.ndarray  # int8[2, G, G]: visible symbol of each cell, -1 empty
    idx: np.ndarray  # int16[2, G, G]: the cell's index in cx/cy, -1 empty
    cx: np.ndarray  # int64[2, MAX_CELLS]: cell list, x
    cy: np.ndarray  # int64[2, MAX_CELLS]: cell list, y
    meta: np.ndarray  # int64[2, 5]: cell count, bounding box x0, y0, x1, y1
    cnt: np.ndarray  # int64[2, N_SYMBOLS]: visible symbols of each kind
    cards: np.ndarray  # int64[2]: cards placed


class Tables(NamedTuple):
    """The encoded cards and goals (cards.encode_deck / encode_goals)."""

    card_land: np.ndarray  # int64[18, 4]
    card_sym: np.ndarray  # int64[18, 4]
    card_goal: np.ndarray  # int64[18]: 0-based goal row on the card's back
    gp: np.ndarray  # int64[18, 6]: goal parameters


class Scratch(NamedTuple):
    """Work space of the placement search (policies.search) and of town.score."""

    ws: np.ndarray  # int64[fast.WS_ROWS, FS_WIDTH]: search's rows, then fast's
    saved: np.ndarray  # int64[town.N_SAVED]: what town.unplace restores (town.SAVED_*)
    detail: np.ndarray  # int64[N_LANDS + 3]: a score breakdown
    bestv: np.ndarray  # float64[15]: best value per searched card
    spots: np.ndarray  # int64[15, 3]: best (x, y, rot) per searched card (SPOT_* columns)
    zero_cnt: np.ndarray  # int64[N_SYMBOLS]: an empty opponent (P2's start choice)


# Scratch.spots columns: a searched card's best spot
SPOT_X, SPOT_Y, SPOT_ROT = range(3)
# Draft.spot: where each spot (SPOT_* order) and its flag start, and the symbol counts
DS_TAKEN, DS_TAKEN_SET, DS_FREE, DS_FREE_SET, DS_FREE_CNT = 0, 3, 4, 7, 8


class Draft(NamedTuple):
    """What a draft decision computes and leaves for the placements that follow it."""

    # spot[DS_TAKEN:+3] the taken card's spot when spot[DS_TAKEN_SET] == 1; spot[DS_FREE:+3] the opponent's
    # spot for the first free card when spot[DS_FREE_SET] == 1, searched with the taker's symbol counts
    # spot[DS_FREE_CNT:]
    spot: np.ndarray  # int64[DS_FREE_CNT + N_SYMBOLS]
    gifts: np.ndarray  # float64[15]: summed gain the cards before candidate k give the opponent
    gain: np.ndarray  # float64[15]: candidate k's gain in the own town (exact for the pick of a built-in)
    features: np.ndarray  # float64[N_FEATURES]: decide.FEATURES
    cand: np.ndarray  # float64[15, N_COLUMNS]: decide.CANDIDATE_COLUMNS, one row per candidate
    scores: np.ndarray  # float64[15]: a custom scorer's output
    stack: np.ndarray  # float64[rulelist.STACK]: the rule interpreter's stack
    own: np.ndarray  # int64[15, 3]: the candidates' best spots in the own town (decide.draft)


@njit(cache=True, nogil=True)
def new_state():
    """Fresh towns, search scratch and draft buffers for one run of games."""
    town = Towns(np.full((2, TW.G, TW.G), -1, dtype=np.int8), np.full((2, TW.G, TW.G), -1, dtype=np.int8),
                 np.full((2, TW.G, TW.G), -1, dtype=np.int16), np.zeros((2, TW.MAX_CELLS), dtype=np.int64),
                 np.zeros((2, TW.MAX_CELLS), dtype=np.int64), np.zeros((2, TW.N_META), dtype=np.int64),
                 np.zeros((2, TW.N_SYMBOLS), dtype=np.int64), np.zeros(2, dtype=np.int64))
    scr = Scratch(np.zeros((F.WS_ROWS, SR.FS_WIDTH), dtype=np.int64),  # town.score's rows, search's, fast's
                  np.zeros(TW.N_SAVED, dtype=np.int64), np.zeros(TW.N_LANDS + N_GOALS_IN_PLAY, dtype=np.int64),
                  np.zeros(N_CIRCLE, dtype=np.float64), np.zeros((N_CIRCLE, 3), dtype=np.int64),
                  np.zeros(TW.N_SYMBOLS, dtype=np.int64))
    draft = Draft(np.zeros(DS_FREE_CNT + TW.N_SYMBOLS, dtype=np.int64), np.zeros(N_CIRCLE, dtype=np.float64),
                  np.zeros(N_CIRCLE, dtype=np.float64), np.zeros(N_FEATURES, dtype=np.float64),
                  np.zeros((N_CIRCLE, N_COLUMNS), dtype=np.float64), np.zeros(N_CIRCLE, dtype=np.float64),
                  np.zeros(rulelist.STACK, dtype=np.float64), np.zeros((N_CIRCLE, 3), dtype=np.int64))
    return town, scr, draft
