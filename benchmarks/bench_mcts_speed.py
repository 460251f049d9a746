"""mcts games per second of one game's cell, one thread: the speed check of a change to the search loop.

Run:  python benchmarks/bench_mcts_speed.py GAME [--games N] [--iterations K]

Plays N games (default 40) of ``mcts(iterations=K)`` (default 100) against the game's default policy, both seat
orders, after one warm-up game (compiled or loaded from the cache), and prints games/s with the yardstick's
speed of this machine.  Time it from outside as well (``/usr/bin/time``) to see start-up.
"""

from __future__ import annotations

import argparse
import time

import boardsim
from boardsim.games import get


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=100)
    args = ap.parse_args()
    pols = [("mcts", {"iterations": args.iterations}), get(args.game).default_policy]
    boardsim.simulate(args.game, 1, pols, seed=1, threads=1)
    t0 = time.perf_counter()
    boardsim.simulate(args.game, args.games, pols, seed=2, threads=1, seating="all")
    took = time.perf_counter() - t0
    print(f"{args.game}: {2 * args.games / took:.2f} mcts games/s ({took:.2f} s)")


if __name__ == "__main__":
    main()
