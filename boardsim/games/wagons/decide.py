"""Circle the Wagons decisions: the one interface the engine calls for every choice a seat makes.

- ``start``: as P2, which circle card starts the draft (the seat's ``start`` parameter);
- ``draft``: how many cards the active seat skips (it takes the next one);
- ``place_taken`` / ``place_free``: where a card goes in a town (the seat's ``placement`` parameter).

``draft`` switches on the seat's policy: the built-in ones value cards with the greedy placement search
(``policies.search``); a ``rules`` seat runs its rule list (boardsim.rulelist) over the decision view
below; a ``custom`` seat scores the candidates with the user's scorer (boardsim.custom).  Start and
placement follow the seat's own parameters under every policy.

Each of them takes ``fast``: None in the engine variant for cells where no seat places with ``fast``
(numba then prunes the fast placement code, policies.search says how), True in the other; and last
``find``, policies.search as a function pointer (policies.SEARCH).  ``draft`` also takes ``user``: None
in the variant for cells without rules or custom seats, whose code is then pruned the same way.

The decision view (docs/rules/circle-the-wagons.md, "Decision view") has the decision features
``DECISION_FEATURES`` and one row of ``CANDIDATE_COLUMNS`` per candidate: the first ``lookahead``
cards of the circle from the first available one.  A rule condition reads the decision features and the
columns of the candidate its target picks.  The features that need a search (gains, gifts, scores) are
computed only when a seat's rule targets or conditions need them (``rule_needs``); a custom seat gets all.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim import rng, rulelist
from boardsim.games.wagons import policies
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as TW
from boardsim.rulelist import Action, RuleArrays

DECISION_FEATURES = ("cards_left", "turn", "is_p1", "my_cards", "opp_cards", "my_score", "opp_score") + tuple(
    f"goal_{g}" for g in range(1, 19))
CANDIDATE_COLUMNS = ("gain", "gift", "position", "card")
FEATURES = DECISION_FEATURES + CANDIDATE_COLUMNS
F_CARDS_LEFT, F_TURN, F_IS_P1, F_MY_CARDS, F_OPP_CARDS, F_MY_SCORE, F_OPP_SCORE, F_GOAL1 = range(8)
C_GAIN, C_GIFT, C_POSITION, C_CARD = range(4)
N_DECISION = len(DECISION_FEATURES)
if (N_DECISION, len(FEATURES), len(CANDIDATE_COLUMNS)) != (ST.N_DECISION, ST.N_FEATURES, ST.N_COLUMNS):
    raise ImportError("state.py's decision view sizes disagree with decide.py's feature names")

TARGETS = ("first", "last", "best_gain", "best_gain_minus_gift", "least_gift")
T_FIRST, T_LAST, T_BEST_GAIN, T_BEST_NET, T_LEAST_GIFT = range(5)
ACTIONS = (Action("draft", "target", "take a card among the first lookahead of the circle; the cards before "
                  "it go to the opponent", TARGETS),)
# what a rules or custom seat's draft needs computed (policies.COL_NEEDS): gains (a search of the own
# town), gifts (a search of the opponent's) and both scores; worked out once per seat in Python
NEED_GAIN, NEED_GIFT, NEED_SCORE = 1, 2, 4
NEED_ALL = NEED_GAIN | NEED_GIFT | NEED_SCORE
_FEATURE_NEEDS = {"gain": NEED_GAIN, "gift": NEED_GIFT, "my_score": NEED_SCORE, "opp_score": NEED_SCORE}


def rule_needs(rl: RuleArrays, seat: int, gift_weight: float) -> int:
    """NEED_* bits for seat ``seat``'s rules: what their targets pick by and what their conditions read."""
    bits = 0
    for r in range(int(rl.span[seat, 0]), int(rl.span[seat, 1])):
        target = int(rl.meta[r, 1])
        if target in (T_BEST_GAIN, T_BEST_NET):
            bits |= NEED_GAIN
        if target == T_LEAST_GIFT or (target == T_BEST_NET and gift_weight != 0.0):
            bits |= NEED_GIFT  # as the built-in: no gift search when gifts do not count
        ops, args = rl.ops[2 * r], rl.args[2 * r]
        for f in args[ops == rulelist.OP_FEATURE]:
            bits |= _FEATURE_NEEDS.get(FEATURES[int(f)], 0)
    return bits


