"""The answer a report opens with, in plain sentences, and the caveats that apply to it.

Sentences come from the folder's tables: a sweep's per-policy summary rows (the answer that does not
depend on who sat where), a tournament's ratings, head-to-head rates and cycles, a card-strength run's
flags, an optimizer's fresh-seed check.  Each caveat is computed from the data and shown only when it
applies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

ROUND_CAP_SHARE = 0.001  # more games than this ending at the round cap earns a caveat
LISTED = 4  # at most this many examples per caveat; the rest are counted


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def interval(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def share_text(players: int) -> str:
    """The fair share 1/players as a short percentage: 50%, 33.3%, 25%."""
    return f"{100 / players:.3g}%"


def _cells_named(frame: pd.DataFrame) -> bool:
    """Whether sentences must say which grid cell they are about."""
    return "label" in frame.columns and (frame["cell"].nunique() > 1 or str(frame["label"].iloc[0]) != "all")


def _policy_rows(summary: pd.DataFrame) -> pd.DataFrame:
    if "level" in summary.columns and (summary["level"] == "policy").any():
        return summary[summary["level"] == "policy"]
    d = summary.copy()  # an older summary without policy rows: per seat
    d["policy"] = "seat " + d["seat"].astype(str) + " (" + d["policy"].astype(str) + ")"
    d["seats"] = 1
    return d


def sweep_answer(summary: pd.DataFrame) -> list[str]:
    """One sentence per grid cell: the policy with the highest win rate, its interval and the fair share,
    and the policies behind it."""
    if summary.empty or "win_rate" not in summary.columns:
        return []
    rows = _policy_rows(summary)
    named = _cells_named(rows)
    out = []
    for _, part in rows.groupby("cell", sort=False):
        part = part.sort_values("win_rate", ascending=False, kind="stable")
        best = part.iloc[0]
        players = int(best["players"]) if "players" in part.columns else 0
        where = f"{best['label']}: " if named else ""
        rate = f"{pct(best['win_rate'])} {interval(best['win_lo'], best['win_hi'])}"
        per_seat = f" per seat (it holds {int(best['seats'])})" if int(best.get("seats", 1)) > 1 else ""
        if players == 1:
            text = f"{where}{best['policy']} wins {rate} of solo games"
        else:
            text = (f"{where}{best['policy']} wins {rate} of {players}-player games{per_seat} "
                    f"(fair share {share_text(players)})")
        others = part.iloc[1:]
        if len(others):
            text += ", ahead of " + ", ".join(
                f"{r['policy']} {pct(r['win_rate'])} {interval(r['win_lo'], r['win_hi'])}"
                for _, r in others.iterrows())
        text += "."
        if len(others) and best["win_lo"] <= others.iloc[0]["win_hi"]:
            text += (f" The intervals of {best['policy']} and {others.iloc[0]['policy']} overlap: this cell has "
                     f"no clear winner at {int(best['games']):,} games.")
        elif len(others) == 0 and players > 1:
            text += f" Every seat plays {best['policy']}."
        out.append(text)
    return out


def tournament_answer(ratings: pd.DataFrame, pairwise: pd.DataFrame, cycles: pd.DataFrame,
                      players: int | None) -> list[str]:
    """The strongest policy by rating, how it fares head to head, and any non-transitive triples."""
    out = []
    at = f" at {players} players" if players else ""
    if not ratings.empty:
        r = ratings.sort_values("rating", ascending=False, kind="stable")
        top = r.iloc[0]
        text = (f"Tournament{at}: {top['policy']} rates highest (Bradley-Terry {top['rating']:+.2f} "
                f"[{top['rating_lo']:+.2f}, {top['rating_hi']:+.2f}])")
        if len(r) > 1:
            text += ", then " + ", ".join(f"{x['policy']} {x['rating']:+.2f}" for _, x in r.iloc[1:].iterrows())
        out.append(text + ".")
        if not pairwise.empty:
            mine = pairwise[pairwise["policy"] == top["policy"]]
            if len(mine):
                out.append(
                    f"Head to head, {top['policy']} finishes ahead of "
                    + ", ".join(f"{m['opponent']} in {pct(m['win_rate'])} {interval(m['win_lo'], m['win_hi'])}"
                                for _, m in mine.iterrows())
                    + " of comparisons (fair share 50%).")
    elif not pairwise.empty:
        out.append(f"Tournament{at}: head-to-head shares of comparisons won are in the heat map (fair share 50%).")
    if not cycles.empty:
        loops = [f"{c['a']} beats {c['b']}, {c['b']} beats {c['c']}, and {c['c']} beats {c['a']}"
                 for _, c in cycles.iterrows()]
        out.append("No policy is best against every other: " + "; ".join(loops[:LISTED])
                   + (f" (and {len(loops) - LISTED} more cycles)" if len(loops) > LISTED else "")
                   + ", each with an interval that excludes 50% (tournament_cycles.csv).")
    return out


def ladder_answer(skill: pd.DataFrame, first: pd.DataFrame, ladder: pd.DataFrame) -> list[str]:
    """Skill's share of outcomes, the distinguishable levels, and the first-player edge for the weakest and
    the strongest rung."""
    s = skill.iloc[0]
    out = [f"Skill decides about {pct(s['skill_share'])} {interval(s['skill_share_lo'], s['skill_share_hi'])} of "
           f"outcomes: {s['strongest']} finishes ahead of random in {pct(s['strongest_vs_random'])} of comparisons. "
           f"The ladder has {int(s['skill_depth'])} distinguishable levels of {int(s['rungs'])} rungs, and an Elo "
           f"span of {s['elo_span']:.0f} from random to the strongest."]
    if not first.empty:
        by = first.set_index("policy")
        fair = float(first["fair_share"].iloc[0])

        def edge(name: str) -> str:
            r = by.loc[name]
            return f"{pct(r['first_player_rate'])} {interval(r['lo'], r['hi'])}"

        weak = "random" if "random" in by.index else first["policy"].iloc[0]
        strong = str(s["strongest"]) if s["strongest"] in by.index else first["policy"].iloc[-1]
        text = (f"The first player wins {edge(weak)} of self-play games for beginners ({weak}) and "
                f"{edge(strong)} for strong players ({strong}); the fair share is {pct(fair)}.")
        heur = [p for p in ladder["policy"] if p != "random" and not str(p).startswith("mcts")] if len(ladder) else []
        if heur and heur[0] in by.index and heur[0] != strong:
            text += f" The best heuristic, {heur[0]}: {edge(heur[0])}."
        out.append(text)
    return out


def _split_skill(label: str) -> tuple[str, str]:
    """``skill=mcts(iterations=200); fame_goal=25`` -> (``mcts(iterations=200)``, ``fame_goal=25``)."""
    head, _, rest = str(label).partition("; ")
    return head[len("skill="):], rest or "every cell"


def skill_answer(positions: pd.DataFrame) -> list[str]:
    """A sweep with a ``[skill]`` axis: the first player's win rate at each skill level, per rule variant, and
    the variants whose verdict (an edge whose interval excludes the fair share, or none) changes with skill."""
    if positions.empty or not positions["label"].astype(str).str.startswith("skill=").all():
        return []
    first = positions[positions["position"] == 0]
    parts, changed = [], []
    by_variant: dict[str, list[tuple[str, pd.Series]]] = {}
    for _, r in first.iterrows():
        level, variant = _split_skill(r["label"])
        n = int(r["players"])
        variant = "; ".join(v for v in variant.split("; ") if v not in (f"players={n}", "every cell"))
        by_variant.setdefault(f"{variant} at {n} players" if variant else f"{n} players", []).append((level, r))
    for variant, rows in by_variant.items():
        fair = 1.0 / int(rows[0][1]["players"])
        parts.append(f"{variant}: " + ", ".join(f"{lvl} {pct(r['win_rate'])} {interval(r['win_lo'], r['win_hi'])}"
                                                for lvl, r in rows))
        verdicts = {lvl: ("an edge" if r["win_lo"] > fair else "a handicap" if r["win_hi"] < fair else "no edge")
                    for lvl, r in rows}
        if len(set(verdicts.values())) > 1:
            changed.append(f"{variant} ({'; '.join(f'{v} under {lvl}' for lvl, v in verdicts.items())})")
    out = ["First player's win rate by skill level (each level plays every seat; fair share 1/players): "
           + "; ".join(parts) + "."]
    out.append("The first-player verdict changes with skill: " + "; ".join(changed) + "." if changed else
               "The first-player verdict (an edge, a handicap or none, by whether the interval excludes the fair "
               "share) is the same at every skill level.")
    return out


def cards_answer(strength: pd.DataFrame, verdicts: pd.DataFrame | None = None) -> list[str]:
    """Per player count (and base player, on a skill axis): the strongest and weakest card when favoured, and
    the flagged ones; then the cards whose verdict changes with skill."""
    out = []
    keys = ["base", "players"] if "base" in strength.columns and strength["base"].nunique() > 1 else ["players"]
    for key, part in strength.groupby(keys, sort=False):
        n = key[-1] if isinstance(key, tuple) else key
        who = f" under {key[0]}" if len(keys) == 2 else ""
        part = part.sort_values("effect", ascending=False, kind="stable")
        top, low = part.iloc[0], part.iloc[-1]
        text = (f"At {n} players{who}, {top['card']} is the strongest card: {100 * top['effect']:+.1f} points "
                f"[{100 * top['effect_lo']:+.1f}, {100 * top['effect_hi']:+.1f}] of win rate more than the average "
                f"market card hangs on it (hiring it whenever possible against never); {low['card']} the weakest "
                f"({100 * low['effect']:+.1f} [{100 * low['effect_lo']:+.1f}, {100 * low['effect_hi']:+.1f}]).")
        if "flag" in part.columns:
            flags = part["flag"].astype(object).fillna("").astype(str)
            strong = list(part.loc[flags == "strong", "card"])
            weak = list(part.loc[flags == "weak", "card"])
            text += (f" Flagged strong: {', '.join(strong) or 'none'}; weak: {', '.join(weak) or 'none'}"
                     " (strength differs from the average card's after Holm's correction).")
        out.append(text)
    if len(keys) == 2:
        levels = list(dict.fromkeys(strength["base"]))
        if verdicts is None or verdicts.empty:
            out.insert(0, f"No card's verdict changes with skill ({' vs '.join(levels)}): each is flagged, or not, "
                          "alike at every level, and no effect changes sign.")
        else:
            items = [f"{r['card']} at {r['players']} players ("
                     + ", ".join(f"{r.get(f'flag [{b}]', '-')} under {b}" for b in levels) + ")"
                     for _, r in verdicts.iterrows()]
            out.insert(0, f"{len(items)} card verdict{'s' if len(items) != 1 else ''} change with skill "
                          f"({' vs '.join(levels)}): " + "; ".join(items)
                          + ". Each level's effect is measured on the same deals; '-' is not flagged.")
    return out


def suggestions_answer(suggestions: pd.DataFrame) -> list[str]:
    """The fair-value sweep's suggestion per card, in game terms, with each level's predicted strength."""
    lines = []
    for r in suggestions.to_dict("records") if len(suggestions) else []:
        at = ", ".join(f"{k[len('effect_at_'):]} {100 * v:+.1f}" for k, v in r.items()
                       if k.startswith("effect_at_") and pd.notna(v))
        verdict = ("fair (every interval contains 0) at every player count and base player tested"
                   if r["fair_everywhere"] else "the fairest value tested, though not fair everywhere")
        move = (f"{r['field']} {r['current']} -> {r['suggested']}" if r["suggested"] != r["current"]
                else f"keep {r['field']} {r['current']}")
        lines.append(f"Suggestion for {r['card']}: {move}, {verdict}; its strength there, in points: {at}.")
    return lines


def optimize_answer(check: pd.DataFrame) -> list[str]:
    by = {r["which"]: r for _, r in check.iterrows()}
    if "best" not in by or "start" not in by:
        return []
    best, start = by["best"], by["start"]
    if "figure" in check.columns:  # a feel target
        text = (f"Towards {best['target']}, the best parameters found, {best['params']}, give "
                f"{best['figure']:.3g} [{best['figure_lo']:.3g}, {best['figure_hi']:.3g}] on fresh deals, against "
                f"{start['figure']:.3g} [{start['figure_lo']:.3g}, {start['figure_hi']:.3g}] for the start "
                f"({start['params']})")
        if "best - start" in by:
            d = by["best - start"]
            text += f": a paired difference of {d['figure']:+.3g} [{d['figure_lo']:+.3g}, {d['figure_hi']:+.3g}]"
        met = "met" if best["shortfall"] == 0 else f"missed by {abs(best['shortfall']):.3g}"
        return [text + f"; the target is {met} at the best parameters."]
    text = (f"The best parameters found, {best['params']}, win {pct(best['win_rate'])} "
            f"{interval(best['win_lo'], best['win_hi'])} on fresh deals, against {pct(start['win_rate'])} "
            f"{interval(start['win_lo'], start['win_hi'])} for the start ({start['params']})")
    if "best - start" in by:
        d = by["best - start"]
        text += (f": a paired difference of {100 * d['win_rate']:+.1f} points "
                 f"[{100 * d['win_lo']:+.1f}, {100 * d['win_hi']:+.1f}]")
    return [text + "."]


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LISTED])
    return shown + (f" and {len(items) - LISTED} more" if len(items) > LISTED else "")


def caveats(summary: pd.DataFrame, read: Callable[[str], pd.DataFrame]) -> list[str]:
    """The caveats that apply to this folder's results; ``read(name)`` gives a table of the folder.

    The seat-list warnings of run.json (a listed policy that never played, repeated policies) are
    caveats too; the index page lists them after these.
    """
    out = []
    rows = _policy_rows(summary) if not summary.empty and "win_rate" in summary.columns else pd.DataFrame()
    named = not rows.empty and _cells_named(rows)
    if not rows.empty and {"seating_spread", "arrangements"} <= set(rows.columns):
        wide = rows[(rows["arrangements"] > 1) & (rows["seating_spread"] > rows["win_hi"] - rows["win_lo"])]
        if len(wide):
            items = [f"{r['policy']}{' (' + str(r['label']) + ')' if named else ''} spreads "
                     f"{100 * r['seating_spread']:.1f} points against an interval "
                     f"{100 * (r['win_hi'] - r['win_lo']):.1f} wide" for _, r in wide.iterrows()]
            out.append("Where a policy sits matters more than its interval shows: between seat arrangements, "
                       f"{_listed(items)}. The answer pools every arrangement; seatings.csv gives each one (each "
                       "arrangement has fewer games, so part of the spread is noise).")
    if not rows.empty and "end_round_cap" in rows.columns:
        capped = rows.groupby("cell", sort=False).first()
        capped = capped[capped["end_round_cap"] > ROUND_CAP_SHARE]
        if len(capped):
            items = [f"{pct(r['end_round_cap'])}{' in ' + str(r['label']) if named else ''}"
                     for _, r in capped.iterrows()]
            out.append(f"Games ended at the round cap (rules.max_rounds): {_listed(items)} of games. Those games "
                       "were stopped, not played out, so their winners say little about the policies.")
    synthetic = []
    for name, col, what in (("balance_goals.csv", "name", "goals"), ("balance_start_card.csv", "card", "cards")):
        table = read(name)
        if not table.empty and "source" in table.columns:
            names = list(dict.fromkeys(table.loc[table["source"] == "synthetic", col].astype(str)))
            if names:
                synthetic.append(f"{what} {', '.join(names)}")
    if synthetic:
        out.append(f"Synthetic data were in play ({'; '.join(synthetic)}): their values were made up where the "
                   "rulebook's were not known (the source column of the card and goal tables), so results that "
                   "involve them describe a stand-in, not the published game.")
    correlational = []
    cards = read("balance_cards.csv")
    if not cards.empty and "owner_win_rate" in cards.columns:
        correlational.append("the owner win rate (balance_cards.csv) compares seats that ended up owning a card with "
                             "those that did not, and stronger play also buys more cards; the card's causal effect "
                             "is the paired measure of `python -m boardsim cards` (balance_card_strength.csv)")
    goals = read("balance_goals.csv")
    if not goals.empty and "leader_win_rate" in goals.columns:
        correlational.append("the goal-leader win rate (balance_goals.csv) says the player who scored more from a "
                             "goal usually won, which the better player does anyway; a goal's effect is measured by "
                             "a grid over rules.fixed_goal on the same seeds (paired deals), or seat0_effect")
    critic = read("balance_critic.csv")
    if not critic.empty and "critic_holder_win_rate" in critic.columns:
        correlational.append("the Critic's Choice holder win rate (balance_critic.csv) is earned in play, so it "
                             "mixes the card's effect with the holder's strength")
    if correlational:
        out.append("Correlational, not causal: " + "; ".join(correlational) + ".")
    return out


def meta_answer(shares: pd.DataFrame, split: pd.DataFrame, players: int | None = None) -> list[str]:
    """Which policies survive in the metagame's equilibrium and at what share, what alpha-Rank and the
    replicator dynamics say, and how much of the head-to-head table is a cycle."""
    if shares.empty:
        return []
    s = shares.sort_values("nash", ascending=False, kind="stable")
    alive = s[s["nash"] > 0.005]
    at = f" at {players} players" if players else ""
    out = [f"Metagame{at}: the Nash equilibrium of the head-to-head table mixes "
           + ", ".join(f"{r['policy']} {pct(r['nash'])} {interval(r['nash_lo'], r['nash_hi'])}"
                       for _, r in alive.iterrows())
           + (_no_share(list(s[s["nash"] <= 0.005]["policy"])) if len(alive) < len(s) else "")
           + "."]
    top_a = shares.loc[shares["alpha_rank"].idxmax()]
    top_r = shares.loc[shares["replicator"].idxmax()]
    out.append(f"alpha-Rank (alpha = {float(shares['alpha'].iloc[0]):g}) puts {pct(top_a['alpha_rank'])} "
               f"{interval(top_a['alpha_rank_lo'], top_a['alpha_rank_hi'])} on {top_a['policy']}; the replicator "
               f"dynamics from equal shares spend {pct(top_r['replicator'])} "
               f"{interval(top_r['replicator_lo'], top_r['replicator_hi'])} of their time on {top_r['policy']}.")
    if not split.empty:
        r = split.iloc[0]
        out.append(f"The head-to-head table is {pct(r['transitive'])} "
                   f"{interval(r['transitive_lo'], r['transitive_hi'])} transitive (a rating explains it) and "
                   f"{pct(r['cyclic'])} cyclic (meta_split.csv).")
    return out


def _no_share(names: list[str]) -> str:
    return f"; {names[0]} gets no share" if len(names) == 1 else \
        f"; {', '.join(names[:-1])} and {names[-1]} get no share"
