"""Art Deco's decision interface: every choice a seat makes, for every kind of policy.

The engine (``engine.py``) plays the rules and asks this module three questions: what does a seat bid
at its bidding turn (``bid``), does the auction winner buy a card turned up for a direct purchase
(``buy``), and which card, if any, does a seat sell (``sell``).  Behind them sit

- the built-in bots, as data: a seat's row of the policy matrix (column 0 the code, then the
  parameters in the order ``policies.py`` declares them), so sweeping a parameter never recompiles;
- ``rules``: an ordered rule list over the decision view below, compiled by ``boardsim.rulelist`` into
  arrays this module interprets (a new rule list or ``$param`` never recompiles either);
- ``custom``: a user's ``@numba.njit`` scorer, called through a function pointer with the decision view
  and one candidate row per legal action.

Every non-random built-in works from a *reservation price* r: it bids the minimum legal amount while
that amount is <= r (the "+1 up to a cap" style of the spec) and buys a direct-purchase card when its
price is <= r.  The decision view, the rule actions and the candidate columns are documented in
docs/rules/art-deco.md, "Decision view (rules and custom policies)".
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, types

from boardsim import learned as _learned
from boardsim.custom import borrowed as _borrowed
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.state import (
    A_LEADER,
    A_LIM,
    A_LIM_LEADER,
    A_LIMITS,
    A_MAX,
    C_CARDS,
    C_CASH,
    C_HELD_VAL,
    CODE_AVOID,
    CODE_BID_TABLE,
    CODE_BUY_TABLE,
    CODE_FAVOUR,
    CODE_LIMITS,
    CODE_POLICY,
    CODE_SELLS,
    LIMIT_ASK,
    LIMIT_SET,
    LIMITS_UNSET,
    NO_CREDIT_LIMIT,
    helper,
    price,
)
from boardsim.rulelist import OP_FEATURE, STACK, Action, RuleArrays, evaluate
from boardsim.rulelist import evaluate_inline as _evaluate

RANDOM, PAR, MULTIPLE, ELIGIBILITY, BLOCKER, RULES, CUSTOM, MCTS = range(8)

POLICY_WIDTH = 7  # code + up to 4 parameters, then COL_FAVOUR and COL_AVOID (every policy's)
# card strength's arms (docs/guide/measure-a-card.md): 1 + the card value a seat favours (bids up to all it may
# pay, buys whenever it can) and 1 + the value it avoids (never bids on or buys); 0 = none
COL_FAVOUR, COL_AVOID = 5, 6
FAVOURED = 1 << 40  # a favoured value's reservation: more than any seat may pay

# -- the decision view: features every rules or custom decision sees (meaning and range in the docs) --------
FEATURES = (
    "round",
    "rounds_left",
    "decision",
    "value",
    "price",
    "gain",
    "min_bid",
    "high_bid",
    "leader_is_high",
    "bidders",
    "max_pay",
    "cash",
    "cards_held",
    "cards_needed",
    "min_cards",
    "held_value",
    "standing",
    "leader_standing",
    "opp_max_cards",
    "pile",
    "acquired",
    "sellable",
)
(
    F_ROUND,
    F_ROUNDS_LEFT,
    F_DECISION,
    F_VALUE,
    F_PRICE,
    F_GAIN,
    F_MIN_BID,
    F_HIGH_BID,
    F_LEADER_IS_HIGH,
    F_BIDDERS,
    F_MAX_PAY,
    F_CASH,
    F_CARDS,
    F_NEEDED,
    F_MIN_CARDS,
    F_HELD_VALUE,
    F_STANDING,
    F_LEADER_STANDING,
    F_OPP_MAX_CARDS,
    F_PILE,
    F_ACQUIRED,
    F_SELLABLE,
) = range(len(FEATURES))
N_FEATURES = len(FEATURES)
BID, BUY, SELL = 0, 1, 2  # values of the ``decision`` feature

# -- rule actions ------------------------------------------------------------------------------------------
SELL_TARGETS = ("best_gain", "lowest_value", "highest_value", "oldest")
T_BEST_GAIN, T_LOWEST, T_HIGHEST, T_OLDEST = range(len(SELL_TARGETS))
ACTIONS = (
    Action("bid_up_to", "amount", "at a bidding turn: bid the minimum legal amount if it is <= this"),
    Action("pass", "flag", "at a bidding turn: pass"),
    Action("buy_up_to", "amount", "for a card shown for direct purchase: buy it if its price is <= this"),
    Action("decline", "flag", "for a card shown for direct purchase: do not buy it"),
    Action("sell", "target", "at the sale: sell the sellable card the target picks", SELL_TARGETS),
    Action("keep", "flag", "at the sale: sell nothing"),
)
ACT_BID_UP_TO, ACT_PASS, ACT_BUY_UP_TO, ACT_DECLINE, ACT_SELL, ACT_KEEP = range(len(ACTIONS))
# A rule's amount is compared with this slack, as the built-ins round value x multiple: 0.29 x 100 reaches 29.
SLACK = 1e-9

# -- a custom scorer's candidate matrix: one row per legal action, these columns -----------------------------
COLUMNS = ("action", "value", "price", "gain", "acquired", "slot")
K_ACTION, K_VALUE, K_PRICE, K_GAIN, K_ACQUIRED, K_SLOT = range(len(COLUMNS))
N_COLUMNS = len(COLUMNS)
DO_NOTHING, DO_BID, DO_BUY, DO_SELL = 0, 1, 2, 3  # values of the ``action`` column


# -- policy-matrix columns: the code, then a built-in's parameters in the order of its options -------------
COL_CODE = 0
COL_MULTIPLE = 1  # multiple's and blocker's multiple, eligibility's hard
RANDOM_PASS, RANDOM_RAISE, RANDOM_BUY, RANDOM_SELL = 1, 2, 3, 4  # pass_prob, max_raise, buy_prob, sell_prob
ELIGIBILITY_TARGET = 2
BLOCKER_CAP = 2
# sell_margin, each built-in's last option
PAR_MARGIN, MULTIPLE_MARGIN, ELIGIBILITY_MARGIN, BLOCKER_MARGIN = 1, 2, 3, 3


# == built-in policies =====================================================================================
@helper(types.int64(types.float64[:, ::1], types.int64, types.int64, types.int64, types.boolean))
def reservation(pol, seat, value, n_cards, leader_is_high):
    """Most ``seat`` would pay for a card of ``value``; -1 means never.

    Policies take the whole matrix and a seat index rather than a row view:
    a view costs reference counting on every call in the hot loop.
    """
    if pol[seat, COL_AVOID] != 0.0 and pol[seat, COL_AVOID] == value + 1:
        return -1
    if pol[seat, COL_FAVOUR] != 0.0 and pol[seat, COL_FAVOUR] == value + 1:
        return FAVOURED
    code = int(pol[seat, COL_CODE])
    if code == PAR:
        return value
    if code == MULTIPLE:
        return int(math.floor(pol[seat, COL_MULTIPLE] * value + 1e-9))
    if code == ELIGIBILITY:
        if n_cards < pol[seat, ELIGIBILITY_TARGET]:
            return int(math.floor(pol[seat, COL_MULTIPLE] * value + 1e-9))
        return value
    if code == BLOCKER:
        r = int(math.floor(pol[seat, COL_MULTIPLE] * value + 1e-9))
        if leader_is_high:
            r = max(r, value + int(pol[seat, BLOCKER_CAP]))
        return r
    return -1


@njit(cache=True, nogil=True, inline="always")
def choose_bid(pol, seat, r, value, min_bid, max_bid, n_cards, leader_is_high):
    """The bid ``seat`` makes, or -1 to pass; ``max_bid`` already folds in ceiling and credit.

    ``r`` is a uniform number the engine draws for every decision, used or not:
    a generator call under a data-dependent branch is several times slower.
    """
    if min_bid > max_bid:
        return -1
    if int(pol[seat, COL_CODE]) == RANDOM:
        pass_prob = pol[seat, RANDOM_PASS]
        if r < pass_prob:
            return -1
        step = int((r - pass_prob) / (1.0 - pass_prob) * pol[seat, RANDOM_RAISE])  # r is uniform above pass_prob
        return min(max_bid, min_bid + step)
    if min_bid <= reservation(pol, seat, value, n_cards, leader_is_high):
        return min_bid
    return -1


@njit(cache=True, nogil=True, inline="always")
def bid_limits(pol, seat, value, n_cards, max_bid):
    """``choose_bid`` for a deterministic policy as two numbers fixed for one auction.

    Such a seat bids the minimum legal amount while that amount is <= the first number (the
    second while the leader it watches is the high bidder; the same but for the blocker) and
    passes otherwise.  Seat cards and cash do not change during an auction, so the engine works
    these out once per auction instead of at every bidding turn.
    """
    lo = min(max_bid, reservation(pol, seat, value, n_cards, False))
    hi = lo
    if int(pol[seat, COL_CODE]) == BLOCKER:
        hi = min(max_bid, reservation(pol, seat, value, n_cards, True))
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def wants_direct(pol, seat, r, value, price, n_cards):
    if int(pol[seat, COL_CODE]) == RANDOM:
        return r < pol[seat, RANDOM_BUY]
    return price <= reservation(pol, seat, value, n_cards, False)


@njit(cache=True, nogil=True, inline="always")
def _marked(scratch, q, col, value):
    """Whether seat ``q`` favours (``col`` CODE_FAVOUR) or avoids (CODE_AVOID) cards of ``value``."""
    return scratch.codes[q, col] != 0 and scratch.codes[q, col] == value + 1


@njit(cache=True, nogil=True, inline="always")
def set_open_codes(codes, pol, q):
    """Seat ``q``'s favoured and avoided values (policy columns) into its codes, for the seats asked at each
    decision (open_bid, open_buy; the built-ins read them from the policy row, reservation), and whether a
    learned seat bids up to limits (P_LIMITS, learned_limit)."""
    codes[q, CODE_FAVOUR] = int(pol[q, COL_FAVOUR])
    codes[q, CODE_AVOID] = int(pol[q, COL_AVOID])
    codes[q, CODE_LIMITS] = 1 if int(pol[q, COL_CODE]) == CUSTOM and pol[q, P_LIMITS] != 0.0 else 0


@njit(cache=True, nogil=True, inline="always")
def sell_margin(pol, seat):
    """Minimum sale gain for the deterministic policies (their last parameter)."""
    code = int(pol[seat, COL_CODE])
    if code == PAR:
        return pol[seat, PAR_MARGIN]
    if code == MULTIPLE:
        return pol[seat, MULTIPLE_MARGIN]
    return pol[seat, ELIGIBILITY_MARGIN]  # ELIGIBILITY and BLOCKER (BLOCKER_MARGIN, the same column)


@njit(cache=True, nogil=True, inline="always")
def may_sell(pol, seat, sale_factor):
    """Whether ``seat`` can ever sell: at a sale factor <= 1 no card sells above its value, so a
    deterministic built-in sells only with a margin <= 0; random and custom seats may."""
    code = int(pol[seat, COL_CODE])
    if code == RULES:  # unless its sell rules can never hold (rule_tables)
        return pol[seat, P_MAY_SELL] != 0.0
    return code == RANDOM or code == CUSTOM or sale_factor > 1.0 or sell_margin(pol, seat) <= 0


# == the three decisions the engine asks for =================================================================
@njit(cache=True, nogil=True, inline="always")
def auction_start(scratch, st, pol, tables, n_players, q, value, max_bid):
    """Seat ``q``'s limits for the auction of a card of ``value`` (``max_bid``: ceiling and credit).

    Cash, cards and standings stay fixed during an auction, so each seat's spending limit, the leader
    it watches and a deterministic policy's reservation are worked out once here rather than at each of
    its bidding turns.
    """
    code = scratch.codes[q, CODE_POLICY]
    scratch.aux[q, A_MAX] = max_bid
    scratch.aux[q, A_LIMITS] = LIMITS_UNSET  # a learned seat's limits: at the first bid needing each (learned_limit)
    scratch.aux[q, A_LEADER] = leader_other(st, n_players, q) if code == BLOCKER or code >= RULES else -2
    if code != RANDOM and code < RULES:
        lo, hi = bid_limits(pol, q, value, st[q, C_CARDS], max_bid)
        scratch.aux[q, A_LIM] = lo
        scratch.aux[q, A_LIM_LEADER] = hi
    elif scratch.codes[q, CODE_BID_TABLE] != 0:  # a rule list's limits from its tables
        i = tables.vidx[value]
        scratch.aux[q, A_LIM] = min(max_bid, tables.bid[q, 0, i, st[q, C_CARDS]])
        scratch.aux[q, A_LIM_LEADER] = min(max_bid, tables.bid[q, 1, i, st[q, C_CARDS]])


@njit(cache=True, nogil=True, inline="always")
def asked_each_time(scratch, p, decision):
    """Whether seat ``p`` is a rule list or scorer asked at each such decision (``open_bid``,
    ``open_buy``, ``open_sell``) rather than answered by ``bid``, ``buy`` and ``sell``."""
    if scratch.codes[p, CODE_POLICY] < RULES:
        return False
    if decision == BID:
        return scratch.codes[p, CODE_BID_TABLE] == 0  # no bid table
    if decision == BUY:
        return scratch.codes[p, CODE_BUY_TABLE] == 0  # no buy table
    # a rule list whose sell rules can never hold keeps its cards without asking
    return scratch.codes[p, CODE_SELLS] != 0


@njit(cache=True, nogil=True, inline="always")
def bid(scratch, st, pol, s, r, value, min_bid, high):
    """What seat ``s`` bids at its turn, or -1 to pass (``high``: the high bidder, -1 for none yet)."""
    if scratch.codes[s, CODE_POLICY] == RANDOM:
        return choose_bid(pol, s, r, value, min_bid, scratch.aux[s, A_MAX], st[s, C_CARDS], False)
    # the minimum bid while it is within the auction's limit (auction_start)
    lim = scratch.aux[s, A_LIM_LEADER] if high == scratch.aux[s, A_LEADER] else scratch.aux[s, A_LIM]
    return min_bid if min_bid <= lim else -1


@njit(cache=True, nogil=True, inline="always")
def buy(scratch, st, pol, tables, p, r, value, cost):
    """Whether the auction winner ``p`` buys a shown card of ``value`` at ``cost`` (which it can pay)."""
    if scratch.codes[p, CODE_POLICY] < RULES:
        return wants_direct(pol, p, r, value, cost, st[p, C_CARDS])
    return tables.buy[p, tables.vidx[value], st[p, C_CARDS]] != 0


@njit(cache=True, nogil=True, inline="always")
def sell(scratch, st, pol, rules, p, r, rnd):
    """The collection slot of the card seat ``p`` sells this round, or -1 to keep them all.

    Only cards acquired before round ``rnd`` may be sold.
    """
    cround = scratch.cround
    cval = scratch.cval
    n_cards = st[p, C_CARDS]
    pick = -1
    if scratch.codes[p, CODE_POLICY] == RANDOM:
        n_ok = 0
        for k in range(n_cards):
            if cround[p, k] < rnd:
                n_ok += 1
        if n_ok > 0 and r < pol[p, RANDOM_SELL]:
            which = int(r / pol[p, RANDOM_SELL] * n_ok)  # r is uniform below sell_prob
            for k in range(n_cards):
                if cround[p, k] < rnd:
                    if which == 0:
                        pick = k
                        break
                    which -= 1
    elif scratch.codes[p, CODE_SELLS] != 0 and n_cards > rules[R.R_MIN_CARDS]:  # a built-in keeps enough cards to win
        best_gain = 0
        margin = sell_margin(pol, p)
        sale_factor = rules[R.R_SALE_FACTOR]
        for k in range(n_cards):
            if cround[p, k] < rnd:
                gain = price(cval[p, k], sale_factor) - cval[p, k]
                if gain >= margin and (pick < 0 or gain > best_gain):
                    pick = k
                    best_gain = gain
    return pick


@njit(cache=True, nogil=True, inline="always")
def leader_other(st, n_players, me):
    """The opponent with the best standing (cash + held value); lowest seat on ties."""
    best = -1
    best_val = 0
    for q in range(n_players):
        if q == me:
            continue
        val = st[q, C_CASH] + st[q, C_HELD_VAL]
        if best < 0 or val > best_val:
            best = q
            best_val = val
    return best


@njit(cache=True, nogil=True, inline="always")
def spend_limit(st, p, credit):
    """Most seat ``p`` may pay: its cash plus the credit limit (``NO_CREDIT_LIMIT`` without one)."""
    if credit < 0:
        return NO_CREDIT_LIMIT
    return st[p, C_CASH] + credit


# == rules and custom seats: the decision view, the rule interpreter, the scorer call ========================
@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _view(f, st, rules, n_players, p, rnd, pile, decision):
    """Fill the features every decision shares; the decision's own ones start at 0."""
    cash = st[p, C_CASH]
    cards = st[p, C_CARDS]
    held = st[p, C_HELD_VAL]
    min_cards = int(rules[R.R_MIN_CARDS])
    leader = -1
    lead_val = 0
    opp_cards = 0
    for q in range(n_players):
        if q != p:
            val = st[q, C_CASH] + st[q, C_HELD_VAL]
            if leader < 0 or val > lead_val:
                leader = q
                lead_val = val
            opp_cards = max(opp_cards, st[q, C_CARDS])
    f[F_ROUND] = rnd
    f[F_ROUNDS_LEFT] = rules[R.R_ROUNDS] - rnd
    f[F_DECISION] = decision
    f[F_VALUE] = 0.0
    f[F_PRICE] = 0.0
    f[F_GAIN] = 0.0
    f[F_MIN_BID] = 0.0
    f[F_HIGH_BID] = 0.0
    f[F_LEADER_IS_HIGH] = 0.0
    f[F_BIDDERS] = 0.0
    f[F_MAX_PAY] = 0.0
    f[F_CASH] = cash
    f[F_CARDS] = cards
    f[F_NEEDED] = max(0, min_cards - cards)
    f[F_MIN_CARDS] = min_cards
    f[F_HELD_VALUE] = held
    f[F_STANDING] = cash + held
    f[F_LEADER_STANDING] = lead_val
    f[F_OPP_MAX_CARDS] = opp_cards
    f[F_PILE] = pile
    f[F_ACQUIRED] = 0.0
    f[F_SELLABLE] = 0.0


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _up_to(rl, s, f, stack, cost, up_to, stop):
    """The rule list's answer to "pay ``cost``?": the first rule of action ``up_to`` whose condition
    holds and whose amount reaches ``cost`` says yes; a ``stop`` rule whose condition holds, or no rule,
    says no.  Rules of other actions are skipped."""
    params = rl.params[s]
    for r in range(rl.span[s, 0], rl.span[s, 1]):
        act = rl.meta[r, 0]
        if act == up_to:
            if (_evaluate(rl.ops, rl.args, 2 * r, f, params, stack) != 0.0
                    and cost <= _evaluate(rl.ops, rl.args, 2 * r + 1, f, params, stack) + SLACK):
                return True
        elif act == stop:
            if _evaluate(rl.ops, rl.args, 2 * r, f, params, stack) != 0.0:
                return False
    return False


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _best(scorer, f, cand, n, params, scores):
    """The row a custom scorer ranks highest among the first ``n`` candidates (the first on ties)."""
    scorer(_borrowed(f), _borrowed(cand[:n]), _borrowed(params), _borrowed(scores[:n]))
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return best


