"""FlipToons batch kernels: whole games in blocks, the lean and full engine variants, their signatures and the
compile plumbing (docs/development.md explains the cold-compile measures).

``batch_kernel(lean)(engine(lean), cell_key, ...)`` plays games ``start..start+count-1`` of a cell; each game
is seeded from its own index, so chunking and threads never change results.  ``trace_game`` replays one game
with the event log on, through the same compiled engine.  ``play_game``, ``first_decision`` and
``play_stepped`` are hooks for tests and benchmarks.
"""

from __future__ import annotations

import numpy as np
from numba import cfunc, njit, prange, typeof, types

from boardsim import custom
from boardsim.games.base import Prepared, pointer_kernel
from boardsim.games.blocks import block_count, block_range
from boardsim.games.fliptoons import step
from boardsim.games.fliptoons.decide import (
    choose,
    users,
)
from boardsim.games.fliptoons.engine import (
    _final_flip,
    _setup,
    _start_round,
)
from boardsim.games.fliptoons.grid import (
    _score_player,
)
from boardsim.games.fliptoons.lookahead import (
    lookahead_choose,
)
from boardsim.games.fliptoons.policies import POLICY_CODE
from boardsim.games.fliptoons.state import (
    CALL,
    CRITIC,
    DECK,
    DISMS,
    DN,
    END,
    FIRST0,
    GAME_COUNTERS,
    GK,
    GN,
    HIRES,
    INLINE,
    INTERNAL,
    LOG_W,
    LOGN,
    LOGON,
    MAXFAME,
    N_STATS,
    NP,
    POL_LOOKAHEAD,
    POL_MCTS,
    REFLIPS,
    ROUND,
    SCORE,
    SEAT_COUNTERS,
    ST_OWNED,
    TN,
    WINNER,
    Consts,
    Lookahead,
    Outputs,
    Results,
    Scratch,
    State,
    _alloc,
    _clear_state,
)
from boardsim.games.fliptoons.step import to_move
from boardsim.rng import game_seed, seed_state
from boardsim.rulelist import pack_seats


@njit(cache=True, nogil=True, forceinline=False)
def _scratch(S, C, K, maxc, toon_size, Wd):
    return Scratch(_alloc(np.int64(1), K, maxc, toon_size, Wd),
                   Outputs(np.zeros((4, 1, K), dtype=np.int32), np.zeros((1, 1), dtype=np.int16),
                           np.zeros((1, LOG_W), np.int32)),
                   np.zeros(4, dtype=np.uint64))


@njit(cache=True, nogil=True, forceinline=False)
def _lookahead_scratch(P, K, maxc, toon_size, Wd):
    """A state and an output tuple the lookahead playouts overwrite."""
    outputs = Outputs(np.zeros((N_STATS, P, K), dtype=np.int32), np.zeros((P, 1), dtype=np.int16),
                      np.zeros((1, LOG_W), np.int32))
    return Lookahead(_alloc(P, K, maxc, toon_size, Wd), outputs)


@njit(cache=True, nogil=True, forceinline=False)
def _workspace(P, C, maxc, toon_size):
    """A state, its scratch, the lookahead's scratch and a generator for a block of games (reset per game)."""
    cards, prices = C.cards, C.prices
    K = cards.shape[0]
    Wd = prices.shape[0]
    S = _alloc(P, K, maxc, toon_size, Wd)
    return (S, _scratch(S, C, K, maxc, toon_size, Wd), _lookahead_scratch(P, K, maxc, toon_size, Wd),
            np.empty(4, dtype=np.uint64))


