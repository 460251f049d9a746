"""Sweeps: every cell of a scenario's grid, aggregated as it streams, written as it finishes."""

from __future__ import annotations

import datetime as _dt
import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numba
import pandas as pd

from boardsim import cost, safe_io
from boardsim.cell import MAX_GAMES, deal_count
from boardsim.chunks import ChunkStore
from boardsim.errors import BadInput, BadParameter
from boardsim.executors import Executor, open_executor
from boardsim.folders import check_folder_owner, check_writable, clear_report, make_folder, output_folder, write_error
from boardsim.games.base import stable_hash
from boardsim.replays import sweep_replays
from boardsim.report import tables
from boardsim.report.build import build_report
from boardsim.rng import MAX_SEED
from boardsim.runner import numba_threads, run_cell, warm_up
from boardsim.scenario import Scenario, load_scenario
from boardsim.tournaments import MatchStore, run_scenario_tournament, write_tournament
from boardsim.version import __version__


@dataclass
class SweepResult:
    """What a sweep produced: tidy tables and where they were written."""

    scenario: Scenario
    out_dir: Path
    summary: pd.DataFrame
    positions: pd.DataFrame
    scores: pd.DataFrame
    cells_done: int
    cells_total: int
    seconds: float
    files: list[str] = field(default_factory=list)
    balance: dict[str, pd.DataFrame] = field(default_factory=dict)
    executor: str = "local"
    chunks_reused: int = 0  # chunks loaded from <out>/chunks/ instead of played (a resumed run)
    chunks_played: int = 0
    warnings: list[str] = field(default_factory=list)  # seat-list coverage problems, also in the report
    compile_seconds: float = 0.0  # compiling (or loading) the engine before play
    play_seconds: float = 0.0
    report_seconds: float = 0.0
    games_played: int = 0  # games played by this run (not loaded from saved chunks)

    @property
    def games(self) -> int:
        """Games behind the finished cells' results, played now or loaded."""
        return int(self.summary.groupby("cell")["games"].first().sum()) if not self.summary.empty else 0

    @property
    def complete(self) -> bool:
        return self.cells_done == self.cells_total


def sweep(
    scenario: Scenario | str | Path,
    out: str | Path | None = None,
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    executor: str | Executor | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    fresh: bool = False,
    force: bool = False,
) -> SweepResult:
    """Run every cell of ``scenario`` and write CSV, PNG and index.html into ``out``.

    A folder holding another scenario's results (``run.json`` records a hash of the scenario) is
    refused with BadInput unless ``force``, which first removes the old report files and saved chunks.
    A rerun of the same scenario removes its earlier tables and charts first, so the report never
    mixes runs.

    ``out`` defaults to ``reports/<scenario name>/``.  Files are rewritten
    after every finished cell, so an interrupted sweep (Ctrl-C) keeps the
    cells it finished; the KeyboardInterrupt is re-raised after that.

    Every finished chunk is also saved under ``<out>/chunks/``; running the
    same sweep again reuses the chunks that match (a resumed run gives the
    same files as an uninterrupted one) unless ``fresh``.  ``executor``:
    ``local`` (default), ``processes`` (``workers``) or ``dask``
    (``scheduler`` address or Client, ``scheduler_file``, or ``workers`` for
    a local cluster); results do not depend on it.
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if games is not None:
        if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
            raise BadParameter("games", f"got {games!r}; allowed: an integer in [1, {MAX_GAMES}]")
        sc = replace(sc, games=games)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise BadParameter("seed", f"got {seed!r}; allowed: an integer in [0, {MAX_SEED}]")
        sc = replace(sc, seed=seed)
    # everything is checked before the output folder is touched: a rejected run creates, deletes and
    # overwrites nothing (and --fresh deletes saved chunks only once the run is sure to start)
    out_dir = output_folder(out, Path("reports") / sc.name)
    owner = scenario_id(sc)
    check_folder_owner(out_dir, owner, force)
    cells = sc.cells()
    summaries, positions, scores, rounds, seatings = [], [], [], [], []
    warnings = _warnings(sc, cells)
    balance: dict[str, list[pd.DataFrame]] = {}
    result = SweepResult(sc, out_dir, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), 0, len(cells), 0.0,
                         warnings=warnings)
    interrupted = False
    with numba_threads(threads), open_executor(executor, workers, scheduler, scheduler_file, threads) as ex:
        result.executor = ex.describe() if ex is not None else Executor().describe()
        check_writable(out_dir)
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
        t0 = time.perf_counter()
        try:
            make_folder(out_dir)
            with safe_io.FolderLock(out_dir):
                clear_report(out_dir)
                _write_meta(result, cells, threads, owner)  # owns the folder from the start
                store = ChunkStore(out_dir / "chunks", fresh=fresh or force)  # --force drops the old chunks
                announce = None if progress is False else (lambda text: print(text, file=sys.stderr))
                result.compile_seconds = warm_up(cells[0], announce)
                if announce is not None and any(c.cost > 1.0 for c in cells):  # search seats: the cost up front
                    t_cal = time.perf_counter()
                    seconds = sum(cost.cell_seconds_per_game(c) for c in cells) * sc.games
                    cost.announce(seconds, time.perf_counter() - t_cal, f"{sc.name}: {len(cells)} cells")
                try:
                    for cell in cells:
                        # a search cell compiles its own engine variant: timed as compile, announced as such
                        result.compile_seconds += warm_up(cell, announce)
                        t_cell = time.perf_counter()
                        agg = cell.new_aggregate()
                        label = f"cell {cell.index + 1}/{len(cells)} {tables.cell_label(cell)}"
                        run_cell(cell, sc.seed, sc.games, agg.add, sc.chunk_size, progress, label,
                                 executor=ex, store=store.cell(cell, sc.seed, sc.games), reduce=True)
                        result.play_seconds += time.perf_counter() - t_cell
                        result.chunks_reused, result.chunks_played = store.loaded, store.saved
                        summaries.append(tables.summary_rows(sc.name, cell, agg))
                        positions.append(tables.position_rows(sc.name, cell, agg))
                        scores.append(tables.score_rows(cell, agg))
                        rounds.append(tables.rounds_rows(cell, agg))
                        seatings.append(tables.seating_rows(sc.name, cell, agg))
                        for name, frame in tables.balance_rows(cell, agg).items():
                            balance.setdefault(name, []).append(frame)
                        result.cells_done += 1
                        _write_tables(result, summaries, positions, scores, rounds, seatings, balance, t0)
                    if sc.tournament is not None:
                        matches = MatchStore(out_dir / "chunks" / "tournament", fresh=fresh or force)
                        write_tournament(run_scenario_tournament(sc, threads, progress, matches), out_dir)
                except KeyboardInterrupt:
                    interrupted = True
                except OverflowError as e:
                    raise BadInput("games", f"{e}; play fewer games per cell or use smaller card values",
                                   sc.path) from None
                if sc.replays and result.cells_done and not interrupted:  # after the cells: a replay replays them
                    for w in sweep_replays(cells[0], sc.seed, sc.games, sc.replays, out_dir):
                        result.warnings.append(w)
                        print(f"warning: {w}", file=sys.stderr)
                result.games_played = result.games - store.games_loaded
                t_report = time.perf_counter()
                if result.cells_done:
                    _write_report(result, cells, threads, owner)
                result.report_seconds = time.perf_counter() - t_report
                result.seconds = time.perf_counter() - t0
        except OSError as e:  # a full or read-only disk, or a folder where a file belongs
            raise write_error(e, out_dir) from None
    if interrupted:
        raise KeyboardInterrupt(result)
    return result


def scenario_hash(sc: Scenario) -> str:
    """A hash of the scenario's content (the parsed TOML and the game), recorded in run.json."""
    return stable_hash(sc.game.name, dict(sc.raw))


