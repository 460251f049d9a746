"""Circle the Wagons' batch kernels and their compile plumbing: ``play_batch`` plays a cell's games in blocks,
each block through ``_play_range`` (the step functions of step.py, the game's one rules loop) called through a
function pointer; ``trace_game`` runs one game with its placement log through the same compiled engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange, types

from boardsim import custom, rng
from boardsim.games.base import pointer_kernel
from boardsim.games.blocks import block_count, block_range
from boardsim.games.wagons import policies, step
from boardsim.games.wagons import state as ST
from boardsim.games.wagons.engine import EV_WIDTH, N_CIRCLE, N_GAME, N_GOALS_IN_PLAY, N_SEAT
from boardsim.rulelist import RuleArrays

# Games per block of a batch: a block allocates its event log once; a greedy game takes ~1 ms, so 32 games
# amortise that and still spread a small call over every thread.
BLOCK = 32

# play_batch calls _play_range through a function pointer; base.pointer_kernel says why and compiles both.
_I64_2, _F64_1, _F64_2 = types.int64[:, ::1], types.float64[::1], types.float64[:, ::1]
RULE_ARRAYS = types.NamedTuple((_I64_2, _F64_2, _I64_2, _I64_2, _F64_2), RuleArrays)
# rules .. scorers (Wagons._args): the rule vector, the cards, the policy matrix, the seats' rules and scorers
TABLES = (_F64_1, _I64_2, _I64_2, types.int64[::1], _I64_2, _F64_2, RULE_ARRAYS, custom.SCORERS)
# score, win, seat_out, game_out, goal_out, progress: each seat's town points after every turn, (n, 2, N_TURNS)
# when the cell records progress (Prepared.progress), else (0, 2, N_TURNS): one type, so one signature either way
OUTS = (types.int64[:, ::1], _F64_2, types.int64[:, :, ::1], types.int64[:, ::1], types.int64[:, :, ::1],
        types.int64[:, :, ::1])
# the most turns a game can have (a turn takes one circle card): progress's last axis
N_TURNS = N_CIRCLE
# Four engine variants, told apart by the arguments ``user`` and ``fast`` (Wagons._flags, from the needs): None
# leaves out the code of rules and custom seats (decide.draft's) or of fast placement (numba prunes it,
# policies.THIN's note), True keeps it.  Each variant has its own dispatchers, compiled on first use for
# their one signature: the default seats compile neither the rule interpreter nor fast.py.  All take
# policies.search as a function pointer (``find``, its type policies.SEARCH[fast]).
_RANGE_ARGS = (types.uint64, types.int64, types.int64, types.int64, *TABLES, *OUTS, _I64_2)


def _signatures(user: bool | None, fast: bool | None) -> tuple[Any, Any]:
    """(_play_range's, play_batch's) signature in one variant."""
    flags = tuple(types.none if f is None else types.boolean for f in (user, fast))
    find = types.FunctionType(policies.SEARCH[fast])
    range_sig = types.int64(*_RANGE_ARGS, *flags, find)
    return range_sig, types.void(types.FunctionType(range_sig), types.uint64, types.int64, *TABLES, *OUTS, *flags,
                                 find)


PLAY_RANGE, PLAY_BATCH = _signatures(None, None)  # the default seats' variant


@njit(cache=True, nogil=True)
def _play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
                seat_out, game_out, goal_out, progress, events, user, fast, find):
    """Games first+lo .. first+hi-1 of a cell into output rows lo..hi-1, every decision through the step
    functions (step.py, the game's one rules loop) and every choice from decide.py (``step.builtin``: ``rl`` and
    ``scorers`` serve its rules and custom seats; ``user`` and ``fast`` are None in the engine variants without
    their code, see ``Wagons._flags``; ``find`` is policies.search).  ``events`` receives the last game's
    placements; ``progress``, unless zero-size, each seat's points after every turn (step.record_progress)."""
    _town, scr, dr = ST.new_state()
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    w = step.new_world()
    pws, pdetail = step.progress_scratch(progress, scr)
    for row in range(lo, hi):
        state = rng.new_state(rng.game_seed(key, first + row))
        step.setup(w, key, first + row, rules, tab, dr, state)
        while w.v[step.V_PHASE] != step.PH_OVER:
            turn = w.v[step.V_TURN]
            step.apply(w, step.builtin(w, pol, rl, scorers, tab, scr, dr, state, user, fast, find), tab, scr)
            step.record_progress(w, turn, row, tab, pws, pdetail, progress)
        step.finish(w, row, rules, tab, scr, score, win, seat_out, game_out, goal_out)
        step.fill_progress(w, row, progress)
    for i in range(events.shape[0]):
        for j in range(events.shape[1]):
            events[i, j] = w.events[i, j]
    return 0


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play_range, key, first, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
               seat_out, game_out, goal_out, progress, user, fast, find):
    """Games first..first+n-1 of a cell; each game writes only its own rows."""
    n = score.shape[0]
    for b in prange(block_count(n, BLOCK)):
        lo, hi = block_range(b, n, BLOCK)
        events = np.zeros((N_CIRCLE, EV_WIDTH), dtype=np.int64)
        play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, score, win,
                   seat_out, game_out, goal_out, progress, events, user, fast, find)


