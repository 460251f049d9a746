"""The ``mcts`` player of FlipToons and the engine variant that runs it (docs/rules/fliptoons.md).

Information-set MCTS (boardsim.tree) over the step interface (step.py: to_move, legal, apply,
advance), one tree per decision of the searching seat.

**What the search sees.**  Each iteration starts from a copy of the real state in which
``determinize`` resamples, with the search's generator, everything the searching seat cannot see,
consistently with what it has seen:

- the toon deck's order: its cards (a public multiset: the table's copies minus every card seen) are
  sorted, then shuffled;
- in solo, which toon cards the setup discarded unseen: they are pooled with the toon deck before the
  shuffle, and the first ``TN`` of the shuffled pool form the deck;
- every player's deck order: sorted (each deck is reshuffled at its owner's next flip, with the world's
  generator, so a sorted deck is a canonical representative).

Markets, grids, fame, discards and dismissed cards are public.  The iteration's generator is seeded from
one draw of the game's own generator per decision (plus the iteration number), never from the real
state's generator, so no future shuffle leaks into the search.  Two states that differ only in hidden
content and order give the same decision on the same seed (tests/games/fliptoons/test_mcts.py).

**The tree.**  Actions are the market actions ``legal`` lists (every affordable hire, every legal
paid dismissal, ending the turn) with the sub-choices they lead to spelled out (``search_actions``: a Pig's
deck when it is hired or dismissed, a Butterfly's free dismissal taken or declined), at the searching
seat's decisions; the other seats choose with the playout
policy inside the search (``opponents = "playout"``, the default: measured stronger, the players interact
little) or are tree nodes too, valued with their own reward (``"tree"``).  A decision with one legal
action is played without a node.  FlipToons' action sets are small (at most the market width + the grid +
1, a Pig's hire once per deck), so every legal action is a candidate: no widening.  The other sub-choices
(Horse discards, the Alligator's and Skunk's targets, a Pig a hook or a Snake moves) follow the playout
policy's rules inside the search and the fame_per_cost rules (subchoices.py) for the mcts seat in the real
game.  Chance (flips, refills) is sampled by the iteration's generator.

**Rollouts** play the rest of the game, or to the end of round current + ``horizon``, every seat playing
the ``playout`` policy.  The reward is each seat's win share as the game scores it; a horizon ends the
rollout with the engine's horizon rule (multiplayer: the final flip, Critic's Choice and tie re-flips as at
a real end; solo: 0.5 x min(1, best fame / goal)), the same evaluation as ``lookahead``'s.

**The engine variant.**  ``play_range`` plays whole games with the batch loop's own pieces
(kernel._workspace, _game_start, _game_end and step.advance), stopping at the mcts and lookahead seats'
decisions; it is compiled only for cells with an mcts seat (FlipToons.play picks it), so the default
engines compile no search code.  Results depend only on the cell key and the game index: the same on any
thread count or chunk size.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange, types

from boardsim import games
from boardsim import tree as TR
from boardsim.games.base import Seat, pointer_kernel
from boardsim.games.blocks import block_count, block_range
from boardsim.games.fliptoons import step
from boardsim.games.fliptoons.cards import C_CBD, C_HIRED, C_ONDISM, C_SOLO, C_STARTER, C_TARGET
from boardsim.games.fliptoons.decide import Users, _favoured, choose, users
from boardsim.games.fliptoons.engine import _final_flip, _start_round
from boardsim.games.fliptoons.grid import _score_player
from boardsim.games.fliptoons.kernel import (
    _CONSTS,
    _FNS,
    _OUTS,
    _USERS,
    FUNCTIONS,
    PHASE_FN,
    SCORE_FN,
    _game_end,
    _game_start,
    _search_seats,
    _workspace,
    consts,
    custom_none,
    rule_arrays,
    set_up_game,
    traced_outputs,
)
from boardsim.games.fliptoons.lookahead import lookahead_choose
from boardsim.games.fliptoons.policies import POLICY_CODE, POLICY_WIDTH
from boardsim.games.fliptoons.state import (
    A_DISMISS,
    D_PLACE_ANY,
    DECK,
    DN,
    END,
    END_HORIZON,
    FREE_SET,
    GF,
    GK,
    GN,
    H_DISMISS_TARGET,
    H_PLACE_ANY,
    HORIZON,
    LOG_W,
    LOGN,
    LOGON,
    MAXFAME,
    NP,
    PH_DONE,
    PHASE,
    PIG_SET,
    POL_CUSTOM,
    POL_MCTS,
    R_GOAL,
    R_SOLO_DISCARD,
    ROUND,
    TN,
    WINNER,
    Consts,
    Results,
)
from boardsim.games.fliptoons.step import to_move
from boardsim.rng import next_u64, seed_state, shuffle

# a seat's mcts row (tree.seat_rows): iterations, c, horizon, opponents (1 = playout), then the playout
# policy's policy-matrix row
M_ITER, M_C, M_HOR, M_OPP, M_PLAY = range(5)
M_WIDTH = M_PLAY + POLICY_WIDTH
# the decision log of a traced game: log row at the decision, seat, action, root visits of it, iterations
DL_LOGN, DL_SEAT, DL_ACTION, DL_VISITS, DL_ITER = range(5)
DL_WIDTH = 5
# An action of the search is step.legal' action a0 with its sub-choice spelled out: a0 + SUB * k.
# A hire or paid dismissal of a Pig (whose banner places it in any deck) comes once per deck, k = the deck + 2
# (k = 1: the toon deck); a Butterfly's hire, when its target is in the grid, comes as take (k = 1) and
# decline (k = 2) its free dismissal. k = 0 (a plain action) leaves them to the seat's rule (subchoices.py).
SUB = 10_000
EXPAND = 6  # the search's action buffer: EXPAND x (market + grid + 1) (P + 1 <= 5 copies, then the plain list)


def legal_size(market: int, maxc: int) -> int:
    """The length of the search's action buffer (``search_actions`` writes at most this many; the jitted
    engine variant and probe allocate EXPAND * (market + maxc + 1) themselves)."""
    return EXPAND * (market + maxc + 1)


BLOCK = 4  # games per call of play_range: a search game takes milliseconds to seconds


@njit(cache=True, nogil=True)
def _sort_prefix(a, n):
    """Insertion sort of a[:n] (small arrays, no allocation)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, nogil=True)