def fill_needs(pol: np.ndarray, rl: RuleArrays) -> None:
    """Write each rules or custom seat's NEED_* bits into its policy row (policies.COL_NEEDS)."""
    for i in range(pol.shape[0]):
        if pol[i, policies.COL_CODE] == policies.RULES:
            pol[i, policies.COL_NEEDS] = rule_needs(rl, i, pol[i, policies.COL_GIFT])
        elif pol[i, policies.COL_CODE] == policies.CUSTOM:
            pol[i, policies.COL_NEEDS] = NEED_ALL


@njit(**policies.THIN)
def new_game(draft, goals):
    """The goal features of a new game (they hold for the whole game)."""
    for g in range(18):
        draft.features[F_GOAL1 + g] = 0.0
    for g in range(goals.shape[0]):
        draft.features[F_GOAL1 + goals[g]] = 1.0


@njit(**policies.THIN)
def start(pol_row, circle, p1, town, tab, goals, scr, state, fast, find):
    """P2 picks the circle position of the starting card (P1's town, ``p1``, is still empty)."""
    rule = int(pol_row[policies.COL_START])
    if rule == policies.START_FIRST:
        return 0
    if rule == policies.START_RANDOM:
        return rng.below(state, circle.shape[0])
    mode = policies.eval_mode(pol_row)
    gw = pol_row[policies.COL_GOALW]
    best = -policies.NEG
    pick = 0
    for s in range(circle.shape[0]):
        v = policies.best_placement(town.land[p1], town.sym[p1], town.idx[p1], town.cx[p1], town.cy[p1], town.meta[p1],
                                    tab.card_land, tab.card_sym, circle, s, goals, tab.gp, scr.zero_cnt, mode, gw,
                                    scr.ws, scr.detail, scr.saved, state, scr.bestv, scr.spots, fast, find)
        if v < best:
            best = v
            pick = s
    return pick


