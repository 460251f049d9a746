"""The ``mcts`` player of Circle the Wagons and the engine variant that runs it (docs/rules/circle-the-wagons.md).

Circle the Wagons hides nothing: the circle lies territory side up, the goals are face up and both towns
are public, and no card is dealt later.  The information set of the seat to move is the state itself, so
the search needs no determinization (each iteration starts from an exact copy of the real state) and is
plain UCT over the step interface (step.py) with boardsim.tree's node pool.  What the search reads is
what the rules show: the towns, the circle from the first available card, the goals, whose turn it is.

Actions (step.py encodes them): P2's starting card (all 15 circle positions), the draft (skip k = 0 ..
``lookahead`` - 1 cards), and every placement, the taken card's and each free card's, by whoever places
it: opponents' decisions are tree nodes too, valued with their own reward.  A placement's candidates are
the ``spots`` best spots and rotations of the ``fast`` placement estimate (fast.py keeps its TOP = 4 best
first-ranked spots per card; the best by its gain estimate comes first, then the rest by rank).  A first
card has one candidate: the centre at rotation 0 (a lone card scores the same turned 180 degrees, and
turning a whole town changes nothing).  A decision with one candidate is applied without a node.  With
``widening`` = k0 > 0 a node considers only its first ceil(k0 * (visits + 1) ** 0.5) candidates.

A rollout plays the rest of the game (or to the start of turn root + ``horizon``) with the ``playout``
policy on both seats, placing with ``placement`` (default ``fast``).  Its reward is each seat's win share
as the game scores it (a horizon's evaluation: the win shares of the two towns' scores at that point,
majority goals against the other town as it stands).

The engine variant: ``play_range`` plays whole games through the step interface, asking decide.py
(step.builtin) for the built-in seats' choices and ``decide`` for the mcts seats'; it is compiled only for
cells with an mcts seat (Wagons.play picks it), so the default engine compiles no search code.  Search
randomness (a random playout) comes from the game's own generator: results do not depend on threads or
chunks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import njit, prange, types

from boardsim import custom, rng
from boardsim import tree as TR
from boardsim.games.base import pointer_kernel
from boardsim.games.wagons import engine as E
from boardsim.games.wagons import fast as F
from boardsim.games.wagons import policies, step
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW
from boardsim.games.wagons.kernel import BLOCK, OUTS, RULE_ARRAYS, TABLES, progress_array, twin
from boardsim.games.wagons.rules import RULES_WIDTH
from boardsim.rulelist import RuleArrays

# a seat's mcts row (tree.seat_rows): iterations, c, horizon, spots, lookahead, widening k0, opponents
# (1 = playout), then the playout policy's policy-matrix row (policies.POLICY_WIDTH columns)
M_ITER, M_C, M_HOR, M_SPOTS, M_LOOK, M_WIDEN, M_OPP, M_PLAY = range(8)
M_WIDTH = M_PLAY + policies.POLICY_WIDTH
ALPHA = 0.5  # progressive widening's exponent
BRANCHING = ST.N_CIRCLE  # the most candidates of one decision (the start: 15)
BIG = 1 << 40


@njit(cache=True, nogil=True)
def candidates(w, buf, look, nspots, tab, scr, state, fast, find):
    """The current decision's candidate actions, best first, into buf; returns how many."""
    ph = w.v[step.V_PHASE]
    if ph == step.PH_START:
        for s in range(ST.N_CIRCLE):
            buf[s] = s
        return ST.N_CIRCLE
    if ph == step.PH_DRAFT:
        n = min(look, ST.N_CIRCLE - w.v[step.V_T])
        for k in range(n):
            buf[k] = k
        return n
    p = step.to_move(w)
    town = w.town
    if town.meta[p, TW.META_N] == 0:
        buf[0] = step.spot_action(TW.CENTER, TW.CENTER, 0)
        return 1
    at = w.v[step.V_T] + (w.v[step.V_K] if ph == step.PH_TAKEN else w.v[step.V_J])
    policies.best_placement(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], tab.card_land,
                            tab.card_sym, w.seq, at, w.goals, tab.gp, town.cnt[1 - p], np.int64(policies.PLACE_FAST),
                            1.0, scr.ws, scr.detail, scr.saved, state, scr.bestv, scr.spots, fast, find)
    buf[0] = step.spot_action(scr.spots[0, ST.SPOT_X], scr.spots[0, ST.SPOT_Y], scr.spots[0, ST.SPOT_ROT])
    n = 1
    row = F.R_TOP
    used = 0
    while n < nspots:
        best = -1
        for i in range(F.TOP):
            if (used >> i) & 1 == 0 and scr.ws[row, 4 * i] > -BIG:
                if best < 0 or scr.ws[row, 4 * i] > scr.ws[row, 4 * best]:
                    best = i
        if best < 0:
            break
        used |= 1 << best
        xy = scr.ws[row, 4 * best + 1]
        a = step.spot_action(xy % TW.G, xy // TW.G, scr.ws[row, 4 * best + 2])
        if a != buf[0]:
            buf[n] = a
            n += 1
    return n


@njit(cache=True, nogil=True)
def _over(w, stop):
    return w.v[step.V_PHASE] == step.PH_OVER or (w.v[step.V_PHASE] == step.PH_DRAFT and w.v[step.V_TURN] >= stop)


# -- the search's hooks (tree.search): g = (real, world, ppol, rules, tab, scr, dr, rl, scorers, state, user, fast,
# find, look, nspots, me, stop, tot); no determinization (nothing is hidden): each iteration copies the position


@njit(cache=True, nogil=True)
def _world(g, it):
    step.copy_world(g[0], g[1])


@njit(cache=True, nogil=True, _nrt=False)
def _walk(g, buf):
    """With ``me`` >= 0 only seat ``me``'s decisions are tree nodes: the other plays the playout policy."""
    _real, world, ppol, _rules, tab, scr, dr, rl, scorers, state, user, fast, find, look, nspots, me, stop, _tot = g
    while not _over(world, stop):
        if me >= 0 and step.to_move(world) != me:  # the opponent plays the playout policy: no node
            step.apply(world, step.builtin(world, ppol, rl, scorers, tab, scr, dr, state, user, fast, find), tab, scr)
            continue
        n = candidates(world, buf, look, nspots, tab, scr, state, fast, find)
        if n == 1:
            step.apply(world, buf[0], tab, scr)
            continue
        return n, step.to_move(world)
    return 0, -1


@njit(cache=True, nogil=True, _nrt=False)
def _play(g, buf, n, a):
    step.apply(g[1], a, g[4], g[5])
    return True


@njit(cache=True, nogil=True, _nrt=False)
def _playout(g, reward):
    _real, world, ppol, rules, tab, scr, dr, rl, scorers, state, user, fast, find, _look, _ns, _me, stop, tot = g
    while not _over(world, stop):
        step.apply(world, step.builtin(world, ppol, rl, scorers, tab, scr, dr, state, user, fast, find), tab, scr)
    step.scores(world, tab, scr, tot)
    step.win_shares(world, rules, tot[0], tot[1], reward)


@njit(cache=True, nogil=True)
def _search_users(p, ppol, rl, scorers):
    """The rule arrays and scorers every seat plays inside seat p's search: as given, or with ``learned``
    rollouts (a custom code in the playout row) every seat given seat p's scorer and model
    (Game.search_user_seats put them there), so each rollout seat asks the model with its own view."""
    if ppol[p, policies.COL_CODE] != policies.CUSTOM:
        return rl, scorers
    params = np.empty_like(rl.params)
    for q in range(params.shape[0]):
        params[q, :] = rl.params[p, :]
    s = scorers[p]
    return RuleArrays(rl.ops, rl.args, rl.meta, rl.span, params), (s, s, s, s)


@njit(cache=True, nogil=True)
def decide(real, world, tr, buf, mrow, ppol, rules, tab, scr, dr, rl, scorers, state, stats, user, fast, find):
    """The mcts seat's action at ``real``'s decision (tree.search: ``stats``, iterations < 0; with 0 the playout
    policy's choice)."""
    iterations = int(mrow[M_ITER])
    look = int(mrow[M_LOOK])
    nspots = int(mrow[M_SPOTS])
    rl, scorers = _search_users(step.to_move(real), ppol, rl, scorers)
    if iterations == 0:  # the playout policy's own choice (the probe's positions)
        return step.builtin(real, ppol, rl, scorers, tab, scr, dr, state, user, fast, find)
    if iterations > 0:
        TR.reset(tr)  # a forced move leaves an empty tree (record.py reads it)
        stats[:] = 0.0
        if candidates(real, buf, look, nspots, tab, scr, state, fast, find) == 1:
            return buf[0]
    horizon = int(mrow[M_HOR])
    stop = real.v[step.V_TURN] + horizon if horizon > 0 else 1 << 30
    me = step.to_move(real) if mrow[M_OPP] != 0 else -1
    g = (real, world, ppol, rules, tab, scr, dr, rl, scorers, state, user, fast, find, look, nspots, me, stop,
         np.zeros(2, dtype=np.int64))
    a = TR.search(g, tr, buf, 0, iterations, mrow[M_C], mrow[M_WIDEN], ALPHA, np.zeros(2, dtype=np.float64), stats,
                  _world, _walk, _play, _playout)
    # the real game's draft caches (decide.draft's dr.spot) are stale after the rollouts
    dr.spot[ST.DS_TAKEN_SET] = 0
    dr.spot[ST.DS_FREE_SET] = 0
    return a


@njit(cache=True, nogil=True)
def play_range(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, mpar, score, win,
               seat_out, game_out, goal_out, progress, events, visits, user, fast, find):
    """Games first+lo .. first+hi-1 through the step interface (kernel._play_range's outputs, ``progress``
    recorded as there: the real game's turns only, never the search's); ``events`` and ``visits`` (per
    placement: the mcts choice's visits, 0 for other seats) keep the last game's log."""
    _town, scr, dr = ST.new_state()
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    real = step.new_world()
    world = step.new_world()
    tr = TR.pool(mpar, M_ITER)
    buf = np.zeros(BRANCHING, dtype=np.int64)
    ppol = TR.playout_rows(mpar, M_PLAY, policies.POLICY_WIDTH)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    pws, pdetail = step.progress_scratch(progress, scr)
    for row in range(lo, hi):
        state = rng.new_state(rng.game_seed(key, first + row))
        step.setup(real, key, first + row, rules, tab, dr, state)
        for i in range(visits.shape[0]):
            visits[i] = 0
        while real.v[step.V_PHASE] != step.PH_OVER:
            turn = real.v[step.V_TURN]
            p = step.to_move(real)
            if pol[p, policies.COL_CODE] == policies.MCTS:
                a = decide(real, world, tr, buf, mpar[p], ppol[p], rules, tab, scr, dr, rl, scorers, state, stats,
                           user, fast, find)
                if real.v[step.V_PHASE] >= step.PH_TAKEN:
                    visits[real.v[step.V_NE]] = int(stats[TR.RS_VISITS])
            else:
                a = step.builtin(real, pol, rl, scorers, tab, scr, dr, state, user, fast, find)
            step.apply(real, a, tab, scr)
            step.record_progress(real, turn, row, tab, pws, pdetail, progress)
        step.finish(real, row, rules, tab, scr, score, win, seat_out, game_out, goal_out)
        step.fill_progress(real, row, progress)
    for i in range(events.shape[0]):
        for j in range(events.shape[1]):
            events[i, j] = real.events[i, j]
    return 0


@njit(cache=True, nogil=True, parallel=True)
def play_batch(play, key, first, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, mpar, score, win,
               seat_out, game_out, goal_out, progress, events_out, visits_out, user, fast, find):
    """Games first..first+n-1 of a cell; each game writes only its own rows (a one-game batch also its log)."""
    n = score.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        lo = np.int64(b) * BLOCK
        hi = min(n, lo + BLOCK)
        events = np.zeros((ST.N_CIRCLE, E.EV_WIDTH), dtype=np.int64)
        visits = np.zeros(ST.N_CIRCLE, dtype=np.int64)
        play(key, first, lo, hi, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, mpar, score, win,
             seat_out, game_out, goal_out, progress, events, visits, user, fast, find)
        if n == 1:
            events_out[:, :] = events
            visits_out[:] = visits


_C2F, _C1I, _C2I = types.float64[:, ::1], types.int64[::1], types.int64[:, ::1]
_OUT_ARGS = (*OUTS, _C2I, _C1I)  # score, win, seat_out, game_out, goal_out, progress, events, visits


def _signatures(user: bool | None) -> tuple[Any, Any]:
    find = types.FunctionType(policies.SEARCH[True])
    flags = (types.none if user is None else types.boolean, types.boolean)
    range_sig = types.int64(types.uint64, types.int64, types.int64, types.int64, *TABLES, _C2F, *_OUT_ARGS,
                            *flags, find)
    batch_sig = types.void(types.FunctionType(range_sig), types.uint64, types.int64, *TABLES, _C2F, *_OUT_ARGS,
                           *flags, find)
    return range_sig, batch_sig


_LOCK = threading.Lock()
_KERNELS: dict[Any, Any] = {}


def _variant(user: bool | None) -> tuple[Any, Any, Any, Any]:
    if user is None:
        return (play_range, play_batch, *_signatures(user))
    return (twin(play_range, cache=True, nogil=True), twin(play_batch, cache=True, nogil=True, parallel=True),
            *_signatures(user))


_VARIANTS = {user: _variant(user) for user in (None, True)}


def kernel(user: bool | None) -> tuple[Any, Any]:
    """(batch kernel, its engine) of the mcts variant for ``user`` (``Wagons._flags``), compiled on first use."""
    with _LOCK:
        if user not in _KERNELS:
            play, batch, range_sig, batch_sig = _VARIANTS[user]
            if hasattr(policies.search, "compile"):
                policies.search.compile(policies.SEARCH[True])
            _KERNELS[user] = (pointer_kernel(batch, play, batch_sig, range_sig), play)
        return _KERNELS[user]


def run(args: tuple[Any, ...], mpar: np.ndarray, cell_key: int, start: int, count: int,
        user: bool | None, progress: bool = False) -> tuple[np.ndarray, ...]:
    """Play games start..start+count-1: (score, win, seat_out, game_out, goal_out, events, visits, progress);
    ``progress`` (count, 2, kernel.N_TURNS) with ``progress`` on, else zero-size."""
    score = np.zeros((count, 2), dtype=np.int64)
    win = np.zeros((count, 2), dtype=np.float64)
    seat_out = np.zeros((count, 2, E.N_SEAT), dtype=np.int64)
    game_out = np.zeros((count, E.N_GAME), dtype=np.int64)
    goal_out = np.zeros((count, 2, E.N_GOALS_IN_PLAY), dtype=np.int64)
    events = np.full((ST.N_CIRCLE, E.EV_WIDTH), -1, dtype=np.int64)
    visits = np.zeros(ST.N_CIRCLE, dtype=np.int64)
    turns = progress_array(count, progress)
    batch, play = kernel(user)
    batch(play, np.uint64(cell_key), np.int64(start), *args, np.ascontiguousarray(mpar, dtype=np.float64), score,
          win, seat_out, game_out, goal_out, turns, events, visits, user, True, policies.search)
    return score, win, seat_out, game_out, goal_out, events, visits, turns


# -- the probe (benchmarks/bench_mcts.py) -----------------------------------------------------------------------


def probe(budgets: tuple[int, ...] = (100, 1000), positions: int = 20, seed: int = 1,
          players: int = 2, clock: Callable[[], float] = time.perf_counter) -> Any:
    """``tree.probe_table``'s rows, one per budget (``decision_ms``, ``iteration_us``, ``rollout_us``,
    ``ratio``), for the default mcts seat at ``positions`` positions of real games.

    Position i is game i of the probe's cell after (3 + 7 i) mod 28 decisions, every one made by the
    default mcts seat's playout policy (gain_minus_gift placing with fast), so the positions cover starts,
    drafts, taken and free placements, early and late (``decide_python``'s twin called from Python).
    """

    from boardsim.games import get  # the registry, not this package's __init__ (which imports this module)
    from boardsim.games.base import Seat

    if players != 2:
        raise ValueError("Circle the Wagons is 2 players only")
    game = get("wagons")
    prep = game.prepare(2, [Seat("mcts"), Seat("mcts")], None, game.card_table())
    rules, card_land, card_sym, card_goal, gp, pol, rl, scorers = game._args(prep)
    mpar = np.ascontiguousarray(prep["mcts"])
    fn = decide_python()
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    _town, scr, dr = ST.new_state()
    real, world = step.new_world(), step.new_world()
    buf = np.zeros(BRANCHING, dtype=np.int64)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    ppol = np.ascontiguousarray(np.tile(mpar[0, M_PLAY:], (2, 1)))
    key = np.uint64(rng.cell_key(seed, 0))
    tr0 = TR.new_tree(2)
    row = mpar[0].copy()

    def call(w: Any, tr: Any, iterations: int, state: np.ndarray) -> int:
        row[M_ITER] = iterations
        return int(fn(w, world, tr, buf, row, ppol, rules, tab, scr, dr, rl, scorers, state, stats, None, True,
                      policies.search))

    states = []
    for i in range(positions):
        state = rng.new_state(np.uint64(rng.game_seed(key, np.int64(i))))
        step.setup(real, key, i, rules, tab, dr, state)
        for _ in range((3 + 7 * i) % 28):
            if real.v[step.V_PHASE] == step.PH_OVER:
                break
            step.apply(real, call(real, tr0, 0, state), tab, scr)  # iterations 0: the playout policy's choice
        snap = step.new_world()
        step.copy_world(real, snap)
        states.append((snap, state.copy()))
    return TR.probe_table(states, lambda s: (s[0], s[1].copy()), lambda a, tr, it: call(a[0], tr, it, a[1]),
                          budgets, clock)


_PY: dict[str, Any] = {}


def decide_python() -> Any:
    """``decide`` compiled for calls from Python (find: policies.search passed as its function pointer;
    rules and custom seats' code left out), a twin of the engine's."""
    with _LOCK:
        if "decide" not in _PY:
            real = step.new_world()
            _t, scr, dr = ST.new_state()
            head = [numba.typeof(a) for a in (real, real, TR.new_tree(2), np.zeros(BRANCHING, dtype=np.int64),
                                              np.zeros(M_WIDTH), np.zeros((2, policies.POLICY_WIDTH)),
                                              np.zeros(RULES_WIDTH))]
            tab = types.NamedTuple((_C2I, _C2I, _C1I, _C2I), ST.Tables)
            sig = types.int64(*head, tab, numba.typeof(scr), numba.typeof(dr), RULE_ARRAYS, custom.SCORERS,
                              types.uint64[::1], types.float64[::1], types.none, types.boolean,
                              types.FunctionType(policies.SEARCH[True]))
            fn = decide
            if hasattr(decide, "py_func"):
                policies.search.compile(policies.SEARCH[True])
                fn = njit(cache=True, nogil=True)(decide.py_func)
                fn.compile(sig)
                fn.disable_compile()
            _PY["decide"] = fn
        return _PY["decide"]
