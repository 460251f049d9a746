"""What recording progress per round costs (Prepared.progress, what ``feel`` asks for), per game.

Plays the same cell with progress off and on, interleaved on one thread (``--pairs`` pairs of ``--games``
games each, alternating which goes first), and prints each side's median games per CPU second and the
median of the pairwise ratios off / on (1.05 = recording costs 5% of a game).  ``--only off`` plays just the
off side: run it in two checkouts under ``farm-bench --vs`` to check that a cell without progress is no
slower than before (it then skips the yardstick: run that beside the call).

Run:  python benchmarks/bench_progress.py art_deco [--players 2] [--games 100000] [--pairs 7] [--only off]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics

import numba
from timing import cpu_rate, yardstick

from boardsim.games import get
from boardsim.games.base import Seat

GAMES = {"art_deco": 100_000, "fliptoons": 20_000, "wagons": 3_000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("game", choices=sorted(GAMES))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=0, help="games per run (default: about a second's worth)")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--only", choices=("off", "on"), default=None)
    args = ap.parse_args()
    game = get(args.game)
    n = args.games or GAMES[args.game]
    base = game.prepare(args.players, [Seat(game.default_policy)] * args.players, {}, game.card_table())
    sides = {"off": dataclasses.replace(base, progress=False), "on": dataclasses.replace(base, progress=True)}
    if args.only:
        sides = {args.only: sides[args.only]}
    numba.set_num_threads(1)
    for prep in sides.values():
        game.play(prep, 1, 0, min(n, 500))  # compile or load from cache
    rates: dict[str, list[float]] = {k: [] for k in sides}
    for i in range(args.pairs):
        order = list(sides) if i % 2 == 0 else list(reversed(sides))
        for k in order:
            rates[k].append(cpu_rate(game, sides[k], n, 100 + i))
    line = ", ".join(f"{k} {statistics.median(v):,.0f}" for k, v in rates.items())
    print(f"{args.game} {args.players}p {game.default_policy}, 1 thread, games per CPU second (median of "
          f"{args.pairs}): {line}")
    if len(sides) == 2:
        ratio = statistics.median(a / b for a, b in zip(rates["off"], rates["on"], strict=True))
        print(f"pairwise off/on ratio (median): {ratio:.3f}")
        print(yardstick())  # not with --only: farm-bench times the whole process, so the yardstick runs apart


if __name__ == "__main__":
    main()
