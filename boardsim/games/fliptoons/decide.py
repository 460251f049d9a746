"""FlipToons market decisions: ``choose``, the next market action of a seat (hire a market slot, pay to
dismiss a grid card, or end the turn), for every policy but the search players (``lookahead.py``, ``mcts.py``).

The game loop (``step.advance``) asks it at every market decision.  It sits above the rules (``engine.py``,
``grid.py``) because the synergy policy flips and scores a private grid with them; the sub-choices inside
banners and hooks, which the rules ask for themselves, are in ``subchoices.py``, below them.

Built-in policies (``policies.py`` declares their codes and parameters) switch on column 0 of the policy
matrix.  The ``rules`` and ``custom`` policies (docs/rules/fliptoons.md, "Decision view") see the same
decision view: the decision features ``DECISION_FEATURES``, one ``count_<Card>`` per card, and one
candidate row per legal market action with the columns ``CANDIDATE_COLUMNS``.  A rule list is
interpreted by ``_rules_choice`` over arrays (a new rule list or ``$param`` never recompiles); a
custom scorer is called through a function pointer.  The sub-choices other than the market action use
the documented default (the built-in, non-random choice) for both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from boardsim.games.fliptoons.cards import (
    C_DCOST,
    C_RANK,
)
from boardsim.games.fliptoons.grid import (
    _fame,
    _flip,
)
from boardsim.games.fliptoons.policies import (
    FPC_COST_EXPONENT,
    FPC_DISMISS_BELOW,
    FPC_DISMISS_RESERVE,
    FPC_MIN_GAIN,
    POLICY_CODE,
    PRIORITY_FALLBACK,
    SYNERGY_COST_EXPONENT,
    SYNERGY_DISMISS_BELOW,
    SYNERGY_DISMISS_RESERVE,
    SYNERGY_FLIPS,
    SYNERGY_MIN_GAIN,
)
from boardsim.games.fliptoons.state import (
    A_DISMISS,
    A_END,
    ACTS,
    BAN,
    CALL,
    DECK,
    DN,
    DSTART,
    DTOT,
    FAME,
    GK,
    GN,
    GS,
    INLINE,
    INTERNAL,
    NP,
    POL_CUSTOM,
    POL_FPC,
    POL_HIGHEST,
    POL_PRIORITY,
    POL_RANDOM,
    POL_RULES,
    POL_SYNERGY,
    ROUND,
    SPEND,
    TN,
    VHI,
    VLO,
    W,
    _can_pay_dismissal,
    _clear_counts,
    _dismiss_ok,
    _hire_ok,
    _mean_value,
    _min_cards_ok,
    _own,
    _owned,
    _vfix,
)
from boardsim.rng import below, next_u64, seed_state, shuffle
from boardsim.rulelist import OP_FEATURE, STACK, Action, RuleArrays, evaluate

FALLBACK = -2  # a simple policy defers to fame_per_cost
__all__ = ["choose", "decision_features", "rule_actions", "CANDIDATE_COLUMNS"]


# -- the decision view of the rules and custom policies ------------------------------------------------
DECISION_FEATURES = ("round", "players", "fame", "spend", "actions", "leader_fame", "fame_rank", "deck_size",
                     "mean_value", "toon_left", "market_cards", "hire_gain_per_cost")
(F_ROUND, F_PLAYERS, F_FAME, F_SPEND, F_ACTIONS, F_LEADER, F_FAME_RANK, F_DECK, F_MEAN, F_TOON, F_MARKET,
 F_HIRE_GPC) = range(12)
ND = len(DECISION_FEATURES)  # then one count_<Card> per card, then the candidate's features
CANDIDATE_COLUMNS = ("kind", "card", "price", "slot", "gain", "gain_per_cost", "value", "rank", "copies_left")
(X_KIND, X_CARD, X_PRICE, X_SLOT, X_GAIN, X_GPC, X_VALUE, X_RANK, X_COPIES) = range(9)
NX = len(CANDIDATE_COLUMNS)
KIND_HIRE, KIND_DISMISS, KIND_PASS = 0.0, 1.0, 2.0
NO_HIRE = -1000.0  # hire_gain_per_cost when fame_per_cost would hire nothing
MIN_GAIN = -0.25  # fame_per_cost's default: a hire must gain more than this to be its choice

ACT_HIRE, ACT_DISMISS, ACT_PASS = range(3)
HIRE_ATTRS = ("best_gain_per_cost", "best_gain", "cheapest", "highest_rank", "highest_value")
DISMISS_ATTRS = ("lowest_value", "best_gain_per_cost", "cheapest")
# the candidate column each attribute target maximises, and its sign (-1: the smallest wins); first on ties.
# Hire's best_gain_per_cost is fame_per_cost's own choice (the hire column's gain must beat MIN_GAIN too).
HIRE_COL = np.array([X_GPC, X_GAIN, X_PRICE, X_RANK, X_VALUE], dtype=np.int64)
HIRE_SIGN = np.array([1.0, 1.0, -1.0, 1.0, 1.0])
DISMISS_COL = np.array([X_VALUE, X_GPC, X_PRICE], dtype=np.int64)
DISMISS_SIGN = np.array([-1.0, 1.0, -1.0])

# what a seat's rules read, so a decision computes only that (rule_flags per rule, seat_flags per seat)
RF_CANDIDATE, RF_COPIES, RF_COUNTS = 1, 2, 4
RF_ALL = RF_CANDIDATE | RF_COPIES | RF_COUNTS


def count_feature(card: str) -> str:
    """``count_<Card>``: the feature name of a card's owned count (other characters become ``_``)."""
    return "count_" + re.sub(r"[^A-Za-z0-9_]", "_", card)