def determinize(S, C, rng):
    """Resample the hidden information of state S in place (S is the search's copy): see the module doc."""
    pc, pv, sh, toon = S.rows, S.seat, S.shared, S.toon
    P = np.int64(sh[NP])
    for p in range(P):
        _sort_prefix(pc[p, DECK], np.int64(pv[p, DN]))
    tn = np.int64(sh[TN])
    if P == 1:
        # the setup's unseen discards sit right above the deck's starting top: toon[t0 - d : t0]
        cards = C.cards
        t0 = np.int64(0)
        for k in range(cards.shape[0]):
            if cards[k, C_STARTER] == 0:
                t0 += cards[k, C_SOLO]
        d = min(t0, np.int64(C.rules[R_SOLO_DISCARD]))
        lo = t0 - d
        if d > 0 and tn <= lo:
            # pool: the deck, then the discards moved down next to it
            for j in range(d):
                toon[tn + j] = toon[lo + j]
            _sort_prefix(toon, tn + d)
            shuffle(rng, toon, tn + d)
            # the discards back in their place (above the deck's top stays unread but the pool's tail)
            for j in range(d - 1, -1, -1):
                toon[lo + j] = toon[tn + j]
            return
    _sort_prefix(toon, tn)
    shuffle(rng, toon, tn)


# -- the search -----------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _rewards(W, rules, reward):
    """Each seat's reward of a finished world: its win share, or in solo after a horizon 0.5 x min(1, best
    fame / goal) (the rollout did not reach the end, so a win or loss is not known)."""
    pv, sh = W.seat, W.shared
    P = np.int64(sh[NP])
    if P == 1 and sh[END] == END_HORIZON:
        reward[0] = 0.5 * min(1.0, pv[0, MAXFAME] / max(1.0, rules[R_GOAL]))
        return
    nw = 0
    for q in range(P):
        nw += pv[q, WINNER]
    for q in range(P):
        reward[q] = pv[q, WINNER] / nw if nw > 0 else 0.0


