"""Dask scaling, and where the CPU goes: 2 local workers of 1 thread against 1 worker of 1 thread.

Run:  python benchmarks/bench_dask.py [--seconds S] [--parts N] [--game NAME ...]

For each game (default players and policy, as ``run_all.py``), the same number of deals is played
through the sweep's streamed path on a 1-worker and on a 2-worker ``LocalCluster`` (one cluster at a
time, in turn, twice; the best of each is kept), split into tasks as a sweep splits a cell
(``runner.chunk_deals``: at least 16 when the batch is big enough); ``--parts N`` caps a task at 1/N of
the batch (the sweep's rule may still split it further).
The batch is sized so that one worker takes about ``--seconds``.  During each run it reads the CPU time
of every process involved:

- ``workers``: the worker processes, which play the games;
- ``nannies``: the processes that watch them;
- ``client``: this process, which runs the scheduler and the client and merges the chunks' sums.

``scaling`` is the 2-worker rate over the 1-worker rate.  On a machine with as many cores as workers the
client's and nannies' CPU comes out of the workers' share: ``cores left`` (cores less their average
use during the 2-worker run) is the most that two workers can scale to there.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's boardsim, not an installed one

from run_all import bench_cell, streamed  # noqa: E402


def _cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _roles(executor) -> dict[str, list[psutil.Process]]:
    """This process, and the executor's workers and their nannies (each worker's parent)."""
    workers = [psutil.Process(pid) for pid in executor.client.run(os.getpid).values()]
    nannies = [p.parent() for p in workers if p.parent() is not None and p.parent().pid != os.getpid()]
    return {"client": [psutil.Process()], "nannies": nannies, "workers": workers}


def timed(cell, n: int, seed: int, parts: int, executor) -> dict[str, float]:
    roles = _roles(executor)
    before = {k: _cpu(v) for k, v in roles.items()}
    t0 = time.perf_counter()
    streamed(cell, n, seed, max(1, -(-n // parts)) if parts else 50_000, executor)
    wall = time.perf_counter() - t0
    out = {"wall": wall, "rate": n / wall}
    for k, v in roles.items():
        out[k] = (_cpu(v) - before[k]) / wall  # cores used on average
    return out


def bench(name: str, seconds: float, parts: int) -> None:
    from boardsim.executors import DaskExecutor

    cell = bench_cell(name)
    n, seed = 64, 5000
    with DaskExecutor(local_workers=1, threads=1) as one:  # grow the batch until one worker takes `seconds`
        one.warm(cell)
        while True:
            seed += 1
            took = timed(cell, n, seed, parts, one)["wall"]
            if took >= seconds / 2:
                n = max(n, int(n * seconds / took))
                break
            n *= 4 if took < seconds / 8 else 2
    runs: dict[str, dict[str, float]] = {}
    for turn in range(2):
        for workers in (1, 2):
            # one cluster at a time: an idle one would still take some CPU
            with DaskExecutor(local_workers=workers, threads=1) as ex:
                ex.warm(cell)
                r = timed(cell, n, seed + 1 + turn, parts, ex)
            if workers not in runs or r["rate"] > runs[workers]["rate"]:
                runs[workers] = r
    for workers, r in runs.items():
        print(f"{name:<10} {workers} worker(s) {n:>10,} deals {r['rate']:>12,.0f} games/s   cores used: workers "
              f"{r['workers']:.2f}  nannies {r['nannies']:.2f}  client+scheduler {r['client']:.2f}")
    cores = os.cpu_count() or 1
    left = cores - runs[2]["nannies"] - runs[2]["client"]
    print(f"{name:<10} scaling {runs[2]['rate'] / runs[1]['rate']:.2f}   cores left for the workers "
          f"{min(2.0, left):.2f} of {cores}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="about how long one worker takes per run")
    ap.add_argument("--parts", type=int, default=0,
                    help="cap a task at 1/N of the batch (default: the sweep's own split)")
    ap.add_argument("--game", action="append", help="only this game (repeatable)")
    args = ap.parse_args()
    from boardsim.games import names

    for name in args.game or names():
        bench(name, args.seconds, args.parts)


if __name__ == "__main__":
    main()
