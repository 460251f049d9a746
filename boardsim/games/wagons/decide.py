"""Circle the Wagons decisions: the one interface the engine calls for every choice a seat makes.

- ``start``: as P2, which circle card starts the draft (the seat's ``start`` parameter);
- ``draft``: how many cards the active seat skips (it takes the next one);
- ``place_taken`` / ``place_free``: where a card goes in a town (the seat's ``placement`` parameter).

``draft`` switches on the seat's policy: the built-in ones value cards with the greedy placement search
(``policies.search``); a ``rules`` seat runs its rule list (boardsim.rulelist) over the decision view
below; a ``custom`` seat scores the candidates with the user's scorer (boardsim.custom).  Start and
placement follow the seat's own parameters under every policy.

The decision view (docs/rules/circle-the-wagons.md, "Decision view") has the decision features
``DECISION_FEATURES`` and one row of ``CANDIDATE_COLUMNS`` per candidate: the first ``lookahead``
cards of the circle from the first available one.  A rule condition reads the decision features and the
columns of the candidate its target picks; features that need a search are computed only when a seat's
rules read them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim import rng, rulelist
from boardsim.games.wagons import policies as P
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import town as T
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
# what a seat's conditions read that costs a search (policies.COL_READS): those features are computed
# before its rules run; a target computes what it needs on first use
READ_GAIN, READ_GIFT, READ_SCORE = 1, 2, 4
_READ_BITS = {"gain": READ_GAIN, "gift": READ_GIFT, "my_score": READ_SCORE, "opp_score": READ_SCORE}


def condition_reads(rl: RuleArrays, seat: int) -> int:
    """READ_* bits of the costly features that seat ``seat``'s rule conditions read."""
    bits = 0
    for r in range(int(rl.span[seat, 0]), int(rl.span[seat, 1])):
        ops, args = rl.ops[2 * r], rl.args[2 * r]
        for f in args[ops == rulelist.OP_FEATURE]:
            bits |= _READ_BITS.get(FEATURES[int(f)], 0)
    return bits


@njit(**P.THIN)
def new_game(draft, goals):
    """The goal features of a new game (they hold for the whole game)."""
    for g in range(18):
        draft.features[F_GOAL1 + g] = 0.0
    for g in range(goals.shape[0]):
        draft.features[F_GOAL1 + goals[g]] = 1.0


@njit(**P.THIN)
def start(pol_row, circle, p1, town, tab, goals, scr, state):
    """P2 picks the circle position of the starting card (P1's town, ``p1``, is still empty)."""
    rule = int(pol_row[P.COL_START])
    if rule == P.START_FIRST:
        return 0
    if rule == P.START_RANDOM:
        return rng.below(state, circle.shape[0])
    mode = P.eval_mode(pol_row)
    gw = pol_row[P.COL_GOALW]
    best = -P.NEG
    pick = 0
    for s in range(circle.shape[0]):
        v = P.best_placement(town.land[p1], town.sym[p1], town.idx[p1], town.cx[p1], town.cy[p1], town.meta[p1],
                             tab.card_land, tab.card_sym, circle, s, goals, tab.gp, scr.zero_cnt, mode, gw, scr.ws,
                             scr.detail, scr.saved, state, scr.bestv, scr.spots)
        if v < best:
            best = v
            pick = s
    return pick


@njit(**P.THIN)
def draft(pol, rl, scorers, me, p1, seq, t, turn, town, tab, goals, scr, dr, state):
    """How many cards the active seat ``me`` skips (k): it takes seq[t + k].

    When the taken card's best spot was searched, dr.spot[0:3] holds it (spot[3] = 1), and when the
    opponent's first free card was searched, spot[4:7] holds its spot (spot[7] = 1, with the taker's
    symbol counts in spot[8:]): ``place_taken`` and ``place_free`` reuse them instead of searching again.
    """
    dr.spot[3] = 0
    dr.spot[7] = 0
    row = pol[me]
    look = min(int(row[P.COL_LOOK]), seq.shape[0] - t)
    for k in range(look):
        dr.gifts[k] = 0.0
    code = int(row[P.COL_CODE])
    if code == P.RULES:
        return _rules_draft(row, rl, me, p1, seq, t, turn, look, town, tab, goals, scr, dr, state)
    if code == P.CUSTOM:
        return _custom_draft(row, rl, scorers, me, p1, seq, t, turn, look, town, tab, goals, scr, dr, state)
    return _builtin_draft(row, me, seq, t, look, town, tab, goals, scr, dr, state)


