"""The search tree every game's ``mcts`` policy grows: a preallocated node pool, UCB1 selection over the
actions legal in the current determinization, and backpropagation of a per-seat reward.

Information-set MCTS (single observer, Cowling, Powley and Whitehouse 2012): one tree per searching
seat and decision.  Each iteration the game samples the hidden information again (a *determinization*)
consistently with what the searching seat has seen, walks the tree from the root with the actions legal
in that determinization, expands one node, plays a rollout and adds its reward to every node on the path.
A node's statistics are from the point of view of the seat that chose the action leading to it.

Because a child may be legal in some determinizations and not in others, UCB1 uses the child's
*availability* count (how often it was legal when its parent was visited) in place of the parent's visit
count (ISMCTS's "subset-armed bandit" rule).

The pool is fixed-size arrays with named columns (no allocation per node): ``links`` (int64, one row a
node: parent, first child, next sibling, action, player) and ``stats`` (float64: visits, availability,
reward sum).  Children are a sibling list in the order they were expanded, and a game lists its legal
actions best first (its heuristic's order), so the first untried action expanded is the heuristic's
favourite: with ``widening`` a node considers only its first ``ceil(k0 * visits ** alpha)`` legal
actions (progressive widening), which is how large action sets stay searchable.

Every function here is jitted (``cache=True, nogil=True``) and allocation-free apart from ``new_tree``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardsim.errors import BadInput
from boardsim.options import Option, resolve_options

# links columns
L_PARENT, L_CHILD, L_SIBLING, L_ACTION, L_PLAYER = range(5)
N_LINKS = 5
# stats columns
T_VISITS, T_AVAIL, T_VALUE = range(3)
N_STATS = 3
# a node's bytes in the pool: its links and stats rows
NODE_BYTES = 8 * (N_LINKS + N_STATS)
NONE = -1


class Tree(NamedTuple):
    """A node pool: ``size[0]`` nodes are in use; node 0 is the root."""

    links: np.ndarray  # int64 (nodes, N_LINKS)
    stats: np.ndarray  # float64 (nodes, N_STATS)
    size: np.ndarray  # int64 (1,)


@njit(cache=True, nogil=True)
def new_tree(n_nodes):
    """A pool of ``n_nodes`` nodes (a search of ``k`` iterations adds at most ``k`` nodes to its root)."""
    t = Tree(np.zeros((n_nodes, N_LINKS), dtype=np.int64), np.zeros((n_nodes, N_STATS), dtype=np.float64),
             np.zeros(1, dtype=np.int64))
    reset(t)
    return t


@njit(cache=True, nogil=True)
def reset(t):
    """An empty tree: only the root (no parent, no children, player -1)."""
    t.size[0] = 1
    t.links[0, L_PARENT] = NONE
    t.links[0, L_CHILD] = NONE
    t.links[0, L_SIBLING] = NONE
    t.links[0, L_ACTION] = NONE
    t.links[0, L_PLAYER] = NONE
    t.stats[0, T_VISITS] = 0.0
    t.stats[0, T_AVAIL] = 0.0
    t.stats[0, T_VALUE] = 0.0


@njit(cache=True, nogil=True)
def child(t, node, action):
    """The child of ``node`` reached by ``action``, or -1."""
    c = t.links[node, L_CHILD]
    while c != NONE:
        if t.links[c, L_ACTION] == action:
            return c
        c = t.links[c, L_SIBLING]
    return NONE


@njit(cache=True, nogil=True)
def add_child(t, node, action, player):
    """A new child of ``node`` for ``action`` chosen by ``player``; -1 when the pool is full."""
    n = t.size[0]
    if n >= t.links.shape[0]:
        return NONE
    t.size[0] = n + 1
    t.links[n, L_PARENT] = node
    t.links[n, L_CHILD] = NONE
    t.links[n, L_SIBLING] = t.links[node, L_CHILD]
    t.links[n, L_ACTION] = action
    t.links[n, L_PLAYER] = player
    t.stats[n, T_VISITS] = 0.0
    t.stats[n, T_AVAIL] = 0.0
    t.stats[n, T_VALUE] = 0.0
    t.links[node, L_CHILD] = n
    return n


@njit(cache=True, nogil=True)
def widened(t, node, n_legal, k0, alpha):
    """How many of a node's legal actions (best first) it may consider: all when ``k0 <= 0``, else
    ``ceil(k0 * (visits + 1) ** alpha)`` (progressive widening), at least 1 and at most ``n_legal``."""
    if k0 <= 0.0 or n_legal <= 1:
        return n_legal
    k = int(math.ceil(k0 * (t.stats[node, T_VISITS] + 1.0) ** alpha))
    return max(1, min(n_legal, k))


@njit(cache=True, nogil=True)
def descend(t, node, legal, n_legal, player, c):
    """One selection step at ``node`` whose legal actions (best first) are ``legal[:n_legal]``.

    Every existing child whose action is legal gains one availability.  If a legal action has no child
    yet, the first such action is expanded: returns (its new node, 1).  Otherwise returns (the child
    maximising UCB1 ``value / visits + c * sqrt(ln(avail) / visits)``, 0); ties go to the earlier legal
    action.  A full pool returns (-1, 1) with the first untried action left in ``legal[0]``'s place
    unexpanded: the caller rolls out from there.
    """
    untried = NONE
    best = NONE
    best_u = -np.inf
    for i in range(n_legal):
        a = legal[i]
        ch = child(t, node, a)
        if ch == NONE:
            if untried == NONE:
                untried = i
            continue
        t.stats[ch, T_AVAIL] += 1.0
        if untried != NONE:
            continue
        v = t.stats[ch, T_VISITS]
        u = t.stats[ch, T_VALUE] / v + c * math.sqrt(math.log(t.stats[ch, T_AVAIL]) / v)
        if u > best_u:
            best_u = u
            best = ch
    if untried != NONE:
        a = legal[untried]
        n = add_child(t, node, a, player)
        if n != NONE:
            t.stats[n, T_AVAIL] = 1.0
        return n, np.int64(1), a
    return best, np.int64(0), t.links[best, L_ACTION]


@njit(cache=True, nogil=True)
def backup(t, leaf, reward):
    """Add a rollout's ``reward`` (float64 per seat) to ``leaf`` and its ancestors: each node's visits
    grow by one and its value by the reward of the seat that chose the action leading to it."""
    n = leaf
    while n != NONE:
        t.stats[n, T_VISITS] += 1.0
        p = t.links[n, L_PLAYER]
        if p >= 0:
            t.stats[n, T_VALUE] += reward[p]
        n = t.links[n, L_PARENT]


@njit(cache=True, nogil=True)
def best_action(t):
    """The root's most visited action (ties: the higher mean reward, then the first expanded); -1 if none."""
    best = NONE
    best_v = -1.0
    best_m = -np.inf
    c = t.links[0, L_CHILD]
    while c != NONE:
        v = t.stats[c, T_VISITS]
        m = t.stats[c, T_VALUE] / v if v > 0 else -np.inf
        if v > best_v or (v == best_v and m >= best_m):  # the sibling list runs newest first
            best = t.links[c, L_ACTION]
            best_v = v
            best_m = m
        c = t.links[c, L_SIBLING]
    return best