def progress_array(count: int, on: bool) -> np.ndarray:
    """The engines' ``progress`` output: (count, 2, N_TURNS) when ``on``, else zero-size (nothing recorded)."""
    return np.zeros((count if on else 0, 2, N_TURNS), dtype=np.int64)


def no_progress() -> np.ndarray:
    return progress_array(0, False)


def twin(dispatcher: Any, **flags: Any) -> Any:
    """A second dispatcher of the same function (a plain function under NUMBA_DISABLE_JIT=1)."""
    py_func = getattr(dispatcher, "py_func", None)
    return dispatcher if py_func is None else njit(**flags)(py_func)


def _variant(user: bool | None, fast: bool | None) -> tuple[Any, Any, Any, Any]:
    """(engine, batch kernel, their signatures) of one variant; the default one is the module's own pair."""
    if user is None and fast is None:
        play_range, batch = _play_range, play_batch
    else:
        play_range = twin(_play_range, cache=True, nogil=True)
        batch = twin(play_batch, cache=True, nogil=True, parallel=True)
    return (play_range, batch, *_signatures(user, fast))


# (user, fast) -> (engine, batch kernel, their signatures)
_VARIANTS = {(user, fast): _variant(user, fast) for user in (None, True) for fast in (None, True)}


def play_range_for(fast: bool | None, user: bool | None = None) -> Any:
    """The engine (``_play_range`` or a twin) that ``batch_kernel(fast, user)`` calls."""
    return _VARIANTS[user, fast][0]


def batch_kernel(fast: bool | None = None, user: bool | None = None) -> Any:
    """play_batch of one variant compiled for its one signature; call it as
    ``batch_kernel(fast, user)(play_range_for(fast, user), key, ..., user, fast, policies.search)``."""
    play_range, batch, range_sig, batch_sig = _VARIANTS[user, fast]
    if hasattr(policies.search, "compile"):
        policies.search.compile(policies.SEARCH[fast])  # the overload whose address the engine gets as ``find``
    kernel = pointer_kernel(batch, play_range, batch_sig, range_sig)
    if hasattr(play_range, "disable_compile"):
        # trace_game calls the engine from Python with the scorers as dispatchers: converted to the
        # compiled signature's function pointers instead of compiling a second engine for their types
        play_range.disable_compile()
    return kernel


def trace_game(fast, user, key, index, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers):
    """One game with its placement log: (score, win, seat_out, game_out, goal_out, events).

    Plain Python around the batch's own compiled engine (one game, log on): a jitted wrapper
    would link and re-optimise the whole engine again, about 8 s more of cold compile for a trace.
    """
    score = np.zeros((1, 2), dtype=np.int64)
    win = np.zeros((1, 2), dtype=np.float64)
    seat_out = np.zeros((1, 2, N_SEAT), dtype=np.int64)
    game_out = np.zeros((1, N_GAME), dtype=np.int64)
    goal_out = np.zeros((1, 2, N_GOALS_IN_PLAY), dtype=np.int64)
    events = np.full((N_CIRCLE, EV_WIDTH), -1, dtype=np.int64)
    batch_kernel(fast, user)  # compiles (or loads) the variant's engine for its signature, the types passed here
    play_range_for(fast, user)(np.uint64(key), np.int64(index), np.int64(0), np.int64(1), rules, card_land,
                               card_sym, card_goal, gp, pol, rl, scorers, score, win, seat_out, game_out, goal_out,
                               no_progress(), events, user, fast, policies.search)
    return score, win, seat_out, game_out, goal_out, events
