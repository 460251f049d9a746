"""Circle the Wagons policies as data, and the greedy placement search they all value cards with.

A seat's policy is a row of the policy matrix (fixed columns, see ``COL_*``):
policy code, placement mode, P2's starting-card rule, lookahead, gift weight,
goal weight and, for a ``rules`` or ``custom`` seat, which costly features its draft needs.
Sweeping a weight changes numbers in that row only.  ``decide.py`` is the one
decision interface the engine calls; it reads these rows.

Drafting (``code``):
- ``first``: always the first available card.
- ``gain``: the card (among the first ``lookahead``) whose best placement raises
  the own score most.
- ``gain_minus_gift``: gain minus ``gift_weight`` times the summed gain the skipped
  cards give the opponent (each valued by its best placement in the opponent's town).
- ``random``: uniform among the first ``lookahead`` cards.
- ``rules``: the seat's rule list over the decision view (decide.py).
- ``custom``: the seat's own @numba.njit scorer over the candidates (decide.py).

Placement (``placement``): ``random`` legal spot; ``greedy`` on full score
(lands + ``goal_weight`` x goals); ``lands`` on land groups only; ``fast`` on a cheap
estimate of the full score's gain read from the cells around the card (``fast.py``);
``quick`` on fast's first ranking alone (no spot valued further: ~1.6x fast, less faithful).
Ties keep the first candidate in scan order (top to bottom, left to right, 0 before 180).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numba import njit, types

from boardsim import rng
from boardsim import tree as _tree
from boardsim.errors import BadInput
from boardsim.games.base import SEARCH as NEEDS_SEARCH  # (SEARCH here: search's signatures)
from boardsim.games.base import Option, Policy, Seat, custom_policy, learned_policy, resolve_options, rules_policy
from boardsim.games.wagons import fast as F
from boardsim.games.wagons import search as SR
from boardsim.games.wagons import town as TW
from boardsim.games.wagons.bound import bound

FIRST, GAIN, GAIN_MINUS_GIFT, RANDOM, RULES, CUSTOM, MCTS = range(7)
PLACE_RANDOM, PLACE_GREEDY, PLACE_LANDS, PLACE_FAST, PLACE_QUICK = range(5)
START_FIRST, START_RANDOM, START_SPOIL = range(3)
# search's ``rank``: every card's exact best; the built-in draft's pick's (exact gifts); the same with gifts
# that are lower bounds; each card's value at one spot (a floor); one card's exact best unless it settles a
# two-card draft for the first card first (the gift search after a floor)
RANK_NONE, RANK_PICK, RANK_FLOOR, RANK_SPOT, RANK_TARGET = (np.int64(0), np.int64(1), np.int64(2), np.int64(3),
                                                          np.int64(4))
COL_CODE, COL_PLACE, COL_START, COL_LOOK, COL_GIFT, COL_GOALW, COL_NEEDS = range(7)
POLICY_WIDTH = 7
PLACEMENTS = ("random", "greedy", "lands", "fast", "quick")
STARTS = ("first", "random", "spoil")
NEG = -1.0e18
# Compile time: Numba re-optimises a function together with everything it calls, once per compiled
# function, so the thin layers between the engine and ``search`` are inlined into their caller at the
# IR level (no library of their own) and ``search`` is compiled once; search.py's helpers are inlined
# by LLVM instead (forceinline), which does not re-type them at every call site.
THIN = dict(cache=True, nogil=True, _nrt=False, inline="always")
# Compile time again: ``fast`` (an argument of analyse, best_placement, search and decide.py's
# functions) is None in the engine variant for cells where no seat places with ``fast`` or ``quick``
# (quick runs fast.py's code: PLACE_QUICK is the last code, so ``mode >= PLACE_FAST`` means either).  Numba then
# prunes each ``if fast is not None`` branch before typing, so that variant never compiles fast.py
# (cold compile of the default seats 108 -> 91 user-CPU-s on the shared 2-core machine); True keeps it.
# Pruning needs ``fast`` to be an argument of each non-inlined function (it is of ``search``); an
# inline="always" function is pruned in its caller.


def _placement(default: str) -> Option:
    return Option("placement", default, "where to put a card: random legal spot, greedy on full score "
                  "(goals included), greedy on land groups only, on a fast estimate of the full score's gain "
                  "read around the card, or quick: on that estimate's cheap first ranking alone (faster, "
                  "further from greedy; see docs/rules/circle-the-wagons.md)", "choice", choices=PLACEMENTS)


def _start(default: str) -> Option:
    return Option("start", default, "as P2, which circle card starts: the first dealt, a random one, or "
                  "the one worth least to P1 ('spoil')", "choice", choices=STARTS)


def _lookahead(default: int) -> Option:
    return Option("lookahead", default, "how many circle cards (from the first available) drafting "
                  "considers; skipping to the k-th gives k-1 cards away", "int", 1, 15)


_GOALW = Option("goal_weight", 1.0, "weight of goal points against land points when placing greedily "
                "and valuing cards", "float", -10.0, 10.0)
_GIFT = Option("gift_weight", 1.0, "how much each point a skipped card gives the opponent counts against "
               "the taken card's gain", "float", -10.0, 10.0)



def _open(policy: Policy, *declared: Option) -> Policy:
    """A rules or custom policy that also declares parameters of the seat's own (not $params)."""
    return replace(policy, params=policy.params + declared)