# a search decision's statistics (root_choice's ``stats``, float64 (N_ROOT_STATS,)): the iterations run, the
# chosen child's visits and its mean reward
RS_ITERATIONS, RS_VISITS, RS_MEAN = range(3)
N_ROOT_STATS = 3


@njit(cache=True, nogil=True)
def root_choice(t, iterations, stats):
    """best_action, with ``stats`` (RS_*) the iterations run, the chosen child's visits and its mean reward."""
    a = best_action(t)
    ch = child(t, 0, a)
    stats[RS_ITERATIONS] = iterations
    stats[RS_VISITS] = t.stats[ch, T_VISITS]
    stats[RS_MEAN] = t.stats[ch, T_VALUE] / max(1.0, t.stats[ch, T_VISITS])
    return a


@njit(cache=True, nogil=True, inline="always")
def search(g, tr, buf, off, iterations, c, k0, alpha, reward, stats, world, walk, play, playout):
    """Every game's ISMCTS decision, ``iterations`` times: ``world(g, it)`` copies (determinizes) the root into a
    scratch world; down the tree ``walk(g, buf)`` plays the moves that are no node and gives (n, seat), n
    candidates keyed best first at ``buf[off:]`` (0: game or horizon over), ``play(g, buf, n, key)`` plays one
    (False: the game ended); after one expansion ``playout(g, reward)`` rolls out and scores each seat for
    ``backup``.  Returns root_choice's key; iterations < 0: -iterations bare rollouts (the probe's yardstick),
    -1.  The hooks are the game's jitted functions on its context ``g``, each typed as its dispatcher (direct
    calls); this loop is inlined into its caller (numba IR), since a dispatcher passed across a call is an
    address, which makes the caller uncacheable."""
    reset(tr)
    for it in range(abs(iterations)):  # one copy of each hook's code: they are inlined
        world(g, it)
        node = 0
        while iterations > 0:
            n, player = walk(g, buf)
            if n == 0:
                break
            n = widened(tr, node, n, k0, alpha)
            parent = node
            node, expanded, key = descend(tr, node, buf[off:], n, player, c)
            live = play(g, buf, n, key)
            if node < 0:  # the pool is full: roll out from the parent
                node = parent
                break
            if expanded or not live:
                break
        playout(g, reward)
        backup(tr, node, reward)
    return root_choice(tr, iterations, stats) if iterations > 0 else NONE


