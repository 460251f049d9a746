"""Charts.  ``*_data`` functions shape the numbers (tested); ``plot_*`` only draw."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def winrate_data(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell and seat: x position, rate and the error-bar lengths below and above."""
    d = summary[["cell", "label", "seat", "policy", "games", "win_rate", "win_lo", "win_hi"]].copy()
    d["err_lo"] = d["win_rate"] - d["win_lo"]
    d["err_hi"] = d["win_hi"] - d["win_rate"]
    return d


def plot_winrate(ax, data: pd.DataFrame, title: str) -> None:
    cells = list(dict.fromkeys(data["cell"]))
    labels = [data.loc[data["cell"] == c, "label"].iloc[0] for c in cells]
    seats = sorted(data["seat"].unique())
    width = 0.8 / max(len(seats), 1)
    for k, seat in enumerate(seats):
        s = data[data["seat"] == seat]  # a seat may exist only in some cells (player-count grids)
        x = np.array([cells.index(c) for c in s["cell"]]) + (k - (len(seats) - 1) / 2) * width
        policy = s["policy"].iloc[0] if s["policy"].nunique() == 1 else "varies"
        ax.errorbar(x, s["win_rate"], yerr=[s["err_lo"], s["err_hi"]], fmt="o", capsize=3,
                    label=f"seat {seat}: {policy}")
    games = int(data["games"].min())
    ax.set_xticks(np.arange(len(cells)))
    ax.set_xticklabels(labels, rotation=30 if len(cells) > 3 else 0, ha="right" if len(cells) > 3 else "center")
    ax.set_ylabel("win rate (share of games, 95% Wilson interval)")
    ax.set_xlabel("grid cell")
    ax.set_title(f"{title}\nwin rate per seat ({games:,} games per cell)")
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="best")


def score_data(scores: pd.DataFrame, max_cells: int = 9) -> pd.DataFrame:
    """Score shares per cell and seat (count / games), limited to the first cells."""
    if scores.empty:
        return scores.assign(share=[])
    cells = list(dict.fromkeys(scores["cell"]))[:max_cells]
    d = scores[scores["cell"].isin(cells)].copy()
    totals = d.groupby(["cell", "seat"])["count"].transform("sum")
    d["share"] = d["count"] / totals
    return d


def plot_scores(fig, data: pd.DataFrame, title: str, score_name: str = "final score") -> None:
    cells = list(dict.fromkeys(data["cell"]))
    cols = min(3, max(len(cells), 1))
    rows = int(np.ceil(len(cells) / cols)) if cells else 1
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, cell in zip(axes.ravel(), cells, strict=False):
        d = data[data["cell"] == cell]
        for seat, s in d.groupby("seat"):
            s = s.sort_values("score")
            ax.step(s["score"], s["share"], where="mid", label=f"seat {seat}: {s['policy'].iloc[0]}")
        ax.set_title(d["label"].iloc[0], fontsize=9)
        ax.set_xlabel(f"{score_name} (points)")
        ax.set_ylabel("share of games")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(cells):]:
        ax.axis("off")
    if cells:
        axes.ravel()[0].legend(fontsize=7)
    fig.suptitle(f"{title}\nscore distribution per seat")


def save(fig, path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_standard_plots(summary: pd.DataFrame, scores: pd.DataFrame, out_dir, title: str) -> list[tuple]:
    """The sweep's charts; returns (file name, caption) pairs for the index page."""
    written = []
    if not summary.empty:
        n_cells = summary["cell"].nunique()
        fig, ax = plt.subplots(figsize=(max(6.5, 1.1 * n_cells + 3), 4.8))
        plot_winrate(ax, winrate_data(summary), title)
        save(fig, out_dir / "winrate.png")
        written.append(("winrate.png", "Win rate of each seat in each grid cell, with 95% Wilson intervals."))
    if not scores.empty:
        data = score_data(scores)
        n = data["cell"].nunique()
        fig = plt.figure(figsize=(4.2 * min(3, n), 3.4 * int(np.ceil(n / 3)) + 0.8))
        plot_scores(fig, data, title)
        save(fig, out_dir / "scores.png")
        written.append(("scores.png", "Distribution of final scores per seat (first cells of the grid)."))
    return written
