"""FlipToons grid rules: Flip (§3) with the placement abilities, Check Fame (§4), and the dismissal path every
dismissal takes (the dismissed pile, the When Dismissed banner, the Pig).

The market, banners, hooks and rounds that call them are in ``engine.py``; the synergy policy (``decide.py``)
flips and scores a private grid with them too.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardsim.games.fliptoons.cards import (
    C_BFAME,
    C_BONUS,
    C_BPARAM,
    C_CBD,
    C_CBF,
    C_FAME,
    C_HIRED,
    C_ONDISM,
    C_PLACE,
    C_RANK,
    C_STARTER,
)
from boardsim.games.fliptoons.state import (
    ADJ,
    B_ADJ_RANK_MAX,
    B_ALL_UNIQUE,
    B_ANY_FD,
    B_COLUMN,
    B_COPY_ADJ,
    B_DISM_STARTERS,
    B_DISMISSED,
    B_ELSEWHERE,
    B_FACEUP,
    B_MOST,
    B_RANK_COUNT,
    B_ROW,
    B_UNIQUE_ADJ,
    CALL,
    D_PLACE_ANY,
    DECK,
    DISMS,
    DN,
    DSTART,
    DTOT,
    DUPS,
    EV_DISMISS,
    EV_PIG,
    EV_SNAKE_BOTTOM,
    EV_SNAKE_DRAW,
    EV_SNAKE_SIDE,
    FC,
    FREE_SET,
    GF,
    GK,
    GL,
    GN,
    GS,
    H_NONE,
    INLINE,
    INTERNAL,
    MAXX,
    NFD,
    NFU,
    NP,
    NQ,
    NS,
    OVERLOAD,
    PIG_SET,
    PL_EAGLE,
    PL_ELEPHANT,
    PL_MONKEY,
    PL_OSTRICH,
    PL_RABBIT,
    PL_SNAKE,
    PL_TURKEY,
    Q0,
    QN,
    R_COW_FLOOR,
    R_LATERAL,
    R_OSTRICH_MOVES,
    R_RABBIT_EXTRA,
    R_SHEEP_EXTRA,
    R_SNAKE_EDGE,
    R_SNAKE_RIGHT_PLACED,
    ST_DISMISSED,
    ST_HIRED,
    TN,
    WHY_SNAKE,
    W,
    _add_grid,
    _base_mask,
    _deck_bottom_push,
    _first_empty,
    _free_dismiss_ok,
    _log,
    _move_card,
    _occupied,
    _own,
    _remove_grid,
    _turn_facedown,
    _vfix,
)
from boardsim.games.fliptoons.subchoices import (
    pig_destination,
    takes_free_dismissal,
)
from boardsim.rng import shuffle, step

SCALAR_SHIFT = np.zeros(16, dtype=np.int64)  # where _score_player's packed scalars keep each bonus's count
SCALAR_MASK = np.zeros(16, dtype=np.int64)  # 0: not a scalar bonus
for _b, _shift, _mask in ((B_DISM_STARTERS, 0, (1 << 20) - 1), (B_DISMISSED, 20, (1 << 20) - 1),
                          (B_FACEUP, 40, (1 << 20) - 1), (B_ANY_FD, 60, 1), (B_ALL_UNIQUE, 61, 1)):
    SCALAR_SHIFT[_b] = _shift
    SCALAR_MASK[_b] = _mask
# the bonuses _score_player computes with loops (row and column are per-slot tests, the rest scalars above)
COMPLEX_BONUS = sum(1 << b for b in (B_UNIQUE_ADJ, B_ELSEWHERE, B_MOST, B_RANK_COUNT, B_ADJ_RANK_MAX, B_COPY_ADJ))


# -- dismissed pile and the Pig --------------------------------------------------------------------


@njit(**CALL, **INTERNAL)
def _place_in_deck(dest, kind, S, rng):
    pc, pv, dism, sh, toon, mk = S
    if dest < 0:
        toon[sh[TN]] = kind
        sh[TN] += 1
        shuffle(rng, toon, np.int64(sh[TN]))
    else:
        _deck_bottom_push(dest, pc, pv, kind)


@njit(**INLINE, **INTERNAL)
def _takes_free(p, sh, C, rng):
    """Whether p takes a Butterfly's free dismissal: the search's choice if it set one, else the seat's rule."""
    chosen = sh[FREE_SET]
    if chosen != 0:
        sh[FREE_SET] = 0
        return chosen == 1
    return takes_free_dismissal(p, C, rng)