@njit(cache=True, nogil=True, inline="always")
def _row(cand, i, action, value, cost, gain, acquired, slot):
    cand[i, K_ACTION] = action
    cand[i, K_VALUE] = value
    cand[i, K_PRICE] = cost
    cand[i, K_GAIN] = gain
    cand[i, K_ACQUIRED] = acquired
    cand[i, K_SLOT] = slot


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def open_bid(scratch, st, rules, tables, rl, scorers, n_players, s, rnd, pile, value, min_bid, high, high_bid, n_in):
    """``bid`` for a seat asked at each turn; ``high_bid`` is the high bid, ``n_in`` seats have not passed."""
    if min_bid > scratch.aux[s, A_MAX] or _marked(scratch, s, CODE_AVOID, value):  # the only move, or avoided
        return -1
    if _marked(scratch, s, CODE_FAVOUR, value):  # a favoured value: bid while the seat may pay
        return min_bid
    if scratch.codes[s, CODE_LIMITS] != 0:  # a learned model whose answers are limits
        lead = 1 if high >= 0 and high == scratch.aux[s, A_LEADER] else 0
        if (scratch.aux[s, A_LIMITS] >> lead) & (LIMIT_SET | LIMIT_ASK) == 0:  # not worked out yet
            learned_limit(scratch, st, rules, tables, rl, n_players, s, rnd, pile, value, min_bid, lead)
        if (scratch.aux[s, A_LIMITS] >> lead) & LIMIT_SET:
            return min_bid if min_bid <= scratch.aux[s, A_LIM_LEADER if lead else A_LIM] else -1
    f = scratch.feats[s]
    _view(f, st, rules, n_players, s, rnd, pile, BID)
    f[F_VALUE] = value
    f[F_PRICE] = min_bid
    f[F_GAIN] = value - min_bid
    f[F_MIN_BID] = min_bid
    f[F_HIGH_BID] = high_bid if high >= 0 else 0
    f[F_LEADER_IS_HIGH] = 1.0 if high >= 0 and high == scratch.aux[s, A_LEADER] else 0.0
    f[F_BIDDERS] = n_in - 1
    f[F_MAX_PAY] = scratch.aux[s, A_MAX]
    if scratch.codes[s, CODE_POLICY] == RULES:
        return min_bid if _up_to(rl, s, f, scratch.stack, min_bid, ACT_BID_UP_TO, ACT_PASS) else -1
    _row(scratch.cand, 0, DO_NOTHING, 0, 0, 0, -1, -1)
    _row(scratch.cand, 1, DO_BID, value, min_bid, value - min_bid, -1, -1)
    return min_bid if _best(scorers[s], f, scratch.cand, 2, rl.params[s], scratch.scores) == 1 else -1


