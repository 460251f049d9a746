"""Costs shown up front: a short calibration of a lineup's seconds per game, the estimate printed before a
long run starts, and one progress bar that moves through every match of it.

A search seat (``mcts``) costs a thousand times a heuristic's game, so a ladder or a skill-axis card run can
take minutes to hours; the estimate lets a user shrink ``--games`` or the budgets before waiting.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numba
from tqdm import tqdm

CALIBRATE_SECONDS = 0.3  # a timed batch at least this long, after one warm-up game that compiles
MAX_BATCH = 4096


def seconds_per_game(game: Any, players: int, seats: Sequence[Any], seed: int = 0,
                     rules: Mapping[str, Any] | None = None, cards: Any = None,
                     threads: int | None = None) -> float:
    """``cell_seconds_per_game`` of the lineup ``seats`` at ``players`` seats, seating fixed, on deals of a key
    offset from ``seed`` (never the run's own)."""
    from boardsim.cell import make_cell
    from boardsim.games import get
    from boardsim.runner import numba_threads
    from boardsim.seat import as_seat

    g = get(game) if isinstance(game, str) else game
    table = cards if hasattr(cards, "columns") else g.card_table(cards)
    cell = make_cell(g, players, [as_seat(s) for s in seats], rules, table, seating_design="fixed")
    with numba_threads(threads):
        return cell_seconds_per_game(cell, 7919 + seed)


def cell_seconds_per_game(cell: Any, key: int = 7919) -> float:
    """Wall seconds one game of a cell adds to a long run on this machine's threads: a warm-up deal
    (compiles), then batches four times larger, starting from one deal per core, until one takes
    ``CALIBRATE_SECONDS``.  The deals come from ``key``, not the run's cell key, so the run never replays them."""
    from boardsim.cell import play_chunk

    play_chunk(cell, key, 0, 1)
    cores = max(1, numba.get_num_threads())
    n = cores
    while True:
        t0 = time.perf_counter()
        play_chunk(cell, key, 1, n)
        took = time.perf_counter() - t0
        games = n * len(cell.prepared)
        if took >= CALIBRATE_SECONDS or games >= MAX_BATCH:
            return took / games * min(games, cores) / cores
        n *= 4


def duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 5400:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


def announce(seconds: float, took: float, what: str) -> None:
    """One line on stderr before the run starts."""
    print(f"{what}: estimated time {duration(seconds)} on {numba.get_num_threads()} threads "
          f"(from a {took:.0f} s calibration)", file=sys.stderr, flush=True)


class Bar:
    """One progress bar over a whole multi-match run (``update(games)``); ``Bar(False)`` draws nothing."""

    def __init__(self, show: bool, total: int = 0, desc: str = ""):
        self._bar = tqdm(total=total, unit="game", unit_scale=True, desc=desc, delay=2.0, leave=False,
                         disable=not show)

    def update(self, games: int) -> None:
        self._bar.update(games)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.close()
