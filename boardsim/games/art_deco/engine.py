"""The jitted Art Deco rules: one game in ``play_game`` (the batch kernels are ``kernel.py``'s).

State lives in small NumPy arrays.  The pile is a ring buffer shuffled lazily
(a forward Fisher-Yates step per draw), which deals the same distribution as a
full shuffle but only pays for the cards actually drawn.  Cards sold or left
unbought go to the ring's tail, i.e. the bottom of the pile.
"""

from __future__ import annotations

import math

from numba import njit, types

from boardsim import rng
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.state import (  # noqa: F401  (SEAT_COUNTERS, N_SEAT: the engine's output layout)
    A_MAX,
    C_AUCT,
    C_CARDS,
    C_CASH,
    C_DEALT,
    C_DIRECT,
    C_ELIG,
    C_HELD_VAL,
    C_ILLEGAL,
    C_OVERBID,
    C_PAID,
    C_SOLD_N,
    C_SOLD_VAL,
    CODE_SELLS,
    N_SEAT,
    SEAT_COUNTERS,
    helper,
    price,
)

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


@njit(cache=True, nogil=True, inline="always")
def _remove_card(cval, cround, st, p, k):
    last = st[p, C_CARDS] - 1
    value = cval[p, k]
    cval[p, k] = cval[p, last]
    cround[p, k] = cround[p, last]
    st[p, C_CARDS] = last
    st[p, C_HELD_VAL] -= value
    return value