POLICIES = (
    Policy("first", FIRST, "always take the first available card", (_placement("greedy"), _start("first"),
                                                                     _GOALW)),
    Policy("gain", GAIN, "take the card with the best immediate gain (gifts ignored)",
           (_placement("greedy"), _start("spoil"), _lookahead(2), _GOALW)),
    Policy("gain_minus_gift", GAIN_MINUS_GIFT, "best gain minus gift_weight x what skipped cards give "
           "the opponent", (_placement("greedy"), _start("spoil"), _lookahead(2), _GIFT, _GOALW)),
    Policy("random", RANDOM, "a random card among the first lookahead", (_placement("random"),
                                                                       _start("random"), _lookahead(15), _GOALW)),
    # the open policies: drafting is the user's; start and placement are the seat's own parameters
    _open(rules_policy(RULES, "the first rule of an ordered list whose condition holds (decision view: "
                              "docs/rules/circle-the-wagons.md)"),
          _placement("greedy"), _start("spoil"), _lookahead(2), _GIFT, _GOALW),
    _open(custom_policy(CUSTOM, "the candidate a user's @numba.njit scorer rates highest"),
          _placement("greedy"), _start("spoil"), _lookahead(2), _GOALW),
    # a model fitted to the search's drafts (boardsim.learned), asked where a custom scorer is; it considers
    # the search's three cards and places as the heuristics do
    _open(learned_policy(CUSTOM, "a model learned from the mcts search's drafts (`boardsim learn`), scoring the "
                                 "draft candidates as a custom scorer does"),
          _placement("greedy"), _start("spoil"), _lookahead(3), _GOALW),
    # information-set MCTS over the step interface (mcts.py; docs/rules/circle-the-wagons.md): its own engine
    # variant, compiled only for cells with an mcts seat
    Policy("mcts", MCTS, "Monte Carlo tree search over the draft, the starting card and every placement "
           "(candidate spots from the fast estimate), rollouts by a built-in policy",
           # c = 0.3: at 300 iterations against gain_minus_gift it scored 70.0% against 62.5% at 0.7 and 52.9% at 1.5;
           # opponents = tree: playout opponents make it a best response to gain_minus_gift (weaker against gain)
           _tree.params(1000, ("first", "gain", "gain_minus_gift", "random", "learned"), "gain_minus_gift",
                        default_c=0.3,
                        extra=(
               Option("placement", "fast", "how the rollouts' playout policy places cards (its own placement "
                      "parameter)", "choice", choices=PLACEMENTS),
               Option("spots", 4, "candidate spots and rotations per placement: the best of the fast "
                      "estimate's kept spots", "int", 1, 4),
               _lookahead(3),
               Option("widening", 0.0, "progressive widening k0: a node considers its first "
                      "ceil(k0 * (visits + 1) ** 0.5) candidates (0 = all)", "float", 0.0, 100.0),
               Option("opponents", "tree", "the opponent's decisions inside the search: tree nodes of its own "
                      "(tree) or the playout policy's choices (playout)", "choice", choices=("tree", "playout")),
               # playout = "learned": the rollouts' model (expert iteration: boardsim learn's later rounds)
               Option("model", "", "with playout = learned, the model file its rollouts play (empty: the bundled "
                      "model for the table's player count)", "model"),
           )), rollouts="iterations", needs=frozenset({NEEDS_SEARCH})),
)
_COLUMNS = {"placement": COL_PLACE, "start": COL_START, "lookahead": COL_LOOK, "gift_weight": COL_GIFT,
            "goal_weight": COL_GOALW}


