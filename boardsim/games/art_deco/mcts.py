"""The ``mcts`` player of Art Deco and the engine variant that runs it (docs/rules/art-deco.md).

What a seat sees: every collection is face up and cash is the public score marker, cards turned up for a
direct purchase and sold cards are seen by all, and the bottom of the pile is made of cards seen going
there.  What it cannot see is the order of the never-drawn part of the pile (the shuffled deck) and so
which cards come up next.  Each search starts from a copy of the real state whose never-drawn cards are
put in sorted order (a canonical order, so the copy holds only what the seat may know: that multiset is
the deck minus every card seen), and every iteration then draws them at random as it goes, from the
search's own stream of the game's generator: each iteration is a fresh determinization, consistent with
what the seat has seen.  With ``shuffle = false`` the deck order is public and nothing is sampled.

Actions (step.py encodes them): a bid decision's candidates are pass and the minimum legal bid, the
playout policy's choice first, then up to ``bids`` - 2 jump bids: the playout policy's reservation price,
the card's value, 1.25 and 1.5 x the value (rounded up) and the minimum + 1, those legal, above the
minimum and distinct, in that order.  A direct purchase offers buy and leave (the playout's choice first)
when the winner can pay.  A sale offers keep, and the sale of the sellable card with the largest gain
(price - value) when that gain is positive (never under the default sale factor 1, where a sale at value
only costs a card).  Opponents' decisions are tree nodes too, valued with their own reward.  A
decision with one candidate is applied without a node.  With ``widening`` = k0 > 0 a node considers only
its first ceil(k0 * (visits + 1) ** 0.5) candidates (boardsim.tree.widened).

A rollout plays the rest of the game with the ``playout`` policy on every seat; its reward is each seat's
(1 - ``rank``) x win share + ``rank`` x finishing share (the share of the other seats it finishes ahead of:
with win share alone a seat that cannot win sees every move as worth 0 and plays noise).  ``bids`` = 0
(auto) offers jump bids only at 2 players, where they pay; at 3 and 4 they cost more than they win.
With ``horizon`` = h > 0 a rollout stops when round (decision round + h) begins and is scored
by ``evaluate``: the rules' scoring as if the game ended there, but a seat counts as eligible when its
cards plus the rounds left reach ``min_cards_to_win`` (one card a round is what an auction gives).

The engine variant: ``play_range`` plays whole games through the step interface, asking decide.py
(step.builtin) for the other seats' choices and ``decide`` for the mcts seats'.  It is compiled only for
cells with an mcts seat (ArtDeco.play picks it): the default engine compiles no search code.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange, types

from boardsim import custom, rng
from boardsim import tree as TR
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import engine as E
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco import step
from boardsim.games.art_deco.kernel import _C1F, _C1I, _C2F, _C2I, _IN, _OUT, progress_arrays
from boardsim.games.art_deco.state import A_MAX, C_CARDS, C_CASH, C_HELD_VAL, HELPERS, price
from boardsim.games.blocks import block_count, block_range

# a seat's mcts row (tree.seat_rows): iterations, c, horizon, bids, widening k0, opponents (1 = playout), then
# the playout policy's policy-matrix row
M_ITER, M_C, M_HOR, M_BIDS, M_WIDEN, M_OPP, M_RANK, M_PLAY = range(8)
M_WIDTH = M_PLAY + D.POLICY_WIDTH
ALPHA = 0.5  # progressive widening's exponent
MAX_BIDS = 7  # pass, the minimum and 5 jump bids
BRANCHING = MAX_BIDS
# Games per block of a batch: an mcts game takes milliseconds, so small blocks keep every thread busy and
# the search tree each block allocates costs nothing beside its games.
BLOCK = 4
# candidate kinds (the tree's actions): pass / leave / keep, the minimum bid, buy / sell, then the jump bids
# (the playout's reservation, the value, 1.25 and 1.5 x the value, the minimum + 1)
K_PASS, K_MIN, K_TAKE, K_JUMP = 0, 1, 1, 2


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _put(buf, i, action, kind):
    buf[i] = action
    buf[BRANCHING + i] = kind


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def candidates(w, buf, nbids, ppol, rules):
    """The current decision's candidate actions, best (the playout policy's choice) first; how many.

    ``buf[:BRANCHING]`` gets the actions (step.py's numbers), ``buf[BRANCHING:]`` their kinds (K_*), the
    names the tree knows them by: a kind means the same move in every determinization (the minimum bid,
    a bid of the card's value, ...), while an amount bid means another move on another card."""
    ph = w.v[step.V_PHASE]
    st = w.st
    s = w.v[step.V_SEAT]
    _put(buf, 0, step.PASS, K_PASS)
    if ph == step.PH_BID:
        mb = step.min_bid(w)
        top = w.scratch.aux[s, A_MAX]
        if mb > top:
            return 1
        c = w.v[step.V_ACTIVE]
        if int(ppol[s, D.COL_CODE]) == D.RANDOM:
            lim = mb
        else:
            lo, hi = D.bid_limits(ppol, s, c, st[s, C_CARDS], top)
            lim = hi if w.v[step.V_HIGH] >= 0 and w.v[step.V_HIGH] == D.leader_other(st, st.shape[0], s) else lo
        if mb <= lim:
            _put(buf, 0, mb + 1, K_MIN)
            _put(buf, 1, step.PASS, K_PASS)
        else:
            _put(buf, 1, mb + 1, K_MIN)
        n = 2
        for j in range(5):
            if n >= nbids:
                break
            if j == 0:
                b = lim
            elif j == 1:
                b = c
            elif j == 2:
                b = int(math.ceil(1.25 * c - 1e-9))
            elif j == 3:
                b = int(math.ceil(1.5 * c - 1e-9))
            else:
                b = mb + 1
            if b <= mb or b > top:
                continue
            dup = False
            for i in range(2, n):
                if buf[i] == b + 1:
                    dup = True
            if not dup:
                _put(buf, n, b + 1, K_JUMP + j)
                n += 1
        return n
    if ph == step.PH_BUY:
        c, cost, ok = step.shown_cost(w, rules)
        if not ok:
            return 1
        if D.wants_direct(ppol, s, 0.0, c, cost, st[s, C_CARDS]):
            _put(buf, 0, 1, K_TAKE)
            _put(buf, 1, step.PASS, K_PASS)
        else:
            _put(buf, 1, 1, K_TAKE)
        return 2
    if ph == step.PH_SELL:
        pick = -1
        best = 0
        factor = rules[R.R_SALE_FACTOR]
        for k in range(st[s, C_CARDS]):
            if w.scratch.cround[s, k] < w.v[step.V_RND]:
                v = w.scratch.cval[s, k]
                g = price(v, factor) - v
                if g > best:
                    best = g
                    pick = k
        if pick >= 0:
            _put(buf, 1, pick + 1, K_TAKE)
            return 2
        return 1
    return 0


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def action_of(buf, n, kind):
    """The action of candidate kind ``kind`` in ``buf`` (``candidates``' output of n)."""
    for i in range(n):
        if buf[BRANCHING + i] == kind:
            return buf[i]
    return buf[0]


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def evaluate(w, rules, out, rank):
    """A rollout's reward per seat into ``out``: (1 - ``rank``) x its win share + ``rank`` x its finishing
    share, the share of the other seats it finishes ahead of (a tie half): an eligible seat ahead of an
    ineligible one, then the higher score, then more cards.  The win shares of a finished game are the
    game's; at a horizon, the rules' scoring as if the game ended there, a seat eligible when cards + rounds
    left >= the minimum (and so in the finishing share)."""
    n_players = w.st.shape[0]
    st = w.st
    over = w.v[step.V_PHASE] == step.PH_OVER
    need = int(rules[R.R_MIN_CARDS])
    if over:
        for p in range(n_players):
            out[p] = w.win[p]
    else:
        need -= int(rules[R.R_ROUNDS]) - w.v[step.V_RND] + 1
        # the rules' scoring as if the game ended here (a rollout's world: its score row is scratch)
        E.win_shares(st, need, w.score, out)
    if rank <= 0.0:
        return
    for p in range(n_players):
        sp = st[p, C_CASH] + st[p, C_HELD_VAL]
        ep = st[p, C_CARDS] >= need
        f = 0.0
        for q in range(n_players):
            if q == p:
                continue
            sq = st[q, C_CASH] + st[q, C_HELD_VAL]
            if ep != (st[q, C_CARDS] >= need):
                f += 1.0 if ep else 0.0
            elif sp != sq:
                f += 1.0 if sp > sq else 0.0
            elif st[p, C_CARDS] != st[q, C_CARDS]:
                f += 1.0 if st[p, C_CARDS] > st[q, C_CARDS] else 0.0
            else:
                f += 0.5
        out[p] = (1.0 - rank) * out[p] + rank * f / (n_players - 1)


@njit(cache=True, nogil=True, inline="always")
def n_bids(mrow, n_players):
    """The seat's ``bids``: its parameter, or with 0 (auto) 4 at 2 players and 2 (pass and the minimum bid) at
    3 or more."""
    nb = int(mrow[M_BIDS])
    if nb > 0:
        return nb
    return 4 if n_players == 2 else 2


@njit(cache=True, nogil=True, inline="always")
def _over(w, stop):
    return w.v[step.V_PHASE] == step.PH_OVER or w.v[step.V_RND] >= stop


@njit(cache=True, nogil=True, _nrt=False)
def rollout(world, stop, rules, ppol, tables, rl):
    """Play the playout policy ``ppol`` on every seat until the game ends or round ``stop`` begins (a
    function of its own: inlined into ``decide`` it ran several times slower)."""
    while not _over(world, stop):
        step.apply(world, step.builtin(world, rules, ppol, tables, rl, None), rules, ppol, tables)


# -- the search's hooks (tree.search): g = (base, world, ppol, rules, tables, rl, nbids, me, stop, rank) --------


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _world(g, it):
    step.copy_world(g[0], g[1])


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _walk(g, buf):
    """With ``me`` >= 0 only seat ``me``'s decisions are tree nodes: the others play the playout policy."""
    _base, world, ppol, rules, tables, rl, nbids, me, stop, _rank = g
    while not _over(world, stop):
        if me >= 0 and step.to_move(world) != me:  # an opponent plays the playout policy
            step.apply(world, step.builtin(world, rules, ppol, tables, rl, None), rules, ppol, tables)
            continue
        n = candidates(world, buf, nbids, ppol, rules)
        if n == 1:
            step.apply(world, buf[0], rules, ppol, tables)
            continue
        return n, step.to_move(world)
    return 0, -1


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _play(g, buf, n, kind):
    step.apply(g[1], action_of(buf, n, kind), g[3], g[2], g[4])
    return True


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _playout(g, reward):
    base, world, ppol, rules, tables, rl, _nbids, _me, stop, rank = g
    rollout(world, stop, rules, ppol, tables, rl)
    evaluate(world, rules, reward, rank)
    for i in range(base.scratch.rng.shape[0]):  # the search's stream goes on
        base.scratch.rng[i] = world.scratch.rng[i]


@njit(cache=True, nogil=True)
def decide(real, base, world, tr, buf, mrow, ppol, rules, tables, rl, stats, reward):
    """The mcts seat's action at ``real``'s decision (tree.search: ``stats``, iterations < 0; with 0 the playout
    policy's choice).  ``base`` and ``world`` are scratch worlds whose codes are ``ppol``'s (step.set_codes).
    The search's generator is seeded from one draw of the real game's."""
    iterations = int(mrow[M_ITER])
    horizon = int(mrow[M_HOR])
    nbids = n_bids(mrow, real.st.shape[0])
    stats[:] = 0.0
    if iterations > 0 and candidates(real, buf, nbids, ppol, rules) == 1:
        return buf[0]
    step.copy_world(real, base)
    if iterations == 0:  # the playout policy's choice in the real game (its draws from the real generator)
        step.refresh(base, ppol, tables, rules)
        a = step.builtin(base, rules, ppol, tables, rl, None)
        real.scratch.rng[:] = base.scratch.rng
        return a
    # the searching seat's view: the real state with its never-drawn cards in a canonical (sorted) order
    n_deck = base.scratch.ring.shape[0]
    head = base.v[step.V_HEAD]
    if rules[R.R_SHUFFLE] != 0.0 and head < n_deck:
        base.scratch.ring[head:n_deck].sort()
    step.refresh(base, ppol, tables, rules)
    rng.seed_state(rng.next_u64(real.scratch.rng), base.scratch.rng)
    stop = base.v[step.V_RND] + horizon if horizon > 0 else 1 << 30
    me = step.to_move(real) if mrow[M_OPP] != 0 else -1
    g = (base, world, ppol, rules, tables, rl, nbids, me, stop, mrow[M_RANK])
    kind = TR.search(g, tr, buf, BRANCHING, iterations, mrow[M_C], mrow[M_WIDEN], ALPHA, reward, stats, _world,
                     _walk, _play, _playout)
    if iterations < 0:
        return -1
    return action_of(buf, candidates(real, buf, nbids, ppol, rules), kind)


@njit(cache=True, nogil=True)
def play_range(key, first, lo, hi, rules, deck, pol, tables, rl, scorers, mpar, score, win, seat_out, game_out,
               progress, progress_cards, log, visits):
    """Games first+lo .. first+hi-1 through the step interface (kernel._play_range's outputs, the progress arrays
    included: (n, P, 0) records nothing); ``log`` and ``visits`` (per log row: the mcts choice's root visits, 0
    for other rows) keep the last game's.  The search's own worlds never record progress."""
    n_players = pol.shape[0]
    n_deck = deck.shape[0]
    cap = int(rules[R.R_HAND]) + int(rules[R.R_ROUNDS]) * (1 + int(rules[R.R_DIRECT_MAX])) + 1
    dmax = int(rules[R.R_DIRECT_MAX])
    game = step.new_world(n_players, n_deck, cap, dmax, log.shape[0])
    base = step.new_world(n_players, n_deck, cap, dmax, 0)
    world = step.new_world(n_players, n_deck, cap, dmax, 0)
    step.set_codes(game, pol, rules)
    tr = TR.pool(mpar, M_ITER)
    buf = np.zeros(2 * BRANCHING, dtype=np.int64)
    ppol = TR.playout_rows(mpar, M_PLAY, D.POLICY_WIDTH)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    reward = np.zeros(n_players, dtype=np.float64)
    for row in range(lo, hi):
        for i in range(visits.shape[0]):
            visits[i] = 0
        # the real game records its progress into its rows of the outputs (0 rounds: nothing)
        real = step.World(game.scratch, game.st, game.v, game.r, game.score, game.win, game.log, progress[row],
                          progress_cards[row])
        step.setup(real, rng.game_seed(key, first + row), rules, deck, pol, tables)
        while real.v[step.V_PHASE] != step.PH_OVER:
            p = step.to_move(real)
            if int(pol[p, D.COL_CODE]) == step.MCTS:
                step.set_codes(base, ppol[p], rules)
                step.set_codes(world, ppol[p], rules)
                a = decide(real, base, world, tr, buf, mpar[p], ppol[p], rules, tables, rl, stats, reward)
                k = real.v[step.V_NLOG]
                if k < visits.shape[0]:
                    visits[k] = int(stats[TR.RS_VISITS])
            else:
                a = step.builtin(real, rules, pol, tables, rl, scorers)
            step.apply(real, a, rules, pol, tables)
        step.outputs(real, row, score, win, seat_out, game_out)
    n = game.v[step.V_NLOG]
    for i in range(n):
        for j in range(E.LOG_WIDTH):
            log[i, j] = game.log[i, j]
    return n


@njit(cache=True, nogil=True, parallel=True)
def play_batch(key, first, rules, deck, pol, tables, rl, scorers, mpar, score, win, seat_out, game_out, progress,
               progress_cards):
    """Games first..first+n-1 of a cell in blocks; each game writes only its own rows."""
    n = score.shape[0]
    for b in prange(block_count(n, BLOCK)):
        lo, hi = block_range(b, n, BLOCK)
        log = np.zeros((0, E.LOG_WIDTH), dtype=np.int64)
        visits = np.zeros(0, dtype=np.int64)
        play_range(key, first, lo, hi, rules, deck, pol, tables, rl, scorers, mpar, score, win, seat_out, game_out,
                   progress, progress_cards, log, visits)


_LOCK = threading.Lock()
# A cell's scorers arrive as a tuple of four numba dispatchers, or None when no seat is asked at each decision.
# Only code compiled for an explicit signature naming their function type (custom.SCORERS) converts the tuple
# into function pointers (as kernel.py's engine), so a custom or learned seat can sit beside an mcts seat;
# both entry points are compiled for the two variants and then refuse any other.
_SC = (custom.SCORERS, types.none)
# key, first, rules, deck, pol, tables, rl, scorers, mpar, score, win, seat_out, game_out, progress, progress_cards
BATCH_SIGS = tuple(types.void(types.uint64, types.int64, *_IN, sc, _C2F, *_OUT) for sc in _SC)
# key, first, lo, hi, rules, deck, pol, tables, rl, scorers, mpar, score, win, seat_out, game_out, progress,
# progress_cards, log, visits
RANGE_SIGS = tuple(types.int64(types.uint64, types.int64, types.int64, types.int64, *_IN, sc, _C2F, *_OUT, _C2I,
                               _C1I) for sc in _SC)
assert _C1F is _IN[0]  # rules: the kernel's input types are this module's


def _helpers() -> None:
    """The engine's fixed-signature helpers, compiled for their own signatures first (kernel._engine), then
    ``play_range`` and ``play_batch`` for both scorer variants."""
    with _LOCK:
        for fn, sig in HELPERS:
            if hasattr(fn, "signatures") and not fn.signatures:
                fn.compile(sig)
                fn.disable_compile()
        for fn, sigs in ((play_range, RANGE_SIGS), (play_batch, BATCH_SIGS)):
            if hasattr(fn, "signatures") and any(sig.args not in fn.signatures for sig in sigs):
                fn.disable_compile(False)
                for sig in sigs:
                    if sig.args not in fn.signatures:
                        fn.compile(sig)
                fn.disable_compile()


def run(inputs: tuple[Any, ...], scorers: Any, mpar: np.ndarray, cell_key: int, start: int, count: int,
        n_players: int, rounds: int = 0) -> tuple[np.ndarray, ...]:
    """Play games start..start+count-1 (``inputs``: rules, deck, pol, tables, rl): score, win, seat_out, game_out,
    progress, progress_cards (``rounds`` > 0: each seat's score and cards after each of the first ``rounds``
    rounds; 0: (count, P, 0), nothing recorded)."""
    _helpers()
    score = np.zeros((count, n_players), dtype=np.int64)
    win = np.zeros((count, n_players), dtype=np.float64)
    seat_out = np.zeros((count, n_players, E.N_SEAT), dtype=np.int64)
    game_out = np.zeros((count, E.N_GAME), dtype=np.int64)
    progress, progress_cards = progress_arrays(count, n_players, rounds)
    rules, deck, pol, tables, rl = inputs
    play_batch(np.uint64(cell_key), np.int64(start), rules, deck, pol, tables, rl, scorers,
               np.ascontiguousarray(mpar, dtype=np.float64), score, win, seat_out, game_out, progress, progress_cards)
    return score, win, seat_out, game_out, progress, progress_cards


def trace(inputs: tuple[Any, ...], scorers: Any, mpar: np.ndarray, cell_key: int, index: int, n_players: int,
          max_events: int) -> tuple[np.ndarray, ...]:
    """One game: score, win, seat_out, game_out, its log and each log row's mcts root visits."""
    _helpers()
    score = np.zeros((1, n_players), dtype=np.int64)
    win = np.zeros((1, n_players), dtype=np.float64)
    seat_out = np.zeros((1, n_players, E.N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, E.N_GAME), dtype=np.int64)
    log = np.zeros((max_events, E.LOG_WIDTH), dtype=np.int64)
    visits = np.zeros(max_events, dtype=np.int64)
    rules, deck, pol, tables, rl = inputs
    n = play_range(np.uint64(cell_key), np.int64(index), np.int64(0), np.int64(1), rules, deck, pol, tables, rl,
                   scorers, np.ascontiguousarray(mpar, dtype=np.float64), score, win, seat_out, game_out,
                   *progress_arrays(1, n_players, 0), log, visits)
    return score[0], win[0], seat_out[0], game_out[0], log[:n], visits[:n]


# -- the probe (benchmarks/bench_mcts.py) -----------------------------------------------------------------------


def probe(budgets: tuple[int, ...] = (100, 1000), positions: int = 20, seed: int = 1,
          players: int = 2, clock: Callable[[], float] = time.perf_counter) -> Any:
    """``tree.probe_table``'s rows, one per budget (``decision_ms``, ``iteration_us``, ``rollout_us``,
    ``ratio``), for the default mcts seat at ``positions`` positions of real games.

    Position i is game i of the probe's cell after (2 + 5 i) mod 40 decisions with more than one
    candidate, every decision made by the default mcts seat's playout policy (eligibility), so the
    positions cover bids, direct buys, early and late rounds.
    """

    from boardsim.games import get  # the registry, not this package's __init__ (which imports this module)
    from boardsim.games.art_deco.kernel import inputs
    from boardsim.games.base import Seat

    _helpers()
    game = get("art_deco")
    prep = game.prepare(players, [Seat("mcts")] * players, None, game.card_table())
    rules, deck, pol, tables, rl = inputs(prep)
    mpar = np.ascontiguousarray(prep["mcts"])
    n_deck = deck.shape[0]
    cap = int(rules[R.R_HAND]) + int(rules[R.R_ROUNDS]) * (1 + int(rules[R.R_DIRECT_MAX])) + 1
    dmax = int(rules[R.R_DIRECT_MAX])
    real = step.new_world(players, n_deck, cap, dmax, 0)
    base = step.new_world(players, n_deck, cap, dmax, 0)
    world = step.new_world(players, n_deck, cap, dmax, 0)
    ppol = np.ascontiguousarray(np.tile(mpar[0, M_PLAY:], (players, 1)))
    step.set_codes(real, pol, rules)
    step.set_codes(base, ppol, rules)
    step.set_codes(world, ppol, rules)
    buf = np.zeros(2 * BRANCHING, dtype=np.int64)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    reward = np.zeros(players)
    key = np.uint64(rng.cell_key(seed, 0))
    row = mpar[0].copy()

    def call(w: Any, tr: Any, iterations: int) -> int:
        row[M_ITER] = iterations
        return int(decide(w, base, world, tr, buf, row, ppol, rules, tables, rl, stats, reward))

    tr0 = TR.new_tree(2)
    snaps = []
    for i in range(positions):
        step.setup(real, np.uint64(rng.game_seed(key, np.int64(i))), rules, deck, pol, tables)
        todo = (2 + 5 * i) % 40
        while real.v[step.V_PHASE] != step.PH_OVER:
            if candidates(real, buf, n_bids(row, players), ppol, rules) > 1:
                if todo == 0:
                    break
                todo -= 1
            step.apply(real, call(real, tr0, 0), rules, pol, tables)
        if real.v[step.V_PHASE] == step.PH_OVER:
            continue
        snap = step.new_world(players, n_deck, cap, dmax, 0)
        step.copy_world(real, snap)
        step.set_codes(snap, pol, rules)
        snaps.append(snap)
    def fresh(snap: Any) -> Any:
        w = step.new_world(players, n_deck, cap, dmax, 0)
        step.copy_world(snap, w)
        return w

    return TR.probe_table(snaps, fresh, call, budgets, clock)
