"""Which card measure means what a designer reads into it, measured on the four properties of issue 41 in
FlipToons: strength (the card's swing, hiring it whenever possible minus never, minus the average market
card's), regret (the favouring seat's share minus the base player's), and, in ``candidates``, the two other
designs considered (favour-the-card minus favour-the-average-card; the average card's ban value).

Run from the repository root:
    python benchmarks/card_measure.py [--players 2 3 4] [--games 10000] [--base fame_per_cost]
                                      [--parts candidates monotone placebo stable sensitive timing] [--strong Goat]

- **candidates**: every market card's favouring and avoiding arm on one seed and another, and on a table
  where ``--strong`` is over-strong: per design, Spearman's rho between the seeds, the over-strong card's
  value and rank, the mean over cards and the extremes.  Designs: ``swing`` (strength), ``favour`` (favour
  the card minus favour the average card), ``ban`` (the average card's avoiding arm minus the card's: what
  losing it costs) and ``regret``.

- **monotone**: every market card at its fame -2 .. +2 (values the card accepts); a step up that lowers a
  measure by more than noise (the drop over the two values' combined standard error above 1.96) is a
  violation.  Both measures come from the same arms (regret is the favouring arm minus 1/P).
- **placebo**: every market card made a plain fame-2 card with 2 copies and rank 10 (no bonus, no ability;
  names as today): every card is the average card, so each should read 0; counts of flags and the largest
  |value|.  (Copies and rank are part of a card: a card with more copies swings more, and rank orders the
  market, so it sets the slot and the price.)
- **stable**: the ranking of the 25 cards under two seeds, Spearman's rho.
- **sensitive**: ``--strong`` made over-strong (fame +6): flagged strong, and its rank, at each count.
- **timing**: ``cards`` for all 25 cards at 2, 3 and 4 players under fame_per_cost and learned, 20,000 games
  per arm, wall seconds (issue 41's target: within 15 minutes on 2 cores).

Prints each part with the yardstick and writes ``benchmarks/card_measure.csv``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timing import yardstick  # noqa: E402

from boardsim import rng  # noqa: E402
from boardsim.analysis.balance import card_effects, card_strength, deal_shares  # noqa: E402
from boardsim.cell import make_cell  # noqa: E402
from boardsim.games import get  # noqa: E402
from boardsim.games.base import Seat  # noqa: E402

GAME = get("fliptoons")
PLAIN = {"bonus": "none", "bonus_fame": 0, "bonus_param": 0, "banner": "", "hired": "", "hired_a": 0, "hired_b": 0,
         "on_dismiss": "", "place": "", "hook": "", "dismiss_cost": 5, "target": "", "fame": 2, "copies": 2,
         "solo_copies": 2, "rank": 10}


def measures(rows: list[dict], players: int) -> list[dict]:
    """Each card_effects row as two rows, one per measure (value, lo, hi, se)."""
    out = []
    for r in rows:
        for measure, (v, lo, hi) in (("strength", (r["effect"], r["effect_lo"], r["effect_hi"])),
                                     ("regret", (r["regret"], r["regret_lo"], r["regret_hi"]))):
            out.append({"players": players, "measure": measure, "card": r["card"], "value": v, "lo": lo, "hi": hi,
                        "se": (hi - lo) / (2 * 1.96), "p_value": r["p_value"] if measure == "strength" else None})
    return out


def _designs(table: pd.DataFrame, n: int, base: Seat, games: int, seed: int) -> tuple[list[str], dict]:
    """Per design, (mean, standard error) per market card, from every card's favouring and avoiding arm."""
    market = GAME.market_cards(table)
    key = rng.cell_key(seed, 0)
    fav, avo = [], []
    for c in market:
        for make, into in ((GAME.favour, fav), (GAME.avoid, avo)):
            cell = make_cell(GAME, n, [make(c, base)] + [base] * (n - 1), {}, table, seating_design="all")
            into.append(deal_shares(cell, key, 0, 0, -(-games // len(cell.prepared))))
    F, A = np.array(fav), np.array(avo)
    per_deal = {"swing": (F - A) - (F - A).mean(0), "favour": F - F.mean(0), "ban": A.mean(0) - A,
                "regret": F - 1.0 / n}
    return market, {k: (v.mean(1), v.std(1, ddof=1) / np.sqrt(v.shape[1])) for k, v in per_deal.items()}


def _over_strong(strong: str) -> tuple[int, pd.DataFrame]:
    """``strong``'s fame today and the table with it 6 higher (the synthetic over-strong card)."""
    table = GAME.card_table()
    now = int(table.loc[table["name"] == strong, "fame"].iloc[0])
    return now, GAME.card_table({strong: {"fame": now + 6}})


def candidates(counts: list[int], base: Seat, games: int, seed: int, strong: str) -> pd.DataFrame:
    table = GAME.card_table()
    _, over = _over_strong(strong)
    rows = []
    for n in counts:
        market, a = _designs(table, n, base, games, seed)
        _, b = _designs(table, n, base, games, seed + 1000)
        _, s = _designs(over, n, base, games, seed)
        i = market.index(strong)
        for k in a:
            rho = stats.spearmanr(a[k][0], b[k][0]).statistic
            m, se = s[k]
            rank = int((m > m[i]).sum()) + 1
            top, low = int(np.argmax(a[k][0])), int(np.argmin(a[k][0]))
            print(f"{n}p {k:>6}: rho between seeds {rho:.3f}; {strong} +6 fame reads {100 * m[i]:+.1f} "
                  f"(se {100 * se[i]:.1f}), rank {rank}; mean over cards {100 * a[k][0].mean():+.2f}; "
                  f"top {market[top]} {100 * a[k][0][top]:+.1f}, bottom {market[low]} {100 * a[k][0][low]:+.1f}")
            rows.append({"part": "candidates", "players": n, "measure": k, "card": strong, "value": m[i],
                         "se": se[i], "rank": rank, "rho": rho, "mean": a[k][0].mean()})
    return pd.DataFrame(rows)


def monotone(counts: list[int], base: Seat, games: int, seed: int) -> pd.DataFrame:
    table = GAME.card_table()
    rows = []
    for n in counts:
        t0 = time.perf_counter()
        for card in GAME.market_cards(table):
            now = int(table.loc[table["name"] == card, "fame"].iloc[0])
            for v in range(now - 2, now + 3):
                try:
                    edited = GAME.card_table({card: {"fame": v}})
                except Exception:  # a value the card does not accept
                    continue
                for r in measures(card_effects(GAME, n, base, [card], edited, games, seed), n):
                    rows.append({"part": "monotone", **r, "fame": v, "step": v - now})
        print(f"  monotone at {n} players: {time.perf_counter() - t0:.0f} s", flush=True)
    frame = pd.DataFrame(rows)
    for (n, measure), part in frame.groupby(["players", "measure"]):
        drops, beyond, worst = 0, [], 0.0
        for card, c in part.groupby("card"):
            c = c.sort_values("fame")
            for a, b in zip(c.itertuples(), c.iloc[1:].itertuples(), strict=False):
                drop = a.value - b.value
                if drop > 0:
                    drops += 1
                    z = drop / np.hypot(a.se, b.se)
                    worst = max(worst, drop)
                    if z > 1.96:
                        beyond.append(f"{card} {a.fame}->{b.fame} ({-100 * drop:+.1f})")
        steps = sum(len(c) - 1 for _, c in part.groupby("card"))
        print(f"{n}p {measure}: {drops} of {steps} steps up in fame lower it, {len(beyond)} beyond noise "
              f"(z > 1.96){': ' + ', '.join(beyond) if beyond else ''}; largest drop {100 * worst:.1f} points")
    return frame


def placebo(counts: list[int], base: Seat, games: int, seed: int) -> pd.DataFrame:
    table = GAME.card_table()
    market = table["starter"] == 0
    clone = table.copy()
    for col, v in PLAIN.items():
        clone.loc[market, col] = v
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "plain.csv"
        clone.to_csv(path, index=False)
        plain = GAME.card_table(card_file=str(path))
    rows = []
    for n in counts:
        found = card_strength(GAME, n, base, GAME.market_cards(plain), plain, games, seed)
        for measure, col in (("strength", "effect"), ("regret", "regret")):
            v = found[col]
            flagged = int((found["flag"] != "").sum()) if measure == "strength" else int(
                ((found["regret_lo"] > 0) | (found["regret_hi"] < 0)).sum())
            print(f"{n}p placebo market (every card plain: fame 2, 2 copies, rank 10), {measure}: "
                  f"mean {100 * v.mean():+.2f} points, "
                  f"largest |value| {100 * v.abs().max():.2f}, "
                  f"{flagged} of {len(v)} {'flagged (Holm)' if measure == 'strength' else 'intervals exclude 0'}")
        rows += [{"part": "placebo", **r} for r in measures(found.to_dict("records"), n)]
    return pd.DataFrame(rows)


def stable(counts: list[int], base: Seat, games: int, seed: int) -> pd.DataFrame:
    table = GAME.card_table()
    cards = GAME.market_cards(table)
    rows = []
    for n in counts:
        a = card_strength(GAME, n, base, cards, table, games, seed).set_index("card")
        b = card_strength(GAME, n, base, cards, table, games, seed + 1000).set_index("card")
        rho = stats.spearmanr(a.loc[cards, "effect"], b.loc[cards, "effect"]).statistic
        agree = float((a.loc[cards, "flag"] == b.loc[cards, "flag"]).mean())
        print(f"{n}p stable: Spearman rho between seeds {seed} and {seed + 1000}: {rho:.3f} (target >= 0.95); "
              f"flags agree on {agree:.0%} of cards; mean strength {100 * a['effect'].mean():+.2f}, "
              f"mean regret {100 * a['regret'].mean():+.2f} points")
        rows.append({"part": "stable", "players": n, "measure": "strength", "value": rho, "card": "(spearman)"})
    return pd.DataFrame(rows)


def sensitive(counts: list[int], base: Seat, games: int, seed: int, strong: str) -> pd.DataFrame:
    now, edited = _over_strong(strong)
    rows = []
    for n in counts:
        found = card_strength(GAME, n, base, GAME.market_cards(edited), edited, games, seed)
        me = found[found["card"] == strong].iloc[0]
        print(f"{n}p sensitive: {strong} at fame {now + 6} (today {now}): strength {100 * me['effect']:+.1f} "
              f"[{100 * me['effect_lo']:+.1f}, {100 * me['effect_hi']:+.1f}], rank {int(me['rank'])} of {len(found)}, "
              f"flag {me['flag'] or '-'}; regret {100 * me['regret']:+.1f}")
        rows += [{"part": "sensitive", **r, "rank": int(me["rank"]), "flag": me["flag"]}
                 for r in measures([me.to_dict()], n)]
    return pd.DataFrame(rows)


def timing(games: int, seed: int) -> pd.DataFrame:
    from boardsim.analysis.jobs import cards_job

    rows = []
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        job = cards_job("fliptoons", players=[2, 3, 4], games=games, seed=seed,
                        base=[Seat("fame_per_cost"), Seat("learned")], out=Path(d) / "cards")
        took = time.perf_counter() - t0
    changes = job.extra["changes"]
    print(f"timing: cards fliptoons, 25 cards x 2, 3, 4 players x fame_per_cost and learned, {games:,} games per "
          f"arm: {took:.0f} s (target <= 900 s); {len(changes)} verdicts change with skill")
    rows.append({"part": "timing", "value": took, "card": "(seconds)", "measure": "cards"})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--base", default="fame_per_cost")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strong", default="Goat")
    ap.add_argument("--parts", nargs="+",
                    default=["candidates", "monotone", "placebo", "stable", "sensitive", "timing"])
    args = ap.parse_args()
    print(yardstick(), flush=True)
    base = Seat(args.base)
    frames = []
    for part in args.parts:
        t0 = time.perf_counter()
        if part == "candidates":
            frames.append(candidates(args.players, base, args.games, args.seed, args.strong))
        elif part == "monotone":
            frames.append(monotone(args.players, base, args.games, args.seed))
        elif part == "placebo":
            frames.append(placebo(args.players, base, args.games, args.seed))
        elif part == "stable":
            frames.append(stable(args.players, base, args.games, args.seed))
        elif part == "sensitive":
            frames.append(sensitive(args.players, base, args.games, args.seed, args.strong))
        elif part == "timing":
            frames.append(timing(20_000, args.seed))
        print(f"  ({part}: {time.perf_counter() - t0:.0f} s)", flush=True)
    out = ROOT / "benchmarks" / "card_measure.csv"
    found = pd.concat(frames)
    found.insert(0, "base", args.base)
    if out.exists():  # other bases' and parts' rows stay: a run replaces only its own
        old = pd.read_csv(out)
        keep = ~(old["base"].eq(args.base) & old["part"].isin(args.parts)) if "base" in old else old["part"].isna()
        found = pd.concat([old[keep], found])
    found.to_csv(out, index=False)
    print(f"wrote {out.relative_to(ROOT)}; {yardstick()}")


if __name__ == "__main__":
    main()
