"""FlipToons Season 1 engine in Numba (spec docs/rules/fliptoons.md): the rules of the game only.

Every choice a player makes (which card to hire or dismiss, where the Pig goes, the sub-choices of
banners and hooks) is asked of the decision interface in ``decide.py``, which holds the built-in,
rule-list and custom policies.

The state is a :class:`State`, a named tuple of plain arrays (numba compiles it like a tuple), so a
game can be copied cheaply (lookahead playouts) and drives both the batch kernel and the
explain/trace helpers.  Its fields, with the short local names the engine unpacks them to:

- ``rows`` (``pc``) int32 (P, NROW, MAXC): per-player card rows: the deck (top = last) and the grid
  cards (kind, slot, face-down flag, arrival sequence, line fame).  A stack is the cards sharing a
  slot, bottom to top by arrival sequence.  One more row (``FC``, by kind) counts the face-up copies of
  each kind in the grid, kept up to date as cards are placed, turned face-down and removed (Check Fame
  reads it).
- ``seat`` (``pv``) int32 (P, NPV): per-player scalars (deck/grid counts, fame, spendable fame, actions ...).
- ``dismissed`` (``dism``) int32 (P, K): each player's dismissed pile by kind.
- ``shared`` (``sh``) int32 (NSH): shared scalars (toon-deck count, phase, round, critic, flags ...).
- ``toon`` int32 (T): the toon deck, top = last.   ``market`` (``mk``) int32 (2, W): market kind / reveal order.

Constants ``C`` are a :class:`Consts` (cards, rules, prices, policies, priority table, card values);
outputs ``O`` = (per-kind stats, per-round fame, event log); ``U`` is the rule-list and custom
policies' arrays and scorers (``decide.Users``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import cfunc, njit, prange, typeof, types
from numba.extending import overload

from boardsim import custom
from boardsim.games.base import Prepared, pointer_kernel
from boardsim.games.fliptoons.cards import (
    C_BFAME,
    C_BONUS,
    C_BPARAM,
    C_CBD,
    C_CBF,
    C_COPIES,
    C_DCOST,
    C_FAME,
    C_HA,
    C_HB,
    C_HIRED,
    C_HOOK,
    C_ONDISM,
    C_PLACE,
    C_RANK,
    C_SOLO,
    C_STARTER,
    C_TARGET,
    MAX_EXTRA_ROWS,
)
from boardsim.rng import below, game_seed, seed_state, shuffle, step
from boardsim.rulelist import pack_seats

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
 MAXFAME, WINNER, CONTEND, VLO, VHI, NFU, NFD, DUPS) = range(25)
NPV = 25
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
SCALAR_SHIFT = np.zeros(16, dtype=np.int64)  # where _score_player's packed scalars keep each bonus's count
SCALAR_MASK = np.zeros(16, dtype=np.int64)  # 0: not a scalar bonus
for _b, _shift, _mask in ((B_DISM_STARTERS, 0, (1 << 20) - 1), (B_DISMISSED, 20, (1 << 20) - 1),
                          (B_FACEUP, 40, (1 << 20) - 1), (B_ANY_FD, 60, 1), (B_ALL_UNIQUE, 61, 1)):
    SCALAR_SHIFT[_b] = _shift
    SCALAR_MASK[_b] = _mask
# the bonuses _score_player computes with loops (row and column are per-slot tests, the rest scalars above)
COMPLEX_BONUS = sum(1 << b for b in (B_UNIQUE_ADJ, B_ELSEWHERE, B_MOST, B_RANK_COUNT, B_ADJ_RANK_MAX, B_COPY_ADJ))
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
# Two more cuts (issue 17): a cell whose seats all play LEAN_POLICIES runs _play_range_lean, which never compiles
# the synergy, rule-list, custom and lookahead code; and _advance calls _start_round, _final_flip and
# _score_player through function pointers (FUNCTIONS) in the batch engines.  Inlining more at the IR level
# did not pay: numba's inlining pass grew by as much as the separate compiles it saved.
INLINE = dict(cache=True, nogil=True, _nrt=False, forceinline=True)
CALL = dict(cache=True, nogil=True, _nrt=False, forceinline=False)
INTERNAL = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)


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


# -- dismissed pile and the Pig --------------------------------------------------------------------


@njit(**CALL, **INTERNAL)
def _place_in_deck(dest, kind, S, rng):
    pc, pv, dism, sh, toon, mk = S
    if dest < 0:
        toon[sh[TN]] = kind
        sh[TN] += 1
        shuffle(rng, toon, np.int64(sh[TN]))
    else:
        _deck_bottom_push(dest, pc, pv, kind)


@njit(**INLINE, **INTERNAL)
def _takes_free(p, sh, C, rng):
    """Whether p takes a Butterfly's free dismissal: the search's choice if it set one, else the seat's rule."""
    chosen = sh[FREE_SET]
    if chosen != 0:
        sh[FREE_SET] = 0
        return chosen == 1
    return D.takes_free_dismissal(p, C, rng)