@njit(cache=True, nogil=True)
def pool(mpar, col):
    """A node pool for a cell's searches: ``mpar[:, col]`` is each seat's iterations (0: no search, seat_rows)."""
    return new_tree(max(1, int(mpar[:, col].max())) + 1)


@njit(cache=True, nogil=True)
def playout_rows(mpar, col, width):
    """Per seat, its rollouts' policy matrix: every row that seat's playout row ``mpar[p, col:col + width]``."""
    n = mpar.shape[0]
    out = np.zeros((n, n, width), dtype=np.float64)
    for p in range(n):
        for q in range(n):
            for j in range(width):
                out[p, q, j] = mpar[p, col + j]
    return out


# -- parameters, shared by every game's mcts policy -------------------------------------------------------------
MAX_ITERATIONS = 10_000_000
# a seat's pools (one per thread) may take at most this much memory; BOARDSIM_MCTS_MEMORY (bytes) overrides it
MEMORY_LIMIT = 2 * 1024**3


def params(default_iterations: int, playouts: tuple[str, ...], default_playout: str,
           default_c: float = 0.7, extra: tuple[Option, ...] = ()) -> tuple[Option, ...]:
    """The ``mcts`` policy's parameters: ``iterations``, ``c``, ``playout`` (one of the game's built-in
    policies other than ``mcts`` and the user policies), ``horizon``, then the game's own ``extra``."""
    return (
        Option("iterations", default_iterations, "search iterations per decision", "int", 1, MAX_ITERATIONS),
        Option("c", default_c, "UCB1 exploration constant (rewards are win shares in [0, 1])", "float", 0.0, 100.0),
        Option("playout", default_playout, "the built-in policy that plays the rollouts", "choice",
               choices=playouts),
        Option("horizon", 0, "rounds a rollout plays before it is scored by the game's evaluation (0 = to the end)",
               "int", 0, 1000),
        *extra,
    )