# A learned model that reads none of these features (and plays greedily) answers "bid the minimum?" by the
# same sums at every bidding turn of an auction but the price and gain of the bid row, and whether the leader
# holds the high bid: its answers are a limit per auction (two: leader holding the high bid or not), as the
# built-ins' reservation (Game.prepare marks such a seat, P_LIMITS).
LIMIT_FEATURES = (F_PRICE, F_GAIN, F_MIN_BID, F_HIGH_BID, F_BIDDERS)
P_LIMITS = 4  # policy-matrix column of a learned seat (its column 1 is the temperature): 1 = bids from limits


def bids_from_limits(params: np.ndarray) -> bool:
    """Whether a learned seat's packed model ``params`` answers with limits per auction (P_LIMITS): it plays
    greedily, reads none of LIMIT_FEATURES, and its category reads neither the price nor the gain column."""
    return _learned.leaves_out(params, LIMIT_FEATURES) and not {int(params[_learned.H_CAT_COL]),
                                                                int(params[_learned.H_CAT2_COL])} & {K_PRICE, K_GAIN}


# A greedy learned seat (P_LIMITS) is not called through the scorer pointer: the engine sums its model's rows
# itself (learned.dense_weights, row_score), as the scorer would (the same sums in the same order), which saves
# most of what a scorer call costs (the features standardised once per column, the call, the matrix views).


