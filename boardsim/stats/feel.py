"""How a game feels, from each seat's progress after every round: length, lead changes against a fair random
walk, the leader-wins curve and the decisiveness round, comebacks, blowouts, the final margin, drama and
security.  Every figure is a mean over games with a deal-level interval (docs/guide/feel.md has the formulas).

The per-game values come from ``game_values`` (numpy over a chunk of games); ``DealSums`` adds them up per
deal, the unit of replication (a deal is played in every seating, and its games share their cards); ``summary``
turns the per-deal sums into means, intervals and the leader-wins curve.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

# the deals a replay can pick by what happened in them (replays.py, ``replay --pick``; docs/guide/replay.md)
PICKS = {
    "upset": "the weakest policy at the table (lowest win share over the games looked at) wins, by the widest "
             "margin; at a table of one policy, the winner who trailed furthest (most drama)",
    "comeback": "the winner trailed at the game's midpoint and came back, with the most drama",
    "typical": "the game nearest the median length, lead changes and final margin",
    "longest": "the most rounds (then the most turns)",
    "first-player-loses": "the seat that moved first does not win (the most typical such game)",
}
# the defaults of the documented margins, as shares of the winner's final score (docs/guide/feel.md)
COMEBACK = 0.10  # the winner trailed the leader by at least this after the middle round
BLOWOUT = 0.25  # the winner's final lead over the runner-up is at least this
DECISIVE = 0.90  # the decisiveness round: the first round from which on the leader wins more than this
REACHED = 0.10  # ... among the rounds at least this share of the games reach
NULL_WALKS = 200_000  # fair random walks simulated for the lead-change null at 3 or more seats
# the per-game means feel reports, in report order: (name, what it says)
METRICS = (
    ("rounds", "game length in rounds"),
    ("turns", "game length in turns"),
    ("lead_changes", "lead changes per game"),
    ("null_lead_changes", "lead changes of a fair random walk of the same length"),
    ("excess_lead_changes", "lead changes above the fair random walk"),
    ("comeback_rate", "share of decided games whose winner trailed after the middle round"),
    ("blowout_rate", "share of decided games won by a blowout"),
    ("final_margin", "winner's final lead over the runner-up, as a share of the winner's score"),
    ("drama", "drama: how far behind the eventual winner was, while behind"),
    ("security", "security: the leader's average lead, as a share of the winner's score"),
)


def leaders(keys: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """(n, R) the seat that leads after each round (the highest standing key), -1 where two or more seats share
    the highest key or the game ended before that round."""
    n, P, R = keys.shape
    best = keys.max(axis=1)
    top = keys == best[:, None, :]
    lead = np.where(top.sum(axis=1) == 1, top.argmax(axis=1), -1)
    lead[np.arange(R)[None, :] >= np.asarray(rounds)[:, None]] = -1
    return lead


def lead_changes(lead: np.ndarray) -> np.ndarray:
    """Per game, how often the leader changed: consecutive rounds that have a leader, counted when the
    leaders differ (a round with a shared lead is skipped, not a change)."""
    n, R = lead.shape
    changes = np.zeros(n, dtype=np.int64)
    last = np.full(n, -1)
    for r in range(R):
        here = lead[:, r]
        has = here >= 0
        changes += has & (last >= 0) & (here != last)
        last = np.where(has, here, last)
    return changes


def null_lead_changes_two(length: int) -> float:
    """Expected lead changes of a fair +-1 walk of the score difference over ``length`` rounds (two seats).

    The lead can only change at round k+1 when the walk is level after round k (k even), and then it changes
    with probability 1/2; so E = 1/2 * sum over even k, 2 <= k <= length-1, of P(S_k = 0) = C(k, k/2) / 2^k.
    """
    return 0.5 * sum(math.comb(k, k // 2) / 2.0 ** k for k in range(2, length, 2))


@lru_cache(maxsize=256)
def null_lead_changes(players: int, length: int) -> float:
    """Expected lead changes in ``length`` rounds of a fair race: each round one seat, drawn uniformly, scores
    a point (at 2 seats the score difference is a fair +-1 walk).  The closed form at 2 seats, a fixed-seed
    simulation of NULL_WALKS races at 3 or more."""
    if length <= 1 or players < 2:
        return 0.0
    if players == 2:
        return null_lead_changes_two(length)
    rng = np.random.default_rng(players * 1000 + length)
    total = 0
    for start in range(0, NULL_WALKS, 20_000):
        m = min(20_000, NULL_WALKS - start)
        scorer = rng.integers(0, players, size=(m, 1, length))
        walks = np.cumsum(scorer == np.arange(players)[None, :, None], axis=2, dtype=np.int16)
        total += int(lead_changes(leaders(walks, np.full(m, length))).sum())
    return total / NULL_WALKS


def game_values(progress: np.ndarray, keys: np.ndarray, rounds: np.ndarray, win: np.ndarray,
                score: np.ndarray, comeback: float = COMEBACK, blowout: float = BLOWOUT,
                turns: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each game's feel values (nan where a value is not defined for that game).

    ``progress`` (n, P, R): each seat's progress measure after each round; ``keys``: the standing keys
    (``Game.standing``); ``rounds`` (n,): rounds played; ``win`` (n, P): win shares; ``score`` (n, P): final
    scores; ``turns`` (n,): turns played (default: rounds x seats).  Returns per-game arrays named as METRICS,
    plus ``leader_win`` (n, R): the win share of the seat leading after round r (nan: no sole leader, or the
    game ended before r).
    """
    progress = np.asarray(progress, dtype=np.float64)
    n, P, R = progress.shape
    rounds = np.minimum(np.asarray(rounds, dtype=np.int64), R)
    lead = leaders(keys, rounds)
    changes = lead_changes(lead).astype(np.float64)
    null = np.array([null_lead_changes(P, int(L)) for L in rounds]) if n else np.zeros(0)
    has_lead = lead >= 0
    leader_win = np.full((n, R), np.nan)
    rows = np.nonzero(has_lead)
    leader_win[rows] = win[rows[0], lead[rows]]
    # a decided game: one seat takes the whole win (a shared or missing win has no eventual winner)
    winner = np.argmax(win, axis=1)
    decided = win[np.arange(n), winner] == 1.0
    final = np.asarray(score, dtype=np.float64)
    scale = np.maximum(1.0, np.abs(final[np.arange(n), winner]))
    others = final.copy()
    others[np.arange(n), winner] = -np.inf
    margin = (final[np.arange(n), winner] - others.max(axis=1)) / scale
    # the leader's progress against the winner's and the runner-up's, round by round
    top = progress.max(axis=1)
    second = np.sort(progress, axis=1)[:, -2, :] if P > 1 else top
    mine = progress[np.arange(n), winner, :]
    played = np.arange(R)[None, :] < rounds[:, None]
    behind = played & has_lead & (lead != winner[:, None]) & (top > mine)
    deficit = np.where(behind, np.sqrt(np.maximum(top - mine, 0.0) / scale[:, None]), 0.0)
    trailing = behind.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        drama = np.where(trailing > 0, deficit.sum(axis=1) / np.maximum(trailing, 1), 0.0)
        security = np.where(played, (top - second) / scale[:, None], 0.0).sum(axis=1) / np.maximum(rounds, 1)
    middle = np.maximum((rounds + 1) // 2 - 1, 0)  # round ceil(L/2), 0-based
    mid_lead = lead[np.arange(n), middle]
    gap = top[np.arange(n), middle] - mine[np.arange(n), middle]
    came_back = (mid_lead >= 0) & (mid_lead != winner) & (gap >= comeback * scale)
    undecided = ~decided
    out = {
        "rounds": rounds.astype(np.float64),
        "turns": (rounds * P if turns is None else np.asarray(turns)).astype(np.float64),
        "lead_changes": changes,
        "null_lead_changes": null,
        "excess_lead_changes": changes - null,
        "comeback_rate": np.where(undecided, np.nan, came_back.astype(np.float64)),
        "blowout_rate": np.where(undecided, np.nan, (margin >= blowout).astype(np.float64)),
        "final_margin": np.where(undecided, np.nan, margin),
        "drama": np.where(undecided, np.nan, drama),
        "security": security,
        "leader_win": leader_win,
    }
    return out


class DealSums:
    """Per-deal sums of every feel value and of how many games define it: what the intervals need.

    ``add`` takes a chunk's per-game values with each game's deal index; deals may arrive in any order and
    any chunking (the sums are exact in float64 for the counts a run has)."""

    def __init__(self, deals: int, rounds: int):
        self.deals, self.rounds = deals, rounds
        self.total = {name: np.zeros(deals) for name, _ in METRICS}
        self.count = {name: np.zeros(deals) for name, _ in METRICS}
        self.curve_total = np.zeros((deals, rounds))
        self.curve_count = np.zeros((deals, rounds))

    def add(self, values: Mapping[str, np.ndarray], deal: np.ndarray) -> None:
        for name, _ in METRICS:
            v = values[name]
            ok = ~np.isnan(v)
            np.add.at(self.total[name], deal[ok], v[ok])
            np.add.at(self.count[name], deal[ok], 1.0)
        lw = values["leader_win"][:, : self.rounds]
        ok = ~np.isnan(lw)
        np.add.at(self.curve_total, deal, np.where(ok, lw, 0.0))
        np.add.at(self.curve_count, deal, ok.astype(np.float64))


def chunk_values(game: Any, out: Mapping[str, np.ndarray], rules: Mapping[str, Any], comeback: float = COMEBACK,
                 blowout: float = BLOWOUT) -> dict[str, np.ndarray]:
    """Each game's feel values (``game_values``) from a chunk a Game played with progress on: the game's own
    rounds (``Game.feel_rounds``) and standing (``Game.standing``)."""
    prog, rounds, turns = game.feel_rounds(out)
    keys = game.standing({**out, "progress": prog, "rounds": rounds}, rules)
    return game_values(prog, keys, rounds, out["win"], out["score"], comeback, blowout, turns)


class GroupSums:
    """Per group (something dealt at random in each game: a Circle the Wagons goal) and metric, the sums of
    each game's value over the games that hold the group and over those that do not (sum, sum of squares,
    count), for the group's effect on the figure.  Feel plays self-play, one game a deal, so each game is one
    independent observation."""

    def __init__(self, kind: str, names: Sequence[str]):
        self.kind, self.names = kind, list(names)
        self.metrics = [name for name, _ in METRICS if name != "null_lead_changes"]
        self.sums = np.zeros((len(self.names), len(self.metrics), 2, 3))

    def add(self, values: Mapping[str, np.ndarray], held: np.ndarray) -> None:
        held = np.asarray(held, dtype=bool)
        for m, name in enumerate(self.metrics):
            v = np.asarray(values[name], dtype=np.float64)
            ok = ~np.isnan(v)
            x = np.where(ok, v, 0.0)[:, None]
            for side, mask in ((0, held), (1, ~held)):
                w = (mask & ok[:, None]).astype(np.float64)  # (n, G)
                self.sums[:, m, side] += np.stack([(w * x).sum(axis=0), (w * x * x).sum(axis=0), w.sum(axis=0)],
                                                  axis=1)

    def table(self, confidence: float = 0.95) -> pd.DataFrame:
        """One row per group and metric: the mean with and without the group, their difference with a Welch t
        interval and p-value (two-sided, no difference), and the games on each side."""
        from scipy import stats

        s = self.sums
        n = s[..., 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s[..., 0] / n
            var = np.maximum(s[..., 1] - n * mean * mean, 0.0) / np.maximum(n - 1.0, 1.0)
            q = var / n  # squared standard errors of the two means
            se = np.sqrt(q[..., 0] + q[..., 1])
            df = (q[..., 0] + q[..., 1]) ** 2 / (q[..., 0] ** 2 / np.maximum(n[..., 0] - 1, 1)
                                                  + q[..., 1] ** 2 / np.maximum(n[..., 1] - 1, 1))
            diff = mean[..., 0] - mean[..., 1]
            half = stats.t.ppf(0.5 + confidence / 2, np.where(np.isfinite(df), df, 1.0)) * se
            p = np.where(se > 0, 2 * stats.t.sf(np.abs(diff) / se, np.where(np.isfinite(df), df, 1.0)),
                         np.where(diff == 0, 1.0, 0.0))
        rows = []
        for g, group in enumerate(self.names):
            for m, metric in enumerate(self.metrics):
                rows.append({self.kind: group, "metric": metric, "with": mean[g, m, 0], "without": mean[g, m, 1],
                             "difference": diff[g, m], "lo": diff[g, m] - half[g, m], "hi": diff[g, m] + half[g, m],
                             "p_value": p[g, m], "games_with": int(n[g, m, 0]), "games_without": int(n[g, m, 1])})
        return pd.DataFrame(rows)


def ratio_interval(num: np.ndarray, den: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Sum(num) / sum(den) over deals with a deal-level (cluster) interval: the delta method's standard error
    of a ratio of per-deal totals, on a t with deals - 1 degrees of freedom.  (nan, nan, nan) without data."""
    from scipy import stats

    keep = den > 0
    num, den = num[keep], den[keep]
    d = len(den)
    if d == 0:
        return math.nan, math.nan, math.nan
    est = num.sum() / den.sum()
    if d < 2:
        return float(est), math.nan, math.nan
    resid = num - est * den
    se = math.sqrt(d / (d - 1) * float((resid * resid).sum())) / float(den.sum())
    half = float(stats.t.ppf(0.5 + confidence / 2.0, d - 1)) * se
    return float(est), float(est - half), float(est + half)


def decisive_round(p: np.ndarray, reached: np.ndarray, threshold: float = DECISIVE) -> float:
    """The first round (1-based) from which on the leader's win rate ``p`` stays above ``threshold``, counting
    only the rounds that at least REACHED of the most-played round's games reach (``reached``: that share per
    round), so that a late round few games play cannot decide it; nan if the last such round is not above it."""
    counted = np.nonzero(reached >= REACHED)[0]
    if not len(counted):
        return math.nan
    above = np.nan_to_num(p[counted], nan=-1.0) > threshold
    if not above[-1]:
        return math.nan
    below = np.nonzero(~above)[0]
    return float(counted[below[-1] + 1] + 1) if len(below) else float(counted[0] + 1)


@dataclass
class Feel:
    """One lineup's feel: ``metrics`` (metric, mean, lo, hi, games), ``curve`` (round, leader_wins, lo, hi,
    games) and the decisiveness round with a bootstrap interval over deals."""

    metrics: pd.DataFrame
    curve: pd.DataFrame
    decisive: float
    decisive_lo: float
    decisive_hi: float


def summary(sums: DealSums, draws: int = 200, seed: int = 0, threshold: float = DECISIVE) -> Feel:
    """Means with deal-level 95% intervals, the leader-wins curve and the decisiveness round.

    The decisiveness round's interval is a percentile bootstrap over deals (``draws`` resamples): it is a
    first crossing, which the delta method does not cover."""
    rows = []
    for name, text in METRICS:
        est, lo, hi = ratio_interval(sums.total[name], sums.count[name])
        if name.endswith("_rate"):
            lo, hi = max(0.0, lo), min(1.0, hi)
        rows.append({"metric": name, "mean": est, "lo": lo, "hi": hi, "games": int(sums.count[name].sum()),
                     "meaning": text})
    curve = []
    for r in range(sums.rounds):
        est, lo, hi = ratio_interval(sums.curve_total[:, r], sums.curve_count[:, r])
        curve.append({"round": r + 1, "leader_wins": est, "lo": max(0.0, lo) if lo == lo else lo,
                      "hi": min(1.0, hi) if hi == hi else hi, "games": int(sums.curve_count[:, r].sum())})
    curve_df = pd.DataFrame(curve)
    curve_df = curve_df[curve_df["games"] > 0].reset_index(drop=True)
    point = decisive_round(*_curve(sums.curve_total, sums.curve_count), threshold)
    rng = np.random.default_rng(seed)
    boot = []
    d = sums.deals
    for _ in range(draws if d > 1 else 0):
        w = rng.multinomial(d, np.full(d, 1.0 / d)).astype(np.float64)
        boot.append(decisive_round(*_curve(sums.curve_total * w[:, None], sums.curve_count * w[:, None]),
                                   threshold))
    b = np.array(boot)
    # a resample with no decisive round is past the last round: it counts as R + 1 in the interval
    b = np.where(np.isnan(b), sums.rounds + 1, b)
    lo, hi = (float(np.percentile(b, 2.5)), float(np.percentile(b, 97.5))) if len(b) else (math.nan, math.nan)
    return Feel(pd.DataFrame(rows), curve_df, point, lo, hi)


def _curve(total: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The leader-wins curve and each round's share of the most-played round's games."""
    t, c = total.sum(axis=0), count.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, t / c, np.nan), c / max(float(c.max()), 1.0)


