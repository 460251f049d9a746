"""A grid cell ready to play, and the chunking arithmetic that splits it.

Seeding: cell ``c`` of a run with base seed ``s`` has the 64-bit key ``rng.cell_key(s, c)``; game ``i``
of that cell is seeded with ``rng.game_seed(key, i)``.  Every deal ``i`` is played once per seat
arrangement of the cell's seating design (``boardsim.seating``: each policy sits in each position on the
same seeds), so a cell of ``n`` games holds ``ceil(n / arrangements)`` deals.  Chunks cover ranges of
deals, so neither the chunk size nor the thread count can change a result.

Result arrays come back from the game in *position* order (seat 0 opens); ``play_chunk`` reorders
every per-seat array (any array with ndim >= 2, seats on axis 1) into *slot* order, slot ``j`` being the
scenario's ``seats[j]``, and records ``position``, where each slot sat.

Below ``executors`` (which plays chunks wherever they run) and ``runner`` (which runs whole cells).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from boardsim import rng, seating
from boardsim.aggregate import Aggregate
from boardsim.errors import BadInput
from boardsim.seat import Seat, entry_key, fill_seats

if TYPE_CHECKING:
    from boardsim.games.base import Game, Prepared

DEFAULT_CHUNK = 50_000
# games per cell at most: far beyond any run that finishes, and small enough that game counts, win sums
# and per-game score sums stay exact in int64 (the sums of squared scores are checked as they grow)
MAX_GAMES = 10**12
# a cell run through an executor or a chunk store is split into at least this many chunks (tasks) when it
# holds enough games (chunk_deals): a default 50,000-deal chunk of slow Circle the Wagons games was a whole
# cell, so a second worker had nothing to do and a killed sweep lost minutes of play
TASKS_PER_CELL = 16


@dataclass
class Cell:
    """One grid cell, ready to play: the game prepared once per seat arrangement.

    ``arrangements[k][j]`` is the position slot ``j`` sits at in arrangement ``k``, and ``prepared[k]``
    is the game prepared for that arrangement (its seats in position order).  ``rotations`` is the
    older name of ``prepared`` (from when every design was a rotation) and still reads, with a warning.
    """

    index: int
    values: dict[str, Any]
    game: Game
    n_players: int
    seats: list[Seat]
    prepared: list[Prepared]
    cards: pd.DataFrame
    arrangements: list[tuple[int, ...]] = field(default_factory=list)
    seating: str = "fixed"
    listed: list[Seat] = field(default_factory=list)  # the seat list as given, before filling the table

    def __post_init__(self) -> None:
        if not self.arrangements:  # a cell rebuilt from parts that predate arrangements: rotations
            P = self.n_players
            self.arrangements = [tuple((j + k) % P for j in range(P)) for k in range(len(self.prepared))]
        if not self.listed:
            self.listed = list(self.seats)

    @property
    def rotations(self) -> list[Prepared]:
        """Deprecated: the older name of ``prepared``."""
        warnings.warn("Cell.rotations is deprecated; use Cell.prepared (one prepared game per arrangement)",
                      DeprecationWarning, stacklevel=2)
        return self.prepared

    @property
    def rules_hash(self) -> str:
        return self.prepared[0].rules_hash

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
        """Each slot's index into ``policies``."""
        return seating.groups([s.label() for s in self.seats])[1]

    def warnings(self) -> list[str]:
        return seating.coverage_warnings([s.label() for s in self.listed], self.n_players)

    def new_aggregate(self) -> Aggregate:
        """An empty Aggregate sized for this cell's table, arrangements and policies."""
        return Aggregate(self.n_players, self.game.seat_counters, len(self.game.end_reasons), game=self.game,
                         n_arr=len(self.prepared), groups=self.slot_group)


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
    """A cell of ``seats`` at ``n_players``; ``seating_design`` (``boardsim.seating``) picks the design.

    ``rotate`` is its deprecated spelling (True = ``cyclic``, False = ``fixed``).
    """
    if rotate is not None:
        warnings.warn("make_cell(rotate=...) is deprecated; use seating_design='cyclic' (True) or 'fixed' (False)",
                      DeprecationWarning, stacklevel=2)
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

    Row ``k * count + i`` is deal ``start + i`` in arrangement ``k`` (its ``rotation`` column, a name
    kept for the result frames).  Sums over a chunk do not depend on row order; ``simulate`` writes its
    rows in (game, arrangement) order (``runner.RowSink``), so its frame does not depend on the chunk size.
    """
    P = cell.n_players
    n_arr = len(cell.prepared)
    merged: dict[str, np.ndarray] = {}
    for k, prep in enumerate(cell.prepared):
        out = cell.game.play(prep, key, start, count)
        position_of_slot = np.array(cell.arrangements[k])
        out["rotation"] = np.full(count, k, dtype=np.int64)
        out["position"] = np.broadcast_to(position_of_slot, (count, P))
        if n_arr == 1:
            merged = out  # one arrangement, seats already in slot order: no copy (it cost as much as the games)
            break
        block = slice(k * count, (k + 1) * count)
        for name, arr in out.items():
            if name not in merged:
                merged[name] = np.empty((count * n_arr,) + arr.shape[1:], dtype=arr.dtype)
            if arr.ndim >= 2 and name != "position":
                # reorder seats from position to slot order, straight into this arrangement's block
                np.take(arr, position_of_slot, axis=1, out=merged[name][block], mode="clip")
            else:
                merged[name][block] = arr
    deals = np.arange(start, start + count, dtype=np.int64)
    merged["game"] = np.tile(deals, n_arr)
    merged["seed"] = np.tile(rng.game_seeds(np.uint64(key), start, count), n_arr)
    return merged


def to_frame(cell: Cell, out: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per game: game columns, then ``<name>_<slot>`` per-seat columns, then ``policy_<slot>``: the
    label of the policy in each slot (slot j plays ``seats[j]``; ``position_j`` says where it sat)."""
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
    n = len(out["game"])
    for j, seat in enumerate(cell.seats):  # slot j's policy, whichever position it sat in (position_j)
        cols[f"policy_{j}"] = pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[seat.label()])
    # the arrays are this frame's own (RowSink's): no copy into consolidated blocks, which cost about
    # a sixth of an Art Deco game per row
    return pd.DataFrame(cols, copy=False)


