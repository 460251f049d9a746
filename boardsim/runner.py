"""Runs games: plays a cell's chunks (here or through an executor), gathers them, and ``simulate``.

The cell, its seeding and chunking are in ``boardsim.cell``, the sums in ``boardsim.aggregate`` and
where chunks run in ``boardsim.executors``; this module sits above all three.  Its older public names
(``make_cell``, ``play_chunk``, ``Aggregate``, ``as_seat``...) are re-exported for scripts; modules of the
package import them from where they are defined.
"""

from __future__ import annotations

import math
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
from tqdm import tqdm

from boardsim import rng
from boardsim.aggregate import Aggregate
from boardsim.cell import (
    DEFAULT_CHUNK,
    MAX_GAMES,
    TASKS_PER_CELL,
    Cell,
    chunk_deals,
    deal_count,
    make_cell,
    play_chunk,
    to_frame,
)
from boardsim.errors import BadInput, BadParameter
from boardsim.games import get as get_game
from boardsim.games.base import WIN_UNITS, Game, Prepared
from boardsim.seat import Seat, as_seat, entry_key, fill_seats
from boardsim.seating import resolve as resolve_seating

__all__ = ["DEFAULT_CHUNK", "MAX_GAMES", "RANGES_PER_BATCH", "TASKS_PER_CELL", "WIN_UNITS", "Aggregate", "Cell",
           "Game", "Prepared", "RowSink", "Seat", "as_seat", "chunk_deals", "deal_count", "engine_cached",
           "fill_seats", "has_search", "make_cell", "numba_threads", "play_chunk", "run_cell", "simulate",
           "to_frame", "trace_game", "warm_up"]

RANGES_PER_BATCH = 4096  # deal ranges handed to play_ranges at a time, so no list grows with the games


@contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Temporarily run Numba's parallel loops on ``threads`` threads."""
    if threads is None:
        yield
        return
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise BadParameter("threads", f"got {threads}; allowed: 1 to {numba.config.NUMBA_NUM_THREADS}")
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


@contextmanager
def executing(executor: Any = None, workers: int | None = None, scheduler: Any = None,
              scheduler_file: str | None = None, threads: int | None = None) -> Iterator[Any]:
    """The executor a command's games run on (``executors.open_executor``: None for local threads), with
    ``threads`` Numba threads here when they run locally; elsewhere ``threads`` is the workers' own."""
    from boardsim.executors import open_executor  # only here: `import boardsim` stays fast

    with open_executor(executor, workers, scheduler, scheduler_file, threads) as ex, \
            numba_threads(threads if ex is None else None):
        yield ex


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
    game.play(cell.prepared[0], 0, 0, 1)
    seconds = time.perf_counter() - t0
    _WARM.add((game.name, search))
    if cold and announce is not None:
        announce(f"compiled {what} in {seconds:.1f} s")
    return seconds



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
    n_arr = len(cell.prepared)
    if cell.cost > 1.0:  # search seats: chunks of about as much play as a task of plain games, so the bar moves
        per_chunk = math.ceil(cell.game.min_task_games / cell.cost / n_arr)
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
            total=deals * n_arr,
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
                bar.update(count * n_arr)
        else:
            from boardsim.executors import play_ranges, split_range  # only here: `import boardsim` stays fast

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
                ranges = split_range(first, last - first, chunk_size)
                listener = None if progress is False else within  # no bar: whole chunks, no sub-calls
                for count, part in play_ranges(cell, key, ranges, executor, store, reduce, listener):
                    sink(part)
                    bar.update(count * n_arr - partial[0])
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
    chunk_size: int = 50_000,  # DEFAULT_CHUNK, written out so the reference shows it
    progress: bool | None | Callable[[int], Any] = None,
    cell: int = 0,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    seating: str | None = None,
) -> pd.DataFrame:
    """Play ``n_games`` games and return one row per game.

    >>> df = boardsim.simulate("art_deco", 10_000, ["par", "mcts(iterations=300)"], seed=1)
    >>> df.groupby("policy_1")["win_1"].mean()

    :param game: a game name (``"art_deco"``, ``"fliptoons"``, ``"wagons"``; ``boardsim.games.names()``) or a
        ``Game``.
    :param n_games: games to play, rounded up to whole deals (a deal is played once in every arrangement of
        the seating design).
    :param policies: the seats' policies, each a name (``"par"``), a label with parameters
        (``"mcts(iterations=300)"``, as ``--policies`` and report labels write it), a ``Seat``, a ``(name,
        params)`` pair or a ``{"policy": ..., "params": ...}`` dict; slot ``i`` plays ``policies[i % len]``.
        Default: the game's default policy in every seat.  A bad entry is refused as ``policies[i]``.
    :param seed: the base seed (0 to 2**63 - 1): the same arguments always give the same frame.
    :param rules: rule options by name (``python -m boardsim list <game>``); unknown names are refused.
    :param cards: card edits (``{"v12": {"copies": 5}}``) or a whole card table (``game.card_table()``).
    :param players: the table's size (default: the number of policies listed, or the game's default when
        one policy is listed).
    :param rotate_seats: deprecated; ``seating="cyclic"`` (True) or ``"fixed"`` (False).
    :param threads: Numba threads (default: every core); results do not depend on it.
    :param chunk_size: deals per chunk at most; results do not depend on it.
    :param progress: a progress bar on stderr (None: for long runs only; False: never), or a callable given
        each chunk's game count.
    :param cell: the cell index mixed into the seeds (a sweep's cell ``c`` plays the games of ``cell=c``).
    :param executor: ``"local"`` (default, threads), ``"processes"`` (``workers`` processes) or ``"dask"``
        (``scheduler``: an address or a Client; or ``workers`` for a local cluster); results do not depend on it.
    :param workers: processes or Dask workers.
    :param scheduler: a Dask scheduler address or ``distributed.Client``.
    :param seating: the seating design (``boardsim.seating``): ``"all"`` (the default) plays every deal in
        every distinct arrangement of the seats, ``"cyclic"`` in every rotation, ``"fixed"`` as listed.
    :return: one row per game.  Game columns: ``game`` (the deal's index in the cell), ``rotation`` (the
        arrangement's index), ``seed``, ``rounds``, ``first_player`` (the position that started), ``end`` (how
        the game ended, a category), then the game's own counters.  Per slot ``j`` (slot j plays
        ``policies[j % len]``, wherever it sat): ``score_j``, ``win_j`` (win share: 1, 1/k for a k-way tie,
        0), ``position_j`` (the position it sat in), the game's per-seat counters, and ``policy_j`` (the
        slot's policy label).  ``attrs`` holds the game, seed, cell, players, seats, seating, arrangements,
        deals and the rules' hash.  Every column: docs/reference/output-files.md.
    """
    from boardsim.executors import open_executor  # only here: `import boardsim` stays fast

    g = get_game(game) if isinstance(game, str) else game
    whole(n_games, "n_games", 1, MAX_GAMES)
    whole(seed, "seed", 0, rng.MAX_SEED)
    whole(chunk_size, "chunk_size", 1, MAX_GAMES)
    whole(cell, "cell", 0, rng.MAX_SEED)
    seats = [as_seat(p) for p in (policies or [g.default_policy])]
    n_players = players if players is not None else (len(seats) if len(seats) > 1 else g.default_players)
    table = cards if isinstance(cards, pd.DataFrame) else g.card_table(cards)
    if rotate_seats is not None:
        warnings.warn("simulate(rotate_seats=...) is deprecated; use seating='cyclic' (True) or 'fixed' (False)",
                      DeprecationWarning, stacklevel=2)
    # seating wins when both are given, as in a scenario (where giving both is refused)
    c = policies_cell(g, n_players, seats, rules, table, index=cell,
                      seating_design=resolve_seating(seating, rotate_seats))
    rows = RowSink(deal_count(n_games, c), len(c.prepared))
    with numba_threads(threads), open_executor(executor, workers, scheduler, threads=threads) as ex:
        run_cell(c, seed, n_games, rows.add, chunk_size, progress, executor=ex)
    frame = to_frame(c, rows.arrays)
    frame.attrs.update(
        game=g.name, seed=seed, cell=cell, players=n_players, rules_hash=c.rules_hash,
        seats=[s.label() for s in c.seats], seating=c.seating, arrangements=len(c.arrangements),
        deals=deal_count(n_games, c),
    )
    return frame


