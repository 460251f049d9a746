"""Art Deco speed: 4-player default-rule games per second on 1 thread and on all threads.

Target: 1,000,000 games per second per core; the CPU-second figure is the one to compare on a busy machine.

Run:  python benchmarks/bench_art_deco.py [--games N] [--policy NAME]
Prints one line per thread count; warms the Numba cache first so compile time is not counted.
"""

from __future__ import annotations

import argparse

import numba
from timing import games_per_second

from boardsim.games import get
from boardsim.games.base import Seat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--policy", default="eligibility")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    game = get("art_deco")
    prepared = game.prepare(args.players, [Seat(args.policy)] * args.players, {}, game.card_table())
    game.play(prepared, 1, 0, 1000)  # compile or load from cache
    all_threads = numba.config.NUMBA_NUM_THREADS
    for threads in sorted({1, all_threads}):
        numba.set_num_threads(threads)
        wall, cpu = games_per_second(game, prepared, args.games)
        print(f"art_deco {args.players}p policy={args.policy} threads={threads}: {wall:,.0f} games/s "
              f"({wall / threads:,.0f} per core; {cpu:,.0f} per CPU second)")


if __name__ == "__main__":
    main()