def policy_matrix(seats: Sequence[Seat]) -> np.ndarray:
    """Seats as float64[P, POLICY_WIDTH] in fixed columns (unused ones keep neutral values)."""
    by_name = {p.name: p for p in POLICIES}
    out = np.zeros((len(seats), POLICY_WIDTH), dtype=np.float64)
    for i, seat in enumerate(seats):
        if seat.policy not in by_name:
            raise BadInput(f"seats[{i}].policy", f"unknown policy {seat.policy!r} "
                           f"(known: {', '.join(by_name)})")
        pol = by_name[seat.policy]
        try:
            values: Mapping[str, Any] = resolve_options(pol.options_for(seat.params), seat.params)
        except BadInput as e:
            raise e.under(f"seats[{i}].params") from None
        out[i, COL_CODE] = pol.code
        out[i, COL_LOOK] = 1
        for opt in pol.params:
            if opt.name in _COLUMNS:  # not an open policy's name, rules or function
                out[i, _COLUMNS[opt.name]] = opt.encode(values[opt.name])
    return out


@njit(**THIN)
def _detail_value(detail, n_goals, with_goals, goal_weight):
    """lands + goal_weight x goals from a ``town.score`` breakdown (the sums in one fixed order)."""
    v = 0.0
    for k in range(TW.N_LANDS):
        v += detail[k]
    if with_goals:
        g = 0.0
        for k in range(n_goals):
            g += detail[TW.N_LANDS + k]
        v += goal_weight * g
    return v


@njit(**THIN)
def evaluate(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, mode, goal_weight, ws, detail):
    """A town's value to a policy: lands + goal_weight x goals (lands only in 'lands' mode)."""
    with_goals = mode != PLACE_LANDS and goal_weight != 0.0
    TW.score(land, sym, idx, cx, cy, meta[TW.META_N], goals, gp, opp_cnt, with_goals, ws, detail)
    return _detail_value(detail, goals.shape[0], with_goals, goal_weight)


@njit(**THIN)
def analyse(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, mode, goal_weight, ws, detail, fast=True):
    """Analyse a town once for any number of ``search`` calls on it; returns its value now.

    The value equals ``evaluate``'s (the same ``town.score`` call), except in ``fast`` mode, whose
    values are gains (``fast.py``): there it is 0.  A later ``town.score`` or ``analyse`` on another
    town overwrites the analysis, so callers finish one town's searches first.
    """
    with_goals = mode != PLACE_LANDS and goal_weight != 0.0
    if fast is not None:
        if mode >= PLACE_FAST:  # fast and quick values are gains: the town itself counts 0
            if meta[TW.META_N] > 0:  # an empty town's first card is valued by evaluate (search)
                F.prepare(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, with_goals, ws)
            return 0.0
    ws[SR.OLD_ROW, SR.O_NLAY] = SR.prepare(land, sym, idx, cx, cy, meta[TW.META_N], goals, gp, opp_cnt, with_goals, ws,
                                           detail)
    return _detail_value(detail, goals.shape[0], with_goals, goal_weight)


@njit(**THIN)
def best_placement(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, goals, gp, opp_cnt, mode,
                   goal_weight, ws, detail, saved, state, bestv, spots, fast, find):
    """Choose (x, y, rot) for card ``cards[at]`` into spots[0, 0:3]; return the town's value afterwards.

    ``random`` mode draws uniformly among legal (x, y, rot) and returns 0.  ``find`` is ``search``, called
    through a function pointer (SEARCH).
    """
    one = np.int64(1)  # the count of cards to place (search takes a whole run of the circle)
    prep = mode != PLACE_RANDOM and meta[TW.META_N] > 0  # search analyses the town first
    find(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, one, goals, gp, opp_cnt, mode, goal_weight,
         ws, detail, saved, state, bestv, spots, RANK_NONE, 0.0, 0.0, bestv, fast, prep)
    return bestv[0]