def deal_count(n_games: int, cell: Cell) -> int:
    return math.ceil(n_games / len(cell.prepared))


def chunk_deals(cell: Cell, deals: int, chunk_size: int) -> int:
    """Deals per chunk for a cell of ``deals`` deals: at most ``chunk_size``, small enough that the cell
    makes ``TASKS_PER_CELL`` chunks, but not below ``game.min_task_games`` games.  It depends only on the
    scenario (never on the executor or worker count), so saved chunks resume under any executor."""
    floor = math.ceil(cell.game.min_task_games / cell.cost / len(cell.prepared))
    return max(1, min(chunk_size, max(floor, math.ceil(deals / TASKS_PER_CELL))))


def check_entries(game: Game, n_players: int, entries: Sequence[tuple[str, Seat]], rules: Mapping[str, Any] | None,
                  cards: pd.DataFrame, error: type[BadInput] = BadInput, params: bool = True,
                  file: str | None = None) -> None:
    """Each listed seat (a tournament's or ladder's policies) checked alone at a table of ``n_players``, before
    anything plays: a bad policy or parameter is refused by the entry the user wrote (``policies[1].iterations``
    with ``params=False``, as a flag; ``tournament.policies[1].params.iterations`` with it, as a scenario key),
    not by a seat of whichever match met it first."""
    for key, seat in entries:
        try:
            make_cell(game, n_players, [seat] * n_players, rules, cards)
        except BadInput as e:
            raise error(entry_key(e.key, key, params), e.message, e.file or file) from None
