"""Art Deco one decision at a time: the step interface the ``mcts`` player searches with.

A game in progress is a ``state.World`` (named fixed-size arrays): the engine's own ``state.Scratch`` (the
pile ring, the collections, the auction limits, the generator), the seat counters ``st`` (state.C_*), a
vector ``v`` of counters (``V_*``: phase, round, start player, pile head and tail, the auction's high
bidder and bid, ...), the uniform number ``r`` drawn for the current decision (the engine draws one at each
decision, used by the ``random`` policy only), the final ``score`` and ``win`` and an event log in the
engine's format (engine.EV_*).

The rules are written once, in ``play`` (the loop ``_run``): the batch kernel plays a whole game with one call
(``play(w, ..., stop=0)``: every seat asked of decide.py), a trace the same with its log on, and the search
stops it at the decisions of the seats it searches for (``apply`` is ``play`` resumed with the chosen
action).  While it runs, the game's counters and generator sit in locals and go back into the World when it
stops, so a whole game costs about what a hand-written loop would (benchmarks/bench_art_deco.py).

The decisions (``v[V_PHASE]``), who makes them (``to_move``) and their actions:

- ``PH_BID``: the seat ``v[V_SEAT]`` bids or passes.  Action 0 passes; action b + 1 bids b, any b from the
  minimum legal bid to ``aux[seat, A_MAX]`` (the ceiling and its credit).
- ``PH_BUY``: the auction winner decides on the shown card ``shown[v[V_K]]``: 0 leaves it, 1 buys it
  (only when it can pay).
- ``PH_SELL``: the seat sells: 0 keeps every card, k + 1 sells collection slot k (acquired before this
  round).
- ``PH_OVER``: the game is scored (``score``, ``win``, ``st``).

``apply`` applies one action and plays on to the next decision; ``legal`` lists every legal action;
``builtin`` is what a seat's built-in, rules or custom policy chooses (decide.py, through ``choose_bid``,
``choose_buy`` and ``choose_sale``, which ``play`` asks too); ``copy_world`` copies one World into another
preallocated one (not its policy codes nor its log).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim import rng
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import engine as E
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.state import (  # noqa: F401  (World and its V_*, PH_* names: step.py's interface)
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
    CODE_BID_TABLE,
    CODE_BUY_TABLE,
    CODE_POLICY,
    CODE_SELLS,
    N_AUX,
    N_CODES,
    N_SEAT,
    N_V,
    PH_BID,
    PH_BUY,
    PH_DEAL,
    PH_END,
    PH_OVER,
    PH_ROUND,
    PH_SELL,
    V_ACTIVE,
    V_BID,
    V_END,
    V_HEAD,
    V_HIGH,
    V_K,
    V_MINOPEN,
    V_NEXT,
    V_NLOG,
    V_NPASS,
    V_NSHOWN,
    V_PHASE,
    V_RND,
    V_ROT,
    V_SEAT,
    V_START,
    V_TAIL,
    V_TOP,
    V_UNSOLD,
    Scratch,
    World,
    price,
)
from boardsim.rulelist import STACK

PASS = 0  # pass, leave the shown card, keep every card
MCTS = D.MCTS
ALL = -1  # ``play``'s stop mask: every seat's decisions
NONE = -1  # no pending action


@njit(cache=True, nogil=True)
def world(n_players, n_deck, cap, direct_max, log):
    """A World for ``n_players`` seats and a deck of ``n_deck`` cards, writing its log into ``log``.  One
    allocation signature per dtype, 1-D arrays as the row of a 2-D one: each distinct np.zeros signature
    compiles a numba implementation of its own (~0.2 s each, cold)."""
    scratch = Scratch(
        np.zeros((1, n_deck), dtype=np.int64)[0],
        np.zeros((n_players, cap), dtype=np.int64),
        np.zeros((n_players, cap), dtype=np.int64),
        np.zeros((1, n_players), dtype=np.int64)[0],
        np.zeros((1, direct_max + 1), dtype=np.int64)[0],
        np.zeros((n_players, N_AUX), dtype=np.int64),
        np.zeros((1, 4), dtype=np.uint64)[0],
        np.zeros((n_players, N_CODES), dtype=np.int64),
        np.zeros((n_players, D.N_FEATURES), dtype=np.float64),
        np.zeros((cap + 1, D.N_COLUMNS), dtype=np.float64),  # keep, or sell any one card of a collection
        np.zeros((1, cap + 1), dtype=np.float64)[0],
        np.zeros((1, STACK), dtype=np.float64)[0],
    )
    # no progress recorded (P, 0): the batch kernels play each game in a World over its rows of the outputs
    return World(scratch, np.zeros((n_players, N_SEAT), dtype=np.int64), np.zeros((1, N_V), dtype=np.int64)[0],
                 np.zeros((1, 1), dtype=np.float64)[0], np.zeros((1, n_players), dtype=np.int64)[0],
                 np.zeros((1, n_players), dtype=np.float64)[0], log, np.zeros((n_players, 0), dtype=np.int64),
                 np.zeros((n_players, 0), dtype=np.int64))


@njit(cache=True, nogil=True)
def new_world(n_players, n_deck, cap, direct_max, log_rows):
    """``world`` with a log of its own, ``log_rows`` events long."""
    return world(n_players, n_deck, cap, direct_max, np.zeros((log_rows, E.LOG_WIDTH), dtype=np.int64))


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _cp1(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _cp2(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def copy_world(src, dst):
    """dst = src: the game state and the generator (not dst's policy codes, decision views, log or progress)."""
    a, b = src.scratch, dst.scratch
    _cp1(a.ring, b.ring)
    _cp2(a.cval, b.cval)
    _cp2(a.cround, b.cround)
    _cp1(a.passed, b.passed)
    _cp1(a.shown, b.shown)
    _cp2(a.aux, b.aux)
    for i in range(4):
        b.rng[i] = a.rng[i]
    _cp2(src.st, dst.st)
    _cp1(src.v, dst.v)
    dst.r[0] = src.r[0]
    for p in range(src.score.shape[0]):
        dst.score[p] = src.score[p]
        dst.win[p] = src.win[p]


@njit(cache=True, nogil=True, inline="always")
def set_codes(w, pol, rules):
    """The world's policy codes (kernel._play_range's), for the policy matrix ``pol`` it is played with.
    An mcts seat may sell only when a card can sell above its value (sale factor > 1)."""
    codes = w.scratch.codes
    for q in range(codes.shape[0]):
        codes[q, CODE_POLICY] = int(pol[q, D.COL_CODE])
        codes[q, CODE_BID_TABLE] = 0
        codes[q, CODE_BUY_TABLE] = 0
        D.set_open_codes(codes, pol, q)
        if codes[q, CODE_POLICY] == MCTS:
            codes[q, CODE_SELLS] = 1 if rules[R.R_SALE_FACTOR] > 1.0 else 0
            continue
        codes[q, CODE_SELLS] = D.may_sell(pol, q, rules[R.R_SALE_FACTOR])
        if codes[q, CODE_POLICY] == D.RULES:
            codes[q, CODE_BID_TABLE] = pol[q, D.P_BID_TABLE] != 0
            codes[q, CODE_BUY_TABLE] = pol[q, D.P_BUY_TABLE] != 0


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def setup(w, seed, rules, deck, pol, tables):
    """Deal the game of generator seed ``seed`` and advance to its first decision (or its end).  ``pol`` and
    ``tables`` are the policy matrix and rule tables the world is played with (its codes: ``set_codes``)."""
    deal(w, seed, deck)
    play(w, rules, pol, tables, None, None, ALL, None)


@njit(cache=True, nogil=True, inline="always")
def deal(w, seed, deck):
    """A fresh game of generator seed ``seed``, its pile in deck order: ``play`` deals it."""
    rng.seed_state(seed, w.scratch.rng)
    for i in range(deck.shape[0]):
        w.scratch.ring[i] = deck[i]
    w.v[V_PHASE] = PH_DEAL


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def refresh(w, pol, tables, rules):
    """Work out the current auction's limits again for the policies ``pol`` (after a copy from a world
    played with other policies: the limits are fixed for an auction, see decide.auction_start)."""
    if w.v[V_PHASE] != PH_BID:
        return
    n_players = w.st.shape[0]
    credit = int(rules[R.R_CREDIT])
    for q in range(n_players):
        D.auction_start(w.scratch, w.st, pol, tables, n_players, q, w.v[V_ACTIVE],
                        min(w.v[V_TOP], D.spend_limit(w.st, q, credit)))


@njit(cache=True, nogil=True, inline="always")
def choose_bid(w, rules, pol, tables, rl, scorers, s, r, rnd, pile, c, mb, high, bid, n_in):
    """What seat ``s`` bids (-1: pass), asked of decide.py as every caller asks it."""
    if scorers is not None and D.asked_each_time(w.scratch, s, D.BID):
        return D.open_bid(w.scratch, w.st, rules, tables, rl, scorers, w.st.shape[0], s, rnd, pile, c, mb, high, bid,
                          n_in)
    return D.bid(w.scratch, w.st, pol, s, r, c, mb, high)


@njit(cache=True, nogil=True, inline="always")
def choose_buy(w, rules, pol, tables, rl, scorers, s, r, rnd, pile, c, cost):
    """Whether the auction winner ``s`` buys the shown card ``c`` at ``cost`` (which it can pay)."""
    if scorers is not None and D.asked_each_time(w.scratch, s, D.BUY):
        return D.open_buy(w.scratch, w.st, rules, tables, rl, scorers, w.st.shape[0], s, rnd, pile, c, cost)
    return D.buy(w.scratch, w.st, pol, tables, s, r, c, cost)


@njit(cache=True, nogil=True, inline="always")
def choose_sale(w, rules, pol, tables, rl, scorers, s, r, rnd, pile):
    """The collection slot seat ``s`` sells (-1: keep every card)."""
    if scorers is not None and D.asked_each_time(w.scratch, s, D.SELL):
        return D.open_sell(w.scratch, w.st, rules, tables, rl, scorers, w.st.shape[0], s, rnd, pile)
    return D.sell(w.scratch, w.st, pol, rules, s, r, rnd)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def play(w, rules, pol, tables, rl, scorers, stop, stop_round):
    """Play on from the current state, asking decide.py for the decisions of seats not in the bit mask
    ``stop``, until a decision of a seat in ``stop`` (its uniform drawn into ``r``), the first decision of
    round ``stop_round`` (None: no such stop) or the game's end."""
    _run(w, None, rules, pol, tables, rl, scorers, stop, stop_round)


def rules_loop(w, pending, rules, pol, tables, rl, scorers, stop, stop_round):
    """The rules, written once: every caller (the batch kernel, a trace, ``apply``, the search) plays
    through this loop.  ``pending`` is the action of the current decision (its uniform already drawn), or
    None; ``stop`` and ``stop_round`` are ``play``'s, None for neither (a whole game: ``run``).

    The state lives in locals while the loop runs and goes back into ``w`` when it stops: held in the
    World's arrays, every store (the generator's above all) made LLVM reload the game's other values, and
    the batch kernel ran at 0.7x its speed."""
    # None arguments are types of their own: numba compiles no check for them, and LLVM folds these constants
    todo = NONE if pending is None else pending
    halt = 0 if stop is None else stop
    scratch = w.scratch
    st = w.st
    v = w.v
    ring = scratch.ring
    passed = scratch.passed
    shown = scratch.shown
    g = scratch.rng
    n_players = st.shape[0]
    n_deck = ring.shape[0]
    # what each decision reads in locals; what changes once a round stays in ``rules`` and ``v`` (fewer values
    # live across the loop: fewer spilled to the stack)
    credit = int(rules[R.R_CREDIT])
    debug = rules[R.R_DEBUG] != 0.0
    shuffled = rules[R.R_SHUFFLE] != 0.0
    direct_factor = rules[R.R_DIRECT_FACTOR]
    sale_factor = rules[R.R_SALE_FACTOR]
    logging = w.log.shape[0] > 0
    recording = w.progress.shape[1] > 0  # each round's scores and cards (World.progress; 0 rounds: off)
    ph = v[V_PHASE]
    rnd = v[V_RND]
    head = v[V_HEAD]
    tail = v[V_TAIL]
    c = v[V_ACTIVE]
    high = v[V_HIGH]
    bid = v[V_BID]
    n_passed = v[V_NPASS]
    s = v[V_SEAT]
    k = v[V_K]
    n_shown = v[V_NSHOWN]
    min_open = v[V_MINOPEN]
    s0, s1, s2, s3 = g[0], g[1], g[2], g[3]
    any_seller = False
    for q in range(n_players):
        any_seller = any_seller or scratch.codes[q, CODE_SELLS] != 0
    # One pass of this loop is a round, its phases in order; ``ph`` says where a stopped game resumes.
    while ph != PH_OVER:
        if ph == PH_DEAL:
            for i in range(N_V):
                v[i] = 0
            v[V_END] = E.END_PILE
            st[:, :] = 0
            rnd = head = c = high = bid = n_passed = s = k = n_shown = min_open = 0
            tail = n_deck
            for p in range(n_players):
                for _ in range(int(rules[R.R_HAND])):
                    if tail - head == 0:
                        break
                    x, s0, s1, s2, s3 = E._draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
                    head += 1
                    E._add_card(scratch.cval, scratch.cround, st, p, x, 0)
                    st[p, C_DEALT] += x
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], 0, E.EV_DEAL, p, x, 0)
            if tail - head > 0:
                c, s0, s1, s2, s3 = E._draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
                head += 1
                ph = PH_ROUND
            else:
                ph = PH_END
        if ph == PH_ROUND:
            # a round begins with the active card ``c``: its start player and the auction's limits
            rnd += 1
            start = v[V_ROT] if int(rules[R.R_START]) == R.START_ROTATE else v[V_NEXT]
            v[V_START] = start
            v[V_ROT] += 1  # rot = (rnd - 1) % n_players without an integer division each round
            if v[V_ROT] == n_players:
                v[V_ROT] = 0
            if logging:
                v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_ACTIVE, start, c, 0)
            min_open, top = E.opening_range(c, rules[R.R_OPEN], int(rules[R.R_CEILING]))
            v[V_TOP] = top
            high = -1
            bid = 0
            n_passed = 0
            for q in range(n_players):
                passed[q] = 0
                D.auction_start(scratch, st, pol, tables, n_players, q, c, min(top, D.spend_limit(st, q, credit)))
            s = start
            ph = PH_BID
        if ph == PH_BID:
            while (high < 0 and n_passed < n_players) or (high >= 0 and n_passed < n_players - 1):
                if passed[s] == 0 and s != high:
                    mb = min_open if high < 0 else bid + 1
                    if todo == NONE:
                        # drawn for every decision, used only by the random policy (a draw under a
                        # data-dependent branch ran ~10x slower)
                        r, s0, s1, s2, s3 = E._rand(s0, s1, s2, s3)
                        if (halt >> s) & 1 or (stop_round is not None and rnd >= stop_round):
                            w.r[0] = r
                            break
                        b = choose_bid(w, rules, pol, tables, rl, scorers, s, r, rnd, tail - head, c, mb, high, bid,
                                       n_players - n_passed)
                    else:
                        b = todo - 1
                        todo = NONE
                    if debug and b >= 0 and (b < mb or b > scratch.aux[s, A_MAX]):
                        st[s, C_ILLEGAL] += 1
                        b = -1
                    if b >= 0:
                        high = s
                        bid = b
                        if logging:
                            v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_BID, s, b, 0)
                    else:
                        passed[s] = 1
                        n_passed += 1
                        if logging:
                            v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_PASS, s, 0, 0)
                s += 1  # next seat clockwise; a compare is much cheaper than an integer modulo here
                if s == n_players:
                    s = 0
            else:
                # the auction is over: the winner pays and is shown cards for a direct purchase
                k = 0
                if high >= 0:
                    st[high, C_CASH] -= bid
                    st[high, C_PAID] += bid
                    st[high, C_AUCT] += 1
                    st[high, C_OVERBID] += bid - c
                    E._add_card(scratch.cval, scratch.cround, st, high, c, rnd)
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_WIN, high, c, bid)
                    v[V_NEXT] = high  # the winner opens the next round; this round's sale runs from ``start``
                    n_shown = 0
                    for _ in range(int(rules[R.R_DIRECT_MAX])):
                        if tail - head == 0:
                            break
                        x, s0, s1, s2, s3 = E._draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
                        head += 1
                        shown[n_shown] = x
                        if logging:
                            v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_SHOW, high, x, 0)
                        n_shown += 1
                    s = high
                    ph = PH_BUY
                else:
                    v[V_UNSOLD] += 1
                    mode = int(rules[R.R_UNSOLD])
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_UNSOLD, -1, c, mode)
                    if mode == R.UNSOLD_BOTTOM:
                        E._to_bottom(ring, tail, n_deck, c)
                        tail += 1
                    ph = PH_SELL
            if ph == PH_BID:  # stopped at a decision
                break
        if ph == PH_BUY:
            while k < n_shown:
                x = shown[k]
                cost = price(x, direct_factor)
                ok = cost <= D.spend_limit(st, s, credit)
                if todo == NONE:
                    r, s0, s1, s2, s3 = E._rand(s0, s1, s2, s3)
                    if (halt >> s) & 1 or (stop_round is not None and rnd >= stop_round):
                        w.r[0] = r
                        break
                    take = ok and choose_buy(w, rules, pol, tables, rl, scorers, s, r, rnd, tail - head, x, cost)
                else:
                    take = ok and todo == 1
                    todo = NONE
                if take:
                    st[s, C_CASH] -= cost
                    st[s, C_PAID] += cost
                    st[s, C_DIRECT] += 1
                    E._add_card(scratch.cval, scratch.cround, st, s, x, rnd)
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_BUY, s, x, cost)
                else:
                    E._to_bottom(ring, tail, n_deck, x)
                    tail += 1
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_SKIP, s, x, 0)
                k += 1
            else:
                k = 0
                ph = PH_SELL
            if ph == PH_BUY:
                break
        if ph == PH_SELL:
            if k == 0 and not any_seller:  # no seat can ever sell: only the draws each seat's turn makes
                for _ in range(n_players):
                    r, s0, s1, s2, s3 = E._rand(s0, s1, s2, s3)
                k = n_players
            while k < n_players:
                s = v[V_START] + k  # in turn order from the start player
                if s >= n_players:
                    s -= n_players
                if todo == NONE:
                    r, s0, s1, s2, s3 = E._rand(s0, s1, s2, s3)
                    if (halt >> s) & 1 or (stop_round is not None and rnd >= stop_round):
                        w.r[0] = r
                        break
                    pick = choose_sale(w, rules, pol, tables, rl, scorers, s, r, rnd, tail - head)
                else:
                    pick = todo - 1
                    todo = NONE
                if debug and pick >= 0 and (pick >= st[s, C_CARDS] or scratch.cround[s, pick] >= rnd):
                    st[s, C_ILLEGAL] += 1
                    pick = -1
                if pick >= 0:
                    x = E._remove_card(scratch.cval, scratch.cround, st, s, pick)
                    gain = price(x, sale_factor)
                    st[s, C_CASH] += gain
                    st[s, C_SOLD_VAL] += gain
                    st[s, C_SOLD_N] += 1
                    E._to_bottom(ring, tail, n_deck, x)
                    tail += 1
                    if logging:
                        v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_SELL, s, x, gain)
                k += 1
            else:
                if recording and rnd <= w.progress.shape[1]:  # the round is over: its standings
                    E._record(w.progress, w.progress_cards, st, rnd - 1, rnd)
                # the next active card, or the end
                if rnd == int(rules[R.R_ROUNDS]):
                    v[V_END] = E.END_ROUNDS
                    ph = PH_END
                elif tail - head == 0:
                    v[V_END] = E.END_PILE
                    ph = PH_END
                else:
                    c, s0, s1, s2, s3 = E._draw(ring, head, n_deck, shuffled, s0, s1, s2, s3)
                    head += 1
                    ph = PH_ROUND
            if ph == PH_SELL:
                break
        if ph == PH_END:
            # the rules' scoring: cash + held value; only players with enough cards may win
            min_cards = int(rules[R.R_MIN_CARDS])
            for p in range(n_players):
                st[p, C_ELIG] = 1 if st[p, C_CARDS] >= min_cards else 0
            E.win_shares(st, min_cards, w.score, w.win)
            if recording and rnd < w.progress.shape[1]:  # the rounds the game did not reach keep its end
                E._record(w.progress, w.progress_cards, st, rnd, w.progress.shape[1])
            if logging:
                v[V_NLOG] = E._log(w.log, v[V_NLOG], rnd, E.EV_END, -1, v[V_END], 0)
            ph = PH_OVER
    v[V_PHASE] = ph
    v[V_RND] = rnd
    v[V_HEAD] = head
    v[V_TAIL] = tail
    v[V_ACTIVE] = c
    v[V_HIGH] = high
    v[V_BID] = bid
    v[V_NPASS] = n_passed
    v[V_SEAT] = s
    v[V_K] = k
    v[V_NSHOWN] = n_shown
    v[V_MINOPEN] = min_open
    g[0], g[1], g[2], g[3] = s0, s1, s2, s3


