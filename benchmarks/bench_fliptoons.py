"""FlipToons speed and solo strength.

Prints: games/s per core with fame_per_cost at 2 players, 4 players and solo (1 thread, so the
figure is per core; targets: >= 20,000 2-player games/s, goal 100,000); the lookahead policy's
decision latency at 100 playouts per candidate (target <= 20 ms); and each heuristic's solo win rate
at each difficulty with a 95% Wilson interval.

Run:  python benchmarks/bench_fliptoons.py [--games N] [--solo-games N] [--lookahead-games N]
Warms the Numba cache first so compile time is not counted.

``--compile-profile`` instead compiles the 2-player fame_per_cost kernel into an empty cache in a fresh
process and prints where its cold compile goes: each dispatcher's compile time, inclusive of the callees it
compiles (numba's own per-pass timings: type inference, then LLVM lowering, optimisation and code
generation), and every dispatcher compiled in more than one signature.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from scipy.stats import binomtest
from timing import games_per_second

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons import decide as D
from boardsim.games.fliptoons import engine as E


def lookahead_latency(game, players: int, playouts: int, decisions: int, horizon: int = 0) -> tuple[float, float]:
    """Median and max seconds per lookahead market decision, at the first decision of many games."""
    seats = [Seat("lookahead", {"playouts": playouts, "horizon": horizon})] + [Seat("fame_per_cost")] * (players - 1)
    prep = game.prepare(players, seats, {}, game.card_table())
    C, R = E.consts(prep), E.rule_arrays(prep)
    maxc, T = (int(x) for x in prep["sizes"])
    times = []
    for i in range(decisions):
        S, X, U, L, O, rng = E.first_decision(np.uint64(77), np.int64(i), players, C, R, E.custom_none(), maxc, T)
        if S[3][E.PHASE] == E.PH_DONE:
            continue
        p = (S[3][E.FIRST] + S[3][E.TURN]) % players
        t0 = time.process_time()  # CPU time: the decision runs on one thread
        D.lookahead_choose(p, S, C, X, U, L, rng, None, None, None)
        times.append(time.process_time() - t0)
    return float(np.median(times)), float(np.max(times))


def compile_profile(top: int = 25) -> None:
    """Runs in a process whose Numba cache is empty: compile, then print each dispatcher's pass timings."""
    from boardsim import custom, rng, rulelist
    t0, c0 = time.perf_counter(), time.process_time()
    game = get("fliptoons")
    game.play(game.prepare(2, [Seat("fame_per_cost")] * 2, {}, game.card_table()), 1, 0, 10)
    print(f"cold compile and 10 games: {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU")
    rows, multi = [], []
    for mod in (E, D, rng, rulelist, custom):
        for name, obj in vars(mod).items():
            py = getattr(obj, "py_func", None)
            if not hasattr(obj, "overloads") or py is None or py.__module__ != mod.__name__:
                continue
            label = f"{mod.__name__.rsplit('.', 1)[-1]}.{name}"
            if len(obj.overloads) > 1:
                multi.append(f"{label} ({len(obj.overloads)} signatures)")
            for cres in obj.overloads.values():
                times: dict[str, float] = {}
                for passes in (cres.metadata or {}).get("pipeline_times", {}).values():
                    for pass_name, t in passes.items():
                        key = pass_name.split("_", 1)[-1]
                        times[key] = times.get(key, 0.0) + t.run
                rows.append((sum(times.values()), times.get("nopython_type_inference", 0.0),
                             times.get("native_lowering", 0.0) + times.get("native_parfor_lowering", 0.0), label))
    print(f"{len(rows)} compiled signatures; seconds (wall) per dispatcher, callees it compiled included:")
    print(f"{'total':>7} {'typing':>7} {'LLVM':>7}  dispatcher")
    for total, typing, llvm, label in sorted(rows, reverse=True)[:top]:
        print(f"{total:7.2f} {typing:7.2f} {llvm:7.2f}  {label}")
    print("compiled in more than one signature:", ", ".join(multi) or "none")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--solo-games", type=int, default=4000)
    ap.add_argument("--lookahead-games", type=int, default=200)
    ap.add_argument("--compile-profile", action="store_true", help="where a cold compile goes (empty cache)")
    ap.add_argument("--in-empty-cache", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.in_empty_cache:
        compile_profile()
        return
    if args.compile_profile:
        with tempfile.TemporaryDirectory() as cache:
            subprocess.run([sys.executable, __file__, "--in-empty-cache"], check=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": cache})
        return
    game = get("fliptoons")
    table = game.card_table()
    numba.set_num_threads(1)
    for players in (2, 4, 1):
        prep = game.prepare(players, [Seat("fame_per_cost")] * players, {}, table)
        game.play(prep, 1, 0, 500)  # compile or load from cache
        wall, cpu = games_per_second(game, prep, args.games)
        print(f"fliptoons {players}p fame_per_cost threads=1: {wall:,.0f} games/s wall, "
              f"{cpu:,.0f} games per CPU second")
    lookahead_latency(game, 2, 2, 1)  # compile
    for players, horizon in ((1, 0), (2, 0), (4, 0), (2, 3), (4, 3)):
        med, worst = lookahead_latency(game, players, 100, 20, horizon)
        depth = f"horizon {horizon} rounds" if horizon else "to the end"
        print(f"lookahead {players}p, 100 playouts per candidate ({depth}): median {med * 1e3:.1f} ms CPU "
              f"per decision (max {worst * 1e3:.1f} ms)")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    print("solo win rate (95% Wilson interval):")
    heuristics = [("random", {}), ("highest_rank", {}), ("priority", {}), ("fame_per_cost", {}), ("synergy", {}),
                  ("lookahead", {"playouts": 20})]
    for level in ("easy", "normal", "hard"):
        for name, params in heuristics:
            n = args.lookahead_games if name == "lookahead" else args.solo_games
            prep = game.prepare(1, [Seat(name, params)], {"solo_difficulty": level}, table)
            r = game.play(prep, 2024, 0, n)
            k = int(r["win"][:, 0].sum())
            ci = binomtest(k, n).proportion_ci(method="wilson")
            label = name + (f"({params['playouts']} playouts)" if params else "")
            print(f"  {level:6s} {label:26s} {k / n:6.1%}  [{ci.low:.1%}, {ci.high:.1%}]  n={n}")


if __name__ == "__main__":
    main()