@njit(cache=True, nogil=True, inline="always", _nrt=False)
def _weights(scratch, tables, q, f):
    """Seat ``q``'s model's column weights at the decision view ``f`` (learned.dense_weights from its lane tables,
    RuleTables.lw and lz), in the rule interpreter's scratch, free here: a learned seat has no rules."""
    g = scratch.stack[:_learned.LANES]
    _learned.dense_weights(f, tables.lw[q], tables.lz[q], scratch.stack[_learned.LANES:], g)
    return g


@njit(cache=True, nogil=True, _nrt=False)
def learned_best(scratch, tables, params, q, n):
    """The row of the first ``n`` candidates (scratch.cand) that greedy learned seat ``q``'s model ranks highest
    at its decision view (scratch.feats[q]), the first on ties: ``_best`` with the scorer's sums done here.
    Not inlined: the open decisions that call it are inlined at every caller, and this code once is enough."""
    g = _weights(scratch, tables, q, scratch.feats[q])
    best = 0
    top = _learned.row_score(scratch.cand[0], params, g)
    for i in range(1, n):
        x = _learned.row_score(scratch.cand[i], params, g)
        if x > top:
            best = i
            top = x
    return best


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _bid_terms(cand, params, g, value, m):
    """learned.row_score of the bid row, split so that ``_bid_score`` sums it at any price from the same terms in
    the same order: the sum of the terms before the price's, the price's and the gain's weights, means and
    1 / spreads, and the terms after them (acquired, slot, the category's weight), each with whether it is
    added (1.0) or not (0.0).  The category must not read the price or the gain (prepare: P_LIMITS)."""
    o_cm = _learned.HEADER + 2 * int(params[_learned.H_F])
    o_ci = o_cm + int(params[_learned.H_C])
    pre = 0.0
    t, added = _learned.column_term(params, g, K_ACTION, DO_BID)
    if added:
        pre += t
    t, added = _learned.column_term(params, g, K_VALUE, value)
    if added:
        pre += t
    t4, on4 = _learned.column_term(params, g, K_ACQUIRED, -1)
    t5, on5 = _learned.column_term(params, g, K_SLOT, -1)
    _row(cand, 0, DO_BID, value, m, value - m, -1, -1)
    u, on_u = _learned.category_weight(cand[0], params)
    return (pre, g[K_PRICE], params[o_cm + K_PRICE], params[o_ci + K_PRICE], g[K_GAIN], params[o_cm + K_GAIN],
            params[o_ci + K_GAIN], t4, 1.0 if on4 else 0.0, t5, 1.0 if on5 else 0.0, u, 1.0 if on_u else 0.0)


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def _bid_score(b, value, m):
    """learned.row_score of the bid row at price ``m`` from ``_bid_terms``' ``b``, to the bit."""
    s = b[0]
    if b[3] != 0.0:
        s += b[1] * min(max((m - b[2]) * b[3], -_learned.CLIP), _learned.CLIP)
    if b[6] != 0.0:
        s += b[4] * min(max(((value - m) - b[5]) * b[6], -_learned.CLIP), _learned.CLIP)
    if b[8] != 0.0:
        s += b[7]
    if b[10] != 0.0:
        s += b[9]
    if b[12] != 0.0:
        s += b[11]
    return s


