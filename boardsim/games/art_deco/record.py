"""Art Deco's decision recorder: every decision a ``custom`` scorer would be asked, with what a seat chose there.

``record`` plays a cell's games through the step interface (step.py), each seat choosing by its own policy
as ``ArtDeco.play`` has it choose (an ``mcts`` seat through ``mcts.decide``, every other seat through
``step.builtin``, i.e. decide.py), from the seeds ``play`` uses, so the games are ``play``'s games exactly.
At each decision where a custom scorer would be asked (decide.open_bid, open_buy and open_sell reach their
call to the scorer: a bid whose minimum the seat may pay, a shown card it can pay, a sale with a sellable
card), whatever the acting seat's policy, it keeps one row:

- the decision view a custom scorer gets there: its feature vector (decide.FEATURES) and candidate matrix
  (decide.COLUMNS), built by decide.py itself (the seat is made a custom seat for that one call, with a
  scorer that does nothing, then restored);
- the acting policy's distribution over the candidate rows (``target``): an ``mcts`` seat's root visit
  counts, each search action put on the row a scorer picks to take it (pass, leave and keep on row 0; every
  bid amount, the minimum and the jump bids alike, on the bid row, which a scorer that picks it bids the
  minimum with; buy on the buy row; a sale of slot k on that card's row), normalised; any other policy's
  action as 1.0 on its row.  A decision the search plays without searching (one candidate: under the
  default sale factor a sale is never a candidate, so an mcts seat keeps without a search) gives its action
  as 1.0 too;
- the row of the action taken (``chosen``), the game, the seat and the decision kind.

Every sale is recorded, also in cells where no seat may sell: there the engine skips the sale phase (each
seat would keep), but a custom seat would be asked, so the recorder stops at each seat's sale turn and
records that it keeps.  Stopping there draws the same numbers and changes no choice (the built-ins that can
never sell keep, an mcts seat keeps without a search), so the games stay ``play``'s.

The games run in chunks (``_record_games``) of as many whole games as a buffer of rows holds, the buffer
sized from an upper bound on one game's decisions, and are joined at the end.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit, types

from boardsim import custom, rng
from boardsim import tree as TR
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import mcts, step
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.engine import collection_capacity
from boardsim.games.art_deco.kernel import RULE_ARRAYS, RULE_TABLES, inputs
from boardsim.games.art_deco.state import A_LEADER, CODE_LIMITS, CODE_POLICY, CODE_SELLS
from boardsim.games.base import Prepared

KINDS = ("bid", "buy", "sell")  # the ``kind`` column's values, decide.BID, BUY, SELL (the ``decision`` feature)
# rows per chunk of games (at least one game's bound): 16k rows of a 31-row candidate matrix take 24 MiB
CHUNK_ROWS = 1 << 14


def view_names(prepared: Prepared) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(feature names, candidate column names, decision kind names): ``record``'s features columns, its
    candidates' last axis and its ``kind`` values, in order (the same for every Art Deco cell)."""
    return tuple(D.FEATURES), tuple(D.COLUMNS), KINDS


def max_rows(rules: np.ndarray, n_deck: int) -> int:
    """The most candidate rows a decision can have: 2 for a bid or buy, 1 + the sellable cards for a sale.
    A card sellable at round r's sale was dealt or acquired in rounds 1 .. r - 1, at most 1 + direct_buy_max
    a round, and is one of the deck's cards."""
    sellable = int(rules[R.R_HAND]) + (int(rules[R.R_ROUNDS]) - 1) * (1 + int(rules[R.R_DIRECT_MAX]))
    return max(2, 1 + min(n_deck, sellable))


def game_bound(rules: np.ndarray, deck: np.ndarray, n_players: int) -> int:
    """An upper bound on one game's recorded decisions: in a round, each bid raises the high bid within
    [0, value + bid_ceiling] and each seat passes at most once, the winner decides on at most
    direct_buy_max cards and each seat has one sale turn."""
    bids = int(deck.max()) + int(rules[R.R_CEILING]) + 1 + n_players
    return int(rules[R.R_ROUNDS]) * (bids + int(rules[R.R_DIRECT_MAX]) + n_players)