@njit(**P.THIN)
def _gift_values(row, me, seq, t, look, town, tab, goals, scr, dr, state):
    """dr.gifts[k] = summed gain cards seq[t .. t+k-1] give the opponent (each at its best spot in the
    opponent's town, valued the seat's way); keeps the first one's spot for ``place_free``.  Returns the
    opponent's town value now."""
    op = 1 - me
    mode = P.eval_mode(row)
    gw = row[P.COL_GOALW]
    now_op = P.analyse(town.land[op], town.sym[op], town.idx[op], town.cx[op], town.cy[op], town.meta[op], goals,
                       tab.gp, town.cnt[me], mode, gw, scr.ws, scr.detail)
    P.search(town.land[op], town.sym[op], town.idx[op], town.cx[op], town.cy[op], town.meta[op], tab.card_land,
             tab.card_sym, seq, t, look - 1, goals, tab.gp, town.cnt[me], mode, gw, scr.ws, scr.detail, scr.saved,
             state, scr.bestv, scr.spots, np.bool_(False), 0.0, 0.0, dr.gifts)
    for k in range(look - 1):
        dr.gifts[k + 1] = dr.gifts[k] + (scr.bestv[k] - now_op)
    dr.spot[4] = scr.spots[0, 0]
    dr.spot[5] = scr.spots[0, 1]
    dr.spot[6] = scr.spots[0, 2]
    dr.spot[7] = 1
    for s in range(T.N_SYMBOLS):
        dr.spot[8 + s] = town.cnt[me, s]
    return now_op


@njit(**P.THIN)
def _builtin_draft(row, me, seq, t, look, town, tab, goals, scr, dr, state):
    """The built-in drafting codes (policies.py).  Each town is analysed and searched once, for all its
    cards: the opponent's first (gift values), then the seat's own, ranked so that only the card
    picked needs its exact best spot."""
    code = int(row[P.COL_CODE])
    if code == P.FIRST:
        return 0
    if code == P.RANDOM:
        return rng.below(state, look)
    op = 1 - me
    mode = P.eval_mode(row)
    gw = row[P.COL_GOALW]
    weight = row[P.COL_GIFT] if code == P.GAIN_MINUS_GIFT else 0.0
    if weight != 0.0 and look > 1:
        _gift_values(row, me, seq, t, look, town, tab, goals, scr, dr, state)
    now_me = P.analyse(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me], goals,
                       tab.gp, town.cnt[op], mode, gw, scr.ws, scr.detail)
    P.search(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me], tab.card_land,
             tab.card_sym, seq, t, look, goals, tab.gp, town.cnt[op], mode, gw, scr.ws, scr.detail, scr.saved, state,
             scr.bestv, scr.spots, np.bool_(True), now_me, weight, dr.gifts)
    best = P.NEG
    pick = 0
    for k in range(look):
        value = (scr.bestv[k] - now_me) - weight * dr.gifts[k]
        if value > best:
            best = value
            pick = k
            dr.spot[0] = scr.spots[k, 0]
            dr.spot[1] = scr.spots[k, 1]
            dr.spot[2] = scr.spots[k, 2]
            dr.spot[3] = 1
    return pick


@njit(**P.THIN)
def _gain_values(row, me, seq, t, look, town, tab, goals, scr, dr, state):
    """dr.gain[k] and dr.gspot[k]: every candidate's exact best gain and spot in the own town (valued
    the seat's way).  Returns the own town's value now."""
    op = 1 - me
    mode = P.eval_mode(row)
    gw = row[P.COL_GOALW]
    now_me = P.analyse(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me], goals,
                       tab.gp, town.cnt[op], mode, gw, scr.ws, scr.detail)
    P.search(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me], tab.card_land,
             tab.card_sym, seq, t, look, goals, tab.gp, town.cnt[op], mode, gw, scr.ws, scr.detail, scr.saved, state,
             scr.bestv, scr.spots, np.bool_(False), 0.0, 0.0, dr.gifts)
    for k in range(look):
        dr.gain[k] = scr.bestv[k] - now_me
        dr.gspot[k, 0] = scr.spots[k, 0]
        dr.gspot[k, 1] = scr.spots[k, 1]
        dr.gspot[k, 2] = scr.spots[k, 2]
    return now_me


