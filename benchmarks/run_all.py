"""Speed, start-up and memory of every registered game; writes benchmarks/results.csv.

Run:  python benchmarks/run_all.py [--seconds S] [--dask-seconds S] [--game NAME ...] [--no-dask] [--no-nojit]
                                   [--no-mcts] [--out FILE]

For each game in ``boardsim.games.names()`` (default players, every seat the
game's ``default_policy``, seats fixed), through the same streamed path a
sweep uses (``run_cell`` into an ``Aggregate``, without chunk files):

- games/s on 1 Numba thread and on all threads (this process, warm cache);
- games/s on a 2-worker Dask LocalCluster (loopback; each worker
  ``cores // 2`` threads; cluster start-up and warm-up not counted), and on a
  1-worker cluster of 1 thread: ``dask_scaling`` is the first over the second, the median of 3
  pairs of runs on the same games (runs of about ``--dask-seconds`` / 3, default 8, split into tasks as a
  sweep splits a cell;
  ``bench_dask.py`` shows where the CPU goes);
- the speed-up of the compiled code over the same code with
  ``NUMBA_DISABLE_JIT=1`` (a subprocess, a small batch), as a ratio of the
  1-thread rates;
- ``simulate()`` and the sweep's streamed path as shares of the engine alone on 1 thread
  (``simulate_over_engine``, ``sweep_over_engine``; the engine alone is the kernel in calls of
  ``max_chunk_deals`` with its results thrown away): the median of 7 pairs, each timing both on the
  same games one after the other (``paired_ratio``);
- cold start: wall time (and CPU time, ``cold_start_cpu_s``: on a busy machine
  the wall time waits for the other work) of a fresh process that starts Python,
  imports boardsim and plays 8 games with an empty Numba cache
  (``NUMBA_CACHE_DIR`` a new temporary folder), i.e. the engine's cold compile;
  warm start: the same again with that cache filled;
- peak memory (max RSS) of a fresh process streaming about ``--seconds``
  worth of games in the default chunk size;
- the search player's speed: its playout policy's bare rollouts and its iterations (budget
  ``MCTS_BUDGET``) per CPU-second of the deciding thread (``time.thread_time``), from the game's
  ``mcts.probe`` over its real positions.  A search player's strength per second is set by these.

Each rate is timed on a batch grown until one run takes about ``--seconds``
(default 2).  The default run takes a few minutes on 2 cores; raise
``--seconds`` for steadier figures.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = ["game", "players", "policy", "cores", "games_per_s_1_thread", "games_per_s_all_threads",
           "games_per_s_dask_2_workers", "games_per_s_dask_1_worker", "dask_scaling", "jit_speedup",
           "games_per_s_no_jit", "cold_start_s", "cold_start_cpu_s", "warm_start_s",
           "mcts_rollouts_per_cpu_s", "mcts_iterations_per_cpu_s",
           "peak_rss_mb", "games_per_s_engine_1_thread", "simulate_over_engine", "sweep_over_engine", "boardsim",
           "date"]


def own_peak_mb() -> float:
    """This process's own peak resident memory (VmHWM). ru_maxrss would include the parent's when
    the parent was bigger at fork time: Linux carries it across fork and exec."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_cell(name: str):
    from boardsim.games import get
    from boardsim.games.base import Seat
    from boardsim.runner import make_cell

    game = get(name)
    return make_cell(game, game.default_players, [Seat(game.default_policy)], {}, game.card_table(),
                     seating_design="fixed")


def streamed(cell, n_deals: int, start_seed: int, chunk: int, executor=None) -> None:
    """Play ``n_deals`` the way a sweep does: chunks folded into one Aggregate."""
    from boardsim.runner import run_cell

    agg = cell.new_aggregate()
    run_cell(cell, start_seed, n_deals, agg.add, chunk, progress=False, executor=executor, reduce=True)


def engine_only(cell, n_deals: int, start_seed: int) -> None:
    """The engine alone: the game's kernel in calls of ``max_chunk_deals``, results thrown away."""
    from boardsim import rng

    key = rng.cell_key(start_seed, cell.index)
    step = cell.game.max_chunk_deals
    for first in range(0, n_deals, step):
        cell.game.play(cell.prepared[0], key, first, min(step, n_deals - first))


def simulated(cell, n_deals: int, start_seed: int) -> None:
    """``boardsim.simulate``: the same games returned as a DataFrame."""
    from boardsim.runner import simulate

    simulate(cell.game, n_deals, cell.seats, seed=start_seed, players=cell.n_players, seating="fixed",
             progress=False)