@njit(cache=True, nogil=True)
def decision_view(w, rules, tables, rl, blank, s):
    """Fill ``w.scratch.feats[s]`` and ``w.scratch.cand`` with the view decide.py gives a custom seat ``s``
    at the current decision; returns its candidate rows, 0 when such a seat would not be asked.

    decide.py builds the view itself: the seat's policy code is set to ``custom`` for the call (so a rules
    seat is not interpreted) and the leader it watches to the one a custom seat watches (decide.auction_start
    sets it only for the blocker and asked seats; standings do not change during an auction, so it is the
    leader at the auction's start), both restored after.  ``blank`` scorers write zeros: the call's own
    choice (row 0) is dropped.  A view is written only when the scorer is reached, which the ``decision``
    and ``sellable`` features then show.
    """
    scratch = w.scratch
    f = scratch.feats[s]
    n_players = w.st.shape[0]
    code = scratch.codes[s, CODE_POLICY]
    limits = scratch.codes[s, CODE_LIMITS]
    leader = scratch.aux[s, A_LEADER]
    scratch.codes[s, CODE_POLICY] = D.CUSTOM
    scratch.codes[s, CODE_LIMITS] = 0  # the view itself, not a learned seat's limits (decide.learned_limit)
    ph = w.v[step.V_PHASE]
    pile = w.v[step.V_TAIL] - w.v[step.V_HEAD]
    rnd = w.v[step.V_RND]
    f[D.F_DECISION] = -1.0
    f[D.F_SELLABLE] = 0.0
    n = 0
    if ph == step.PH_BID:
        scratch.aux[s, A_LEADER] = D.leader_other(w.st, n_players, s)
        D.open_bid(scratch, w.st, rules, tables, rl, blank, n_players, s, rnd, pile, w.v[step.V_ACTIVE],
                   step.min_bid(w), w.v[step.V_HIGH], w.v[step.V_BID], n_players - w.v[step.V_NPASS])
        n = 2 if f[D.F_DECISION] == D.BID else 0
    elif ph == step.PH_BUY:
        c, cost, ok = step.shown_cost(w, rules)
        if ok:  # step.builtin asks only about a card the winner can pay
            D.open_buy(scratch, w.st, rules, tables, rl, blank, n_players, s, rnd, pile, c, cost)
            n = 2
    elif ph == step.PH_SELL:
        D.open_sell(scratch, w.st, rules, tables, rl, blank, n_players, s, rnd, pile)
        n = 1 + int(f[D.F_SELLABLE]) if f[D.F_SELLABLE] > 0 else 0
    scratch.codes[s, CODE_POLICY] = code
    scratch.codes[s, CODE_LIMITS] = limits
    scratch.aux[s, A_LEADER] = leader
    return n


@njit(cache=True, nogil=True)
def row_of(w, a, cand, n):
    """The candidate row of step action ``a`` at the current decision: the row decide.py plays as ``a``
    (pass, leave, keep: 0; any bid: the bid row; buy: 1; a sale of slot k: the row whose slot is k); -1 if
    none."""
    if a == step.PASS:
        return 0
    if w.v[step.V_PHASE] == step.PH_SELL:
        for i in range(1, n):
            if cand[i, D.K_SLOT] == a - 1:
                return i
        return -1
    return 1


@njit(cache=True, nogil=True)
def visit_shares(w, tr, buf, n_cand, cand, n, out, value):
    """The root's visits of the search just run, each child's on the row of its action, normalised into
    ``out[:n]``, and each row's mean reward (its children's values over their visits) into ``value[:n]``;
    False when the root has no visits (then both are untouched).  The tree names a child by
    its candidate kind (mcts.K_*): ``buf`` holds mcts.candidates of ``w``, ``n_cand`` of them, whose kinds
    name the same moves as in every determinization (they read only what the seat sees)."""
    total = 0.0
    c = tr.links[0, TR.L_CHILD]
    while c != TR.NONE:
        total += tr.stats[c, TR.T_VISITS]
        c = tr.links[c, TR.L_SIBLING]
    if total <= 0.0:
        return False
    c = tr.links[0, TR.L_CHILD]
    while c != TR.NONE:
        r = -1
        for i in range(n_cand):
            if buf[mcts.BRANCHING + i] == tr.links[c, TR.L_ACTION]:
                r = row_of(w, buf[i], cand, n)
        if r < 0:
            raise AssertionError("a root action that is no candidate row")
        out[r] += tr.stats[c, TR.T_VISITS] / total
        value[r] += tr.stats[c, TR.T_VALUE]
        c = tr.links[c, TR.L_SIBLING]
    for r in range(n):
        value[r] = value[r] / (out[r] * total) if out[r] > 0.0 else 0.0
    return True