# -- feel targets (a patch objective: docs/patch.md) -------------------------------------------------------
# metrics a target may name: a mean over games, each game's value its own (decisive_round is read from a curve,
# and the fair walk's lead changes are not a property of the cards)
TARGET_METRICS = tuple(name for name, _ in METRICS if name != "null_lead_changes")


@dataclass(frozen=True)
class Target:
    """``metric >= value`` (``op`` ">=") or ``metric <= value`` (``op`` "<="): a feel figure a table must reach."""

    metric: str
    op: str
    value: float

    def label(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"

    def shortfall(self, mean: np.ndarray) -> np.ndarray:
        """How far ``mean`` falls short of the target, signed as mean - value (0 where it is met)."""
        diff = np.asarray(mean, dtype=np.float64) - self.value
        return np.minimum(diff, 0.0) if self.op == ">=" else np.maximum(diff, 0.0)


def parse_target(text: str, extra: tuple[str, ...] = ()) -> Target:
    """``"comeback_rate>=0.2"`` -> Target; ValueError naming what is allowed.  ``extra``: more metric names
    allowed (a patch's metagame targets, stats.metagame.TARGET_METRICS)."""
    allowed = TARGET_METRICS + tuple(extra)
    for op in (">=", "<="):
        if op in text:
            metric, _, value = (part.strip() for part in text.partition(op))
            break
    else:
        raise ValueError(f"got {text!r}; allowed: METRIC>=VALUE or METRIC<=VALUE, METRIC one of "
                         f"{', '.join(allowed)}")
    if metric not in allowed:
        why = " (read from a curve, not a mean over games)" if metric == "decisive_round" else ""
        raise ValueError(f"unknown target metric {metric!r}{why}; allowed: {', '.join(allowed)}")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"target {value!r} of {metric} is not a finite number")
    return Target(metric, op, number)
