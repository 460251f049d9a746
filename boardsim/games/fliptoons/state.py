"""FlipToons state: the layout of a game's arrays, the named tuples that hold them, and the small helpers that
keep the state's running counts (the grid counts, the owned value sum) and answer what is legal.

The state is a ``State``, a named tuple of plain arrays (numba compiles it like a tuple), so a game can
be copied cheaply (lookahead playouts) and drives the batch kernel, the step interface and the explain/trace
helpers alike.  Its fields, with the short local names the engine unpacks them to:

- ``rows`` (``pc``) int32 (P, NROW, MAXC): per-player card rows: the deck (top = last) and the grid
  cards (kind, slot, face-down flag, arrival sequence, line fame).  A stack is the cards sharing a
  slot, bottom to top by arrival sequence.  One more row (``FC``, by kind) counts the face-up copies of
  each kind in the grid, kept up to date as cards are placed, turned face-down and removed (Check Fame
  reads it).
- ``seat`` (``pv``) int32 (P, NPV): per-player scalars (deck/grid counts, fame, spendable fame, actions ...).
- ``dismissed`` (``dism``) int32 (P, K): each player's dismissed pile by kind.
- ``shared`` (``sh``) int32 (NSH): shared scalars (toon-deck count, phase, round, critic, flags ...).
- ``toon`` int32 (toon_size): the toon deck, top = last.   ``market`` (``mk``) int32 (2, W): market kind / reveal order.

The other named tuples: ``Consts`` (``C``: what a cell's games read and never change), ``Outputs``
(``O``: one game's per-kind stats, per-round fame and event log), ``Results`` (a batch's output arrays,
one row per game), ``Scratch`` (``X``: the synergy policy's private one-seat game) and ``Lookahead``
(``L``: the lookahead policy's playout state).  ``U`` is the rule-list and custom policies' arrays and scorers
(``decide.Users``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardsim.games.fliptoons.cards import (
    C_CBD,
    C_DCOST,
    MAX_EXTRA_ROWS,
)

# -- grid geometry -----------------------------------------------------------------------------
# Base slots 0..5 are r0c0..r1c2 (reading order); extra row Xx column c is slot 6 + 3x + c.  cards.py
# rejects a table with more Monkey-placement cards than there are extra rows.
MAXX = MAX_EXTRA_ROWS
NS = 6 + 3 * MAXX


def _adjacency(lateral: bool) -> np.ndarray:
    adj = np.zeros((NS, NS), dtype=np.uint8)

    def pos(s: int) -> tuple[int, int]:
        # row coordinate: r1 = 1, r0 = 0, X0 = -1, X1 = -2, ...
        if s < 6:
            return s // 3, s % 3
        return -1 - (s - 6) // 3, (s - 6) % 3

    for a in range(NS):
        for b in range(NS):
            ra, ca = pos(a)
            rb, cb = pos(b)
            if ra == rb and abs(ca - cb) == 1:
                adj[a, b] = 1 if (ra >= 0 or lateral) else 0
            elif ca == cb and abs(ra - rb) == 1:
                adj[a, b] = 1
    return adj


ADJ = np.stack([_adjacency(False), _adjacency(True)])


# -- layout constants ----------------------------------------------------------------------------
DECK, GK, GS, GF, GQ, GL, FC = range(7)
NROW = 7
(DN, GN, FAME, SPEND, ACTS, SEQ, DTOT, DSTART, BONUS_ACT, QN, Q0, Q1, Q2, Q3, HIRES, DISMS, SCORE,
 MAXFAME, WINNER, CONTEND, VLO, VHI, NFU, NFD, DUPS, BAN) = range(26)
NPV = 26
# BAN: 1 + the card kind this seat may never hire (0: none), a seat's ``avoid`` option (card strength's ban arm,
# docs/guide/measure-a-card.md): set at setup from the priority row, read by _hire_ok, so every policy, the
# search's own options and its rollouts alike, plays without the card.
# NFU, NFD: face-up and face-down cards in the grid; DUPS: face-up cards beyond the first of their kind (0: all
# unique).  With the FC row they are the grid counts Check Fame reads (_count_up and friends).
NQ = 4
(TN, MSEQ, DEPLETED, FIRST, CRITIC, ROUND, PHASE, TURN, INTURN, LOGON, LOGN, FAMETRIG, END, NP, W,
 DISCARDED, REFLIPS, TOTAL, HORIZON, FIRST0, PIG_SET, FREE_SET) = range(22)
NSH = 22
# PIG_SET, FREE_SET: a sub-choice the search set for the action it applies (mcts.apply_action), read once by
# the Pig's banner (destination + 2) and the Butterfly's free dismissal (1 take, 2 decline); 0 = the seat's rule
PH_START, PH_MARKET, PH_CLEANUP, PH_FINAL, PH_DONE = range(5)
END_REASONS = ("fame", "depletion", "round_cap", "solo_win", "solo_loss")
END_FAME, END_DEPLETION, END_CAP, END_SOLO_WIN, END_SOLO_LOSS, END_HORIZON = range(6)
SEAT_COUNTERS = ("hires", "dismissals", "deck_size", "max_fame")
GAME_COUNTERS = ("critic", "reflips", "toon_left")
ST_OWNED, ST_HIRED, ST_DISMISSED, ST_FAME, ST_APPEAR = range(5)
N_STATS = 5

# card ability codes (positions in cards.py's kind tuples)
B_NONE, B_UNIQUE_ADJ, B_ROW, B_COLUMN, B_ELSEWHERE, B_MOST, B_RANK_COUNT, B_DISM_STARTERS = range(8)
B_DISMISSED, B_ADJ_RANK_MAX, B_ANY_FD, B_ALL_UNIQUE, B_FACEUP, B_COPY_ADJ = range(8, 14)
H_NONE, H_DISMISS_TARGET, H_MARKET_DISCARD, H_PLACE_ANY, H_GAIN = range(5)
D_NONE, D_PLACE_ANY = range(2)  # When Dismissed banners (cards.DISMISSED_KINDS), not the When Hired codes
PL_NONE, PL_OSTRICH, PL_EAGLE, PL_ELEPHANT, PL_TURKEY, PL_RABBIT, PL_MONKEY, PL_SNAKE = range(8)
K_NONE, K_LEAST, K_DONKEY, K_ALLIGATOR = range(4)

# rule vector positions (rules.py fills them)
(R_MIN_CARDS, R_MIN_FREE, R_DEPLETION, R_CRITIC_DEPL, R_CRITIC_REFLIP, R_SNAKE_PEACOCK, R_SOLO_WIN,
 R_COW_FLOOR, R_RABBIT_EXTRA, R_SNAKE_EDGE, R_SHEEP_EXTRA, R_GOAL, R_CRITIC_BONUS, R_MAX_REFLIPS,
 R_MAX_ROUNDS, R_FINAL_FLIP, R_FIRST, R_SOLO_DISCARD, R_SKUNK_FACEUP, R_DECAY_PLAYERS, R_HOOK_TIMING,
 R_SNAKE_ORDER, R_SNAKE_RIGHT_PLACED, R_OSTRICH_MOVES, R_LATERAL, R_ACTIONS, R_DISMISS_COST,
 R_MIN_COUNTS) = range(28)
N_RULES = 28

# policy codes (policies.py; decide.py interprets them)
POL_RANDOM, POL_HIGHEST, POL_PRIORITY, POL_FPC, POL_SYNERGY, POL_LOOKAHEAD, POL_RULES, POL_CUSTOM, POL_MCTS = range(9)
A_END = -1
A_DISMISS = 100  # action 100 + g dismisses grid card g; 0..W-1 hires that market slot

# event log codes (explain.py formats them)
(EV_ROUND, EV_MARKET, EV_GRID, EV_FAME, EV_HIRE, EV_DISMISS, EV_DISCARD, EV_PIG, EV_GAIN, EV_TURN,
 EV_CLEANUP, EV_FINAL, EV_SNAKE_DRAW, EV_SNAKE_SIDE, EV_SNAKE_BOTTOM, EV_RESULT, EV_DECAY, EV_SKUNK) = range(18)
LOG_W = 8
# dismissal reasons in EV_DISMISS
WHY_PAID, WHY_SKUNK, WHY_DONKEY, WHY_ALLIGATOR, WHY_BUTTERFLY, WHY_SNAKE = range(6)




class State(NamedTuple):
    """One game's mutable state (the module docstring describes each array)."""

    rows: np.ndarray
    seat: np.ndarray
    dismissed: np.ndarray
    shared: np.ndarray
    toon: np.ndarray
    market: np.ndarray