@njit(cache=True, nogil=True, inline="always")
def _slope(params, g):
    """-1 when the bid row's score never rises with its price (the price column's weight is <= 0 and the gain
    column's, value - price, >= 0), 1 when it never falls (the opposite signs), 0 otherwise.  Each term is a
    clipped line computed in rounded steps that each keep its direction, and the row's sum adds them in a
    fixed order, so the score as computed, not only the exact one, keeps the direction its terms share."""
    ci = _learned.HEADER + 2 * int(params[_learned.H_F]) + int(params[_learned.H_C])  # the columns' 1 / spread
    p = g[K_PRICE] * params[ci + K_PRICE]
    q = g[K_GAIN] * params[ci + K_GAIN]
    if p <= 0.0 and q >= 0.0:
        return -1
    if p >= 0.0 and q <= 0.0:
        return 1
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def learned_limit(scratch, st, rules, tables, rl, n_players, s, rnd, pile, value, min_bid, lead):
    """Seat ``s``'s limit for this auction from its bidding turn at ``min_bid`` on, with the leader it watches
    holding the high bid (``lead`` 1: A_LIM_LEADER) or not (0: A_LIM): the highest bid it makes before it would
    first pass.  Each is worked out at the first turn that needs it (most seats meet one of the two in an
    auction), and a bid only rises, so later turns need no lower price.  Each price up to what the seat may pay
    is scored as the scorer scores the bid row there (learned.dense_weights, row_score: the same sums in the same
    order), so a bid from the limit is the scorer's own answer.  If the model would bid again at a higher price
    after a pass, no limit says that: the seat is asked at each such turn instead (LIMIT_ASK)."""
    f = scratch.feats[s]
    _view(f, st, rules, n_players, s, rnd, pile, BID)
    f[F_VALUE] = value
    f[F_MAX_PAY] = scratch.aux[s, A_MAX]
    f[F_LEADER_IS_HIGH] = lead
    params = rl.params[s]
    row = scratch.cand[0]
    top = scratch.aux[s, A_MAX]
    g = _weights(scratch, tables, s, f)
    _row(scratch.cand, 0, DO_NOTHING, 0, 0, 0, -1, -1)
    keep = _learned.row_score(row, params, g)
    b = _bid_terms(scratch.cand, params, g, value, min_bid)
    slope = _slope(params, g)
    if slope < 0:  # a bid's score never rises with its price: halve the range
        lo, hi = min_bid - 1, top  # the limit lies in lo..hi: the seat bids at lo (or lo is below min_bid)
        while lo < hi:
            m = (lo + hi + 1) // 2
            if _bid_score(b, value, m) > keep:
                lo = m
            else:
                hi = m - 1
        lim = lo
    elif slope > 0:  # it never falls: the seat bids at every price, or at none, or only from some price on
        if _bid_score(b, value, min_bid) > keep:
            lim = top
        elif not _bid_score(b, value, top) > keep:
            lim = min_bid - 1
        else:
            scratch.aux[s, A_LIMITS] |= LIMIT_ASK << lead
            return
    else:
        lim = min_bid - 1
        passed = False
        for m in range(min_bid, top + 1):
            if _bid_score(b, value, m) > keep:  # the scorer takes the bid row only when it scores higher (_best)
                if passed:
                    scratch.aux[s, A_LIMITS] |= LIMIT_ASK << lead
                    return
                lim = m
            else:
                passed = True
    scratch.aux[s, A_LIM_LEADER if lead else A_LIM] = lim
    scratch.aux[s, A_LIMITS] |= LIMIT_SET << lead


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def open_buy(scratch, st, rules, tables, rl, scorers, n_players, p, rnd, pile, value, cost):
    """``buy`` for a seat asked at each decision."""
    if _marked(scratch, p, CODE_AVOID, value):
        return False
    if _marked(scratch, p, CODE_FAVOUR, value):
        return True
    f = scratch.feats[p]
    _view(f, st, rules, n_players, p, rnd, pile, BUY)
    f[F_VALUE] = value
    f[F_PRICE] = cost
    f[F_GAIN] = value - cost
    f[F_MAX_PAY] = spend_limit(st, p, int(rules[R.R_CREDIT]))
    if scratch.codes[p, CODE_POLICY] == RULES:
        return _up_to(rl, p, f, scratch.stack, cost, ACT_BUY_UP_TO, ACT_DECLINE)
    _row(scratch.cand, 0, DO_NOTHING, 0, 0, 0, -1, -1)
    _row(scratch.cand, 1, DO_BUY, value, cost, value - cost, -1, -1)
    if scratch.codes[p, CODE_LIMITS] != 0:  # a greedy learned seat: its rows summed here, as _best
        return learned_best(scratch, tables, rl.params[p], p, 2) == 1
    return _best(scorers[p], f, scratch.cand, 2, rl.params[p], scratch.scores) == 1


