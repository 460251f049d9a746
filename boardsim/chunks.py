"""Finished chunks on disk, so a killed or interrupted sweep resumes where it stopped.

Layout: ``<out>/chunks/cell-0003/deals-000000000-000049999.npz``, one
compressed ``.npz`` per chunk holding the chunk's ``Aggregate`` arrays
plus ``meta.*`` entries: the cell's scenario hash, the base seed, the cell's
64-bit key and the deal range (whose games are seeded with
``rng.game_seed(key, i)``), and a SHA-256 of all the arrays.

A file is written under a temporary name and renamed into place, so a file
with the final name is complete; on load, a file that does not unzip, lacks
a key, fails its checksum, or was made for another scenario hash or range is
ignored and its chunk played again (then overwritten).  The scenario hash
covers everything a chunk's numbers depend on: boardsim version, the source
of the compiled engines and policies and of the code that sums a chunk
(``code_hash``), game, the rule options and card table (the cell's rules
hash), seats, players, seating design and arrangements, base seed, games per cell, cell index
and grid values.

Files are written through ``boardsim.safe_io`` (a temporary file of this
process, then a rename that never follows a link), and the sweep holds the
output folder's lock, so the only temporary files a run removes are its own
or those of a run that died.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from boardsim import numba_cache, rng, safe_io
from boardsim.aggregate import Aggregate
from boardsim.cell import Cell, deal_count
from boardsim.games.base import stable_hash

FORMAT = 2  # 2: deal-level and per-arrangement sums
_META = ("meta.format", "meta.digest", "meta.base_seed", "meta.cell", "meta.cell_key", "meta.start",
         "meta.count", "meta.checksum")


@functools.cache
def code_hash() -> str:
    """The jitted sources loaded in this process (``numba_cache``: engines, policies, card data, rng) and
    the Python code that plays and sums a chunk: an edit to any of them makes saved chunks stale."""
    h = hashlib.sha256(numba_cache.loaded_source_hash().encode())
    for name in ("cell.py", "aggregate.py", "runner.py", "stats/intervals.py", "chunks.py"):
        h.update((numba_cache.PACKAGE / name).read_bytes())
    return h.hexdigest()[:16]


def cell_facts(cell: Cell, base_seed: int, n_games: int) -> dict[str, Any]:
    """Everything a cell's chunk results depend on (hashed into the chunk files)."""
    from boardsim.version import __version__

    return {
        "format": FORMAT,
        "boardsim": __version__,
        "code": code_hash(),
        "game": cell.game.name,
        "rules_and_cards": cell.rules_hash,
        "players": cell.n_players,
        "seats": [s.label() for s in cell.seats],
        "seating": cell.seating,
        "arrangements": [list(a) for a in cell.arrangements],
        "seed": base_seed,
        "deals": deal_count(n_games, cell),
        "cell": cell.index,
        "grid": {k: cell.values[k] for k in sorted(cell.values)},
    }


def checksum(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == "meta.checksum":
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


class CellChunks:
    """The chunk files of one cell: load what is there and valid, save what gets played."""

    def __init__(self, folder: Path, cell: Cell, base_seed: int, n_games: int):
        self.folder = folder
        self.cell = cell
        self.base_seed = base_seed
        self.key = rng.cell_key(base_seed, cell.index)
        facts = cell_facts(cell, base_seed, n_games)
        self.digest = stable_hash(facts)
        self.loaded = 0
        self.games_loaded = 0  # games in loaded chunks: a resumed run's speed counts only what it played
        self.rejected = 0
        self.saved = 0
        safe_io.real_dir(folder.parent)
        safe_io.real_dir(folder)  # a link here is replaced, never followed
        safe_io.remove_stale_temps(folder)  # left by a run killed mid-write
        safe_io.write_text(folder / "cell.json", json.dumps({"digest": self.digest, **facts}, indent=1, default=str))

    def path(self, start: int, count: int) -> Path:
        return self.folder / f"deals-{start:09d}-{start + count - 1:09d}.npz"

    def load(self, start: int, count: int) -> Aggregate | None:
        """The saved aggregate of deals ``start..start+count-1``, or None to play them."""
        path = self.path(start, count)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {name: z[name] for name in z.files}
            ok = (
                all(k in arrays for k in _META)
                and int(arrays["meta.format"]) == FORMAT
                and str(arrays["meta.digest"]) == self.digest
                and int(arrays["meta.start"]) == start
                and int(arrays["meta.count"]) == count
                and str(arrays["meta.checksum"]) == checksum(arrays)
            )
            agg = Aggregate.from_arrays(arrays) if ok else None
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
            agg = None
        if agg is None or agg.games != count * len(self.cell.prepared):
            self.rejected += 1
            return None
        self.loaded += 1
        self.games_loaded += agg.games
        return agg

    def save(self, start: int, count: int, agg: Aggregate) -> None:
        arrays = agg.to_arrays()
        arrays.update({
            "meta.format": np.int64(FORMAT),
            "meta.digest": np.array(self.digest),
            "meta.base_seed": np.int64(self.base_seed),
            "meta.cell": np.int64(self.cell.index),
            "meta.cell_key": np.uint64(self.key),
            "meta.start": np.int64(start),
            "meta.count": np.int64(count),
        })
        arrays["meta.checksum"] = np.array(checksum(arrays))
        # atomic: a file with the final name is always whole
        safe_io.write_with(self.path(start, count), lambda f: np.savez_compressed(f, **arrays), sync=True)
        self.saved += 1


class ChunkStore:
    """``<out>/chunks/``: one folder per cell.  ``fresh`` deletes what an earlier run left."""

    def __init__(self, root: str | Path, fresh: bool = False):
        self.root = Path(root)
        if fresh and self.root.is_symlink():
            self.root.unlink()  # the link only, never what it points to
        elif fresh and self.root.exists():
            shutil.rmtree(self.root)  # does not follow links inside
        self.cells: list[CellChunks] = []

    def cell(self, cell: Cell, base_seed: int, n_games: int) -> CellChunks:
        chunks = CellChunks(self.root / f"cell-{cell.index:04d}", cell, base_seed, n_games)
        self.cells.append(chunks)
        return chunks

    @property
    def loaded(self) -> int:
        return sum(c.loaded for c in self.cells)

    @property
    def games_loaded(self) -> int:
        return sum(c.games_loaded for c in self.cells)

    @property
    def rejected(self) -> int:
        return sum(c.rejected for c in self.cells)

    @property
    def saved(self) -> int:
        return sum(c.saved for c in self.cells)
