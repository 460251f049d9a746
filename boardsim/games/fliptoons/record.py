"""FlipToons decision recorder (issue 40): the decision view of every market decision of ``play``'s games, with the
acting seat's choice, as training data for a policy that scores the candidate matrix (a ``custom`` scorer).

``record`` plays games of a prepared cell through the step interface (step.py), every seat choosing by its own
policy exactly as the engines do (decide.choose, mcts.decide, lookahead.lookahead_choose), so the games are
``play``'s games.  At each market decision where a custom scorer would be asked (two or more legal actions) it keeps
one row per decision, for every seat:

- ``features`` (N, F): what a scorer receives as ``features`` (the decision features, then ``count_<Card>``);
- ``candidates`` (N, R, C): the candidate matrix (decide.CANDIDATE_COLUMNS), ``rows`` (N,) rows of it, zeros after;
- ``target`` (N, R): the acting seat's distribution over the rows: an ``mcts`` seat's root visit counts, each search
  action counted on the row of its market action (a Pig's deck or a Butterfly's free dismissal is a sub-choice of
  that row), normalised to sum 1; any other policy (and an mcts seat hiring a ``favour`` card without a search)
  1.0 on the row it took;
- ``chosen``, ``game``, ``seat``, ``kind`` (N,): the row taken, the cell's game index, the seat, the decision kind
  (0, the market action: FlipToons has one);

plus ``score`` and ``win`` (count, P) of the games.  The view is built by decide.py's own ``_user_choice`` (the
function that builds it for a rules or custom seat), on a second set of its buffers asked for every feature and
no rules, so the recorded row is exactly what a scorer seat would receive, whatever the acting seat's policy.
Row r's action is ``legal``' r-th (decide.py's ``U.actions`` lists them in that order; the recorder checks
it at every decision), so a scorer putting its top score on row r plays the action recorded on row r.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit, types

from boardsim import tree as TR
from boardsim.games.base import Prepared
from boardsim.games.fliptoons import step
from boardsim.games.fliptoons.decide import (
    CANDIDATE_COLUMNS,
    DECISION_FEATURES,
    ND,
    NX,
    RF_ALL,
    _user_choice,
    choose,
    count_feature,
    users,
)
from boardsim.games.fliptoons.engine import _final_flip, _start_round
from boardsim.games.fliptoons.grid import _score_player
from boardsim.games.fliptoons.kernel import (
    _CONSTS,
    _FNS,
    _USERS,
    FUNCTIONS,
    PHASE_FN,
    SCORE_FN,
    _write_row,
    rule_arrays,
    set_up_game,
)
from boardsim.games.fliptoons.lookahead import lookahead_choose
from boardsim.games.fliptoons.mcts import EXPAND, M_ITER, SUB, apply_action, decide, playout_policies
from boardsim.games.fliptoons.policies import POLICY_CODE
from boardsim.games.fliptoons.state import POL_LOOKAHEAD, POL_MCTS, POL_RULES, Consts
from boardsim.games.fliptoons.step import to_move

KIND_NAMES = ("market",)  # the decision kinds: FlipToons asks a scorer only for its market action
KIND_MARKET = 0
# _record_range's progress vector: the games finished, the rows written (in and out), and an error code
PR_GAMES, PR_ROWS, PR_ERROR = range(3)
ERR_VIEW, ERR_ACTION = 1, 2  # the view's actions are not legal'; a chosen or searched action has no row
ROWS_PER_GAME = 16  # the buffers' first size, per game and seat; they double when a game would pass their end


def view_names(prepared: Prepared) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(the feature names, the candidate columns, the decision kinds) of ``record``'s arrays."""
    names = getattr(prepared, "card_names", None)
    if names is None:
        raise ValueError("not a prepared FlipToons cell (it has no card names)")
    return DECISION_FEATURES + tuple(count_feature(n) for n in names), CANDIDATE_COLUMNS, KIND_NAMES