@njit(**CALL, **INTERNAL)
def _pig_to_deck(p, kind, S, C, O, rng):
    """The Pig's banner, "when hired or dismissed, place this card in any deck": the one path for a hire,
    a Snake-stacked Pig and every dismissal route, so the deck is always the seat policy's same choice."""
    chosen = S.shared[PIG_SET]
    if chosen != 0:  # the search chose the deck (mcts.apply_action)
        S.shared[PIG_SET] = 0
        dest = np.int64(chosen - 2)
    else:
        dest = pig_destination(p, S, C, rng)
    _place_in_deck(dest, kind, S, rng)
    if dest >= 0:
        _own(dest, S.seat, _vfix(C.values, kind))
    _log(S.shared, O.log, EV_PIG, p, kind, dest, 0, 0, 0, 0)


@njit(**INLINE, **INTERNAL)
def _to_pile(p, kind, why, S, C, O, rng):
    """A card leaves p's grid or deck as a dismissal: pile, stats, When Dismissed banner.

    Inlined, with the rare Pig in a call of its own: an ordinary call copies every field of every
    array in the state tuples, which cost more than the work here."""
    pc, pv, dism, sh, toon, mk = S
    cards = C.cards
    stt, rf, log = O
    _own(p, pv, -_vfix(C.values, kind))  # the card has left p's grid or deck
    stt[ST_DISMISSED, p, kind] += 1
    pv[p, DISMS] += 1
    _log(sh, log, EV_DISMISS, p, kind, why, 0, 0, 0, 0)
    if cards[kind, C_ONDISM] == D_PLACE_ANY:
        _pig_to_deck(p, kind, S, C, O, rng)
        return
    dism[p, kind] += 1
    pv[p, DTOT] += 1
    if cards[kind, C_STARTER] != 0:
        pv[p, DSTART] += 1


@njit(**INLINE, **INTERNAL)
def _dismiss_grid(p, g, why, S, C, O, rng):
    pc, pv = S.rows, S.seat
    kind = pc[p, GK, g]
    _remove_grid(p, pc, pv, g)
    _to_pile(p, kind, why, S, C, O, rng)


# -- Flip (§3) -------------------------------------------------------------------------------------
@njit(**CALL, **INTERNAL)
def _rabbit_target(p, kind, pc, pv, rules):
    """First slot in reading order holding a face-up card of this kind or any face-down card."""
    last = NS if rules[R_RABBIT_EXTRA] != 0 else 6
    for s in range(last):
        for i in range(pv[p, GN]):
            if pc[p, GS, i] == s and (pc[p, GF, i] == 1 or pc[p, GK, i] == kind):
                return s
    return -1