@njit(cache=True, nogil=True)
def _butterfly_target(p, kind, S, C):
    """Whether a Butterfly ``kind`` hired now would find its target face up and dismissable in p's grid."""
    cards, pc = C.cards, S.rows
    t = cards[kind, C_TARGET]
    for i in range(S.seat[p, GN]):
        if pc[p, GK, i] == t and pc[p, GF, i] == 0 and cards[t, C_CBD] == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def search_actions(p, S, C, out):
    """Seat p's legal actions for the search into ``out`` (``legal_size`` long): step.legal' list,
    in its order, each Pig hire or dismissal once per deck and each Butterfly hire with its target present
    as take and decline (see SUB).  Returns how many."""
    cards, mk, pc = C.cards, S.market, S.rows
    P = np.int64(S.shared[NP])
    tail = out.shape[0] - out.shape[0] // EXPAND
    base = out[tail:]
    m = step.legal(p, S, C, base)
    n = np.int64(0)
    for j in range(m):
        a = base[j]
        copies = np.int64(0)
        if 0 <= a < A_DISMISS:
            kind = mk[0, a]
            if cards[kind, C_HIRED] == H_PLACE_ANY and P > 1:
                copies = P + 1
            elif cards[kind, C_HIRED] == H_DISMISS_TARGET and _butterfly_target(p, kind, S, C):
                copies = 2
        elif a >= A_DISMISS and cards[pc[p, GK, a - A_DISMISS], C_ONDISM] == D_PLACE_ANY and P > 1:
            copies = P + 1
        if copies == 0:
            out[n] = a
            n += 1
        else:
            for k in range(1, copies + 1):
                out[n] = a + SUB * k
                n += 1
    return n


@njit(cache=True, nogil=True)
def apply_action(p, a, S, C, O, rng):
    """step.apply of a search action (SUB): its sub-choice set for the banner that reads it, then
    cleared whatever the action did."""
    sh = S.shared
    a0 = a
    if a >= SUB:
        k = a // SUB
        a0 = a - SUB * k
        if a0 >= A_DISMISS or C.cards[S.market[0, a0], C_HIRED] == H_PLACE_ANY:
            sh[PIG_SET] = k
        else:
            sh[FREE_SET] = k
    done = step.apply(p, a0, S, C, O, rng)
    sh[PIG_SET] = 0
    sh[FREE_SET] = 0
    return done


# -- the search's hooks (tree.search): g = (p, S, C2, X, U, Wd, O2, rng2, seed, horizon, every, opp, f_round,
# f_final, f_score); the world stands at a decision between hooks, or its game is over (PH_DONE: advance returns
# 0 at once).  With ``opp`` the other seats play the playout policy inside the tree (no node), as does a seat
# whose only action is ending the turn.


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _world(g, it):
    """Iteration ``it``'s world: a copy of S, logging off, the horizon set, hidden information resampled with a
    generator seeded from the decision's seed + ``it``."""
    _p, S, C2, _X, _U, Wd, _O2, rng2, seed, horizon, _every, _opp, _fr, _ff, _fs = g
    step.copy_world(S, Wd)
    sh = Wd.shared
    sh[LOGON] = 0
    sh[HORIZON] = S.shared[ROUND] + horizon if horizon > 0 else 0
    seed_state(seed + np.uint64(it), rng2)
    determinize(Wd, C2, rng2)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _walk(g, legal):
    p, _S, C2, X, U, Wd, _O2, rng2, _seed, _h, _every, opp, _fr, _ff, _fs = g
    while True:
        q = to_move(Wd)
        m = search_actions(q, Wd, C2, legal)
        if q != p and opp:
            a = choose(q, Wd, C2, X, U, rng2)
        elif m == 1:
            a = legal[0]
        else:
            return m, q
        if not _play(g, legal, m, a):
            return 0, -1


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _play(g, legal, n, a):
    """Play ``a`` and advance to the next decision (resumed with stop 0, advance plays on as if it had not
    stopped there); False when the game is over (a solo instant win, or the end)."""
    _p, _S, C2, X, U, Wd, O2, rng2, _seed, _h, every, _opp, f_round, f_final, f_score = g
    if apply_action(to_move(Wd), a, Wd, C2, O2, rng2):
        return False
    return step.advance(Wd, C2, O2, X, U, rng2, every, f_round, f_final, f_score) != 0


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _playout(g, reward):
    _p, _S, C2, X, U, Wd, O2, rng2, _seed, _h, _every, _opp, f_round, f_final, f_score = g
    step.advance(Wd, C2, O2, X, U, rng2, np.int64(0), f_round, f_final, f_score)
    _rewards(Wd, C2.rules, reward)


