"""Where a metagame settles, from a round robin's head-to-head table (docs/guide/metagame.md).

The input is the tournament's per-deal comparison counts ``per_deal[d, i, j]``: how often policy i's seat
finished ahead of policy j's in deal d's games (tournaments.comparisons).  Its sum over deals gives the
payoff table ``A[i, j]``, the share of i-vs-j comparisons that i won (``A[i, i]`` = 1/2, and
``A[i, j] + A[j, i]`` = 1): a symmetric constant-sum game in which a player picks a policy and scores its
share against the opponent's.  From it:

- **Nash**: the symmetric equilibrium, a mix ``x`` that no single policy beats (``(A x)_j <= 1/2`` for
  every j): a linear programme (scipy.optimize.linprog).  Where the equilibria form a set, the one of
  maximum entropy (it gives weight to every policy any equilibrium uses), found by SLSQP over that set.
- **alpha-Rank** (Omidshafiei et al. 2019), single population: a Markov chain over the pure policies, in
  which a population of ``m`` players of policy i is taken over by a mutant policy j with the fixation
  probability of a Moran process with Fermi selection of intensity ``alpha``.  Each of the population's
  players scores the mean of its payoffs against the others; with k mutants,
  ``f_j(k) = ((k - 1) A[j, j] + (m - k) A[j, i]) / (m - 1)`` and ``f_i(k) = (k A[i, j] + (m - k - 1)
  A[i, i]) / (m - 1)``, and ``rho(i -> j) = 1 / (1 + sum_{l=1}^{m-1} prod_{k=1}^{l} exp(-alpha (f_j(k) -
  f_i(k))))``.  The chain moves from i to j with probability ``rho / (n - 1)``; the ranking is its
  stationary distribution.  ``alpha`` is raised tenfold from 1 until the distribution moves by less than
  ALPHA_TOL (the large-alpha limit the method asks for), and the alpha used is reported.
- **Replicator dynamics** from equal shares: ``dx_i/dt = x_i ((A x)_i - x'A x)``, integrated to T_END
  (scipy.integrate.solve_ivp); the trajectory, and the mean share over it (around a cycle the path never
  settles, its time average does).
- **Transitive and cyclic parts** (Balduzzi et al. 2018): the antisymmetric ``F = A - A'`` splits into the
  gradient of a rating, ``F_t[i, j] = r_i - r_j`` with ``r`` the row means of F (its least-squares fit on a
  complete round robin), and the rest, ``F - F_t``, a pure cycle; the shares of ``|F|^2`` in each.

Every share gets a 95% percentile interval from a bootstrap over deals (deals resampled with replacement,
the same resamples for every quantity), so the spread says what other deals would have shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.integrate import solve_ivp
from scipy.optimize import linprog, minimize
from scipy.special import logsumexp

POPULATION = 50  # alpha-Rank's population size m
ALPHA_START, ALPHA_MAX, ALPHA_TOL = 1.0, 1e4, 1e-3
T_END = 2000.0  # replicator time: payoff gaps of a few points take hundreds of units to play out
TRAJECTORY_POINTS = 60
DRAWS = 200  # bootstrap resamples of the deals
EQ_TOL = 1e-9  # slack of the equilibrium constraints


def payoff(per_deal: np.ndarray) -> np.ndarray:
    """``A[i, j]``: the share of i-vs-j comparisons i won over all deals (1/2 on the diagonal).  A pair that
    never met is NaN."""
    won = np.asarray(per_deal, dtype=np.float64).sum(axis=0)
    met = won + won.T
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(met > 0, won / np.where(met > 0, met, 1.0), np.nan)
    np.fill_diagonal(a, 0.5)
    return a


def nash(a: np.ndarray) -> np.ndarray:
    """The symmetric equilibrium of the constant-sum game ``a`` of maximum entropy."""
    n = a.shape[0]
    m = a - 0.5  # antisymmetric: the game's value is 0
    # max v subject to (m' x)_j >= v for every j, sum x = 1, x >= 0  (variables x, v)
    c = np.zeros(n + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-m.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.hstack([np.ones((1, n)), np.zeros((1, 1))]), b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    x = np.clip(res.x[:n], 0.0, None)
    x /= x.sum()
    # the equilibria are {x : m' x >= 0 (the value), sum x = 1, x >= 0}: its point of maximum entropy
    slack = min(0.0, float((m.T @ x).min())) - EQ_TOL

    def neg_entropy(y: np.ndarray) -> tuple[float, np.ndarray]:
        y = np.clip(y, 1e-15, None)
        return float((y * np.log(y)).sum()), np.log(y) + 1.0

    out = minimize(neg_entropy, x, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * n,
                   constraints=[{"type": "eq", "fun": lambda y: y.sum() - 1.0, "jac": lambda y: np.ones(n)},
                                {"type": "ineq", "fun": lambda y: m.T @ y - slack, "jac": lambda y: m.T}],
                   options={"ftol": 1e-12, "maxiter": 200})
    y = np.clip(out.x, 0.0, None) if out.success else x
    if (m.T @ y).min() < slack - 1e-7:  # SLSQP left the set: keep the linear programme's equilibrium
        y = x
    y[y < 1e-7] = 0.0  # solver dust
    return y / y.sum()


def _fixation(a: np.ndarray, i: int, j: int, alpha: float, pop: int) -> float:
    """Probability that one mutant of policy j takes over a population of ``pop`` players of policy i."""
    k = np.arange(1, pop, dtype=np.float64)
    f_mut = ((k - 1) * a[j, j] + (pop - k) * a[j, i]) / (pop - 1)
    f_res = (k * a[i, j] + (pop - k - 1) * a[i, i]) / (pop - 1)
    steps = np.cumsum(-alpha * (f_mut - f_res))
    return float(np.exp(-logsumexp(np.concatenate([[0.0], steps]))))


def _stationary(a: np.ndarray, alpha: float, pop: int) -> np.ndarray:
    n = a.shape[0]
    c = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                c[i, j] = _fixation(a, i, j, alpha, pop) / (n - 1)
        c[i, i] = 1.0 - c[i].sum()
    # pi c = pi, sum pi = 1: least squares on the stacked system (exact for an ergodic chain)
    lhs = np.vstack([c.T - np.eye(n), np.ones((1, n))])
    rhs = np.concatenate([np.zeros(n), [1.0]])
    pi = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def alpha_rank(a: np.ndarray, alpha: float | None = None, pop: int = POPULATION) -> tuple[np.ndarray, float]:
    """alpha-Rank's stationary distribution over the policies and the alpha used (module docstring)."""
    if alpha is not None:
        return _stationary(a, alpha, pop), alpha
    alpha, pi = ALPHA_START, _stationary(a, ALPHA_START, pop)
    while alpha < ALPHA_MAX:
        nxt = _stationary(a, alpha * 10.0, pop)
        if np.abs(nxt - pi).sum() < ALPHA_TOL:
            break
        alpha, pi = alpha * 10.0, nxt
    return pi, alpha


