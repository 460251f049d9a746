"""Runs games: splits a cell into chunks, seeds them, rotates seats, gathers results.

Seeding: cell ``c`` of a run with base seed ``s`` has the 64-bit key
``rng.cell_key(s, c)``; game ``i`` of that cell is seeded with
``rng.game_seed(key, i)``.  With ``rotate_seats`` every deal ``i`` is played
once per rotation of the seats (a paired design: each policy sits in each
position on the same seeds), so a cell of ``n`` games holds ``ceil(n / P)``
deals.  Chunks cover ranges of deals, so neither the chunk size nor the
thread count can change a result.

Result arrays come back from the game in *position* order (seat 0 opens);
the runner reorders every per-seat array (any array with ndim >= 2, seats on
axis 1) into *slot* order, slot ``j`` being the scenario's ``seats[j]``, and
records ``position_j``, where slot ``j`` sat.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
from tqdm import tqdm

from boardsim import rng, seating, sums
from boardsim.analysis.stats import game_sums
from boardsim.errors import BadInput
from boardsim.games import get as get_game
from boardsim.games.base import WIN_UNITS, Game, Prepared, Seat  # noqa: F401  (WIN_UNITS: re-exported)

DEFAULT_CHUNK = 50_000
# games per cell at most: far beyond any run that finishes, and small enough that game counts, win sums
# and per-game score sums stay exact in int64 (the sums of squared scores are checked as they grow)
MAX_GAMES = 10**12
# a cell run through an executor or a chunk store is split into at least this many chunks (tasks) when it
# holds enough games (chunk_deals): a default 50,000-deal chunk of slow Circle the Wagons games was a whole
# cell, so a second worker had nothing to do and a killed sweep lost minutes of play
TASKS_PER_CELL = 16
RANGES_PER_BATCH = 4096  # deal ranges handed to play_ranges at a time, so no list grows with the games
_INT64_ROOM = 2.0**62  # a sum that might pass this could overflow int64 (margin for float rounding)


def as_seat(spec: Any) -> Seat:
    """A Seat from a name, a Seat, a (name, params) pair or a {'policy', 'params'} dict."""
    if isinstance(spec, Seat):
        return spec
    if isinstance(spec, str):
        return Seat(spec, {})
    if isinstance(spec, Mapping):
        return Seat(spec.get("policy", ""), dict(spec.get("params", {}) or {}))
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        return Seat(spec[0], dict(spec[1]))
    raise BadInput("policies", f"cannot read a seat from {spec!r}")


def fill_seats(seats: Sequence[Seat], n_players: int) -> list[Seat]:
    """Seat i plays ``seats[i % len(seats)]``, so one policy can fill a table."""
    if not seats:
        raise BadInput("seats", "no seats given")
    return [seats[i % len(seats)] for i in range(n_players)]


@dataclass
class Cell:
    """One grid cell, ready to play: one Prepared per seat arrangement.

    ``arrangements[k][j]`` is the position slot ``j`` sits at in arrangement ``k``, and
    ``rotations[k]`` (the name predates the other designs) is that arrangement encoded for the game.
    """

    index: int
    values: dict[str, Any]
    game: Game
    n_players: int
    seats: list[Seat]
    rotations: list[Prepared]
    cards: pd.DataFrame
    arrangements: list[tuple[int, ...]] = field(default_factory=list)
    seating: str = "fixed"
    listed: list[Seat] = field(default_factory=list)  # the seat list as given, before filling the table

    def __post_init__(self) -> None:
        if not self.arrangements:  # a cell rebuilt from parts that predate arrangements: rotations
            P = self.n_players
            self.arrangements = [tuple((j + k) % P for j in range(P)) for k in range(len(self.rotations))]
        if not self.listed:
            self.listed = list(self.seats)

    @property
    def rules_hash(self) -> str:
        return self.rotations[0].rules_hash

    @property
    def cost(self) -> float:
        """One game of this cell in units of a game of plain policies (``Game.search_cost``)."""
        return self.game.search_cost(self.seats)

    @property
    def policies(self) -> list[str]:
        """The distinct policy labels of the table, in listed order."""
        return seating.groups([s.label() for s in self.seats])[0]

    @property
    def slot_group(self) -> tuple[int, ...]:
        """Each slot's index into :attr:`policies`."""
        return seating.groups([s.label() for s in self.seats])[1]

    def warnings(self) -> list[str]:
        return seating.coverage_warnings([s.label() for s in self.listed], self.n_players)

    def new_aggregate(self) -> Aggregate:
        """An empty Aggregate sized for this cell's table, arrangements and policies."""
        return Aggregate(self.n_players, self.game.seat_counters, len(self.game.end_reasons), game=self.game,
                         n_arr=len(self.rotations), groups=self.slot_group)


