"""Recording Circle the Wagons decisions for a learned policy (issue 40): what a ``custom`` scorer would be
shown at each draft, and what the acting seat's policy chose there.

``record`` plays a prepared cell's games through the step interface (step.py), each seat choosing by its
own policy exactly as ``Wagons.play_stepped`` (mcts.play_range) does, and so with the same games as
``Wagons.play``.  At every draft with at least two candidates it records, for the seat to move:

- the decision view a custom scorer receives (decide.py's ``_custom_pick``: ``dr.features[:N_DECISION]``
  and ``dr.cand[:look]``), read back from decide.draft itself, never recomputed here;
- the acting policy's distribution over those candidate rows (``target``): an ``mcts`` seat's root visit
  shares of its draft actions (action k, "skip k cards", is candidate row k: the row decide.py's scorer
  pick k applies), any other policy 1.0 on the row it took.

Whose view: a ``custom`` seat's own (its placement, goal weight and lookahead: the very arrays its
scorer got).  Any other seat is shown a custom seat's view computed with ``view``'s placement and
goal weight (the custom policy's defaults, greedy and 1.0, unless given) and the seat's own lookahead
(an mcts seat's ``lookahead``), so that each of its choices is one of the rows.  That view is computed
by one more call of decide.draft with a custom row in that seat's place and ``custom.no_scorer`` as its
scorer; the draft scratch (``Draft``) is put back afterwards, so the seat's real decision sees exactly
what it sees in ``play``: decide.place_taken and place_free reuse the spots a draft cached in ``dr.spot``,
and mcts.decide's first rollouts read whatever flags the real game left there (without the restore, 2 of
8 probed searches gave other root statistics).  The extra call draws no random numbers (a custom draft
values cards greedily or with fast, never at random).

Placements and P2's starting card are not in the scorer's view: they are not recorded, but the acting
seat still makes them (an mcts seat searches them), so every game is the teacher's game.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit, types

from boardsim import rng
from boardsim import tree as TR
from boardsim.errors import BadInput
from boardsim.games.base import Prepared, Seat
from boardsim.games.wagons import decide as D
from boardsim.games.wagons import mcts, policies, step
from boardsim.games.wagons import state as ST
from boardsim.games.wagons.kernel import TABLES

KINDS = ("draft",)
K_DRAFT = 0
# the view parameters a non-custom seat's decision view may be computed with (a custom seat's own params)
VIEW_PARAMS = ("placement", "goal_weight")


@njit(cache=True, nogil=True)
def _copy_draft(src, dst):
    """dst = src, every array of a Draft scratch."""
    dst.spot[:] = src.spot
    dst.gifts[:] = src.gifts
    dst.gain[:] = src.gain
    dst.features[:] = src.features
    dst.cand[:, :] = src.cand
    dst.scores[:] = src.scores
    dst.stack[:] = src.stack
    dst.own[:, :] = src.own


@njit(cache=True, nogil=True)
def _take_view(dr, look, i, features, cand, rows):
    """Row i of the record: the view decide.draft just built for a scorer (rows beyond look stay 0)."""
    for f in range(D.N_DECISION):
        features[i, f] = dr.features[f]
    for k in range(look):
        for c in range(ST.N_COLUMNS):
            cand[i, k, c] = dr.cand[k, c]
    rows[i] = look


@njit(cache=True, nogil=True)
def _visit_shares(tr, look, out, value):
    """The search root's visit counts of its draft actions (k = candidate row k), normalised to sum 1, and each
    action's mean reward (its value over its visits) into ``value``."""
    total = 0.0
    c = tr.links[0, TR.L_CHILD]
    while c != TR.NONE:
        k = tr.links[c, TR.L_ACTION]
        if 0 <= k < look:
            out[k] = tr.stats[c, TR.T_VISITS]
            value[k] = tr.stats[c, TR.T_VALUE] / out[k] if out[k] > 0.0 else 0.0
            total += out[k]
        c = tr.links[c, TR.L_SIBLING]
    if total > 0.0:
        for k in range(look):
            out[k] /= total