@njit(cache=True, nogil=True)
def decide(p, S, C, C2, X, U, L, tr, legal, mrow, rng, rng2, reward, stats, f_round, f_final, f_score):
    """Seat p's market action at S's decision (``step.advance`` stopped there); ``C2`` is C with every
    seat's policy row the playout policy's (tree.search: ``stats``, iterations < 0; with 0 the playout policy's
    choice)."""
    iterations = int(mrow[M_ITER])
    stats[:] = 0.0
    if iterations == 0:
        return choose(p, S, C2, X, U, rng)
    seed = next_u64(rng)  # one draw of the game's generator a decision, whatever the search does
    f = _favoured(p, S, C)
    if f >= 0:  # a favoured card is affordable: hired without a search (card-strength experiments)
        return f
    U = _search_users(p, C2, U)
    if iterations > 0 and search_actions(p, S, C, legal) == 1:
        return legal[0]
    Wd, O2 = L
    g = (p, S, C2, X, U, Wd, O2, rng2, seed, int(mrow[M_HOR]), (np.int64(1) << np.int64(S.shared[NP])) - 1,
         mrow[M_OPP] != 0, f_round, f_final, f_score)
    return TR.search(g, tr, legal, 0, iterations, mrow[M_C], 0.0, 0.5, reward, stats, _world, _walk, _play,
                     _playout)


@njit(cache=True, nogil=True)
def _search_users(p, C2, U):
    """The Users every seat plays inside seat p's search: U itself, or with ``learned`` rollouts (a custom code
    in the playout row) every seat given seat p's scorer, model and flags (Game.search_user_seats put them
    there), so each rollout seat asks the model with its own decision view."""
    if int(C2.policies[p, POLICY_CODE]) != POL_CUSTOM:
        return U
    s = U.scorers[p]
    params = np.empty_like(U.params)
    for q in range(params.shape[0]):
        params[q, :] = U.params[p, :]
    flags = np.full_like(U.seat_flags, U.seat_flags[p])
    return Users(U.ops, U.args, U.meta, U.span, params, U.rule_flags, flags, (s, s, s, s), U.features,
                 U.candidates, U.scores, U.actions, U.stack, U.toon_counts)


@njit(cache=True, nogil=True)
def decide_at(p, S, C, C2, X, U, L, tr, legal, mrow, rng, stats):
    """``decide`` called from Python (tests, the probe): the round and final phases called directly."""
    rng2 = np.empty(4, dtype=np.uint64)
    reward = np.zeros(np.int64(S.shared[NP]), dtype=np.float64)
    return decide(p, S, C, C2, X, U, L, tr, legal, mrow, rng, rng2, reward, stats, None, None, None)


@njit(cache=True, nogil=True)
def playout_policies(mpar, P):
    """Per seat, the policy matrix its search's rollouts play: every row that seat's playout row."""
    return TR.playout_rows(mpar, M_PLAY, POLICY_WIDTH)