def rate(cell, seconds: float, executor=None, parts: int = 1, first: int = 8, play=None) -> float:
    """Games per second on a batch grown (x4) until one run takes about ``seconds``; ``play(cell, n, seed)``
    replaces the sweep's streamed path (``engine_only``, ``simulated``)."""
    n, seed = first, 1000
    while True:
        seed += 1
        chunk = max(1, -(-n // parts)) if parts > 1 else 50_000
        t0 = time.perf_counter()
        if play is None:
            streamed(cell, n, seed, chunk, executor)
        else:
            play(cell, n, seed)
        took = time.perf_counter() - t0
        if took >= seconds / 3 or n >= 50_000_000:
            return n / took
        n *= 4 if took < seconds / 12 else 2


def on(executor=None):
    """The sweep's streamed path in its default chunks (``rate``'s measure without a ``play``), in this
    process or through ``executor``, as a ``play(cell, n, seed)`` for ``paired_ratio``."""
    def play(cell, n_deals: int, start_seed: int) -> None:
        streamed(cell, n_deals, start_seed, 50_000, executor)
    return play


def dask_batch(cell, games_per_s: float, seconds: float) -> int:
    """About ``seconds / 3`` of games at ``games_per_s``, made up to a batch that a sweep splits into an even
    number of equal tasks (``runner.chunk_deals``): 2 workers then get the same work, as in a long sweep."""
    import math

    from boardsim.runner import DEFAULT_CHUNK, TASKS_PER_CELL

    per = max(cell.game.min_task_games, math.ceil(batch_for(games_per_s, seconds) / TASKS_PER_CELL))
    if per <= DEFAULT_CHUNK:
        return TASKS_PER_CELL * per
    return 2 * DEFAULT_CHUNK * math.ceil(TASKS_PER_CELL * per / (2 * DEFAULT_CHUNK))  # chunks of DEFAULT_CHUNK


def batch_for(games_per_s: float, seconds: float) -> int:
    """A batch of about ``seconds / 3`` at ``games_per_s`` (at least 1,000 games)."""
    return max(1_000, int(games_per_s * seconds / 3))


def paired_ratio(cell, n_deals: int, play, base, pairs: int = 7) -> float:
    """The median over ``pairs`` of play's speed over base's, each pair timing both (wall time, as every
    rate here) on the same ``n_deals`` games one after the other, in alternating order.  Two rates taken
    minutes apart moved with the machine (an Art Deco engine read 365,000 and 561,000 games/s in two
    runs); a pair's ratio moves far less."""
    import statistics

    ratios = []
    for k in range(pairs):
        took = []
        for f in ((play, base) if k % 2 == 0 else (base, play)):
            t0 = time.perf_counter()
            f(cell, n_deals, 2000 + k)
            took.append(time.perf_counter() - t0)
        if k % 2:
            took.reverse()
        ratios.append(took[1] / took[0])
    return statistics.median(ratios)


# -- subprocess probes --------------------------------------------------------
def probe(args) -> None:
    """Runs in a child process; prints one JSON line."""
    t0 = time.perf_counter()
    cell = bench_cell(args.probe)
    first = 1 if os.environ.get("NUMBA_DISABLE_JIT") == "1" else 8  # interpreted games are slow
    streamed(cell, first, 1, 50_000)
    started = time.perf_counter() - t0
    out = {"start_s": started}
    if args.probe_seconds > 0:
        out["games_per_s"] = rate(cell, args.probe_seconds, first=first)
    out["peak_rss_mb"] = own_peak_mb()
    out["after_start_s"] = time.perf_counter() - t0 - started  # the parent subtracts it from the wall time
    print(json.dumps(out))


def run_probe(game: str, env_extra: dict[str, str], seconds: float) -> tuple[dict, float]:
    """The probe's JSON line and its wall seconds; its CPU seconds (user + system) are under "cpu_s"."""
    import resource

    env = {**os.environ, **env_extra}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--probe", game, "--probe-seconds", str(seconds)],
                          env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"probe {game} {env_extra} failed:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall


# -- the suite ----------------------------------------------------------------
def bench_game(name: str, seconds: float, dask_ex, nojit: bool, dask_one=None, dask_seconds: float = 8.0,
               mcts: bool = True) -> dict:
    import numba

    import boardsim
    from boardsim.games import get

    game = get(name)
    cell = bench_cell(name)
    row = {"game": name, "players": cell.n_players, "policy": game.default_policy, "cores": os.cpu_count(),
           "boardsim": boardsim.__version__, "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    streamed(cell, 8, 1, 50_000)  # compile or load the kernels first
    all_threads = numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(1)
    row["games_per_s_1_thread"] = rate(cell, seconds)
    # simulate's frame and the sweep's streamed sums against the engine alone, on the same one thread
    row["games_per_s_engine_1_thread"] = rate(cell, seconds, play=engine_only)
    n = batch_for(row["games_per_s_engine_1_thread"], seconds)
    row["simulate_over_engine"] = paired_ratio(cell, n, simulated, engine_only)
    row["sweep_over_engine"] = paired_ratio(cell, n, on(), engine_only)
    numba.set_num_threads(all_threads)
    row["games_per_s_all_threads"] = rate(cell, seconds)
    if dask_ex is not None:
        dask_ex.warm(cell)
        row["games_per_s_dask_2_workers"] = rate(cell, dask_seconds, executor=dask_ex, first=64)
    if dask_one is not None:
        dask_one.warm(cell)
        row["games_per_s_dask_1_worker"] = rate(cell, dask_seconds, executor=dask_one, first=64)
        if row.get("games_per_s_dask_2_workers"):
            # as paired_ratio: both clusters on the same games, one run after the other, 3 pairs
            n = dask_batch(cell, row["games_per_s_dask_2_workers"], dask_seconds)
            row["dask_scaling"] = paired_ratio(cell, n, on(dask_ex), on(dask_one), pairs=3)
    if nojit:
        # the interpreter is far slower: a short look is enough for a ratio
        slow, _ = run_probe(name, {"NUMBA_DISABLE_JIT": "1"}, min(seconds, 3.0))
        row["games_per_s_no_jit"] = slow["games_per_s"]
        row["jit_speedup"] = row["games_per_s_1_thread"] / slow["games_per_s"]
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        cold, row["cold_start_s"] = run_probe(name, {"NUMBA_CACHE_DIR": cache}, 0)
        row["cold_start_cpu_s"] = cold["cpu_s"]
        warm, wall = run_probe(name, {"NUMBA_CACHE_DIR": cache}, seconds)
    row["warm_start_s"] = wall - warm["after_start_s"]
    row["peak_rss_mb"] = warm["peak_rss_mb"]
    if mcts:
        row.update(mcts_speed(name))
    return row


MCTS_BUDGET = 200


def mcts_speed(name: str) -> dict[str, float]:
    """Rollouts and search iterations per CPU-second of the deciding thread (``mcts.probe`` with
    ``time.thread_time``; its first call compiles the search, which is not timed)."""
    import importlib

    mcts = importlib.import_module(f"boardsim.games.{name}.mcts")
    mcts.probe((2,), positions=1, clock=time.thread_time)  # compile or load outside the timing
    row = mcts.probe((MCTS_BUDGET,), positions=20, clock=time.thread_time).iloc[0]
    return {"mcts_rollouts_per_cpu_s": 1e6 / float(row["rollout_us"]),
            "mcts_iterations_per_cpu_s": 1e6 / float(row["iteration_us"])}


def fmt(value, digits: int = 0) -> str:
    if value is None or value == "":
        return "-"
    return f"{value:,.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="about how long each timed run takes")
    ap.add_argument("--game", action="append", help="only this game (repeatable; default: every registered game)")
    ap.add_argument("--dask-seconds", type=float, default=8.0,
                    help="about how long each Dask run takes (a task's fixed cost dominates short runs)")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster figure")
    ap.add_argument("--no-nojit", action="store_true", help="skip the NUMBA_DISABLE_JIT comparison")
    ap.add_argument("--no-mcts", action="store_true", help="skip the search player's rollouts per CPU-second")
    ap.add_argument("--out", default=str(HERE / "results.csv"), help="CSV to write")
    ap.add_argument("--probe", help=argparse.SUPPRESS)
    ap.add_argument("--probe-seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe:
        probe(args)
        return

    from boardsim.games import names

    games = args.game or names()
    dask_ex = dask_one = None
    if not args.no_dask:
        try:
            from boardsim.executors import DaskExecutor

            dask_ex = DaskExecutor(local_workers=min(2, os.cpu_count() or 1))
            dask_one = DaskExecutor(local_workers=1, threads=1)  # the baseline of the scaling figure
        except Exception as e:  # noqa: BLE001 - the other figures are still worth having
            print(f"no Dask figure: {e}", file=sys.stderr)
    rows = []
    try:
        for name in games:
            t0 = time.perf_counter()
            rows.append(bench_game(name, args.seconds, dask_ex, not args.no_nojit, dask_one, args.dask_seconds,
                                   not args.no_mcts))
            print(f"{name}: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    finally:
        for ex in (dask_ex, dask_one):
            if ex is not None:
                ex.close()
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in COLUMNS})
    head = f"{'game':<10} {'1 thread':>10} {'all thr.':>10} {'dask 2w':>10} {'2w/1w':>6} {'jit x':>6} {'cold s':>7} " \
           f"{'cold cpu':>8} {'warm s':>7} {'peak MB':>8} {'sim/eng':>8} {'swp/eng':>8} {'rollout/s':>10} {'iter/s':>9}"
    print(head)
    for r in rows:
        print(f"{r['game']:<10} {fmt(r['games_per_s_1_thread']):>10} {fmt(r['games_per_s_all_threads']):>10} "
              f"{fmt(r.get('games_per_s_dask_2_workers')):>10} {fmt(r.get('dask_scaling'), 2):>6} "
              f"{fmt(r.get('jit_speedup'), 0):>6} {fmt(r['cold_start_s'], 1):>7} {fmt(r['cold_start_cpu_s'], 1):>8} "
              f"{fmt(r['warm_start_s'], 1):>7} {fmt(r['peak_rss_mb']):>8} "
              f"{fmt(r['simulate_over_engine'], 2):>8} {fmt(r['sweep_over_engine'], 2):>8} "
              f"{fmt(r.get('mcts_rollouts_per_cpu_s')):>10} {fmt(r.get('mcts_iterations_per_cpu_s')):>9}")
    print(f"games/s; {os.cpu_count()} cores; wrote {args.out}")


if __name__ == "__main__":
    main()