@njit(cache=True, nogil=True)
def _base_action(a):
    """The market action (step.legal') of a search action: its sub-choice (mcts.SUB) dropped."""
    return a - SUB * (a // SUB) if a >= SUB else a


@njit(cache=True, nogil=True)
def _row_of(a, legal, n):
    """The row of market action ``a`` among ``legal[:n]``, -1 if none."""
    for j in range(n):
        if legal[j] == a:
            return np.int64(j)
    return np.int64(-1)


@njit(cache=True, nogil=True)
def _visit_shares(tr, legal, n, out, value):
    """The root's visits of ``tr`` summed per row (the search actions' market actions among ``legal[:n]``) into
    ``out[:n]``, normalised to sum 1, and each row's mean reward (its children's values over their visits) into
    ``value[:n]``.  Returns False when an action has no row or no visit was made."""
    for j in range(n):
        out[j] = 0.0
        value[j] = 0.0
    total = 0.0
    c = tr.links[0, TR.L_CHILD]
    while c != TR.NONE:
        j = _row_of(_base_action(tr.links[c, TR.L_ACTION]), legal, n)
        if j < 0:
            return False
        v = tr.stats[c, TR.T_VISITS]
        out[j] += v
        value[j] += tr.stats[c, TR.T_VALUE]
        total += v
        c = tr.links[c, TR.L_SIBLING]
    if total <= 0.0:
        return False
    for j in range(n):
        value[j] = value[j] / out[j] if out[j] > 0.0 else 0.0
        out[j] /= total
    return True


@njit(cache=True, nogil=True)
def _failed(progress, i, code):
    progress[PR_GAMES] = i
    progress[PR_ERROR] = code
    return np.int64(i)


@njit(cache=True, nogil=True)
def _record_range(cell_key, start, count, P, cards, rules, prices, pol, prio, val, maxc, toon_size,
                  ops, args, meta, span, params, rule_flags, seat_flags, scorers, mpar, f_round, f_final, f_score,
                  score, win, features, candidates, rows, target, value, chosen, game, seat, progress):
    """Games progress[PR_GAMES]..count-1 of the cell's games start..start+count-1, recorded from row
    progress[PR_ROWS] on.  Stops before a game whose rows would pass the buffers' end (progress then says where
    to go on with larger buffers: that game is played again from its start) or at an error (PR_ERROR)."""
    C = Consts(cards, rules, prices, pol, prio, val)
    seat_rules = (ops, args, meta, span, params, rule_flags, seat_flags)
    K = cards.shape[0]
    Wd = prices.shape[0]
    # the view's buffers: no seat has rules (its choice is passing at once, never used) and every seat computes
    # every feature, as a custom seat does
    V = users((ops, args, meta, np.zeros_like(span), params, rule_flags,
               np.full(seat_flags.shape[0], RF_ALL, dtype=np.int64)), scorers, K, Wd, maxc)
    tr = TR.pool(mpar, M_ITER)
    legal = np.empty(EXPAND * (Wd + maxc + 1), dtype=np.int64)  # the search's buffer (mcts.decide overwrites it)
    mine = np.empty(Wd + maxc + 1, dtype=np.int64)  # legal' list at the decision
    ppol = playout_policies(mpar, P)
    rng2 = np.empty(4, dtype=np.uint64)
    reward = np.zeros(P, dtype=np.float64)
    st = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    game_out = np.zeros((score.shape[0], 6), dtype=np.int64)  # _write_row's other outputs, not returned
    seat_out = np.zeros((score.shape[0], P, 4), dtype=np.int64)
    every = (np.int64(1) << P) - 1  # stop at every seat's decision, as kernel.play_stepped does
    cap = rows.shape[0]
    nf = ND + K
    pos = progress[PR_ROWS]
    for i in range(progress[PR_GAMES], count):
        first = pos
        S, X, U, L, O, rng = set_up_game(cell_key, np.int64(start + i), P, C, seat_rules, scorers, maxc, toon_size)
        while step.advance(S, C, O, X, U, rng, every, f_round, f_final, f_score) == 1:
            p = to_move(S)
            n = step.legal(p, S, C, mine)
            keep = n >= 2  # a scorer is asked only then (decide._user_choice)
            r = pos
            if keep:
                if pos >= cap:  # full: the caller grows the buffers and plays this game again
                    progress[PR_GAMES] = i
                    progress[PR_ROWS] = first
                    return np.int64(i)
                _user_choice(p, np.int64(POL_RULES), S, C, V)  # the view only (V has no rules): no generator draw
                for j in range(n):
                    if V.actions[j] != mine[j]:
                        return _failed(progress, i, ERR_VIEW)
                for f in range(nf):
                    features[r, f] = V.features[f]
                for j in range(n):
                    for x in range(NX):
                        candidates[r, j, x] = V.candidates[j, x]
                rows[r] = n
                game[r] = start + i
                seat[r] = p
                for j in range(target.shape[1]):
                    target[r, j] = 0.0
                    value[r, j] = 0.0
                pos += 1
            code = int(pol[p, POLICY_CODE])
            searched = False
            if code == POL_MCTS:  # as mcts.play_range: the seat's playout policy in every seat of its rollouts
                C2 = Consts(cards, rules, prices, ppol[p], prio, val)
                a = decide(p, S, C, C2, X, U, L, tr, legal, mpar[p], rng, rng2, reward, st, f_round, f_final,
                           f_score)
                # st is cleared by decide and set by a search only (not a favour hire or a forced pass)
                if keep and st[TR.RS_ITERATIONS] > 0:
                    if not _visit_shares(tr, mine, n, target[r], value[r]):
                        return _failed(progress, i, ERR_ACTION)
                    searched = True
            elif code == POL_LOOKAHEAD:
                a = lookahead_choose(p, S, C, X, U, L, rng, f_round, f_final, f_score)
            else:
                a = choose(p, S, C, X, U, rng)
            if keep:
                j = _row_of(_base_action(a), mine, n)
                if j < 0:
                    return _failed(progress, i, ERR_ACTION)
                chosen[r] = j
                if not searched:
                    target[r, j] = 1.0
            apply_action(p, a, S, C, O, rng)  # a plain market action, or the search's with its sub-choice
        _write_row(np.int64(i), S, score, win, game_out, seat_out)
    progress[PR_GAMES] = count
    progress[PR_ROWS] = pos
    return np.int64(count)


_F64_1, _F64_2, _F64_3 = types.float64[::1], types.float64[:, ::1], types.float64[:, :, ::1]
_I64_1, _I64_2 = types.int64[::1], types.int64[:, ::1]
RECORD_SIG = types.int64(types.uint64, types.int64, types.int64, types.int64, *_CONSTS, *_USERS, _F64_2, *_FNS,
                         _I64_2, _F64_2, _F64_2, _F64_3, _I64_1, _F64_2, _F64_2, _I64_1, _I64_1, _I64_1, _I64_1)
_LOCK = threading.Lock()


def _compiled() -> Any:
    """_record_range compiled for RECORD_SIG (its one signature: the scorers and phase functions travel as
    function pointers, so a new scorer never compiles the recorder again)."""
    with _LOCK:
        if hasattr(_record_range, "disable_compile") and not _record_range.signatures:
            if not _score_player.signatures:  # the functions the recorder calls through pointers (FUNCTIONS)
                _score_player.compile(SCORE_FN)
                _start_round.compile(PHASE_FN)
                _final_flip.compile(PHASE_FN)
            _record_range.compile(RECORD_SIG)
            # a call with dispatchers (scorers, FUNCTIONS) converts them to the signature's pointers
            _record_range.disable_compile()
    return _record_range


def _buffers(n: int, F: int, R: int) -> list[np.ndarray]:
    """features, candidates, rows, target, value, chosen, game, seat for ``n`` decisions."""
    return [np.zeros((n, F)), np.zeros((n, R, NX)), np.zeros(n, dtype=np.int64), np.zeros((n, R)), np.zeros((n, R)),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)]