def seat_rows(seats: Sequence[Any], pol: Any, layout: Any, branching: int, threads: int,
              playout_row: Callable[[Mapping[str, Any]], np.ndarray],
              extra: Callable[[Mapping[str, Any], np.ndarray], None] | None = None) -> np.ndarray:
    """Every seat's mcts row (zeros for other seats), in the game's ``layout`` (its mcts module's ``M_*``
    columns): iterations, c, horizon, opponents (1 = playout), the game's ``extra`` fields, then the playout
    policy's row from ``playout_row``; each search seat's pools checked against the memory limit."""
    out = np.zeros((len(seats), layout.M_WIDTH), dtype=np.float64)
    for i, seat in enumerate(seats):
        if seat.policy != "mcts":
            continue
        try:
            v = resolve_options(pol.params, seat.params)
        except BadInput as e:  # keyed by the parameter's full path, as the scenario spells it
            raise e.under(f"seats[{i}].params") from None
        row = out[i]
        row[layout.M_ITER] = v["iterations"]
        row[layout.M_C] = v["c"]
        row[layout.M_HOR] = v["horizon"]
        row[layout.M_OPP] = v["opponents"] == "playout"
        if extra is not None:
            extra(v, row)
        row[layout.M_PLAY:] = playout_row(v)
        check_pool(i, int(v["iterations"]), branching, 1, threads)
    return out


def probe_table(positions: Sequence[Any], fresh: Callable[[Any], Any], decide: Callable[[Any, Any, int], Any],
                budgets: Sequence[int], clock: Callable[[], float]) -> Any:
    """Every game's ``mcts.probe`` timing, one row per budget (a DataFrame): ``decision_ms``, the mean time of
    one search at ``budget`` iterations over ``positions``; ``iteration_us`` (decision time / budget);
    ``rollout_us``, one bare rollout of the playout policy from the same positions (``decide`` with
    ``-reps`` iterations runs ``reps`` rollouts), timed in the same run; and ``ratio`` (iteration_us /
    rollout_us).  ``fresh(position)`` gives the argument a decision starts from (a copy, made outside the
    timing); ``decide(arg, tree, iterations)`` is the game's own engine ``decide``, called from Python (the first
    call compiles it); ``clock`` times both: wall seconds by default, ``time.thread_time`` for CPU seconds."""
    import pandas as pd

    out = []
    for b in (int(x) for x in budgets):
        tr = new_tree(b + 1)
        reps = max(10, b // 10)
        spent = roll = 0.0
        for iterations in (b, -reps):
            for pos in positions:
                arg = fresh(pos)
                t0 = clock()
                decide(arg, tr, iterations)
                took = clock() - t0
                spent, roll = (spent + took, roll) if iterations > 0 else (spent, roll + took)
        decision = spent / len(positions)
        rollout = roll / (len(positions) * reps)
        out.append({"budget": b, "decision_ms": 1e3 * decision, "iteration_us": 1e6 * decision / b,
                    "rollout_us": 1e6 * rollout, "ratio": (decision / b) / rollout})
    return pd.DataFrame(out)


def memory_limit() -> int:
    raw = os.environ.get("BOARDSIM_MCTS_MEMORY")
    return int(raw) if raw and raw.isdigit() else MEMORY_LIMIT


def pool_bytes(iterations: int, branching: int, depth: int) -> int:
    """One search's preallocated memory: ``iterations + 1`` nodes and a legal-action buffer of
    ``branching`` actions for each of ``depth`` levels."""
    return (iterations + 1) * NODE_BYTES + branching * depth * 8


def check_pool(seat: int, iterations: int, branching: int, depth: int, threads: int) -> None:
    """BadInput ``seats[seat].params.iterations`` when ``threads`` pools would exceed the memory limit."""
    threads = max(1, threads)
    one = pool_bytes(iterations, branching, depth)
    limit = memory_limit()
    if one * threads > limit:
        raise BadInput(f"seats[{seat}].params.iterations",
                       f"got {iterations:,}: {threads} search pools of {one / 2**20:,.0f} MiB "
                       f"exceed the {limit / 2**30:.1f} GiB limit (BOARDSIM_MCTS_MEMORY); allowed: at most "
                       f"{max_iterations(branching, depth, threads):,} iterations")


def max_iterations(branching: int, depth: int, threads: int) -> int:
    per = memory_limit() // max(1, threads) - branching * depth * 8
    return max(0, min(MAX_ITERATIONS, per // NODE_BYTES - 1))