def make_cell(
    game: Game,
    n_players: int,
    seats: Sequence[Seat],
    rules: Mapping[str, Any] | None,
    cards: pd.DataFrame,
    rotate: bool | None = None,
    index: int = 0,
    values: dict[str, Any] | None = None,
    seating_design: str | None = None,
) -> Cell:
    """A cell of ``seats`` at ``n_players``; ``seating_design`` (or the older ``rotate``) picks the design."""
    game.check_players(n_players)
    slots = fill_seats(list(seats), n_players)
    design = seating.resolve(seating_design, rotate)
    arrs = seating.arrangements([s.label() for s in slots], design)
    preps = []
    for position_of_slot in arrs:
        by_position = [slots[0]] * n_players
        for j, p in enumerate(position_of_slot):
            by_position[p] = slots[j]
        try:
            preps.append(game.prepare(n_players, by_position, rules, cards))
        except BadInput as e:
            raise _as_listed(e, position_of_slot, len(seats)) from None
    return Cell(index, dict(values or {}), game, n_players, slots, preps, cards, arrs, design, list(seats))


def _as_listed(error: BadInput, position_of_slot: Sequence[int], listed: int) -> BadInput:
    """``error`` with a ``seats[p]`` key (a position of the arrangement) renamed to the seat as listed."""
    m = re.match(r"seats\[(\d+)\]", error.key)
    if m is None or int(m.group(1)) not in position_of_slot:
        return error
    seat = list(position_of_slot).index(int(m.group(1))) % listed
    return BadInput(f"seats[{seat}]" + error.key[m.end():], error.message, error.file)


