import numpy as np
from scipy import stats

from boardsim.stats.intervals import game_sums, mean_interval, wilson


def test_wilson_matches_scipy():
    for k, n in [(0, 10), (3, 10), (50, 100), (999, 1000), (1, 1)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = wilson(k, n)
        assert np.isclose(lo, ci.low) and np.isclose(hi, ci.high)


def test_wilson_handles_no_games_and_fractional_wins():
    lo, hi = wilson(np.array([0.0, 2.5]), np.array([0, 10]))
    assert np.isnan(lo[0]) and np.isnan(hi[0])
    assert lo[1] < 0.25 < hi[1]


def test_mean_interval_from_sums():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    mean, sd, lo, hi = mean_interval(x.sum(), (x * x).sum(), 4)
    assert mean == 2.5 and np.isclose(sd, x.std(ddof=1))
    assert lo < 2.5 < hi


def test_game_sums_are_exact_int64_sums_over_games():
    rng = np.random.default_rng(3)
    for shape in [(1000, 4), (500, 2, 31), (0, 3)]:
        x = rng.integers(-1000, 1000, size=shape).astype(np.int32)
        got = game_sums(x)
        assert got.dtype == np.int64 and np.array_equal(got, x.astype(np.int64).sum(axis=0))
    big = np.full((3, 2), 2**31 - 1, dtype=np.int32)  # int32 input would overflow an int32 sum
    assert game_sums(big).tolist() == [3 * (2**31 - 1)] * 2
