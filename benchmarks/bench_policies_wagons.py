"""Circle the Wagons: the cost of a user policy against the built-in default it reproduces.

Run:  python benchmarks/bench_policies_wagons.py [--games N] [--rounds R]

Three seatings play the same games (same cell key) on one thread: both seats the built-in
``gain_minus_gift``, both a one-rule list that makes the same choice (``draft = "best_gain_minus_gift"``),
and both a custom scorer that does (gain - gift).  Each round times the three in turn (games per
CPU-second, ``time.process_time``); the best round of each counts, so a busy shared machine hurts
them alike.  The issue's target: each user policy at least 2/3 of the built-in's rate.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402

from boardsim.games.base import Seat  # noqa: E402
from boardsim.games.wagons import GAME  # noqa: E402


@numba.njit(cache=True)
def gain_minus_gift(features, candidates, params, scores):
    """The built-in default's choice as a scorer: candidate columns gain (0) minus gift (1)."""
    for i in range(candidates.shape[0]):
        scores[i] = candidates[i, 0] - candidates[i, 1]


SEATS = {
    "builtin": Seat("gain_minus_gift"),
    "rules": Seat("rules", {"rules": [{"draft": "best_gain_minus_gift"}]}),
    "custom": Seat("custom", {"function": gain_minus_gift}),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    numba.set_num_threads(1)
    cards = GAME.card_table()
    prepared = {name: GAME.prepare(2, [seat, seat], {}, cards) for name, seat in SEATS.items()}
    results = {name: GAME.play(p, 1, 0, 20) for name, p in prepared.items()}  # compile or load from cache
    best = dict.fromkeys(SEATS, 0.0)
    for _ in range(args.rounds):
        for name, p in prepared.items():
            c0 = time.process_time()
            results[name] = GAME.play(p, 12345, 0, args.games)
            best[name] = max(best[name], args.games / max(1e-9, time.process_time() - c0))
    same = all((results[n]["score"] == results["builtin"]["score"]).all() for n in SEATS)
    for name in SEATS:
        print(f"wagons {name:8s}: {best[name]:8,.0f} games per CPU-second, {best[name] / best['builtin']:.2f} x "
              "built-in")
    print(f"same scores in every game: {same}")


if __name__ == "__main__":
    main()
