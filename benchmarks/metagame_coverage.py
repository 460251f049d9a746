"""Coverage of the metagame's bootstrap intervals on a toy with a known answer.

Run from the repository root:  python benchmarks/metagame_coverage.py [--samples 200] [--deals 400] [--draws 200]

The toy is an uneven rock-paper-scissors cycle, A = [[.5, .7, .4], [.3, .5, .6], [.6, .4, .5]] (row's share of
comparisons won against column), whose symmetric Nash equilibrium is (1/4, 1/4, 1/2), and the transitive share
of whose table is 1/9.  Each sample plays ``--deals`` deals in which every pair meets once and the row wins
with probability A[i, j]; the 95% percentile intervals of ``stats.metagame`` (``--draws`` resamples of the
deals) are checked against the true values.  Writes benchmarks/metagame_coverage.csv.
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

from boardsim.stats import metagame as M  # noqa: E402

UNEVEN = np.array([[0.5, 0.7, 0.4], [0.3, 0.5, 0.6], [0.6, 0.4, 0.5]])
TRUTH = {"nash r": 0.25, "nash p": 0.25, "nash s": 0.5, "transitive": 1 / 9}


def sample(deals: int, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    out = np.zeros((deals, 3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            won = gen.random(deals) < UNEVEN[i, j]
            out[:, i, j], out[:, j, i] = won, ~won
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--draws", type=int, default=200)
    args = ap.parse_args()
    assert abs(M.transitive_share(UNEVEN) - TRUTH["transitive"]) < 1e-12
    hits = dict.fromkeys(TRUTH, 0)
    t0 = time.perf_counter()
    for rep in range(args.samples):
        per_deal = sample(args.deals, 1000 + rep)
        boot = M.bootstrap(per_deal, lambda a: np.append(M.nash(a), M.transitive_share(a)), args.draws, rep)
        lo, hi = M.percentile_interval(boot)
        for n, key in enumerate(TRUTH):
            hits[key] += int(lo[n] <= TRUTH[key] <= hi[n])
    rows = [{"quantity": k, "true": v, "covered": hits[k], "samples": args.samples,
             "coverage": hits[k] / args.samples, "deals": args.deals, "draws": args.draws} for k, v in TRUTH.items()]
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    print(f"{time.perf_counter() - t0:.0f} s")
    table.to_csv(ROOT / "benchmarks" / "metagame_coverage.csv", index=False)


if __name__ == "__main__":
    main()
