"""What a cell costs before its first game: each game's ``prepare`` on its bundled cards, and FlipToons' card
measure (``card_effects``), which prepares about 50 cells on one table for each card it measures.

Run:  python benchmarks/bench_prepare.py [--repeats N]
Prints milliseconds per ``prepare`` (the first call on a table apart: it works out the card arrays that
later cells on the same table reuse, ``seat.by_table``), seconds per ``card_effects`` call of 600 deals, and
the yardstick.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from timing import YARDSTICK

from boardsim.analysis.balance import card_effects
from boardsim.games import get
from boardsim.games.base import Seat

POLICY = {"fliptoons": "fame_per_cost", "art_deco": "eligibility", "wagons": "gain_minus_gift"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=200)
    args = ap.parse_args()
    for name, policy in POLICY.items():
        g = get(name)
        table = g.card_table({})  # a table of its own: the first prepare on it works out its card arrays
        seats = [Seat(policy)] * 2
        t0 = time.perf_counter()
        g.prepare(2, seats, {}, table)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(args.repeats):
            g.prepare(2, seats, {}, table)
        each = (time.perf_counter() - t0) / args.repeats
        print(f"{name} prepare: first {first * 1e3:.2f} ms, then {each * 1e3:.2f} ms each")
    ft = get("fliptoons")
    table = ft.card_table()
    cards = ft.market_cards(table)
    card_effects(ft, 2, Seat("fame_per_cost"), [cards[0]], table, 50, 8)  # compile or load the engine
    c0, t0 = time.process_time(), time.perf_counter()
    for card in cards[:6]:
        now = int(table.loc[table["name"] == card, "fame"].iloc[0])
        card_effects(ft, 2, Seat("fame_per_cost"), [card], ft.card_table({card: {"fame": now + 1}}), 600, 8)
    print(f"fliptoons card_effects, 600 deals, a table of its own per call: {(time.perf_counter() - t0) / 6:.3f} s "
          f"wall, {(time.process_time() - c0) / 6:.3f} s CPU per call")
    print(subprocess.run([sys.executable, str(YARDSTICK)], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