@njit(cache=True, nogil=True)
def record_range(key, first, count, rules, card_land, card_sym, card_goal, gp, pol, rl, scorers, view, mpar, score,
                 win, features, cand, rows, target, value, chosen, game, seat, user, fast, find):
    """Games first .. first+count-1 of cell ``key``, as mcts.play_range plays them, recording every draft with
    at least two candidates (arrays as ``record``'s, at least 15 rows a game); returns the rows written.
    ``view`` is ``pol`` with each non-custom seat's row replaced by the custom row its view is built with."""
    _town, scr, dr = ST.new_state()
    keep = ST.new_state()[2]
    tab = ST.Tables(card_land, card_sym, card_goal, gp)
    real = step.new_world()
    world = step.new_world()
    tr = TR.pool(mpar, mcts.M_ITER)
    buf = np.zeros(mcts.BRANCHING, dtype=np.int64)
    # each seat's playout rows (mcts.play_range's: both seats roll out with the searching seat's playout policy)
    ppol = TR.playout_rows(mpar, mcts.M_PLAY, policies.POLICY_WIDTH)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    tot = np.zeros(2, dtype=np.int64)
    n = 0
    for g in range(count):
        state = rng.new_state(rng.game_seed(key, first + g))
        step.setup(real, key, first + g, rules, tab, dr, state)
        while real.v[step.V_PHASE] != step.PH_OVER:
            p = step.to_move(real)
            code = int(pol[p, policies.COL_CODE])
            look = min(int(view[p, policies.COL_LOOK]), ST.N_CIRCLE - real.v[step.V_T])
            rec = real.v[step.V_PHASE] == step.PH_DRAFT and look >= 2
            if rec:
                for k in range(target.shape[1]):
                    target[n, k] = 0.0
                    value[n, k] = 0.0
                if code != policies.CUSTOM:
                    # the view a custom seat would get here, from decide.draft itself; then the scratch as it
                    # was, so that the real decision below is play's
                    _copy_draft(dr, keep)
                    step.builtin(real, view, rl, scorers, tab, scr, dr, state, user, fast, find)
                    _take_view(dr, look, n, features, cand, rows)
                    _copy_draft(keep, dr)
            if code == policies.MCTS:
                a = mcts.decide(real, world, tr, buf, mpar[p], ppol[p], rules, tab, scr, dr, rl, scorers, state, stats,
                                user, fast, find)
                if rec:
                    _visit_shares(tr, look, target[n], value[n])
            else:
                a = step.builtin(real, pol, rl, scorers, tab, scr, dr, state, user, fast, find)
                if rec:
                    if code == policies.CUSTOM:  # the arrays its scorer was just given
                        _take_view(dr, look, n, features, cand, rows)
                    target[n, a] = 1.0
            if rec:
                chosen[n] = a
                game[n] = first + g
                seat[n] = p
                n += 1
            step.apply(real, a, tab, scr)
        # step.finish's score and win shares
        step.scores(real, tab, scr, tot)
        score[g, 0] = tot[0]
        score[g, 1] = tot[1]
        step.win_shares(real, rules, tot[0], tot[1], win[g])
    return n


_C1I, _C2I, _C2F = types.int64[::1], types.int64[:, ::1], types.float64[:, ::1]
SIGNATURE = types.int64(types.uint64, types.int64, types.int64, *TABLES, _C2F, _C2F, _C2I, _C2F, _C2F,
                        types.float64[:, :, ::1], _C1I, _C2F, _C2F, _C1I, _C1I, _C1I, types.boolean, types.boolean,
                        types.FunctionType(policies.SEARCH[True]))
_LOCK = threading.Lock()
_READY: list[Any] = []


def _kernel() -> Any:
    """record_range compiled (or loaded from the cache) once for SIGNATURE: the scorers and ``find`` are then
    passed as function pointers, so a new scorer never compiles the recorder again."""
    with _LOCK:
        if not _READY:
            fn = record_range
            if hasattr(fn, "compile"):  # not under NUMBA_DISABLE_JIT
                policies.search.compile(policies.SEARCH[True])
                fn.compile(SIGNATURE.args)
                fn.disable_compile()
            _READY.append(fn)
        return _READY[0]


