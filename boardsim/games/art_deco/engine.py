"""The jitted Art Deco engine: one game in ``play_game``, a batch in ``play_batch``.

State lives in small NumPy arrays.  The pile is a ring buffer shuffled lazily
(a forward Fisher-Yates step per draw), which deals the same distribution as a
full shuffle but only pays for the cards actually drawn.  Cards sold or left
unbought go to the ring's tail, i.e. the bottom of the pile.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from boardsim import rng
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.policies import BLOCKER, RANDOM, bid_limits, choose_bid, sell_margin, wants_direct

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

GAME_COUNTERS = ("pile_left", "unsold")
END_REASONS = ("rounds", "pile_empty")
END_ROUNDS, END_PILE = 0, 1
# game_out columns: rounds, first_player, end, then GAME_COUNTERS
N_GAME = 3 + len(GAME_COUNTERS)

# trace log: one row per event (round, event, seat, a, b)
EV_DEAL, EV_ACTIVE, EV_BID, EV_PASS, EV_WIN, EV_UNSOLD, EV_SHOW, EV_BUY, EV_SKIP, EV_SELL, EV_END = range(11)
LOG_WIDTH = 5
# per-seat auction scratch (aux columns): spending limit, the leader a blocker watches (-2: none),
# highest bid when that leader is not / is the high bidder
A_MAX, A_LEADER, A_LIM, A_LIM_LEADER = range(4)
N_AUX = 4
NO_CREDIT_LIMIT = 1 << 40


_rand = rng.step  # the generator in four scalars (see rng.step)


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _to_bottom(ring, tail, n_deck, value):
    """Put ``value`` at the bottom of the pile; ``tail`` (>= n_deck) counts cards ever placed there."""
    k = tail - n_deck
    if k >= n_deck:
        k = tail % n_deck
    ring[k] = value


@njit(cache=True, nogil=True, inline="always")
def _log(log, n_log, rnd, ev, seat, a, b):
    if n_log < log.shape[0]:
        log[n_log, 0] = rnd
        log[n_log, 1] = ev
        log[n_log, 2] = seat
        log[n_log, 3] = a
        log[n_log, 4] = b
        return n_log + 1
    return n_log


@njit(cache=True, nogil=True, inline="always")
def _price(value, factor):
    if factor == 1.0:  # the default, and floor(v + 0.5) == v: skip the float round trip
        return value
    return int(math.floor(value * factor + 0.5))


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


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _max_spend(st, p, credit):
    if credit < 0:
        return NO_CREDIT_LIMIT
    return st[p, C_CASH] + credit


@njit(cache=True, nogil=True, inline="always")
def _leader_other(st, n_players, me):
    """The opponent with the best standing (cash + held value); lowest seat on ties."""
    best = -1
    best_val = 0
    for q in range(n_players):
        if q == me:
            continue
        val = st[q, C_CASH] + st[q, C_HELD_VAL]
        if best < 0 or val > best_val:
            best = q
            best_val = val
    return best


@njit(cache=True, nogil=True, _nrt=False)
def play_game(seed, n_players, rules, deck, pol, codes, st, score, win, ring, cval, cround, passed, shown, aux, state,
              log):
    """Play one game.  Writes seat counters into ``st`` (P, N_SEAT), ``score`` and ``win`` (P,).

    ``codes`` holds each seat's policy code (column 0 of ``pol`` as integers) and whether it may ever
    sell.  Returns (rounds played, end reason, log rows written, pile left, unsold count).  ``ring``,
    ``cval``, ``cround``, ``passed``, ``shown``, ``aux`` and ``state`` (the generator's seed) are scratch.
    """
    rng.seed_state(seed, state)
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
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
        any_seller = any_seller or codes[q, 1] != 0

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
                passed[q] = False
                # Cash, cards and standings stay fixed during an auction, so each seat's spending
                # limit, the leader a blocker watches and a deterministic policy's reservation are
                # worked out once here rather than at each of its bidding turns.
                max_bid = min(top, _max_spend(st, q, credit))
                aux[q, A_MAX] = max_bid
                aux[q, A_LEADER] = _leader_other(st, n_players, q) if codes[q, 0] == BLOCKER else -2
                if codes[q, 0] != RANDOM:
                    lo, hi = bid_limits(pol, q, v, st[q, C_CARDS], max_bid)
                    aux[q, A_LIM] = lo
                    aux[q, A_LIM_LEADER] = hi
            s = start
            while True:
                if high < 0 and n_passed == n_players:
                    break
                if high >= 0 and n_passed == n_players - 1:
                    break
                if not passed[s] and s != high:
                    min_bid = min_open if high < 0 else bid + 1
                    # drawn for every decision, used only by the random policy (see _draw)
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    if codes[s, 0] == RANDOM:
                        max_bid = aux[s, A_MAX]
                        b = choose_bid(pol, s, r, v, min_bid, max_bid, st[s, C_CARDS], False)
                        if b >= 0 and (b < min_bid or b > max_bid):
                            if debug:
                                st[s, C_ILLEGAL] += 1
                            b = -1
                    else:  # choose_bid's reservation rule: the minimum bid while it is within the limit
                        lim = aux[s, A_LIM_LEADER] if high == aux[s, A_LEADER] else aux[s, A_LIM]
                        b = min_bid if min_bid <= lim else -1
                    if b >= 0:
                        high = s
                        bid = b
                        n_log = _log(log, n_log, rnd, EV_BID, s, b, 0)
                    else:
                        passed[s] = True
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
                    price = _price(c, direct_factor)
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    affordable = price <= _max_spend(st, high, credit)
                    if affordable and wants_direct(pol, high, r, c, price, st[high, C_CARDS]):
                        st[high, C_CASH] -= price
                        st[high, C_PAID] += price
                        st[high, C_DIRECT] += 1
                        _add_card(cval, cround, st, high, c, rnd)
                        n_log = _log(log, n_log, rnd, EV_BUY, high, c, price)
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
                    pick = -1
                    r, s0, s1, s2, s3 = _rand(s0, s1, s2, s3)
                    if codes[p, 0] == RANDOM:
                        n_ok = 0
                        for k in range(st[p, C_CARDS]):
                            if cround[p, k] < rnd:
                                n_ok += 1
                        if n_ok > 0 and r < pol[p, 4]:
                            which = int(r / pol[p, 4] * n_ok)  # r is uniform below sell_prob
                            for k in range(st[p, C_CARDS]):
                                if cround[p, k] < rnd:
                                    if which == 0:
                                        pick = k
                                        break
                                    which -= 1
                    elif codes[p, 1] != 0 and st[p, C_CARDS] > min_cards:
                        best_gain = 0
                        margin = sell_margin(pol, p)
                        for k in range(st[p, C_CARDS]):
                            if cround[p, k] < rnd:
                                gain = _price(cval[p, k], sale_factor) - cval[p, k]
                                if gain >= margin and (pick < 0 or gain > best_gain):
                                    pick = k
                                    best_gain = gain
                    if pick >= 0:
                        c = _remove_card(cval, cround, st, p, pick)
                        price = _price(c, sale_factor)
                        st[p, C_CASH] += price
                        st[p, C_SOLD_VAL] += price
                        st[p, C_SOLD_N] += 1
                        _to_bottom(ring, tail, n_deck, c)
                        tail += 1
                        n_log = _log(log, n_log, rnd, EV_SELL, p, c, price)

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
    best = 0
    best_cards = 0
    n_best = 0
    for p in range(n_players):
        score[p] = st[p, C_CASH] + st[p, C_HELD_VAL]
        st[p, C_ELIG] = 1 if st[p, C_CARDS] >= min_cards else 0
        win[p] = 0.0
        if st[p, C_ELIG] == 1:
            better = n_best == 0 or score[p] > best or (score[p] == best and st[p, C_CARDS] > best_cards)
            if better:
                best = score[p]
                best_cards = st[p, C_CARDS]
                n_best = 1
            elif score[p] == best and st[p, C_CARDS] == best_cards:
                n_best += 1
    if n_best > 0:
        for p in range(n_players):
            if st[p, C_ELIG] == 1 and score[p] == best and st[p, C_CARDS] == best_cards:
                win[p] = 1.0 / n_best
    n_log = _log(log, n_log, rounds, EV_END, -1, end, 0)
    return rounds, end, n_log, tail - head, unsold_count


@njit(cache=True, nogil=True)
def collection_capacity(rules):
    return int(rules[R.R_HAND]) + int(rules[R.R_ROUNDS]) * (1 + int(rules[R.R_DIRECT_MAX])) + 1


@njit(cache=True, nogil=True)
def _play_range(key, first, lo, hi, n_players, rules, deck, pol, score, win, seat_out, game_out, log):
    """Games lo..hi-1 of this batch, sharing one set of scratch arrays."""
    cap = collection_capacity(rules)
    ring = np.empty(deck.shape[0], dtype=np.int64)
    cval = np.empty((n_players, cap), dtype=np.int64)
    cround = np.empty((n_players, cap), dtype=np.int64)
    passed = np.zeros(n_players, dtype=np.bool_)
    shown = np.empty(int(rules[R.R_DIRECT_MAX]) + 1, dtype=np.int64)
    aux = np.empty((n_players, N_AUX), dtype=np.int64)
    state = np.empty(4, dtype=np.uint64)
    codes = np.empty((n_players, 2), dtype=np.int64)
    for q in range(n_players):
        codes[q, 0] = int(pol[q, 0])
        # can this seat ever sell? at a sale factor <= 1 no card sells above its value, so a
        # deterministic policy sells only with a margin <= 0
        codes[q, 1] = codes[q, 0] == RANDOM or rules[R.R_SALE_FACTOR] > 1.0 or sell_margin(pol, q) <= 0
    return _play_games(key, first, lo, hi, n_players, rules, deck, pol, score, win, seat_out, game_out, log,
                       ring, cval, cround, passed, shown, aux, state, codes)


@njit(cache=True, nogil=True, _nrt=False)
def _play_games(key, first, lo, hi, n_players, rules, deck, pol, score, win, seat_out, game_out, log,
                ring, cval, cround, passed, shown, aux, state, codes):
    """The allocation-free game loop of ``_play_range``: compiled without NRT, so passing the
    arrays and taking the per-game row views costs no reference counting."""
    n_log = 0
    for i in range(lo, hi):
        seed = rng.game_seed(key, first + i)
        rounds, end, n_log, left, unsold = play_game(
            seed, n_players, rules, deck, pol, codes, seat_out[i], score[i], win[i],
            ring, cval, cround, passed, shown, aux, state, log,
        )
        game_out[i, 0] = rounds
        game_out[i, 1] = 0  # round 1 always opens with seat 0; the runner rotates seats
        game_out[i, 2] = end
        game_out[i, 3] = left
        game_out[i, 4] = unsold
    return n_log


@njit(parallel=True, cache=True, nogil=True)
def play_batch(key, first, n_players, rules, deck, pol, score, win, seat_out, game_out):
    """Games first..first+n-1 of a cell; each writes only its own rows."""
    n = score.shape[0]
    n_blocks = min(n, 256)
    no_log = np.zeros((0, LOG_WIDTH), dtype=np.int64)
    for b in prange(n_blocks):
        lo = b * n // n_blocks
        hi = (b + 1) * n // n_blocks
        _play_range(key, first, lo, hi, n_players, rules, deck, pol, score, win, seat_out, game_out, no_log)


@njit(cache=True, nogil=True)
def trace_game(key, index, n_players, rules, deck, pol, max_events):
    """One game with its event log, through the same ``play_game``."""
    score = np.zeros((1, n_players), dtype=np.int64)
    win = np.zeros((1, n_players), dtype=np.float64)
    seat_out = np.zeros((1, n_players, N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, N_GAME), dtype=np.int64)
    log = np.zeros((max_events, LOG_WIDTH), dtype=np.int64)
    n_log = _play_range(key, index, 0, 1, n_players, rules, deck, pol, score, win, seat_out, game_out, log)
    return score[0], win[0], seat_out[0], game_out[0], log[:n_log]
