import numpy as np
import pytest

from boardsim.analysis.ratings import bradley_terry


def expected_wins(strength, n=10_000):
    p = np.asarray(strength, dtype=float)
    w = n * p[:, None] / (p[:, None] + p[None, :])
    np.fill_diagonal(w, 0.0)
    return w


def test_recovers_known_strengths_exactly_from_expected_counts():
    strength = np.array([1.0, 2.0, 4.0, 0.5])
    fit = bradley_terry(expected_wins(strength), list("abcd"))
    truth = np.log(strength) - np.log(strength).mean()
    assert np.allclose(fit["rating"], truth, atol=1e-6)
    assert np.isclose(fit["rating"].sum(), 0.0)
    assert (fit["rating_lo"] < truth).all() and (truth < fit["rating_hi"]).all()


def test_intervals_shrink_with_more_games():
    strength = [1.0, 3.0, 2.0]
    small = bradley_terry(expected_wins(strength, 100), ["a", "b", "c"])
    big = bradley_terry(expected_wins(strength, 10_000), ["a", "b", "c"])
    assert np.allclose(small["se"] / big["se"], 10.0, rtol=1e-3)


def test_sampled_matches_cover_the_truth():
    rng = np.random.default_rng(0)
    strength = np.array([1.0, 1.5, 3.0])
    p = strength[:, None] / (strength[:, None] + strength[None, :])
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            k = rng.binomial(4000, p[i, j])
            wins[i, j], wins[j, i] = k, 4000 - k
    fit = bradley_terry(wins, ["a", "b", "c"])
    truth = np.log(strength) - np.log(strength).mean()
    assert ((fit["rating_lo"] < truth) & (truth < fit["rating_hi"])).all()


def test_needs_two_players():
    with pytest.raises(ValueError):
        bradley_terry(np.zeros((1, 1)), ["a"])