def view_rows(prepared: Prepared, view: Mapping[str, Any] | None = None) -> np.ndarray:
    """The policy matrix ``record`` builds the decision views with: a custom seat's own row; for any other
    seat a custom row with ``view``'s placement and goal weight (the custom policy's defaults) and the seat's
    own lookahead (an mcts seat's ``lookahead``: its draft candidates)."""
    given = dict(view or {})
    for name in given:
        if name not in VIEW_PARAMS:
            raise BadInput(f"view.{name}", f"unknown view parameter (known: {', '.join(VIEW_PARAMS)})")
    pol = np.asarray(prepared["policies"], dtype=np.float64)
    base = policies.policy_matrix([Seat("custom", given)])[0]
    base[policies.COL_NEEDS] = D.NEED_ALL  # a custom seat gets every feature (decide.fill_needs)
    out = pol.copy()
    mpar = np.asarray(prepared["mcts"])
    for p in range(pol.shape[0]):
        code = int(pol[p, policies.COL_CODE])
        if code == policies.CUSTOM:
            continue
        out[p] = base
        out[p, policies.COL_LOOK] = mpar[p, mcts.M_LOOK] if code == policies.MCTS else pol[p, policies.COL_LOOK]
    return np.ascontiguousarray(out)


def view_names(prepared: Prepared | None = None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(feature names, candidate column names, decision kind names) of ``record``'s arrays."""
    return D.DECISION_FEATURES, D.CANDIDATE_COLUMNS, KINDS


def record(prepared: Prepared, cell_key: int, start: int, count: int,
           view: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Play games start .. start+count-1 of a prepared 2-player cell (``play``'s games, seeded as ``play``
    seeds them) and record every draft decision with at least two candidates, for every seat.

    Returns ``features`` (N, 25) and ``candidates`` (N, R, 4) float64, the view a custom scorer receives
    (rows past ``rows[i]`` zero; R the most candidates one draft of this cell can have: the largest view
    lookahead), ``rows``, ``target`` (N, R) float64 (the acting policy's distribution over the rows: an mcts
    seat's root visit shares, else 1.0 on its pick), ``chosen`` (the row taken), ``game`` (the cell's game
    index), ``seat`` and ``kind`` (0: draft) int64 (N,); and the games' ``score`` (count, 2) int64 and
    ``win`` (count, 2) float64.  ``view`` (placement, goal_weight) sets how a non-custom seat's view values
    cards (module docstring).  The numba call releases the GIL: threads may record disjoint game ranges.
    """
    from boardsim.games.wagons import GAME  # the package imports this module's siblings first

    if prepared.n_players != 2:
        raise BadInput("players", "Circle the Wagons is 2 players only")
    args = GAME._args(prepared)
    vw = view_rows(prepared, view)
    mpar = np.ascontiguousarray(prepared["mcts"], dtype=np.float64)
    width = max(1, int(vw[:, policies.COL_LOOK].max()))
    count = int(count)
    cap = count * ST.N_CIRCLE  # a game has at most 15 drafts
    score = np.zeros((count, 2), dtype=np.int64)
    win = np.zeros((count, 2), dtype=np.float64)
    features = np.zeros((cap, D.N_DECISION), dtype=np.float64)
    cand = np.zeros((cap, width, ST.N_COLUMNS), dtype=np.float64)
    rows = np.zeros(cap, dtype=np.int64)
    target = np.zeros((cap, width), dtype=np.float64)
    value = np.zeros((cap, width), dtype=np.float64)
    chosen = np.zeros(cap, dtype=np.int64)
    game = np.zeros(cap, dtype=np.int64)
    seat = np.zeros(cap, dtype=np.int64)
    n = int(_kernel()(np.uint64(cell_key), np.int64(start), np.int64(count), *args, vw, mpar, score, win, features,
                      cand, rows, target, value, chosen, game, seat, True, True, policies.search))
    return {"features": features[:n].copy(), "candidates": cand[:n].copy(), "rows": rows[:n].copy(),
            "target": target[:n].copy(), "value": value[:n].copy(), "chosen": chosen[:n].copy(),
            "game": game[:n].copy(), "seat": seat[:n].copy(), "kind": np.full(n, K_DRAFT, dtype=np.int64),
            "score": score, "win": win}


__all__ = ["KINDS", "record", "view_names", "view_rows"]
