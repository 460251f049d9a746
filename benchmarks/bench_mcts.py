"""How strong and how fast the ``mcts`` player is, per game.

Run:  python benchmarks/bench_mcts.py [--games art_deco,fliptoons,wagons] [--budgets 100,1000]
                                      [--matches N] [--players 2] [--latency-positions N] [--out FILE]

For each game:

- **strength**: a round robin at ``--players`` seats (Art Deco also at 4 with ``--four``) between
  ``mcts`` at each budget and the game's strongest built-in policies, every deal in every seat
  arrangement (``seating = "all"``), all matches on the same deals; each pair's share of head-to-head
  comparisons won with its deal-level 95% interval (``boardsim.tournaments``);
- **latency**: the game's ``mcts.probe``: one decision's mean time at each budget over real positions
  from games, the time of one iteration, and a bare rollout of the playout policy from the same positions
  timed in the same run (``ratio`` = iteration / rollout; the issue's target is at most 2).

Prints the tables and the yardstick, and writes ``benchmarks/mcts.csv``.  It is a benchmark, not a
test: a 10,000-iteration budget in Circle the Wagons takes seconds a decision, so size ``--matches``
to the time you have.
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

import pandas as pd
from timing import yardstick

from boardsim.tournaments import run_tournament

HERE = Path(__file__).resolve().parent
# the built-in policies each game's search is measured against (strongest first)
OPPONENTS = {
    "art_deco": ["eligibility", "par"],
    "fliptoons": [("lookahead", {"playouts": 50}), "fame_per_cost"],
    "wagons": ["gain_minus_gift"],
}


def strength(game: str, budgets: list[int], matches: int, players: int, seed: int) -> pd.DataFrame:
    seats = [("mcts", {"iterations": b}) for b in budgets] + OPPONENTS[game]
    t0 = time.perf_counter()
    res = run_tournament(game, seats, players=players, games=matches, seed=seed, progress=True)
    seconds = time.perf_counter() - t0
    pair = res.pairwise.copy()
    pair.insert(0, "players", players)
    pair.insert(0, "game", game)
    pair["seconds"] = seconds
    return pair


def latency(game: str, budgets: list[int], positions: int, seed: int) -> pd.DataFrame:
    probe = importlib.import_module(f"boardsim.games.{game}.mcts").probe
    rows = probe(budgets=tuple(budgets), positions=positions, seed=seed, players=2)
    rows.insert(0, "game", game)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="art_deco,fliptoons,wagons")
    ap.add_argument("--budgets", default="100,1000", help="mcts iterations per decision, comma-separated")
    ap.add_argument("--matches", type=int, default=200, help="games per match of the round robin")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--four", action="store_true", help="Art Deco also at 4 players")
    ap.add_argument("--latency-positions", type=int, default=20)
    ap.add_argument("--skip-strength", action="store_true")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=str(HERE / "mcts.csv"))
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    print(yardstick())
    pd.set_option("display.width", 200)
    frames = []
    for game in args.games.split(","):
        lat = latency(game, budgets, args.latency_positions, args.seed)
        print(lat.to_string(index=False))
        frames.append(lat.assign(table="latency"))
        if args.skip_strength:
            continue
        for players in [args.players] + ([4] if args.four and game == "art_deco" else []):
            pair = strength(game, budgets, args.matches, players, args.seed)
            cols = ["game", "players", "policy", "opponent", "games", "deals", "win_rate", "win_lo", "win_hi"]
            print(pair[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
            frames.append(pair.assign(table="strength"))
    print(yardstick())
    pd.concat(frames, ignore_index=True).to_csv(args.out, index=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