@njit(**CALL, **INTERNAL)
def _pig_to_deck(p, kind, S, C, O, rng):
    """The Pig's banner, "when hired or dismissed, place this card in any deck": the one path for a hire,
    a Snake-stacked Pig and every dismissal route, so the deck is always the seat policy's same choice."""
    chosen = S.shared[PIG_SET]
    if chosen != 0:  # the search chose the deck (mcts.apply_action)
        S.shared[PIG_SET] = 0
        dest = np.int64(chosen - 2)
    else:
        dest = D.pig_destination(p, S, C, rng)
    _place_in_deck(dest, kind, S, rng)
    if dest >= 0:
        _own(dest, S.seat, _vfix(C.values, kind))
    _log(S.shared, O[2], EV_PIG, p, kind, dest, 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _to_pile(p, kind, why, S, C, O, rng):
    """A card leaves p's grid or deck as a dismissal: pile, stats, When Dismissed banner.

    Inlined, with the rare Pig in a call of its own: an ordinary call copies every field of every
    array in the state tuples, which cost more than the work here."""
    pc, pv, dism, sh, toon, mk = S
    cards = C.cards
    stt, rf, log = O
    _own(p, pv, -_vfix(C.values, kind))  # the card has left p's grid or deck
    stt[ST_DISMISSED, p, kind] += 1
    pv[p, DISMS] += 1
    _log(sh, log, EV_DISMISS, p, kind, why, 0, 0, 0, 0)
    if cards[kind, C_ONDISM] == D_PLACE_ANY:
        _pig_to_deck(p, kind, S, C, O, rng)
        return
    dism[p, kind] += 1
    pv[p, DTOT] += 1
    if cards[kind, C_STARTER] != 0:
        pv[p, DSTART] += 1


@njit(**INLINE, **INTERNAL)
def _dismiss_grid(p, g, why, S, C, O, rng):
    pc, pv = S.rows, S.seat
    kind = pc[p, GK, g]
    _remove_grid(p, pc, pv, g)
    _to_pile(p, kind, why, S, C, O, rng)


# -- Flip (§3) -------------------------------------------------------------------------------------
@njit(**CALL, **INTERNAL)
def _rabbit_target(p, kind, pc, pv, rules):
    """First slot in reading order holding a face-up card of this kind or any face-down card."""
    last = NS if rules[R_RABBIT_EXTRA] != 0 else 6
    for s in range(last):
        for i in range(pv[p, GN]):
            if pc[p, GS, i] == s and (pc[p, GF, i] == 1 or pc[p, GK, i] == kind):
                return s
    return -1


@njit(**CALL, **INTERNAL)
def _snake(p, i_snake, mask, prev, S, C, O, rng):
    """Snake's placement ability (§3.4).  Returns the new base mask and previous-placed card."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    stt, rf, log = O
    slot = pc[p, GS, i_snake]
    if pv[p, DN] > 0:
        top = pc[p, DECK, pv[p, DN] - 1]
        if cards[top, C_CBD] == 0:
            if _free_dismiss_ok(p, pv, rules):
                pv[p, DN] -= 1
                _to_pile(p, top, np.int64(WHY_SNAKE), S, C, O, rng)
        else:
            col = slot % 3
            if rules[R_SNAKE_EDGE] == 0:
                edge = col == 2
            else:
                edge = slot == 5
            target = -1
            if not edge:
                if col < 2:
                    target = slot + 1
                else:
                    target = _first_empty(mask)
            pv[p, DN] -= 1
            if target < 0:
                _deck_bottom_push(p, pc, pv, top)
                _log(sh, log, EV_SNAKE_BOTTOM, p, top, 0, 0, 0, 0, 0)
            else:
                j = _add_grid(p, pc, pv, top, target, 0)
                if target < 6:
                    mask |= 1 << target
                if rules[R_SNAKE_RIGHT_PLACED] != 0:
                    prev = j
                _log(sh, log, EV_SNAKE_SIDE, p, top, target, 0, 0, 0, 0)
    if sh[TN] > 0:
        k = toon[sh[TN] - 1]
        sh[TN] -= 1
        _add_grid(p, pc, pv, k, slot, 0)
        _own(p, pv, _vfix(C.values, k))
        stt[ST_HIRED, p, k] += 1
        _log(sh, log, EV_SNAKE_DRAW, p, k, 0, 0, 0, 0, 0)
        if cards[k, C_HIRED] != H_NONE and pv[p, QN] < NQ:
            pv[p, Q0 + pv[p, QN]] = k
            pv[p, QN] += 1
    return mask, prev


@njit(**INLINE)
def _place_all(p, S, C, O, rng):
    """Reveal cards from the top of p's deck into the grid until 6 base slots are full (§3.1).

    The reveal loop (``_place_run``) is an ordinary call that takes only the arrays it reads: a call
    that passes the state tuples copies every field of every array in them, every flip.  A Snake's
    ability, which touches the whole state, runs between the loop's parts."""
    pc, pv = S.rows, S.seat
    pv[p, QN] = 0
    mask = _base_mask(p, pc, pv)
    prev = np.int64(-1)
    while True:
        mask, prev, i = _place_run(p, pc, pv, C.cards, C.rules, mask, prev)
        if i < 0:
            return
        mask, prev = _snake(p, i, mask, prev, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _place_run(p, pc, pv, cards, rules, mask, prev):
    """``_place_all``'s loop from a base mask and previous-placed card, until the grid is full, the
    deck is empty or a face-up Snake is placed: returns (mask, prev, that Snake's grid index or -1).
    Nothing is pending after a Snake: a pending effect always ends with the next card."""
    pending = 0  # 1 = stack next on pend_slot (Ostrich), 2 = flip next (Eagle)
    pend_slot = -1
    while mask != 63 and pv[p, DN] > 0:
        pv[p, DN] -= 1
        c = pc[p, DECK, pv[p, DN]]
        place = cards[c, C_PLACE]
        slot = -1
        fd = np.int64(0)
        suppress = False
        by_ostrich = False
        if pending == 2:
            pending = 0
            if cards[c, C_CBF] == 0:
                slot = _first_empty(mask)
                fd = 1
                suppress = True
        elif pending == 1:
            pending = 0
            slot = pend_slot
            by_ostrich = True
        if slot < 0:
            if place == PL_TURKEY and prev >= 0:
                slot = pc[p, GS, prev]
            elif place == PL_RABBIT:
                slot = _rabbit_target(p, c, pc, pv, rules)
                if slot < 0:
                    slot = _first_empty(mask)
            else:
                slot = _first_empty(mask)
        elif by_ostrich and rules[R_OSTRICH_MOVES] != 0:
            # A5 alternative: a Rabbit or Turkey stacked by an Ostrich still moves itself.
            if place == PL_RABBIT:
                t = _rabbit_target(p, c, pc, pv, rules)
                if t >= 0:
                    slot = t
            elif place == PL_TURKEY and prev >= 0:
                slot = pc[p, GS, prev]
        i = _add_grid(p, pc, pv, c, slot, fd)
        if slot < 6:
            mask |= 1 << slot
        before = prev
        prev = i
        if suppress:
            continue
        if place == PL_ELEPHANT:
            if before >= 0 and cards[pc[p, GK, before], C_CBF] == 0:
                _turn_facedown(p, pc, pv, before)
        elif place == PL_OSTRICH:
            pending = 1
            pend_slot = slot
        elif place == PL_EAGLE:
            pending = 2
        elif place == PL_MONKEY:
            if slot < 3:
                # a free row always exists: cards.py allows at most MAXX Monkey-placement cards in all
                target = 6 + 3 * (MAXX - 1) + slot
                for x in range(MAXX):
                    t = 6 + 3 * x + slot
                    if not _occupied(p, pc, pv, t):
                        target = t
                        break
                _move_card(p, pc, pv, i, np.int64(target))
                if not _occupied(p, pc, pv, slot):
                    mask &= ~(1 << slot)
        elif place == PL_SNAKE:
            return mask, prev, i
    return mask, prev, np.int64(-1)


@njit(**INLINE, **INTERNAL)
def _shuffle(rng, arr, n):
    """``rng.shuffle``, the same draws and the same order, with the generator in locals for the loop: LLVM
    cannot tell the state array apart from the deck, so rng.shuffle stores and reloads the state on every
    swap."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    for i in range(n - 1, 0, -1):
        u, s0, s1, s2, s3 = step(s0, s1, s2, s3)
        j = int(u * (i + 1))  # rng.below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3


@njit(**INLINE, **INTERNAL)
def _flip(p, S, C, O, rng):
    pc, pv = S.rows, S.seat
    _shuffle(rng, pc[p, DECK], np.int64(pv[p, DN]))
    _place_all(p, S, C, O, rng)


# -- Check Fame (§4) -------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _popcount(m):
    """Set bits of a non-negative int64 (SWAR: no loop whose exit the branch predictor would miss)."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (m * 0x0101010101010101) >> 56


@njit(**CALL)
def _score_player(p, pc, pv, sh, mk, cards, rules):
    """Fame of every card in p's grid (written to the GL row); returns the grid total.

    Takes only the arrays it reads, not the state tuples: an ordinary call copies every field of every
    array it is passed, and this one runs for each player every round."""
    P = np.int64(sh[NP])
    Wd = np.int64(sh[W])
    n = pv[p, GN]
    lat = 1 if rules[R_LATERAL] != 0 else 0
    # Branch-free where it can be: face-up or not, and the bonus type of each card, are data the branch
    # predictor keeps missing.  The bonuses that need only per-grid scalars are a sum of masked terms
    # (integer arithmetic: the same totals); the ones with loops keep their branches.
    # The per-grid scalars packed into one word, read by bonus type through SCALAR_SHIFT/SCALAR_MASK:
    # dismissed starters and dismissed cards (20 bits each: a game has far fewer cards), face-up count
    # (20 bits), any face-down and all unique (1 bit each).  The grid counts are kept up to date as cards are
    # placed (_count_up and friends), so no pass over the grid is needed for them.
    packed = (np.int64(pv[p, DSTART]) | (np.int64(pv[p, DTOT]) << 20) | (np.int64(pv[p, NFU]) << 40)
              | (np.int64(pv[p, NFD] > 0) << 60) | (np.int64(pv[p, DUPS] == 0) << 61))
    sheep_extra = np.int64(rules[R_SHEEP_EXTRA] != 0)
    has_cow = False
    total = np.int64(0)  # the grid total, summed in the same pass (again below only when a Cow copies)
    for i in range(n):
        fu = np.int64(pc[p, GF, i] != 1)
        k = pc[p, GK, i]
        s = np.int64(pc[p, GS, i])
        b = np.int64(cards[k, C_BONUS])
        bf = np.int64(cards[k, C_BFAME])
        bp = np.int64(cards[k, C_BPARAM])
        f = np.int64(cards[k, C_FAME])
        base = s < 6
        mult = (((packed >> SCALAR_SHIFT[b]) & SCALAR_MASK[b])
                + np.int64(b == B_ROW) * np.int64(base & (s // 3 == bp))
                + np.int64(b == B_COLUMN) * np.int64((s % 3 == bp) & (base | (sheep_extra != 0))))
        f += bf * mult
        if (fu != 0) & (((COMPLEX_BONUS >> b) & 1) != 0):
            if b == B_UNIQUE_ADJ:
                m = np.int64(0)
                for j in range(n):
                    on = np.int64((pc[p, GF, j] == 0) & (ADJ[lat, s, pc[p, GS, j]] != 0))
                    m |= on << np.int64(pc[p, GK, j])
                f += bf * _popcount(m)
            elif b == B_ELSEWHERE:
                found = False
                for m2 in range(Wd):
                    if mk[0, m2] == k:
                        found = True
                for q in range(P):
                    if q != p and pc[q, FC, k] > 0:
                        found = True
                if found:
                    f += bf
            elif b == B_MOST:
                own = pc[p, FC, k]
                ok = True
                mc = 0
                for m2 in range(Wd):
                    if mk[0, m2] == k:
                        mc += 1
                if mc > own:
                    ok = False
                for q in range(P):
                    if q != p and pc[q, FC, k] > own:
                        ok = False
                if ok:
                    f += bf
            elif b == B_RANK_COUNT:
                cnt = 0
                for j in range(n):
                    if pc[p, GF, j] == 0 and cards[pc[p, GK, j], C_RANK] <= bp:
                        cnt += 1
                f += bf * cnt
            elif b == B_ADJ_RANK_MAX:
                ok = True
                for j in range(n):
                    if pc[p, GF, j] == 0 and ADJ[lat, s, pc[p, GS, j]] and cards[pc[p, GK, j], C_RANK] > bp:
                        ok = False
                if ok:
                    f += bf
            elif b == B_COPY_ADJ:
                has_cow = True
        pc[p, GL, i] = f * fu
        total += f * fu
    if has_cow:
        # Cows copy the best adjacent total; Cow chains settle by repeated maxima (§4.4).
        unset = -(1 << 29)
        for i in range(n):
            if pc[p, GF, i] == 0 and cards[pc[p, GK, i], C_BONUS] == B_COPY_ADJ:
                pc[p, GL, i] = unset
        changed = True
        rounds = 0
        while changed and rounds <= n + 1:
            changed = False
            rounds += 1
            for i in range(n):
                if pc[p, GF, i] != 0 or cards[pc[p, GK, i], C_BONUS] != B_COPY_ADJ:
                    continue
                best = unset
                s = pc[p, GS, i]
                for j in range(n):
                    if j != i and pc[p, GF, j] == 0 and ADJ[lat, s, pc[p, GS, j]]:
                        v = pc[p, GL, j]
                        if v > best:
                            best = v
                if best > pc[p, GL, i]:
                    pc[p, GL, i] = best
                    changed = True
        for i in range(n):
            if pc[p, GF, i] == 0 and cards[pc[p, GK, i], C_BONUS] == B_COPY_ADJ:
                k = pc[p, GK, i]
                v = pc[p, GL, i]
                if v == unset:
                    v = 0
                if rules[R_COW_FLOOR] != 0 and v < 0:
                    v = 0
                pc[p, GL, i] = v + cards[k, C_FAME]
        total = np.int64(0)
        for i in range(n):
            total += pc[p, GL, i]
    return total


@njit(**INLINE)
def _fame(p, S, C, score):
    """Check Fame for seat p: ``_score_player`` (called through ``score``, a function pointer to it, unless that
    is None: _round_phase says why) on just the arrays it reads."""
    return _score(score, p, S.rows, S.seat, S.shared, S.market, C.cards, C.rules)


# -- market (§6) -------------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _market_count(mk, Wd):
    n = 0
    for s in range(Wd):
        if mk[0, s] >= 0:
            n += 1
    return n


@njit(**INLINE, **INTERNAL)
def _sort_market(mk, Wd, cards):
    """Right-justify the occupied slots and sort them by (rank, reveal order) (§6.5)."""
    w = Wd - 1
    for s in range(Wd - 1, -1, -1):
        if mk[0, s] >= 0:
            mk[0, w] = mk[0, s]
            mk[1, w] = mk[1, s]
            w -= 1
    for s in range(w, -1, -1):
        mk[0, s] = -1
        mk[1, s] = 0
    lo = w + 1
    for a in range(lo + 1, Wd):
        k = mk[0, a]
        q = mk[1, a]
        r = cards[k, C_RANK]
        b = a - 1
        while b >= lo and (cards[mk[0, b], C_RANK] > r or (cards[mk[0, b], C_RANK] == r and mk[1, b] > q)):
            mk[0, b + 1] = mk[0, b]
            mk[1, b + 1] = mk[1, b]
            b -= 1
        mk[0, b + 1] = k
        mk[1, b + 1] = q


@njit(**INLINE)
def _refill(S, C):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    Wd = np.int64(sh[W])
    short = False
    for s in range(Wd):
        if mk[0, s] < 0:
            if sh[TN] > 0:
                mk[0, s] = toon[sh[TN] - 1]
                mk[1, s] = sh[MSEQ]
                sh[MSEQ] += 1
                sh[TN] -= 1
            else:
                short = True
    _sort_market(mk, Wd, cards)
    if rules[R_DEPLETION] == 0:
        if short:
            sh[DEPLETED] = 1
    elif _market_count(mk, Wd) == 0:
        sh[DEPLETED] = 1


@njit(**INLINE, **INTERNAL)
def _log_market(S, O):
    sh, mk = S.shared, S.market
    log = O[2]
    if sh[LOGON] == 0:
        return
    Wd = np.int64(sh[W])
    # scalars, not a temporary array: the callers run without NRT
    v0 = mk[0, 0] if Wd > 0 else -1
    v1 = mk[0, 1] if Wd > 1 else -1
    v2 = mk[0, 2] if Wd > 2 else -1
    v3 = mk[0, 3] if Wd > 3 else -1
    v4 = mk[0, 4] if Wd > 4 else -1
    v5 = mk[0, 5] if Wd > 5 else -1
    _log(sh, log, EV_MARKET, v0, v1, v2, v3, v4, v5, sh[TN])


@njit(**INLINE)
def _decay(S, C, O):
    """1-2 players: discard the leftmost and rightmost market cards, then refill (§6.4)."""
    sh, mk = S.shared, S.market
    log = O[2]
    Wd = np.int64(sh[W])
    for s in (0, Wd - 1):
        if mk[0, s] >= 0:
            _log(sh, log, EV_DECAY, mk[0, s], 0, 0, 0, 0, 0, 0)
            mk[0, s] = -1
            sh[DISCARDED] += 1
    _refill(S, C)


# -- banners and market actions ----------------------------------------------------------------------
@njit(**CALL, **INTERNAL)
def _banner(p, kind, grid_index, from_snake, S, C, O, rng):
    """A When Hired banner (§10): Butterfly, Horse, Pig, Peacock."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules, prices, pol, prio, val = C
    log = O[2]
    h = cards[kind, C_HIRED]
    if h == H_GAIN:
        pv[p, SPEND] += cards[kind, C_HA]
        if from_snake != 0:
            pv[p, BONUS_ACT] += cards[kind, C_HB]
            if rules[R_SNAKE_PEACOCK] != 0:
                pv[p, FAME] += cards[kind, C_HA]
        else:
            pv[p, ACTS] += cards[kind, C_HB]
        _log(sh, log, EV_GAIN, p, kind, cards[kind, C_HA], cards[kind, C_HB], 0, 0, 0)
    elif h == H_DISMISS_TARGET:
        t = cards[kind, C_TARGET]
        g = np.int64(-1)  # typed from the start: a literal -1 compiled _dismiss_grid once more
        for i in range(pv[p, GN]):
            if pc[p, GK, i] == t and pc[p, GF, i] == 0 and cards[t, C_CBD] == 0:
                g = i
                break
        if g >= 0 and _free_dismiss_ok(p, pv, rules) and _takes_free(p, sh, C, rng):
            _dismiss_grid(p, g, np.int64(WHY_BUTTERFLY), S, C, O, rng)
    elif h == H_MARKET_DISCARD:
        m = _mean_value(p, pv)
        for s in range(np.int64(sh[W])):
            k = mk[0, s]
            if k < 0:
                continue
            if D.horse_discards(p, k, m, C, rng):
                _log(sh, log, EV_DISCARD, p, k, 0, 0, 0, 0, 0)
                mk[0, s] = -1
                sh[DISCARDED] += 1
        _refill(S, C)
    elif h == H_PLACE_ANY and from_snake != 0 and grid_index >= 0:
        _remove_grid(p, pc, pv, grid_index)
        _own(p, pv, -_vfix(val, kind))
        _pig_to_deck(p, kind, S, C, O, rng)


@njit(**INLINE)
def _hire(p, s, S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, prices = C.cards, C.prices
    stt, rf, log = O
    k = mk[0, s]
    pv[p, SPEND] -= prices[s]
    pv[p, ACTS] -= 1
    mk[0, s] = -1
    stt[ST_HIRED, p, k] += 1
    pv[p, HIRES] += 1
    _log(sh, log, EV_HIRE, p, k, prices[s], s, 0, 0, 0)
    if cards[k, C_HIRED] == H_PLACE_ANY:
        _pig_to_deck(p, k, S, C, O, rng)
        return
    _deck_top_push(p, pc, pv, k)
    _own(p, pv, _vfix(C.values, k))
    if cards[k, C_HIRED] != H_NONE:
        _banner(p, k, np.int64(-1), np.int64(0), S, C, O, rng)


@njit(**INLINE)
def _dismiss_legal(p, g, S, C):
    pc, pv = S.rows, S.seat
    cards, rules = C.cards, C.rules
    if pc[p, GF, g] != 0:
        return False
    k = pc[p, GK, g]
    if cards[k, C_CBD] != 0 or cards[k, C_DCOST] > pv[p, SPEND]:
        return False
    return _min_cards_ok(p, pv, rules)


@njit(**INLINE)
def _apply(p, a, S, C, O, rng):
    pc, pv = S.rows, S.seat
    cards = C.cards
    if a == A_END:
        pv[p, ACTS] = 0
    elif a < A_DISMISS:
        _hire(p, a, S, C, O, rng)
    else:
        g = a - A_DISMISS
        pv[p, SPEND] -= cards[pc[p, GK, g], C_DCOST]
        pv[p, ACTS] -= 1
        _dismiss_grid(p, g, np.int64(WHY_PAID), S, C, O, rng)


# -- the step interface: to_move, legal_actions, step_apply (with _advance to stop at decisions, _copy_state) --
@njit(**INLINE)
def to_move(S):
    """The seat whose market decision _advance stopped at."""
    sh = S.shared
    return np.int64((sh[FIRST] + sh[TURN]) % sh[NP])


@njit(**INLINE)
def legal_actions(p, S, C, out):
    """Seat p's legal market actions into ``out`` (at least W + grid cards + 1 long): every affordable hire
    (slot order), every legal paid dismissal (A_DISMISS + grid index, grid order), then ending the turn
    (A_END, always legal).  Returns how many."""
    pc, pv, mk = S.rows, S.seat, S.market
    n = np.int64(0)
    for s in range(np.int64(S.shared[W])):
        if _hire_ok(p, s, pv, mk, C.prices):
            out[n] = s
            n += 1
    for g in range(pv[p, GN]):
        if _dismiss_ok(p, g, pc, pv, C.cards, C.rules):
            out[n] = A_DISMISS + g
            n += 1
    out[n] = A_END
    return n + 1


@njit(**INLINE)
def _step_apply(p, a, S, C, O, rng):
    """Play seat p's market action ``a`` (the step interface's *apply*); returns True when it ended the game
    (a solo instant win), after which _advance returns 0."""
    _apply(p, a, S, C, O, rng)
    pv, rules = S.seat, C.rules
    if S.shared[NP] == 1 and rules[R_SOLO_WIN] != 0 and pv[0, SPEND] >= rules[R_GOAL]:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return True
    return False


# -- end-of-turn hooks (§6.3) and the least-fame hook (§5) ----------------------------------------
@njit(**INLINE, **INTERNAL)
def _hook_may_act(p, pc, pv, cards):
    """Whether a face-up Donkey in the bottom row or a face-up Alligator with a right neighbour slot is
    in p's grid: otherwise ``_run_hooks`` does nothing (hooks only remove cards, so none becomes due)."""
    for i in range(pv[p, GN]):
        h = cards[pc[p, GK, i], C_HOOK]
        if h >= K_DONKEY and pc[p, GF, i] == 0:
            s = pc[p, GS, i]
            if (h == K_DONKEY and 3 <= s < 6) or (h == K_ALLIGATOR and s % 3 < 2):
                return True
    return False


@njit(**INLINE)
def _hooks(p, S, C, O, X, rng):
    """End-of-turn hooks; the common case of no hook that can act returns without a call that passes
    the state."""
    if _hook_may_act(p, S.rows, S.seat, C.cards):
        _run_hooks(p, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _run_hooks(p, S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    # Hooks resolve in reading order (base slots, then extra rows), within a stack bottom to top: by the
    # key (slot, arrival sequence), unique per card.  A hook only removes grid cards (never adds or moves
    # one), so the next hook is the smallest key above the last one among the cards still in the grid --
    # no list of the hooks present at the start, and a hook card removed meanwhile is simply not found.
    last = np.int64(-1)
    while True:
        i = np.int64(-1)  # typed from the start: a literal -1 compiled _dismiss_grid once more
        key = np.int64(1) << 62
        for j in range(pv[p, GN]):
            if cards[pc[p, GK, j], C_HOOK] >= K_DONKEY:
                kj = (np.int64(pc[p, GS, j]) << 32) | np.int64(pc[p, GQ, j])
                if last < kj < key:
                    key = kj
                    i = j
        if i < 0:
            return
        last = key
        if pc[p, GF, i] != 0:
            continue
        hook = cards[pc[p, GK, i], C_HOOK]
        s = pc[p, GS, i]
        if hook == K_DONKEY:
            if 3 <= s < 6 and _free_dismiss_ok(p, pv, rules):
                _dismiss_grid(p, i, np.int64(WHY_DONKEY), S, C, O, rng)
        elif hook == K_ALLIGATOR:
            if s % 3 < 2:
                g = D.grid_card_to_dismiss(p, np.int64(s + 1), S, C, rng)
                if g >= 0 and _free_dismiss_ok(p, pv, rules):
                    _dismiss_grid(p, g, np.int64(WHY_ALLIGATOR), S, C, O, rng)


@njit(**INLINE)
def _skunk(S, C, O, rng):
    """The least-fame hook (§5): its checks inline, the dismissal (when due) in a call."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    P = np.int64(sh[NP])
    if P < 2:
        return
    low = pv[0, FAME]
    who = np.int64(0)
    ties = 0
    for q in range(1, P):
        if pv[q, FAME] < low:
            low = pv[q, FAME]
            who = q
            ties = 0
        elif pv[q, FAME] == low:
            ties += 1
    if ties > 0:
        return
    has = False
    for i in range(pv[who, GN]):
        if cards[pc[who, GK, i], C_HOOK] == K_LEAST and (pc[who, GF, i] == 0 or rules[R_SKUNK_FACEUP] == 0):
            has = True
    if not has or not _free_dismiss_ok(who, pv, rules):
        return
    _skunk_dismiss(who, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _skunk_dismiss(who, S, C, O, rng):
    g = D.grid_card_to_dismiss(who, np.int64(-1), S, C, rng)
    if g >= 0:
        _log(S.shared, O[2], EV_SKUNK, who, 0, 0, 0, 0, 0, 0)
        _dismiss_grid(who, g, np.int64(WHY_SKUNK), S, C, O, rng)


# -- legal market actions (decide.py chooses among them) -------------------------------------------
# Hot loops use the array forms (_hire_ok, _dismiss_ok): pulling arrays out of the state tuples
# inside a loop costs reference-count traffic on every iteration.
@njit(**INLINE, **INTERNAL)
def _hire_ok(p, s, pv, mk, prices):
    return mk[0, s] >= 0 and prices[s] <= pv[p, SPEND]


@njit(**INLINE, **INTERNAL)
def _dismiss_ok(p, g, pc, pv, cards, rules):
    if pc[p, GF, g] != 0:
        return False
    k = pc[p, GK, g]
    if cards[k, C_CBD] != 0 or cards[k, C_DCOST] > pv[p, SPEND]:
        return False
    return _min_cards_ok(p, pv, rules)


@njit(**INLINE)
def _hire_legal(p, s, S, C):
    return _hire_ok(p, s, S.seat, S.market, C.prices)


# -- rounds (§2, §7, §8, §9) ---------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _log_grids(S, O):
    pc, pv, dism, sh, toon, mk = S
    log = O[2]
    if sh[LOGON] == 0:
        return
    for p in range(np.int64(sh[NP])):
        for s in range(NS):
            for i in range(pv[p, GN]):
                if pc[p, GS, i] == s:
                    _log(sh, log, EV_GRID, p, s, pc[p, GK, i], pc[p, GF, i], pc[p, GL, i], pc[p, GQ, i], 0)


@njit(**INLINE, **INTERNAL)
def _record_fame(p, S, O):
    pc, pv, sh = S.rows, S.seat, S.shared
    stt, rf = O[0], O[1]
    for i in range(pv[p, GN]):
        if pc[p, GF, i] == 0:
            stt[ST_FAME, p, pc[p, GK, i]] += pc[p, GL, i]
            stt[ST_APPEAR, p, pc[p, GK, i]] += 1
    r = sh[ROUND] - 1
    if 0 <= r < rf.shape[1]:
        rf[p, r] = min(32767, max(-32768, pv[p, FAME]))


@njit(**CALL)
def _start_round(S, C, O, rng, score):
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O[2]
    P = np.int64(sh[NP])
    sh[ROUND] += 1
    _log(sh, log, EV_ROUND, sh[ROUND], sh[FIRST], sh[TN], 0, 0, 0, 0)
    _log_market(S, O)
    for j in range(P):
        # A14: Snake toon-deck draws happen in seat order (default) or in turn order
        p = j if rules[R_SNAKE_ORDER] == 0 else (sh[FIRST] + j) % P
        _flip(p, S, C, O, rng)
    goal = rules[R_GOAL]
    for p in range(P):
        f = _fame(p, S, C, score)
        pv[p, FAME] = f
        pv[p, SPEND] = f
        pv[p, BONUS_ACT] = 0
        if f > pv[p, MAXFAME]:
            pv[p, MAXFAME] = f
        _record_fame(p, S, O)
    _log_grids(S, O)
    for p in range(P):
        _log(sh, log, EV_FAME, p, pv[p, FAME], 0, 0, 0, 0, 0)
    if P == 1 and pv[0, FAME] >= goal:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return
    # Banners of toon cards a Snake stacked resolve after Check Fame (A8, [NV]).
    for p in range(P):
        nq = pv[p, QN]
        pv[p, QN] = 0
        for t in range(nq):
            k = pv[p, Q0 + t]
            g = np.int64(-1)  # typed from the start: a literal -1 would compile _banner once more
            for i in range(pv[p, GN]):
                if pc[p, GK, i] == k and pc[p, GF, i] == 0:
                    g = i
            _banner(p, k, g, np.int64(1), S, C, O, rng)
    if P == 1 and rules[R_SOLO_WIN] != 0 and pv[0, SPEND] >= goal:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return
    if P >= 2:
        _skunk(S, C, O, rng)
    sh[PHASE] = PH_MARKET
    sh[TURN] = 0
    sh[INTURN] = 0


@njit(**CALL, **INTERNAL)
def _end_solo(reason, S, O):
    pv, sh = S.seat, S.shared
    log = O[2]
    pv[0, WINNER] = 1 if reason == END_SOLO_WIN else 0
    pv[0, SCORE] = pv[0, MAXFAME]
    sh[END] = reason
    sh[PHASE] = PH_DONE
    _log(sh, log, EV_RESULT, reason, pv[0, SCORE], 0, 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _end_turn(p, S, C, O, X, rng):
    pv, sh = S.seat, S.shared
    rules = C.rules
    log = O[2]
    pv[p, ACTS] = 0
    if rules[R_HOOK_TIMING] == 0:
        _hooks(p, S, C, O, X, rng)
    # A turn that hired nothing leaves the market full, and a full market is sorted already (every change to
    # it ends in _refill) and cannot deplete it: about half the turns skip the refill and its sort.
    if _market_count(S.market, np.int64(sh[W])) < sh[W]:
        _refill(S, C)
    _log(sh, log, EV_TURN, p, pv[p, SPEND], 0, 0, 0, 0, 0)
    _log_market(S, O)
    sh[TURN] += 1
    sh[INTURN] = 0


@njit(**INLINE)
def _cleanup(S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O[2]
    P = np.int64(sh[NP])
    goal = rules[R_GOAL]
    if P == 1:
        if sh[DEPLETED] != 0:
            _end_solo(np.int64(END_SOLO_LOSS), S, O)
            return
        _collect(np.int64(0), pc, pv)
        if sh[ROUND] >= rules[R_MAX_ROUNDS]:
            _end_solo(np.int64(END_SOLO_LOSS), S, O)
        elif sh[HORIZON] > 0 and sh[ROUND] >= sh[HORIZON]:
            _end_solo(np.int64(END_HORIZON), S, O)
        else:
            sh[PHASE] = PH_START
        return
    fame_trig = False
    for p in range(P):
        if pv[p, FAME] >= goal:
            fame_trig = True
    ending = fame_trig or sh[DEPLETED] != 0
    if ending and (fame_trig or rules[R_CRITIC_DEPL] != 0):
        best = -(1 << 30)
        who = -1
        for p in range(P):
            if pv[p, FAME] > best:
                best = pv[p, FAME]
                who = p
            elif pv[p, FAME] == best:
                who = -1
        sh[CRITIC] = who
    for p in range(P):
        _collect(p, pc, pv)
    _log(sh, log, EV_CLEANUP, 1 if fame_trig else 0, sh[DEPLETED], sh[CRITIC], 0, 0, 0, 0)
    if ending:
        sh[END] = END_FAME if fame_trig else END_DEPLETION
        sh[PHASE] = PH_FINAL
    elif sh[ROUND] >= rules[R_MAX_ROUNDS]:
        sh[END] = END_CAP
        sh[PHASE] = PH_FINAL
    elif sh[HORIZON] > 0 and sh[ROUND] >= sh[HORIZON]:
        sh[END] = END_HORIZON
        sh[PHASE] = PH_FINAL
    else:
        sh[FIRST] = (sh[FIRST] + 1) % P
        sh[PHASE] = PH_START


@njit(**CALL)
def _final_flip(S, C, O, rng, score):
    """Flip + Check Fame for everyone, Critic's Choice, tie re-flips among the tied (§8)."""
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O[2]
    P = np.int64(sh[NP])
    bonus = int(rules[R_CRITIC_BONUS])
    flips = rules[R_FINAL_FLIP] != 0
    for p in range(P):
        pv[p, CONTEND] = 1
        if not flips:
            # Variant without a Final Flip: the trigger round's fame (+ the Critic's Choice) decides.
            pv[p, SCORE] = pv[p, FAME] + (bonus if sh[CRITIC] == p else 0)
    reflip = False
    while True:
        # The Final Flip, then each re-flip of the tied players, in one loop: _flip and _fame are inlined
        # once here instead of twice (less to compile), with the same flips in the same order.
        if flips:
            for p in range(P):
                if pv[p, CONTEND]:
                    if reflip:
                        _collect(p, pc, pv)
                    _flip(p, S, C, O, rng)
            for p in range(P):
                if pv[p, CONTEND]:
                    f = _fame(p, S, C, score)
                    pv[p, FAME] = f
                    critic = sh[CRITIC] == p and (not reflip or rules[R_CRITIC_REFLIP] != 0)
                    pv[p, SCORE] = f + (bonus if critic else 0)
                    _record_fame_final(p, S, O)
            _log_grids(S, O)
            for p in range(P):
                if pv[p, CONTEND]:
                    _log(sh, log, EV_FINAL, p, pv[p, SCORE], sh[REFLIPS], 0, 0, 0, 0)
        best = -(1 << 30)
        for p in range(P):
            if pv[p, CONTEND] and pv[p, SCORE] > best:
                best = pv[p, SCORE]
        n_top = 0
        for p in range(P):
            if pv[p, CONTEND] and pv[p, SCORE] == best:
                n_top += 1
            else:
                pv[p, CONTEND] = 0
        if n_top == 1 or not flips or sh[REFLIPS] >= rules[R_MAX_REFLIPS]:
            break
        sh[REFLIPS] += 1
        reflip = True
    for p in range(P):
        pv[p, WINNER] = pv[p, CONTEND]
    sh[PHASE] = PH_DONE
    _log(sh, log, EV_RESULT, sh[END], sh[CRITIC], sh[REFLIPS], 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _record_fame_final(p, S, O):
    pc, pv = S.rows, S.seat
    stt = O[0]
    for i in range(pv[p, GN]):
        if pc[p, GF, i] == 0:
            stt[ST_FAME, p, pc[p, GK, i]] += pc[p, GL, i]
            stt[ST_APPEAR, p, pc[p, GK, i]] += 1


def _round_phase(fn, S, C, O, rng, score):
    """``fn(S, C, O, rng, score)``, or ``_start_round(S, C, O, rng, None)`` if fn is None (tests, benchmarks).

    Chosen by fn's type when compiled (the overload below): an ``is None`` test on a function pointer is not
    pruned, which compiled the other branch into the batch engines too.  No dispatcher is passed as a value:
    one converted to a function pointer (or merely passed where it has a pointer signature) made the caller
    uncacheable."""
    if fn is None:
        _start_round(S, C, O, rng, None)
    else:
        fn(S, C, O, rng, score)


def _final_phase(fn, S, C, O, rng, score):
    """``fn(S, C, O, rng, score)``, or ``_final_flip(S, C, O, rng, None)`` if fn is None: as _round_phase."""
    if fn is None:
        _final_flip(S, C, O, rng, None)
    else:
        fn(S, C, O, rng, score)


_OV = dict(jit_options=dict(cache=True, nogil=True, _nrt=False, **INTERNAL))


@overload(_round_phase, **_OV)
def _round_phase_by_type(fn, S, C, O, rng, score):
    if isinstance(fn, types.NoneType):
        return lambda fn, S, C, O, rng, score: _start_round(S, C, O, rng, None)
    return lambda fn, S, C, O, rng, score: fn(S, C, O, rng, score)


@overload(_final_phase, **_OV)
def _final_phase_by_type(fn, S, C, O, rng, score):
    if isinstance(fn, types.NoneType):
        return lambda fn, S, C, O, rng, score: _final_flip(S, C, O, rng, None)
    return lambda fn, S, C, O, rng, score: fn(S, C, O, rng, score)


def _score(score, p, pc, pv, sh, mk, cards, rules):
    """``score(...)``, or ``_score_player(...)`` if score is None: as _round_phase, chosen by score's type."""
    if score is None:
        return _score_player(p, pc, pv, sh, mk, cards, rules)
    return score(p, pc, pv, sh, mk, cards, rules)


@overload(_score, **_OV)
def _score_by_type(score, p, pc, pv, sh, mk, cards, rules):
    if isinstance(score, types.NoneType):
        return lambda score, p, pc, pv, sh, mk, cards, rules: _score_player(p, pc, pv, sh, mk, cards, rules)
    return lambda score, p, pc, pv, sh, mk, cards, rules: score(p, pc, pv, sh, mk, cards, rules)


@njit(**CALL, **INTERNAL)
def _advance(S, C, O, X, U, rng, stop, start_round, final_flip, score):
    """Run the game forward (the step interface's *advance*).  Returns 1 when seat p = ``to_move(S)`` must choose
    a market action and bit p of the seat mask ``stop`` is set (then list its actions with ``legal_actions``
    and play one with ``step_apply``), else 0: the game is over.  ``stop = 0`` plays the whole game, every
    seat choosing with ``decide.choose``.

    ``start_round``, ``final_flip`` and ``score`` are ``_start_round``, ``_final_flip`` and ``_score_player``
    or function pointers to them (FUNCTIONS), or None for ordinary calls (numba prunes the other branch;
    passing the dispatchers themselves made the caller uncacheable).  The batch engines call them through
    pointers, so LLVM optimises each once instead of again in every function that links them (about 4 of
    50 CPU-s of a cold compile).  Each runs once a round or once a game: the indirect call costs nothing
    measurable."""
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    P = np.int64(sh[NP])
    while sh[PHASE] != PH_DONE:
        ph = sh[PHASE]
        if ph == PH_START:
            _round_phase(start_round, S, C, O, rng, score)
        elif ph == PH_MARKET:
            if sh[TURN] >= P:
                if rules[R_HOOK_TIMING] != 0:
                    for j in range(P):
                        _hooks((sh[FIRST] + j) % P, S, C, O, X, rng)
                    _refill(S, C)
                if P <= rules[R_DECAY_PLAYERS]:
                    _decay(S, C, O)
                _log_market(S, O)
                sh[PHASE] = PH_CLEANUP
                continue
            p = (sh[FIRST] + sh[TURN]) % P
            if sh[INTURN] == 0:
                pv[p, ACTS] = int(rules[R_ACTIONS]) + pv[p, BONUS_ACT]
                pv[p, BONUS_ACT] = 0
                sh[INTURN] = 1
            while pv[p, ACTS] > 0:
                if stop != 0 and (stop >> p) & 1:
                    return 1
                a = D.choose(p, S, C, X, U, rng)
                if _step_apply(p, a, S, C, O, rng):
                    return 0
            _end_turn(p, S, C, O, X, rng)
        elif ph == PH_CLEANUP:
            _cleanup(S, C, O, rng)
        elif ph == PH_FINAL:
            _final_phase(final_flip, S, C, O, rng, score)
    return 0


# -- state allocation and setup ---------------------------------------------------------------------
@njit(cache=True, nogil=True, forceinline=False)
def _alloc(P, K, maxc, T, Wd):
    # the FC row is indexed by kind
    S = State(np.empty((P, NROW, max(maxc, K)), dtype=np.int32), np.empty((P, NPV), dtype=np.int32),
              np.empty((P, K), dtype=np.int32), np.empty(NSH, dtype=np.int32), np.empty(T, dtype=np.int32),
              np.empty((2, Wd), dtype=np.int32))
    _clear_state(S, P, Wd)
    return S


@njit(**CALL, **INTERNAL)
def _setup(S, C, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    P = np.int64(sh[NP])
    solo = P == 1
    col = C_SOLO if solo else C_COPIES
    K = cards.shape[0]
    tn = 0
    for k in range(K):
        if cards[k, C_STARTER] == 0:
            for _ in range(cards[k, col]):
                toon[tn] = k
                tn += 1
    sh[TN] = tn
    _shuffle(rng, toon, np.int64(tn))
    total = tn
    if solo:
        d = min(tn, int(rules[R_SOLO_DISCARD]))
        sh[TN] = tn - d
        sh[DISCARDED] = d
    for p in range(P):
        for k in range(K):
            if cards[k, C_STARTER] != 0:
                for _ in range(cards[k, col]):
                    _deck_top_push(p, pc, pv, k)
                    _own(p, pv, _vfix(C.values, k))
                    total += 1
    sh[TOTAL] = total
    _refill(S, C)
    sh[FIRST] = below(rng, np.int64(P)) if rules[R_FIRST] == 0 else 0
    sh[FIRST0] = sh[FIRST]
    sh[PHASE] = PH_START


@njit(**CALL, **INTERNAL)
def _copy_state(src, dst):
    # element loops: an array-to-array slice copy (or ravel) needs NRT, which this kernel runs without
    a, b = src[0], dst[0]
    for x in range(a.shape[0]):
        for y in range(a.shape[1]):
            for z in range(a.shape[2]):
                b[x, y, z] = a[x, y, z]
    _copy2(src[1], dst[1])
    _copy2(src[2], dst[2])
    _copy2(src[5], dst[5])
    a1, b1 = src[3], dst[3]
    for x in range(a1.shape[0]):
        b1[x] = a1[x]
    a1, b1 = src[4], dst[4]
    for x in range(a1.shape[0]):
        b1[x] = a1[x]


@njit(**INLINE, **INTERNAL)
def _copy2(a, b):
    for x in range(a.shape[0]):
        for y in range(a.shape[1]):
            b[x, y] = a[x, y]


@njit(cache=True, nogil=True, forceinline=False)
def _scratch(S, C, K, maxc, T, Wd):
    xpc, xpv, xdism, xsh, xtoon, xmk = _alloc(np.int64(1), K, maxc, T, Wd)
    return (xpc, xpv, xdism, xsh, xtoon, xmk, np.zeros((4, 1, K), dtype=np.int32),
            np.zeros((1, 1), dtype=np.int16), np.zeros((1, LOG_W), np.int32),
            np.zeros(4, dtype=np.uint64))


@njit(cache=True, nogil=True, forceinline=False)
def _lookahead_scratch(P, K, maxc, T, Wd):
    """A state and an output tuple the lookahead playouts overwrite."""
    return _alloc(P, K, maxc, T, Wd), (np.zeros((N_STATS, P, K), dtype=np.int32), np.zeros((P, 1), dtype=np.int16),
                                       np.zeros((1, LOG_W), np.int32))


@njit(cache=True, nogil=True, forceinline=False)
def _workspace(P, C, maxc, T):
    """A state, its scratch, the lookahead's scratch and a generator for a block of games (reset per game)."""
    cards, prices = C.cards, C.prices
    K = cards.shape[0]
    Wd = prices.shape[0]
    S = _alloc(P, K, maxc, T, Wd)
    return S, _scratch(S, C, K, maxc, T, Wd), _lookahead_scratch(P, K, maxc, T, Wd), np.empty(4, dtype=np.uint64)


@njit(cache=True, nogil=True)
def _play_game(cell_key, index, P, C, R, scorers, maxc, T, O):
    """Game ``index`` of a cell through the batch's own block loop, into the output tuple O (that game's
    stats, per-round fame and log); returns the final state, which tests inspect."""
    S, X, L, rng = _workspace(P, C, maxc, T)
    U = D.users(R, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    stats, rf, log = O
    outs = (np.zeros((1, P), dtype=np.int64), np.zeros((1, P), dtype=np.float64), np.zeros((1, 6), dtype=np.int64),
            np.zeros((1, P, 4), dtype=np.int64), stats.reshape((1,) + stats.shape), rf.reshape((1,) + rf.shape))
    _play_block(cell_key, index, np.int64(0), np.int64(1), P, C, S, X, U, L, rng, log, outs, None, None, None)
    return S


def consts(prepared: Prepared) -> Consts:
    """A prepared cell's constant arrays as the engine reads them."""
    return Consts(*(prepared[k] for k in ("cards", "rules", "prices", "policies", "priority", "values")))


def rule_arrays(prepared: Prepared) -> tuple:
    """A prepared cell's rule-list arrays (decide.Users' first fields), in the kernels' argument order."""
    return tuple(prepared[k] for k in RULE_ARRAYS)


def no_rules(P: int) -> tuple:
    """Rule arrays for P seats none of which has rules (engine.RULE_ARRAYS' order)."""
    return (*pack_seats([None] * P, [None] * P), np.zeros(1, dtype=np.int64), np.zeros(P, dtype=np.int64))


RULE_ARRAYS = ("rule_ops", "rule_args", "rule_meta", "rule_span", "rule_params", "rule_flags", "seat_flags")


def play_game(prepared: Prepared, cell_key: int, index: int, O: tuple) -> State:
    """One game of a prepared cell with the engine's own block loop; returns its final :class:`State`.

    For tests: seats with a custom scorer need ``play``/``trace`` (their scorers travel as function
    pointers); every other seat plays here exactly as in the batch kernel.
    """
    maxc, T = (int(x) for x in prepared["sizes"])
    return _play_game(np.uint64(cell_key), np.int64(index), prepared.n_players, consts(prepared),
                      rule_arrays(prepared), custom_none(), maxc, T, O)


_NONE: list = []


def custom_none() -> tuple:
    """Four 'no scorer' function pointers, typed as ``custom.SCORERS`` (a cfunc's numba type is its pointer
    type), for the jitted entry points other than the batch kernel."""
    if not _NONE:
        _NONE.append((cfunc(custom.SIGNATURE, cache=True)(custom.no_scorer.py_func),) * 4)
    return _NONE[0]


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


@njit(**INLINE, **INTERNAL)
def _reset(S, X, P, Wd):
    """S and the scratch X as _alloc and _scratch return them, in place (a block reuses them)."""
    _clear_state(S, P, Wd)
    if X is not None:  # None in the lean engine, which has no scratch
        _clear_state(State(X[0], X[1], X[2], X[3], X[4], X[5]), np.int64(1), Wd)
        X[6][:] = 0
        X[7][:] = 0
        X[8][:] = 0


@njit(**INLINE, **INTERNAL)
def _count_owned(S, stt):
    pc, pv = S.rows, S.seat
    for p in range(np.int64(S.shared[NP])):
        for i in range(pv[p, DN]):
            stt[ST_OWNED, p, pc[p, DECK, i]] += 1
        for i in range(pv[p, GN]):
            stt[ST_OWNED, p, pc[p, GK, i]] += 1


# Inlined into _play_range at the IR level: as a separate function it re-optimised and re-codegened the whole
# game engine once more (about 3 s of cold compile).
@njit(cache=True, nogil=True, inline='always')
def _play_block(cell_key, start, lo, hi, P, C, S, X, U, L, rng, log, outs, f_round, f_final, f_score):
    """Games lo..hi-1 (game i of the cell is start + i) on one state S and scratch X, reset between games;
    game i writes row i of each output.  The game is written out in the loop (its start and end inlined at the IR
    level) rather than called per game: a call copies its tuple arguments, a reference-count increment and
    decrement per array."""
    stop = _search_seats(C.policies, P)
    for i in range(lo, hi):
        O = _game_start(cell_key, start, lo, i, P, C, S, X, rng, log, outs)
        if stop == 0:
            _advance(S, C, O, X, U, rng, np.int64(0), f_round, f_final, f_score)
        else:
            # the step interface: advance to a search seat's decision, choose, apply
            while _advance(S, C, O, X, U, rng, stop, f_round, f_final, f_score) == 1:
                p = to_move(S)
                a = D.lookahead_choose(p, S, C, X, U, L, rng, f_round, f_final, f_score)
                _step_apply(p, a, S, C, O, rng)
        _game_end(i, S, O, outs)


@njit(**INLINE, **INTERNAL)
def _search_seats(pol, P):
    """The seat mask of the seats that search (lookahead, and mcts in mcts.py's engine): _advance stops at
    their decisions."""
    stop = np.int64(0)
    for p in range(P):
        code = int(pol[p, 0])
        if code == POL_LOOKAHEAD or code == POL_MCTS:
            stop |= np.int64(1) << p
    return stop


@njit(cache=True, nogil=True, inline='always')
def _game_start(cell_key, start, lo, i, P, C, S, X, rng, log, outs):
    """Game i of a block: its generator seeded, the state reset (after the block's first game) and set up;
    returns its output tuple (its rows of the stats and per-round fame, and the log)."""
    seed_state(game_seed(cell_key, start + i), rng)
    if i > lo:
        _reset(S, X, P, np.int64(C.prices.shape[0]))
    S.shared[LOGON] = 1 if log.shape[0] > 1 else 0
    O = (outs[4][i], outs[5][i], log)
    _setup(S, C, rng)
    return O


@njit(cache=True, nogil=True, inline='always')
def _game_end(i, S, O, outs):
    _count_owned(S, O[0])
    _write_row(i, S, outs[0], outs[1], outs[2], outs[3])


@njit(**CALL, **INTERNAL)
def _write_row(i, S, score, win, game_out, seat_out):
    pc, pv, dism, sh, toon, mk = S
    P = np.int64(sh[NP])
    nw = 0
    for p in range(P):
        nw += pv[p, WINNER]
    for p in range(P):
        score[i, p] = pv[p, SCORE]
        win[i, p] = pv[p, WINNER] / nw if nw > 0 else 0.0
        seat_out[i, p, 0] = pv[p, HIRES]
        seat_out[i, p, 1] = pv[p, DISMS]
        seat_out[i, p, 2] = pv[p, DN] + pv[p, GN]
        seat_out[i, p, 3] = pv[p, MAXFAME]
    game_out[i, 0] = sh[ROUND]
    game_out[i, 1] = sh[FIRST0]
    game_out[i, 2] = sh[END]
    game_out[i, 3] = sh[CRITIC]
    game_out[i, 4] = sh[REFLIPS]
    game_out[i, 5] = sh[TN]


# play_batch calls _play_range through a function pointer; base.pointer_kernel says why and compiles both.
_I32_1, _I32_2, _F64_1, _F64_2 = types.int32[::1], types.int32[:, ::1], types.float64[::1], types.float64[:, ::1]
_CONSTS = (_I32_2, _F64_1, _I32_1, _F64_2, _I32_2, _F64_1, types.int64, types.int64)  # cards .. val, maxc, T
_I64_1, _I64_2 = types.int64[::1], types.int64[:, ::1]
# the rule arrays (ops, args, meta, span, params, rule flags, seat flags) and the four seats' scorers
_USERS = (_I64_2, _F64_2, _I64_2, _I64_2, _F64_2, _I64_1, _I64_1, custom.SCORERS)
_OUTS = (types.int64[:, ::1], _F64_2, types.int64[:, ::1], types.int64[:, :, ::1], types.int32[:, :, :, ::1],
         types.int16[:, :, ::1])  # score, win, game_out, seat_out, stats, round_fame
# _score_player, and _start_round and _final_flip (called through pointers: _advance says why)
SCORE_FN = types.int64(types.int64, types.int32[:, :, ::1], types.int32[:, ::1], types.int32[::1], types.int32[:, ::1],
                    types.int32[:, ::1], types.float64[::1])
_STATE = typeof(State(np.zeros((1, 1, 1), np.int32), *(np.zeros((1, 1), np.int32),) * 2, *(np.zeros(1, np.int32),) * 2,
                      np.zeros((1, 1), np.int32)))
_CONSTS_T = typeof(Consts(np.zeros((1, 1), np.int32), np.zeros(1), np.zeros(1, np.int32), np.zeros((1, 1)),
                          np.zeros((1, 1), np.int32), np.zeros(1)))
_O = types.Tuple((types.int32[:, :, ::1], types.int16[:, ::1], types.int32[:, ::1]))  # a game's stats, fame, log
PHASE_FN = types.void(_STATE, _CONSTS_T, _O, types.uint64[::1], types.FunctionType(SCORE_FN))
_FNS = (types.FunctionType(PHASE_FN), types.FunctionType(PHASE_FN), types.FunctionType(SCORE_FN))
PLAY_RANGE = types.int64(types.uint64, types.int64, types.int64, types.int64, types.int64, *_CONSTS, *_USERS, *_FNS,
                         *_OUTS, types.int32[:, ::1])  # the event log (one row: off)
BLOCK = 64  # games per call of _play_range: many blocks per thread keep the threads evenly loaded


@njit(cache=True, nogil=True)
def _play_range(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, T,
                ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
                score, win, game_out, seat_out, stats, round_fame, log):
    """Games lo..hi-1 of a batch (game i of the cell is start + i); game i writes only row i of each output.

    A ``log`` of more than one row records the events (trace_game, one game); returns the rows written.
    """
    C = Consts(cards, rules, prices, pol, prio, val)
    # One state, scratch and generator for the whole block (reset per game): about 20 allocations fewer a game.
    S, X, L, rng = _workspace(P, C, maxc, T)
    U = D.users((ops, args, meta, span, params, rule_flags, seat_flags), scorers, cards.shape[0], prices.shape[0],
                maxc)
    _play_block(cell_key, start, lo, hi, P, C, S, X, U, L, rng, log,
                (score, win, game_out, seat_out, stats, round_fame), f_round, f_final, f_score)
    return np.int64(S.shared[LOGN])


# The policies the lean engine plays: a cell whose seats all use them runs _play_range_lean, compiled without
# the synergy, rule-list, custom-scorer and lookahead code (about a third of the engine's compile time).
LEAN_POLICIES = (POL_RANDOM, POL_HIGHEST, POL_PRIORITY, POL_FPC)

# _advance inlined at the IR level into the lean engine: as a call, LLVM optimised the whole game once in
# _advance and once more in _play_range (about 6 s of cold compile).  The other entry points call _advance.
_advance_inline = njit(cache=True, nogil=True, inline='always')(getattr(_advance, "py_func", _advance))


@njit(cache=True, nogil=True)
def _play_range_lean(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, T,
                     ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
                     score, win, game_out, seat_out, stats, round_fame, log):
    """_play_range for a cell whose seats all play LEAN_POLICIES (the rule arrays and scorers are ignored):
    the same engine with no scratch, users or lookahead state (None: numba prunes the code that reads them)."""
    C = Consts(cards, rules, prices, pol, prio, val)
    S = _alloc(P, cards.shape[0], maxc, T, prices.shape[0])
    rng = np.empty(4, dtype=np.uint64)
    outs = (score, win, game_out, seat_out, stats, round_fame)
    for i in range(lo, hi):
        O = _game_start(cell_key, start, lo, i, P, C, S, None, rng, log, outs)
        _advance_inline(S, C, O, None, None, rng, np.int64(0), f_round, f_final, f_score)
        _game_end(i, S, O, outs)
    return np.int64(S.shared[LOGN])


def is_lean(policies: np.ndarray) -> bool:
    """Whether every seat of a policy matrix plays one of LEAN_POLICIES (the lean engine plays the cell)."""
    return all(int(code) in LEAN_POLICIES for code in policies[:, 0])


PLAY_BATCH = types.void(types.FunctionType(PLAY_RANGE), types.uint64, types.int64, types.int64, *_CONSTS, *_USERS,
                        *_FNS, *_OUTS)


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play_range, cell_key, start, P, cards, rules, prices, pol, prio, val, maxc, T,
               ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
               score, win, game_out, seat_out, stats, round_fame):
    """Games start..start+count-1 of a cell, in blocks of BLOCK; pass ``_play_range`` as ``play_range``."""
    n = score.shape[0]
    for b in prange((n + BLOCK - 1) // BLOCK):
        lo = np.int64(b) * BLOCK
        log = np.zeros((1, LOG_W), dtype=np.int32)  # one row: logging off
        play_range(cell_key, start, lo, min(lo + BLOCK, n), P, cards, rules, prices, pol, prio, val, maxc, T,
                   ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
                   score, win, game_out, seat_out, stats, round_fame, log)


def batch_kernel(lean: bool = False):
    """play_batch compiled for its one signature; call it as ``batch_kernel(lean)(engine(lean), cell_key, ...)``.

    The engine (``_play_range``, or ``_play_range_lean`` for a lean cell) stops compiling too: a call with four
    scorer dispatchers then converts them to the function pointers of its one signature instead of compiling
    the engine again for their types.
    """
    play_range = engine(lean)
    if hasattr(play_range, "disable_compile") and not _score_player.signatures:
        _score_player.compile(SCORE_FN)  # the functions play_range calls through pointers (FUNCTIONS)
        _start_round.compile(PHASE_FN)
        _final_flip.compile(PHASE_FN)
    if hasattr(play_range, "disable_compile") and not play_range.signatures and play_batch.signatures:
        play_range.compile(PLAY_RANGE)  # the kernel is already compiled (for the other engine)
    kernel = pointer_kernel(play_batch, play_range, PLAY_BATCH, PLAY_RANGE)
    if hasattr(play_range, "disable_compile"):
        play_range.disable_compile()
    return kernel


# The batch engines' last arguments before the outputs: _advance's start_round, final_flip and score.
FUNCTIONS = (_start_round, _final_flip, _score_player)


def engine(lean: bool):
    """The engine play_batch calls through its pointer: ``_play_range_lean`` (lean) or ``_play_range``."""
    return _play_range_lean if lean else _play_range


def trace_game(cell_key, index, P, cards, rules, prices, pol, prio, val, maxc, T, log_rows, n_rounds, users=None):
    """The same game as play_batch's game ``index``, with the event log switched on.

    Plain Python around the batch's own compiled engine (``_play_range`` or the lean one): a jitted wrapper
    would link and re-optimise the whole engine once more (about 10 s of cold compile before the first trace).
    ``users`` are the rule arrays and four scorers (``FlipToons._users``); None: no rules or custom seats.
    """
    if users is None:
        users = (*no_rules(P), custom.scorers([]))
    K = cards.shape[0]
    score = np.zeros((1, P), dtype=np.int64)
    win = np.zeros((1, P), dtype=np.float64)
    game_out = np.zeros((1, 6), dtype=np.int64)
    seat_out = np.zeros((1, P, 4), dtype=np.int64)
    stats = np.zeros((1, N_STATS, P, K), dtype=np.int32)
    round_fame = np.zeros((1, P, n_rounds), dtype=np.int16)
    log = np.zeros((log_rows, LOG_W), dtype=np.int32)
    lean = is_lean(pol)
    batch_kernel(lean)  # compiles (or loads) the engine for PLAY_RANGE, the types passed here
    rows = engine(lean)(np.uint64(cell_key), np.int64(index), np.int64(0), np.int64(1), np.int64(P), cards, rules,
                        prices, pol, prio, val, np.int64(maxc), np.int64(T), *users, *FUNCTIONS, score, win, game_out,
                        seat_out, stats, round_fame, log)
    return score, win, game_out, log[:rows].copy()


@njit(cache=True, nogil=True, forceinline=False)
def first_decision(cell_key, index, P, C, R, scorers, maxc, T):
    """Game ``index`` advanced to its first lookahead or mcts decision (for latency benchmarks and tests)."""
    S, X, L, rng = _workspace(P, C, maxc, T)
    U = D.users(R, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    seed_state(game_seed(cell_key, index), rng)
    K = C.cards.shape[0]
    O = (np.zeros((N_STATS, P, K), dtype=np.int32), np.zeros((P, 1), dtype=np.int16), np.zeros((1, LOG_W), np.int32))
    _setup(S, C, rng)
    _advance(S, C, O, X, U, rng, _search_seats(C.policies, P), None, None, None)
    return S, X, U, L, O, rng


@njit(cache=True, nogil=True)
def play_stepped(cell_key, index, P, C, R, scorers, maxc, T, O):
    """Game ``index`` of a cell played through the step interface alone: advance to every decision of every
    seat, list its legal actions, choose what the seat's policy chooses (decide.choose, or lookahead_choose)
    and apply it.  Returns the final state and the number of chosen actions that were not in the legal list
    (0).  tests/games/fliptoons/test_step.py checks it equals the batch kernel's game."""
    S, X, L, rng = _workspace(P, C, maxc, T)
    U = D.users(R, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    seed_state(game_seed(cell_key, index), rng)
    S.shared[LOGON] = 0
    _setup(S, C, rng)
    every = (np.int64(1) << P) - 1
    legal = np.empty(C.prices.shape[0] + maxc + 1, dtype=np.int64)
    bad = np.int64(0)
    while _advance(S, C, O, X, U, rng, every, None, None, None) == 1:
        p = to_move(S)
        n = legal_actions(p, S, C, legal)
        if int(C.policies[p, 0]) == POL_LOOKAHEAD:
            a = D.lookahead_choose(p, S, C, X, U, L, rng, None, None, None)
        else:
            a = D.choose(p, S, C, X, U, rng)
        ok = False
        for j in range(n):
            if legal[j] == a:
                ok = True
        if not ok:
            bad += 1
        _step_apply(p, a, S, C, O, rng)
    return S, bad


# The decision interface: engine functions call D.<name> only when they are compiled, after both modules
# are loaded, so this import sits last (decide.py imports the engine's rules and constants).
from boardsim.games.fliptoons import decide as D  # noqa: E402