@njit(**policies.THIN)
def draft(pol, rl, scorers, me, p1, seq, t, turn, town, tab, goals, scr, dr, state, user, fast, find):
    """How many cards the active seat ``me`` skips (k): it takes seq[t + k].

    The candidates are valued by at most one search of each town, whatever the policy: the opponent's
    first (gifts), then the seat's own (gains); a seat that places with ``fast`` searches its own first.
    When the taken card's best spot was searched, dr.spot holds it (state.DS_TAKEN, flag DS_TAKEN_SET); when
    the opponent's first free card was, its spot (DS_FREE, flag DS_FREE_SET) with the taker's symbol counts
    (DS_FREE_CNT).  ``place_taken`` and ``place_free`` reuse them instead of searching again.
    """
    dr.spot[ST.DS_TAKEN_SET] = 0
    dr.spot[ST.DS_FREE_SET] = 0
    row = pol[me]
    look = min(int(row[policies.COL_LOOK]), seq.shape[0] - t)
    code = int(row[policies.COL_CODE])
    if code == policies.FIRST:
        return 0
    if code == policies.RANDOM:
        return rng.below(state, look)
    op = 1 - me
    mode = policies.eval_mode(row)
    gw = row[policies.COL_GOALW]
    builtin = code == policies.GAIN or code == policies.GAIN_MINUS_GIFT
    if builtin:
        weight = row[policies.COL_GIFT] if code == policies.GAIN_MINUS_GIFT else 0.0
        needs = NEED_GAIN | (NEED_GIFT if weight != 0.0 else 0)
    else:
        weight = row[policies.COL_GIFT]
        needs = int(row[policies.COL_NEEDS])
    # gifts[k]: summed gain that skipping to card k hands the opponent (cards 0..k-1)
    for k in range(look):
        dr.gifts[k] = 0.0
    # The searches share one call of ``find`` (each call site adds to the engine's compile).  A fast
    # seat searches its own town first (fast values ignore the gifts: search's rank is exact greedy's), so
    # that the opponent's town is the one fast.prepare read last when the opponent's turn comes: unless a
    # card was skipped to it, that turn's search of it reuses the analysis.
    own_first = mode >= policies.PLACE_FAST  # fast or quick
    # Gift floor (a built-in seat whose gifts count against it): each skippable card's value at one spot of
    # the opponent's town bounds its gift from below, which bounds every later candidate's net gain from
    # above.  The own search ranks against those bounds (RANK_FLOOR: the first card's value stays exact);
    # when no later candidate can then beat the first card, the pick is the first card whatever the gifts
    # are, and the opponent's town is not searched.  Else it is, and the pick comes from the exact gifts.
    floor = builtin and weight > 0.0 and not own_first and look > 1
    now_me = 0.0
    now_op = 0.0
    for step in range(3):
        if floor:
            own = step == 1
            if step == 0:
                p, q, n, rank, w = op, me, look - 1, policies.RANK_SPOT, 0.0
            elif step == 1:
                p, q, n, rank, w = me, op, look, policies.RANK_FLOOR, weight
            elif _pick(T_BEST_NET, look, dr.gain, dr.gifts, weight) == 0:
                break
            else:
                # with two candidates, it stops as soon as the first card's gift settles the pick for it
                p, q, n, rank, w = op, me, look - 1, policies.RANK_TARGET if look == 2 else policies.RANK_NONE, weight
        else:
            own = (step == 0) == own_first
            if step == 2:
                break
            if own and needs & NEED_GAIN:
                # a built-in draft only needs its pick's exact value and spot (search's rank); a user policy
                # reads every candidate's; search analyses the town first (prep), ranks against its value
                # and returns it
                p, q, n, rank, w = me, op, look, policies.RANK_PICK if builtin else policies.RANK_NONE, weight
            elif not own and needs & NEED_GIFT and look > 1:
                p, q, n, rank, w = op, me, look - 1, policies.RANK_NONE, 0.0
            else:
                continue
        # RANK_TARGET reads the candidates' gains where the others read the gifts
        held = dr.gain if rank == policies.RANK_TARGET else dr.gifts
        v = find(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], tab.card_land,
                 tab.card_sym, seq, t, n, goals, tab.gp, town.cnt[q], mode, gw, scr.ws, scr.detail, scr.saved, state,
                 scr.bestv, scr.spots, rank, 0.0, w, held, fast, np.bool_(True))
        if own:
            now_me = v
            for k in range(look):
                dr.gain[k] = scr.bestv[k] - now_me
                for j in range(3):
                    dr.own[k, j] = scr.spots[k, j]
        else:
            now_op = v
            for k in range(look - 1):
                dr.gifts[k + 1] = dr.gifts[k] + (scr.bestv[k] - now_op)
            if rank != policies.RANK_SPOT:
                dr.spot[ST.DS_FREE + ST.SPOT_X] = scr.spots[0, ST.SPOT_X]
                dr.spot[ST.DS_FREE + ST.SPOT_Y] = scr.spots[0, ST.SPOT_Y]
                dr.spot[ST.DS_FREE + ST.SPOT_ROT] = scr.spots[0, ST.SPOT_ROT]
                dr.spot[ST.DS_FREE_SET] = 1
                for s in range(TW.N_SYMBOLS):
                    dr.spot[ST.DS_FREE_CNT + s] = town.cnt[me, s]
    if builtin:
        pick = _pick(T_BEST_NET, look, dr.gain, dr.gifts, weight)
    else:
        pick = 0
        # pruned, with the rule interpreter and the scorer calls, in the engine variant without rules or
        # custom seats (``user`` None: no seat needs ``user``): about 6 CPU-s less of a default cell's cold compile
        if user is not None:
            _decision_features(row, me, p1, seq, t, turn, look, needs, now_me, now_op, town, tab, goals, scr, dr)
            if code == policies.RULES:
                pick = _rules_pick(row, rl, me, seq, t, look, needs, weight, dr)
            else:
                pick = _custom_pick(rl, scorers, me, seq, t, look, dr)
    if needs & NEED_GAIN:
        for j in range(3):
            dr.spot[j] = dr.own[pick, j]
        dr.spot[ST.DS_TAKEN_SET] = 1
    return pick