class Consts(NamedTuple):
    """What a cell's games read and never change (prepare encodes them)."""

    cards: np.ndarray
    rules: np.ndarray
    prices: np.ndarray
    policies: np.ndarray
    priority: np.ndarray
    values: np.ndarray


class Outputs(NamedTuple):
    """What one game records as it is played (``O``)."""

    stats: np.ndarray  # int32 (N_STATS, P, K): per-kind counts and fame, ST_* first
    round_fame: np.ndarray  # int16 (P, rounds): each seat's fame at each round's Check Fame
    log: np.ndarray  # int32 (rows, LOG_W): the event log (EV_*); one row: logging off


class Results(NamedTuple):
    """A batch's output arrays, row i for game i (``outs``)."""

    score: np.ndarray  # int64 (n, P)
    win: np.ndarray  # float64 (n, P): win shares
    game_out: np.ndarray  # int64 (n, 6): rounds, first player, end reason, critic, re-flips, toon cards left
    seat_out: np.ndarray  # int64 (n, P, 4): SEAT_COUNTERS
    stats: np.ndarray  # int32 (n, N_STATS, P, K): each game's Outputs.stats
    round_fame: np.ndarray  # int16 (n, P, rounds): each game's Outputs.round_fame


class Scratch(NamedTuple):
    """The synergy policy's private one-seat game (``X``), reused by every estimate of a block of games."""

    state: State
    outputs: Outputs
    rng: np.ndarray