@njit(**CALL, **INTERNAL)
def _snake(p, i_snake, mask, prev, S, C, O, rng):
    """Snake's placement ability (§3.4).  Returns the new base mask and previous-placed card."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules = C.cards, C.rules
    stt, rf, log = O
    slot = pc[p, GS, i_snake]
    if pv[p, DN] > 0:
        top = pc[p, DECK, pv[p, DN] - 1]
        if cards[top, C_CBD] == 0:
            if _free_dismiss_ok(p, pv, rules):
                pv[p, DN] -= 1
                _to_pile(p, top, np.int64(WHY_SNAKE), S, C, O, rng)
        else:
            col = slot % 3
            if rules[R_SNAKE_EDGE] == 0:
                edge = col == 2
            else:
                edge = slot == 5
            target = -1
            if not edge:
                if col < 2:
                    target = slot + 1
                else:
                    target = _first_empty(mask)
            pv[p, DN] -= 1
            if target < 0:
                _deck_bottom_push(p, pc, pv, top)
                _log(sh, log, EV_SNAKE_BOTTOM, p, top, 0, 0, 0, 0, 0)
            else:
                j = _add_grid(p, pc, pv, top, target, 0)
                if target < 6:
                    mask |= 1 << target
                if rules[R_SNAKE_RIGHT_PLACED] != 0:
                    prev = j
                _log(sh, log, EV_SNAKE_SIDE, p, top, target, 0, 0, 0, 0)
    if sh[TN] > 0:
        k = toon[sh[TN] - 1]
        sh[TN] -= 1
        _add_grid(p, pc, pv, k, slot, 0)
        _own(p, pv, _vfix(C.values, k))
        stt[ST_HIRED, p, k] += 1
        _log(sh, log, EV_SNAKE_DRAW, p, k, 0, 0, 0, 0, 0)
        if cards[k, C_HIRED] != H_NONE and pv[p, QN] < NQ:
            pv[p, Q0 + pv[p, QN]] = k
            pv[p, QN] += 1
    return mask, prev


@njit(**INLINE)
def _place_all(p, S, C, O, rng):
    """Reveal cards from the top of p's deck into the grid until 6 base slots are full (§3.1).

    The reveal loop (``_place_run``) is an ordinary call that takes only the arrays it reads: a call
    that passes the state tuples copies every field of every array in them, every flip.  A Snake's
    ability, which touches the whole state, runs between the loop's parts."""
    pc, pv = S.rows, S.seat
    pv[p, QN] = 0
    mask = _base_mask(p, pc, pv)
    prev = np.int64(-1)
    while True:
        mask, prev, i = _place_run(p, pc, pv, C.cards, C.rules, mask, prev)
        if i < 0:
            return
        mask, prev = _snake(p, i, mask, prev, S, C, O, rng)


@njit(**CALL, **INTERNAL)
def _place_run(p, pc, pv, cards, rules, mask, prev):
    """``_place_all``'s loop from a base mask and previous-placed card, until the grid is full, the
    deck is empty or a face-up Snake is placed: returns (mask, prev, that Snake's grid index or -1).
    Nothing is pending after a Snake: a pending effect always ends with the next card."""
    pending = 0  # 1 = stack next on pend_slot (Ostrich), 2 = flip next (Eagle)
    pend_slot = -1
    while mask != 63 and pv[p, DN] > 0:
        pv[p, DN] -= 1
        c = pc[p, DECK, pv[p, DN]]
        place = cards[c, C_PLACE]
        slot = -1
        fd = np.int64(0)
        suppress = False
        by_ostrich = False
        if pending == 2:
            pending = 0
            if cards[c, C_CBF] == 0:
                slot = _first_empty(mask)
                fd = 1
                suppress = True
        elif pending == 1:
            pending = 0
            slot = pend_slot
            by_ostrich = True
        if slot < 0:
            if place == PL_TURKEY and prev >= 0:
                slot = pc[p, GS, prev]
            elif place == PL_RABBIT:
                slot = _rabbit_target(p, c, pc, pv, rules)
                if slot < 0:
                    slot = _first_empty(mask)
            else:
                slot = _first_empty(mask)
        elif by_ostrich and rules[R_OSTRICH_MOVES] != 0:
            # A5 alternative: a Rabbit or Turkey stacked by an Ostrich still moves itself.
            if place == PL_RABBIT:
                t = _rabbit_target(p, c, pc, pv, rules)
                if t >= 0:
                    slot = t
            elif place == PL_TURKEY and prev >= 0:
                slot = pc[p, GS, prev]
        i = _add_grid(p, pc, pv, c, slot, fd)
        if slot < 6:
            mask |= 1 << slot
        before = prev
        prev = i
        if suppress:
            continue
        if place == PL_ELEPHANT:
            if before >= 0 and cards[pc[p, GK, before], C_CBF] == 0:
                _turn_facedown(p, pc, pv, before)
        elif place == PL_OSTRICH:
            pending = 1
            pend_slot = slot
        elif place == PL_EAGLE:
            pending = 2
        elif place == PL_MONKEY:
            if slot < 3:
                # a free row always exists: cards.py allows at most MAXX Monkey-placement cards in all
                target = 6 + 3 * (MAXX - 1) + slot
                for x in range(MAXX):
                    t = 6 + 3 * x + slot
                    if not _occupied(p, pc, pv, t):
                        target = t
                        break
                _move_card(p, pc, pv, i, np.int64(target))
                if not _occupied(p, pc, pv, slot):
                    mask &= ~(1 << slot)
        elif place == PL_SNAKE:
            return mask, prev, i
    return mask, prev, np.int64(-1)


