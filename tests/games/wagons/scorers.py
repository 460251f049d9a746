"""Custom scorers for the Wagons user-policy tests (importable as ``tests.games.wagons.scorers:<name>``)."""

from __future__ import annotations

import numba

GAIN, GIFT, POSITION, CARD = range(4)  # decide.CANDIDATE_COLUMNS


@numba.njit
def gain_minus_gift(features, candidates, params, scores):
    """The built-in default's choice: gain minus the gift (gift_weight 1)."""
    for i in range(candidates.shape[0]):
        scores[i] = candidates[i, GAIN] - 1.0 * candidates[i, GIFT]


@numba.njit
def weighted(features, candidates, params, scores):
    """gain - w * gift with w = the seat's first $param."""
    for i in range(candidates.shape[0]):
        scores[i] = candidates[i, GAIN] - params[0] * candidates[i, GIFT]


@numba.njit
def returns_value(features, candidates, params, scores):
    """Wrong: returns a number instead of writing scores."""
    return candidates[0, GAIN]


@numba.njit
def two_args(features, candidates):
    """Wrong: too few arguments."""
    return None


def not_jitted(features, candidates, params, scores):
    """Wrong: a plain Python function."""
    scores[:] = 0.0


@numba.njit
def checks_view(features, candidates, params, scores):
    """Takes the first card while the decision view is consistent, the last one as soon as it is not."""
    ok = features.shape[0] == 25 and 1 <= features[0] <= 15  # cards_left
    ok = ok and features[3] + features[4] + features[0] == 15  # my_cards + opp_cards + cards_left
    ok = ok and features[2] in (0.0, 1.0) and features[7:].sum() == 3.0  # is_p1; three goals in play
    ok = ok and candidates.shape[0] == min(2, features[0]) and candidates[0, GIFT] == 0.0
    for i in range(candidates.shape[0]):
        ok = ok and candidates[i, POSITION] == i and 0 <= candidates[i, CARD] < 18
        scores[i] = 0.0
    scores[0 if ok else candidates.shape[0] - 1] = 1.0
