"""How long a balance patch takes, and at what speed it plays: issue 27's FlipToons target (2-4 players, default
base, at most 5 edits, at most 30 minutes on 2 cores) and the other games' defaults.

Run:  python benchmarks/bench_patch.py [--games fliptoons,art_deco,wagons] [--per-test N] [--out FILE]

Each game's patch runs in a fresh process (``python -m boardsim patch``, a new output folder, ``--fresh``), so
the figures include the compile and the report.  For each: wall seconds, CPU seconds, peak RSS of the process,
games played and games per CPU second, the patch and its verified objective before and after.  Prints the table
and the yardstick before and after, and writes ``benchmarks/patch.csv``.  It is a benchmark, not a test:
FlipToons at 2-4 players takes about 7 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from timing import yardstick

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# game -> its command-line arguments: FlipToons is the target; the others use their defaults
RUNS = {"fliptoons": ["--players", "2,3,4"], "art_deco": ["--players", "2,3,4"], "wagons": []}


def run(game: str, extra: list[str], per_test: int | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-patch-") as tmp:
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "boardsim", "patch", game, *extra, "--out", str(out), "--fresh", "--quiet"]
        if per_test is not None:
            cmd += ["--games", str(per_test)]
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak RSS
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{game}: exit {os.waitstatus_to_exitcode(status)}: {err.strip()}")
        prov = json.loads((out / "run.json").read_text())["provenance"]
        objective = pd.read_csv(out / "patch_objective.csv")
    cpu = usage.ru_utime + usage.ru_stime
    whole = objective[objective["base"] == "all"].set_index("table")
    return {"game": game, "args": " ".join(extra), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "games_played": prov["games played"],
            "games_per_cpu_s": round(prov["games played"] / cpu) if cpu > 0 else None, "patch": prov["patch"],
            "today": round(float(whole.loc["today", "objective"]), 4),
            "patched": round(float(whole.loc["patched", "objective"]), 4),
            "confirmed": bool(whole.loc["patched", "confirmed"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(RUNS), help="games, comma-separated")
    ap.add_argument("--per-test", type=int, help="--games of each patch (default: the command's own)")
    ap.add_argument("--out", default=str(HERE / "patch.csv"))
    args = ap.parse_args()
    print(yardstick())
    rows = []
    for game in args.games.split(","):
        rows.append(run(game, RUNS[game], args.per_test))
        print(rows[-1], flush=True)
    print(yardstick())
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