def decision_features(card_names: Sequence[str]) -> tuple[str, ...]:
    """Every name a rule condition may read, in the order of the feature vector."""
    return DECISION_FEATURES + tuple(count_feature(n) for n in card_names) + CANDIDATE_COLUMNS[1:]


def rule_actions(card_names: Sequence[str]) -> tuple[Action, ...]:
    names = tuple(card_names)
    return (
        Action("hire", "target", "hire a market card: a card name (its leftmost affordable slot) or an attribute "
               "picking among the affordable slots", names + HIRE_ATTRS),
        Action("dismiss", "target", "pay to dismiss a face-up grid card: a card name (its first legal copy) or an "
               "attribute picking among the legal dismissals", names + DISMISS_ATTRS),
        Action("pass", "flag", "end the turn, hiring nothing"),
    )


def rule_flags(rules: RuleArrays, n_seats: int, custom_seats: Sequence[int], n_cards: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per rule and per seat, which lazily computed features its conditions read (RF_* bits).

    A custom seat's scorer gets every column, so it has them all."""
    n_rules = rules.meta.shape[0]
    per_rule = np.zeros(n_rules, dtype=np.int64)
    for r in range(n_rules):
        row = 2 * r
        for op, arg in zip(rules.ops[row], rules.args[row], strict=True):
            if op != OP_FEATURE:
                continue
            f = int(arg)
            if f >= ND + n_cards:
                per_rule[r] |= RF_CANDIDATE
                if f == ND + n_cards + X_COPIES - 1:
                    per_rule[r] |= RF_COPIES
            elif f >= ND:
                per_rule[r] |= RF_COUNTS
    per_seat = np.zeros(n_seats, dtype=np.int64)
    for s in range(n_seats):
        lo, hi = rules.span[s]
        for r in range(lo, hi):
            per_seat[s] |= per_rule[r]
        if s in custom_seats:
            per_seat[s] = RF_ALL
    return per_rule, per_seat


class Users(NamedTuple):
    """The rules and custom policies' inputs (from prepare) and their per-block scratch buffers."""

    ops: np.ndarray  # rulelist.RuleArrays' fields
    args: np.ndarray
    meta: np.ndarray
    span: np.ndarray
    params: np.ndarray  # per seat: its $params, the params vector of its scorer
    rule_flags: np.ndarray  # RF_* bits per rule
    seat_flags: np.ndarray  # RF_* bits per seat
    scorers: tuple  # custom.SCORERS: one scorer per seat (custom.no_scorer where none)
    features: np.ndarray  # decision features, count_<Card>, then the candidate a rule's target picked
    candidates: np.ndarray  # one row per legal action, CANDIDATE_COLUMNS
    scores: np.ndarray
    actions: np.ndarray  # each candidate row's engine action
    stack: np.ndarray  # rulelist.evaluate's scratch
    toon_counts: np.ndarray  # copies of each card in the toon deck


@njit(cache=True, nogil=True)
def users(seat_rules, scorers, K, Wd, maxc):
    """The Users of a block of games: the rule arrays and scorers, and buffers sized once (never per decision)."""
    ops, args, meta, span, params, rule_flags, seat_flags = seat_rules
    rows = Wd + maxc + 1  # every market slot, every grid card, and passing
    return Users(ops, args, meta, span, params, rule_flags, seat_flags, scorers,
                 np.zeros(ND + K + NX - 1), np.zeros((rows, NX)), np.zeros(rows), np.zeros(rows, dtype=np.int64),
                 np.zeros(STACK), np.zeros(K))


@njit(**INLINE, **INTERNAL)
def _user_choice(p, code, S, C, U):
    """A rules or custom seat's market action: the decision view, then its rules or its scorer.

    Inlined into the engine's game loop, and _rules_choice into it: a call passing the state, constants and
    these arrays (each array is about ten arguments) cost a third of the games per second, for about 10% more
    cold compile time inlined."""
    pc, pv, sh, toon, mk = S.rows, S.seat, S.shared, S.toon, S.market
    cards, rules, prices, val = C.cards, C.rules, C.prices, C.values
    feat, cand, act = U.features, U.candidates, U.actions
    K = cards.shape[0]
    flags = U.seat_flags[p]
    P = np.int64(sh[NP])
    Wd = np.int64(sh[W])
    m = _mean_value(p, pv)
    n = _owned(p, pv)
    now = min(n, 6) * m
    # candidates: the legal hires (slot order), the legal paid dismissals (grid order), passing
    # typed from the start (np.int64, not a literal): _rules_choice was compiled twice, once for a literal nh
    nr = np.int64(0)
    fpc_row = np.int64(-1)  # fame_per_cost's hire, with its default parameters
    bs = -1e18
    for s in range(Wd):
        if _hire_ok(p, s, pv, mk, prices):
            k = mk[0, s]
            # fame_per_cost's expected grid-fame gain, the same expression (so the same bits)
            gain = min(n + 1, 6) * (n * m + val[k]) / (n + 1) - now
            gpc = gain / _price_factor(prices[s], 1.0)
            if gain > MIN_GAIN and gpc > bs:
                bs = gpc
                fpc_row = nr
            _candidate(cand, nr, KIND_HIRE, k, prices[s], s, gain, gpc, val[k], cards[k, C_RANK])
            act[nr] = s
            nr += 1
    nh = nr
    if _min_cards_ok(p, pv, rules):
        spend = pv[p, SPEND]
        for g in range(pv[p, GN]):
            k = pc[p, GK, g]
            if _can_pay_dismissal(p, g, pc, cards, spend):
                gain = min(n - 1, 6) * (n * m - val[k]) / (n - 1) - now if n > 1 else 0.0
                gpc = gain / _price_factor(cards[k, C_DCOST], 1.0)
                _candidate(cand, nr, KIND_DISMISS, k, cards[k, C_DCOST], pc[p, GS, g], gain, gpc, val[k],
                           cards[k, C_RANK])
                act[nr] = A_DISMISS + g
                nr += 1
    nd = nr
    if nd == 0:  # passing is the only legal action: nothing to decide, so no features to compute
        return A_END
    _candidate(cand, nr, KIND_PASS, -1, 0, -1, 0.0, 0.0, 0.0, -1)
    cand[nr, X_COPIES] = 0.0
    act[nr] = A_END
    nr += 1
    # decision features
    leader = pv[0, FAME]
    above = 0
    for q in range(P):
        leader = max(leader, pv[q, FAME])
        if pv[q, FAME] > pv[p, FAME]:
            above += 1
    feat[F_ROUND] = sh[ROUND]
    feat[F_PLAYERS] = P
    feat[F_FAME] = pv[p, FAME]
    feat[F_SPEND] = pv[p, SPEND]
    feat[F_ACTIONS] = pv[p, ACTS]
    feat[F_LEADER] = leader
    feat[F_FAME_RANK] = 1 + above
    feat[F_DECK] = n
    feat[F_MEAN] = m
    feat[F_TOON] = sh[TN]
    n_mk = 0
    for s in range(Wd):
        if mk[0, s] >= 0:
            n_mk += 1
    feat[F_MARKET] = n_mk
    feat[F_HIRE_GPC] = bs if fpc_row >= 0 else NO_HIRE
    # the lazily computed parts, only for seats whose rules read them (and every custom seat)
    if flags & RF_COUNTS:
        for k in range(K):
            feat[ND + k] = 0.0
        for i in range(pv[p, DN]):
            feat[ND + pc[p, DECK, i]] += 1.0
        for i in range(pv[p, GN]):
            feat[ND + pc[p, GK, i]] += 1.0
    if flags & RF_COPIES:
        tc = U.toon_counts
        tc[:] = 0.0
        for i in range(sh[TN]):
            tc[toon[i]] += 1.0
        for r in range(nd):
            cand[r, X_COPIES] = tc[int(cand[r, X_CARD])]
    if code == POL_CUSTOM:
        sc = U.scores
        U.scorers[p](feat[: ND + K], cand[:nr], U.params[p], sc[:nr])
        best = 0
        for i in range(1, nr):
            if sc[i] > sc[best]:
                best = i
        return act[best]
    return _rules_choice(p, feat, cand, act, nh, nd, fpc_row, K, U.ops, U.args, U.meta, U.span, U.params,
                         U.rule_flags, U.stack)


# Fixed signatures: the call sites pass int32, int64 and literal arguments, and each combination compiled
# _candidate (6 variants) and _pick (3) once more.
@njit("void(float64[:, ::1], int64, float64, int64, int64, int64, float64, float64, float64, int64)", **INLINE,
      **INTERNAL)
def _candidate(cand, r, kind, card, price, slot, gain, gpc, value, rank):
    """Row r of the candidate matrix, but copies_left (filled only when read)."""
    cand[r, X_KIND] = kind
    cand[r, X_CARD] = card
    cand[r, X_PRICE] = price
    cand[r, X_SLOT] = slot
    cand[r, X_GAIN] = gain
    cand[r, X_GPC] = gpc
    cand[r, X_VALUE] = value
    cand[r, X_RANK] = rank


@njit("int64(float64[:, ::1], int64, int64, int64, int64, int64, float64)", **INLINE, **INTERNAL)
def _pick(cand, lo, hi, target, K, col, sign):
    """The candidate row in [lo, hi) a target names: card ``target`` (< K) its first row, otherwise the row
    with the largest ``sign * cand[row, col]`` (first on ties); -1 if none."""
    best = -1
    if target < K:
        for r in range(lo, hi):
            if cand[r, X_CARD] == target:
                return r
        return best
    bv = -np.inf
    for r in range(lo, hi):
        v = sign * cand[r, col]
        if v > bv:
            bv = v
            best = r
    return best


@njit(**INLINE, **INTERNAL)
def _rules_choice(p, feat, cand, act, nh, nd, fpc_row, K, ops, args, meta, span, params, rule_flags, stack):
    """The first rule whose target finds a legal candidate and whose condition holds; none: pass."""
    lo, hi = span[p, 0], span[p, 1]
    tail = ND + K
    for r in range(lo, hi):
        a = meta[r, 0]
        t = meta[r, 1]
        if a == ACT_PASS:
            row = nd
        elif a == ACT_HIRE:
            if t == K:  # best_gain_per_cost: fame_per_cost's hire
                row = fpc_row
            else:
                j = max(t - K, 0)
                row = _pick(cand, 0, nh, t, K, HIRE_COL[j], HIRE_SIGN[j])
        else:
            j = max(t - K, 0)
            row = _pick(cand, nh, nd, t, K, DISMISS_COL[j], DISMISS_SIGN[j])
        if row < 0:
            continue
        if rule_flags[r] & RF_CANDIDATE:
            for c in range(1, NX):
                feat[tail + c - 1] = cand[row, c]
        if evaluate(ops, args, 2 * r, feat, params[p], stack) != 0.0:
            return act[row]
    return A_END


# -- built-in policies ----------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _cheap_dismiss(p, below_value, reserve, S, C):
    """The lowest-value legal paid dismissal if it is junk (value <= below_value) and affordable."""
    pc, pv = S.rows, S.seat
    cards, rules, val = C.cards, C.rules, C.values
    best = -1
    bv = 1e18
    if not _min_cards_ok(p, pv, rules):
        return A_END
    spend = pv[p, SPEND]
    for g in range(pv[p, GN]):
        # non-short-circuit tests: one hard-to-predict branch, not four
        v = val[pc[p, GK, g]]
        if _can_pay_dismissal(p, g, pc, cards, spend) & (v < bv):
            bv = v
            best = g
    if best < 0 or bv > below_value:
        return A_END
    if pv[p, SPEND] - cards[pc[p, GK, best], C_DCOST] < reserve:
        return A_END
    return A_DISMISS + best


@njit(**INLINE, **INTERNAL)
def _price_factor(price, expo):
    """price^expo with a floor of 1; the common expo = 1 skips pow()."""
    x = max(1.0, float(price))
    return x if expo == 1.0 else x ** expo


@njit(**INLINE, **INTERNAL)
def _fpc(p, min_gain, expo, below_value, reserve, S, C):
    """Greedy: the hire or junk dismissal that most raises expected grid fame per fame spent.

    A deck of n cards with mean value m shows about min(n, 6) * m fame; a hire or a dismissal is
    scored by the change of that estimate divided by price^expo.  Unspent fame is lost at Cleanup,
    so a slightly negative ``min_gain`` still buys near-average cards (and keeps the market moving).
    """
    pc, pv, dism, sh, toon, mk = S
    cards, prices, val = C.cards, C.prices, C.values
    m = _mean_value(p, pv)
    n = _owned(p, pv)
    now = min(n, 6) * m
    best = A_END
    bs = -1e18
    spend = pv[p, SPEND]
    ban = pv[p, BAN] - 1  # the seat's avoided card (-1: none)
    for s in range(np.int64(sh[W])):
        # Scored whether or not the slot is open and affordable (an empty slot reads some card's value),
        # then one combined, non-short-circuit test: data-dependent branches here mispredict often.
        k = mk[0, s]
        gain = min(n + 1, 6) * (n * m + val[k]) / (n + 1) - now
        score = gain / _price_factor(prices[s], expo)
        if (k >= 0) & (prices[s] <= spend) & (not gain <= min_gain) & (score > bs) & (k != ban):
            bs = score
            best = s
    d = _cheap_dismiss(p, below_value, reserve, S, C)
    if d != A_END and n > 1:
        k = pc[p, GK, d - A_DISMISS]
        gain = min(n - 1, 6) * (n * m - val[k]) / (n - 1) - now
        score = gain / _price_factor(cards[k, C_DCOST], expo)
        if gain > 0 and score > bs:
            best = d
    return best


@njit(**CALL, **INTERNAL)
def _quick_fame(p, extra, seed, n_flips, S, C, X):
    """Mean grid fame of p's owned cards (plus ``extra`` if >= 0) over a few private flips."""
    pc, pv, dism, sh, toon, mk = S
    XS, XO, rng = X
    xpc, xpv, xdism, xsh, xtoon, xmk = XS
    xsh[:] = 0
    xsh[NP] = 1
    xsh[W] = sh[W]
    for r in range(mk.shape[0]):  # element loops: an array-to-array slice copy needs NRT
        for s in range(mk.shape[1]):
            xmk[r, s] = mk[r, s]
    for k in range(dism.shape[1]):
        xdism[0, k] = dism[p, k]
    tot = 0
    p0 = np.int64(0)
    for j in range(n_flips):
        seed_state(seed + np.uint64(j), rng)
        xpv[0, :] = 0
        _clear_counts(p0, xpc, xpv)  # the last estimate's grid left its counts (state._count_up)
        xpv[0, DTOT] = pv[p, DTOT]
        xpv[0, DSTART] = pv[p, DSTART]
        xpv[0, VLO] = pv[p, VLO]  # the owned value sum (state._own), then the extra card's
        xpv[0, VHI] = pv[p, VHI]
        if extra >= 0:
            _own(p0, xpv, _vfix(C.values, extra))
        n = 0
        for i in range(pv[p, DN]):
            xpc[0, DECK, n] = pc[p, DECK, i]
            n += 1
        for i in range(pv[p, GN]):
            xpc[0, DECK, n] = pc[p, GK, i]
            n += 1
        if extra >= 0:
            xpc[0, DECK, n] = extra
            n += 1
        xpv[0, DN] = n
        # Snake draws a random unseen toon card in these estimates.
        tn = sh[TN]
        for i in range(tn):
            xtoon[i] = toon[i]
        shuffle(rng, xtoon, np.int64(tn))
        xsh[TN] = tn
        _flip(p0, XS, C, XO, rng)
        tot += _fame(p0, XS, C, None)
    return tot / max(1, n_flips)


@njit(**CALL, **INTERNAL)
def _synergy(p, S, C, X, rng):
    pc, pv, dism, sh, toon, mk = S
    prices, pol = C.prices, C.policies
    flips = max(1, int(pol[p, SYNERGY_FLIPS]))
    expo = pol[p, SYNERGY_COST_EXPONENT]
    min_gain = pol[p, SYNERGY_MIN_GAIN]
    seed = next_u64(rng)
    base = _quick_fame(p, np.int64(-1), seed, flips, S, C, X)
    best = -1
    bs = 0.0
    for s in range(np.int64(sh[W])):
        if _hire_ok(p, s, pv, mk, prices):
            gain = _quick_fame(p, np.int64(mk[0, s]), seed, flips, S, C, X) - base
            if gain <= min_gain:
                continue
            score = gain / _price_factor(prices[s], expo)
            if score > bs:
                bs = score
                best = s
    # A junk dismissal competes in the same units: a grid of 6 gains about 6x the deck-mean change.
    d = _cheap_dismiss(p, pol[p, SYNERGY_DISMISS_BELOW], pol[p, SYNERGY_DISMISS_RESERVE], S, C)
    n = _owned(p, pv)
    if d != A_END and n > 1:
        cards, val = C.cards, C.values
        k = pc[p, GK, d - A_DISMISS]
        score = 6.0 * (_mean_value(p, pv) - val[k]) / (n - 1) / _price_factor(cards[k, C_DCOST], expo)
        if score > bs:
            return d
    return best


@njit(**CALL, **INTERNAL)
def _simple_policy(p, code, S, C, rng):
    """random, highest_rank and priority; FALLBACK hands the decision to fame_per_cost."""
    pol = C.policies
    pc, pv, dism, sh, toon, mk = S
    cards, rules, prices = C.cards, C.rules, C.prices
    Wd = np.int64(sh[W])
    if code == POL_RANDOM:
        n = np.int64(1)  # typed from the start, as in grid_card_to_dismiss
        for s in range(Wd):
            if _hire_ok(p, s, pv, mk, prices):
                n += 1
        for g in range(pv[p, GN]):
            if _dismiss_ok(p, g, pc, pv, cards, rules):
                n += 1
        pick = below(rng, n)
        if pick == 0:
            return A_END
        pick -= 1
        for s in range(Wd):
            if _hire_ok(p, s, pv, mk, prices):
                if pick == 0:
                    return s
                pick -= 1
        for g in range(pv[p, GN]):
            if _dismiss_ok(p, g, pc, pv, cards, rules):
                if pick == 0:
                    return A_DISMISS + g
                pick -= 1
        return A_END
    if code == POL_HIGHEST:
        best = -1
        for s in range(Wd):
            if _hire_ok(p, s, pv, mk, prices):
                if best < 0 or cards[mk[0, s], C_RANK] > cards[mk[0, best], C_RANK]:
                    best = s
        return best
    if code == POL_PRIORITY:
        a = _favoured(p, S, C)
        if a >= 0:
            return a
        if pol[p, PRIORITY_FALLBACK] == 0:  # fallback: fame_per_cost
            return FALLBACK
        return A_END
    return FALLBACK


@njit(**INLINE, **INTERNAL)
def _favoured(p, S, C):
    """The market slot of the first card of seat p's priority row (priority's order, an mcts or learned
    seat's ``favour`` list) that it can hire now; -1 if none."""
    prio, mk = C.priority, S.market
    for j in range(prio.shape[1]):
        k = prio[p, j]
        if k < 0:
            break
        for s in range(np.int64(S.shared[W])):
            if mk[0, s] == k and _hire_ok(p, s, S.seat, mk, C.prices):
                return np.int64(s)
    return np.int64(-1)


@njit(**INLINE, **INTERNAL)
def choose(p, S, C, X, U, rng):
    """The next market action of seat p (a lookahead seat plays fame_per_cost here, inside playouts).

    One call site for fame_per_cost (inlined): every call that passes the state tuples costs
    reference-count work on each array they hold.
    """
    pol = C.policies
    code = int(pol[p, POLICY_CODE])
    min_gain, expo, below_value, reserve = -0.25, 1.0, 0.5, 0.0
    if code == POL_FPC:
        min_gain, expo = pol[p, FPC_MIN_GAIN], pol[p, FPC_COST_EXPONENT]
        below_value, reserve = pol[p, FPC_DISMISS_BELOW], pol[p, FPC_DISMISS_RESERVE]
    elif code == POL_SYNERGY:
        # X and U are None in the lean engine (no seat needs FlipToons.FULL_ENGINE): numba prunes these here
        if X is not None:
            return _synergy(p, S, C, X, rng)
    elif code == POL_RANDOM or code == POL_HIGHEST or code == POL_PRIORITY:
        a = _simple_policy(p, code, S, C, rng)
        if a != FALLBACK:
            return a
    elif code == POL_RULES or code == POL_CUSTOM:
        # a learned seat's favour list (cards --base learned); -1 for every other user seat
        if code == POL_CUSTOM and C.priority[p, 0] >= 0:
            a = _favoured(p, S, C)
            if a >= 0:
                return a
        if U is not None:
            return _user_choice(p, code, S, C, U)
    # fame_per_cost, priority's fallback, and lookahead seats inside playouts
    return _fpc(p, min_gain, expo, below_value, reserve, S, C)
