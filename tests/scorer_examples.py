"""Scorers the tests name by path ("tests.scorer_examples:..."), as a scenario would."""

from numba import njit


@njit(cache=True)
def first_column(features, candidates, params, scores):
    for i in range(candidates.shape[0]):
        scores[i] = candidates[i, 0] * params[0]


@njit(cache=True)
def returns_a_number(features, candidates, params, scores):
    return 1.0


@njit(cache=True)
def two_arguments(features, candidates):
    pass


@njit(cache=True)
def bad_types(features, candidates, params, scores):
    scores[0] = "text"


def plain_python(features, candidates, params, scores):
    pass
