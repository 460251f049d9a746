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

from boardsim import __version__
from boardsim.chunks import ChunkStore
from boardsim.errors import BadInput
from boardsim.executors import Executor, open_executor
from boardsim.report import tables
from boardsim.report.build import build_report
from boardsim.runner import deal_count, numba_threads, run_cell
from boardsim.scenario import Scenario, load_scenario


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
) -> SweepResult:
    """Run every cell of ``scenario`` and write CSV, PNG and index.html into ``out``.

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
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise BadInput("--games", f"got {games!r}; allowed: a positive integer")
        sc = replace(sc, games=games)
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise BadInput("--seed", f"got {seed!r}; allowed: an integer >= 0")
        sc = replace(sc, seed=seed)
    out_dir = Path(out) if out is not None else Path("reports") / sc.name
    cells = sc.cells()
    out_dir.mkdir(parents=True, exist_ok=True)
    summaries, positions, scores, rounds, seatings = [], [], [], [], []
    warnings = _warnings(sc, cells)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    balance: dict[str, list[pd.DataFrame]] = {}
    t0 = time.perf_counter()
    result = SweepResult(sc, out_dir, pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), 0, len(cells), 0.0,
                         warnings=warnings)
    interrupted = False
    store = ChunkStore(out_dir / "chunks", fresh=fresh)
    try:
        with numba_threads(threads), open_executor(executor, workers, scheduler, scheduler_file, threads) as ex:
            result.executor = ex.describe() if ex is not None else Executor().describe()
            for cell in cells:
                agg = cell.new_aggregate()
                label = f"cell {cell.index + 1}/{len(cells)} {tables.cell_label(cell)}"
                run_cell(cell, sc.seed, sc.games, agg.add, sc.chunk_size, progress, label,
                         executor=ex, store=store.cell(cell, sc.seed, sc.games), reduce=True)
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
            write_tournament(run_scenario_tournament(sc, threads, progress), out_dir)
    except KeyboardInterrupt:
        interrupted = True
    result.seconds = time.perf_counter() - t0
    if result.cells_done:
        _write_report(result, cells, threads)
    if interrupted:
        raise KeyboardInterrupt(result)
    return result


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
    result.summary.to_csv(d / "summary.csv", index=False)
    result.positions.to_csv(d / "positions.csv", index=False)
    result.scores.to_csv(d / "scores.csv", index=False)
    tables.concat(rounds).to_csv(d / "rounds.csv", index=False)
    tables.concat(seatings).to_csv(d / "seatings.csv", index=False)
    for name, frame in result.balance.items():
        frame.to_csv(d / f"balance_{name}.csv", index=False)


def run_scenario_tournament(sc: Scenario, threads: int | None, progress: bool | None):
    from boardsim.analysis.tournament import run_tournament

    t = sc.tournament
    return run_tournament(sc.game, t["policies"], players=t["players"], games=t["games"], seed=sc.seed,
                          mode=t["mode"], field=t["field"], rules=sc.rules, cards=sc.cards, threads=threads,
                          progress=progress, seating=t.get("seating", "all"))


def write_tournament(result, out_dir: Path) -> None:
    """The tournament's tidy tables; build_report draws the heat map and ratings from them."""
    result.pairwise.to_csv(out_dir / "tournament_pairwise.csv", index=False)
    result.ratings.to_csv(out_dir / "tournament_ratings.csv", index=False)
    result.matches.to_csv(out_dir / "tournament_matches.csv", index=False)
    result.cycles.to_csv(out_dir / "tournament_cycles.csv", index=False)


def provenance(result: SweepResult, cells, threads) -> dict:
    sc = result.scenario
    done = cells[: result.cells_done]
    return {
        "boardsim version": __version__,
        "game": sc.game.name,
        "scenario": _shown_path(sc.path) if sc.path else sc.name,
        "seed": sc.seed,
        "games per cell": sum(deal_count(sc.games, c) * len(c.rotations) for c in done[:1]),
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


def _write_report(result: SweepResult, cells, threads) -> None:
    sc = result.scenario
    meta = {"title": sc.title, "description": sc.description, "warnings": result.warnings,
            "provenance": provenance(result, cells, threads)}
    (result.out_dir / "run.json").write_text(json.dumps(meta, indent=2, default=str))
    result.files = build_report(result.out_dir)
