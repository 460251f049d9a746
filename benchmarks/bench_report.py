"""Time to draw a report: ``build_report`` on the folder of a typical scenario (target: at most 2 s).

Run:  python benchmarks/bench_report.py [--scenario scenarios/quickstart.toml ...] [--games N] [--repeats R]

Each scenario is swept once with few games into a temporary folder (the tables, not the play, are what
the report reads), then its report (every chart and index.html) is drawn ``--repeats`` times.  Prints
the best wall-clock and CPU seconds per scenario; CPU seconds are the per-core cost even when other
processes share the machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from boardsim.report.build import build_report
from boardsim.sweeps import sweep

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 2.0
DEFAULT = ["scenarios/quickstart.toml", "scenarios/wagons-goals.toml", "scenarios/fliptoons-heuristics.toml"]


def time_report(folder: Path, repeats: int) -> tuple[float, float, int]:
    """Best wall and CPU seconds of ``build_report(folder)`` over ``repeats`` runs, and the charts drawn."""
    best_wall = best_cpu = float("inf")
    charts = 0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        files = build_report(folder)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
        charts = sum(f.endswith(".png") for f in files)
    return best_wall, best_cpu, charts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", help="scenario file (repeatable); default: three bundled ones")
    ap.add_argument("--games", type=int, default=2000, help="games per cell of the sweep that makes the tables")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{'scenario':40s} {'cells':>5s} {'charts':>6s} {'wall s':>7s} {'cpu s':>6s}  target {TARGET_S:.0f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for k, path in enumerate(args.scenario or DEFAULT):
            out = Path(tmp) / str(k)
            result = sweep(ROOT / path if not Path(path).is_absolute() else path, out=out, games=args.games,
                           progress=False)
            build_report(out)  # warm: fonts and the game's modules load once per process, as in a sweep
            wall, cpu, charts = time_report(out, args.repeats)
            mark = "ok" if wall <= TARGET_S else "over"
            print(f"{Path(path).stem:40s} {result.cells_done:5d} {charts:6d} {wall:7.2f} {cpu:6.2f}  {mark}")


if __name__ == "__main__":
    main()