@njit(**policies.THIN)
def _decision_features(row, me, p1, seq, t, turn, look, needs, now_me, now_op, town, tab, goals, scr, dr):
    """The decision features (the goals are set by ``new_game``); the scores only when needed."""
    f = dr.features
    f[F_CARDS_LEFT] = seq.shape[0] - t
    f[F_TURN] = turn
    f[F_IS_P1] = 1.0 if me == p1 else 0.0
    f[F_MY_CARDS] = town.cards[me]
    f[F_OPP_CARDS] = town.cards[1 - me]
    f[F_MY_SCORE] = 0.0
    f[F_OPP_SCORE] = 0.0
    if needs & NEED_SCORE:
        # a search that valued a town exactly as the game scores it already found its score
        exact = policies.eval_mode(row) == policies.PLACE_GREEDY and row[policies.COL_GOALW] == 1.0
        for p in range(2):
            q = me if p == 0 else 1 - me
            searched = (needs & NEED_GAIN) != 0 if p == 0 else ((needs & NEED_GIFT) != 0 and look > 1)
            if exact and searched:
                v = now_me if p == 0 else now_op
            else:
                v = policies.evaluate(town.land[q], town.sym[q], town.idx[q], town.cx[q], town.cy[q], town.meta[q],
                                      goals, tab.gp, town.cnt[1 - q], policies.PLACE_GREEDY, 1.0, scr.ws, scr.detail)
            f[F_MY_SCORE + p] = v


@njit(**policies.THIN)
def _pick(target, look, gain, gifts, weight):
    """The candidate a target names (the first one on ties)."""
    if target == T_FIRST:
        return 0
    if target == T_LAST:
        return look - 1
    best = policies.NEG
    pick = 0
    for k in range(look):
        if target == T_BEST_GAIN:
            v = gain[k]
        elif target == T_BEST_NET:
            # the built-in gain_minus_gift's float expression: (bestv - now) - weight * gift
            v = gain[k] - weight * gifts[k]
        else:  # T_LEAST_GIFT
            v = -gifts[k]
        if v > best:
            best = v
            pick = k
    return pick


@njit(**policies.THIN)
def _rules_pick(row, rl, me, seq, t, look, needs, weight, dr):
    """The first rule whose condition holds for the candidate its target picks; else the first card."""
    f = dr.features
    for r in range(rl.span[me, 0], rl.span[me, 1]):
        k = _pick(rl.meta[r, 1], look, dr.gain, dr.gifts, weight)
        f[N_DECISION + C_GAIN] = dr.gain[k] if needs & NEED_GAIN else 0.0
        f[N_DECISION + C_GIFT] = dr.gifts[k]
        f[N_DECISION + C_POSITION] = k
        f[N_DECISION + C_CARD] = seq[t + k]
        if rulelist.condition(rl, r, f, me, dr.stack):
            return k
    return 0


