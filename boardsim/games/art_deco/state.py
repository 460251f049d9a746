"""The layout of an Art Deco game's state: the engine and the decision interface both read it.

A seat's counters are one int64 row (``st[p, C_CASH]`` ...).  The per-game scratch arrays travel as one
``Scratch`` named tuple, which Numba compiles to the same code as the separate arrays it holds.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

SEAT_COUNTERS = (
    "cash",
    "cards_held",
    "cards_sold",
    "paid",
    "sold_value",
    "held_value",
    "dealt_value",
    "eligible",
    "auctions_won",
    "direct_buys",
    "overbid",
    "illegal",
)
(
    C_CASH,
    C_CARDS,
    C_SOLD_N,
    C_PAID,
    C_SOLD_VAL,
    C_HELD_VAL,
    C_DEALT,
    C_ELIG,
    C_AUCT,
    C_DIRECT,
    C_OVERBID,
    C_ILLEGAL,
) = range(len(SEAT_COUNTERS))
N_SEAT = len(SEAT_COUNTERS)

# per-seat auction scratch (aux columns): spending limit, the leader the seat watches (-2: none),
# highest bid when that leader is not / is the high bidder, and for a learned seat whose bids are limits
# (decide.learned_limit) which of this auction's are worked out yet (LIMIT_* bits)
A_MAX, A_LEADER, A_LIM, A_LIM_LEADER, A_LIMITS = range(5)
N_AUX = 5
# A_LIMITS: 0 none yet; bit LIMIT_SET << lead: A_LIM (lead 0) / A_LIM_LEADER (lead 1) holds its limit; bit
# LIMIT_ASK << lead: no limit says the model's answers with that lead, ask it at each such turn
LIMITS_UNSET, LIMIT_SET, LIMIT_ASK = 0, 1, 4
NO_CREDIT_LIMIT = 1 << 40


# Scratch.codes columns: the seat's policy code, whether it may ever sell, whether its bids and its direct buys
# come from rule tables (decide.rule_tables), 1 + the card value it favours and avoids (0: none), and whether a
# learned seat bids up to limits worked out once per auction (decide.learned_limit)
CODE_POLICY, CODE_SELLS, CODE_BID_TABLE, CODE_BUY_TABLE, CODE_FAVOUR, CODE_AVOID, CODE_LIMITS = range(7)
N_CODES = 7


class Scratch(NamedTuple):
    """One game's working arrays, allocated once per batch block and reused by every game in it."""

    ring: np.ndarray  # (deck,) the pile as a ring buffer
    cval: np.ndarray  # (P, cap) value of each card in a seat's collection
    cround: np.ndarray  # (P, cap) round each of those cards was acquired (0 = dealt)
    passed: np.ndarray  # (P,) int64: 1 when the seat passed in this auction
    shown: np.ndarray  # (direct_buy_max + 1,) the cards turned up for a direct purchase
    aux: np.ndarray  # (P, N_AUX) per-auction limits (A_* columns)
    rng: np.ndarray  # (4,) uint64 generator seed state
    codes: np.ndarray  # (P, N_CODES) the CODE_* columns: policy code, may it ever sell, bids/buys from tables
    feats: np.ndarray  # (P, N_FEATURES) each open seat's decision view (decide.FEATURES)
    cand: np.ndarray  # (rows, N_COLUMNS) a custom scorer's candidate matrix (decide.COLUMNS)
    scores: np.ndarray  # (rows,) the scorer's output
    stack: np.ndarray  # (rulelist.STACK,) the rule interpreter's scratch


# A game in progress, one decision at a time (step.py, the mcts player): the engine's Scratch, the seat
# counters, and the play's own counters ``v`` (V_*): the phase (PH_*: whose decision it is about), round
# (at the end, the rounds played), start players, pile head and tail, the auction's high bidder and bid,
# passes, the decision's seat, the shown cards and the one being decided, unsold count, end reason, log
# rows, the auction's bid range.
PH_BID, PH_BUY, PH_SELL, PH_OVER = range(4)
# where step.play resumes between decisions (never a decision): the deal, a round's start, the scoring
PH_DEAL, PH_ROUND, PH_END = range(4, 7)
(V_PHASE, V_RND, V_START, V_NEXT, V_ROT, V_HEAD, V_TAIL, V_ACTIVE, V_HIGH, V_BID, V_NPASS, V_SEAT,
 V_NSHOWN, V_K, V_UNSOLD, V_END, V_NLOG, V_MINOPEN, V_TOP) = range(19)
N_V = 19


class World(NamedTuple):
    """One game in progress in fixed-size arrays (step.new_world allocates one)."""

    scratch: Scratch  # the engine's arrays: ring, cval, cround, passed, shown, aux, rng, codes, feats, cand, ...
    st: np.ndarray  # int64 (P, N_SEAT): the seat counters
    v: np.ndarray  # int64 (N_V,): the V_* counters
    r: np.ndarray  # float64 (1,): the uniform drawn for the current decision
    score: np.ndarray  # int64 (P,)
    win: np.ndarray  # float64 (P,)
    log: np.ndarray  # int64 (rows, engine.LOG_WIDTH); 0 rows: no log
    # the game's progress per round (Prepared.progress): int64 (P, R), each seat's score (cash + held value) and
    # cards held at the end of round r + 1, rounds after the game's last filled with its end; (P, 0): not recorded
    progress: np.ndarray
    progress_cards: np.ndarray


# Small helpers called at several places in the engine are compiled once, for one signature, and inlined by
# LLVM (forceinline).  Inlined by numba at the IR level instead (inline="always"), every call site was typed,
# SSA-rebuilt and lowered again: most of the engine's cold compile.  ``kernel._engine`` compiles each helper for
# its signature before the engine and then forbids others, so a call with a literal argument converts to that
# signature instead of compiling a variant.  _nrt=False: no reference counting of the arrays passed; no
# wrappers: only compiled code calls them.
HELPERS: list = []  # (dispatcher, signature), in definition order (a helper's callees first)


def helper(sig):
    """Decorator: a fixed-signature, LLVM-inlined engine helper (see above)."""

    def wrap(fn):
        jitted = njit(cache=True, nogil=True, _nrt=False, forceinline=True, no_cpython_wrapper=True,
                      no_cfunc_wrapper=True)(fn)
        HELPERS.append((jitted, sig))
        return jitted

    return wrap


@njit(cache=True, nogil=True, inline="always")
def price(value, factor):
    """A card's price at a direct-buy or sale ``factor``: value x factor, rounded half up."""
    if factor == 1.0:  # the default, and floor(v + 0.5) == v: skip the float round trip
        return value
    return int(math.floor(value * factor + 0.5))
