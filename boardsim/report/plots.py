"""Charts.  ``*_data`` functions shape the numbers (tested); ``plot_*`` only draw."""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def heading(title: str, sub: str) -> str:
    """A scenario title wrapped to fit the figure, then the chart's own line.

    The title is the user's plain text: ``$`` is escaped so that matplotlib never reads it as math text
    (an unbalanced or unknown expression would stop the report).
    """
    return textwrap.fill(str(title), 75).replace("$", r"\$") + "\n" + sub


def winrate_data(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell and series: x position, rate and the error-bar lengths below and above.

    A summary with per-policy rows (``level = policy``) is drawn per policy, the answer that does not
    depend on the seat order; an older one per seat.
    """
    d = summary
    if "level" in d.columns and (d["level"] == "policy").any():
        d = d[d["level"] == "policy"].copy()
        d["series"] = d["policy"]
    else:
        d = d.copy()
        d["series"] = "seat " + d["seat"].astype(str) + ": " + d["policy"]
    d = d[["cell", "label", "series", "policy", "games", "win_rate", "win_lo", "win_hi"]].copy()
    # clipped: rounding can put a bound a hair inside a rate of exactly 0 or 1
    d["err_lo"] = (d["win_rate"] - d["win_lo"]).clip(lower=0)
    d["err_hi"] = (d["win_hi"] - d["win_rate"]).clip(lower=0)
    return d


def set_cell_ticks(ax, labels: list[str]) -> None:
    """One tick per grid cell; a label's grid values go on separate lines."""
    ax.set_xticks(np.arange(len(labels)))
    many = len(labels) > 6
    ax.set_xticklabels([lab.replace(", ", "\n") for lab in labels], fontsize=7 if many else 8,
                       rotation=45 if many else 0, ha="right" if many else "center")


def cell_figsize(labels: list[str]) -> tuple[float, float]:
    lines = max((lab.count(", ") + 1 for lab in labels), default=1)
    return max(6.5, 1.2 * len(labels) + 3), 4.2 + 0.25 * lines


def plot_winrate(ax, data: pd.DataFrame, title: str) -> None:
    cells = list(dict.fromkeys(data["cell"]))
    labels = [data.loc[data["cell"] == c, "label"].iloc[0] for c in cells]
    series = list(dict.fromkeys(data["series"]))
    width = 0.8 / max(len(series), 1)
    for k, name in enumerate(series):
        s = data[data["series"] == name]  # a series may exist only in some cells (player-count grids)
        x = np.array([cells.index(c) for c in s["cell"]]) + (k - (len(series) - 1) / 2) * width
        ax.errorbar(x, s["win_rate"], yerr=[s["err_lo"], s["err_hi"]], fmt="o", capsize=3, label=name)
    games = int(data["games"].min())
    set_cell_ticks(ax, labels)
    ax.set_ylabel("win rate per seat (95% interval)")
    ax.set_xlabel("grid cell")
    ax.set_title(heading(title, f"win rate per policy ({games:,} games per cell)"))
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
    fig.suptitle(heading(title, "score distribution per seat"))


def save(fig, path) -> None:
    from boardsim.safe_io import save_figure

    fig.tight_layout()
    save_figure(fig, path, dpi=110)  # a temporary file and a rename: a link at path is never followed
    plt.close(fig)


def write_standard_plots(summary: pd.DataFrame, scores: pd.DataFrame, out_dir, title: str) -> list[tuple]:
    """The sweep's charts; returns (file name, caption) pairs for the index page."""
    written = []
    if not summary.empty:
        fig, ax = plt.subplots(figsize=cell_figsize(list(dict.fromkeys(summary["label"]))))
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


def positions_data(positions: pd.DataFrame) -> pd.DataFrame:
    d = positions[["cell", "label", "players", "position", "games", "win_rate", "win_lo", "win_hi"]].copy()
    d["fair_share"] = 1.0 / d["players"]
    # clipped: rounding can put a bound a hair inside a rate of exactly 0 or 1
    d["err_lo"] = (d["win_rate"] - d["win_lo"]).clip(lower=0)
    d["err_hi"] = (d["win_hi"] - d["win_rate"]).clip(lower=0)
    return d


def write_positions(positions: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    d = positions_data(positions)
    cells = list(dict.fromkeys(d["cell"]))
    fig, ax = plt.subplots(figsize=cell_figsize(list(dict.fromkeys(d["label"]))))
    max_p = int(d["position"].max()) + 1
    width = 0.8 / max_p
    for pos in range(max_p):
        s = d[d["position"] == pos]
        x = np.array([cells.index(c) for c in s["cell"]]) + (pos - (max_p - 1) / 2) * width
        ax.errorbar(x, s["win_rate"], yerr=[s["err_lo"], s["err_hi"]], fmt="o", capsize=3,
                    label=f"position {pos}" + (" (first player)" if pos == 0 else ""))
    for i, c in enumerate(cells):
        fair = d.loc[d["cell"] == c, "fair_share"].iloc[0]
        ax.hlines(fair, i - 0.45, i + 0.45, colors="grey", linestyles="dashed")
    labels = [d.loc[d["cell"] == c, "label"].iloc[0] for c in cells]
    set_cell_ticks(ax, labels)
    ax.set_xlabel("grid cell")
    ax.set_ylabel("win rate (share of games, 95% Wilson interval)")
    ax.set_title(heading(title, "win rate by place in turn order (dashed: fair share 1/players)"))
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out_dir / "positions.png")
    return "positions.png", ("First-player effect: win rate by place in turn order (0 = first player), all "
                             "policies pooled, 95% intervals.")


def rounds_data(rounds: pd.DataFrame, max_cells: int = 9) -> pd.DataFrame:
    cells = list(dict.fromkeys(rounds["cell"]))[:max_cells]
    d = rounds[rounds["cell"].isin(cells)].copy()
    d["share"] = d["count"] / d.groupby("cell")["count"].transform("sum")
    return d


def write_rounds(rounds: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    d = rounds_data(rounds)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    cells = list(dict.fromkeys(d["cell"]))
    width = 0.8 / max(len(cells), 1)
    for k, c in enumerate(cells):
        s = d[d["cell"] == c]
        ax.bar(s["rounds"] + (k - (len(cells) - 1) / 2) * width, s["share"], width=width, label=s["label"].iloc[0])
    ax.set_xlabel("rounds played (game length)")
    ax.set_ylabel("share of games")
    ax.set_title(heading(title, "game length distribution"))
    ax.grid(axis="y", alpha=0.3)
    if len(cells) > 1:
        ax.legend(fontsize=7)
    save(fig, out_dir / "rounds.png")
    return "rounds.png", "Game length: share of games ending after each number of rounds."


def heatmap_data(pairwise: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Policies (row order), and matrices of win rate, lower and upper bounds (nan on the diagonal)."""
    names = list(dict.fromkeys(list(pairwise["policy"]) + list(pairwise["opponent"])))
    idx = {n: i for i, n in enumerate(names)}
    rate = np.full((len(names), len(names)), np.nan)
    lo, hi = rate.copy(), rate.copy()
    for r in pairwise.itertuples():
        i, j = idx[r.policy], idx[r.opponent]
        rate[i, j], lo[i, j], hi[i, j] = r.win_rate, r.win_lo, r.win_hi
    return names, rate, lo, hi


def write_heatmap(pairwise: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    names, rate, lo, hi = heatmap_data(pairwise)
    rows = list(dict.fromkeys(pairwise["policy"]))
    cols = [n for n in names if n in set(pairwise["opponent"])]
    if set(cols) == set(rows):
        cols = rows  # a round robin: same order both ways, so the diagonal is the blank one
    ri = [names.index(r) for r in rows]
    ci = [names.index(c) for c in cols]
    m, mlo, mhi = rate[np.ix_(ri, ci)], lo[np.ix_(ri, ci)], hi[np.ix_(ri, ci)]
    fig, ax = plt.subplots(figsize=(1.3 * len(cols) + 3.5, 0.8 * len(rows) + 2.5))
    im = ax.imshow(m, cmap="RdBu", vmin=0, vmax=1)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.2f}\n[{mlo[i, j]:.2f}, {mhi[i, j]:.2f}]", ha="center", va="center",
                        fontsize=7)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_xlabel("opponent")
    ax.set_ylabel("policy")
    games = int(pairwise["games"].min())
    ax.set_title(heading(title, f"win rate of row vs column (95% interval; >= {games:,} games per pair)"))
    fig.colorbar(im, ax=ax, label="win rate")
    save(fig, out_dir / "heatmap.png")
    return "heatmap.png", "Tournament: share of games each policy (row) won against each opponent (column)."


def forest_data(table: pd.DataFrame, value: str, lo: str, hi: str, name_cols=("card", "goal", "policy", "label")):
    """Rows sorted by value, with a display name and error-bar lengths."""
    name_col = next((c for c in name_cols if c in table.columns), None)
    d = table.copy()
    d["name"] = d[name_col].astype(str) if name_col else d.index.astype(str)
    if "label" in d.columns and name_col != "label" and d["label"].nunique() > 1:
        d["name"] = d["name"] + " (" + d["label"].astype(str) + ")"
    d = d[["name", value, lo, hi]].rename(columns={value: "value", lo: "lo", hi: "hi"})
    d = d.dropna(subset=["value"]).sort_values("value").reset_index(drop=True)
    d["err_lo"] = d["value"] - d["lo"]
    d["err_hi"] = d["hi"] - d["value"]
    return d


def plot_forest(ax, d: pd.DataFrame, title: str, xlabel: str, ref: float | None = None) -> None:
    y = np.arange(len(d))
    ax.errorbar(d["value"], y, xerr=[d["err_lo"].clip(lower=0), d["err_hi"].clip(lower=0)], fmt="o", capsize=3)
    if ref is not None:
        ax.axvline(ref, color="grey", linestyle="dashed")
    ax.set_yticks(y)
    ax.set_yticklabels(d["name"], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)


def write_ratings(ratings: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    d = forest_data(ratings, "rating", "rating_lo", "rating_hi", name_cols=("policy",))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(d) + 2))
    plot_forest(ax, d, heading(title, "Bradley-Terry rating with 95% interval"), "rating (log-strength, centred at 0)",
                ref=0.0)
    save(fig, out_dir / "ratings.png")
    return "ratings.png", "Bradley-Terry ratings of the policies (higher is stronger), 95% intervals."


def _rate_columns(table: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(value, lo, hi) triples: ``x_rate``/``x_lo``/``x_hi`` or ``x``/``x_lo``/``x_hi``."""
    found = []
    for col in table.columns:
        if col.endswith("_lo"):
            stem = col[: -len("_lo")]
            hi = f"{stem}_hi"
            for value in (f"{stem}_rate", stem, f"{stem}_mean"):
                if value in table.columns and hi in table.columns:
                    found.append((value, col, hi))
                    break
    return found


def write_balance(name: str, table: pd.DataFrame, out_dir, title: str) -> list[tuple[str, str]]:
    """A forest plot for each rate-with-interval in a game-specific table."""
    written = []
    note = ""
    if "cell" in table.columns and table["cell"].nunique() > 1 and len(table) > 40:
        first = table["cell"].iloc[0]
        table = table[table["cell"] == first]  # one cell keeps the chart readable; the CSV has them all
        note = f" (first grid cell only; all cells in balance_{name}.csv)"
    for value, lo, hi in _rate_columns(table):
        d = forest_data(table, value, lo, hi)
        if d.empty:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(d) + 2.2))
        ref = 0.0 if (d["lo"] < 0).any() else None
        plot_forest(ax, d, heading(title, f"{name}: {value.replace('_', ' ')} (95% interval)"), value.replace("_", " "),
                    ref=ref)
        fname = f"balance_{name}_{value}.png"
        save(fig, out_dir / fname)
        written.append((fname, f"{name}: {value.replace('_', ' ')} with 95% intervals, sorted{note}."))
    return written


def write_convergence(history: pd.DataFrame, check: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(history["generation"], history["best_win_rate"], marker="o", label="best so far (search seeds)")
    for row, colour in zip(check.itertuples(), ("grey", "green"), strict=False):
        ax.axhspan(row.win_lo, row.win_hi, color=colour, alpha=0.2,
                   label=f"{row.which} on fresh seeds: {row.win_rate:.3f} (95% interval)")
    ax.set_xlabel("generation (differential evolution)")
    ax.set_ylabel("win rate of the tuned seat")
    ax.set_title(heading(title, "convergence"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out_dir / "convergence.png")
    return "convergence.png", "Optimizer convergence, and start vs best parameters re-measured on fresh seeds."


def write_fame_curves(curve: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Mean fame per round for each seat (first grid cells), from balance_fame_curve.csv."""
    cells = list(dict.fromkeys(curve["cell"]))[:6]
    fig, axes = plt.subplots(1, len(cells), figsize=(5.5 * len(cells), 4.2), squeeze=False)
    for ax, c in zip(axes[0], cells, strict=True):
        d = curve[curve["cell"] == c]
        d = d[d["games"] >= max(30, 0.01 * d["games"].max())]  # late rounds with a handful of games are noise
        for seat, s in d.groupby("seat"):
            ax.plot(s["round"], s["mean_fame"], marker=".", label=f"seat {seat}: {s['policy'].iloc[0]}")
        ax.set_xlabel("round")
        ax.set_ylabel("mean fame that round (games still running)")
        if "label" in d.columns:
            ax.set_title(str(d["label"].iloc[0]), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(heading(title, "per-round fame curves"))
    save(fig, out_dir / "fame_curves.png")
    return "fame_curves.png", "Mean fame per round for each seat, over the games still running in that round."