@njit(cache=True, nogil=True, _nrt=False)
def _target(scratch, p, n_cards, rnd, sale_factor, target):
    """The sellable card (acquired before ``rnd``) a ``sell`` rule's target picks; first on ties; -1: none."""
    pick = -1
    best = 0.0
    for k in range(n_cards):
        if scratch.cround[p, k] >= rnd:
            continue
        v = scratch.cval[p, k]
        if target == T_BEST_GAIN:
            key = price(v, sale_factor) - v
        elif target == T_LOWEST:
            key = -v
        elif target == T_HIGHEST:
            key = v
        else:  # T_OLDEST
            key = -scratch.cround[p, k]
        if pick < 0 or key > best:
            pick = k
            best = key
    return pick


@njit(cache=True, nogil=True, _nrt=False, forceinline=True)
def open_sell(scratch, st, rules, tables, rl, scorers, n_players, p, rnd, pile):
    """``sell`` for a rules or custom seat."""
    n_cards = st[p, C_CARDS]
    n_ok = 0
    for k in range(n_cards):
        if scratch.cround[p, k] < rnd:
            n_ok += 1
    if n_ok == 0:  # keeping is the only legal move
        return -1
    f = scratch.feats[p]
    _view(f, st, rules, n_players, p, rnd, pile, SELL)
    f[F_SELLABLE] = n_ok
    sale_factor = rules[R.R_SALE_FACTOR]
    if scratch.codes[p, CODE_POLICY] == RULES:
        for r in range(rl.span[p, 0], rl.span[p, 1]):
            act = rl.meta[r, 0]
            if act == ACT_SELL:
                k = _target(scratch, p, n_cards, rnd, sale_factor, rl.meta[r, 1])
                v = scratch.cval[p, k]
                f[F_VALUE] = v
                f[F_PRICE] = price(v, sale_factor)
                f[F_GAIN] = f[F_PRICE] - v
                f[F_ACQUIRED] = scratch.cround[p, k]
                if _evaluate(rl.ops, rl.args, 2 * r, f, rl.params[p], scratch.stack) != 0.0:
                    return k
            elif act == ACT_KEEP:
                f[F_VALUE] = 0.0
                f[F_PRICE] = 0.0
                f[F_GAIN] = 0.0
                f[F_ACQUIRED] = 0.0
                if _evaluate(rl.ops, rl.args, 2 * r, f, rl.params[p], scratch.stack) != 0.0:
                    return -1
        return -1
    _row(scratch.cand, 0, DO_NOTHING, 0, 0, 0, -1, -1)
    n = 1
    for k in range(n_cards):
        if scratch.cround[p, k] < rnd:
            v = scratch.cval[p, k]
            c = price(v, sale_factor)
            _row(scratch.cand, n, DO_SELL, v, c, c - v, scratch.cround[p, k], k)
            n += 1
    if scratch.codes[p, CODE_LIMITS] != 0:  # a greedy learned seat: its rows summed here, as _best
        best = learned_best(scratch, tables, rl.params[p], p, n)
    else:
        best = _best(scorers[p], f, scratch.cand, n, rl.params[p], scratch.scores)
    return -1 if best == 0 else int(scratch.cand[best, K_SLOT])


