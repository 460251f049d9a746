"""Streaming per-cell sums: what a chunk of games adds up to, merged chunk by chunk in any order.

Below the run layer: ``cell`` sizes an Aggregate for its table, ``executors`` folds chunks into one,
``chunks`` saves and loads them, and ``report.tables`` reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from boardsim import sums
from boardsim.games.base import WIN_UNITS
from boardsim.stats.intervals import game_sums

if TYPE_CHECKING:
    from boardsim.games.base import Game

_INT64_ROOM = 2.0**62  # a sum that might pass this could overflow int64 (margin for float rounding)

# the Aggregate's whole-number arrays that add up chunk by chunk
_SUMMED = ("wins", "wins_by_position", "score_sum", "score_sq", "counter_sum", "end_counts", "deal_win_sq",
           "deal_score_sq", "group_win_sq", "group_score_sq", "arr_wins", "arr_group_win_sq")


@dataclass
class Aggregate:
    """Streaming per-cell sums: memory stays flat however many games run.

    Besides per-seat sums over games, it keeps sums over *deals*: the games of one deal (its
    arrangements) are correlated, so intervals treat the deal as the unit.  ``Y[d, j]`` is slot ``j``'s
    win units summed over deal ``d``'s arrangements; ``deal_win_sq`` is the sum over deals of ``Y**2``
    (the sum of ``Y`` is ``wins``).  The same is kept for each policy (``groups``: each slot's policy
    index; a policy in several seats sums them) and for scores.
    """

    n_players: int
    seat_counters: tuple[str, ...]
    n_end: int
    games: int = 0
    wins: np.ndarray = field(init=False)  # (P,) in 1/WIN_UNITS units
    wins_by_position: np.ndarray = field(init=False)  # (P,) same units, by turn order (0 = first player)
    score_sum: np.ndarray = field(init=False)
    score_sq: np.ndarray = field(init=False)
    counter_sum: np.ndarray = field(init=False)  # (P, n_counters)
    no_winner: int = 0
    rounds_sum: int = 0
    end_counts: np.ndarray = field(init=False)
    score_hist: dict[int, np.ndarray] = field(default_factory=dict)  # score -> count per slot
    rounds_hist: dict[int, int] = field(default_factory=dict)
    # game-specific sums from Game.chunk_stats (fixed-shape arrays, added chunk by chunk)
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    game: Game | None = None
    n_arr: int = 1  # arrangements per deal
    groups: tuple[int, ...] = ()  # policy index of each slot; () = every slot its own policy
    deals: int = 0
    deal_win_sq: np.ndarray = field(init=False)  # (P,) sum over deals of Y**2
    deal_score_sq: np.ndarray = field(init=False)  # (P,) the same for scores
    group_win_sq: np.ndarray = field(init=False)  # (G,) per policy, Y summed over its slots first
    group_score_sq: np.ndarray = field(init=False)  # (G,)
    arr_wins: np.ndarray = field(init=False)  # (A, P) win units per arrangement and slot
    arr_group_win_sq: np.ndarray = field(init=False)  # (A, G) sum over games of (policy's win units)**2

    def __post_init__(self) -> None:
        P = self.n_players
        if not self.groups:
            self.groups = tuple(range(P))
        self.groups = tuple(int(g) for g in self.groups)
        G = max(self.groups) + 1
        self.wins = np.zeros(P, dtype=np.int64)
        self.wins_by_position = np.zeros(P, dtype=np.int64)
        self.score_sum = np.zeros(P, dtype=np.int64)
        self.score_sq = np.zeros(P, dtype=np.int64)
        self.counter_sum = np.zeros((P, len(self.seat_counters)), dtype=np.int64)
        self.end_counts = np.zeros(self.n_end, dtype=np.int64)
        self.deal_win_sq = np.zeros(P, dtype=np.int64)
        self.deal_score_sq = np.zeros(P, dtype=np.int64)
        self.group_win_sq = np.zeros(G, dtype=np.int64)
        self.group_score_sq = np.zeros(G, dtype=np.int64)
        self.arr_wins = np.zeros((self.n_arr, P), dtype=np.int64)
        self.arr_group_win_sq = np.zeros((self.n_arr, G), dtype=np.int64)

    @property
    def n_groups(self) -> int:
        return max(self.groups) + 1

    def group_matrix(self) -> np.ndarray:
        """(P, G) 0/1 matrix: slot j belongs to policy g."""
        m = np.zeros((self.n_players, self.n_groups), dtype=np.int64)
        m[np.arange(self.n_players), self.groups] = 1
        return m

    def add(self, out: Mapping[str, np.ndarray] | Aggregate) -> None:
        """Add one chunk: its result arrays, or its Aggregate (from a worker or a chunk file)."""
        if isinstance(out, Aggregate):
            self.merge(out)
            return
        score = np.ascontiguousarray(out["score"], dtype=np.int64)  # no copy when it is int64 already
        self._check_room(score)
        n = score.shape[0]
        if n % self.n_arr:
            raise ValueError(f"a chunk of {n} games is not whole deals of {self.n_arr} arrangements")
        if n:
            self._add_sums(out, score)
        if "counters" in out:  # all seat counters as one block (Game.result_arrays): one pass
            self.counter_sum += game_sums(out["counters"])
        else:
            for k, name in enumerate(self.seat_counters):
                self.counter_sum[:, k] += game_sums(out[name])
        if self.game is not None:
            for name, arr in self.game.chunk_stats(out).items():
                if name in self.extra:
                    _check_sum(name, self.extra[name], arr)
                    self.extra[name] = self.extra[name] + arr
                else:
                    self.extra[name] = np.array(arr, copy=True)

    def _check_room(self, score: np.ndarray) -> None:
        """OverflowError before a chunk's scores could overflow an int64 sum.

        The largest sum is ``group_score_sq``: per deal, a policy's scores over its seats and every
        arrangement, squared.  Its growth is bounded by ``deals * (P * A * max|score|)**2``, checked in
        float64 against 2**62 together with what the sums already hold.
        """
        if not score.size:
            return
        top = float(np.abs(score).max())
        deals = score.shape[0] / self.n_arr
        grow = deals * (self.n_players * self.n_arr * top) ** 2
        held = max(float(np.abs(a).max(initial=0)) for a in (self.score_sq, self.deal_score_sq, self.group_score_sq))
        sums = float(np.abs(self.score_sum).max(initial=0)) + score.shape[0] * top
        if held + grow >= _INT64_ROOM or sums >= _INT64_ROOM:
            raise OverflowError(f"scores up to {top:.0f} over {self.games + score.shape[0]:,} games overflow the "
                                "64-bit sums of squared scores")

    def _add_sums(self, out: Mapping[str, np.ndarray], score: np.ndarray) -> None:
        """Every sum over games, deals and arrangements in one compiled pass (``sums.add_chunk``); rows come
        in arrangement-major blocks (``play_chunk``)."""
        flat = np.ascontiguousarray  # the compiled pass takes C-contiguous arrays: one signature
        rounds = flat(out["rounds"], dtype=np.int64)
        score_lo, score_hi = int(score.min()), int(score.max())
        rounds_lo, rounds_hi = int(rounds.min()), int(rounds.max())
        score_counts = np.zeros((score_hi - score_lo + 1, self.n_players), dtype=np.int64)
        rounds_counts = np.zeros(rounds_hi - rounds_lo + 1, dtype=np.int64)
        no_winner, rounds_sum = sums.add_chunk(
            flat(out["win"], dtype=np.float64), score, flat(out["position"], dtype=np.int64),
            flat(out["first_player"], dtype=np.int64), rounds, flat(out["end"], dtype=np.int64), self.n_arr,
            np.array(self.groups, dtype=np.int64), float(WIN_UNITS), score_lo, rounds_lo, self.wins,
            self.wins_by_position, self.score_sum, self.score_sq, self.end_counts, self.deal_win_sq,
            self.deal_score_sq, self.group_win_sq, self.group_score_sq, self.arr_wins, self.arr_group_win_sq,
            score_counts, rounds_counts)
        self.games += score.shape[0]
        self.deals += score.shape[0] // self.n_arr
        self.no_winner += int(no_winner)
        self.rounds_sum += int(rounds_sum)
        for k in np.flatnonzero(score_counts.any(axis=1)).tolist():
            v = score_lo + k
            if v in self.score_hist:
                self.score_hist[v] += score_counts[k]
            else:
                self.score_hist[v] = score_counts[k].copy()
        for k in np.flatnonzero(rounds_counts).tolist():
            v = rounds_lo + k
            self.rounds_hist[v] = self.rounds_hist.get(v, 0) + int(rounds_counts[k])

    def merge(self, other: Aggregate) -> None:
        """Add another aggregate's sums; all whole numbers, so the order of merging never matters."""
        if (other.n_players != self.n_players or tuple(other.seat_counters) != tuple(self.seat_counters)
                or other.n_arr != self.n_arr or tuple(other.groups) != tuple(self.groups)):
            raise ValueError("cannot merge aggregates of different tables")
        for name in _SUMMED:
            _check_sum(name, getattr(self, name), getattr(other, name))
        for name, arr in other.extra.items():
            if name in self.extra:
                _check_sum(name, self.extra[name], arr)
        self.games += other.games
        self.deals += other.deals
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.no_winner += other.no_winner
        self.rounds_sum += other.rounds_sum
        for v, c in other.score_hist.items():
            self.score_hist[v] = self.score_hist.get(v, 0) + c
        for v, c in other.rounds_hist.items():
            self.rounds_hist[v] = self.rounds_hist.get(v, 0) + c
        for name, arr in other.extra.items():
            self.extra[name] = self.extra[name] + arr if name in self.extra else np.array(arr, copy=True)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Every sum as a plain array (histograms as value/count pairs), e.g. for ``numpy.savez``."""
        scores = sorted(self.score_hist)
        rounds = sorted(self.rounds_hist)
        arrays = {
            "n_players": np.int64(self.n_players),
            "seat_counters": np.array(self.seat_counters, dtype=str),
            "games": np.int64(self.games),
            "deals": np.int64(self.deals),
            "n_arr": np.int64(self.n_arr),
            "groups": np.array(self.groups, dtype=np.int64),
            **{name: getattr(self, name) for name in _SUMMED},
            "no_winner": np.int64(self.no_winner),
            "rounds_sum": np.int64(self.rounds_sum),
            "score_values": np.array(scores, dtype=np.int64),
            "score_counts": (np.stack([self.score_hist[v] for v in scores]) if scores
                             else np.zeros((0, self.n_players), dtype=np.int64)),
            "rounds_values": np.array(rounds, dtype=np.int64),
            "rounds_counts": np.array([self.rounds_hist[v] for v in rounds], dtype=np.int64),
        }
        for name, arr in self.extra.items():
            arrays[f"extra.{name}"] = np.asarray(arr)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], game: Game | None = None) -> Aggregate:
        """The inverse of ``to_arrays``; a missing key raises KeyError."""
        counters = tuple(str(c) for c in arrays["seat_counters"].tolist())
        agg = cls(int(arrays["n_players"]), counters, len(arrays["end_counts"]), int(arrays["games"]), game=game,
                  n_arr=int(arrays["n_arr"]), groups=tuple(int(g) for g in arrays["groups"]))
        agg.deals = int(arrays["deals"])
        for name in _SUMMED:
            setattr(agg, name, np.array(arrays[name], dtype=np.int64))
        agg.no_winner = int(arrays["no_winner"])
        agg.rounds_sum = int(arrays["rounds_sum"])
        for v, row in zip(arrays["score_values"].tolist(), arrays["score_counts"], strict=True):
            agg.score_hist[v] = np.array(row, dtype=np.int64)
        agg.rounds_hist = dict(zip(arrays["rounds_values"].tolist(), arrays["rounds_counts"].tolist(), strict=True))
        agg.extra = {k[len("extra."):]: np.array(v) for k, v in arrays.items() if k.startswith("extra.")}
        return agg


def _check_sum(name: str, a: np.ndarray, b: np.ndarray) -> None:
    """OverflowError when ``a + b`` (integer sums) could leave int64."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu" or not a.size:
        return
    if float(np.abs(a).max()) + float(np.abs(b).max()) >= _INT64_ROOM:
        raise OverflowError(f"the 64-bit sum {name!r} would overflow")