# The one rules loop in two compiled forms (distinct signatures, so their cache entries never meet): ``run``, a
# whole game as a function of its own, which the batch kernel calls through a function pointer (LLVM optimises
# the loop once, not again inside each caller), and ``_run``, inlined into ``play`` and ``apply`` for the search.
run = njit(cache=True, nogil=True, _nrt=False, no_cpython_wrapper=True)(rules_loop)
_run = njit(cache=True, nogil=True, _nrt=False, forceinline=True)(rules_loop)


@njit(cache=True, nogil=True, inline="always")
def to_move(w):
    """The seat making the current decision (-1 when the game is over)."""
    return -1 if w.v[V_PHASE] == PH_OVER else w.v[V_SEAT]


@njit(cache=True, nogil=True, inline="always")
def min_bid(w):
    return w.v[V_MINOPEN] if w.v[V_HIGH] < 0 else w.v[V_BID] + 1


@njit(cache=True, nogil=True, inline="always")
def shown_cost(w, rules):
    """The card shown for the current direct-purchase decision, its price and whether the winner can pay."""
    c = w.scratch.shown[w.v[V_K]]
    cost = price(c, rules[R.R_DIRECT_FACTOR])
    return c, cost, cost <= D.spend_limit(w.st, w.v[V_SEAT], int(rules[R.R_CREDIT]))


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def legal(w, rules, buf):
    """Every legal action of the current decision into ``buf``; returns how many (0 when over).
    ``buf`` needs max card value + bid_ceiling + 2 entries for a bid."""
    ph = w.v[V_PHASE]
    buf[0] = PASS
    if ph == PH_BID:
        s = w.v[V_SEAT]
        n = 1
        for b in range(min_bid(w), w.scratch.aux[s, A_MAX] + 1):
            buf[n] = b + 1
            n += 1
        return n
    if ph == PH_BUY:
        _c, _cost, ok = shown_cost(w, rules)
        if ok:
            buf[1] = 1
            return 2
        return 1
    if ph == PH_SELL:
        p = w.v[V_SEAT]
        n = 1
        for k in range(w.st[p, C_CARDS]):
            if w.scratch.cround[p, k] < w.v[V_RND]:
                buf[n] = k + 1
                n += 1
        return n
    return 0


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def builtin(w, rules, pol, tables, rl, scorers):
    """The action a built-in, rules or custom seat chooses at the current decision (decide.py, asked
    exactly as ``play`` asks it)."""
    v = w.v
    ph = v[V_PHASE]
    s = v[V_SEAT]
    pile = v[V_TAIL] - v[V_HEAD]
    if ph == PH_BID:
        b = choose_bid(w, rules, pol, tables, rl, scorers, s, w.r[0], v[V_RND], pile, v[V_ACTIVE], min_bid(w),
                       v[V_HIGH], v[V_BID], w.st.shape[0] - v[V_NPASS])
        return b + 1 if b >= 0 else PASS
    if ph == PH_BUY:
        c, cost, ok = shown_cost(w, rules)
        return 1 if ok and choose_buy(w, rules, pol, tables, rl, scorers, s, w.r[0], v[V_RND], pile, c, cost) else PASS
    if ph == PH_SELL:
        return choose_sale(w, rules, pol, tables, rl, scorers, s, w.r[0], v[V_RND], pile) + 1
    return PASS


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def apply(w, a, rules, pol, tables):
    """Apply action ``a`` at the current decision and advance to the next one.  In debug mode an illegal
    bid or sale is counted (``illegal``) and played as a pass or keep."""
    if w.v[V_PHASE] != PH_OVER:
        _run(w, a, rules, pol, tables, None, None, ALL, None)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def outputs(w, row, score, win, seat_out, game_out):
    """Write a finished game into row ``row`` of the batch outputs (kernel._play_games' layout; its progress,
    if recorded, is already in the arrays ``w.progress`` views)."""
    n_players = w.st.shape[0]
    for p in range(n_players):
        score[row, p] = w.score[p]
        win[row, p] = w.win[p]
        for j in range(N_SEAT):
            seat_out[row, p, j] = w.st[p, j]
    game_counters(w, row, game_out)


@njit(cache=True, nogil=True, inline="always")
def game_counters(w, row, game_out):
    """A finished game's row of ``game_out`` (engine.G_*)."""
    game_out[row, E.G_ROUNDS] = w.v[V_RND]
    game_out[row, E.G_FIRST] = 0
    game_out[row, E.G_END] = w.v[V_END]
    game_out[row, E.G_PILE_LEFT] = w.v[V_TAIL] - w.v[V_HEAD]
    game_out[row, E.G_UNSOLD] = w.v[V_UNSOLD]