@njit(cache=True, nogil=True)
def _record_games(key, first, count, rules, deck, pol, tables, rl, scorers, blank, mpar, feats, cand, rows, target,
                  value, chosen, game, seat, kind, score, win, per_game):
    """Games first .. first + count - 1 while ``per_game`` more rows fit in the buffers; returns (games
    played, rows written).  Each game is mcts.play_range's: the same worlds, seeds, search calls and tree."""
    n_players = pol.shape[0]
    n_deck = deck.shape[0]
    cap = collection_capacity(rules)
    dmax = int(rules[R.R_DIRECT_MAX])
    real = step.new_world(n_players, n_deck, cap, dmax, 0)
    base = step.new_world(n_players, n_deck, cap, dmax, 0)
    world = step.new_world(n_players, n_deck, cap, dmax, 0)
    step.set_codes(real, pol, rules)
    for q in range(n_players):  # stop at every sale turn (see the module's docstring)
        real.scratch.codes[q, CODE_SELLS] = 1
    tr = TR.pool(mpar, mcts.M_ITER)
    buf = np.zeros(2 * mcts.BRANCHING, dtype=np.int64)
    ppol = TR.playout_rows(mpar, mcts.M_PLAY, D.POLICY_WIDTH)
    stats = np.zeros(TR.N_ROOT_STATS, dtype=np.float64)
    reward = np.zeros(n_players, dtype=np.float64)
    n_rows = 0
    g = 0
    while g < count and n_rows + per_game <= rows.shape[0]:
        step.setup(real, rng.game_seed(key, first + g), rules, deck, pol, tables)
        while real.v[step.V_PHASE] != step.PH_OVER:
            p = step.to_move(real)
            m = decision_view(real, rules, tables, rl, blank, p)
            if m > 0:  # copied now: a custom seat's own call below overwrites the shared view arrays
                for j in range(D.N_FEATURES):
                    feats[n_rows, j] = real.scratch.feats[p, j]
                for i in range(m):
                    for j in range(D.N_COLUMNS):
                        cand[n_rows, i, j] = real.scratch.cand[i, j]
            searched = False
            if int(pol[p, D.COL_CODE]) == step.MCTS:
                step.set_codes(base, ppol[p], rules)
                step.set_codes(world, ppol[p], rules)
                a = mcts.decide(real, base, world, tr, buf, mpar[p], ppol[p], rules, tables, rl, stats, reward)
                if m > 0 and stats[TR.RS_ITERATIONS] > 0:  # 0: one candidate, played without a search
                    n_cand = mcts.candidates(real, buf, mcts.n_bids(mpar[p], real.st.shape[0]), ppol[p], rules)
                    searched = visit_shares(real, tr, buf, n_cand, cand[n_rows], m, target[n_rows], value[n_rows])
            else:
                a = step.builtin(real, rules, pol, tables, rl, scorers)
            if m > 0:
                r = row_of(real, a, cand[n_rows], m)
                if r < 0:
                    raise AssertionError("an action with no candidate row")
                chosen[n_rows] = r
                if not searched:
                    target[n_rows, r] = 1.0
                rows[n_rows] = m
                game[n_rows] = first + g
                seat[n_rows] = p
                kind[n_rows] = int(feats[n_rows, D.F_DECISION])
                n_rows += 1
            step.apply(real, a, rules, pol, tables)
        for q in range(n_players):
            score[g, q] = real.score[q]
            win[g, q] = real.win[q]
        g += 1
    return g, n_rows


