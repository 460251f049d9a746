"""FlipToons Season 1 engine in Numba (spec docs/rules/fliptoons.md): the rules of the game only.

Setup, Flip (§3) and the placement abilities, Check Fame (§4), the least-fame hook (§5), the market and its
actions (§6), banners (§10), end-of-turn hooks, cleanup, the final flip and Critic's Choice (§7-§9).  The
state's layout and its small helpers are in ``state.py``; the sub-choices inside banners and hooks are asked of
``subchoices.py``; the market decision, the game loop that asks for it and the batch kernels sit above this
module (``decide.py``, ``step.py``, ``kernel.py``).

Functions take the state ``S`` (``state.State``), the constants ``C`` (``state.Consts``), one game's
outputs ``O`` (``state.Outputs``) and the generator ``rng``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.fliptoons.cards import (
    C_CBD,
    C_COPIES,
    C_DCOST,
    C_HA,
    C_HB,
    C_HIRED,
    C_HOOK,
    C_RANK,
    C_SOLO,
    C_STARTER,
    C_TARGET,
)
from boardsim.games.fliptoons.grid import (
    _dismiss_grid,
    _fame,
    _flip,
    _pig_to_deck,
    _shuffle,
    _takes_free,
)
from boardsim.games.fliptoons.state import (
    A_DISMISS,
    A_END,
    ACTS,
    BAN,
    BONUS_ACT,
    CALL,
    CONTEND,
    CRITIC,
    DEPLETED,
    DISCARDED,
    END,
    END_CAP,
    END_DEPLETION,
    END_FAME,
    END_HORIZON,
    END_SOLO_LOSS,
    END_SOLO_WIN,
    EV_CLEANUP,
    EV_DECAY,
    EV_DISCARD,
    EV_FAME,
    EV_FINAL,
    EV_GAIN,
    EV_GRID,
    EV_HIRE,
    EV_MARKET,
    EV_RESULT,
    EV_ROUND,
    EV_SKUNK,
    EV_TURN,
    FAME,
    FIRST,
    FIRST0,
    GF,
    GK,
    GL,
    GN,
    GQ,
    GS,
    H_DISMISS_TARGET,
    H_GAIN,
    H_MARKET_DISCARD,
    H_NONE,
    H_PLACE_ANY,
    HIRES,
    HORIZON,
    INLINE,
    INTERNAL,
    INTURN,
    K_ALLIGATOR,
    K_DONKEY,
    K_LEAST,
    LOGON,
    MAXFAME,
    MSEQ,
    NP,
    NS,
    PH_DONE,
    PH_FINAL,
    PH_MARKET,
    PH_START,
    PHASE,
    Q0,
    QN,
    R_CRITIC_BONUS,
    R_CRITIC_DEPL,
    R_CRITIC_REFLIP,
    R_DEPLETION,
    R_FINAL_FLIP,
    R_FIRST,
    R_GOAL,
    R_HOOK_TIMING,
    R_MAX_REFLIPS,
    R_MAX_ROUNDS,
    R_SKUNK_FACEUP,
    R_SNAKE_ORDER,
    R_SNAKE_PEACOCK,
    R_SOLO_DISCARD,
    R_SOLO_WIN,
    REFLIPS,
    ROUND,
    SCORE,
    SPEND,
    ST_APPEAR,
    ST_FAME,
    ST_HIRED,
    TN,
    TOTAL,
    TURN,
    WHY_ALLIGATOR,
    WHY_BUTTERFLY,
    WHY_DONKEY,
    WHY_PAID,
    WHY_SKUNK,
    WINNER,
    W,
    _collect,
    _deck_top_push,
    _dismiss_ok,
    _free_dismiss_ok,
    _hire_ok,
    _log,
    _mean_value,
    _own,
    _remove_grid,
    _vfix,
)
from boardsim.games.fliptoons.subchoices import (
    grid_card_to_dismiss,
    horse_discards,
)
from boardsim.rng import below


# -- market (§6) -------------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _market_count(mk, Wd):
    n = 0
    for s in range(Wd):
        if mk[0, s] >= 0:
            n += 1
    return n


@njit(**INLINE, **INTERNAL)
def _sort_market(mk, Wd, cards):
    """Right-justify the occupied slots and sort them by (rank, reveal order) (§6.5)."""
    w = Wd - 1
    for s in range(Wd - 1, -1, -1):
        if mk[0, s] >= 0:
            mk[0, w] = mk[0, s]
            mk[1, w] = mk[1, s]
            w -= 1
    for s in range(w, -1, -1):
        mk[0, s] = -1
        mk[1, s] = 0
    lo = w + 1
    for a in range(lo + 1, Wd):
        k = mk[0, a]
        q = mk[1, a]
        r = cards[k, C_RANK]
        b = a - 1
        while b >= lo and (cards[mk[0, b], C_RANK] > r or (cards[mk[0, b], C_RANK] == r and mk[1, b] > q)):
            mk[0, b + 1] = mk[0, b]
            mk[1, b + 1] = mk[1, b]
            b -= 1
        mk[0, b + 1] = k
        mk[1, b + 1] = q


@njit(**INLINE)
def _refill(S, C):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    Wd = np.int64(sh[W])
    short = False
    for s in range(Wd):
        if mk[0, s] < 0:
            if sh[TN] > 0:
                mk[0, s] = toon[sh[TN] - 1]
                mk[1, s] = sh[MSEQ]
                sh[MSEQ] += 1
                sh[TN] -= 1
            else:
                short = True
    _sort_market(mk, Wd, cards)
    if rules[R_DEPLETION] == 0:
        if short:
            sh[DEPLETED] = 1
    elif _market_count(mk, Wd) == 0:
        sh[DEPLETED] = 1


@njit(**INLINE, **INTERNAL)
def _log_market(S, O):
    sh, mk = S.shared, S.market
    log = O.log
    if sh[LOGON] == 0:
        return
    Wd = np.int64(sh[W])
    # scalars, not a temporary array: the callers run without NRT
    v0 = mk[0, 0] if Wd > 0 else -1
    v1 = mk[0, 1] if Wd > 1 else -1
    v2 = mk[0, 2] if Wd > 2 else -1
    v3 = mk[0, 3] if Wd > 3 else -1
    v4 = mk[0, 4] if Wd > 4 else -1
    v5 = mk[0, 5] if Wd > 5 else -1
    _log(sh, log, EV_MARKET, v0, v1, v2, v3, v4, v5, sh[TN])


@njit(**INLINE)
def _decay(S, C, O):
    """1-2 players: discard the leftmost and rightmost market cards, then refill (§6.4)."""
    sh, mk = S.shared, S.market
    log = O.log
    Wd = np.int64(sh[W])
    for s in (0, Wd - 1):
        if mk[0, s] >= 0:
            _log(sh, log, EV_DECAY, mk[0, s], 0, 0, 0, 0, 0, 0)
            mk[0, s] = -1
            sh[DISCARDED] += 1
    _refill(S, C)


# -- banners and market actions ----------------------------------------------------------------------
@njit(**CALL, **INTERNAL)
def _banner(p, kind, grid_index, from_snake, S, C, O, rng):
    """A When Hired banner (§10): Butterfly, Horse, Pig, Peacock."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules, prices, pol, prio, val = C
    log = O.log
    h = cards[kind, C_HIRED]
    if h == H_GAIN:
        pv[p, SPEND] += cards[kind, C_HA]
        if from_snake != 0:
            pv[p, BONUS_ACT] += cards[kind, C_HB]
            if rules[R_SNAKE_PEACOCK] != 0:
                pv[p, FAME] += cards[kind, C_HA]
        else:
            pv[p, ACTS] += cards[kind, C_HB]
        _log(sh, log, EV_GAIN, p, kind, cards[kind, C_HA], cards[kind, C_HB], 0, 0, 0)
    elif h == H_DISMISS_TARGET:
        t = cards[kind, C_TARGET]
        g = np.int64(-1)  # typed from the start: a literal -1 compiled _dismiss_grid once more
        for i in range(pv[p, GN]):
            if pc[p, GK, i] == t and pc[p, GF, i] == 0 and cards[t, C_CBD] == 0:
                g = i
                break
        if g >= 0 and _free_dismiss_ok(p, pv, rules) and _takes_free(p, sh, C, rng):
            _dismiss_grid(p, g, np.int64(WHY_BUTTERFLY), S, C, O, rng)
    elif h == H_MARKET_DISCARD:
        m = _mean_value(p, pv)
        for s in range(np.int64(sh[W])):
            k = mk[0, s]
            if k < 0:
                continue
            if horse_discards(p, k, m, C, rng):
                _log(sh, log, EV_DISCARD, p, k, 0, 0, 0, 0, 0)
                mk[0, s] = -1
                sh[DISCARDED] += 1
        _refill(S, C)
    elif h == H_PLACE_ANY and from_snake != 0 and grid_index >= 0:
        _remove_grid(p, pc, pv, grid_index)
        _own(p, pv, -_vfix(val, kind))
        _pig_to_deck(p, kind, S, C, O, rng)