# -- the engine variant ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def play_range(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
               ops, args, meta, span, params, rule_flags, seat_flags, scorers, mpar, f_round, f_final, f_score,
               score, win, game_out, seat_out, stats, round_fame, log, dlog):
    """kernel._play_range for a cell with an mcts seat: games lo..hi-1 (game i of the cell is start + i),
    the mcts seats choosing with ``decide`` and lookahead seats with lookahead.lookahead_choose.  A ``dlog`` of
    more than one row records each mcts decision (DL_*; a traced game); returns the event log's rows."""
    C = Consts(cards, rules, prices, pol, prio, val)
    S, X, L, rng = _workspace(P, C, maxc, toon_size)
    U = users((ops, args, meta, span, params, rule_flags, seat_flags), scorers, cards.shape[0], prices.shape[0],
                maxc)
    outs = Results(score, win, game_out, seat_out, stats, round_fame)
    stop = _search_seats(pol, P)
    tr = TR.pool(mpar, M_ITER)
    legal = np.empty(EXPAND * (prices.shape[0] + maxc + 1), dtype=np.int64)
    ppol = playout_policies(mpar, P)
    noprio = np.full_like(prio, -1)  # rollouts favour no card (a learned playout would read a favour list)
    rng2 = np.empty(4, dtype=np.uint64)
    reward = np.zeros(P, dtype=np.float64)
    st = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    nd = 0
    for i in range(lo, hi):
        O = _game_start(cell_key, start, lo, i, P, C, S, X, rng, log, outs)
        while step.advance(S, C, O, X, U, rng, stop, f_round, f_final, f_score) == 1:
            p = to_move(S)
            if int(pol[p, POLICY_CODE]) == POL_MCTS:
                C2 = Consts(cards, rules, prices, ppol[p], noprio, val)
                a = decide(p, S, C, C2, X, U, L, tr, legal, mpar[p], rng, rng2, reward, st, f_round, f_final,
                           f_score)
                if dlog.shape[0] > 1 and nd < dlog.shape[0]:
                    dlog[nd, DL_LOGN] = S.shared[LOGN]
                    dlog[nd, DL_SEAT] = p
                    dlog[nd, DL_ACTION] = a
                    dlog[nd, DL_VISITS] = int(st[TR.RS_VISITS])
                    dlog[nd, DL_ITER] = int(st[TR.RS_ITERATIONS])
                    nd += 1
            else:
                a = lookahead_choose(p, S, C, X, U, L, rng, f_round, f_final, f_score)
            apply_action(p, a, S, C, O, rng)
        _game_end(i, S, O, outs)
    return np.int64(S.shared[LOGN])


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play, cell_key, start, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
               ops, args, meta, span, params, rule_flags, seat_flags, scorers, mpar, f_round, f_final, f_score,
               score, win, game_out, seat_out, stats, round_fame):
    """Games start..start+count-1 of a cell in blocks of BLOCK; pass ``play_range`` as ``play``."""
    n = score.shape[0]
    for b in prange(block_count(n, BLOCK)):
        lo, hi = block_range(b, n, BLOCK)
        log = np.zeros((1, LOG_W), dtype=np.int32)  # one row: logging off
        dlog = np.zeros((1, DL_WIDTH), dtype=np.int64)
        play(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
             ops, args, meta, span, params, rule_flags, seat_flags, scorers, mpar, f_round, f_final, f_score,
             score, win, game_out, seat_out, stats, round_fame, log, dlog)


_F64_2 = types.float64[:, ::1]
RANGE_SIG = types.int64(types.uint64, types.int64, types.int64, types.int64, types.int64, *_CONSTS, *_USERS,
                        _F64_2, *_FNS, *_OUTS, types.int32[:, ::1], types.int64[:, ::1])
BATCH_SIG = types.void(types.FunctionType(RANGE_SIG), types.uint64, types.int64, types.int64, *_CONSTS,
                       *_USERS, _F64_2, *_FNS, *_OUTS)
_LOCK = threading.Lock()
_KERNEL: list[Any] = []


def kernel() -> Any:
    """The mcts variant's batch kernel (call it with ``play_range`` first), compiled on first use."""
    with _LOCK:
        if not _KERNEL:
            if hasattr(play_range, "disable_compile") and not _score_player.signatures:
                _score_player.compile(SCORE_FN)  # the functions the engine calls through pointers
                _start_round.compile(PHASE_FN)
                _final_flip.compile(PHASE_FN)
            _KERNEL.append(pointer_kernel(play_batch, play_range, BATCH_SIG, RANGE_SIG))
            if hasattr(play_range, "disable_compile"):
                # a traced game's call from Python converts the phase dispatchers to the signature's
                # pointers instead of compiling the engine again for their types
                play_range.disable_compile()
        return _KERNEL[0]


def run(cell_key: int, start: int, P: int, consts: tuple, maxc: int, toon_size: int, users: tuple, mpar: np.ndarray,
        outs: tuple) -> None:
    """Games start..start+len(outs[0])-1 of a cell with an mcts seat into ``outs`` (score, win, game_out,
    seat_out, stats, round_fame: FlipToons.play's arrays)."""
    kernel()(play_range, np.uint64(cell_key), np.int64(start), np.int64(P), *consts, np.int64(maxc),
             np.int64(toon_size), *users, np.ascontiguousarray(mpar, dtype=np.float64), *FUNCTIONS, *outs)


