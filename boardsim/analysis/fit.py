"""Fitting a ``learned`` model (boardsim.learned) to recorded decisions by penalised maximum likelihood.

The data are decisions as a game's recorder writes them (``boardsim/games/<game>/record.py``): per decision
the feature vector, the candidate matrix (padded), its number of rows, and the teacher's distribution over
the rows (a search's visit shares, or 1 on the action a heuristic took).  The fit minimises the mean cross
entropy of the model's softmax against those distributions plus ``penalty / 2`` times the squared weights
(scipy's L-BFGS), never building the (rows x weights) design matrix: the scores are ``c . (w + W f)`` per
decision, so one evaluation costs O(decisions x (rows x C + C x F)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize

from boardsim.learned import CLIP, Model, categories, standardise

KEYS = ("features", "candidates", "rows", "target", "chosen", "game", "seat", "kind")


def concat(parts: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Recorded decisions of several chunks as one set (candidate matrices padded to the widest)."""
    parts = [p for p in parts if len(p["rows"])]
    if not parts:
        return {}
    # as wide as the most rows any decision has (the recorders pad to the most a decision could have)
    R = max(int(np.max(p["rows"])) for p in parts)
    out: dict[str, np.ndarray] = {}
    for k in KEYS:
        arrays = []
        for p in parts:
            a = np.asarray(p[k])
            if k in ("candidates", "target"):
                a = a[:, :R]
            if k in ("candidates", "target") and a.shape[1] < R:
                pad = [(0, 0)] * a.ndim
                pad[1] = (0, R - a.shape[1])
                a = np.pad(a, pad)
            arrays.append(a)
        out[k] = np.concatenate(arrays)
    return out


