"""Art Deco's ``mcts`` against the default policy: budgets, bid candidates and progressive widening.

Run:  python benchmarks/bench_mcts_art_deco.py [--games N] [--big-games N] [--threads T]

Each variant plays one-vs-field matches at 2 players against ``eligibility`` (the default policy), every
deal in both seat orders, all variants on the same deals; the table is each variant's share of
head-to-head comparisons won (a larger win share, then a higher score) with its deal-level 95% interval
(``boardsim.tournaments``).  The variants at 100 iterations: the default candidates (``bids = 4``),
pass and the minimum bid only (``bids = 2``), every jump bid (``bids = 7``), every jump bid with
progressive widening (``widening = 1``), and opponents played by the playout policy
(``opponents = "playout"``); at 1,000 iterations the default, the widened one and
``opponents = "playout"``; then 1,000 against 100 head to head.
Quoted in docs/rules/art-deco.md ("The `mcts` player").
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from boardsim.tournaments import run_tournament

YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "tools" / "yardstick.py"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per match at 100 iterations")
    ap.add_argument("--big-games", type=int, default=1000, help="games per match at 1,000 iterations")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    if YARDSTICK.exists():
        print(subprocess.run([sys.executable, str(YARDSTICK)], capture_output=True, text=True).stdout.strip())
    small = [("mcts", {"iterations": 100}), ("mcts", {"iterations": 100, "bids": 2}),
             ("mcts", {"iterations": 100, "bids": 7}), ("mcts", {"iterations": 100, "bids": 7, "widening": 1.0}),
             ("mcts", {"iterations": 100, "opponents": "playout"})]
    big = [("mcts", {"iterations": 1000}), ("mcts", {"iterations": 1000, "bids": 7, "widening": 1.0}),
           ("mcts", {"iterations": 1000, "opponents": "playout"})]
    for seats, games in ((small, args.games), (big, args.big_games)):
        t0 = time.perf_counter()
        res = run_tournament("art_deco", seats, players=2, games=games, seed=args.seed, mode="field",
                             field="eligibility", threads=args.threads, progress=False)
        pair = res.pairwise
        pair = pair[pair["opponent"].str.startswith("field")]
        cols = ["policy", "games", "deals", "win_rate", "win_lo", "win_hi"]
        print(pair[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print(f"({time.perf_counter() - t0:.0f} s)")
    # the ladder: 1,000 iterations against 100, head to head
    t0 = time.perf_counter()
    res = run_tournament("art_deco", [("mcts", {"iterations": 1000}), ("mcts", {"iterations": 100})], players=2,
                         games=args.big_games, seed=args.seed, threads=args.threads, progress=False)
    print(res.pairwise[["policy", "opponent", "games", "deals", "win_rate", "win_lo", "win_hi"]].head(1).to_string(
        index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