# _record_games takes the scorers as function pointers (custom.SCORERS): a cell's tuple of scorer dispatchers
# converts to that type at the call, so a new scorer compiles only itself, never the recorder (as kernel.py's
# engine); so it is compiled for this one signature, on first use, and then refuses any other.
_C1I = types.int64[::1]
_C2I = types.int64[:, ::1]
_C1F = types.float64[::1]
_C2F = types.float64[:, ::1]
SIG = types.UniTuple(types.int64, 2)(
    types.uint64, types.int64, types.int64, _C1F, _C1I, _C2F, RULE_TABLES, RULE_ARRAYS, custom.SCORERS,
    custom.SCORERS, _C2F, _C2F, types.float64[:, :, ::1], _C1I, _C2F, _C2F, _C1I, _C1I, _C1I, _C1I, _C2I, _C2F,
    types.int64)
_COMPILING = threading.Lock()


def _compiled() -> Any:
    """``_record_games`` compiled for ``SIG`` (a no-op under NUMBA_DISABLE_JIT)."""
    fn = _record_games
    if hasattr(fn, "signatures") and SIG.args not in fn.signatures:
        with _COMPILING:
            if SIG.args not in fn.signatures:
                mcts._helpers()  # the engine's fixed-signature helpers first (state.helper)
                fn.disable_compile(False)
                fn.compile(SIG)
                fn.disable_compile()
    return fn


def record(prepared: Prepared, cell_key: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Games start .. start + count - 1 of the cell, ``play``'s games exactly, and every decision a custom
    scorer would be asked there (see the module's docstring).  N decisions, F features, R rows, C columns:

    - ``features`` float64 (N, F), ``candidates`` float64 (N, R, C) (rows past ``rows[i]`` zero), ``rows``
      int64 (N,): the view a custom scorer gets;
    - ``value`` float64 (N, R): an mcts seat's mean reward of each row at the root (0 elsewhere);
    - ``target`` float64 (N, R): the acting seat's policy's distribution over the rows (an mcts seat's root
      visit shares, else 1.0 on the row of its action); ``chosen`` int64 (N,): the row of the action taken;
    - ``game`` (the cell's game index), ``seat``, ``kind`` (0 bid, 1 buy, 2 sell): int64 (N,);
    - ``score`` int64 (count, P) and ``win`` float64 (count, P): the games' results.
    """
    return _record(prepared, cell_key, start, count, CHUNK_ROWS)


def _record(prepared: Prepared, cell_key: int, start: int, count: int, chunk_rows: int) -> dict[str, np.ndarray]:
    from boardsim.games import get  # the registry, not this package's __init__

    fn = _compiled()
    rules, deck, pol, tables, rl = inputs(prepared)
    scorers = get("art_deco").seat_scorers(prepared.seats)
    blank = custom.scorers([])
    mpar = np.ascontiguousarray(prepared["mcts"], dtype=np.float64)
    n_players = prepared.n_players
    n_rows = max_rows(rules, deck.shape[0])
    per_game = game_bound(rules, deck, n_players)
    size = max(per_game, chunk_rows)
    score = np.zeros((count, n_players), dtype=np.int64)
    win = np.zeros((count, n_players), dtype=np.float64)
    parts: list[dict[str, np.ndarray]] = []
    done = 0
    while done < count:
        part = _buffers(size, n_rows)
        games, used = fn(np.uint64(cell_key), np.int64(start + done), np.int64(count - done), rules, deck, pol, tables,
                         rl, scorers, blank, mpar, *part.values(), score[done:], win[done:], np.int64(per_game))
        parts.append({k: v[:used] for k, v in part.items()})
        done += int(games)
    if len(parts) == 1:  # views of the one buffer: its untouched tail was never written (zero pages)
        out = parts[0]
    else:
        out = {k: np.concatenate([p[k] for p in parts]) for k in _buffers(0, n_rows)} if parts else _buffers(0, n_rows)
    out["score"] = score
    out["win"] = win
    return out


def _buffers(size: int, n_rows: int) -> dict[str, np.ndarray]:
    """A chunk's decision arrays, zeroed, in ``_record_games``' argument order."""
    return {
        "features": np.zeros((size, D.N_FEATURES)),
        "candidates": np.zeros((size, n_rows, D.N_COLUMNS)),
        "rows": np.zeros(size, dtype=np.int64),
        "target": np.zeros((size, n_rows)),
        "value": np.zeros((size, n_rows)),
        "chosen": np.zeros(size, dtype=np.int64),
        "game": np.zeros(size, dtype=np.int64),
        "seat": np.zeros(size, dtype=np.int64),
        "kind": np.zeros(size, dtype=np.int64),
    }
