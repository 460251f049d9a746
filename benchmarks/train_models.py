"""Train the bundled ``learned`` models: ``boardsim learn`` for every game and player count the games allow,
then copy each kept model to ``boardsim/models/<game>-<players>p.npz`` (what ``learned`` with no ``model``
plays).  Each run's report folder is ``reports/learn/<game>-<players>p/`` (rounds.csv, weights.csv,
learn.md), and a killed run resumes from its recorded chunks.

    python benchmarks/train_models.py                      # every model, the settings below
    python benchmarks/train_models.py art_deco:2 wagons:2  # some of them

The settings per model (teacher, games per round, rounds) are in ``PLAN``; the times they took, with the
yardstick, are printed at the end and quoted in docs/guide/learned.md.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timing import yardstick  # noqa: E402

from boardsim.analysis.learn import HELD_OUT, learn, strength  # noqa: E402
from boardsim.games import get  # noqa: E402
from boardsim.games.base import Seat  # noqa: E402
from boardsim.learned import bundled_path  # noqa: E402

# (game, players): (teacher, games per round, rounds); one round where a second of the same teacher did not pay
# for its time on two cores.  A second round searches with round 1's model in its rollouts where the game's mcts
# takes playout = "learned" (FlipToons, Circle the Wagons: expert iteration).  Art Deco at 3 players (300 games) won
# 26.4% [24.6, 28.3] against two eligibility seats (fair 33.3%) and is not bundled (docs/guide/learned.md)
PLAN = {
    ("art_deco", 2): ("mcts", 400, 2),
    ("art_deco", 3): ("mcts", 300, 1),
    ("art_deco", 4): ("mcts", 200, 1),
    ("fliptoons", 2): ("mcts", 200, 2),
    ("wagons", 2): ("mcts", 300, 2),
    ("fliptoons", 3): ("mcts", 120, 1),
    ("fliptoons", 4): ("mcts", 80, 1),
}


def main(argv: list[str]) -> int:
    wanted = [tuple(a.split(":")) for a in argv] if argv else None
    print(yardstick(), flush=True)
    for (game, players), (teacher, games, rounds) in PLAN.items():
        if wanted and (game, str(players)) not in wanted:
            continue
        t0 = time.perf_counter()
        result = learn(game, players=players, teacher=teacher, rounds=rounds, games=games, seed=40,
                       out=ROOT / "reports" / "learn" / f"{game}-{players}p", eval_games=1000)
        took = f"{game} {players}p: {time.perf_counter() - t0:.0f} s wall"
        # a bundled learned player must beat the default heuristic: the kept model against it, on deals no
        # round has played
        g = get(game)
        share, lo, hi = strength(g, players, Seat("learned", {"model": str(result.out_dir / "model.npz")}),
                                 Seat(g.default_policy), 1000, 40 + HELD_OUT + 99)
        verdict = f"{share:.1%} [{lo:.1%}, {hi:.1%}] against {g.default_policy} (fair {1 / players:.1%})"
        if lo <= 1 / players:
            print(f"{took}; not bundled: {verdict}", flush=True)
            continue
        dest = bundled_path(game, players)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(result.out_dir / "model.npz", dest)
        print(f"{took}; {verdict} -> {dest.relative_to(ROOT)}", flush=True)
    print(yardstick(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