def record(prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Games ``start..start+count-1`` of a prepared FlipToons cell (``play``'s games: the same seeds and choices),
    with every market decision a custom scorer would be asked (two or more legal actions), of every seat.

    Returns ``features`` (N, F), ``candidates`` (N, R, C), ``rows``, ``target`` (N, R), ``chosen``, ``game``,
    ``seat``, ``kind`` (the module doc) and ``score``, ``win`` (count, P); ``view_names`` names F, C and the
    kinds.  R is the most rows a decision can have (market width + the card capacity of a grid + 1, decide.users'
    buffer).  Deterministic: the same arguments give the same arrays."""
    from boardsim import games

    if count < 0 or start < 0:
        raise ValueError(f"start and count must be >= 0 (got {start}, {count})")
    game_obj = games.get("fliptoons")  # through the registry: this package's __init__ defines the game
    P = prepared.n_players
    K = prepared["cards"].shape[0]
    maxc, toon_size = (int(x) for x in prepared["sizes"])
    R = prepared["prices"].shape[0] + maxc + 1
    F = ND + K
    consts = tuple(np.ascontiguousarray(prepared[k]) for k in ("cards", "rules", "prices", "policies", "priority",
                                                                "values"))
    users_ = (*rule_arrays(prepared), game_obj.seat_scorers(prepared.seats))
    mpar = np.ascontiguousarray(prepared["mcts"], dtype=np.float64)
    score = np.zeros((count, P), dtype=np.int64)
    win = np.zeros((count, P), dtype=np.float64)
    bufs = _buffers(max(16, count * P * ROWS_PER_GAME), F, R)
    progress = np.zeros(3, dtype=np.int64)
    fn = _compiled()
    while True:
        fn(np.uint64(cell_key), np.int64(start), np.int64(count), np.int64(P), *consts, np.int64(maxc),
           np.int64(toon_size), *users_, mpar, *FUNCTIONS, score, win, *bufs, progress)
        if progress[PR_ERROR]:
            what = ("the decision view's actions differ from legal'" if progress[PR_ERROR] == ERR_VIEW
                    else "a chosen or searched action is not among the legal actions")
            raise RuntimeError(f"game {start + int(progress[PR_GAMES])}: {what}")
        if progress[PR_GAMES] >= count:
            break
        # full: double the buffers, keeping the finished games' rows, and play the interrupted game again
        n = int(progress[PR_ROWS])
        grown = _buffers(2 * bufs[0].shape[0], F, R)
        for new, old in zip(grown, bufs, strict=True):
            new[:n] = old[:n]
        bufs = grown
    n = int(progress[PR_ROWS])
    features, candidates, rows, target, value, chosen, game, seat = (b[:n].copy() for b in bufs)
    return {"features": features, "candidates": candidates, "rows": rows, "target": target, "value": value,
            "chosen": chosen,
            "game": game, "seat": seat, "kind": np.full(n, KIND_MARKET, dtype=np.int64), "score": score, "win": win}