def trace_game(cell_key: int, index: int, P: int, consts: tuple, maxc: int, toon_size: int, users: tuple,
               mpar: np.ndarray, log_rows: int, n_rounds: int) -> tuple[np.ndarray, ...]:
    """The batch's game ``index`` with its event log and its mcts decisions: (score, win, game_out, log,
    decisions), decisions one row each (DL_* columns)."""
    score, win, game_out, seat_out, stats, round_fame, log = traced_outputs(P, consts[0].shape[0], n_rounds,
                                                                           log_rows)
    dlog = np.full((log_rows // 4 + 2, DL_WIDTH), -1, dtype=np.int64)
    kernel()
    rows = play_range(np.uint64(cell_key), np.int64(index), np.int64(0), np.int64(1), np.int64(P), *consts,
                      np.int64(maxc), np.int64(toon_size), *users, np.ascontiguousarray(mpar, dtype=np.float64),
                      *FUNCTIONS, score, win, game_out, seat_out, stats, round_fame, log, dlog)
    return score, win, game_out, log[:rows].copy(), dlog[dlog[:, DL_SEAT] >= 0]


# -- positions and the probe (tests, benchmarks/bench_mcts.py) ------------------------------------------------


@njit(cache=True, nogil=True)
def position(cell_key, index, P, C, C2, seat_rules, scorers, maxc, toon_size, decisions):
    """Game ``index`` advanced to its search seats' decision after ``decisions`` earlier ones, every one
    chosen by the playout policy (C2's rows): (S, X, U, L, O, rng), or S with its phase done if it ended."""
    S, X, U, L, O, rng = set_up_game(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size)
    stop = _search_seats(C.policies, P)
    k = 0
    while step.advance(S, C, O, X, U, rng, stop, None, None, None) == 1:
        if k >= decisions:
            break
        p = to_move(S)
        if step.apply(p, choose(p, S, C2, X, U, rng), S, C, O, rng):
            break
        k += 1
    return S, X, U, L, O, rng


def probe(budgets: tuple[int, ...] = (100, 1000), positions: int = 20, seed: int = 1,
          players: int = 2, clock: Callable[[], float] = time.perf_counter) -> Any:
    """``tree.probe_table``'s rows, one per budget (``decision_ms``, ``iteration_us``, ``rollout_us``,
    ``ratio``), for the default mcts seat at ``positions`` positions of real games.

    Position i is game i of the probe's cell (every seat mcts) after (2 + 5 i) mod 40 decisions, each made
    by the playout policy, so the positions cover early and late turns (``decide_at`` called from Python).
    """

    from boardsim.rng import cell_key

    game = games.get("fliptoons")  # through the registry: this package's __init__ imports this module
    prep = game.prepare(players, [Seat("mcts")] * players, None, game.card_table())
    maxc, toon_size = (int(x) for x in prep["sizes"])
    C = consts(prep)
    mpar = np.ascontiguousarray(prep["mcts"])
    C2 = C._replace(policies=np.ascontiguousarray(playout_policies(mpar, players)[0]))
    key = np.uint64(cell_key(seed, 0))
    seat_rules = rule_arrays(prep)
    legal = np.empty(EXPAND * (C.prices.shape[0] + maxc + 1), dtype=np.int64)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    states = []
    for i in range(positions):
        S, X, U, L, _O, rng = position(key, np.int64(i), players, C, C2, seat_rules, custom_none(), maxc, toon_size,
                                       np.int64((2 + 5 * i) % 40))
        if int(S.shared[PHASE]) != PH_DONE:
            states.append((S, X, U, L, rng))
    row = mpar[0].copy()
    S, X, U, L, rng = states[0]
    row[M_ITER] = 1
    decide_at(int(to_move(S)), S, C, C2, X, U, L, TR.new_tree(2), legal, row, rng.copy(), stats)  # compiles
    def call(pos: Any, tr: Any, iterations: int) -> None:
        S, X, U, L, gen = pos
        row[M_ITER] = iterations
        decide_at(int(to_move(S)), S, C, C2, X, U, L, tr, legal, row, gen, stats)

    return TR.probe_table(states, lambda s: (*s[:4], s[4].copy()), call, budgets, clock)