class Lookahead(NamedTuple):
    """The state and outputs the lookahead policy's playouts overwrite (``L``)."""

    state: State
    outputs: Outputs


# -- compile-time structure ------------------------------------------------------------------------
# Numba links the LLVM IR of every callee into each caller and re-optimises and re-codegens that whole
# closure at each level, and IR-level inlining (inline='always') re-types the callee at every call site;
# together they made a cold compile of play_batch take ~50 s.  So: the small helpers on the hot path are
# inlined by LLVM instead (forceinline=True, the alwaysinline attribute), everything else is an ordinary
# call (the state tuples cost no reference counting: these kernels run without NRT), helpers called only
# from jitted code skip the CPython and cfunc wrappers, and loop-carried values passed to a helper start
# typed (np.int64(0), not 0) so that numba does not also compile the helper for a literal argument.
# forceinline=False is spelled out because numba passes forceinline on to callees compiled from an
# inlined function.
# Two more cuts (issue 17): a cell with no seat needing FlipToons.FULL_ENGINE runs _play_range_lean, never compiling
# the synergy, rule-list, custom and lookahead code; and advance calls _start_round, _final_flip and
# _score_player through function pointers (FUNCTIONS) in the batch engines.  Inlining more at the IR level
# did not pay: numba's inlining pass grew by as much as the separate compiles it saved.
INLINE = dict(cache=True, nogil=True, _nrt=False, forceinline=True)
CALL = dict(cache=True, nogil=True, _nrt=False, forceinline=False)
INTERNAL = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)
# the jit options of the @overload shims that pick a call by an argument's type (grid._score, step._round_phase)
OVERLOAD = dict(jit_options=dict(cache=True, nogil=True, _nrt=False, **INTERNAL))


# A fixed signature: the call sites pass int32, int64 and literal arguments, and each combination would
# otherwise compile _log once more (20 variants).  Likewise for _add_grid, _deck_top_push, _remove_grid.
@njit("void(int32[::1], int32[:, ::1], int64, int64, int64, int64, int64, int64, int64, int64)", **INLINE, **INTERNAL)
def _log(sh, log, code, a, b, c, d, e, f, g):
    if sh[LOGON] == 0:
        return
    n = sh[LOGN]
    if n >= log.shape[0]:
        return
    log[n, 0] = code
    log[n, 1] = a
    log[n, 2] = b
    log[n, 3] = c
    log[n, 4] = d
    log[n, 5] = e
    log[n, 6] = f
    log[n, 7] = g
    sh[LOGN] = n + 1


