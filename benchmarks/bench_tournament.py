"""A tournament match's cost: one 4-player Art Deco round robin of four policies (one match, every deal in all 24
seat arrangements), its wall and CPU seconds and the process's peak memory.

Run:  python benchmarks/bench_tournament.py [--games N]
A match keeps per-deal sums (tournaments.play_match), so its memory does not grow with the games beyond the
raw rows of one range (tournaments.RANGE_GAMES).  Prints the figures and the yardstick.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from timing import YARDSTICK

from boardsim.tournaments import run_tournament

POLICIES = ["par", "random", "eligibility", "multiple"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=400_000)
    args = ap.parse_args()
    run_tournament("art_deco", POLICIES, players=4, games=1_000, seed=5, progress=False)  # compile or load
    c0, t0 = time.process_time(), time.perf_counter()
    run_tournament("art_deco", POLICIES, players=4, games=args.games, seed=5, progress=False)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"art_deco 4p round robin, {args.games:,} games: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"({args.games / cpu:,.0f} games per CPU second), peak {peak:.0f} MiB")
    print(subprocess.run([sys.executable, str(YARDSTICK)], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