@njit(**INLINE)
def _hire(p, s, S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, prices = C.cards, C.prices
    stt, rf, log = O
    k = mk[0, s]
    pv[p, SPEND] -= prices[s]
    pv[p, ACTS] -= 1
    mk[0, s] = -1
    stt[ST_HIRED, p, k] += 1
    pv[p, HIRES] += 1
    _log(sh, log, EV_HIRE, p, k, prices[s], s, 0, 0, 0)
    if cards[k, C_HIRED] == H_PLACE_ANY:
        _pig_to_deck(p, k, S, C, O, rng)
        return
    _deck_top_push(p, pc, pv, k)
    _own(p, pv, _vfix(C.values, k))
    if cards[k, C_HIRED] != H_NONE:
        _banner(p, k, np.int64(-1), np.int64(0), S, C, O, rng)


@njit(**INLINE)
def _dismiss_legal(p, g, S, C):
    return _dismiss_ok(p, g, S.rows, S.seat, C.cards, C.rules)


@njit(**INLINE)
def _apply(p, a, S, C, O, rng):
    pc, pv = S.rows, S.seat
    cards = C.cards
    if a == A_END:
        pv[p, ACTS] = 0
    elif a < A_DISMISS:
        _hire(p, a, S, C, O, rng)
    else:
        g = a - A_DISMISS
        pv[p, SPEND] -= cards[pc[p, GK, g], C_DCOST]
        pv[p, ACTS] -= 1
        _dismiss_grid(p, g, np.int64(WHY_PAID), S, C, O, rng)


# -- end-of-turn hooks (§6.3) and the least-fame hook (§5) ----------------------------------------
@njit(**INLINE, **INTERNAL)
def _hook_may_act(p, pc, pv, cards):
    """Whether a face-up Donkey in the bottom row or a face-up Alligator with a right neighbour slot is
    in p's grid: otherwise ``_run_hooks`` does nothing (hooks only remove cards, so none becomes due)."""
    for i in range(pv[p, GN]):
        h = cards[pc[p, GK, i], C_HOOK]
        if h >= K_DONKEY and pc[p, GF, i] == 0:
            s = pc[p, GS, i]
            if (h == K_DONKEY and 3 <= s < 6) or (h == K_ALLIGATOR and s % 3 < 2):
                return True
    return False


@njit(**INLINE)
def _hooks(p, S, C, O, X, rng):
    """End-of-turn hooks; the common case of no hook that can act returns without a call that passes
    the state."""
    if _hook_may_act(p, S.rows, S.seat, C.cards):
        _run_hooks(p, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _run_hooks(p, S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    # Hooks resolve in reading order (base slots, then extra rows), within a stack bottom to top: by the
    # key (slot, arrival sequence), unique per card.  A hook only removes grid cards (never adds or moves
    # one), so the next hook is the smallest key above the last one among the cards still in the grid --
    # no list of the hooks present at the start, and a hook card removed meanwhile is simply not found.
    last = np.int64(-1)
    while True:
        i = np.int64(-1)  # typed from the start: a literal -1 compiled _dismiss_grid once more
        key = np.int64(1) << 62
        for j in range(pv[p, GN]):
            if cards[pc[p, GK, j], C_HOOK] >= K_DONKEY:
                kj = (np.int64(pc[p, GS, j]) << 32) | np.int64(pc[p, GQ, j])
                if last < kj < key:
                    key = kj
                    i = j
        if i < 0:
            return
        last = key
        if pc[p, GF, i] != 0:
            continue
        hook = cards[pc[p, GK, i], C_HOOK]
        s = pc[p, GS, i]
        if hook == K_DONKEY:
            if 3 <= s < 6 and _free_dismiss_ok(p, pv, rules):
                _dismiss_grid(p, i, np.int64(WHY_DONKEY), S, C, O, rng)
        elif hook == K_ALLIGATOR:
            if s % 3 < 2:
                g = grid_card_to_dismiss(p, np.int64(s + 1), S, C, rng)
                if g >= 0 and _free_dismiss_ok(p, pv, rules):
                    _dismiss_grid(p, g, np.int64(WHY_ALLIGATOR), S, C, O, rng)


@njit(**INLINE)
def _skunk(S, C, O, rng):
    """The least-fame hook (§5): its checks inline, the dismissal (when due) in a call."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    P = np.int64(sh[NP])
    if P < 2:
        return
    low = pv[0, FAME]
    who = np.int64(0)
    ties = 0
    for q in range(1, P):
        if pv[q, FAME] < low:
            low = pv[q, FAME]
            who = q
            ties = 0
        elif pv[q, FAME] == low:
            ties += 1
    if ties > 0:
        return
    has = False
    for i in range(pv[who, GN]):
        if cards[pc[who, GK, i], C_HOOK] == K_LEAST and (pc[who, GF, i] == 0 or rules[R_SKUNK_FACEUP] == 0):
            has = True
    if not has or not _free_dismiss_ok(who, pv, rules):
        return
    _skunk_dismiss(who, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _skunk_dismiss(who, S, C, O, rng):
    g = grid_card_to_dismiss(who, np.int64(-1), S, C, rng)
    if g >= 0:
        _log(S.shared, O.log, EV_SKUNK, who, 0, 0, 0, 0, 0, 0)
        _dismiss_grid(who, g, np.int64(WHY_SKUNK), S, C, O, rng)


@njit(**INLINE)
def _hire_legal(p, s, S, C):
    return _hire_ok(p, s, S.seat, S.market, C.prices)


# -- rounds (§2, §7, §8, §9) ---------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _log_grids(S, O):
    pc, pv, dism, sh, toon, mk = S
    log = O.log
    if sh[LOGON] == 0:
        return
    for p in range(np.int64(sh[NP])):
        for s in range(NS):
            for i in range(pv[p, GN]):
                if pc[p, GS, i] == s:
                    _log(sh, log, EV_GRID, p, s, pc[p, GK, i], pc[p, GF, i], pc[p, GL, i], pc[p, GQ, i], 0)


@njit(**INLINE, **INTERNAL)
def _record_fame(p, S, O):
    pc, pv, sh = S.rows, S.seat, S.shared
    stt, rf = O.stats, O.round_fame
    for i in range(pv[p, GN]):
        if pc[p, GF, i] == 0:
            stt[ST_FAME, p, pc[p, GK, i]] += pc[p, GL, i]
            stt[ST_APPEAR, p, pc[p, GK, i]] += 1
    r = sh[ROUND] - 1
    if 0 <= r < rf.shape[1]:
        rf[p, r] = min(32767, max(-32768, pv[p, FAME]))


@njit(**CALL)
def _start_round(S, C, O, rng, score):
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O.log
    P = np.int64(sh[NP])
    sh[ROUND] += 1
    _log(sh, log, EV_ROUND, sh[ROUND], sh[FIRST], sh[TN], 0, 0, 0, 0)
    _log_market(S, O)
    for j in range(P):
        # A14: Snake toon-deck draws happen in seat order (default) or in turn order
        p = j if rules[R_SNAKE_ORDER] == 0 else (sh[FIRST] + j) % P
        _flip(p, S, C, O, rng)
    goal = rules[R_GOAL]
    for p in range(P):
        f = _fame(p, S, C, score)
        pv[p, FAME] = f
        pv[p, SPEND] = f
        pv[p, BONUS_ACT] = 0
        if f > pv[p, MAXFAME]:
            pv[p, MAXFAME] = f
        _record_fame(p, S, O)
    _log_grids(S, O)
    for p in range(P):
        _log(sh, log, EV_FAME, p, pv[p, FAME], 0, 0, 0, 0, 0)
    if P == 1 and pv[0, FAME] >= goal:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return
    # Banners of toon cards a Snake stacked resolve after Check Fame (A8, [NV]).
    for p in range(P):
        nq = pv[p, QN]
        pv[p, QN] = 0
        for t in range(nq):
            k = pv[p, Q0 + t]
            g = np.int64(-1)  # typed from the start: a literal -1 would compile _banner once more
            for i in range(pv[p, GN]):
                if pc[p, GK, i] == k and pc[p, GF, i] == 0:
                    g = i
            _banner(p, k, g, np.int64(1), S, C, O, rng)
    if P == 1 and rules[R_SOLO_WIN] != 0 and pv[0, SPEND] >= goal:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return
    if P >= 2:
        _skunk(S, C, O, rng)
    sh[PHASE] = PH_MARKET
    sh[TURN] = 0
    sh[INTURN] = 0


@njit(**CALL, **INTERNAL)
def _end_solo(reason, S, O):
    pv, sh = S.seat, S.shared
    log = O.log
    pv[0, WINNER] = 1 if reason == END_SOLO_WIN else 0
    pv[0, SCORE] = pv[0, MAXFAME]
    sh[END] = reason
    sh[PHASE] = PH_DONE
    _log(sh, log, EV_RESULT, reason, pv[0, SCORE], 0, 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _end_turn(p, S, C, O, X, rng):
    pv, sh = S.seat, S.shared
    rules = C.rules
    log = O.log
    pv[p, ACTS] = 0
    if rules[R_HOOK_TIMING] == 0:
        _hooks(p, S, C, O, X, rng)
    # A turn that hired nothing leaves the market full, and a full market is sorted already (every change to
    # it ends in _refill) and cannot deplete it: about half the turns skip the refill and its sort.
    if _market_count(S.market, np.int64(sh[W])) < sh[W]:
        _refill(S, C)
    _log(sh, log, EV_TURN, p, pv[p, SPEND], 0, 0, 0, 0, 0)
    _log_market(S, O)
    sh[TURN] += 1
    sh[INTURN] = 0


@njit(**INLINE)
def _cleanup(S, C, O, rng):
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O.log
    P = np.int64(sh[NP])
    goal = rules[R_GOAL]
    if P == 1:
        if sh[DEPLETED] != 0:
            _end_solo(np.int64(END_SOLO_LOSS), S, O)
            return
        _collect(np.int64(0), pc, pv)
        if sh[ROUND] >= rules[R_MAX_ROUNDS]:
            _end_solo(np.int64(END_SOLO_LOSS), S, O)
        elif sh[HORIZON] > 0 and sh[ROUND] >= sh[HORIZON]:
            _end_solo(np.int64(END_HORIZON), S, O)
        else:
            sh[PHASE] = PH_START
        return
    fame_trig = False
    for p in range(P):
        if pv[p, FAME] >= goal:
            fame_trig = True
    ending = fame_trig or sh[DEPLETED] != 0
    if ending and (fame_trig or rules[R_CRITIC_DEPL] != 0):
        best = -(1 << 30)
        who = -1
        for p in range(P):
            if pv[p, FAME] > best:
                best = pv[p, FAME]
                who = p
            elif pv[p, FAME] == best:
                who = -1
        sh[CRITIC] = who
    for p in range(P):
        _collect(p, pc, pv)
    _log(sh, log, EV_CLEANUP, 1 if fame_trig else 0, sh[DEPLETED], sh[CRITIC], 0, 0, 0, 0)
    if ending:
        sh[END] = END_FAME if fame_trig else END_DEPLETION
        sh[PHASE] = PH_FINAL
    elif sh[ROUND] >= rules[R_MAX_ROUNDS]:
        sh[END] = END_CAP
        sh[PHASE] = PH_FINAL
    elif sh[HORIZON] > 0 and sh[ROUND] >= sh[HORIZON]:
        sh[END] = END_HORIZON
        sh[PHASE] = PH_FINAL
    else:
        sh[FIRST] = (sh[FIRST] + 1) % P
        sh[PHASE] = PH_START


@njit(**CALL)
def _final_flip(S, C, O, rng, score):
    """Flip + Check Fame for everyone, Critic's Choice, tie re-flips among the tied (§8)."""
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    log = O.log
    P = np.int64(sh[NP])
    bonus = int(rules[R_CRITIC_BONUS])
    flips = rules[R_FINAL_FLIP] != 0
    for p in range(P):
        pv[p, CONTEND] = 1
        if not flips:
            # Variant without a Final Flip: the trigger round's fame (+ the Critic's Choice) decides.
            pv[p, SCORE] = pv[p, FAME] + (bonus if sh[CRITIC] == p else 0)
    reflip = False
    while True:
        # The Final Flip, then each re-flip of the tied players, in one loop: _flip and _fame are inlined
        # once here instead of twice (less to compile), with the same flips in the same order.
        if flips:
            for p in range(P):
                if pv[p, CONTEND]:
                    if reflip:
                        _collect(p, pc, pv)
                    _flip(p, S, C, O, rng)
            for p in range(P):
                if pv[p, CONTEND]:
                    f = _fame(p, S, C, score)
                    pv[p, FAME] = f
                    critic = sh[CRITIC] == p and (not reflip or rules[R_CRITIC_REFLIP] != 0)
                    pv[p, SCORE] = f + (bonus if critic else 0)
                    _record_fame_final(p, S, O)
            _log_grids(S, O)
            for p in range(P):
                if pv[p, CONTEND]:
                    _log(sh, log, EV_FINAL, p, pv[p, SCORE], sh[REFLIPS], 0, 0, 0, 0)
        best = -(1 << 30)
        for p in range(P):
            if pv[p, CONTEND] and pv[p, SCORE] > best:
                best = pv[p, SCORE]
        n_top = 0
        for p in range(P):
            if pv[p, CONTEND] and pv[p, SCORE] == best:
                n_top += 1
            else:
                pv[p, CONTEND] = 0
        if n_top == 1 or not flips or sh[REFLIPS] >= rules[R_MAX_REFLIPS]:
            break
        sh[REFLIPS] += 1
        reflip = True
    for p in range(P):
        pv[p, WINNER] = pv[p, CONTEND]
    sh[PHASE] = PH_DONE
    _log(sh, log, EV_RESULT, sh[END], sh[CRITIC], sh[REFLIPS], 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _record_fame_final(p, S, O):
    pc, pv = S.rows, S.seat
    stt = O.stats
    for i in range(pv[p, GN]):
        if pc[p, GF, i] == 0:
            stt[ST_FAME, p, pc[p, GK, i]] += pc[p, GL, i]
            stt[ST_APPEAR, p, pc[p, GK, i]] += 1


@njit(**INLINE, **INTERNAL)
def _avoided(p, prio):
    """The card seat p may never hire (its ``avoid`` option: policies.encode_priority writes it as -2 - kind
    after the favoured cards), or -1."""
    for j in range(prio.shape[1]):
        e = prio[p, j]
        if e == -1:
            break
        if e <= -2:
            return np.int64(-2 - e)
    return np.int64(-1)


@njit(**CALL, **INTERNAL)
def _setup(S, C, rng):
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    P = np.int64(sh[NP])
    solo = P == 1
    col = C_SOLO if solo else C_COPIES
    K = cards.shape[0]
    tn = 0
    for k in range(K):
        if cards[k, C_STARTER] == 0:
            for _ in range(cards[k, col]):
                toon[tn] = k
                tn += 1
    sh[TN] = tn
    _shuffle(rng, toon, np.int64(tn))
    total = tn
    if solo:
        d = min(tn, int(rules[R_SOLO_DISCARD]))
        sh[TN] = tn - d
        sh[DISCARDED] = d
    for p in range(P):
        for k in range(K):
            if cards[k, C_STARTER] != 0:
                for _ in range(cards[k, col]):
                    _deck_top_push(p, pc, pv, k)
                    _own(p, pv, _vfix(C.values, k))
                    total += 1
        pv[p, BAN] = _avoided(p, C.priority) + 1
    sh[TOTAL] = total
    _refill(S, C)
    sh[FIRST] = below(rng, np.int64(P)) if rules[R_FIRST] == 0 else 0
    sh[FIRST0] = sh[FIRST]
    sh[PHASE] = PH_START