@njit(**P.THIN)
def _town_score(town, p, goals, gp, scr):
    """Seat p's score now: lands + goals, majority goals against the other town as it stands."""
    return P.evaluate(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p], goals, gp,
                      town.cnt[1 - p], P.PLACE_GREEDY, 1.0, scr.ws, scr.detail)


@njit(**P.THIN)
def _decision_features(me, p1, seq, t, turn, town, scr, dr):
    """The cheap decision features (the goals are set by ``new_game``, the scores by the caller)."""
    f = dr.features
    f[F_CARDS_LEFT] = seq.shape[0] - t
    f[F_TURN] = turn
    f[F_IS_P1] = 1.0 if me == p1 else 0.0
    f[F_MY_CARDS] = town.cards[me]
    f[F_OPP_CARDS] = town.cards[1 - me]
    f[F_MY_SCORE] = 0.0
    f[F_OPP_SCORE] = 0.0


@njit(**P.THIN)
def _pick(target, look, gain, gifts, weight):
    """The candidate a rule's target names (the first one on ties)."""
    if target == T_FIRST:
        return 0
    if target == T_LAST:
        return look - 1
    best = P.NEG
    pick = 0
    for k in range(look):
        if target == T_BEST_GAIN:
            v = gain[k]
        elif target == T_BEST_NET:
            v = gain[k] - weight * gifts[k]  # the same float expression as the built-in gain_minus_gift
        else:  # T_LEAST_GIFT
            v = -gifts[k]
        if v > best:
            best = v
            pick = k
    return pick


@njit(**P.THIN)
def _rules_draft(row, rl, me, p1, seq, t, turn, look, town, tab, goals, scr, dr, state):
    """The first rule whose condition holds for the candidate its target picks; else the first card."""
    reads = int(row[P.COL_READS])
    weight = row[P.COL_GIFT]
    f = dr.features
    _decision_features(me, p1, seq, t, turn, town, scr, dr)
    if reads & READ_SCORE:
        f[F_MY_SCORE] = _town_score(town, me, goals, tab.gp, scr)
        f[F_OPP_SCORE] = _town_score(town, 1 - me, goals, tab.gp, scr)
    have = 0
    chosen = 0
    for r in range(rl.span[me, 0], rl.span[me, 1]):
        target = rl.meta[r, 1]
        need = reads & (READ_GAIN | READ_GIFT)
        if target == T_BEST_GAIN:
            need |= READ_GAIN
        elif target == T_BEST_NET:
            need |= READ_GAIN
            if weight != 0.0:  # as the built-in: no gift search when gifts do not count
                need |= READ_GIFT
        elif target == T_LEAST_GIFT:
            need |= READ_GIFT
        if need & READ_GAIN and not have & READ_GAIN:
            _gain_values(row, me, seq, t, look, town, tab, goals, scr, dr, state)
            have |= READ_GAIN
        if need & READ_GIFT and not have & READ_GIFT:
            if look > 1:
                _gift_values(row, me, seq, t, look, town, tab, goals, scr, dr, state)
            have |= READ_GIFT
        k = _pick(target, look, dr.gain, dr.gifts, weight)
        f[N_DECISION + C_GAIN] = dr.gain[k] if have & READ_GAIN else 0.0
        f[N_DECISION + C_GIFT] = dr.gifts[k]
        f[N_DECISION + C_POSITION] = k
        f[N_DECISION + C_CARD] = seq[t + k]
        if rulelist.condition(rl, r, f, me, dr.stack):
            chosen = k
            break
    if have & READ_GAIN:
        _keep_spot(dr, chosen)
    return chosen


@njit(**P.THIN)
def _keep_spot(dr, k):
    dr.spot[0] = dr.gspot[k, 0]
    dr.spot[1] = dr.gspot[k, 1]
    dr.spot[2] = dr.gspot[k, 2]
    dr.spot[3] = 1


