import numpy as np
import pytest

from boardsim.stats.ratings import bradley_terry


def expected_wins(strength, n=10_000):
    p = np.asarray(strength, dtype=float)
    w = n * p[:, None] / (p[:, None] + p[None, :])
    np.fill_diagonal(w, 0.0)
    return w


def test_recovers_known_strengths_exactly_from_expected_counts():
    strength = np.array([1.0, 2.0, 4.0, 0.5])
    fit = bradley_terry(expected_wins(strength), list("abcd"), prior=0.0).set_index("policy").loc[list("abcd")]
    truth = np.log(strength) - np.log(strength).mean()
    assert np.allclose(fit["rating"], truth, atol=1e-6)
    assert np.isclose(fit["rating"].sum(), 0.0)
    assert (fit["rating_lo"] < truth).all() and (truth < fit["rating_hi"]).all()


def test_intervals_shrink_with_more_games():
    strength = [1.0, 3.0, 2.0]
    small = bradley_terry(expected_wins(strength, 100), ["a", "b", "c"], prior=0.0).set_index("policy")
    big = bradley_terry(expected_wins(strength, 10_000), ["a", "b", "c"], prior=0.0).set_index("policy")
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
    fit = bradley_terry(wins, ["a", "b", "c"]).set_index("policy").loc[["a", "b", "c"]]
    truth = np.log(strength) - np.log(strength).mean()
    assert ((fit["rating_lo"] < truth) & (truth < fit["rating_hi"])).all()


def test_needs_two_players():
    with pytest.raises(ValueError):
        bradley_terry(np.zeros((1, 1)), ["a"])


def test_rows_come_strongest_first():
    fit = bradley_terry(expected_wins([1.0, 4.0, 2.0]), ["a", "b", "c"])
    assert list(fit["policy"]) == ["b", "c", "a"] and fit["rating"].is_monotonic_decreasing


def test_perfect_separation_gives_finite_ratings_and_intervals():
    wins = np.array([[0.0, 5000.0], [0.0, 0.0]])  # a finished ahead of b in every comparison
    fit = bradley_terry(wins, ["a", "b"]).set_index("policy")
    assert np.isfinite(fit[["rating", "rating_lo", "rating_hi", "se"]].to_numpy()).all()
    assert fit.loc["a", "rating_lo"] > fit.loc["b", "rating_hi"]  # the ordering is clear
    assert fit.loc["a", "rating"] < 10 and fit.loc["a", "se"] < 2


def test_deal_clusters_widen_intervals_when_comparisons_repeat_within_a_deal():
    # the same 400 independent outcomes, each counted 10 times (10 games of one deal agree perfectly)
    rng = np.random.default_rng(3)
    outcome = rng.random(400) < 0.6
    per_deal = np.zeros((400, 2, 2))
    per_deal[outcome, 0, 1] = 10
    per_deal[~outcome, 1, 0] = 10
    naive = bradley_terry(per_deal.sum(axis=0), ["a", "b"]).set_index("policy")
    clustered = bradley_terry(per_deal.sum(axis=0), ["a", "b"], per_deal=per_deal).set_index("policy")
    # 10 copies of each outcome carry the information of one: the se grows by about sqrt(10)
    assert np.isclose(clustered.loc["a", "se"] / naive.loc["a", "se"], np.sqrt(10), rtol=0.05)