# -- small helpers -------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _owned(p, pv):
    return pv[p, DN] + pv[p, GN]


@njit(**INLINE, **INTERNAL)
def _min_cards_ok(p, pv, rules):
    """The minimum deck size of A1 allows p one more dismissal.  min_cards_counts "total" (0): deck + grid
    after the dismissal >= the minimum; "deck" (1): the deck, before the dismissal, holds at least the
    minimum.  One expression for both (the grid term is weighted by 1 - the option), no branch."""
    return pv[p, DN] + (pv[p, GN] - 1) * (1.0 - rules[R_MIN_COUNTS]) >= rules[R_MIN_CARDS]


@njit(**INLINE, **INTERNAL)
def _free_dismiss_ok(p, pv, rules):
    """Whether a free dismissal respects the minimum deck size (A1)."""
    if rules[R_MIN_FREE] == 0:
        return True
    return _min_cards_ok(p, pv, rules)


# -- the grid counts Check Fame reads ---------------------------------------------------------------
# Kept up to date wherever the grid changes: _add_grid, _remove_grid, _collect and the Elephant's flip
# (_turn_facedown).  A state whose grid was set by hand (explain.Table) recounts them with _recount_grid, and
# the synergy policy's scratch grid clears them (_clear_counts).  _score_player reads the face-up, face-down
# and duplicate counts and the Dog's and Camel's copies in every grid from them instead of rescanning the
# grids (issue 28; per-slot kind masks for the Dragonfly were tried too: keeping them up to date cost what
# they saved, 0.99x in 8 interleaved pairs).
@njit(**INLINE, **INTERNAL)
def _count_up(p, pc, pv, kind):
    """A face-up card of ``kind`` arrives in the grid."""
    c = pc[p, FC, kind]
    pc[p, FC, kind] = c + 1
    pv[p, DUPS] += np.int32(c > 0)
    pv[p, NFU] += 1


@njit(**INLINE, **INTERNAL)
def _count_down(p, pc, pv, kind):
    """A face-up card of ``kind`` left the grid or turned face-down."""
    c = pc[p, FC, kind]
    pc[p, FC, kind] = c - 1
    pv[p, DUPS] -= np.int32(c > 1)
    pv[p, NFU] -= 1


@njit(**INLINE, **INTERNAL)
def _turn_facedown(p, pc, pv, i):
    """Grid card i turns face-down (the Elephant); nothing happens to one already face-down."""
    if pc[p, GF, i] == 0:
        pc[p, GF, i] = 1
        pv[p, NFD] += 1
        _count_down(p, pc, pv, np.int64(pc[p, GK, i]))


@njit(**INLINE, **INTERNAL)
def _move_card(p, pc, pv, i, target):
    """Grid card i moves to slot ``target`` (the Monkey), arriving there last."""
    pc[p, GS, i] = target
    pc[p, GQ, i] = pv[p, SEQ]
    pv[p, SEQ] += 1


@njit(**INLINE, **INTERNAL)
def _clear_counts(p, pc, pv):
    """p's grid counts as for an empty grid (a scratch grid emptied without _collect)."""
    for j in range(pc.shape[2]):
        pc[p, FC, j] = 0
    pv[p, NFU] = 0
    pv[p, NFD] = 0
    pv[p, DUPS] = 0


@njit(cache=True, nogil=True)
def _recount_grid(p, pc, pv):
    """p's grid counts recounted from its grid cards (for states set up by hand, and tests)."""
    _clear_counts(p, pc, pv)
    for i in range(pv[p, GN]):
        if pc[p, GF, i] == 0:
            _count_up(p, pc, pv, np.int64(pc[p, GK, i]))
        else:
            pv[p, NFD] += 1


