"""Fidelity and speed of Circle the Wagons' ``fast`` and ``quick`` placements against exact ``greedy`` placement.

Run:  python benchmarks/bench_wagons_fast.py [--games N] [--duel N] [--modes fast,quick]
Prints, for the default drafting policy (gain_minus_gift) and each mode:
- on every placement of N games played with exact greedy placement (the town, card and opponent
  counts as they were), how often the mode picks a spot of the same exact value as greedy's, and the
  mean points (lands + goals, goal_weight 1) it gives up per placement;
- the head-to-head win rate of a seat placing with the mode against a ``greedy`` seat over 2 x --duel
  games (each seat order half the time; a shared tie counts a half), with a 95% interval;
- games per CPU-second of every mode and greedy on 1 thread, measured in alternating turns (the best of
  each), and each mode's ratio to greedy and to ``fast``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's boardsim, not an installed one

from boardsim.games.base import Seat  # noqa: E402
from boardsim.games.wagons import (
    GAME,  # noqa: E402
    policies,  # noqa: E402
)
from boardsim.games.wagons import fast as F  # noqa: E402
from boardsim.games.wagons import search as SR  # noqa: E402
from boardsim.games.wagons import town as TW  # noqa: E402

KEY = 0x10CA1


def prepared(a: str, b: str):
    return GAME.prepare(2, [Seat("gain_minus_gift", {"placement": a}), Seat("gain_minus_gift", {"placement": b})],
                        {}, GAME.card_table())


def best_spot(town, mode, card, opp_cnt, goals, prep, scratch):
    """policies.search for one card in the given mode: (x, y, rot, value it was chosen by)."""
    land, sym, idx, cx, cy, meta = town
    ws, detail, saved, state, bestv, spots, gifts = scratch
    cards = np.array([card], dtype=np.int64)
    policies.analyse(land, sym, idx, cx, cy, meta, goals, prep["goal_params"], opp_cnt, mode, 1.0, ws, detail)
    policies.search(land, sym, idx, cx, cy, meta, prep["card_land"], prep["card_sym"], cards, np.int64(0),
                    np.int64(1), goals,
                    prep["goal_params"], opp_cnt, mode, 1.0, ws, detail, saved, state, bestv, spots,
                    policies.RANK_NONE, 0.0, 0.0, gifts)
    return int(spots[0, 0]), int(spots[0, 1]), int(spots[0, 2]), float(bestv[0])


def exact_value(town, prep, card, x, y, rot, goals, opp_cnt, scratch):
    """The town's full score (lands + goals) with the card placed at (x, y, rot)."""
    land, sym, idx, cx, cy, meta = town
    ws, detail, saved = scratch[0], scratch[1], scratch[2]
    TW.place(land, sym, idx, cx, cy, meta, prep["card_land"][card], prep["card_sym"][card], x, y, rot, saved)
    v = TW.score(land, sym, idx, cx, cy, meta[TW.META_N], goals, prep["goal_params"], opp_cnt, np.bool_(True), ws,
                 detail)
    TW.unplace(land, sym, idx, meta, x, y, saved)
    return int(v)


