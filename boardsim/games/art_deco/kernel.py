"""Art Deco's batch kernels and their compile plumbing: ``play_batch`` plays a cell's games in blocks, each
block through ``_play_range`` (one World, then ``step.run`` per game: the rules loop of step.py is the
game's only rules loop); ``trace_game`` plays one game with its log through the same compiled ``_play_range``.

The engine variants: with scorers (some seat is asked at each decision) and without (None: numba prunes
decide.open_*), each compiled for its one signature on first use (``_engine``).
"""

from __future__ import annotations

import threading

import numba
import numpy as np
from numba import njit, prange, types

from boardsim import custom, rng
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco import step
from boardsim.games.art_deco.engine import LOG_WIDTH, N_GAME, collection_capacity
from boardsim.games.art_deco.state import HELPERS, N_SEAT, V_NLOG, Scratch, World
from boardsim.games.base import Prepared, pointer_kernel
from boardsim.games.blocks import block_count, block_range
from boardsim.rulelist import RuleArrays, pack_seats

# the rule arrays and rule tables as Prepared.arrays names
RULE_KEYS = tuple("rule_" + f for f in RuleArrays._fields)
TABLE_KEYS = tuple("table_" + f for f in D.RuleTables._fields)
# Games per block of a batch: each block allocates its scratch arrays (a dozen) and a game takes about a
# microsecond of CPU, so a block must hold a few hundred games for the allocations to cost under 1%.
BLOCK = 256


