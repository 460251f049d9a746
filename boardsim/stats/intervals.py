"""Intervals for rates.  Every rate boardsim reports carries one."""

from __future__ import annotations

import numpy as np


def game_sums(x: np.ndarray) -> np.ndarray:
    """Integer sums over the games axis (0) as int64: per seat, per seat and card, ...

    ``einsum`` runs several times faster than ``ndarray.sum(axis=0)`` on the narrow (games, seats)
    arrays a sweep adds up chunk by chunk, and integers keep the sums exact.
    """
    if x.dtype == np.int64 and x.ndim >= 2 and x.flags.c_contiguous and x.shape[0]:
        from boardsim import sums  # compiled: imported on first use

        return sums.column_sums(x.reshape(x.shape[0], -1)).reshape(x.shape[1:])
    return np.einsum("i...->...", x, dtype=np.int64)


def _z(confidence: float) -> float:
    """The two-sided normal quantile; scipy.stats is imported here, on first use, because importing it
    costs about half a second of every start (``import boardsim``, a warm sweep) that needs no interval."""
    from scipy import stats

    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def wilson(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for wins/games, vectorised.

    ``wins`` may be fractional (shared wins count 1/k); for whole numbers this
    equals ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.
    Rows with no games get (nan, nan).
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = wins / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        # exact bounds at the edges: rounding leaves 1e-19 where the bound is 0
        lo = np.where(wins <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        hi = np.where(wins >= n, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return lo, hi


def mean_var(total, total_sq, n):
    """Mean and sample variance from a sum, a sum of squares and a count (arrays; nan where n = 0)."""
    total = np.asarray(total, dtype=np.float64)
    total_sq = np.asarray(total_sq, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = np.maximum(total_sq - n * mean * mean, 0.0) / np.maximum(n - 1.0, 1.0)
    return mean, var, n


def mean_interval(total, total_sq, n, confidence: float = 0.95):
    """Mean, sd and a normal-theory interval of the mean from running sums."""
    mean, var, n = mean_var(total, total_sq, n)
    sd = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = _z(confidence) * sd / np.sqrt(n)
    return mean, sd, mean - half, mean + half


def deal_interval(total, total_sq, deals, scale, confidence: float = 0.95):
    """Mean and t interval of per-deal means, from sums over deals.

    Each deal ``d`` has a total ``Y_d`` (summed over the games that share its cards); the quantity is
    ``y_d = Y_d / scale``.  ``total`` and ``total_sq`` are the sums of ``Y_d`` and ``Y_d**2`` over
    ``deals`` deals.  The deal is the unit of replication, so the interval is a Student t interval on
    ``deals - 1`` degrees of freedom.  Returns (mean, lo, hi); no deals give nan.
    """
    from scipy import stats

    mean_y, var_y, n = mean_var(total, total_sq, deals)
    scale = np.asarray(scale, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        half_y = stats.t.ppf(0.5 + confidence / 2.0, np.maximum(n - 1.0, 1.0)) * np.sqrt(var_y / n)
        mean = mean_y / scale
        half = half_y / scale
    mean = np.where(n > 0, mean, np.nan)
    return mean, mean - half, mean + half