# == rule lists as tables ====================================================================================
# A rule list's bid and buy answers usually depend on little: the card's value and the cards the seat holds
# (and the cell's constants and $params).  For such a list ``prepare`` works every answer out once, into
# tables the engine looks up as cheaply as a built-in reads its reservation price; a list reading anything
# else (cash, the round, the high bid...) is interpreted at each decision.  Either way the answers are the
# interpreter's own, so results do not depend on which path a seat takes.
BID_TABLE_FEATURES = frozenset({F_DECISION, F_VALUE, F_CARDS, F_NEEDED, F_MIN_CARDS, F_LEADER_IS_HIGH})
BUY_TABLE_FEATURES = frozenset({F_DECISION, F_VALUE, F_PRICE, F_GAIN, F_CARDS, F_NEEDED, F_MIN_CARDS})
SELL_DOMAIN_FEATURES = BUY_TABLE_FEATURES
MAX_TABLE = 1 << 16  # table cells (distinct card values x collection sizes) per seat; beyond it, interpret
# policy-matrix columns of a rules seat (its numbers travel in the rule arrays instead)
P_BID_TABLE, P_BUY_TABLE, P_MAY_SELL = 1, 2, 3


class RuleTables(NamedTuple):
    """Rule-list answers worked out before play, indexed by a card value's index and the cards held."""

    vidx: np.ndarray  # (max value + 1,) int64: a value's column (-1: not in the deck)
    bid: np.ndarray  # (P, 2, values, cap + 1) int64: the highest bid, leader not / leader holding the high bid
    buy: np.ndarray  # (P, values, cap + 1) int64: 1 when the seat buys a shown card of that value
    # a greedy learned seat's model as learned.dense_weights reads it (learned.lane_tables; 0 for other seats)
    lw: np.ndarray  # (P, 1 + N_FEATURES, learned.LANES) float64
    lz: np.ndarray  # (P, 2, N_FEATURES) float64


def _reads(rl: RuleArrays, seat: int, actions: tuple[int, ...]) -> set[int]:
    """The features the seat's rules of ``actions`` read, in their conditions or amounts."""
    out: set[int] = set()
    for r in range(rl.span[seat, 0], rl.span[seat, 1]):
        if rl.meta[r, 0] in actions:
            for row in (2 * r, 2 * r + 1):
                out |= {int(a) for op, a in zip(rl.ops[row], rl.args[row], strict=True) if op == OP_FEATURE}
    return out


