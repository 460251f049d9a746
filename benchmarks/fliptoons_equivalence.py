"""FlipToons: the summary figures of many 2-player fame_per_cost games, and whether they agree with a reference.

A change that alters the random stream (not the rules) must leave the game's statistics where they were.  This
script plays games 0..N-1 of the 2-player fame_per_cost cell with key 0xE17 (1,000,000 by default) and prints
each summary figure (win rate of seat 0, each seat's mean score, mean rounds, share of games ended by fame,
seat 0's hires, dismissals, deck size and best fame) with its 95% interval (mean ± 1.96 standard errors).
``--save FILE`` writes them as JSON; ``--compare FILE`` says for each figure whether it lies inside that
reference's 95% interval.  Run the reference with the old engine on the path:

    PYTHONPATH=/path/to/old/checkout python benchmarks/fliptoons_equivalence.py --save old.json
    python benchmarks/fliptoons_equivalence.py --compare old.json

``tests/games/fliptoons/test_value_sum.py`` checks a fixed 20,000-game sample against such references.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from boardsim.games import get
from boardsim.games.base import Seat

KEY = 0xE17
FIGURES = ("win_rate_0", "score_0", "score_1", "rounds", "end_fame", "hires_0", "dismissals_0", "deck_size_0",
           "max_fame_0")


def columns(r: dict) -> dict[str, np.ndarray]:
    """Each figure's per-game values in a result dict (engine.END_FAME is end reason 0)."""
    return {
        "win_rate_0": r["win"][:, 0].astype(np.float64),
        "score_0": r["score"][:, 0].astype(np.float64),
        "score_1": r["score"][:, 1].astype(np.float64),
        "rounds": r["rounds"].astype(np.float64),
        "end_fame": (r["end"] == 0).astype(np.float64),
        "hires_0": r["hires"][:, 0].astype(np.float64),
        "dismissals_0": r["dismissals"][:, 0].astype(np.float64),
        "deck_size_0": r["deck_size"][:, 0].astype(np.float64),
        "max_fame_0": r["max_fame"][:, 0].astype(np.float64),
    }


def summary(n_games: int, start: int = 0) -> dict[str, dict[str, float]]:
    game = get("fliptoons")
    prep = game.prepare(2, [Seat("fame_per_cost")] * 2, None, game.card_table())
    sums = {k: [0.0, 0.0] for k in FIGURES}
    step = game.max_chunk_deals
    for lo in range(start, start + n_games, step):
        cols = columns(game.play(prep, KEY, lo, min(step, start + n_games - lo)))
        for k in FIGURES:
            sums[k][0] += float(cols[k].sum())
            sums[k][1] += float((cols[k] ** 2).sum())
    out = {}
    for k, (s, s2) in sums.items():
        mean = s / n_games
        sd = float(np.sqrt(max(0.0, s2 / n_games - mean * mean) * n_games / (n_games - 1)))
        half = 1.96 * sd / np.sqrt(n_games)
        out[k] = {"mean": mean, "sd": sd, "low": mean - half, "high": mean + half, "games": n_games}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--start", type=int, default=0, help="first game index")
    ap.add_argument("--save", help="write the figures to this JSON file")
    ap.add_argument("--compare", help="a JSON file of reference figures: is each figure in its 95%% interval?")
    args = ap.parse_args()
    t0 = time.perf_counter()
    figs = summary(args.games, args.start)
    ref = json.load(open(args.compare)) if args.compare else None
    print(f"fliptoons 2p fame_per_cost, cell key {KEY:#x}, games {args.start:,}..{args.start + args.games - 1:,} "
          f"({time.perf_counter() - t0:.0f} s)")
    inside = 0
    for k in FIGURES:
        f = figs[k]
        line = f"  {k:13s} {f['mean']:10.5f} [{f['low']:.5f}, {f['high']:.5f}]  sd {f['sd']:.4f}"
        if ref:
            r = ref[k]
            ok = r["low"] <= f["mean"] <= r["high"]
            inside += ok
            line += (f"   reference {r['mean']:.5f} [{r['low']:.5f}, {r['high']:.5f}]: "
                     f"{'inside' if ok else 'OUTSIDE'} its 95% interval")
        print(line)
    if ref:
        print(f"{inside} of {len(FIGURES)} figures inside the reference's 95% interval")
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(figs, fh, indent=1)


if __name__ == "__main__":
    main()
