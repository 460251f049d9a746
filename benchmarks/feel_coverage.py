"""Coverage of feel's deal-level intervals on a toy with a known answer.

Run from the repository root:  python benchmarks/feel_coverage.py [--samples 1000] [--deals 200] [--length 10]

The toy is a fair two-seat race of ``--length`` rounds: each round one seat, drawn uniformly, scores a point.
Each deal is played twice with the seats swapped (the same race mirrored), so the two games of a deal are
perfectly correlated, as a deal's seatings are in the engines.  Known answers: the expected lead changes are
the null formula (``stats.feel.null_lead_changes_two``); the leader-wins share after the middle round and the
comeback rate come from a 2,000,000-race simulation.  Writes benchmarks/feel_coverage.csv.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from boardsim.stats import feel as F  # noqa: E402


def races(deals: int, length: int, gen: np.random.Generator) -> tuple[dict, np.ndarray]:
    scorer = gen.integers(0, 2, size=(deals, 1, length))
    walk = np.cumsum(scorer == np.arange(2)[None, :, None], axis=2)
    prog = np.concatenate([walk, walk[:, ::-1]])
    final = prog[:, :, -1]
    w0 = np.where(final[:, 0] > final[:, 1], 1.0, np.where(final[:, 0] < final[:, 1], 0.0, 0.5))
    win = np.stack([w0, 1.0 - w0], axis=1)
    return F.game_values(prog, prog, np.full(2 * deals, length), win, final), \
        np.concatenate([np.arange(deals), np.arange(deals)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--length", type=int, default=10)
    args = ap.parse_args()
    L, mid = args.length, (args.length + 1) // 2
    big, _ = races(1_000_000, L, np.random.default_rng(12345))
    lw = big["leader_win"][:, mid - 1]
    truth = {"lead_changes": F.null_lead_changes_two(L), "comeback_rate": float(np.nanmean(big["comeback_rate"])),
             f"leader_wins_round_{mid}": float(np.nanmean(lw))}
    gen = np.random.default_rng(1)
    hits = dict.fromkeys(truth, 0)
    t = time.time()
    for _ in range(args.samples):
        vals, deal = races(args.deals, L, gen)
        sums = F.DealSums(args.deals, L)
        sums.add(vals, deal)
        for name in ("lead_changes", "comeback_rate"):
            _, lo, hi = F.ratio_interval(sums.total[name], sums.count[name])
            hits[name] += lo <= truth[name] <= hi
        _, lo, hi = F.ratio_interval(sums.curve_total[:, mid - 1], sums.curve_count[:, mid - 1])
        hits[f"leader_wins_round_{mid}"] += lo <= truth[f"leader_wins_round_{mid}"] <= hi
    rows = [{"quantity": k, "truth": truth[k], "coverage": hits[k] / args.samples, "samples": args.samples,
             "deals": args.deals, "length": L} for k in truth]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    print(f"{time.time() - t:.0f} s")
    table.to_csv(ROOT / "benchmarks" / "feel_coverage.csv", index=False)


if __name__ == "__main__":
    main()
