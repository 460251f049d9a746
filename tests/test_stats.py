import numpy as np
from scipy import stats

from boardsim.analysis.stats import mean_interval, wilson


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
