"""The feel report: its answer sentences and the leader-wins chart (from feel.csv and leader_wins.csv)."""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import MaxNLocator

from boardsim.report.plots import (
    FAIR_STYLE,
    TITLE_SIZE,
    figure_legend,
    heading,
    match_limits,
    new_figure,
    panel_title,
    panels,
    save,
)

DECISIVE = 0.90  # stats.feel.DECISIVE, drawn as the decisiveness line
MIN_GAMES = 30  # a round of the curve played by fewer games is not drawn (its interval is noise)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def feel_answer(metrics: pd.DataFrame, curve: pd.DataFrame) -> list[str]:
    """One sentence per player count: at the middle round of the first level's typical game, how often the
    leader wins under each level (with its interval), the decisiveness round, and the lead changes against a
    fair random walk of the same length."""
    out = []
    for P, m in metrics.groupby("players", sort=True):
        parts, at_round = [], None
        c = curve[curve["players"] == P]
        for level, rows in m.groupby("level", sort=False):
            v = rows.set_index("metric")
            if at_round is None:
                at_round = max(1, int(round(float(v.loc["rounds", "mean"]) / 2)))
            at = c[(c["level"] == level) & (c["round"] == at_round)]
            if at.empty:
                continue
            r = at.iloc[0]
            dr = v.loc["decisive_round"]
            decisive = (f"decided (leader wins over {DECISIVE:.0%}) from round {dr['mean']:.0f}"
                        if dr["mean"] == dr["mean"] else "not decided before the last round")
            lc, null = v.loc["lead_changes"], v.loc["null_lead_changes"]
            parts.append(f"{_pct(r['leader_wins'])} [{_pct(r['lo'])}, {_pct(r['hi'])}] of games under {level} "
                         f"({decisive}; {lc['mean']:.2f} [{lc['lo']:.2f}, {lc['hi']:.2f}] lead changes a game "
                         f"against {null['mean']:.2f} for a fair random walk of the same length)")
        if parts:
            out.append(f"At {P} players the leader after round {at_round} wins " + "; ".join(parts) + ".")
    return out


def split_answer(split: pd.DataFrame) -> list[str]:
    """The groups (goals) that change how the game feels most: for the lead changes, comebacks, blowouts and
    length, the flagged row (Holm's correction over each table's groups and figures) of largest |t|, with its
    interval; causal, since the groups are dealt at random."""
    known = {"metric", "with", "without", "difference", "lo", "hi", "p_value", "p_holm", "games_with",
             "games_without", "players", "level"}
    kind = next((c for c in split.columns if c not in known), None)
    if kind is None or split.empty:
        return []
    rows = split[(split["p_holm"] < 0.05) & split["metric"].isin(["comeback_rate", "lead_changes", "rounds",
                                                                   "blowout_rate"])]
    if rows.empty:
        return [f"No {kind} measurably changes the lead changes, comebacks, blowouts or length at any level "
                f"(Holm's correction over each table's {kind}s and figures)."]
    rows = rows.assign(t=rows["difference"].abs() / ((rows["hi"] - rows["lo"]) / 2))
    # the clearest effect on each figure, the feel figures before the length
    order = ["lead_changes", "comeback_rate", "blowout_rate", "rounds"]
    top = pd.concat([rows[rows["metric"] == m].nlargest(1, "t") for m in order])
    parts = [f"with {r[kind]} in play, {r['metric'].replace('_', ' ')} {_signed(r)} ({int(r['players'])} players, "
             f"{r['level']})" for _, r in top.iterrows()]
    return [f"The {kind}s in play change how the game feels ({kind}s are dealt at random, so these are their "
            f"effects): " + "; ".join(parts) + "."]


def _signed(r: pd.Series) -> str:
    """A difference with its interval: rates in points, other figures as they are."""
    if str(r["metric"]).endswith("_rate"):
        return f"{100 * r['difference']:+.1f} points [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}]"
    return f"{r['difference']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"


def write_leader_wins(curve: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """P(the leader after round r wins) per level, one panel per player count, with 95% interval bands, the
    fair share 1/players (a leader no better than any seat) and the decisiveness line."""
    counts = sorted(curve["players"].unique())
    fig = new_figure(4.2 * min(len(counts), 3) + 2.8, 3.4 * (-(-len(counts) // 3)) + 1.2)
    axes = panels(fig, len(counts))
    for ax, P in zip(axes, counts, strict=True):
        d = curve[(curve["players"] == P) & (curve["games"] >= MIN_GAMES)]
        for level, s in d.groupby("level", sort=False):
            line, = ax.plot(s["round"], s["leader_wins"], marker=".", label=str(level))
            ax.fill_between(s["round"], s["lo"], s["hi"], alpha=0.2, color=line.get_color(), linewidth=0)
        ax.axhline(1.0 / P, **FAIR_STYLE, label="fair share (1/players)")
        ax.axhline(DECISIVE, color="black", linestyle="dotted", linewidth=1, label=f"decisive ({DECISIVE:.0%})")
        panel_title(ax, f"{P} players")
        ax.set_ylim(0.0, 1.02)
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    match_limits(axes, y=False)
    fig.supxlabel("round", fontsize=9)
    fig.supylabel("share of games the leader after that round wins", fontsize=9)
    figure_legend(fig, axes, title="skill level")
    fig.suptitle(heading(title, "how often the leader after each round wins"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "leader_wins.png")
    return "leader_wins.png", ("How often the seat leading after each round wins, per skill level (self-play), with "
                               "deal-level 95% interval bands; rounds fewer than 30 games reach are not drawn. The "
                               "dashed line is the fair share, the dotted one the decisiveness threshold.")
