"""How fast and how strong the bundled ``learned`` players are, per game and player count.

Run from the repository root:
    python benchmarks/bench_learned.py [--game art_deco fliptoons wagons] [--players 2 3 4] [--rounds 3]
                                       [--scale 1.0] [--strength N] [--search N] [--iterations 1000]

For every bundled model (``boardsim/models/<game>-<players>p.npz``) among those asked for:

- **speed**: games per CPU second on one thread, every seat ``learned`` against every seat the game's
  default heuristic (self-play), then ``learned`` in seat 0 beside the heuristic (as in a tournament or a
  ``cards`` run), timed in alternation (best of ``--rounds``; the machine may be shared).  Issue 40's
  target: ``learned`` at least 1/5 of the heuristic's rate.
- **strength** (``--strength N`` deals, 0 to skip): ``learned`` against ``players - 1`` seats of each
  built-in heuristic, every deal in every seating, its win share with a deal-level 95% interval (fair share
  1 / players);
- **against the search** (``--search N`` deals, 0 to skip): the same against ``mcts(iterations)``;
- **at a larger table** (3 and 4 players, the ``--strength`` deals): ``learned`` in one seat and the default
  heuristic in the others, every seating: ``learned``'s win share minus a heuristic seat's, paired on deals,
  and how often each finishes last (strictly the lowest score), each with a deal-level 95% interval.

Prints the tables with the yardstick and writes ``benchmarks/learned.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timing import cpu_rate, yardstick  # noqa: E402

from boardsim.analysis.ladder import default_rungs  # noqa: E402
from boardsim.analysis.learn import per_deal, strength  # noqa: E402
from boardsim.games import get  # noqa: E402
from boardsim.games.base import Seat  # noqa: E402
from boardsim.learned import bundled_path  # noqa: E402

# games per timed batch at 2 players (fewer at larger tables would also do; the rate is per game)
BATCH = {"art_deco": 100_000, "fliptoons": 20_000, "wagons": 300}


def speed(name: str, players: int, rounds: int, scale: float, one: bool) -> dict[str, object]:
    game = get(name)
    n_games = max(1, int(BATCH[name] * scale))
    table = game.card_table()
    base = Seat(game.default_policy)
    seats = {"heuristic": base, "learned": Seat("learned")}
    prepared = {k: game.prepare(players, [s] + [base if one else s] * (players - 1), {}, table)
                for k, s in seats.items()}
    for p in prepared.values():
        game.play(p, 7, 0, min(n_games, 200))  # compile or load from the cache
    best = dict.fromkeys(seats, 0.0)
    for r in range(rounds):
        for k in seats:  # alternately, so a burst of load elsewhere hits both alike
            best[k] = max(best[k], cpu_rate(game, prepared[k], n_games, 100 + r))
    ratio = best["learned"] / best["heuristic"]
    table_kind = f"learned in seat 0, {base.label()} in the others" if one else "self-play"
    print(f"{name} {players}p {table_kind}, 1 thread, best of {rounds} x {n_games:,} games: "
          f"{game.default_policy} {best['heuristic']:,.0f}, learned {best['learned']:,.0f} games per CPU second "
          f"({ratio:.2f} of the heuristic; target >= 0.20)", flush=True)
    return {"game": name, "players": players, "kind": "speed, seat 0" if one else "speed, self-play",
            "against": game.default_policy,
            "value": best["learned"], "low": None, "high": None, "heuristic_rate": best["heuristic"],
            "ratio": ratio, "deals": n_games}


def against(name: str, players: int, opponents: list[Seat], deals: int, seed: int) -> list[dict[str, object]]:
    rows = []
    game = get(name)
    for opp in opponents:
        t0 = time.perf_counter()
        share, lo, hi = strength(game, players, Seat("learned"), opp, deals, seed)
        print(f"{name} {players}p learned vs {opp.label()}: {share:.1%} [{lo:.1%}, {hi:.1%}] "
              f"(fair {1 / players:.1%}; {deals} deals, every seating; {time.perf_counter() - t0:.0f} s)", flush=True)
        rows.append({"game": name, "players": players, "kind": "strength", "against": opp.label(), "value": share,
                     "low": lo, "high": hi, "heuristic_rate": None, "ratio": None, "deals": deals})
    return rows


def table(name: str, players: int, deals: int, seed: int) -> list[dict[str, object]]:
    """learned against ``players - 1`` default-heuristic seats: the paired win-share difference and last places."""
    from boardsim.runner import simulate

    game = get(name)
    heuristic = game.default_policy
    df = simulate(name, deals, [Seat("learned")] + [Seat(heuristic)] * (players - 1), seed=seed, players=players,
                  seating="all", progress=False)
    win = df[[f"win_{i}" for i in range(players)]].to_numpy(dtype=float)
    score = df[[f"score_{i}" for i in range(players)]].to_numpy(dtype=float)
    lowest = score.min(axis=1, keepdims=True)
    last = (score == lowest) & ((score == lowest).sum(axis=1, keepdims=True) == 1)
    rows = []
    for kind, values in (("win share, learned - heuristic seat", win[:, 0] - win[:, 1:].mean(axis=1)),
                         ("last, learned", last[:, 0].astype(float)),
                         ("last, heuristic seat", last[:, 1:].mean(axis=1))):
        mean, lo, hi = per_deal(values, df["game"].to_numpy())
        sign = "+" if kind.startswith("win") else ""
        print(f"{name} {players}p learned + {players - 1} x {heuristic}: {kind} {mean:{sign}.1%} [{lo:{sign}.1%}, "
              f"{hi:{sign}.1%}] ({deals} deals, every seating)", flush=True)
        rows.append({"game": name, "players": players, "kind": kind, "against": heuristic, "value": mean,
                     "low": lo, "high": hi, "heuristic_rate": None, "ratio": None, "deals": deals})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", nargs="+", default=list(BATCH), choices=list(BATCH))
    ap.add_argument("--players", nargs="+", type=int, default=[2, 3, 4])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--strength", type=int, default=1000, help="deals per heuristic opponent (0: skip)")
    ap.add_argument("--search", type=int, default=0, help="deals against mcts (0: skip)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=4040)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "learned.csv"))
    args = ap.parse_args()
    print(yardstick(), flush=True)
    rows: list[dict[str, object]] = []
    for name in args.game:
        for players in args.players:
            if not bundled_path(name, players).exists():
                continue
            numba.set_num_threads(1)
            rows.append(speed(name, players, args.rounds, args.scale, False))
            rows.append(speed(name, players, args.rounds, args.scale, True))
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            if args.strength:
                # the ladder's heuristic rungs (random included: the floor)
                rungs = [r for r in default_rungs(get(name), (), None) if isinstance(r, str) and r != "learned"]
                rows += against(name, players, [Seat(h) for h in rungs], args.strength, args.seed)
                if players > 2:
                    rows += table(name, players, args.strength, args.seed)
            if args.search:
                rows += against(name, players, [Seat("mcts", {"iterations": args.iterations})], args.search,
                                args.seed)
    print(yardstick(), flush=True)
    if rows:
        write(pd.DataFrame(rows), Path(args.out))
        print(f"wrote {args.out}")


def write(new: pd.DataFrame, out: Path) -> None:
    """``new`` into ``out``, in place of the rows it measured again (same game, players, kind and opponent;
    the others stay: a run of one game, or without ``--search``, does not erase the rest)."""
    key = ["game", "players", "kind", "against"]
    if out.exists():
        old = pd.read_csv(out)
        done = set(new[key].itertuples(index=False, name=None))
        keep = [k not in done for k in old[key].itertuples(index=False, name=None)]
        new = pd.concat([old[keep], new], ignore_index=True).sort_values(["game", "players"], kind="stable")
    new.to_csv(out, index=False)


if __name__ == "__main__":
    main()