def rule_tables(pol: np.ndarray, rl: RuleArrays, rules_vec: np.ndarray, deck: np.ndarray, cap: int) -> RuleTables:
    """Mark each rules seat's table and sale columns in ``pol`` and build its tables (see above)."""
    n = pol.shape[0]
    values = np.unique(deck)
    vidx = np.full(int(values[-1]) + 1, -1, dtype=np.int64)
    vidx[values] = np.arange(values.size)
    small = values.size * (cap + 1) <= MAX_TABLE
    for q in range(n):
        if int(pol[q, COL_CODE]) != RULES:
            continue
        pol[q, P_BID_TABLE] = small and _reads(rl, q, (ACT_BID_UP_TO, ACT_PASS)) <= BID_TABLE_FEATURES
        pol[q, P_BUY_TABLE] = small and _reads(rl, q, (ACT_BUY_UP_TO, ACT_DECLINE)) <= BUY_TABLE_FEATURES
        pol[q, P_MAY_SELL] = 1.0
    shape = (values.size, cap + 1) if small else (0, 0)
    lw, lz = np.zeros((n, 1 + N_FEATURES, _learned.LANES)), np.zeros((n, 2, N_FEATURES))
    for q in range(n):
        if int(pol[q, COL_CODE]) == CUSTOM and pol[q, P_LIMITS] != 0.0:
            lw[q], lz[q] = _learned.lane_tables(rl.params[q])
    tables = RuleTables(vidx, np.full((n, 2, *shape), -1, dtype=np.int64), np.zeros((n, *shape), dtype=np.int64),
                        lw, lz)
    if small and (pol[:, COL_CODE] == RULES).any():  # no rules seat: nothing to fill, nothing to compile
        _fill_tables(pol, rl, rules_vec, values, tables)
    for q in range(n):  # a seat whose sell rules can never hold never sells: skip its sales, as for a built-in
        if int(pol[q, COL_CODE]) == RULES and small and _reads(rl, q, (ACT_SELL,)) <= SELL_DOMAIN_FEATURES:
            pol[q, P_MAY_SELL] = _may_sell(rl, q, rules_vec, values, cap)
    return tables


@njit(cache=True, nogil=True)
def _fill_tables(pol, rl, rules, values, tables):
    f = np.zeros(N_FEATURES)
    stack = np.zeros(STACK)
    min_cards = int(rules[R.R_MIN_CARDS])
    direct_factor = rules[R.R_DIRECT_FACTOR]
    for q in range(pol.shape[0]):
        if int(pol[q, COL_CODE]) != RULES:
            continue
        params = rl.params[q]
        for i in range(values.size):
            v = values[i]
            for n in range(tables.bid.shape[3]):
                f[:] = 0.0
                f[F_VALUE] = v
                f[F_CARDS] = n
                f[F_NEEDED] = max(0, min_cards - n)
                f[F_MIN_CARDS] = min_cards
                if pol[q, P_BID_TABLE] != 0:
                    f[F_DECISION] = BID
                    for lead in range(2):
                        f[F_LEADER_IS_HIGH] = lead
                        tables.bid[q, lead, i, n] = _bid_limit(rl, q, f, params, stack)
                    f[F_LEADER_IS_HIGH] = 0.0
                if pol[q, P_BUY_TABLE] != 0:
                    cost = price(v, direct_factor)
                    f[F_DECISION] = BUY
                    f[F_PRICE] = cost
                    f[F_GAIN] = v - cost
                    tables.buy[q, i, n] = _up_to(rl, q, f, stack, cost, ACT_BUY_UP_TO, ACT_DECLINE)


@njit(cache=True, nogil=True)
def _bid_limit(rl, s, f, params, stack):
    """The highest bid the seat's bid rules allow: the first holding ``bid_up_to`` rule whose amount reaches
    the minimum bid is taken, so a minimum bid is made exactly when it is <= the largest amount (rounded
    down with the slack) among the holding ``bid_up_to`` rules before the first holding ``pass``."""
    best = -1
    for r in range(rl.span[s, 0], rl.span[s, 1]):
        act = rl.meta[r, 0]
        if act == ACT_BID_UP_TO:
            if evaluate(rl.ops, rl.args, 2 * r, f, params, stack) != 0.0:
                a = evaluate(rl.ops, rl.args, 2 * r + 1, f, params, stack) + SLACK
                if a == a:  # NaN allows no bid
                    best = max(best, int(math.floor(min(a, 1e15))))
        elif act == ACT_PASS:
            if evaluate(rl.ops, rl.args, 2 * r, f, params, stack) != 0.0:
                break
    return max(best, -1)


@njit(cache=True, nogil=True)
def _may_sell(rl, q, rules, values, cap):
    """Whether any of the seat's sell rules can hold for some card value and collection size."""
    f = np.zeros(N_FEATURES)
    stack = np.zeros(STACK)
    min_cards = int(rules[R.R_MIN_CARDS])
    sale_factor = rules[R.R_SALE_FACTOR]
    for r in range(rl.span[q, 0], rl.span[q, 1]):
        if rl.meta[r, 0] != ACT_SELL:
            continue
        for v in values:
            for n in range(1, cap + 1):
                c = price(v, sale_factor)
                f[:] = 0.0
                f[F_DECISION] = SELL
                f[F_VALUE] = v
                f[F_PRICE] = c
                f[F_GAIN] = c - v
                f[F_CARDS] = n
                f[F_NEEDED] = max(0, min_cards - n)
                f[F_MIN_CARDS] = min_cards
                if evaluate(rl.ops, rl.args, 2 * r, f, rl.params[q], stack) != 0.0:
                    return True
    return False
