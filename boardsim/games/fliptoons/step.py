"""FlipToons one decision at a time: the step interface the search players (``lookahead``, ``mcts``) use.

- ``advance`` runs the game forward to the next market decision of a seat in a seat mask (every other
  seat choosing with ``decide.choose``), or to its end;
- ``to_move`` is the seat to choose there, ``legal`` its legal market actions;
- ``apply`` plays one of them;
- ``copy_world`` copies a state into another preallocated one.

The batch kernels (``kernel.py``) play whole games through the same ``advance``: a game played here choosing
what ``decide.choose`` chooses is the batch kernel's game exactly (tests/games/fliptoons/test_step.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardsim.games.fliptoons.decide import (
    choose,
)
from boardsim.games.fliptoons.engine import (
    _apply,
    _cleanup,
    _decay,
    _end_solo,
    _end_turn,
    _final_flip,
    _hooks,
    _log_market,
    _refill,
    _start_round,
)
from boardsim.games.fliptoons.state import (
    A_DISMISS,
    A_END,
    ACTS,
    BONUS_ACT,
    CALL,
    END_SOLO_WIN,
    FIRST,
    GN,
    INLINE,
    INTERNAL,
    INTURN,
    NP,
    OVERLOAD,
    PH_CLEANUP,
    PH_DONE,
    PH_FINAL,
    PH_MARKET,
    PH_START,
    PHASE,
    R_ACTIONS,
    R_DECAY_PLAYERS,
    R_GOAL,
    R_HOOK_TIMING,
    R_SOLO_WIN,
    SPEND,
    TURN,
    W,
    _dismiss_ok,
    _hire_ok,
)


# -- the step interface: to_move, legal, apply (with advance to stop at decisions, copy_world) ------------
@njit(**INLINE)
def to_move(S):
    """The seat whose market decision advance stopped at."""
    sh = S.shared
    return np.int64((sh[FIRST] + sh[TURN]) % sh[NP])


@njit(**INLINE)
def legal(p, S, C, out):
    """Seat p's legal market actions into ``out`` (at least W + grid cards + 1 long): every affordable hire
    (slot order), every legal paid dismissal (A_DISMISS + grid index, grid order), then ending the turn
    (A_END, always legal).  Returns how many."""
    pc, pv, mk = S.rows, S.seat, S.market
    n = np.int64(0)
    for s in range(np.int64(S.shared[W])):
        if _hire_ok(p, s, pv, mk, C.prices):
            out[n] = s
            n += 1
    for g in range(pv[p, GN]):
        if _dismiss_ok(p, g, pc, pv, C.cards, C.rules):
            out[n] = A_DISMISS + g
            n += 1
    out[n] = A_END
    return n + 1


@njit(**INLINE)
def apply(p, a, S, C, O, rng):
    """Play seat p's market action ``a`` (the step interface's *apply*); returns True when it ended the game
    (a solo instant win), after which advance returns 0."""
    _apply(p, a, S, C, O, rng)
    pv, rules = S.seat, C.rules
    if S.shared[NP] == 1 and rules[R_SOLO_WIN] != 0 and pv[0, SPEND] >= rules[R_GOAL]:
        _end_solo(np.int64(END_SOLO_WIN), S, O)
        return True
    return False


def _round_phase(fn, S, C, O, rng, score):
    """``fn(S, C, O, rng, score)``, or ``_start_round(S, C, O, rng, None)`` if fn is None (tests, benchmarks).

    Chosen by fn's type when compiled (the overload below): an ``is None`` test on a function pointer is not
    pruned, which compiled the other branch into the batch engines too.  No dispatcher is passed as a value:
    one converted to a function pointer (or merely passed where it has a pointer signature) made the caller
    uncacheable."""
    if fn is None:
        _start_round(S, C, O, rng, None)
    else:
        fn(S, C, O, rng, score)


def _final_phase(fn, S, C, O, rng, score):
    """``fn(S, C, O, rng, score)``, or ``_final_flip(S, C, O, rng, None)`` if fn is None: as _round_phase."""
    if fn is None:
        _final_flip(S, C, O, rng, None)
    else:
        fn(S, C, O, rng, score)


@overload(_round_phase, **OVERLOAD)
def _round_phase_by_type(fn, S, C, O, rng, score):
    if isinstance(fn, types.NoneType):
        return lambda fn, S, C, O, rng, score: _start_round(S, C, O, rng, None)
    return lambda fn, S, C, O, rng, score: fn(S, C, O, rng, score)


@overload(_final_phase, **OVERLOAD)
def _final_phase_by_type(fn, S, C, O, rng, score):
    if isinstance(fn, types.NoneType):
        return lambda fn, S, C, O, rng, score: _final_flip(S, C, O, rng, None)
    return lambda fn, S, C, O, rng, score: fn(S, C, O, rng, score)


@njit(**CALL, **INTERNAL)
def advance(S, C, O, X, U, rng, stop, start_round, final_flip, score):
    """Run the game forward (the step interface's *advance*).  Returns 1 when seat p = ``to_move(S)`` must choose
    a market action and bit p of the seat mask ``stop`` is set (then list its actions with ``legal``
    and play one with ``step_apply``), else 0: the game is over.  ``stop = 0`` plays the whole game, every
    seat choosing with ``decide.choose``.

    ``start_round``, ``final_flip`` and ``score`` are ``_start_round``, ``_final_flip`` and ``_score_player``
    or function pointers to them (FUNCTIONS), or None for ordinary calls (numba prunes the other branch;
    passing the dispatchers themselves made the caller uncacheable).  The batch engines call them through
    pointers, so LLVM optimises each once instead of again in every function that links them (about 4 of
    50 CPU-s of a cold compile).  Each runs once a round or once a game: the indirect call costs nothing
    measurable."""
    pc, pv, dism, sh, toon, mk = S
    rules = C.rules
    P = np.int64(sh[NP])
    while sh[PHASE] != PH_DONE:
        ph = sh[PHASE]
        if ph == PH_START:
            _round_phase(start_round, S, C, O, rng, score)
        elif ph == PH_MARKET:
            if sh[TURN] >= P:
                if rules[R_HOOK_TIMING] != 0:
                    for j in range(P):
                        _hooks((sh[FIRST] + j) % P, S, C, O, X, rng)
                    _refill(S, C)
                if P <= rules[R_DECAY_PLAYERS]:
                    _decay(S, C, O)
                _log_market(S, O)
                sh[PHASE] = PH_CLEANUP
                continue
            p = (sh[FIRST] + sh[TURN]) % P
            if sh[INTURN] == 0:
                pv[p, ACTS] = int(rules[R_ACTIONS]) + pv[p, BONUS_ACT]
                pv[p, BONUS_ACT] = 0
                sh[INTURN] = 1
            while pv[p, ACTS] > 0:
                if stop != 0 and (stop >> p) & 1:
                    return 1
                a = choose(p, S, C, X, U, rng)
                if apply(p, a, S, C, O, rng):
                    return 0
            _end_turn(p, S, C, O, X, rng)
        elif ph == PH_CLEANUP:
            _cleanup(S, C, O, rng)
        elif ph == PH_FINAL:
            _final_phase(final_flip, S, C, O, rng, score)
    return 0


@njit(**CALL, **INTERNAL)
def copy_world(src, dst):
    # element loops: an array-to-array slice copy (or ravel) needs NRT, which this kernel runs without
    a, b = src[0], dst[0]
    for x in range(a.shape[0]):
        for y in range(a.shape[1]):
            for z in range(a.shape[2]):
                b[x, y, z] = a[x, y, z]
    _copy2(src[1], dst[1])
    _copy2(src[2], dst[2])
    _copy2(src[5], dst[5])
    a1, b1 = src[3], dst[3]
    for x in range(a1.shape[0]):
        b1[x] = a1[x]
    a1, b1 = src[4], dst[4]
    for x in range(a1.shape[0]):
        b1[x] = a1[x]


@njit(**INLINE, **INTERNAL)
def _copy2(a, b):
    for x in range(a.shape[0]):
        for y in range(a.shape[1]):
            b[x, y] = a[x, y]