def replicator(a: np.ndarray, t_end: float = T_END, points: int = TRAJECTORY_POINTS
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times, shares (times x policies), mean share over [0, t_end]) of the replicator dynamics from equal
    shares.  Around a cycle the path circles the equilibrium and never settles; its time average does (in a
    constant-sum game it tends to the equilibrium), so the mean is the number reported."""
    n = a.shape[0]

    def rhs(_t: float, z: np.ndarray) -> np.ndarray:
        x = z[:n]
        fit = a @ x
        return np.concatenate([x * (fit - x @ fit), x])  # the shares, and their integral over time

    # the path's times: 0, then log-spaced to t_end (the early moves and the slow end both show)
    times = np.concatenate([[0.0], np.geomspace(min(0.1, t_end), t_end, points - 1)]) if points > 2 else \
        np.array([0.0, t_end])
    start = np.concatenate([np.full(n, 1.0 / n), np.zeros(n)])
    # RK45: LSODA failed ("repeated convergence failures") on paths that run along the simplex's edges
    sol = solve_ivp(rhs, (0.0, t_end), start, t_eval=times, rtol=1e-7, atol=1e-10, method="RK45")
    if not sol.success:
        raise ArithmeticError(f"replicator dynamics: {sol.message}")
    shares = np.clip(sol.y[:n].T, 0.0, None)
    mean = np.clip(sol.y[n:, -1], 0.0, None)
    return sol.t, shares / shares.sum(axis=1, keepdims=True), mean / mean.sum()


def transitive_share(a: np.ndarray) -> float:
    """The share of the antisymmetric table ``A - A'`` that a rating explains (1: transitive, 0: a cycle)."""
    f = a - a.T
    total = float((f * f).sum())
    if total == 0.0:
        return 1.0
    r = f.mean(axis=1)
    t = r[:, None] - r[None, :]
    return float((t * t).sum() / total)


