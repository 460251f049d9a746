"""Bradley-Terry ratings with intervals from pairwise comparisons.

P(i finishes ahead of j) = exp(t_i) / (exp(t_i) + exp(t_j)).  The log-likelihood is maximised with
scipy.  Two things keep the answer honest:

- **A weak prior.**  Every pair that met gets ``prior`` pseudo-comparisons won each way (half a win by
  default, the size of Firth's correction for two items).  Under perfect separation (one policy always
  ahead) the plain maximum-likelihood rating is infinite; with the prior it is finite and its interval
  is finite, while with thousands of real comparisons the prior moves a rating by a negligible amount.
- **Deal-clustered errors.**  Comparisons inside one game, and games that share a deal, are not
  independent.  Given per-deal comparison matrices, the covariance is the cluster-robust sandwich
  ``H^-1 (sum_d g_d g_d^T) H^-1`` with one cluster per deal; the reported standard error is the larger of
  that and the model-based ``H^-1`` one (the sandwich alone collapses under separation).

Ratings are centred (they sum to zero), because only differences are identified.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

PRIOR = 0.5  # pseudo-comparisons won each way per pair that met
ELO = 400.0 / np.log(10.0)  # Elo points per unit of Bradley-Terry log-strength
RIDGE = 1e-6  # keeps policies that never met a connected set identifiable


def _neg_loglik(free: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray]:
    theta = np.concatenate([[0.0], free])
    diff = theta[:, None] - theta[None, :]
    ll = (wins * special.log_expit(diff)).sum() - 0.5 * RIDGE * (theta * theta).sum()
    s = special.expit(diff)
    g = (wins * (1.0 - s)).sum(axis=1) - (wins.T * (1.0 - s.T)).sum(axis=1) - RIDGE * theta
    return -ll, -g[1:]


def information(theta: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """Fisher information of the full rating vector (with the ridge)."""
    n = wins + wins.T
    s = special.expit(theta[:, None] - theta[None, :])
    w = n * s * (1.0 - s)
    np.fill_diagonal(w, 0.0)
    info = -w
    np.fill_diagonal(info, w.sum(axis=1))
    return info + RIDGE * np.eye(len(theta))


def deal_gradients(theta: np.ndarray, per_deal: np.ndarray) -> np.ndarray:
    """(D, k) gradient of each deal's log-likelihood; ``per_deal[d, i, j]`` = times i beat j in deal d."""
    s = special.expit(theta[:, None] - theta[None, :])
    ahead = np.einsum("dij,ij->di", per_deal, 1.0 - s)  # i beat j: pushes t_i up
    behind = np.einsum("dji,ji->di", per_deal, 1.0 - s)  # j beat i: pushes t_i down
    return ahead - behind


def bradley_terry(wins: np.ndarray, names: Sequence[str], per_deal: np.ndarray | None = None,
                  confidence: float = 0.95, prior: float = PRIOR) -> pd.DataFrame:
    """Fit ratings from ``wins[i, j]`` = times i beat j (ties count half each way).

    ``per_deal`` (deals, k, k), summing to ``wins``, gives deal-clustered intervals.  Returns one row
    per policy, strongest first: ``rating`` (centred log-strength), ``rating_lo``/``rating_hi``, ``se``,
    ``elo`` (the rating on the Elo scale, 400/ln 10 per unit) and ``comparisons``.
    """
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    if k < 2:
        raise ValueError("need at least two players")
    met = (wins + wins.T) > 0
    np.fill_diagonal(met, False)
    fitted = wins + prior * met
    res = optimize.minimize(_neg_loglik, np.zeros(k - 1), args=(fitted,), jac=True, method="BFGS",
                            options={"gtol": 1e-10, "maxiter": 10_000})
    theta = np.concatenate([[0.0], res.x])
    centre = np.eye(k) - 1.0 / k
    lift = np.vstack([np.zeros((1, k - 1)), np.eye(k - 1)])  # free -> full (t_0 fixed at 0)
    bread = np.linalg.pinv(information(theta, fitted)[1:, 1:])
    cov_model = centre @ lift @ bread @ lift.T @ centre.T
    se = np.sqrt(np.clip(np.diag(cov_model), 0.0, None))
    if per_deal is not None and len(per_deal) > 1:
        g = deal_gradients(theta, np.asarray(per_deal, dtype=np.float64))[:, 1:]
        d = len(g)
        meat = (g.T @ g) * d / (d - 1)
        cov_robust = centre @ lift @ (bread @ meat @ bread) @ lift.T @ centre.T
        se = np.maximum(se, np.sqrt(np.clip(np.diag(cov_robust), 0.0, None)))
    z = stats.norm.ppf(0.5 + confidence / 2.0)
    centred = theta - theta.mean()
    frame = pd.DataFrame(
        {
            "policy": list(names),
            "rating": centred,
            "rating_lo": centred - z * se,
            "rating_hi": centred + z * se,
            "se": se,
            "elo": centred * ELO,
            "comparisons": (wins + wins.T).sum(axis=1),
        }
    )
    return frame.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