def subset(data: Mapping[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    return {k: np.asarray(v)[mask] for k, v in data.items() if k in KEYS}


def template(data: Mapping[str, np.ndarray], game: str, players: int, view: Any, info: Mapping[str, Any] | None = None
             ) -> Model:
    """A zero model whose standardisation is the data's: mean and spread of each feature over decisions and of
    each candidate column over the candidate rows; a constant number, the categorical columns and the view's
    ``left_out`` features read 0."""
    f = np.asarray(data["features"], dtype=np.float64)
    valid = np.arange(data["candidates"].shape[1])[None, :] < data["rows"][:, None]
    c = np.asarray(data["candidates"], dtype=np.float64)[valid]
    f_mean, f_sd = f.mean(0), f.std(0)
    c_mean, c_sd = c.mean(0), c.std(0)
    # a spread below 1e-9 of the mean's size is a constant (Art Deco's unlimited credit, 2^40, reads as one)
    f_inv = np.where(f_sd > 1e-9 * np.maximum(1.0, np.abs(f_mean)), 1.0 / np.maximum(f_sd, 1e-300), 0.0)
    c_inv = np.where(c_sd > 1e-9 * np.maximum(1.0, np.abs(c_mean)), 1.0 / np.maximum(c_sd, 1e-300), 0.0)
    for col in (view.cat_col, view.cat2_col):
        if col >= 0:
            c_inv[col] = 0.0
    for name in getattr(view, "left_out", ()):  # the view's features a model leaves out
        f_inv[list(view.features).index(name)] = 0.0
    K = 0 if view.cat_col < 0 else view.cat_size * (view.cat2_size if view.cat2_col >= 0 else 1)
    C, F = len(view.columns), len(view.features)
    return Model(game, players, tuple(view.features), tuple(view.columns), f_mean, f_inv, c_mean, c_inv,
                 np.zeros(C), np.zeros((C, F)), np.zeros(K), view.cat_col,
                 view.cat2_col if view.cat_col >= 0 else -1, view.cat_size if view.cat2_col >= 0 else 0,
                 dict(info or {}))


class Problem:
    """The standardised data of one fit, and the loss and gradient of the weights."""

    def __init__(self, data: Mapping[str, np.ndarray], model: Model, weights: np.ndarray | None = None):
        self.model = model
        self.rows = np.asarray(data["rows"])
        R = data["candidates"].shape[1]
        self.valid = np.arange(R)[None, :] < self.rows[:, None]
        self.f, self.c = standardise(data["features"], data["candidates"], model)
        self.c = np.where(self.valid[:, :, None], self.c, 0.0)
        t = np.where(self.valid, np.asarray(data["target"], dtype=np.float64), 0.0)
        self.t = t / np.maximum(t.sum(1, keepdims=True), 1e-300)
        self.n = len(self.rows)
        self.weights = np.ones(self.n) if weights is None else np.asarray(weights, dtype=np.float64)
        self.cat = np.stack([categories(np.asarray(data["candidates"][:, r], dtype=np.float64), model)
                             for r in range(R)], axis=1) if model.u.size else None
        self.C, self.F, self.K = model.w.size, model.f_mean.size, model.u.size

    def scores(self, theta: np.ndarray) -> np.ndarray:
        C, F = self.C, self.F
        w, W, u = theta[:C], theta[C:C + C * F].reshape(C, F), theta[C + C * F:]
        G = w[None, :] + self.f @ W.T  # (n, C)
        s = np.einsum("nrc,nc->nr", self.c, G)
        if self.cat is not None:
            s = s + np.where(self.cat >= 0, u[np.maximum(self.cat, 0)], 0.0)
        return np.where(self.valid, s, -np.inf)

    def probabilities(self, theta: np.ndarray) -> np.ndarray:
        s = self.scores(theta)
        s = s - s.max(1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(1, keepdims=True)

    def loss(self, theta: np.ndarray, penalty: float) -> tuple[float, np.ndarray]:
        s = self.scores(theta)
        m = s.max(1, keepdims=True)
        e = np.exp(s - m)
        z = e.sum(1, keepdims=True)
        logp = np.where(self.valid, s - m - np.log(z), 0.0)
        wsum = self.weights.sum()
        ce = -(self.weights * (self.t * logp).sum(1)).sum() / wsum
        d = (e / z - self.t) * (self.weights / wsum)[:, None]  # d loss / d score
        d = np.where(self.valid, d, 0.0)
        E = np.einsum("nr,nrc->nc", d, self.c)  # d loss / d G
        grad = np.concatenate([E.sum(0), (E.T @ self.f).ravel(),
                               np.bincount(self.cat[self.cat >= 0], weights=d[self.cat >= 0], minlength=self.K)
                               if self.cat is not None else np.zeros(0)])
        return ce + 0.5 * penalty * float(theta @ theta), grad + penalty * theta


def fit(data: Mapping[str, np.ndarray], model: Model, penalty: float = 1e-3, start: np.ndarray | None = None,
        weights: np.ndarray | None = None, maxiter: int = 500) -> Model:
    """``model`` (its standardisation kept) with the weights that minimise the penalised cross entropy."""
    prob = Problem(data, model, weights)
    theta0 = np.zeros(model.n_weights) if start is None else np.asarray(start, dtype=np.float64)
    res = minimize(prob.loss, theta0, args=(penalty,), jac=True, method="L-BFGS-B",
                   options={"maxiter": maxiter, "gtol": 1e-7})
    out = model.with_weights(res.x)
    out.info["penalty"] = penalty
    return out


def agreement(model: Model, data: Mapping[str, np.ndarray]) -> float:
    """Share of decisions where the model's best candidate (the first of equal scores, as the engines take) is
    the row the teacher played (``chosen``: a search plays its most visited action, and a row may gather
    several of its actions, such as FlipToons' sub-choices, so the row with the largest share can differ)."""
    if not len(data.get("rows", ())):
        return float("nan")
    prob = Problem(data, model)
    s = prob.scores(model.weights())
    return float(np.mean(np.argmax(s, 1) == np.asarray(data["chosen"])))


def cross_entropy(model: Model, data: Mapping[str, np.ndarray]) -> float:
    prob = Problem(data, model)
    return float(prob.loss(model.weights(), 0.0)[0])


def choose_penalty(data: Mapping[str, np.ndarray], model: Model, penalties: Sequence[float] = (1e-4, 1e-3, 1e-2),
                   seed: int = 0) -> float:
    """The penalty whose fit on four fifths of the games predicts the other fifth best (cross entropy)."""
    games = np.unique(data["game"])
    if len(games) < 5 or len(penalties) == 1:
        return float(penalties[len(penalties) // 2])
    held = np.random.default_rng(seed).permutation(games)[: max(1, len(games) // 5)]
    test = np.isin(data["game"], held)
    train, valid = subset(data, ~test), subset(data, test)
    best, best_ce, theta = penalties[0], np.inf, None
    for lam in sorted(penalties, reverse=True):  # strongest first: each warm-starts the next
        m = fit(train, model, lam, start=theta)
        theta = m.weights()
        ce = cross_entropy(m, valid)
        if ce < best_ce:
            best, best_ce = lam, ce
    return float(best)


def terms(model: Model, names_of_categories: Sequence[str] = ()) -> list[str]:
    """A readable name for every weight (``gain``, ``gain x round``, ``card=Tiger``), in the weights' order."""
    C, F = model.W.shape
    out = [f"{c}" for c in model.columns]
    out += [f"{c} x {f}" for c in model.columns for f in model.features]
    out += [names_of_categories[k] if k < len(names_of_categories) else f"category {k}"
            for k in range(model.u.size)]
    return out


def bootstrap(data: Mapping[str, np.ndarray], model: Model, draws: int = 30, seed: int = 0,
              maxiter: int = 200) -> np.ndarray:
    """(draws, weights) refits on the games resampled with replacement (the game is the unit: its decisions
    are not independent), each warm-started from ``model``; their spread gives the intervals (``interval``)."""
    games, index = np.unique(data["game"], return_inverse=True)
    rng = np.random.default_rng(seed)
    prob = Problem(data, model)
    penalty = float(model.info.get("penalty", 1e-3))
    out = np.empty((draws, model.n_weights))
    for b in range(draws):
        counts = np.bincount(rng.integers(0, len(games), len(games)), minlength=len(games))
        prob.weights = counts[index].astype(np.float64)
        res = minimize(prob.loss, model.weights(), args=(penalty,), jac=True, method="L-BFGS-B",
                       options={"maxiter": maxiter, "gtol": 1e-6})
        out[b] = res.x
    return out


def interval(theta: np.ndarray, draws: np.ndarray | None, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Each weight's interval: the estimate +- t x the bootstrap draws' standard deviation.  With the few draws
    a fit affords (30), percentile intervals (the 2.5% point of 30 draws is about the smallest) covered a
    known toy teacher's weights 84-95% of the time; this interval covered 92-98%
    (tests/analysis/test_fit.py measures it)."""
    from scipy import stats

    if draws is None or len(draws) < 2:
        nan = np.full(theta.size, np.nan)
        return nan, nan.copy()
    half = stats.t.ppf(0.5 + confidence / 2, len(draws) - 1) * np.std(draws, axis=0, ddof=1)
    return theta - half, theta + half


def weight_table(model: Model, draws: np.ndarray | None, names_of_categories: Sequence[str] = (),
                 top: int | None = None) -> Any:
    """What the model values: one row per weight (the inputs are standardised, so weights compare), its
    bootstrap 95% interval, sorted by size; weights of inputs that never varied are left out."""
    import pandas as pd

    theta = model.weights()
    names = terms(model, names_of_categories)
    C, F = model.W.shape
    used = np.concatenate([model.c_inv != 0, ((model.c_inv != 0)[:, None] & (model.f_inv != 0)[None, :]).ravel(),
                           np.ones(model.u.size, dtype=bool)])
    kind = ["column"] * C + ["column x feature"] * (C * F) + ["category"] * model.u.size
    lo, hi = interval(theta, draws)
    df = pd.DataFrame({"term": names, "kind": kind, "weight": theta, "low": lo, "high": hi})[used]
    df["clear"] = (df["low"] > 0) | (df["high"] < 0)
    df = df.reindex(df["weight"].abs().sort_values(ascending=False).index).reset_index(drop=True)
    return df.head(top) if top else df


__all__ = ["CLIP", "agreement", "bootstrap", "choose_penalty", "concat", "fit", "interval", "template",
           "weight_table"]