@dataclass
class Metagame:
    """The metagame tables of one round robin (module docstring)."""

    shares: pd.DataFrame  # one row per policy: nash, alpha_rank, replicator (time average), each with _lo, _hi
    split: pd.DataFrame  # one row: transitive share with its interval, cyclic share
    trajectory: pd.DataFrame  # replicator dynamics: time, policy, share
    alpha: float


def _point(a: np.ndarray, alpha: float | None) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, float]:
    x = nash(a)
    pi, used = alpha_rank(a, alpha)
    return x, pi, used, replicator(a, points=2)[2], transitive_share(a)


def bootstrap(per_deal: np.ndarray, fn: Callable[[np.ndarray], Any], draws: int = DRAWS, seed: int = 0
              ) -> list[Any]:
    """``fn`` of the payoff table of each of ``draws`` resamples of the deals (with replacement; a resample in
    which some pair never met is skipped)."""
    gen = np.random.default_rng(seed)
    n_deals = per_deal.shape[0]
    out = []
    for _ in range(draws):
        ab = payoff(per_deal[gen.integers(0, n_deals, n_deals)])
        if not np.isnan(ab).any():
            out.append(fn(ab))
    return out


def percentile_interval(values: Sequence[Any], confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of bootstrap ``values`` (each a number or an array), elementwise."""
    lo, hi = np.percentile(np.array(values, dtype=np.float64), [(1 - confidence) / 2 * 100,
                                                               (1 + confidence) / 2 * 100], axis=0)
    return lo, hi


def metagame(per_deal: np.ndarray, names: Sequence[str], seed: int = 0, draws: int = DRAWS,
             confidence: float = 0.95) -> Metagame:
    """Nash, alpha-Rank and replicator shares with bootstrap intervals over deals, the replicator's path from
    equal shares and the transitive/cyclic split, from a round robin's per-deal comparisons."""
    per_deal = np.asarray(per_deal, dtype=np.float64)
    a = payoff(per_deal)
    if np.isnan(a).any():
        raise ValueError("every pair of policies must have met (a round robin)")
    x, pi, alpha, rep, trans = _point(a, None)
    boot = bootstrap(per_deal, lambda ab: _point(ab, alpha), draws, seed)  # alpha-Rank at the same alpha
    rows: dict[str, Any] = {"policy": list(names), "nash": x, "alpha_rank": pi, "replicator": rep}
    for n, key in ((0, "nash"), (1, "alpha_rank"), (3, "replicator")):
        rows[f"{key}_lo"], rows[f"{key}_hi"] = percentile_interval([b[n] for b in boot], confidence)
    shares = pd.DataFrame(rows)[["policy", "nash", "nash_lo", "nash_hi", "alpha_rank", "alpha_rank_lo",
                                 "alpha_rank_hi", "replicator", "replicator_lo", "replicator_hi"]]
    shares["alpha"] = alpha
    t_lo, t_hi = percentile_interval([b[4] for b in boot], confidence)
    split = pd.DataFrame([{"transitive": trans, "transitive_lo": float(t_lo), "transitive_hi": float(t_hi),
                           "cyclic": 1.0 - trans, "draws": len(boot), "deals": per_deal.shape[0]}])
    times, path, _mean = replicator(a)
    trajectory = pd.DataFrame({"time": np.repeat(times, len(names)), "policy": list(names) * len(times),
                               "share": path.ravel()})
    return Metagame(shares, split, trajectory, alpha)


# -- metagame targets (a patch objective: docs/patch.md) ----------------------------------------------------
SUPPORT_MIN = 0.01  # a policy is in the equilibrium's support when its Nash share is above this
TARGET_METRICS = ("nash_support", "alpha_entropy")


def nash_support(a: np.ndarray) -> float:
    """How many policies the (maximum-entropy) symmetric equilibrium of ``a`` plays with a share above
    SUPPORT_MIN: 1 when one policy dominates, more when the metagame keeps several alive."""
    return float((nash(a) > SUPPORT_MIN).sum())


def alpha_entropy(a: np.ndarray, alpha: float | None = None) -> float:
    """The entropy in bits of alpha-Rank's distribution over the policies: 0 when one policy takes the whole
    population, log2(k) when k policies share it evenly."""
    pi, _ = alpha_rank(a, alpha)
    pi = pi[pi > 0]
    return float(-(pi * np.log2(pi)).sum()) + 0.0