@njit(**P.THIN)
def _custom_draft(row, rl, scorers, me, p1, seq, t, turn, look, town, tab, goals, scr, dr, state):
    """The candidate the seat's scorer scores highest (the first on ties)."""
    f = dr.features
    _decision_features(me, p1, seq, t, turn, town, scr, dr)
    now_op = 0.0
    if look > 1:
        now_op = _gift_values(row, me, seq, t, look, town, tab, goals, scr, dr, state)
    now_me = _gain_values(row, me, seq, t, look, town, tab, goals, scr, dr, state)
    if P.eval_mode(row) == P.PLACE_GREEDY and row[P.COL_GOALW] == 1.0:
        # the searches valued both towns exactly as the game scores them: no third scoring pass
        f[F_MY_SCORE] = now_me
        f[F_OPP_SCORE] = now_op if look > 1 else _town_score(town, 1 - me, goals, tab.gp, scr)
    else:
        f[F_MY_SCORE] = _town_score(town, me, goals, tab.gp, scr)
        f[F_OPP_SCORE] = _town_score(town, 1 - me, goals, tab.gp, scr)
    for k in range(look):
        dr.cand[k, C_GAIN] = dr.gain[k]
        dr.cand[k, C_GIFT] = dr.gifts[k]
        dr.cand[k, C_POSITION] = k
        dr.cand[k, C_CARD] = seq[t + k]
        dr.scores[k] = 0.0
    scorers[me](f[:N_DECISION], dr.cand[:look], rl.params[me], dr.scores[:look])
    best = dr.scores[0]
    pick = 0
    for k in range(1, look):
        if dr.scores[k] > best:
            best = dr.scores[k]
            pick = k
    _keep_spot(dr, pick)
    return pick


@njit(**P.THIN)
def _gift_spot_holds(spot, pol, me, op, goals, gp, cnt):
    """Whether the spot ``draft`` found for the first skipped card in the opponent's town is the one
    the opponent's own greedy placement would find now: same town (it is placed first), same mode and
    goal weight, and the same opponent counts wherever a majority goal reads them."""
    omode = int(pol[op, P.COL_PLACE])
    if spot[7] == 0 or omode == P.PLACE_RANDOM or omode != P.eval_mode(pol[me]):
        return False
    if pol[op, P.COL_GOALW] != pol[me, P.COL_GOALW]:
        return False
    if omode == P.PLACE_LANDS or pol[op, P.COL_GOALW] == 0.0:
        return True  # goals are not scored, so the counts do not matter
    for g in range(goals.shape[0]):
        kind = gp[goals[g], T.GP_KIND]
        if kind == T.K_MAJ_PEN or kind == T.K_MAJ_BON:
            s = gp[goals[g], T.GP_SYM]
            if cnt[me, s] != spot[8 + s]:
                return False
    return True


@njit(**P.THIN)
def place_taken(pol, me, seq, at, town, tab, goals, scr, dr, state):
    """Where seat ``me`` puts the card it took, seq[at]: into scr.spots[0, 0:3]."""
    mode = int(pol[me, P.COL_PLACE])
    if dr.spot[3] == 1 and mode != P.PLACE_RANDOM:
        scr.spots[0, 0] = dr.spot[0]
        scr.spots[0, 1] = dr.spot[1]
        scr.spots[0, 2] = dr.spot[2]
    else:
        op = 1 - me
        P.best_placement(town.land[me], town.sym[me], town.idx[me], town.cx[me], town.cy[me], town.meta[me],
                         tab.card_land, tab.card_sym, seq, at, goals, tab.gp, town.cnt[op], mode, pol[me, P.COL_GOALW],
                         scr.ws, scr.detail, scr.saved, state, scr.bestv, scr.spots)


@njit(**P.THIN)
def place_free(pol, p, giver, seq, at, first_free, town, tab, goals, scr, dr, state):
    """Where seat ``p`` puts a free card seq[at] that ``giver`` skipped: into scr.spots[0, 0:3]."""
    if first_free and _gift_spot_holds(dr.spot, pol, giver, p, goals, tab.gp, town.cnt):
        scr.spots[0, 0] = dr.spot[4]
        scr.spots[0, 1] = dr.spot[5]
        scr.spots[0, 2] = dr.spot[6]
    else:
        mode = int(pol[p, P.COL_PLACE])
        P.best_placement(town.land[p], town.sym[p], town.idx[p], town.cx[p], town.cy[p], town.meta[p],
                         tab.card_land, tab.card_sym, seq, at, goals, tab.gp, town.cnt[giver], mode,
                         pol[p, P.COL_GOALW], scr.ws, scr.detail, scr.saved, state, scr.bestv, scr.spots)