def fidelity(n_games: int, mode: int = policies.PLACE_FAST) -> tuple[int, int, float]:
    """(placements, same-value placements, mean points lost) of a placement mode over the placements of
    exact greedy games."""
    prep = prepared("greedy", "greedy")
    result = GAME.play(prep, KEY, 0, n_games)
    scratch = (np.zeros((F.WS_ROWS, SR.FS_WIDTH), dtype=np.int64), np.zeros(TW.N_LANDS + 3, dtype=np.int64),
               np.zeros(TW.N_SAVED, dtype=np.int64), np.zeros(4, dtype=np.uint64), np.zeros(15),
               np.zeros((15, 3), dtype=np.int64), np.zeros(15))
    placements = same = 0
    lost = 0
    for i in range(n_games):
        events = GAME.trace_events(prep, KEY, i)
        goals = np.array([result[f"goal{g}"][i] for g in range(3)], dtype=np.int64)
        land, sym, idx, cx, cy, meta = TW.new_towns(2)
        cnt = np.zeros((2, TW.N_SYMBOLS), dtype=np.int64)
        for e in events:
            p, c, x, y, rot = (int(v) for v in e[:5])
            town = (land[p], sym[p], idx[p], cx[p], cy[p], meta[p])
            if meta[p, TW.META_N] > 0:
                best = exact_value(town, prep, c, x, y, rot, goals, cnt[1 - p], scratch)
                fx, fy, frot, _ = best_spot(town, mode, c, cnt[1 - p], goals, prep, scratch)
                got = exact_value(town, prep, c, fx, fy, frot, goals, cnt[1 - p], scratch)
                placements += 1
                same += got == best
                lost += best - got
            was_empty = meta[p, TW.META_N] == 0
            TW.place(*town[:6], prep["card_land"][c], prep["card_sym"][c], x, y, rot, scratch[2])
            TW.commit(meta[p], x, y, was_empty)
            TW.count_symbols(sym[p], cx[p], cy[p], meta[p, TW.META_N], cnt[p])
    return placements, same, lost / max(1, placements)


def duel(n_games: int, mode: str = "fast") -> tuple[float, float, float]:
    """Win rate of a seat placing with ``mode`` against a greedy seat (both seat orders), with a 95% normal
    interval."""
    wins = []
    for k, (a, b) in enumerate(((mode, "greedy"), ("greedy", mode))):
        w = GAME.play(prepared(a, b), KEY + 1 + k, 0, n_games)["win"][:, 0 if a == mode else 1]
        wins.append(w)
    w = np.concatenate(wins)
    m = float(w.mean())
    half = 1.96 * float(w.std(ddof=1)) / math.sqrt(w.size)
    return m, m - half, m + half


def speeds(n_games: int, modes: tuple[str, ...] = ("fast",), turns: int = 3) -> dict[str, float]:
    """Games per CPU-second of each mode and greedy (both seats), alternating runs; the best of each."""
    numba.set_num_threads(1)
    preps = {m: prepared(m, m) for m in (*modes, "greedy")}
    best = {m: 0.0 for m in preps}
    for r in range(turns):
        for m, prep in preps.items():
            c0 = time.process_time()
            for start in range(0, n_games, 1000):
                GAME.play(prep, KEY + 10 + r, start, min(1000, n_games - start))
            best[m] = max(best[m], n_games / max(1e-9, time.process_time() - c0))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=300, help="greedy games whose placements are compared")
    ap.add_argument("--duel", type=int, default=5000, help="games per seat order in the head-to-head")
    ap.add_argument("--speed", type=int, default=2000, help="games per timed run")
    ap.add_argument("--modes", default="fast,quick", help="placement modes to measure, comma-separated")
    args = ap.parse_args()
    modes = tuple(args.modes.split(","))
    for m in modes:
        if m not in policies.PLACEMENTS or m in ("greedy", "random"):
            ap.error(f"--modes: {m!r} is not an estimated placement mode")
    GAME.play(prepared(modes[0], "greedy"), 1, 0, 50)  # compile or load from cache
    for m in modes:
        n, same, lost = fidelity(args.games, policies.PLACEMENTS.index(m))
        print(f"{m}: placements compared: {n} (from {args.games} greedy games)")
        print(f"{m}: same value as greedy: {same / n:.1%}")
        print(f"{m}: mean points lost per placement: {lost:.3f}")
        w, lo, hi = duel(args.duel, m)
        print(f"{m} vs greedy head-to-head win rate: {w:.3f} (95% interval {lo:.3f}-{hi:.3f}, {2 * args.duel} games)")
    rates = speeds(args.speed, modes)
    greedy = rates["greedy"]
    print(f"games per CPU-second, 1 thread: greedy {greedy:,.0f}")
    for m in modes:
        vs_fast = f", {rates[m] / rates['fast']:.2f}x fast" if "fast" in rates and m != "fast" else ""
        print(f"  {m} {rates[m]:,.0f} ({rates[m] / greedy:.2f}x greedy{vs_fast})")


if __name__ == "__main__":
    main()
