"""Charts of skill: the ladder (each rung's Elo and its rate against the rung below) and each rung's
first-player rate in self-play, with intervals and the lines a reader compares against."""

from __future__ import annotations

import numpy as np
import pandas as pd

from boardsim.report import plots
from boardsim.report.plots import FAIR_STYLE, TITLE_SIZE, heading, new_figure, panel_title, short_text


def write_ladder(ladder: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Two panels sharing the rungs (strongest on top): Elo with 95% interval, and the head-to-head share of
    comparisons won against the next rung down with its interval and the 50% line."""
    d = ladder.sort_values("rung", ascending=False, kind="stable").reset_index(drop=True)
    y = np.arange(len(d))
    fig = new_figure(10, 0.45 * len(d) + 2.4)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    elo = d["elo"].to_numpy(float)
    lo = d["elo_lo"].to_numpy(float) if "elo_lo" in d else elo
    hi = d["elo_hi"].to_numpy(float) if "elo_hi" in d else elo
    left.errorbar(elo, y, xerr=[np.clip(elo - lo, 0, None), np.clip(hi - elo, 0, None)], fmt="o", capsize=3)
    left.set_yticks(y)
    left.set_yticklabels([short_text(p) for p in d["policy"]], fontsize=8)
    left.set_ylim(-0.6, len(d) - 0.4)
    left.set_xlabel("Elo (Bradley-Terry rating x 400 / ln 10, centred at 0)")
    left.grid(axis="x", alpha=0.3)
    panel_title(left, "rating")
    h = d.dropna(subset=["vs_below"])
    hy = y[d["vs_below"].notna().to_numpy()]
    v = h["vs_below"].to_numpy(float)
    right.errorbar(v, hy, xerr=[np.clip(v - h["vs_below_lo"], 0, None), np.clip(h["vs_below_hi"] - v, 0, None)],
                   fmt="s", color="tab:green", capsize=3)
    right.axvline(0.5, **FAIR_STYLE)
    right.set_yticks(y)
    right.set_yticklabels([f"vs {short_text(b, 22)}" if isinstance(b, str) else "" for b in d["below"]], fontsize=8)
    right.set_ylim(-0.6, len(d) - 0.4)
    right.set_xlim(0.0, 1.0)
    right.set_xlabel("share of comparisons won against the rung below")
    right.grid(axis="x", alpha=0.3)
    panel_title(right, "against the next rung down (dashed: 50%, even)")
    fig.suptitle(heading(title, "skill ladder: rungs by rating, strongest on top (95% intervals)"),
                 fontsize=TITLE_SIZE)
    plots.save(fig, out_dir / "ladder.png")
    return "ladder.png", (
        "The skill ladder: each rung's Elo with a 95% interval (left) and its share of head-to-head comparisons "
        "won against the next rung down, with a deal-level 95% interval (right). A rung whose right-hand "
        "interval lies above the dashed 50% line is distinguishably stronger than the one below it.")


def write_first_player(first: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Each rung's first-seat win rate in self-play with its interval and the fair share."""
    d = first.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(d))
    fig = new_figure(7.5, 0.45 * len(d) + 2.2)
    ax = fig.subplots()
    r = d["first_player_rate"].to_numpy(float)
    ax.errorbar(r, y, xerr=[np.clip(r - d["lo"], 0, None), np.clip(d["hi"] - r, 0, None)], fmt="o", capsize=3)
    fair = float(d["fair_share"].iloc[0])
    ax.axvline(fair, **FAIR_STYLE, label=f"fair share {fair:.2f}")
    ax.set_yticks(y)
    ax.set_yticklabels([short_text(p) for p in d["policy"]], fontsize=8)
    ax.set_ylim(-0.6, len(d) - 0.4)
    ax.set_xlabel("first player's win rate in self-play")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    lo, hi = float(d["lo"].min()), float(d["hi"].max())
    ax.set_xlim(max(0.0, min(lo, fair) - 0.05), min(1.0, max(hi, fair) + 0.05))
    fig.suptitle(heading(title, "first-player edge at each skill level (95% Wilson intervals)"),
                 fontsize=TITLE_SIZE)
    plots.save(fig, out_dir / "first_player.png")
    return "first_player.png", (
        "Each rung playing every seat against itself: the first player's win rate with a 95% Wilson interval, "
        "weakest rung at the bottom in listed order; dashed, the fair share 1/players.")
