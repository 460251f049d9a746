"""Custom Art Deco scorers for the tests: each plays exactly like a built-in policy.

Named in scenarios and tests as ``"tests.games.art_deco.scorers:<name>"``.  They read the decision view
by the positions ``boardsim.games.art_deco.decide`` documents (``F_*`` features, ``K_*`` columns).
"""

from __future__ import annotations

import math

import numba

from boardsim.games.art_deco.decide import DO_NOTHING, DO_SELL, F_CARDS, F_MIN_CARDS, K_ACTION, K_GAIN, K_PRICE, K_VALUE


@numba.njit
def _sell_score(features, candidates, i):
    """par's sale: the card with the best gain of at least 1, while holding more than the minimum."""
    if features[F_CARDS] > features[F_MIN_CARDS] and candidates[i, K_GAIN] >= 1.0:
        return candidates[i, K_GAIN]
    return -1.0


@numba.njit
def par(features, candidates, params, scores):
    """``par``: bid or buy while the price is <= the card's value."""
    for i in range(candidates.shape[0]):
        action = candidates[i, K_ACTION]
        if action == DO_NOTHING:
            scores[i] = 0.0
        elif action == DO_SELL:
            scores[i] = _sell_score(features, candidates, i)
        else:
            scores[i] = 1.0 if candidates[i, K_PRICE] <= candidates[i, K_VALUE] else -1.0


@numba.njit
def eligibility(features, candidates, params, scores):
    """``eligibility`` with params (hard, target): pays up to hard x value while short of target cards."""
    hard, target = params[0], params[1]
    for i in range(candidates.shape[0]):
        action = candidates[i, K_ACTION]
        value = candidates[i, K_VALUE]
        if action == DO_NOTHING:
            scores[i] = 0.0
        elif action == DO_SELL:
            scores[i] = _sell_score(features, candidates, i)
        else:
            limit = math.floor(hard * value + 1e-9) if features[F_CARDS] < target else value
            scores[i] = 1.0 if candidates[i, K_PRICE] <= limit else -1.0


@numba.njit
def wrong_arity(features, candidates, params):
    """Three arguments instead of four: rejected before any game."""
    return None


@numba.njit
def returns_a_score(features, candidates, params, scores):
    """Returns a number instead of writing ``scores``: rejected before any game."""
    return 1.0