# search's signature in each engine variant (its argument fast is None or True).  The engine calls
# search through a function pointer of this type (``find`` in best_placement and decide.py): a direct
# call would link search's code into the engine and have LLVM optimise it a second time there.  For the
# same reason search runs ``analyse`` itself (``prep``): the engine then links none of the analysis.
_C1, _C2 = types.int64[::1], types.int64[:, ::1]
_SEARCH_ARGS = (types.int8[:, ::1], types.int8[:, ::1], types.int16[:, ::1], _C1, _C1, _C1, _C2, _C2, _C1, types.int64,
                types.int64, _C1, _C2, _C1, types.int64, types.float64, _C2, _C1, _C1, types.uint64[::1],
                types.float64[::1], _C2, types.int64, types.float64, types.float64, types.float64[::1])
SEARCH = {None: types.float64(*_SEARCH_ARGS, types.none, types.boolean),
          True: types.float64(*_SEARCH_ARGS, types.boolean, types.boolean)}


@njit(cache=True, nogil=True, _nrt=False)
def search(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, count, goals, gp, opp_cnt, mode,
           goal_weight, ws, detail, saved, state, bestv, spots, rank, now, weight, gifts, fast=True, prep=False):
    """``best_placement`` of each of the cards cards[at : at + count] on one town, into bestv[k] and
    spots[k, 0:3], on a town that ``analyse`` has just analysed (with the same opp_cnt, mode and
    goal_weight).  Greedy modes read that analysis once instead of redoing it for every card, and
    do each position's card-independent work once for all the cards.

    ``rank`` (RANK_*): with RANK_PICK only the card a built-in draft picks (decide.draft) needs its exact
    best: the one with the largest (bestv[k] - now) - weight * gifts[k] (the first on ties).  A card is
    then also skipped at a spot where even its bound cannot beat an earlier card's value so far, or reach
    a later card's; its bestv and spot may then fall short, but only for cards that are not picked.  With
    RANK_FLOOR the gifts are only lower bounds (``gifts[0]`` = 0 exact): a card after the first is then
    skipped only where it cannot beat the first card's value so far, and the first card is never skipped,
    so its bestv is exact and so is the pick's, whatever the true gifts.  RANK_SPOT values each card at one
    spot only (the first legal one in scan order, both rotations, the centre in an empty town): a lower
    bound on its best value (decide.draft's gift floor).  RANK_TARGET (one card, a two-candidate draft's gift
    search, ``gifts`` holding the two candidates' gains instead) stops once the card's value makes the second
    candidate's net gain no better than the first's, the expression of decide._pick: the draft then takes the
    first card, and the card's bestv is that value, not its best; else it is its exact best.

    ``fast`` None compiles no ``fast`` mode (the note at THIN); the default True keeps it.

    With ``prep`` search first runs ``analyse`` on the town, returns its value and ranks against it
    (``now`` is then not read); else it returns 0.
    """
    town_value = 0.0
    if prep and rank == RANK_SPOT:
        town_value = evaluate(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, mode, goal_weight, ws, detail)
    elif prep:
        town_value = analyse(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, mode, goal_weight, ws, detail, fast)
        now = town_value
    n = meta[TW.META_N]
    x0 = meta[TW.META_X0] - 2
    x1 = meta[TW.META_X1] + 2
    y0 = meta[TW.META_Y0] - 2
    y1 = meta[TW.META_Y1] + 2
    if n == 0 or rank == RANK_SPOT:
        # the first card goes anywhere: the centre of the window; RANK_SPOT values each card at one spot,
        # the first legal one in scan order (with ``evaluate``: the value search would find there)
        sx = TW.CENTER
        sy = TW.CENTER
        if n > 0:
            found = False
            for y in range(y0, y1):
                for x in range(x0, x1):
                    if TW.is_legal(idx, n, x, y):
                        sx = x
                        sy = y
                        found = True
                        break
                if found:
                    break
        for k in range(count):
            c = cards[at + k]
            spots[k, 0] = sx
            spots[k, 1] = sy
            if mode == PLACE_RANDOM:
                spots[k, 2] = rng.below(state, np.int64(2))
                bestv[k] = 0.0
                continue
            best = NEG
            # A lone card scores the same turned 180 degrees (every goal reads a cell's orthogonal neighbours,
            # between its left and right ones, and the turn maps those onto each other), so rotation 180
            # never beats 0, which wins ties (test_wagons_fast checks every goal kind): a town's first card
            # is valued at 0 degrees only
            nrot = 1 if n == 0 else 2
            for rot in range(nrot):
                TW.place(land, sym, idx, cx, cy, meta, card_land[c], card_sym[c], sx, sy, rot, saved)
                v = evaluate(land, sym, idx, cx, cy, meta, goals, gp, opp_cnt, mode, goal_weight, ws, detail)
                TW.unplace(land, sym, idx, meta, sx, sy, saved)
                if v > best:
                    best = v
                    spots[k, 2] = rot
            bestv[k] = best
        return town_value
    if mode == PLACE_RANDOM:
        for k in range(count):
            m = 0
            for y in range(y0, y1):
                for x in range(x0, x1):
                    if TW.is_legal(idx, n, x, y):
                        m += 1
            pick = rng.below(state, 2 * m)
            spots[k, 2] = pick & 1
            pick >>= 1
            bestv[k] = 0.0
            for y in range(y0, y1):
                for x in range(x0, x1):
                    if TW.is_legal(idx, n, x, y):
                        if pick == 0:
                            spots[k, 0] = x
                            spots[k, 1] = y
                        pick -= 1
        return town_value
    with_goals = mode != PLACE_LANDS and goal_weight != 0.0
    if fast is not None:  # pruned, with fast.py's code, in the engine variant for cells without fast seats
        if mode >= PLACE_FAST:
            F.search(land, sym, idx, cx, cy, meta, card_land, card_sym, cards, at, count, goals, gp, opp_cnt,
                     with_goals, goal_weight, ws, bestv, spots, mode == PLACE_QUICK)
            return town_value
    # each candidate's value comes from search.value, equal to evaluate() but incremental (see search.py)
    nlay = ws[SR.OLD_ROW, SR.O_NLAY]
    prune = not with_goals or goal_weight >= 0.0  # bound bounds goals from above only
    for k in range(count):
        bestv[k] = NEG
    stop = False
    for y in range(y0, y1):
        for x in range(x0, x1):
            if stop or not TW.is_legal(idx, n, x, y):
                continue
            SR.position(land, sym, idx, cx, cy, x, y, goals, gp, nlay, with_goals, ws)
            # TW.place for every card and rotation at once: new cells get their indices once, each
            # card and rotation just rewrites the 4 cells, and one TW.unplace restores the town
            TW.claim(land, sym, idx, cx, cy, meta, x, y, saved)
            for k in range(count):
                c = cards[at + k]
                if prune:
                    ub = bound(land, sym, idx, cx, cy, x, y, card_land[c], card_sym[c], goals, gp, opp_cnt,
                               with_goals, goal_weight, ws, saved)
                    if ub <= bestv[k]:
                        continue  # neither rotation can beat the best spot found so far
                    if (rank == RANK_PICK or rank == RANK_FLOOR) and _outranked(k, count, ub, bestv, now, weight, gifts,
                                                                                rank == RANK_FLOOR):
                        continue
                for rot in range(2):
                    TW.write_card(land, sym, x, y, card_land[c], card_sym[c], rot)
                    v = SR.value(land, sym, idx, cx, cy, x, y, card_land[c], card_sym[c], rot, goals, gp, opp_cnt,
                                 with_goals, goal_weight, ws, saved)
                    if v > bestv[k]:
                        bestv[k] = v
                        spots[k, 0] = x
                        spots[k, 1] = y
                        spots[k, 2] = rot
                        if rank == RANK_TARGET and gifts[1] - weight * (0.0 + (v - now)) <= gifts[0] - weight * 0.0:
                            stop = True
            TW.unplace(land, sym, idx, meta, x, y, saved)
    return town_value


@njit(**THIN)
def _outranked(k, count, ub, bestv, now, weight, gifts, floor):
    """Whether card k, worth at most ub here, cannot be the built-in draft's pick: the same float expression
    as there, which only grows with the value, against the other cards' values so far.  With ``floor``
    (RANK_FLOOR: gifts after the first are lower bounds, so fk is an upper bound but other cards' f are
    not lower bounds) only a card after the first is, against the first."""
    fk = (ub - now) - weight * gifts[k]
    if floor:
        return k > 0 and fk <= (bestv[0] - now) - weight * gifts[0]
    for j in range(count):
        fj = (bestv[j] - now) - weight * gifts[j]
        if (j < k and fk <= fj) or (j > k and fk < fj):
            return True
    return False


@njit(**THIN)
def eval_mode(pol_row):
    """Drafting values cards the way the seat places them (greedy if it places at random)."""
    mode = int(pol_row[COL_PLACE])
    return PLACE_GREEDY if mode == PLACE_RANDOM else mode