@njit("int64(int64, int32[:, :, ::1], int32[:, ::1], int64, int64, int64)", **INLINE)
def _add_grid(p, pc, pv, kind, slot, fd):
    i = pv[p, GN]
    pc[p, GK, i] = kind
    pc[p, GS, i] = slot
    pc[p, GF, i] = fd
    pc[p, GQ, i] = pv[p, SEQ]
    pc[p, GL, i] = 0
    pv[p, SEQ] += 1
    pv[p, GN] = i + 1
    if fd == 0:
        _count_up(p, pc, pv, kind)
    else:
        pv[p, NFD] += 1
    return i


@njit(**INLINE, **INTERNAL)
def _occupied(p, pc, pv, slot):
    for i in range(pv[p, GN]):
        if pc[p, GS, i] == slot:
            return True
    return False


@njit(**INLINE, **INTERNAL)
def _base_mask(p, pc, pv):
    m = 0
    for i in range(pv[p, GN]):
        s = pc[p, GS, i]
        if s < 6:
            m |= 1 << s
    return m


def _first_empty_table() -> np.ndarray:
    t = np.full(64, -1, dtype=np.int64)
    for m in range(64):
        for s in range(6):
            if not (m >> s) & 1:
                t[m] = s
                break
    return t


FIRST_EMPTY = _first_empty_table()  # lowest clear bit of a 6-bit mask, -1 if none


@njit(**INLINE, **INTERNAL)
def _first_empty(mask):
    """The first empty base slot of a mask (bits 0..5), -1 if none: a table, not a loop whose exit the
    branch predictor keeps missing."""
    return FIRST_EMPTY[mask & 63]


@njit("void(int64, int32[:, :, ::1], int32[:, ::1], int64)", **INLINE)
def _deck_top_push(p, pc, pv, kind):
    pc[p, DECK, pv[p, DN]] = kind
    pv[p, DN] += 1


@njit(**INLINE, **INTERNAL)
def _deck_bottom_push(p, pc, pv, kind):
    n = pv[p, DN]
    for j in range(n, 0, -1):
        pc[p, DECK, j] = pc[p, DECK, j - 1]
    pc[p, DECK, 0] = kind
    pv[p, DN] = n + 1


@njit("void(int64, int32[:, :, ::1], int32[:, ::1], int64)", **INLINE, **INTERNAL)
def _remove_grid(p, pc, pv, g):
    n = pv[p, GN]
    k, fd = pc[p, GK, g], pc[p, GF, g]
    for j in range(g, n - 1):
        for r in range(GK, GL + 1):
            pc[p, r, j] = pc[p, r, j + 1]
    pv[p, GN] = n - 1
    if fd == 0:
        _count_down(p, pc, pv, np.int64(k))
    else:
        pv[p, NFD] -= 1


@njit(**INLINE, **INTERNAL)
def _collect(p, pc, pv):
    """Cleanup: every grid card (face-up, face-down, extra rows) goes back into the deck."""
    for i in range(pv[p, GN]):
        k = pc[p, GK, i]
        _deck_top_push(p, pc, pv, k)
        pc[p, FC, k] = 0
    pv[p, GN] = 0
    pv[p, QN] = 0
    pv[p, NFU] = 0
    pv[p, NFD] = 0
    pv[p, DUPS] = 0


# -- the owned cards' value sum -------------------------------------------------------------------
# The greedy policies read the mean value of a seat's owned cards (deck + grid) at every decision.  Instead of
# a pass over those cards each time, every seat keeps their sum as an exact fixed-point integer: a card counts
# round(value * VALUE_SCALE), and the int64 sum lives in two int32 seat columns (VLO: low word, VHI: high
# word).  It is updated wherever a card joins or leaves a seat's cards (setup, hire, dismissal, the Pig,
# a Snake's draw); integer sums do not depend on the order of the updates, so the running sum always equals
# a recount (_recount_values), whatever path the cards took.  |sum| stays far below 2^53 (at most 1,200 cards
# of |value| < 1,000 by the card table's limits), so the mean's float conversion is exact too.
VALUE_SCALE = float(1 << 24)


@njit(**INLINE, **INTERNAL)
def _vfix(val, k):
    """Card kind k's value in fixed point (units of 1 / VALUE_SCALE)."""
    return np.int64(np.floor(val[k] * VALUE_SCALE + 0.5))


