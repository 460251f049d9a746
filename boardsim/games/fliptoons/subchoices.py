"""FlipToons sub-choices: the choices a player makes inside a banner or a hook, which the rules (``engine.py``)
ask for as they resolve it.

- ``pig_destination``: whose deck a hired or dismissed Pig goes to;
- ``grid_card_to_dismiss``: the card an Alligator or the Skunk dismisses;
- ``takes_free_dismissal``: whether a Butterfly's free dismissal is taken;
- ``horse_discards``: whether a Horse discards a market card.

A ``random`` seat picks at random; every other seat (the ``rules`` and ``custom`` policies included) makes the
documented default choice (docs/rules/fliptoons.md).  The market action itself is ``decide.choose``'s: it needs
the rules (the synergy policy flips), so it sits above the engine, and these below it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.fliptoons.cards import (
    C_CBD,
)
from boardsim.games.fliptoons.policies import POLICY_CODE
from boardsim.games.fliptoons.state import (
    CALL,
    FAME,
    GF,
    GK,
    GN,
    GS,
    INLINE,
    INTERNAL,
    NP,
    POL_RANDOM,
)
from boardsim.rng import below, random


# -- sub-choices inside banners and hooks: a random seat picks at random, every other seat as documented ------
@njit(**INLINE, **INTERNAL)
def takes_free_dismissal(p, C, rng):
    """Whether p takes a Butterfly's free dismissal of its target (always, except a random seat: a coin)."""
    if int(C.policies[p, POLICY_CODE]) == POL_RANDOM:
        return random(rng) < 0.5
    return True


@njit(**INLINE, **INTERNAL)
def horse_discards(p, k, mean, C, rng):
    """Whether p's Horse discards market card ``k``: one worth less than p's deck average ``mean``."""
    if int(C.policies[p, POLICY_CODE]) == POL_RANDOM:
        return random(rng) < 0.5
    return C.values[k] < mean


@njit(**CALL, **INTERNAL)
def pig_destination(p, S, C, rng):
    """Where p's Pig goes: a player's deck, or the toon deck (-1)."""
    pc, pv, dism, sh, toon, mk = S
    cards, rules, prices, pol, prio, val = C
    P = np.int64(sh[NP])
    if P == 1:
        return -1
    if int(pol[p, POLICY_CODE]) == POL_RANDOM:
        return below(rng, np.int64(P + 1)) - 1
    # the opponent with the most fame this round (the leader), nearest seat first on ties
    best = -1
    bf = -(1 << 30)
    for d in range(1, P):
        q = (p + d) % P
        if pv[q, FAME] > bf:
            bf = pv[q, FAME]
            best = q
    return best


@njit(**CALL, **INTERNAL)
def grid_card_to_dismiss(p, slot, S, C, rng):
    """The face-up, dismissable card of p's grid (in ``slot`` if slot >= 0) that an Alligator or Skunk
    dismisses, or -1: the lowest-value one."""
    pc, pv = S.rows, S.seat
    cards, pol, val = C.cards, C.policies, C.values
    n_ok = np.int64(0)  # typed from the start: a literal 0 would compile below() once more for it
    best = -1
    bv = 1e18
    for i in range(pv[p, GN]):
        if pc[p, GF, i] != 0 or cards[pc[p, GK, i], C_CBD] != 0:
            continue
        if slot >= 0 and pc[p, GS, i] != slot:
            continue
        n_ok += 1
        v = val[pc[p, GK, i]]
        if v < bv:
            bv = v
            best = i
    if n_ok <= 1 or int(pol[p, POLICY_CODE]) != POL_RANDOM:
        return best
    pick = below(rng, n_ok)
    for i in range(pv[p, GN]):
        if pc[p, GF, i] != 0 or cards[pc[p, GK, i], C_CBD] != 0:
            continue
        if slot >= 0 and pc[p, GS, i] != slot:
            continue
        if pick == 0:
            return i
        pick -= 1
    return best
