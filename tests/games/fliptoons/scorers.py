"""Custom FlipToons scorers for the tests, importable as ``tests.games.fliptoons.scorers:<name>``.

Candidate columns (docs/rules/fliptoons.md, "Decision view"): 0 kind (0 hire, 1 dismiss, 2 pass), 1 card,
2 price, 3 slot, 4 gain, 5 gain_per_cost, 6 value, 7 rank, 8 copies_left.
"""

from __future__ import annotations

import numba

KIND, GAIN, GPC, VALUE = 0, 4, 5, 6


@numba.njit
def fame_per_cost(features, candidates, params, scores):
    """fame_per_cost with its defaults: the best gain per cost among hires gaining more than -0.25, unless
    the lowest-value dismissal is junk (value <= 0.5), gains, and beats that hire per fame spent."""
    best = -1e18
    low = -1
    low_value = 1e18
    for i in range(candidates.shape[0]):
        scores[i] = -3e18
        if candidates[i, KIND] == 0.0:
            if candidates[i, GAIN] > -0.25:
                scores[i] = candidates[i, GPC]
                best = max(best, candidates[i, GPC])
        elif candidates[i, KIND] == 1.0:
            if candidates[i, VALUE] < low_value:
                low_value = candidates[i, VALUE]
                low = i
        else:
            scores[i] = -2e18  # pass: better than a hire fame_per_cost would not make
    if low >= 0 and low_value <= 0.5 and candidates[low, GAIN] > 0 and candidates[low, GPC] > best:
        scores[low] = 1e18


@numba.njit
def cheapest_with(features, candidates, params, scores):
    """Hire the cheapest card whose gain exceeds ``params[0]``; otherwise pass."""
    for i in range(candidates.shape[0]):
        if candidates[i, KIND] == 0.0 and candidates[i, GAIN] > params[0]:
            scores[i] = 100.0 - candidates[i, 2]
        elif candidates[i, KIND] == 2.0:
            scores[i] = 0.0
        else:
            scores[i] = -1.0


@numba.njit
def wrong_arity(features, candidates):
    """Not a scorer: two arguments."""
    return candidates.shape[0]


def not_numba(features, candidates, params, scores):
    """Not a scorer: plain Python."""