def scenario_id(sc: Scenario) -> str:
    """Which scenario owns a folder: its game and name.  An edited version of the same scenario may
    write into its own folder (its saved chunks check every number they depend on, and the old report
    files are removed first); another scenario may not."""
    return stable_hash(sc.game.name, sc.name)


def _warnings(sc: Scenario, cells) -> list[str]:
    """Coverage warnings of the seat list, once per distinct message (a players grid gives one per count)."""
    out: list[str] = []
    for cell in cells:
        for w in cell.warnings():
            if w not in out:
                out.append(w)
    return out


def _write_tables(result: SweepResult, summaries, positions, scores, rounds, seatings, balance, t0) -> None:
    result.summary = tables.concat(summaries)
    result.positions = tables.concat(positions)
    result.scores = tables.concat(scores)
    result.balance = {name: tables.concat(frames) for name, frames in balance.items()}
    result.seconds = time.perf_counter() - t0
    d = result.out_dir
    # each through a temporary file and a rename: a reader never sees half a table, a link is not followed
    safe_io.write_csv(result.summary, d / "summary.csv")
    safe_io.write_csv(result.positions, d / "positions.csv")
    safe_io.write_csv(result.scores, d / "scores.csv")
    safe_io.write_csv(tables.concat(rounds), d / "rounds.csv")
    safe_io.write_csv(tables.concat(seatings), d / "seatings.csv")
    for name, frame in result.balance.items():
        safe_io.write_csv(frame, d / f"balance_{name}.csv")


def provenance(result: SweepResult, cells, threads) -> dict:
    sc = result.scenario
    done = cells[: result.cells_done]
    return {
        "boardsim version": __version__,
        "game": sc.game.name,
        "scenario": _shown_path(sc.path) if sc.path else sc.name,
        "seed": sc.seed,
        "games per cell": sum(deal_count(sc.games, c) * len(c.prepared) for c in done[:1]),
        "deals per cell": sum(deal_count(sc.games, c) for c in done[:1]),
        "cells": f"{result.cells_done} of {result.cells_total}",
        "seating": _seating_text(sc.seating, done),
        "rules and cards hash": ", ".join(sorted({c.rules_hash for c in done})),
        "threads": threads or numba.get_num_threads(),
        "executor": result.executor,
        "chunks reused": f"{result.chunks_reused} (from an earlier run), {result.chunks_played} played",
        "seconds": round(result.seconds, 2),
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def _shown_path(path: str) -> str:
    """The scenario path relative to the working directory (or its file name): never an absolute path of
    the machine that ran it, which would leak into shared reports."""
    p = Path(path).resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.name


def _seating_text(design: str, cells) -> str:
    counts = sorted({len(c.arrangements) for c in cells})
    n = "/".join(str(k) for k in counts)
    return {"all": f"all: every deal in each of its {n} distinct seat arrangements (paired)",
            "cyclic": f"cyclic: every deal in each of {n} rotations of the listed order (paired)",
            "fixed": "fixed: the listed order only"}[design]


def _write_meta(result: SweepResult, cells, threads, owner_id: str) -> None:
    sc = result.scenario
    meta = {"title": sc.title, "description": sc.description, "scenario id": owner_id,
            "scenario hash": scenario_hash(sc),
            "warnings": result.warnings, "provenance": provenance(result, cells, threads)}
    safe_io.write_text(result.out_dir / "run.json", json.dumps(meta, indent=2, default=str))


def _write_report(result: SweepResult, cells, threads, owner_id: str) -> None:
    _write_meta(result, cells, threads, owner_id)
    result.files = build_report(result.out_dir)
