"""FlipToons: the speed of a rule list and of a custom scorer that reproduce fame_per_cost (issue 16).

Plays the same 2-player games (fame_per_cost in both seats) with the built-in policy, with the equivalent
rule list and with the equivalent custom scorer (tests/games/fliptoons/scorers.py), on one thread, and
prints games per CPU second of each and their ratios to the built-in (target: >= 2/3 each).  The machine
may be shared, so the three are timed alternately, ``--rounds`` times, and the best of each is kept.

Run from the repository root:  python benchmarks/bench_policies_fliptoons.py [--games N] [--rounds R]
Warms the Numba cache first so compile time is not counted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.games.fliptoons.scorers

from boardsim.games.base import Seat  # noqa: E402
from boardsim.games.fliptoons import GAME  # noqa: E402

FPC_RULES = [
    {"dismiss": "lowest_value", "if": "value <= 0.5 and gain > 0 and gain_per_cost > hire_gain_per_cost"},
    {"hire": "best_gain_per_cost"},
]
VARIANTS = {
    "fame_per_cost": Seat("fame_per_cost"),
    "rules": Seat("rules", {"rules": FPC_RULES}),
    "custom": Seat("custom", {"function": "tests.games.fliptoons.scorers:fame_per_cost"}),
}


def cpu_rate(prep, n_games: int, key: int) -> float:
    """Games per CPU second of one pass over ``n_games`` games, in sweep-sized chunks."""
    step = GAME.max_chunk_deals
    c0 = time.process_time()
    for start in range(0, n_games, step):
        GAME.play(prep, key, start, min(step, n_games - start))
    return n_games / max(1e-9, time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--players", type=int, default=2)
    args = ap.parse_args()
    numba.set_num_threads(1)
    table = GAME.card_table()
    preps = {name: GAME.prepare(args.players, [seat] * args.players, {}, table) for name, seat in VARIANTS.items()}
    first = None
    for name, prep in preps.items():  # compile or load from cache; the three must play the same games
        out = GAME.play(prep, 7, 0, 300)
        first = first if first is not None else out
        assert all((out[k] == first[k]).all() for k in first), f"{name} does not reproduce fame_per_cost"
    best = dict.fromkeys(preps, 0.0)
    for _ in range(args.rounds):
        for name, prep in preps.items():
            best[name] = max(best[name], cpu_rate(prep, args.games, 12345))
    base = best["fame_per_cost"]
    for name, rate in best.items():
        print(f"fliptoons {args.players}p {name:14s} threads=1: {rate:,.0f} games per CPU second "
              f"({rate / base:.2f} of fame_per_cost)")


if __name__ == "__main__":
    main()