@njit(**policies.THIN)
def _custom_pick(rl, scorers, me, seq, t, look, dr):
    """The candidate the seat's scorer scores highest (the first on ties)."""
    for k in range(look):
        dr.cand[k, C_GAIN] = dr.gain[k]
        dr.cand[k, C_GIFT] = dr.gifts[k]
        dr.cand[k, C_POSITION] = k
        dr.cand[k, C_CARD] = seq[t + k]
        dr.scores[k] = 0.0
    scorers[me](dr.features[:N_DECISION], dr.cand[:look], rl.params[me], dr.scores[:look])
    best = dr.scores[0]
    pick = 0
    for k in range(1, look):
        if dr.scores[k] > best:
            best = dr.scores[k]
            pick = k
    return pick


@njit(**policies.THIN)
def _gift_spot_holds(spot, pol, me, op, goals, gp, cnt):
    """Whether the spot ``draft`` found for the first skipped card in the opponent's town is the one
    the opponent's own greedy placement would find now: same town (it is placed first), same mode and
    goal weight, and the same opponent counts wherever a majority goal reads them."""
    omode = int(pol[op, policies.COL_PLACE])
    if spot[ST.DS_FREE_SET] == 0 or omode == policies.PLACE_RANDOM or omode != policies.eval_mode(pol[me]):
        return False
    if pol[op, policies.COL_GOALW] != pol[me, policies.COL_GOALW]:
        return False
    if omode == policies.PLACE_LANDS or pol[op, policies.COL_GOALW] == 0.0:
        return True  # goals are not scored, so the counts do not matter
    for g in range(goals.shape[0]):
        kind = gp[goals[g], TW.GP_KIND]
        if kind == TW.K_MAJ_PEN or kind == TW.K_MAJ_BON:
            s = gp[goals[g], TW.GP_SYM]
            if cnt[me, s] != spot[ST.DS_FREE_CNT + s]:
                return False
    return True


@njit(**policies.THIN)
def place_taken(pol, me, seq, at, town, tab, goals, scr, dr, state, fast, find):
    """Where seat ``me`` puts the card it took, seq[at]: into scr.spots[0, 0:3]."""
    mode = int(pol[me, policies.COL_PLACE])
    if dr.spot[ST.DS_TAKEN_SET] == 1 and mode != policies.PLACE_RANDOM:
        scr.spots[0, ST.SPOT_X] = dr.spot[ST.DS_TAKEN + ST.SPOT_X]
        scr.spots[0, ST.SPOT_Y] = dr.spot[ST.DS_TAKEN + ST.SPOT_Y]
        scr.spots[0, ST.SPOT_ROT] = dr.spot[ST.DS_TAKEN + ST.SPOT_ROT]
    else:
        op = 1 - me
        policies.best_placement(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me],
                                tab.card_land, tab.card_sym, seq, at, goals, tab.gp, town.cnt[op], mode, pol[me,
                                                                                                             policies.COL_GOALW],
                                scr.ws, scr.detail, scr.saved, state, scr.bestv, scr.spots, fast, find)


@njit(**policies.THIN)
def place_free(pol, p, giver, seq, at, first_free, town, tab, goals, scr, dr, state, fast, find):
    """Where seat ``p`` puts a free card seq[at] that ``giver`` skipped: into scr.spots[0, 0:3]."""
    if first_free and _gift_spot_holds(dr.spot, pol, giver, p, goals, tab.gp, town.cnt):
        scr.spots[0, ST.SPOT_X] = dr.spot[ST.DS_FREE + ST.SPOT_X]
        scr.spots[0, ST.SPOT_Y] = dr.spot[ST.DS_FREE + ST.SPOT_Y]
        scr.spots[0, ST.SPOT_ROT] = dr.spot[ST.DS_FREE + ST.SPOT_ROT]
    else:
        mode = int(pol[p, policies.COL_PLACE])
        policies.best_placement(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p],
                                tab.card_land, tab.card_sym, seq, at, goals, tab.gp, town.cnt[giver], mode,
                                pol[p, policies.COL_GOALW], scr.ws, scr.detail, scr.saved, state, scr.bestv,
                                scr.spots, fast, find)
