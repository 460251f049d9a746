"""Art Deco's rule helpers and output layout: the pile, the collections, the opening range and the winner rule,
which the one rules loop (``step.play``) plays with; the batch kernels are ``kernel.py``'s.

State lives in small NumPy arrays.  The pile is a ring buffer shuffled lazily
(a forward Fisher-Yates step per draw), which deals the same distribution as a
full shuffle but only pays for the cards actually drawn.  Cards sold or left
unbought go to the ring's tail, i.e. the bottom of the pile.
"""

from __future__ import annotations

import math

from numba import njit, types

from boardsim import rng
from boardsim.games.art_deco import rules as R

# N_SEAT, SEAT_COUNTERS: the output layout, read from here by the game module
from boardsim.games.art_deco.state import C_CARDS, C_CASH, C_HELD_VAL, N_SEAT, SEAT_COUNTERS, helper  # noqa: F401

GAME_COUNTERS = ("pile_left", "unsold")
END_REASONS = ("rounds", "pile_empty")
END_ROUNDS, END_PILE = 0, 1
# game_out columns: rounds, first_player, end, then GAME_COUNTERS
G_ROUNDS, G_FIRST, G_END, G_PILE_LEFT, G_UNSOLD = range(5)
N_GAME = 3 + len(GAME_COUNTERS)

# trace log: one row per event (round, event, seat, a, b)
EV_DEAL, EV_ACTIVE, EV_BID, EV_PASS, EV_WIN, EV_UNSOLD, EV_SHOW, EV_BUY, EV_SKIP, EV_SELL, EV_END = range(11)
LOG_RND, LOG_EVENT, LOG_SEAT, LOG_A, LOG_B = range(5)  # its columns
LOG_WIDTH = 5


_U64 = types.uint64
_I64 = types.int64
_C1I = types.int64[::1]
_C2I = types.int64[:, ::1]


@helper(types.Tuple((types.float64, *(_U64,) * 4))(*(_U64,) * 4))
def _rand(s0, s1, s2, s3):
    """The generator in four scalars (see rng.step)."""
    return rng.step(s0, s1, s2, s3)


@helper(types.Tuple((_I64, *(_U64,) * 4))(_C1I, _I64, _I64, types.boolean, *(_U64,) * 4))
def _draw(ring, head, n_deck, shuffled, s0, s1, s2, s3):
    """Top card of the pile (``head`` counts the cards drawn so far); returns it and the generator."""
    # Drawn on every call: a generator call under a data-dependent branch ran ~10x slower.
    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
    if head < n_deck:
        if shuffled:  # still in the never-shuffled part: pick a random card for this position
            j = head + int(r * (n_deck - head))
            tmp = ring[head]
            ring[head] = ring[j]
            ring[j] = tmp
        v = ring[head]
    else:
        v = ring[head % n_deck]  # the division only once the ring has wrapped
    return v, s0, s1, s2, s3


@helper(types.void(_C1I, _I64, _I64, _I64))
def _to_bottom(ring, tail, n_deck, value):
    """Put ``value`` at the bottom of the pile; ``tail`` (>= n_deck) counts cards ever placed there."""
    k = tail - n_deck
    if k >= n_deck:
        k = tail % n_deck
    ring[k] = value


@helper(_I64(_C2I, *(_I64,) * 6))
def _log(log, n_log, rnd, ev, seat, a, b):
    if n_log < log.shape[0]:
        log[n_log, LOG_RND] = rnd
        log[n_log, LOG_EVENT] = ev
        log[n_log, LOG_SEAT] = seat
        log[n_log, LOG_A] = a
        log[n_log, LOG_B] = b
        return n_log + 1
    return n_log


@njit(cache=True, nogil=True, inline="always")
def opening_range(value, open_factor, ceiling):
    """The lowest legal first bid and the highest legal bid on a card of ``value``.

    An auction can open only when the first is <= the second (and the bidder can pay).  ``prepare``
    calls this through ``opening_range.py_func`` to reject setups where no card can ever be opened,
    so the check and the engine share one rule.
    """
    if open_factor == 1.0:  # the default: ceil(v - 1e-9) == v for the positive integer values
        min_open = value
    else:
        min_open = max(0, int(math.ceil(open_factor * value - 1e-9)))
    return min_open, value + ceiling


@helper(types.void(_C2I, _C2I, _C2I, _I64, _I64, _I64))
def _add_card(cval, cround, st, p, value, rnd):
    k = st[p, C_CARDS]
    cval[p, k] = value
    cround[p, k] = rnd
    st[p, C_CARDS] = k + 1
    st[p, C_HELD_VAL] += value


@helper(types.void(_C2I, _C2I, _C2I, _I64, _I64))
def _record(progress, progress_cards, st, first, last):
    """Rounds ``first + 1`` .. ``last`` of the game's progress (its ``progress`` columns first .. last - 1): each
    seat's score (cash + held value, as ``win_shares`` scores it) and cards held now (World.progress)."""
    for p in range(st.shape[0]):
        now = st[p, C_CASH] + st[p, C_HELD_VAL]
        for r in range(first, last):
            progress[p, r] = now
            progress_cards[p, r] = st[p, C_CARDS]


@njit(cache=True, nogil=True, inline="always")
def _remove_card(cval, cround, st, p, k):
    last = st[p, C_CARDS] - 1
    value = cval[p, k]
    cval[p, k] = cval[p, last]
    cround[p, k] = cround[p, last]
    st[p, C_CARDS] = last
    st[p, C_HELD_VAL] -= value
    return value


@njit(cache=True, nogil=True, _nrt=False)
def win_shares(st, need, score, win):
    """The winner rule, written once (the engine's end, step.py's end and the search's reward at a horizon):
    each seat's ``score`` is its cash plus its collection's value; among the seats holding at least ``need``
    cards the highest score wins, a tie broken by more cards; seats tied on both share the win (1/k each);
    with no such seat nobody wins (every share 0)."""
    n_players = st.shape[0]
    best = 0
    best_cards = 0
    n_best = 0
    for p in range(n_players):
        score[p] = st[p, C_CASH] + st[p, C_HELD_VAL]
        win[p] = 0.0
        if st[p, C_CARDS] >= need:
            if n_best == 0 or score[p] > best or (score[p] == best and st[p, C_CARDS] > best_cards):
                best = score[p]
                best_cards = st[p, C_CARDS]
                n_best = 1
            elif score[p] == best and st[p, C_CARDS] == best_cards:
                n_best += 1
    if n_best > 0:
        for p in range(n_players):
            if st[p, C_CARDS] >= need and score[p] == best and st[p, C_CARDS] == best_cards:
                win[p] = 1.0 / n_best


@njit(cache=True, nogil=True, inline="always")
def collection_capacity(rules):
    """Cards a seat can ever hold (``prepare`` calls it through ``py_func``)."""
    return int(rules[R.R_HAND]) + int(rules[R.R_ROUNDS]) * (1 + int(rules[R.R_DIRECT_MAX])) + 1
