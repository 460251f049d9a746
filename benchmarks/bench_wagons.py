"""Circle the Wagons speed: games per second on 1 thread and on all threads.

Run:  python benchmarks/bench_wagons.py [--games N] [--policy NAME] [--placement MODE]
Both seats play the same policy (default: gain_minus_gift drafting with greedy placement on the
full score). Prints one line per thread count; warms the Numba cache first so compile time is
not counted.
"""

from __future__ import annotations

import argparse

import numba
from timing import games_per_second

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--policy", default="gain_minus_gift")
    ap.add_argument("--placement", default="greedy", choices=("random", "greedy", "lands", "fast"))
    args = ap.parse_args()
    seat = Seat(args.policy, {"placement": args.placement})
    prepared = GAME.prepare(2, [seat, seat], {}, GAME.card_table())
    GAME.play(prepared, 1, 0, 200)  # compile or load from cache
    all_threads = numba.config.NUMBA_NUM_THREADS
    for threads in sorted({1, all_threads}):
        numba.set_num_threads(threads)
        rate, per_cpu = games_per_second(GAME, prepared, args.games)
        print(f"wagons policy={args.policy} placement={args.placement} threads={threads}: {rate:,.0f} games/s "
              f"({rate / threads:,.0f} per core wall-clock, {per_cpu:,.0f} per CPU-second)")


if __name__ == "__main__":
    main()
