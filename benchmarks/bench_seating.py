"""What the seating design changes: per-policy answers and their cost.

Run:  python benchmarks/bench_seating.py [--deals N] [--out FILE]

For the quick-start question (Art Deco, 4 players: par, multiple 1.3, eligibility, blocker) and a
4-player FlipToons comparison (fame_per_cost, priority, highest_rank, random):

- the per-policy win rate under ``seating = "all"`` with its deal-level 95% interval;
- the same under ``cyclic`` for every distinct cyclic order of the four seats (the one-seating answers
  of earlier versions, which depend on who sits to whose left), with their ranges;
- wall-clock games/s of ``all`` (24 arrangements per deal) and ``cyclic`` (4 rotations) on the same
  deals, so the extra cost of ``all`` is a ratio.

Prints a table and writes ``benchmarks/seating.csv``.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import pandas as pd

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.report import tables
from boardsim.runner import make_cell, run_cell

HERE = Path(__file__).resolve().parent
CASES = {
    "art_deco": [Seat("par"), Seat("multiple", {"multiple": 1.3}), Seat("eligibility"), Seat("blocker")],
    "fliptoons": [Seat("fame_per_cost"), Seat("priority"), Seat("highest_rank"), Seat("random")],
}


def measure(game_name: str, seats: list[Seat], design: str, deals: int, seed: int) -> tuple[pd.DataFrame, float]:
    game = get(game_name)
    cell = make_cell(game, len(seats), seats, None, game.card_table(), seating_design=design)
    agg = cell.new_aggregate()
    run_cell(cell, seed, 1, agg.add, progress=False, reduce=True)  # compile outside the timing
    agg = cell.new_aggregate()
    t0 = time.perf_counter()
    run_cell(cell, seed, deals * len(cell.arrangements), agg.add, progress=False, reduce=True)
    seconds = time.perf_counter() - t0
    rows = tables.summary_rows(game_name, cell, agg)
    return rows[rows["level"] == "policy"], agg.games / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4000, help="deals per design (default 4000)")
    ap.add_argument("--out", default=str(HERE / "seating.csv"))
    args = ap.parse_args()
    out = []
    for game_name, seats in CASES.items():
        rows, rate_all = measure(game_name, seats, "all", args.deals, 2026)
        for r in rows.itertuples():
            out.append({"game": game_name, "design": "all", "order": "every arrangement", "policy": r.policy,
                        "games": r.games, "deals": r.deals, "win_rate": r.win_rate, "win_lo": r.win_lo,
                        "win_hi": r.win_hi, "games_per_s": rate_all})
        # the distinct cyclic orders: fix seat 0, permute the rest
        for rest in itertools.permutations(seats[1:]):
            order = [seats[0], *rest]
            rows, rate = measure(game_name, order, "cyclic", args.deals, 2026)
            for r in rows.itertuples():
                out.append({"game": game_name, "design": "cyclic", "order": " > ".join(s.label() for s in order),
                            "policy": r.policy, "games": r.games, "deals": r.deals, "win_rate": r.win_rate,
                            "win_lo": r.win_lo, "win_hi": r.win_hi, "games_per_s": rate})
    frame = pd.DataFrame(out)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 200)
    for game_name, g in frame.groupby("game", sort=False):
        every = g[g["design"] == "all"].set_index("policy")
        cyc = g[g["design"] == "cyclic"].groupby("policy")["win_rate"].agg(["min", "max"])
        print(f"\n{game_name}: per-policy win rate, all arrangements vs the 6 cyclic orders")
        for policy, r in every.iterrows():
            print(f"  {policy:28s} all {r.win_rate:.4f} [{r.win_lo:.4f}, {r.win_hi:.4f}]   "
                  f"cyclic orders {cyc.loc[policy, 'min']:.4f} .. {cyc.loc[policy, 'max']:.4f}")
        rate_all = g.loc[g["design"] == "all", "games_per_s"].iloc[0]
        rate_cyc = g.loc[g["design"] == "cyclic", "games_per_s"].median()
        print(f"  games/s (wall): all {rate_all:,.0f}, cyclic median {rate_cyc:,.0f}, ratio {rate_all / rate_cyc:.2f}")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
