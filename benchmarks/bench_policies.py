"""User policies' speed: a rule list and a custom scorer against the built-in policy they reproduce.

Issue 16 asks that each run at >= 2/3 of the built-in's games per CPU second.  For each game, every seat
plays the same policy three ways: the built-in, the rule list that reproduces it and the custom scorer
that does (``tests/games/<game>/scorers.py``).  The three must give identical results (checked first);
then they are timed in alternation, on one thread, in CPU seconds, best of ``--rounds`` (the machine
may be shared).

Run from the repository root:
    python benchmarks/bench_policies.py [--game art_deco fliptoons wagons] [--rounds 3] [--scale 1.0] [--one]

``--one`` puts the rule list or scorer in seat 0 only, the built-in in the others.  ``--scale`` multiplies
each game's batch (Art Deco 200,000 games, FlipToons 40,000, Wagons 300).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: boardsim, and the tests' scorers

from timing import cpu_rate  # noqa: E402

from boardsim.games import get  # noqa: E402
from boardsim.games.base import Seat  # noqa: E402

_SALE = {"sell": "best_gain", "if": "gain >= $margin and cards_held > min_cards"}
# game: (players, games per batch, built-in, its rule list, its scorer)
CASES = {
    "art_deco": (4, 200_000, Seat("eligibility", {"hard": 1.6, "target": 5, "sell_margin": 1}),
                 Seat("rules", {"rules": [{"bid_up_to": "value * $hard", "if": "cards_held < $target"},
                                          {"bid_up_to": "value"},
                                          {"buy_up_to": "value * $hard", "if": "cards_held < $target"},
                                          {"buy_up_to": "value"}, _SALE],
                                "hard": 1.6, "target": 5, "margin": 1}),
                 Seat("custom", {"function": "tests.games.art_deco.scorers:eligibility", "hard": 1.6, "target": 5})),
    "fliptoons": (2, 40_000, Seat("fame_per_cost"),
                  Seat("rules", {"rules": [
                      {"dismiss": "lowest_value",
                       "if": "value <= 0.5 and gain > 0 and gain_per_cost > hire_gain_per_cost"},
                      {"hire": "best_gain_per_cost"}]}),
                  Seat("custom", {"function": "tests.games.fliptoons.scorers:fame_per_cost"})),
    "wagons": (2, 300, Seat("gain_minus_gift"), Seat("rules", {"rules": [{"draft": "best_gain_minus_gift"}]}),
               Seat("custom", {"function": "tests.games.wagons.scorers:gain_minus_gift"})),
}
KINDS = ("built-in", "rules", "custom")


def measure(name: str, rounds: int, scale: float, one: bool) -> dict[str, float]:
    game = get(name)
    players, n_games, *seats = CASES[name]
    n_games = max(1, int(n_games * scale))
    table = game.card_table()

    def lineup(seat: Seat) -> list[Seat]:
        return [seat] + [seats[0] if one else seat] * (players - 1)

    prepared = {k: game.prepare(players, lineup(s), {}, table) for k, s in zip(KINDS, seats, strict=True)}
    first = {k: game.play(p, 7, 0, min(n_games, 2_000)) for k, p in prepared.items()}  # compile or load
    for k in KINDS[1:]:
        assert all(np.array_equal(first[k][c], first["built-in"][c]) for c in first[k]), f"{name}: {k} differs"
    best = dict.fromkeys(KINDS, 0.0)
    for r in range(rounds):
        for k in KINDS:  # alternately, so a burst of load elsewhere hits each kind alike
            best[k] = max(best[k], cpu_rate(game, prepared[k], n_games, 100 + r))
    who = "seat 0 (the others built-in)" if one else "every seat"
    print(f"{name} {players}p, {seats[0].label()} and its equivalents in {who}, 1 thread, best of {rounds} x "
          f"{n_games:,} games:")
    for k in KINDS:
        print(f"  {k:9s} {best[k]:>12,.0f} games per CPU second  ({best[k] / best['built-in']:.2f} of built-in)")
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--one", action="store_true", help="the rule list or scorer in seat 0 only")
    args = ap.parse_args()
    numba.set_num_threads(1)
    for name in args.game:
        measure(name, args.rounds, args.scale, args.one)


if __name__ == "__main__":
    main()