@njit(cache=True, nogil=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _play_games(play, key, first, lo, hi, rules, deck, pol, tables, rl, scorers, score, win, seat_out, game_out,
                progress, progress_cards, w):
    """The allocation-free game loop of ``_play_range``: compiled without NRT, so passing the
    arrays costs no reference counting.  ``play`` is ``step.run`` (the rules loop, a whole game with every seat
    asked of decide.py) as a function pointer: LLVM optimises the game once, not again in each caller."""
    for i in range(lo, hi):
        # the game's seat counters, score, win shares and progress (0 rounds: none) are played in their rows of
        # the outputs: no copy
        g = World(w.scratch, seat_out[i], w.v, w.r, score[i], win[i], w.log, progress[i], progress_cards[i])
        step.deal(g, rng.game_seed(key, first + i), deck)
        play(g, None, rules, pol, tables, rl, scorers, None, None)
        step.game_counters(g, i, game_out)
    return w.v[V_NLOG]


@njit(cache=True, nogil=True)
def _play_range(play, key, first, lo, hi, n_players, rules, deck, pol, tables, rl, scorers, score, win, seat_out,
                game_out, progress, progress_cards, log):
    """Games lo..hi-1 of this batch, sharing one World (its log: ``log``)."""
    w = step.world(n_players, deck.shape[0], collection_capacity(rules), int(rules[R.R_DIRECT_MAX]), log)
    step.set_codes(w, pol, rules)
    n_log = _play_games(play, key, first, lo, hi, rules, deck, pol, tables, rl, scorers, score, win, seat_out,
                        game_out, progress, progress_cards, w)
    return n_log


# The custom scorers arrive as a tuple of four numba functions; only code compiled for an explicit signature
# naming their function type (custom.SCORERS) turns them into function pointers, so the engine (_play_range)
# is compiled for these argument types and then refuses any other.  With scorers = None (no seat is asked at
# each decision: built-ins and tabled rule lists only) numba prunes every call to decide.open_*: their many
# arguments in the bidding loop cost the built-ins ~15% of their speed.  So there are two variants, each
# compiled only when a cell first needs it.
_I64 = types.int64
_C1I = types.int64[::1]
_C2I = types.int64[:, ::1]
_C1F = types.float64[::1]
_C2F = types.float64[:, ::1]
RULE_ARRAYS = numba.typeof(pack_seats([None], [None]))
RULE_TABLES = numba.typeof(D.RuleTables(np.zeros(1, np.int64), np.zeros((1, 2, 1, 1), np.int64),
                                          np.zeros((1, 1, 1), np.int64), np.zeros((1, 1, 1)), np.zeros((1, 1, 1))))
_IN = (_C1F, _C1I, _C2F, RULE_TABLES, RULE_ARRAYS)  # rules, deck, pol, tables, rl
_C3I = types.int64[:, :, ::1]
# score, win, seat_out, game_out, progress, progress_cards.  The progress arrays are (n, P, R) when the cell
# records them (Prepared.progress) and (n, P, 0) when not: the same types, so one signature serves both and a
# cell without progress compiles nothing new; the rules loop records only when R > 0 (World.progress).
_OUT = (_C2I, _C2F, _C3I, _C2I, _C3I, _C3I)
_SCORERS = {True: custom.SCORERS, False: types.none}
_ARRAY = {(n, t): np.zeros((1,) * n, t) for n in (1, 2) for t in (np.int64, np.uint64, np.float64)}
WORLD = numba.typeof(World(Scratch(*(_ARRAY[k] for k in (
    (1, np.int64), (2, np.int64), (2, np.int64), (1, np.int64), (1, np.int64), (2, np.int64), (1, np.uint64),
    (2, np.int64), (2, np.float64), (2, np.float64), (1, np.float64), (1, np.float64)))),
    *(_ARRAY[k] for k in ((2, np.int64), (1, np.int64), (1, np.float64), (1, np.int64), (1, np.float64),
                          (2, np.int64), (2, np.int64), (2, np.int64)))))
# step.run(world, pending = None, rules, deck, pol, tables, rl, scorers, stop = None, stop_round = None)
GAME_SIG = {k: types.void(WORLD, types.none, *_IN[:1], *_IN[2:], sc, types.none, types.none)
            for k, sc in _SCORERS.items()}
# play, key, first, lo, hi, n_players, rules, deck, pol, tables, rl, scorers, score, win, seat_out, game_out,
# progress, progress_cards, log
RANGE_SIG = {k: _I64(types.FunctionType(GAME_SIG[k]), types.uint64, _I64, _I64, _I64, _I64, *_IN, sc, *_OUT, _C2I)
             for k, sc in _SCORERS.items()}
BATCH_SIG = {k: types.void(types.FunctionType(RANGE_SIG[k]), types.FunctionType(GAME_SIG[k]), types.uint64, _I64,
                           _I64, *_IN, sc, *_OUT)
             for k, sc in _SCORERS.items()}


def _batch(play_range, play, key, first, n_players, rules, deck, pol, tables, rl, scorers, score, win, seat_out,
           game_out, progress, progress_cards):
    """Games first..first+n-1 of a cell in blocks; each writes only its own rows.  ``play_range`` is
    ``_play_range`` and ``play`` is ``step.run``, both as function pointers: the kernel does not link (and
    re-optimise) the engine's code."""
    n = score.shape[0]
    no_log = np.zeros((0, LOG_WIDTH), dtype=np.int64)
    for b in prange(block_count(n, BLOCK)):
        lo, hi = block_range(b, n, BLOCK)
        play_range(play, key, first, lo, hi, n_players, rules, deck, pol, tables, rl, scorers, score, win, seat_out,
                   game_out, progress, progress_cards, no_log)


# one dispatcher per scorer variant: a pointer kernel is compiled for exactly one signature
_BATCH = {k: njit(parallel=True, cache=True, nogil=True)(_batch) for k in (True, False)}
_COMPILING = threading.Lock()
_READY: dict[bool, tuple] = {}  # variants compiled: asking numba for a dispatcher's signatures costs ~0.3 ms


def _engine(asks: bool) -> tuple:
    """(kernel, engine) for the scorer variant, compiled on first use (no-ops under NUMBA_DISABLE_JIT)."""
    ready = _READY.get(asks)
    if ready is not None:
        return ready
    kernel = _BATCH[asks]
    if hasattr(_play_range, "signatures") and RANGE_SIG[asks] not in _play_range.signatures:
        with _COMPILING:
            if RANGE_SIG[asks] not in _play_range.signatures:
                for fn, sig in HELPERS:  # before the engine, which calls them (state.helper)
                    if not fn.signatures:
                        fn.compile(sig)
                        fn.disable_compile()
                # the rules loop's own signature first: the engine and the kernel take it as a function pointer
                step.run.disable_compile(False)
                step.run.compile(GAME_SIG[asks])
                step.run.disable_compile()
                _play_range.disable_compile(False)
                pointer_kernel(kernel, _play_range, BATCH_SIG[asks], RANGE_SIG[asks])
                # trace_game calls _play_range from Python: converted to a compiled signature, never a new one
                _play_range.disable_compile()
    _READY[asks] = (kernel, _play_range)
    return kernel, _play_range


def play_batch(key, first, n_players, rules, deck, pol, tables: D.RuleTables, rl: RuleArrays, scorers, score, win,
               seat_out, game_out, progress, progress_cards):
    """Play games ``first..first+n-1`` of a cell into the result arrays (n = ``score.shape[0]``).

    ``progress`` and ``progress_cards`` (``progress_arrays``) are (n, P, R) to record each round's scores and
    cards held, (n, P, 0) to record nothing.

    ``scorers`` is the four-scorer tuple, or None when no seat is asked at each decision
    (``ArtDeco.seat_needs``: the ``user`` need): the engine compiled for None has no code for such seats.
    """
    kernel, engine = _engine(scorers is not None)
    kernel(engine, step.run, key, first, n_players, rules, deck, pol, tables, rl, scorers, score, win, seat_out,
           game_out, progress, progress_cards)


def trace_game(key, index, n_players, rules, deck, pol, tables: D.RuleTables, rl: RuleArrays, scorers, max_events):
    """One game's results and its event log (at most ``max_events`` rows): plain Python around the batch's
    own compiled ``_play_range`` (one game, log on); a jitted wrapper would link and re-optimise the engine."""
    _, engine = _engine(scorers is not None)
    score = np.zeros((1, n_players), dtype=np.int64)
    win = np.zeros((1, n_players), dtype=np.float64)
    seat_out = np.zeros((1, n_players, N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, N_GAME), dtype=np.int64)
    log = np.zeros((max_events, LOG_WIDTH), dtype=np.int64)
    n_log = engine(step.run, np.uint64(key), np.int64(index), np.int64(0), np.int64(1), np.int64(n_players), rules,
                   deck, pol, tables, rl, scorers, score, win, seat_out, game_out, *progress_arrays(1, n_players, 0),
                   log)
    return score[0], win[0], seat_out[0], game_out[0], log[:n_log]


def progress_arrays(count: int, n_players: int, rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed (progress, progress_cards), int64 (count, n_players, rounds): ``rounds`` = 0 records nothing."""
    return (np.zeros((count, n_players, rounds), dtype=np.int64),
            np.zeros((count, n_players, rounds), dtype=np.int64))


def inputs(prepared: Prepared) -> tuple:
    """The rule vector, deck, policy matrix, rule tables and rule arrays as the compiled engine takes them
    (C-contiguous and writeable, e.g. after a worker unpickles them)."""
    def arr(name: str) -> np.ndarray:
        return np.require(prepared[name], requirements=["C", "W"])

    return (arr("rules"), arr("deck"), arr("policies"), D.RuleTables(*(arr(k) for k in TABLE_KEYS)),
            RuleArrays(*(arr(k) for k in RULE_KEYS)))
