"""Art Deco one decision at a time: the step interface the ``mcts`` player searches with.

A game in progress is a ``state.World`` (named fixed-size arrays): the engine's own ``state.Scratch`` (the
pile ring, the collections, the auction limits, the generator), the seat counters ``st`` (state.C_*), a
vector ``v`` of counters (``V_*``: phase, round, start player, pile head and tail, the auction's high
bidder and bid, ...), the uniform number ``r`` drawn for the current decision (the engine draws one at each
decision, used by the ``random`` policy only), the final ``score`` and ``win`` and an event log in the
engine's format (engine.EV_*).

The rules are the batch engine's (``engine.play_game``), played from its own helpers (``_draw``,
``_to_bottom``, ``_add_card``, ``_remove_card``, ``opening_range``, ``_log``) and in the same order, with
the same generator draws, so that a game played here choosing what ``decide.py`` chooses is the batch
kernel's game exactly (tests/games/art_deco/test_mcts.py checks it for several player counts, rules and
policies).  The batch kernel keeps its own loop (engine.py, unchanged: its results fingerprint holds);
stepping a whole game costs about what the batch kernel does (~2 us a game on one core at yardstick 0.5)
because every step function is compiled without reference counting and inlined by LLVM (``forceinline``:
called as separate functions, passing the ~20 arrays of a World cost ten times more).

The decisions (``v[V_PHASE]``), who makes them (``to_move``) and their actions:

- ``PH_BID``: the seat ``v[V_SEAT]`` bids or passes.  Action 0 passes; action b + 1 bids b, any b from the
  minimum legal bid to ``aux[seat, A_MAX]`` (the ceiling and its credit).
- ``PH_BUY``: the auction winner decides on the shown card ``shown[v[V_K]]``: 0 leaves it, 1 buys it
  (only when it can pay).
- ``PH_SELL``: the seat sells: 0 keeps every card, k + 1 sells collection slot k (acquired before this
  round).
- ``PH_OVER``: the game is scored (``score``, ``win``, ``st``).

``apply`` applies one action and ``advance``s to the next decision; ``legal`` lists every legal action;
``builtin`` is what a seat's built-in, rules or custom policy chooses (decide.py); ``copy_world`` copies
one World into another preallocated one (not its policy codes nor its log).
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
    PH_OVER,
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
    V_ROUNDS,
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


@njit(cache=True, nogil=True)
def new_world(n_players, n_deck, cap, direct_max, log_rows):
    scratch = Scratch(
        np.zeros(n_deck, dtype=np.int64),
        np.zeros((n_players, cap), dtype=np.int64),
        np.zeros((n_players, cap), dtype=np.int64),
        np.zeros(n_players, dtype=np.int64),
        np.zeros(direct_max + 1, dtype=np.int64),
        np.zeros((n_players, N_AUX), dtype=np.int64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((n_players, N_CODES), dtype=np.int64),
        np.zeros((n_players, D.N_FEATURES), dtype=np.float64),
        np.zeros((cap + 1, D.N_COLUMNS), dtype=np.float64),
        np.zeros(cap + 1, dtype=np.float64),
        np.zeros(STACK, dtype=np.float64),
    )
    return World(scratch, np.zeros((n_players, N_SEAT), dtype=np.int64), np.zeros(N_V, dtype=np.int64),
                 np.zeros(1, dtype=np.float64), np.zeros(n_players, dtype=np.int64),
                 np.zeros(n_players, dtype=np.float64), np.zeros((log_rows, E.LOG_WIDTH), dtype=np.int64))


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
    """dst = src: the game state and the generator (not dst's policy codes, decision views or log)."""
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


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
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


@njit(cache=True, nogil=True, inline="always")
def _rand(w):
    g = w.scratch.rng
    r, g[0], g[1], g[2], g[3] = E._rand(g[0], g[1], g[2], g[3])
    return r


@njit(cache=True, nogil=True, inline="always")
def _draw(w, n_deck, shuffled):
    g = w.scratch.rng
    c, g[0], g[1], g[2], g[3] = E._draw(w.scratch.ring, w.v[V_HEAD], n_deck, shuffled, g[0], g[1], g[2], g[3])
    w.v[V_HEAD] += 1
    return c


@njit(cache=True, nogil=True, inline="always")
def _bottom(w, n_deck, c):
    E._to_bottom(w.scratch.ring, w.v[V_TAIL], n_deck, c)
    w.v[V_TAIL] += 1


@njit(cache=True, nogil=True, inline="always")
def _log(w, rnd, ev, seat, a, b):
    w.v[V_NLOG] = E._log(w.log, w.v[V_NLOG], rnd, ev, seat, a, b)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def setup(w, seed, rules, deck, pol, tables):
    """Deal the game of generator seed ``seed`` (engine.play_game's setup, the same draws) and advance to
    its first decision (or its end).  ``pol`` and ``tables`` are the policy matrix and rule tables the world is
    played with (its codes: ``set_codes``)."""
    scratch = w.scratch
    rng.seed_state(seed, scratch.rng)
    n_deck = deck.shape[0]
    shuffled = rules[R.R_SHUFFLE] != 0.0
    for i in range(n_deck):
        scratch.ring[i] = deck[i]
    for i in range(N_V):
        w.v[i] = 0
    w.v[V_TAIL] = n_deck
    w.v[V_END] = E.END_PILE
    w.st[:, :] = 0
    n_players = w.st.shape[0]
    hand = int(rules[R.R_HAND])
    for p in range(n_players):
        for _ in range(hand):
            if w.v[V_TAIL] - w.v[V_HEAD] == 0:
                break
            c = _draw(w, n_deck, shuffled)
            E._add_card(scratch.cval, scratch.cround, w.st, p, c, 0)
            w.st[p, C_DEALT] += c
            _log(w, 0, E.EV_DEAL, p, c, 0)
    if w.v[V_TAIL] - w.v[V_HEAD] > 0:
        w.v[V_ACTIVE] = _draw(w, n_deck, shuffled)
        _begin_round(w, rules, pol, tables)
        advance(w, rules, pol, tables)
    else:
        _finish(w, rules)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _begin_round(w, rules, pol, tables):
    v = w.v
    n_players = w.st.shape[0]
    rnd = v[V_RND] + 1
    v[V_RND] = rnd
    v[V_ROUNDS] = rnd
    v[V_START] = v[V_ROT] if int(rules[R.R_START]) == R.START_ROTATE else v[V_NEXT]
    v[V_ROT] += 1
    if v[V_ROT] == n_players:
        v[V_ROT] = 0
    c = v[V_ACTIVE]
    _log(w, rnd, E.EV_ACTIVE, v[V_START], c, 0)
    min_open, top = E.opening_range(c, rules[R.R_OPEN], int(rules[R.R_CEILING]))
    v[V_MINOPEN] = min_open
    v[V_TOP] = top
    v[V_HIGH] = -1
    v[V_BID] = 0
    v[V_NPASS] = 0
    credit = int(rules[R.R_CREDIT])
    for q in range(n_players):
        w.scratch.passed[q] = 0
        D.auction_start(w.scratch, w.st, pol, tables, n_players, q, c, min(top, D.spend_limit(w.st, q, credit)))
    v[V_SEAT] = v[V_START]
    v[V_PHASE] = PH_BID


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


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _end_auction(w, rules):
    v = w.v
    scratch = w.scratch
    rnd = v[V_RND]
    high = v[V_HIGH]
    c = v[V_ACTIVE]
    n_deck = scratch.ring.shape[0]
    if high >= 0:
        bid = v[V_BID]
        w.st[high, C_CASH] -= bid
        w.st[high, C_PAID] += bid
        w.st[high, C_AUCT] += 1
        w.st[high, C_OVERBID] += bid - c
        E._add_card(scratch.cval, scratch.cround, w.st, high, c, rnd)
        _log(w, rnd, E.EV_WIN, high, c, bid)
        v[V_NEXT] = high
        n_shown = 0
        shuffled = rules[R.R_SHUFFLE] != 0.0
        for _ in range(int(rules[R.R_DIRECT_MAX])):
            if v[V_TAIL] - v[V_HEAD] == 0:
                break
            s = _draw(w, n_deck, shuffled)
            scratch.shown[n_shown] = s
            _log(w, rnd, E.EV_SHOW, high, s, 0)
            n_shown += 1
        v[V_NSHOWN] = n_shown
        v[V_K] = 0
        v[V_SEAT] = high
        v[V_PHASE] = PH_BUY
    else:
        v[V_UNSOLD] += 1
        mode = int(rules[R.R_UNSOLD])
        _log(w, rnd, E.EV_UNSOLD, -1, c, mode)
        if mode == R.UNSOLD_BOTTOM:
            _bottom(w, n_deck, c)
        v[V_K] = 0
        v[V_PHASE] = PH_SELL


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _finish(w, rules):
    """engine.play_game's scoring."""
    st = w.st
    n_players = st.shape[0]
    min_cards = int(rules[R.R_MIN_CARDS])
    for p in range(n_players):
        st[p, C_ELIG] = 1 if st[p, C_CARDS] >= min_cards else 0
    E.win_shares(st, min_cards, w.score, w.win)
    _log(w, w.v[V_ROUNDS], E.EV_END, -1, w.v[V_END], 0)
    w.v[V_PHASE] = PH_OVER


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def advance(w, rules, pol, tables):
    """Play on to the next decision (drawing its uniform into ``r``, as the engine does) or to the end."""
    v = w.v
    scratch = w.scratch
    n_players = w.st.shape[0]
    while True:
        ph = v[V_PHASE]
        if ph == PH_BID:
            high = v[V_HIGH]
            if (high < 0 and v[V_NPASS] == n_players) or (high >= 0 and v[V_NPASS] == n_players - 1):
                _end_auction(w, rules)
                continue
            s = v[V_SEAT]
            if scratch.passed[s] == 0 and s != high:
                w.r[0] = _rand(w)
                return
            s += 1
            if s == n_players:
                s = 0
            v[V_SEAT] = s
        elif ph == PH_BUY:
            if v[V_K] < v[V_NSHOWN]:
                w.r[0] = _rand(w)
                return
            v[V_K] = 0
            v[V_PHASE] = PH_SELL
        elif ph == PH_SELL:
            if v[V_K] == 0:
                any_seller = False
                for q in range(n_players):
                    any_seller = any_seller or scratch.codes[q, CODE_SELLS] != 0
                if not any_seller:  # the engine's shortcut: only the draws of each seat's turn
                    for _ in range(n_players):
                        _rand(w)
                    v[V_K] = n_players
            if v[V_K] < n_players:
                p = v[V_START] + v[V_K]
                if p >= n_players:
                    p -= n_players
                v[V_SEAT] = p
                w.r[0] = _rand(w)
                return
            # 4. the next round, or the end
            if v[V_RND] == int(rules[R.R_ROUNDS]):
                v[V_END] = E.END_ROUNDS
                _finish(w, rules)
                return
            if v[V_TAIL] - v[V_HEAD] == 0:
                v[V_END] = E.END_PILE
                _finish(w, rules)
                return
            v[V_ACTIVE] = _draw(w, scratch.ring.shape[0], rules[R.R_SHUFFLE] != 0.0)
            _begin_round(w, rules, pol, tables)
        else:
            return


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
    exactly as engine.play_game asks it)."""
    scratch = w.scratch
    st = w.st
    v = w.v
    ph = v[V_PHASE]
    s = v[V_SEAT]
    r = w.r[0]
    n_players = st.shape[0]
    pile = v[V_TAIL] - v[V_HEAD]
    if ph == PH_BID:
        mb = min_bid(w)
        if scorers is not None and D.asked_each_time(scratch, s, D.BID):
            b = D.open_bid(scratch, st, rules, rl, scorers, n_players, s, v[V_RND], pile, v[V_ACTIVE], mb, v[V_HIGH],
                           v[V_BID], n_players - v[V_NPASS])
        else:
            b = D.bid(scratch, st, pol, s, r, v[V_ACTIVE], mb, v[V_HIGH])
        return b + 1 if b >= 0 else PASS
    if ph == PH_BUY:
        c, cost, ok = shown_cost(w, rules)
        if not ok:
            return PASS
        if scorers is not None and D.asked_each_time(scratch, s, D.BUY):
            take = D.open_buy(scratch, st, rules, rl, scorers, n_players, s, v[V_RND], pile, c, cost)
        else:
            take = D.buy(scratch, st, pol, tables, s, r, c, cost)
        return 1 if take else PASS
    if ph == PH_SELL:
        if scorers is not None and D.asked_each_time(scratch, s, D.SELL):
            pick = D.open_sell(scratch, st, rules, rl, scorers, n_players, s, v[V_RND], pile)
        else:
            pick = D.sell(scratch, st, pol, rules, s, r, v[V_RND])
        return pick + 1
    return PASS


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def apply(w, a, rules, pol, tables):
    """Apply action ``a`` at the current decision and advance to the next one.  In debug mode an illegal
    bid or sale is counted (``illegal``) and played as a pass or keep, as the engine does."""
    scratch = w.scratch
    st = w.st
    v = w.v
    ph = v[V_PHASE]
    s = v[V_SEAT]
    rnd = v[V_RND]
    debug = rules[R.R_DEBUG] != 0.0
    n_deck = scratch.ring.shape[0]
    if ph == PH_BID:
        b = a - 1
        if debug and b >= 0 and (b < min_bid(w) or b > scratch.aux[s, A_MAX]):
            st[s, C_ILLEGAL] += 1
            b = -1
        if b >= 0:
            v[V_HIGH] = s
            v[V_BID] = b
            _log(w, rnd, E.EV_BID, s, b, 0)
        else:
            scratch.passed[s] = 1
            v[V_NPASS] += 1
            _log(w, rnd, E.EV_PASS, s, 0, 0)
        s += 1
        if s == st.shape[0]:
            s = 0
        v[V_SEAT] = s
    elif ph == PH_BUY:
        c, cost, ok = shown_cost(w, rules)
        if a == 1 and ok:
            st[s, C_CASH] -= cost
            st[s, C_PAID] += cost
            st[s, C_DIRECT] += 1
            E._add_card(scratch.cval, scratch.cround, st, s, c, rnd)
            _log(w, rnd, E.EV_BUY, s, c, cost)
        else:
            _bottom(w, n_deck, c)
            _log(w, rnd, E.EV_SKIP, s, c, 0)
        v[V_K] += 1
    elif ph == PH_SELL:
        pick = a - 1
        if debug and pick >= 0 and (pick >= st[s, C_CARDS] or scratch.cround[s, pick] >= rnd):
            st[s, C_ILLEGAL] += 1
            pick = -1
        if pick >= 0:
            c = E._remove_card(scratch.cval, scratch.cround, st, s, pick)
            gain = price(c, rules[R.R_SALE_FACTOR])
            st[s, C_CASH] += gain
            st[s, C_SOLD_VAL] += gain
            st[s, C_SOLD_N] += 1
            _bottom(w, n_deck, c)
            _log(w, rnd, E.EV_SELL, s, c, gain)
        v[V_K] += 1
    else:
        return
    advance(w, rules, pol, tables)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def outputs(w, row, score, win, seat_out, game_out):
    """Write a finished game into row ``row`` of the batch outputs (kernel._play_games' layout)."""
    n_players = w.st.shape[0]
    for p in range(n_players):
        score[row, p] = w.score[p]
        win[row, p] = w.win[p]
        for j in range(N_SEAT):
            seat_out[row, p, j] = w.st[p, j]
    game_out[row, E.G_ROUNDS] = w.v[V_ROUNDS]
    game_out[row, E.G_FIRST] = 0
    game_out[row, E.G_END] = w.v[V_END]
    game_out[row, E.G_PILE_LEFT] = w.v[V_TAIL] - w.v[V_HEAD]
    game_out[row, E.G_UNSOLD] = w.v[V_UNSOLD]