@njit(cache=True, nogil=True, _nrt=False, no_cpython_wrapper=True)
def play_game(seed, n_players, rules, deck, pol, tables, rl, scorers, st, score, win, scratch, log):
    """Play one game.  Writes seat counters into ``st`` (P, N_SEAT), ``score`` and ``win`` (P,).

    Every choice a seat makes is asked of ``decide`` (``pol``: the built-in policy rows; ``rl``: the
    rule lists; ``scorers``: the custom scorers); this function plays the rules.  ``scratch`` is the
    ``Scratch`` the game works in.  Returns (rounds played, end
    reason, log rows written, pile left, unsold count).
    """
    ring = scratch.ring
    cval = scratch.cval
    cround = scratch.cround
    passed = scratch.passed
    shown = scratch.shown
    rng.seed_state(seed, scratch.rng)
    s0 = scratch.rng[0]
    s1 = scratch.rng[1]
    s2 = scratch.rng[2]
    s3 = scratch.rng[3]
    n_deck = deck.shape[0]
    n_rounds = int(rules[R.R_ROUNDS])
    hand = int(rules[R.R_HAND])
    start_mode = int(rules[R.R_START])
    open_factor = rules[R.R_OPEN]
    unsold_mode = int(rules[R.R_UNSOLD])
    direct_max = int(rules[R.R_DIRECT_MAX])
    direct_factor = rules[R.R_DIRECT_FACTOR]
    sale_factor = rules[R.R_SALE_FACTOR]
    credit = int(rules[R.R_CREDIT])
    ceiling = int(rules[R.R_CEILING])
    min_cards = int(rules[R.R_MIN_CARDS])
    debug = rules[R.R_DEBUG] != 0.0
    shuffled = rules[R.R_SHUFFLE] != 0.0

    for i in range(n_deck):
        ring[i] = deck[i]
    head = 0  # cards drawn from the top of the ring so far
    tail = n_deck  # cards ever placed at the bottom, counting the deck itself
    st[:, :] = 0
    n_log = 0
    unsold_count = 0

    any_seller = False
    for q in range(n_players):
        any_seller = any_seller or scratch.codes[q, CODE_SELLS] != 0

    for p in range(n_players):
        for _ in range(hand):
            if tail - head == 0:
                break
            v, s0, s1, s2, s3 = _draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
            head += 1
            _add_card(cval, cround, st, p, v, 0)
            st[p, C_DEALT] += v
            n_log = _log(log, n_log, 0, EV_DEAL, p, v, 0)

    rounds = 0
    end = END_PILE
    start = 0
    next_start = 0  # last_winner: the seat that opens the next round (the last auction's winner)
    rot = 0
    if tail - head > 0:
        active, s0, s1, s2, s3 = _draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
        head += 1
        for rnd in range(1, n_rounds + 1):
            rounds = rnd
            if start_mode == R.START_ROTATE:
                start = rot
            else:
                start = next_start
            rot += 1  # rot = (rnd - 1) % n_players without an integer division each round
            if rot == n_players:
                rot = 0
            v = active
            n_log = _log(log, n_log, rnd, EV_ACTIVE, start, v, 0)

            # 1. auction
            min_open, top = opening_range(v, open_factor, ceiling)
            high = -1
            bid = 0
            n_passed = 0
            for q in range(n_players):
                passed[q] = 0
                D.auction_start(scratch, st, pol, tables, n_players, q, v, min(top, D.spend_limit(st, q, credit)))
            s = start
            while True:
                if high < 0 and n_passed == n_players:
                    break
                if high >= 0 and n_passed == n_players - 1:
                    break
                if passed[s] == 0 and s != high:
                    min_bid = min_open if high < 0 else bid + 1
                    # drawn for every decision, used only by the random policy (see _draw)
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    # scorers is None: the kernel for built-ins and tabled rule lists, without this branch
                    if scorers is not None and D.asked_each_time(scratch, s, D.BID):
                        b = D.open_bid(scratch, st, rules, rl, scorers, n_players, s, rnd, tail - head, v, min_bid,
                                       high, bid, n_players - n_passed)
                    else:
                        b = D.bid(scratch, st, pol, s, r, v, min_bid, high)
                    # decide returns only legal bids; debug mode checks (A_MAX: min(ceiling, what it can pay))
                    if debug and b >= 0 and (b < min_bid or b > scratch.aux[s, A_MAX]):
                        st[s, C_ILLEGAL] += 1
                        b = -1
                    if b >= 0:
                        high = s
                        bid = b
                        n_log = _log(log, n_log, rnd, EV_BID, s, b, 0)
                    else:
                        passed[s] = 1
                        n_passed += 1
                        n_log = _log(log, n_log, rnd, EV_PASS, s, 0, 0)
                s += 1  # next seat clockwise; a compare is much cheaper than an integer modulo here
                if s == n_players:
                    s = 0

            if high >= 0:
                st[high, C_CASH] -= bid
                st[high, C_PAID] += bid
                st[high, C_AUCT] += 1
                st[high, C_OVERBID] += bid - v
                _add_card(cval, cround, st, high, v, rnd)
                n_log = _log(log, n_log, rnd, EV_WIN, high, v, bid)
                # The winner opens the next round; this round's sale still runs from ``start``.
                next_start = high
                # 2. direct purchase by the auction winner
                n_shown = 0
                for _ in range(direct_max):
                    if tail - head == 0:
                        break
                    c, s0, s1, s2, s3 = _draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
                    head += 1
                    shown[n_shown] = c
                    n_log = _log(log, n_log, rnd, EV_SHOW, high, shown[n_shown], 0)
                    n_shown += 1
                for k in range(n_shown):
                    c = shown[k]
                    cost = price(c, direct_factor)
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    affordable = cost <= D.spend_limit(st, high, credit)
                    take = False
                    if not affordable:
                        pass
                    elif scorers is not None and D.asked_each_time(scratch, high, D.BUY):
                        take = D.open_buy(scratch, st, rules, rl, scorers, n_players, high, rnd, tail - head, c, cost)
                    else:
                        take = D.buy(scratch, st, pol, tables, high, r, c, cost)
                    if take:
                        st[high, C_CASH] -= cost
                        st[high, C_PAID] += cost
                        st[high, C_DIRECT] += 1
                        _add_card(cval, cround, st, high, c, rnd)
                        n_log = _log(log, n_log, rnd, EV_BUY, high, c, cost)
                    else:
                        _to_bottom(ring, tail, n_deck, c)
                        tail += 1
                        n_log = _log(log, n_log, rnd, EV_SKIP, high, c, 0)
            else:
                unsold_count += 1
                n_log = _log(log, n_log, rnd, EV_UNSOLD, -1, v, unsold_mode)
                if unsold_mode == R.UNSOLD_BOTTOM:
                    _to_bottom(ring, tail, n_deck, v)
                    tail += 1

            # 3. sale, in turn order from the start player
            if not any_seller:  # no seat can ever sell: only the draws each seat's turn makes
                for _ in range(n_players):
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
            else:
                p = start - 1
                for _ in range(n_players):
                    p += 1
                    if p == n_players:
                        p = 0
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    if scorers is not None and D.asked_each_time(scratch, p, D.SELL):
                        pick = D.open_sell(scratch, st, rules, rl, scorers, n_players, p, rnd, tail - head)
                    else:
                        pick = D.sell(scratch, st, pol, rules, p, r, rnd)
                    if debug and pick >= 0 and (pick >= st[p, C_CARDS] or cround[p, pick] >= rnd):
                        st[p, C_ILLEGAL] += 1
                        pick = -1
                    if pick >= 0:
                        c = _remove_card(cval, cround, st, p, pick)
                        gain = price(c, sale_factor)
                        st[p, C_CASH] += gain
                        st[p, C_SOLD_VAL] += gain
                        st[p, C_SOLD_N] += 1
                        _to_bottom(ring, tail, n_deck, c)
                        tail += 1
                        n_log = _log(log, n_log, rnd, EV_SELL, p, c, gain)

            # 4. next active card
            if rnd == n_rounds:
                end = END_ROUNDS
                break
            if tail - head == 0:
                end = END_PILE
                break
            active, s0, s1, s2, s3 = _draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
            head += 1

    # scoring: cash + held value; only players with enough cards may win
    for p in range(n_players):
        st[p, C_ELIG] = 1 if st[p, C_CARDS] >= min_cards else 0
    win_shares(st, min_cards, score, win)
    n_log = _log(log, n_log, rounds, EV_END, -1, end, 0)
    return rounds, end, n_log, tail - head, unsold_count


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