@njit(cache=True, nogil=True)
def _play_game(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size, O):
    """Game ``index`` of a cell through the batch's own block loop, into the output tuple O (that game's
    stats, per-round fame and log); returns the final state, which tests inspect."""
    S, X, L, rng = _workspace(P, C, maxc, toon_size)
    U = users(seat_rules, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    stats, rf, log = O
    outs = Results(np.zeros((1, P), dtype=np.int64), np.zeros((1, P), dtype=np.float64),
                   np.zeros((1, 6), dtype=np.int64), np.zeros((1, P, 4), dtype=np.int64),
                   stats.reshape((1,) + stats.shape), rf.reshape((1,) + rf.shape))
    _play_block(cell_key, index, np.int64(0), np.int64(1), P, C, S, X, U, L, rng, log, outs, None, None, None)
    return S


def consts(prepared: Prepared) -> Consts:
    """A prepared cell's constant arrays as the engine reads them."""
    return Consts(*(prepared[k] for k in ("cards", "rules", "prices", "policies", "priority", "values")))


def rule_arrays(prepared: Prepared) -> tuple:
    """A prepared cell's rule-list arrays (decide.Users' first fields), in the kernels' argument order."""
    return tuple(prepared[k] for k in RULE_ARRAYS)


def no_rules(P: int) -> tuple:
    """Rule arrays for P seats none of which has rules (RULE_ARRAYS' order)."""
    return (*pack_seats([None] * P, [None] * P), np.zeros(1, dtype=np.int64), np.zeros(P, dtype=np.int64))


RULE_ARRAYS = ("rule_ops", "rule_args", "rule_meta", "rule_span", "rule_params", "rule_flags", "seat_flags")


def play_game(prepared: Prepared, cell_key: int, index: int, O: tuple) -> State:
    """One game of a prepared cell with the engine's own block loop; returns its final ``State``.

    For tests: seats with a custom scorer need ``play``/``trace`` (their scorers travel as function
    pointers); every other seat plays here exactly as in the batch kernel.
    """
    maxc, toon_size = (int(x) for x in prepared["sizes"])
    return _play_game(np.uint64(cell_key), np.int64(index), prepared.n_players, consts(prepared),
                      rule_arrays(prepared), custom_none(), maxc, toon_size, O)


_NONE: list = []


def custom_none() -> tuple:
    """Four 'no scorer' function pointers, typed as ``custom.SCORERS`` (a cfunc's numba type is its pointer
    type), for the jitted entry points other than the batch kernel."""
    if not _NONE:
        _NONE.append((cfunc(custom.SIGNATURE, cache=True)(custom.no_scorer.py_func),) * 4)
    return _NONE[0]


@njit(**INLINE, **INTERNAL)
def _reset(S, X, P, Wd):
    """S and the scratch X as _alloc and _scratch return them, in place (a block reuses them)."""
    _clear_state(S, P, Wd)
    if X is not None:  # None in the lean engine, which has no scratch
        _clear_state(X.state, np.int64(1), Wd)
        X.outputs.stats[:] = 0
        X.outputs.round_fame[:] = 0
        X.outputs.log[:] = 0


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
            step.advance(S, C, O, X, U, rng, np.int64(0), f_round, f_final, f_score)
        else:
            # the step interface: advance to a search seat's decision, choose, apply
            while step.advance(S, C, O, X, U, rng, stop, f_round, f_final, f_score) == 1:
                p = to_move(S)
                a = lookahead_choose(p, S, C, X, U, L, rng, f_round, f_final, f_score)
                step.apply(p, a, S, C, O, rng)
        _game_end(i, S, O, outs)


@njit(**INLINE, **INTERNAL)
def _search_seats(pol, P):
    """The seat mask of the seats that search (lookahead, and mcts in mcts.py's engine): advance stops at
    their decisions."""
    stop = np.int64(0)
    for p in range(P):
        code = int(pol[p, POLICY_CODE])
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
    O = Outputs(outs.stats[i], outs.round_fame[i], log)
    _setup(S, C, rng)
    return O


@njit(cache=True, nogil=True, inline='always')
def _game_end(i, S, O, outs):
    _count_owned(S, O.stats)
    _write_row(i, S, outs.score, outs.win, outs.game_out, outs.seat_out)


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
_CONSTS = (_I32_2, _F64_1, _I32_1, _F64_2, _I32_2, _F64_1, types.int64, types.int64)  # cards .. val, maxc, toon_size
_I64_1, _I64_2 = types.int64[::1], types.int64[:, ::1]
# the rule arrays (ops, args, meta, span, params, rule flags, seat flags) and the four seats' scorers
_USERS = (_I64_2, _F64_2, _I64_2, _I64_2, _F64_2, _I64_1, _I64_1, custom.SCORERS)
_OUTS = (types.int64[:, ::1], _F64_2, types.int64[:, ::1], types.int64[:, :, ::1], types.int32[:, :, :, ::1],
         types.int16[:, :, ::1])  # score, win, game_out, seat_out, stats, round_fame
# _score_player, and _start_round and _final_flip (called through pointers: advance says why)
SCORE_FN = types.int64(types.int64, types.int32[:, :, ::1], types.int32[:, ::1], types.int32[::1], types.int32[:, ::1],
                    types.int32[:, ::1], types.float64[::1])
_STATE = typeof(State(np.zeros((1, 1, 1), np.int32), *(np.zeros((1, 1), np.int32),) * 2, *(np.zeros(1, np.int32),) * 2,
                      np.zeros((1, 1), np.int32)))
_CONSTS_T = typeof(Consts(np.zeros((1, 1), np.int32), np.zeros(1), np.zeros(1, np.int32), np.zeros((1, 1)),
                          np.zeros((1, 1), np.int32), np.zeros(1)))
_O = typeof(Outputs(np.zeros((1, 1, 1), np.int32), np.zeros((1, 1), np.int16), np.zeros((1, 1), np.int32)))
PHASE_FN = types.void(_STATE, _CONSTS_T, _O, types.uint64[::1], types.FunctionType(SCORE_FN))
_FNS = (types.FunctionType(PHASE_FN), types.FunctionType(PHASE_FN), types.FunctionType(SCORE_FN))
PLAY_RANGE = types.int64(types.uint64, types.int64, types.int64, types.int64, types.int64, *_CONSTS, *_USERS, *_FNS,
                         *_OUTS, types.int32[:, ::1])  # the event log (one row: off)
BLOCK = 64  # games per call of _play_range: many blocks per thread keep the threads evenly loaded


@njit(cache=True, nogil=True)
def _play_range(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
                ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
                score, win, game_out, seat_out, stats, round_fame, log):
    """Games lo..hi-1 of a batch (game i of the cell is start + i); game i writes only row i of each output.

    A ``log`` of more than one row records the events (trace_game, one game); returns the rows written.
    """
    C = Consts(cards, rules, prices, pol, prio, val)
    # One state, scratch and generator for the whole block (reset per game): about 20 allocations fewer a game.
    S, X, L, rng = _workspace(P, C, maxc, toon_size)
    U = users((ops, args, meta, span, params, rule_flags, seat_flags), scorers, cards.shape[0], prices.shape[0],
                maxc)
    _play_block(cell_key, start, lo, hi, P, C, S, X, U, L, rng, log,
                Results(score, win, game_out, seat_out, stats, round_fame), f_round, f_final, f_score)
    return np.int64(S.shared[LOGN])


# The lean engine: a cell none of whose seats needs FlipToons.FULL_ENGINE (declared by each Policy's needs) runs
# _play_range_lean, compiled without the synergy, rule-list, custom-scorer and lookahead code (about a third of
# the engine's compile time).
# advance inlined at the IR level into the lean engine: as a call, LLVM optimised the whole game once in
# advance and once more in _play_range (about 6 s of cold compile).  The other entry points call advance.
_advance_inline = njit(cache=True, nogil=True, inline='always')(getattr(step.advance, "py_func", step.advance))


@njit(cache=True, nogil=True)
def _play_range_lean(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
                     ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
                     score, win, game_out, seat_out, stats, round_fame, log):
    """_play_range for a cell whose seats need none of FlipToons.FULL_ENGINE (the rule arrays and scorers are ignored):
    the same engine with no scratch, users or lookahead state (None: numba prunes the code that reads them)."""
    C = Consts(cards, rules, prices, pol, prio, val)
    S = _alloc(P, cards.shape[0], maxc, toon_size, prices.shape[0])
    rng = np.empty(4, dtype=np.uint64)
    outs = Results(score, win, game_out, seat_out, stats, round_fame)
    for i in range(lo, hi):
        O = _game_start(cell_key, start, lo, i, P, C, S, None, rng, log, outs)
        _advance_inline(S, C, O, None, None, rng, np.int64(0), f_round, f_final, f_score)
        _game_end(i, S, O, outs)
    return np.int64(S.shared[LOGN])


PLAY_BATCH = types.void(types.FunctionType(PLAY_RANGE), types.uint64, types.int64, types.int64, *_CONSTS, *_USERS,
                        *_FNS, *_OUTS)


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play_range, cell_key, start, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
               ops, args, meta, span, params, rule_flags, seat_flags, scorers, f_round, f_final, f_score,
               score, win, game_out, seat_out, stats, round_fame):
    """Games start..start+count-1 of a cell, in blocks of BLOCK; pass ``_play_range`` as ``play_range``."""
    n = score.shape[0]
    for b in prange(block_count(n, BLOCK)):
        lo, hi = block_range(b, n, BLOCK)
        log = np.zeros((1, LOG_W), dtype=np.int32)  # one row: logging off
        play_range(cell_key, start, lo, hi, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
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


# The batch engines' last arguments before the outputs: advance's start_round, final_flip and score.
FUNCTIONS = (_start_round, _final_flip, _score_player)


def engine(lean: bool):
    """The engine play_batch calls through its pointer: ``_play_range_lean`` (lean) or ``_play_range``."""
    return _play_range_lean if lean else _play_range


def traced_outputs(P: int, K: int, n_rounds: int, log_rows: int) -> tuple[np.ndarray, ...]:
    """The arrays one traced game writes: the batch's result arrays for a batch of one game (score, win,
    game_out, seat_out, stats, round_fame) and an event log of ``log_rows`` rows."""
    return (np.zeros((1, P), dtype=np.int64), np.zeros((1, P), dtype=np.float64),
            np.zeros((1, 3 + len(GAME_COUNTERS)), dtype=np.int64),
            np.zeros((1, P, len(SEAT_COUNTERS)), dtype=np.int64), np.zeros((1, N_STATS, P, K), dtype=np.int32),
            np.zeros((1, P, n_rounds), dtype=np.int16), np.zeros((log_rows, LOG_W), dtype=np.int32))


def trace_game(cell_key, index, P, cards, rules, prices, pol, prio, val, maxc, toon_size, log_rows, n_rounds,
               users=None, lean=False):
    """The same game as play_batch's game ``index``, with the event log switched on.

    Plain Python around the batch's own compiled engine (``_play_range`` or the lean one): a jitted wrapper
    would link and re-optimise the whole engine once more (about 10 s of cold compile before the first trace).
    ``users`` are the rule arrays and four scorers (``FlipToons._users``); None: no rules or custom seats.
    ``lean``: play the lean engine, as ``play`` does for a cell whose seats need none of
    ``FlipToons.FULL_ENGINE`` (the full engine plays any cell the same, only slower to compile).
    """
    if users is None:
        users = (*no_rules(P), custom.scorers([]))
    score, win, game_out, seat_out, stats, round_fame, log = traced_outputs(P, cards.shape[0], n_rounds, log_rows)
    batch_kernel(lean)  # compiles (or loads) the engine for PLAY_RANGE, the types passed here
    rows = engine(lean)(np.uint64(cell_key), np.int64(index), np.int64(0), np.int64(1), np.int64(P), cards, rules,
                        prices, pol, prio, val, np.int64(maxc), np.int64(toon_size), *users, *FUNCTIONS, score, win,
                        game_out, seat_out, stats, round_fame, log)
    return score, win, game_out, log[:rows].copy()


@njit(cache=True, nogil=True, forceinline=False)
def set_up_game(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size):
    """Game ``index`` dealt and set up, before its first round: (S, X, U, L, O, rng), O with one round of fame
    and logging off: where the positions of the search player's tests and benchmarks start."""
    S, X, L, rng = _workspace(P, C, maxc, toon_size)
    U = users(seat_rules, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    seed_state(game_seed(cell_key, index), rng)
    K = C.cards.shape[0]
    O = Outputs(np.zeros((N_STATS, P, K), dtype=np.int32), np.zeros((P, 1), dtype=np.int16),
                np.zeros((1, LOG_W), np.int32))
    _setup(S, C, rng)
    return S, X, U, L, O, rng


@njit(cache=True, nogil=True, forceinline=False)
def first_decision(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size):
    """Game ``index`` advanced to its first lookahead or mcts decision (for latency benchmarks and tests)."""
    S, X, U, L, O, rng = set_up_game(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size)
    step.advance(S, C, O, X, U, rng, _search_seats(C.policies, P), None, None, None)
    return S, X, U, L, O, rng


@njit(cache=True, nogil=True)
def play_stepped(cell_key, index, P, C, seat_rules, scorers, maxc, toon_size, O):
    """Game ``index`` of a cell played through the step interface alone: advance to every decision of every
    seat, list its legal actions, choose what the seat's policy chooses (decide.choose, or lookahead.lookahead_choose)
    and apply it.  Returns the final state and the number of chosen actions that were not in the legal list
    (0).  tests/games/fliptoons/test_step.py checks it equals the batch kernel's game."""
    S, X, L, rng = _workspace(P, C, maxc, toon_size)
    U = users(seat_rules, scorers, C.cards.shape[0], C.prices.shape[0], maxc)
    seed_state(game_seed(cell_key, index), rng)
    S.shared[LOGON] = 0
    _setup(S, C, rng)
    every = (np.int64(1) << P) - 1
    legal = np.empty(C.prices.shape[0] + maxc + 1, dtype=np.int64)
    bad = np.int64(0)
    while step.advance(S, C, O, X, U, rng, every, None, None, None) == 1:
        p = to_move(S)
        n = step.legal(p, S, C, legal)
        if int(C.policies[p, POLICY_CODE]) == POL_LOOKAHEAD:
            a = lookahead_choose(p, S, C, X, U, L, rng, None, None, None)
        else:
            a = choose(p, S, C, X, U, rng)
        ok = False
        for j in range(n):
            if legal[j] == a:
                ok = True
        if not ok:
            bad += 1
        step.apply(p, a, S, C, O, rng)
    return S, bad