@njit(**INLINE, **INTERNAL)
def _value_sum(p, pv):
    return (np.int64(pv[p, VHI]) << 32) | (np.int64(pv[p, VLO]) & 0xFFFFFFFF)


@njit(**INLINE, **INTERNAL)
def _own(p, pv, delta):
    """Add ``delta`` (a card's _vfix, negative when it leaves) to p's owned value sum."""
    s = _value_sum(p, pv) + delta
    pv[p, VLO] = s & 0xFFFFFFFF  # the int32 store keeps the low 32 bits
    pv[p, VHI] = s >> 32


@njit(**INLINE, **INTERNAL)
def _mean_value(p, pv):
    """Mean value of p's owned cards (0.0 when p owns none), from the running sum."""
    n = pv[p, DN] + pv[p, GN]
    return _value_sum(p, pv) / VALUE_SCALE / n if n > 0 else 0.0


@njit(cache=True, nogil=True)
def _recount_values(p, pc, pv, val):
    """p's owned value sum recounted from its deck and grid (for states set up by hand, and tests)."""
    s = np.int64(0)
    for i in range(pv[p, DN]):
        s += _vfix(val, pc[p, DECK, i])
    for i in range(pv[p, GN]):
        s += _vfix(val, pc[p, GK, i])
    return s


@njit(cache=True, nogil=True)
def _set_value_sum(p, pc, pv, val):
    """Reset p's running value sum to a recount (explain.Table after setting a deck or grid by hand)."""
    _own(p, pv, _recount_values(p, pc, pv, val) - _value_sum(p, pv))


# -- legal market actions (decide.py chooses among them) -------------------------------------------
# Hot loops use the array forms (_hire_ok, _dismiss_ok): pulling arrays out of the state tuples
# inside a loop costs reference-count traffic on every iteration.
@njit(**INLINE, **INTERNAL)
def _hire_ok(p, s, pv, mk, prices):
    return mk[0, s] >= 0 and prices[s] <= pv[p, SPEND] and mk[0, s] + 1 != pv[p, BAN]


@njit(**INLINE, **INTERNAL)
def _dismiss_ok(p, g, pc, pv, cards, rules):
    """Whether p may pay to dismiss grid card g now (§6 and A1)."""
    return _can_pay_dismissal(p, g, pc, cards, pv[p, SPEND]) and _min_cards_ok(p, pv, rules)


@njit(**INLINE, **INTERNAL)
def _can_pay_dismissal(p, g, pc, cards, spend):
    """The paid-dismissal rule (§6) for p's grid card g, but for the minimum deck size (A1: ``_min_cards_ok``, the
    same for every card of a grid, so the loops over a grid test it once): the card is face up, it can be
    dismissed, and its dismissal cost is at most ``spend``.  Non-short-circuit tests: the greedy policies call it
    for every grid card, and one hard-to-predict branch costs less there than three."""
    k = pc[p, GK, g]
    return (pc[p, GF, g] == 0) & (cards[k, C_CBD] == 0) & (cards[k, C_DCOST] <= spend)


# -- state allocation ---------------------------------------------------------------------
@njit(cache=True, nogil=True, forceinline=False)
def _alloc(P, K, maxc, toon_size, Wd):
    # the FC row is indexed by kind
    S = State(np.empty((P, NROW, max(maxc, K)), dtype=np.int32), np.empty((P, NPV), dtype=np.int32),
              np.empty((P, K), dtype=np.int32), np.empty(NSH, dtype=np.int32), np.empty(toon_size, dtype=np.int32),
              np.empty((2, Wd), dtype=np.int32))
    _clear_state(S, P, Wd)
    return S


@njit(**INLINE, **INTERNAL)
def _clear_state(S, P, Wd):
    """The state _alloc returns, in place: the batch kernel reuses one state for a block of games."""
    pc, pv, dism, sh, toon, mk = S
    pc[:] = 0
    pv[:] = 0
    dism[:] = 0
    sh[:] = 0
    toon[:] = 0
    mk[0, :] = -1
    mk[1, :] = 0
    sh[NP] = P
    sh[W] = Wd
    sh[CRITIC] = -1