def play_chunk(cell: Cell, key: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Deals start..start+count-1 in every arrangement, in arrangement-major blocks.

    Row ``k * count + i`` is deal ``start + i`` in arrangement ``k``.  Sums over a
    chunk do not depend on row order; ``simulate`` sorts its rows by (game,
    rotation) at the end, so its frame does not depend on the chunk size.
    """
    P = cell.n_players
    n_rot = len(cell.rotations)
    merged: dict[str, np.ndarray] = {}
    for k, prep in enumerate(cell.rotations):
        out = cell.game.play(prep, key, start, count)
        position_of_slot = np.array(cell.arrangements[k])
        out["rotation"] = np.full(count, k, dtype=np.int64)
        out["position"] = np.broadcast_to(position_of_slot, (count, P))
        if n_rot == 1:
            merged = out  # one arrangement, seats already in slot order: no copy (it cost as much as the games)
            break
        block = slice(k * count, (k + 1) * count)
        for name, arr in out.items():
            if name not in merged:
                merged[name] = np.empty((count * n_rot,) + arr.shape[1:], dtype=arr.dtype)
            if arr.ndim >= 2 and name != "position":
                # reorder seats from position to slot order, straight into this arrangement's block
                np.take(arr, position_of_slot, axis=1, out=merged[name][block], mode="clip")
            else:
                merged[name][block] = arr
    deals = np.arange(start, start + count, dtype=np.int64)
    merged["game"] = np.tile(deals, n_rot)
    merged["seed"] = np.tile(rng.game_seeds(np.uint64(key), start, count), n_rot)
    return merged


def to_frame(cell: Cell, out: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per game: game columns, then ``<name>_<slot>`` per-seat columns."""
    P = cell.n_players
    cols: dict[str, Any] = {}
    for name in ("game", "rotation", "seed", "rounds", "first_player", "end"):
        cols[name] = out[name]
    cols["end"] = pd.Categorical.from_codes(out["end"], categories=list(cell.game.end_reasons))
    for name, arr in out.items():
        if arr.ndim == 1 and name not in cols:
            cols[name] = arr
    for name, arr in out.items():
        if arr.ndim == 2:
            for j in range(P):
                cols[f"{name}_{j}"] = arr[:, j]
    # the arrays are this frame's own (RowSink's): no copy into consolidated blocks, which cost about
    # a sixth of an Art Deco game per row
    return pd.DataFrame(cols, copy=False)


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
        """The inverse of :meth:`to_arrays`; a missing key raises KeyError."""
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


@contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Temporarily run Numba's parallel loops on ``threads`` threads."""
    if threads is None:
        yield
        return
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise BadInput("threads", f"got {threads}; allowed: 1 to {numba.config.NUMBA_NUM_THREADS}")
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


_WARM: set[tuple[str, bool]] = set()  # (game, search) engines this process has compiled or loaded


def engine_cached(game: Game, module: str = "*") -> bool:
    """Whether Numba's cache holds compiled code of ``game``'s engine (its folder is named after the
    game's package), or of one ``module`` of it (``mcts``: the search player's)."""
    package = type(game).__module__.rsplit(".", 1)[-1]
    return any(Path(numba.config.CACHE_DIR).glob(f"{package}_*/{module}.*.nbi"))


def has_search(cell: Cell) -> bool:
    """Whether a seat of the cell plays a search policy (one that names its rollouts parameter)."""
    return any(cell.game.policy(s.policy).rollouts for s in cell.seats)


def warm_up(cell: Cell, announce: Callable[[str], None] | None = None) -> float:
    """Compile (or load from the cache) the cell's engine before anything is timed; returns the seconds.

    On a cold cache ``announce`` gets a line before compiling and one with its duration after, so a
    first run does not sit silent for the half minute a compile takes.  A cell with a search seat
    compiles the search player's variant of the engine, announced on its own.
    """
    game = cell.game
    search = has_search(cell)
    if (game.name, search) in _WARM:
        return 0.0
    what = f"the {game.title} search player" if search else f"the {game.title} engine"
    cold = not engine_cached(game, "mcts" if search else "*")
    if cold and announce is not None:
        announce(f"compiling {what} (first run only)...")
    t0 = time.perf_counter()
    game.play(cell.rotations[0], 0, 0, 1)
    seconds = time.perf_counter() - t0
    _WARM.add((game.name, search))
    if cold and announce is not None:
        announce(f"compiled {what} in {seconds:.1f} s")
    return seconds


def deal_count(n_games: int, cell: Cell) -> int:
    return math.ceil(n_games / len(cell.rotations))


def chunk_deals(cell: Cell, deals: int, chunk_size: int) -> int:
    """Deals per chunk for a cell of ``deals`` deals: at most ``chunk_size``, small enough that the cell
    makes ``TASKS_PER_CELL`` chunks, but not below ``game.min_task_games`` games.  It depends only on the
    scenario (never on the executor or worker count), so saved chunks resume under any executor."""
    floor = math.ceil(cell.game.min_task_games / cell.cost / len(cell.rotations))
    return max(1, min(chunk_size, max(floor, math.ceil(deals / TASKS_PER_CELL))))


class _Forward:
    """A progress "bar" that hands each update to a caller's callable."""

    def __init__(self, update: Callable[[int], Any]):
        self.update = update

    def close(self) -> None:
        pass


def run_cell(
    cell: Cell,
    base_seed: int,
    n_games: int,
    sink: Callable[[dict[str, np.ndarray]], None],
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool | None | Callable[[int], Any] = None,
    label: str = "",
    executor: Any = None,
    store: Any = None,
    reduce: bool = False,
) -> None:
    """Play ``n_games`` of a cell in chunks, handing each chunk's results to ``sink``.

    With an ``executor`` (``boardsim.executors``) or a chunk ``store``
    (``boardsim.chunks``) the chunks go through ``executors.play_ranges``:
    they may run elsewhere and, with ``reduce``, arrive as Aggregates; the
    sink still gets them in deal order.
    """
    key = rng.cell_key(base_seed, cell.index)
    deals = deal_count(n_games, cell)
    n_rot = len(cell.rotations)
    if cell.cost > 1.0:  # search seats: chunks of about as much play as a task of plain games, so the bar moves
        per_chunk = math.ceil(cell.game.min_task_games / cell.cost / n_rot)
        chunk_size = max(1, min(chunk_size, max(per_chunk, numba.get_num_threads())))
    if not reduce:
        # games with large per-game arrays (per-card statistics) cap the chunk to keep memory flat; a
        # chunk that comes back as an Aggregate is played in capped calls instead (executors.chunk_result),
        # so its task stays coarse
        chunk_size = min(chunk_size, cell.game.max_chunk_deals)
    if callable(progress):  # a caller's own bar over several cells (a tournament, a ladder): games as they finish
        bar: Any = _Forward(progress)
    else:
        bar = tqdm(
            total=deals * n_rot,
            unit="game",
            unit_scale=True,
            desc=label or f"cell {cell.index}",
            delay=2.0,  # appears only on runs longer than about 2 s
            disable=(progress is False),
            leave=False,
        )
    try:
        if executor is None and store is None and not reduce:
            for start in range(0, deals, chunk_size):
                count = min(chunk_size, deals - start)
                sink(play_chunk(cell, key, start, count))
                bar.update(count * n_rot)
        else:
            from boardsim.executors import play_ranges

            chunk_size = chunk_deals(cell, deals, chunk_size)
            # in batches of ranges, made as they are needed: a list of every range of a huge cell would
            # grow without limit (results do not depend on the batching)
            # games reported from inside a chunk move the bar at once; the chunk's arrival adds the rest
            partial = [0]

            def within(games: int) -> None:
                partial[0] += games
                bar.update(games)

            step = chunk_size * RANGES_PER_BATCH
            for first in range(0, deals, step):
                last = min(first + step, deals)
                ranges = [(start, min(chunk_size, last - start)) for start in range(first, last, chunk_size)]
                listener = None if progress is False else within  # no bar: whole chunks, no sub-calls
                for count, part in play_ranges(cell, key, ranges, executor, store, reduce, listener):
                    sink(part)
                    bar.update(count * n_rot - partial[0])
                    partial[0] = 0
    finally:
        bar.close()


class RowSink:
    """Chunks of result rows written straight into whole-run arrays in (game, arrangement) order.

    A chunk comes arrangement-major (``play_chunk``): its row ``k * count + i`` is deal ``start + i`` in
    arrangement ``k``, which belongs at row ``(start + i) * A + k``.  Writing each chunk into place is one
    copy; gathering the chunks, concatenating and sorting them cost more than playing the games.
    """

    def __init__(self, deals: int, arrangements: int):
        self.deals, self.A = deals, arrangements
        self.arrays: dict[str, np.ndarray] = {}

    def add(self, out: Mapping[str, np.ndarray]) -> None:
        A = self.A
        count = len(out["game"]) // A
        start = int(out["game"][0])
        for name, arr in out.items():
            if arr.ndim > 2:
                continue  # blocks such as ``counters`` repeat per-seat columns a frame already has
            if name not in self.arrays:
                self.arrays[name] = np.empty((self.deals * A,) + arr.shape[1:], dtype=arr.dtype)
            target = self.arrays[name][start * A:(start + count) * A]
            # (A, count, ...) -> (count, A, ...): deal-major, arrangement within each deal
            target.reshape((count, A) + arr.shape[1:])[...] = np.swapaxes(
                arr.reshape((A, count) + arr.shape[1:]), 0, 1)


def simulate(
    game: str | Game,
    n_games: int,
    policies: Sequence[Any] | None = None,
    seed: int = 0,
    rules: Mapping[str, Any] | None = None,
    cards: Mapping[str, Mapping[str, Any]] | pd.DataFrame | None = None,
    players: int | None = None,
    rotate_seats: bool | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool | None | Callable[[int], Any] = None,
    cell: int = 0,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    seating: str | None = None,
) -> pd.DataFrame:
    """Play ``n_games`` games and return one row per game.

    ``seating`` is the seating design (``boardsim.seating``): ``all`` (the default) plays every deal in
    every distinct arrangement of the seats, ``cyclic`` (``rotate_seats=True``) in every rotation,
    ``fixed`` (``rotate_seats=False``) as listed; ``n_games`` is rounded up to whole deals.

    ``policies`` lists seat policies (names, ``Seat``s, ``(name, params)`` or
    ``{"policy": ..., "params": ...}``); seat ``i`` plays ``policies[i % len]``.
    ``cards`` is a dict of card edits (``{"v12": {"copies": 5}}``) or a full
    card table.  Per-seat columns are ``<name>_<slot>``; see the README for the
    columns.  The same arguments always give the same frame, whatever the
    ``executor`` (``local``, ``processes`` with ``workers``, ``dask`` with a
    ``scheduler`` address or Client, or ``workers`` for a local cluster).
    """
    from boardsim.executors import open_executor

    g = get_game(game) if isinstance(game, str) else game
    if not isinstance(n_games, int) or n_games < 1:
        raise BadInput("n_games", f"got {n_games!r}; allowed: a positive integer")
    seats = [as_seat(p) for p in (policies or [g.default_policy])]
    n_players = players if players is not None else (len(seats) if len(seats) > 1 else g.default_players)
    table = cards if isinstance(cards, pd.DataFrame) else g.card_table(cards)
    c = make_cell(g, n_players, seats, rules, table, rotate_seats, index=cell, seating_design=seating)
    rows = RowSink(deal_count(n_games, c), len(c.rotations))
    with numba_threads(threads), open_executor(executor, workers, scheduler, threads=threads) as ex:
        run_cell(c, seed, n_games, rows.add, chunk_size, progress, executor=ex)
    frame = to_frame(c, rows.arrays)
    frame.attrs.update(
        game=g.name, seed=seed, cell=cell, players=n_players, rules_hash=c.rules_hash,
        seats=[s.label() for s in c.seats], seating=c.seating, arrangements=len(c.arrangements),
        deals=deal_count(n_games, c),
    )
    return frame
