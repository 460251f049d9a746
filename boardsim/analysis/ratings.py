"""Bradley-Terry ratings with intervals from pairwise win counts.

P(i beats j) = exp(t_i) / (exp(t_i) + exp(t_j)).  The log-likelihood is
maximised with scipy; intervals come from the inverse Fisher information.
Ratings are centred (they sum to zero), because only differences are
identified.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize, special, stats


def _neg_loglik(free: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray]:
    theta = np.concatenate([[0.0], free])
    diff = theta[:, None] - theta[None, :]
    ll = (wins * special.log_expit(diff)).sum()
    # d/dtheta_i: sum_j w_ij (1 - s_ij) - w_ji s_ji   with s = expit(diff)
    s = special.expit(diff)
    g = (wins * (1.0 - s)).sum(axis=1) - (wins.T * (1.0 - s.T)).sum(axis=1)
    return -ll, -g[1:]


def information(theta: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """Fisher information of the full rating vector."""
    n = wins + wins.T
    s = special.expit(theta[:, None] - theta[None, :])
    w = n * s * (1.0 - s)
    np.fill_diagonal(w, 0.0)
    info = -w
    np.fill_diagonal(info, w.sum(axis=1))
    return info


def bradley_terry(wins: np.ndarray, names: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Fit ratings from ``wins[i, j]`` = times i beat j (shared wins may be fractional).

    Returns one row per player: ``rating`` (centred log-strength), its
    interval ``rating_lo``/``rating_hi``, ``se``, and ``elo`` (the rating on
    the Elo scale, 400/ln 10 per unit).
    """
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    if k < 2:
        raise ValueError("need at least two players")
    res = optimize.minimize(_neg_loglik, np.zeros(k - 1), args=(wins,), jac=True, method="BFGS",
                            options={"gtol": 1e-10, "maxiter": 10_000})
    theta = np.concatenate([[0.0], res.x])
    centred = theta - theta.mean()
    info = information(theta, wins)[1:, 1:]
    try:
        cov_free = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov_free = np.full((k - 1, k - 1), np.nan)
    lift = np.vstack([np.zeros((1, k - 1)), np.eye(k - 1)])  # free -> full (t_0 fixed at 0)
    centre = np.eye(k) - 1.0 / k
    cov = centre @ lift @ cov_free @ lift.T @ centre.T
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = stats.norm.ppf(0.5 + confidence / 2.0)
    return pd.DataFrame(
        {
            "policy": list(names),
            "rating": centred,
            "rating_lo": centred - z * se,
            "rating_hi": centred + z * se,
            "se": se,
            "elo": centred * 400.0 / np.log(10.0),
        }
    )