def whole(value: Any, key: str, low: int, high: int) -> int:
    """``value`` when it is a whole number in [low, high] (not a bool), else BadParameter ``key``: checked
    where the user's number arrives, so a negative seed is one line, not an error inside NumPy."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise BadParameter(key, f"got {value!r}; allowed: a whole number from {low} to {high}")
    return int(value)


def policies_cell(g: Game, n_players: int, seats: Sequence[Seat], rules: Mapping[str, Any] | None,
                  table: pd.DataFrame, **kw: Any) -> Cell:
    """make_cell for seats listed as ``policies`` (cycled over the table): an error about seat j names the
    entry it came from, ``policies[j mod len]`` (``--policies[1].iterations`` on the command line)."""
    try:
        return make_cell(g, n_players, seats, rules, table, **kw)
    except BadInput as e:
        m = re.match(r"^seats\[(\d+)\]", e.key)
        if m is None:
            raise
        entry = f"policies[{int(m.group(1)) % len(seats)}]"
        raise BadParameter(entry_key(e.key, entry, params=False), e.message, e.file) from None


def trace_game(
    game: str | Game,
    seed: int = 0,
    policies: Sequence[Any] | None = None,
    players: int | None = None,
    rules: Mapping[str, Any] | None = None,
    cell: int = 0,
    index: int = 0,
) -> str:
    """A readable trace of one game, under a heading line: game ``index`` of cell ``cell`` in a run with base
    seed ``seed``, seats as listed (the row ``index`` of ``simulate(..., seating="fixed", cell=cell)``).
    ``policies`` and ``players`` as ``simulate`` takes them."""
    g = get_game(game) if isinstance(game, str) else game
    whole(seed, "seed", 0, rng.MAX_SEED)
    whole(cell, "cell", 0, rng.MAX_SEED)
    whole(index, "index", 0, MAX_GAMES)
    seats = [as_seat(p) for p in (policies or [g.default_policy])]
    n_players = players if players is not None else (len(seats) if len(seats) > 1 else g.default_players)
    c = policies_cell(g, n_players, seats, rules, g.card_table(), index=cell, seating_design="fixed")
    heading = f"{g.title}: seed {seed}, cell {cell}, game {index}, {n_players} players"
    return heading + "\n" + g.trace(c.prepared[0], rng.cell_key(seed, cell), index)