@njit(**INLINE, **INTERNAL)
def _shuffle(rng, arr, n):
    """``rng.shuffle``, the same draws and the same order, with the generator in locals for the loop: LLVM
    cannot tell the state array apart from the deck, so rng.shuffle stores and reloads the state on every
    swap."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    for i in range(n - 1, 0, -1):
        u, s0, s1, s2, s3 = step(s0, s1, s2, s3)
        j = int(u * (i + 1))  # rng.below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3


@njit(**INLINE, **INTERNAL)
def _flip(p, S, C, O, rng):
    pc, pv = S.rows, S.seat
    _shuffle(rng, pc[p, DECK], np.int64(pv[p, DN]))
    _place_all(p, S, C, O, rng)


# -- Check Fame (§4) -------------------------------------------------------------------------------
@njit(**INLINE, **INTERNAL)
def _popcount(m):
    """Set bits of a non-negative int64 (SWAR: no loop whose exit the branch predictor would miss)."""
    m = m - ((m >> 1) & 0x5555555555555555)
    m = (m & 0x3333333333333333) + ((m >> 2) & 0x3333333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (m * 0x0101010101010101) >> 56


@njit(**CALL)
def _score_player(p, pc, pv, sh, mk, cards, rules):
    """Fame of every card in p's grid (written to the GL row); returns the grid total.

    Takes only the arrays it reads, not the state tuples: an ordinary call copies every field of every
    array it is passed, and this one runs for each player every round."""
    P = np.int64(sh[NP])
    Wd = np.int64(sh[W])
    n = pv[p, GN]
    lat = 1 if rules[R_LATERAL] != 0 else 0
    # Branch-free where it can be: face-up or not, and the bonus type of each card, are data the branch
    # predictor keeps missing.  The bonuses that need only per-grid scalars are a sum of masked terms
    # (integer arithmetic: the same totals); the ones with loops keep their branches.
    # The per-grid scalars packed into one word, read by bonus type through SCALAR_SHIFT/SCALAR_MASK:
    # dismissed starters and dismissed cards (20 bits each: a game has far fewer cards), face-up count
    # (20 bits), any face-down and all unique (1 bit each).  The grid counts are kept up to date as cards are
    # placed (_count_up and friends), so no pass over the grid is needed for them.
    packed = (np.int64(pv[p, DSTART]) | (np.int64(pv[p, DTOT]) << 20) | (np.int64(pv[p, NFU]) << 40)
              | (np.int64(pv[p, NFD] > 0) << 60) | (np.int64(pv[p, DUPS] == 0) << 61))
    sheep_extra = np.int64(rules[R_SHEEP_EXTRA] != 0)
    has_cow = False
    total = np.int64(0)  # the grid total, summed in the same pass (again below only when a Cow copies)
    for i in range(n):
        fu = np.int64(pc[p, GF, i] != 1)
        k = pc[p, GK, i]
        s = np.int64(pc[p, GS, i])
        b = np.int64(cards[k, C_BONUS])
        bf = np.int64(cards[k, C_BFAME])
        bp = np.int64(cards[k, C_BPARAM])
        f = np.int64(cards[k, C_FAME])
        base = s < 6
        mult = (((packed >> SCALAR_SHIFT[b]) & SCALAR_MASK[b])
                + np.int64(b == B_ROW) * np.int64(base & (s // 3 == bp))
                + np.int64(b == B_COLUMN) * np.int64((s % 3 == bp) & (base | (sheep_extra != 0))))
        f += bf * mult
        if (fu != 0) & (((COMPLEX_BONUS >> b) & 1) != 0):
            if b == B_UNIQUE_ADJ:
                m = np.int64(0)
                for j in range(n):
                    on = np.int64((pc[p, GF, j] == 0) & (ADJ[lat, s, pc[p, GS, j]] != 0))
                    m |= on << np.int64(pc[p, GK, j])
                f += bf * _popcount(m)
            elif b == B_ELSEWHERE:
                found = False
                for m2 in range(Wd):
                    if mk[0, m2] == k:
                        found = True
                for q in range(P):
                    if q != p and pc[q, FC, k] > 0:
                        found = True
                if found:
                    f += bf
            elif b == B_MOST:
                own = pc[p, FC, k]
                ok = True
                mc = 0
                for m2 in range(Wd):
                    if mk[0, m2] == k:
                        mc += 1
                if mc > own:
                    ok = False
                for q in range(P):
                    if q != p and pc[q, FC, k] > own:
                        ok = False
                if ok:
                    f += bf
            elif b == B_RANK_COUNT:
                cnt = 0
                for j in range(n):
                    if pc[p, GF, j] == 0 and cards[pc[p, GK, j], C_RANK] <= bp:
                        cnt += 1
                f += bf * cnt
            elif b == B_ADJ_RANK_MAX:
                ok = True
                for j in range(n):
                    if pc[p, GF, j] == 0 and ADJ[lat, s, pc[p, GS, j]] and cards[pc[p, GK, j], C_RANK] > bp:
                        ok = False
                if ok:
                    f += bf
            elif b == B_COPY_ADJ:
                has_cow = True
        pc[p, GL, i] = f * fu
        total += f * fu
    if has_cow:
        # Cows copy the best adjacent total; Cow chains settle by repeated maxima (§4.4).
        unset = -(1 << 29)
        for i in range(n):
            if pc[p, GF, i] == 0 and cards[pc[p, GK, i], C_BONUS] == B_COPY_ADJ:
                pc[p, GL, i] = unset
        changed = True
        rounds = 0
        while changed and rounds <= n + 1:
            changed = False
            rounds += 1
            for i in range(n):
                if pc[p, GF, i] != 0 or cards[pc[p, GK, i], C_BONUS] != B_COPY_ADJ:
                    continue
                best = unset
                s = pc[p, GS, i]
                for j in range(n):
                    if j != i and pc[p, GF, j] == 0 and ADJ[lat, s, pc[p, GS, j]]:
                        v = pc[p, GL, j]
                        if v > best:
                            best = v
                if best > pc[p, GL, i]:
                    pc[p, GL, i] = best
                    changed = True
        for i in range(n):
            if pc[p, GF, i] == 0 and cards[pc[p, GK, i], C_BONUS] == B_COPY_ADJ:
                k = pc[p, GK, i]
                v = pc[p, GL, i]
                if v == unset:
                    v = 0
                if rules[R_COW_FLOOR] != 0 and v < 0:
                    v = 0
                pc[p, GL, i] = v + cards[k, C_FAME]
        total = np.int64(0)
        for i in range(n):
            total += pc[p, GL, i]
    return total


@njit(**INLINE)
def _fame(p, S, C, score):
    """Check Fame for seat p: ``_score_player`` (called through ``score``, a function pointer to it, unless that
    is None: _round_phase says why) on just the arrays it reads."""
    return _score(score, p, S.rows, S.seat, S.shared, S.market, C.cards, C.rules)


def _score(score, p, pc, pv, sh, mk, cards, rules):
    """``score(...)``, or ``_score_player(...)`` if score is None: as _round_phase, chosen by score's type."""
    if score is None:
        return _score_player(p, pc, pv, sh, mk, cards, rules)
    return score(p, pc, pv, sh, mk, cards, rules)


@overload(_score, **OVERLOAD)
def _score_by_type(score, p, pc, pv, sh, mk, cards, rules):
    if isinstance(score, types.NoneType):
        return lambda score, p, pc, pv, sh, mk, cards, rules: _score_player(p, pc, pv, sh, mk, cards, rules)
    return lambda score, p, pc, pv, sh, mk, cards, rules: score(p, pc, pv, sh, mk, cards, rules)
