"""Charts.  ``*_data`` functions shape the numbers (tested); ``plot_*`` and ``write_*`` only draw.

Every figure uses matplotlib's constrained layout, so titles and tick labels are never clipped, and
legends sit outside the axes (to the right), so they never cover data.  A grid of several cells is
drawn as small multiples, at most ``PER_ROW`` panels per row.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from boardsim.safe_io import save_figure  # noqa: E402


def heading(title: str, sub: str) -> str:
    """A scenario title wrapped to fit the figure, then the chart's own line.

    The title is the user's plain text: ``$`` is escaped so that matplotlib never reads it as math text
    (an unbalanced or unknown expression would stop the report).
    """
    return textwrap.fill(str(title), 75).replace("$", r"\$") + "\n" + sub


PER_ROW = 4  # small multiples per row
DPI = 100
TITLE_SIZE = 10
FAIR_STYLE = {"color": "grey", "linestyle": "dashed", "linewidth": 1}


def new_figure(width: float, height: float) -> Figure:
    """A figure outside pyplot (nothing to close, no global state) with constrained layout."""
    return Figure(figsize=(max(width, 6.5), height), layout="constrained", dpi=DPI)


def save(fig, path) -> None:
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    # fast zlib level: the PNGs grow a little, and the report is drawn in a fraction of the time
    # through a temporary file and a rename: a link at ``path`` is replaced, never followed
    save_figure(fig, path, dpi=DPI, pil_kwargs={"compress_level": 2})
    plt.close(fig)  # a pyplot figure (tests draw on plt.subplots); a no-op for the others


def short_text(text: str, width: int = 34) -> str:
    """A long policy or card label wrapped onto at most two lines, so it fits beside a chart."""
    lines = textwrap.wrap(str(text), width, break_long_words=True, break_on_hyphens=False)
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), width, placeholder="…")]
    return "\n".join(lines) or str(text)


def legend_outside(ax, title: str | None = None, fontsize: float = 8) -> None:
    """The axes' legend to the right of the axes, never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, [short_text(lab) for lab in labels], loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0, fontsize=fontsize, title=title, title_fontsize=fontsize)


def figure_legend(fig, axes, title: str | None = None) -> None:
    """One legend for small multiples: every distinct label of the panels, right of the figure."""
    seen: dict[str, object] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    if seen:
        fig.legend(list(seen.values()), [short_text(lab) for lab in seen], loc="outside right upper", fontsize=8,
                   title=title, title_fontsize=8)


def panels(fig, n: int) -> list:
    """``n`` axes in rows of at most ``PER_ROW``.

    Not matplotlib's shared axes: those make every panel measure every sibling's tick labels at each
    draw, which made a report of many cells take seconds; ``match_limits`` lines the panels up instead.
    """
    rows, cols = grid_shape(n)
    gs = fig.add_gridspec(rows, cols)
    return [fig.add_subplot(gs[i // cols, i % cols]) for i in range(n)]


def match_limits(axes, x: bool = True, y: bool = True, inner_labels: bool = False) -> None:
    """The same x and y range on every panel; tick labels only on the outer panels."""
    for on, get, put in ((x, "get_xlim", "set_xlim"), (y, "get_ylim", "set_ylim")):
        if on and axes:
            lims = [getattr(ax, get)() for ax in axes]
            lo, hi = min(min(a) for a in lims), max(max(a) for a in lims)
            for ax in axes:
                getattr(ax, put)(lo, hi)
    if not inner_labels:
        n = len(axes)
        cols = grid_shape(n)[1]
        for i, ax in enumerate(axes):
            if y and i % cols:
                ax.tick_params(labelleft=False)
            if x and i + cols < n:
                ax.tick_params(labelbottom=False)


def panel_title(ax, text: str) -> None:
    """A small panel title at a fixed height (matplotlib's automatic placement measures every tick)."""
    if text:
        ax.set_title(text, fontsize=8, y=1.0, pad=3)


def grid_shape(n: int) -> tuple[int, int]:
    cols = min(PER_ROW, max(n, 1))
    return -(-max(n, 1) // cols), cols


def cell_text(label: str) -> str:
    """A cell label with one grid key per line (keys are separated by ``; ``)."""
    return str(label).replace("; ", "\n")


def set_cell_ticks(ax, labels: list[str]) -> None:
    """One tick per grid cell; a label's grid values go on separate lines."""
    ax.set_xticks(np.arange(len(labels)))
    many = len(labels) > 6
    ax.set_xticklabels([cell_text(lab) for lab in labels], fontsize=7 if many else 8,
                       rotation=45 if many else 0, ha="right" if many else "center")
    ax.set_xlim(-0.6, len(labels) - 0.4)


def cell_figsize(labels: list[str]) -> tuple[float, float]:
    lines = max((cell_text(lab).count("\n") + 1 for lab in labels), default=1)
    return max(6.5, 1.1 * len(labels) + 4.5), 4.2 + 0.25 * lines


def flat_axis(ax, axis: str, values, rate: bool = False) -> None:
    """Give an axis a readable range when every value is the same (matplotlib would zoom to 1e-5)."""
    v = np.asarray(pd.to_numeric(pd.Series(np.ravel(values)), errors="coerce"), dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0 or v.max() - v.min() > 1e-9 * max(1.0, abs(v.max())):
        return
    centre = float(v[0])
    pad = 0.05 if rate else max(1.0, 0.1 * abs(centre))
    lo, hi = centre - pad, centre + pad
    if rate:
        lo, hi = max(lo, 0.0), max(hi, pad)
    (ax.set_xlim if axis == "x" else ax.set_ylim)(lo, hi)


def fair_share(players) -> float | None:
    """1 / players, or None for solo games (one player's win is not a share of anything)."""
    try:
        p = int(players)
    except (TypeError, ValueError):
        return None
    return 1.0 / p if p > 1 else None


# -- win rates per cell --------------------------------------------------------------------------


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
    if "players" not in d.columns:
        d["players"] = np.nan
    d = d[["cell", "label", "players", "series", "policy", "games", "win_rate", "win_lo", "win_hi"]].copy()
    # clipped: rounding can put a bound a hair inside a rate of exactly 0 or 1
    d["err_lo"] = (d["win_rate"] - d["win_lo"]).clip(lower=0)
    d["err_hi"] = (d["win_hi"] - d["win_rate"]).clip(lower=0)
    return d


def _fair_lines(ax, data: pd.DataFrame, cells: list) -> None:
    """A dashed fair-share segment (1/players) over each cell."""
    labelled = False
    for i, c in enumerate(cells):
        fair = fair_share(data.loc[data["cell"] == c, "players"].iloc[0])
        if fair is not None:
            ax.hlines(fair, i - 0.45, i + 0.45, **FAIR_STYLE, label=None if labelled else "fair share (1/players)")
            labelled = True


def plot_winrate(ax, data: pd.DataFrame, title: str) -> None:
    cells = list(dict.fromkeys(data["cell"]))
    labels = [data.loc[data["cell"] == c, "label"].iloc[0] for c in cells]
    series = list(dict.fromkeys(data["series"]))
    width = 0.8 / max(len(series), 1)
    for k, name in enumerate(series):
        s = data[data["series"] == name]  # a series may exist only in some cells (player-count grids)
        x = np.array([cells.index(c) for c in s["cell"]]) + (k - (len(series) - 1) / 2) * width
        ax.errorbar(x, s["win_rate"], yerr=[s["err_lo"], s["err_hi"]], fmt="o", capsize=3, label=name)
    _fair_lines(ax, data, cells)
    games = int(data["games"].min())
    set_cell_ticks(ax, labels)
    ax.set_ylabel("win rate per seat (95% interval)")
    ax.set_xlabel("grid cell")
    ax.figure.suptitle(heading(title, f"win rate per policy ({games:,} games per cell)"), fontsize=TITLE_SIZE)
    ax.set_ylim(bottom=0, top=min(1.0, max(0.1, float(data["win_hi"].max()) * 1.1)))
    ax.grid(axis="y", alpha=0.3)
    legend_outside(ax, "policy")


def write_standard_plots(summary: pd.DataFrame, scores: pd.DataFrame, out_dir, title: str) -> list[tuple]:
    """The sweep's charts; returns (file name, caption) pairs for the index page."""
    written = []
    if not summary.empty:
        fig = new_figure(*cell_figsize(list(dict.fromkeys(summary["label"]))))
        plot_winrate(fig.subplots(), winrate_data(summary), title)
        save(fig, out_dir / "winrate.png")
        written.append(("winrate.png", "Win rate of each policy in each grid cell (per seat it holds, over every "
                                       "seat arrangement), with 95% intervals; dashed: the fair share 1/players."))
    if not scores.empty:
        data = score_data(scores)
        rows, cols = grid_shape(data["cell"].nunique())
        fig = new_figure(3.4 * cols + 2.5, 2.8 * rows + 1.0)
        plot_scores(fig, data, title)
        save(fig, out_dir / "scores.png")
        written.append(("scores.png", "Distribution of final scores per seat, one panel per grid cell."))
    return written


# -- scores, positions, game length --------------------------------------------------------------


def score_data(scores: pd.DataFrame) -> pd.DataFrame:
    """Score shares per cell and seat (count / games in the cell)."""
    if scores.empty:
        return scores.assign(share=[])
    d = scores.copy()
    totals = d.groupby(["cell", "seat"])["count"].transform("sum")
    d["share"] = d["count"] / totals
    return d


def plot_scores(fig, data: pd.DataFrame, title: str, score_name: str = "final score") -> None:
    cells = list(dict.fromkeys(data["cell"]))
    axes = panels(fig, len(cells))
    for ax, cell in zip(axes, cells, strict=True):
        d = data[data["cell"] == cell]
        for seat, s in d.groupby("seat"):
            s = s.sort_values("score")
            ax.step(s["score"], s["share"], where="mid", label=f"seat {seat}: {s['policy'].iloc[0]}")
        panel_title(ax, cell_text(d["label"].iloc[0]) if len(cells) > 1 or d["label"].iloc[0] != "all" else "")
        ax.grid(alpha=0.3)
    match_limits(axes)
    axes[0].set_ylim(bottom=0)
    match_limits(axes)
    fig.supxlabel(f"{score_name} (points)", fontsize=9)
    fig.supylabel("share of games", fontsize=9)
    figure_legend(fig, axes)
    fig.suptitle(heading(title, "score distribution per seat"), fontsize=TITLE_SIZE)


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
    fig = new_figure(*cell_figsize(list(dict.fromkeys(d["label"]))))
    ax = fig.subplots()
    max_p = int(d["position"].max()) + 1
    width = 0.8 / max_p
    for pos in range(max_p):
        s = d[d["position"] == pos]
        x = np.array([cells.index(c) for c in s["cell"]]) + (pos - (max_p - 1) / 2) * width
        ax.errorbar(x, s["win_rate"], yerr=[s["err_lo"], s["err_hi"]], fmt="o", capsize=3,
                    label=f"position {pos}" + (" (first player)" if pos == 0 else ""))
    _fair_lines(ax, d, cells)
    labels = [d.loc[d["cell"] == c, "label"].iloc[0] for c in cells]
    set_cell_ticks(ax, labels)
    ax.set_xlabel("grid cell")
    ax.set_ylabel("win rate (share of games, 95% interval)")
    fig.suptitle(heading(title, "win rate by place in turn order"), fontsize=TITLE_SIZE)
    ax.set_ylim(bottom=0, top=min(1.0, max(0.1, float(d["win_hi"].max()) * 1.1)))
    ax.grid(axis="y", alpha=0.3)
    legend_outside(ax, "turn order")
    save(fig, out_dir / "positions.png")
    return "positions.png", ("First-player effect: win rate by place in turn order (0 = first player), all "
                             "policies pooled, 95% intervals; dashed: the fair share 1/players.")


def rounds_data(rounds: pd.DataFrame) -> pd.DataFrame:
    d = rounds.copy()
    d["share"] = d["count"] / d.groupby("cell")["count"].transform("sum")
    return d


def write_rounds(rounds: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    d = rounds_data(rounds)
    cells = list(dict.fromkeys(d["cell"]))
    rows, cols = grid_shape(len(cells))
    fig = new_figure(3.3 * cols + 1.0, 2.6 * rows + 1.0)
    axes = panels(fig, len(cells))
    lo, hi = int(d["rounds"].min()), int(d["rounds"].max())
    top = min(1.05, float(d["share"].max()) * 1.15)
    for ax, c in zip(axes, cells, strict=True):
        s = d[d["cell"] == c]
        ax.bar(s["rounds"], s["share"], width=0.8)
        panel_title(ax, cell_text(s["label"].iloc[0]) if len(cells) > 1 or s["label"].iloc[0] != "all" else "")
        ax.grid(axis="y", alpha=0.3)
        # at least one round either side, so a game that always lasts 10 rounds is one clear bar at 10
        ax.set_xlim(lo - 1, hi + 1)
        ax.set_ylim(0, top)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    match_limits(axes)
    fig.supxlabel("rounds played (game length)", fontsize=9)
    fig.supylabel("share of games", fontsize=9)
    fig.suptitle(heading(title, "game length distribution"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "rounds.png")
    return "rounds.png", "Game length: share of games ending after each number of rounds, one panel per grid cell."


# -- tournament ----------------------------------------------------------------------------------


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


def heatmap_centre(pairwise: pd.DataFrame) -> float:
    """The colour map's neutral value: the table's fair share (0.5 for head-to-head comparisons)."""
    if "fair_share" in pairwise.columns and pairwise["fair_share"].notna().any():
        return float(pairwise["fair_share"].dropna().iloc[0])
    return 0.5


def write_heatmap(pairwise: pd.DataFrame, out_dir, title: str, players: int | None = None) -> tuple[str, str]:
    names, rate, lo, hi = heatmap_data(pairwise)
    rows = list(dict.fromkeys(pairwise["policy"]))
    cols = [n for n in names if n in set(pairwise["opponent"])]
    if set(cols) == set(rows):
        cols = rows  # a round robin: same order both ways, so the diagonal is the blank one
    ri = [names.index(r) for r in rows]
    ci = [names.index(c) for c in cols]
    m, mlo, mhi = rate[np.ix_(ri, ci)], lo[np.ix_(ri, ci)], hi[np.ix_(ri, ci)]
    fig = new_figure(1.25 * len(cols) + 4.5, 0.75 * len(rows) + 3.0)
    ax = fig.subplots()
    centre = heatmap_centre(pairwise)
    norm = TwoSlopeNorm(vcenter=centre, vmin=0.0, vmax=1.0)
    cmap = matplotlib.colormaps["RdBu"]
    im = ax.imshow(m, cmap=cmap, norm=norm, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(m[i, j]):
                r, g, b, _ = cmap(norm(m[i, j]))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5  # white text where the cell is dark
                ax.text(j, i, f"{m[i, j]:.2f}\n[{mlo[i, j]:.2f}, {mhi[i, j]:.2f}]", ha="center", va="center",
                        fontsize=7, color="white" if dark else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([short_text(c, 22) for c in cols], rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([short_text(r, 28) for r in rows], fontsize=8)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("policy (row)")
    games = int(pairwise["games"].min())
    fig.suptitle(heading(title, f"row's share of comparisons won against column (>= {games:,} games per pair)"),
                 fontsize=TITLE_SIZE)
    fig.colorbar(im, ax=ax, label=f"share won (white = {centre:.2f}, even)")
    save(fig, out_dir / "heatmap.png")
    at = f" at {players} players" if players else ""
    return "heatmap.png", (
        f"Tournament{at}: each cell is the share of head-to-head comparisons the row policy won against the "
        "column policy, with a 95% interval. Every game compares each pair of seats held by different policies: "
        "the one that finished ahead (a larger share of the win, then a higher score) wins the comparison, so at "
        f"3-4 players a game counts once for every pair at the table. Colours are centred on {centre:.2f}, the "
        "fair share of a comparison at any player count: blue cells are pairs the row wins more often than not.")


def forest_data(table: pd.DataFrame, value: str, lo: str, hi: str,
                name_cols=("name", "card", "goal", "policy", "label")) -> pd.DataFrame:
    """Rows sorted by value, with a display name and error-bar lengths."""
    d = table.copy()
    d["name"] = row_names(d, name_cols)
    if "label" in d.columns and d["label"].nunique() > 1 and d["name"].duplicated().any():
        d["name"] = d["name"] + " (" + d["label"].astype(str) + ")"  # one name in several cells
    for col, unit in (("players", " players"), ("base", "")):  # one card at several counts or base players
        if col in d.columns and d["name"].duplicated().any() and d[col].nunique() > 1:
            d["name"] = d["name"] + ", " + d[col].astype(str) + unit
    d = d[["name", value, lo, hi]].rename(columns={value: "value", lo: "lo", hi: "hi"})
    d = d.dropna(subset=["value"]).sort_values("value", kind="stable").reset_index(drop=True)
    d["err_lo"] = d["value"] - d["lo"]
    d["err_hi"] = d["hi"] - d["value"]
    return d


def row_names(table: pd.DataFrame, name_cols=("name", "card", "goal", "policy", "label")) -> pd.Series:
    """What to call each row: a name column (goals and cards by name), ``seat j: policy`` for per-seat rows."""
    if "seat" in table.columns and "policy" in table.columns and "policy" in name_cols:
        return "seat " + table["seat"].astype(str) + ": " + table["policy"].astype(str)
    col = next((c for c in name_cols if c in table.columns), None)
    return table[col].astype(str) if col else pd.Series(table.index.astype(str), index=table.index)


def plot_forest(ax, d: pd.DataFrame, title: str, xlabel: str, ref: float | None = None, names: bool = True) -> None:
    """Points with horizontal 95% intervals, one row per entry; ``names=False`` leaves the rows unlabelled
    (a panel right of one that names them)."""
    y = np.arange(len(d))
    ax.errorbar(d["value"], y, xerr=[d["err_lo"].clip(lower=0), d["err_hi"].clip(lower=0)], fmt="o", capsize=3)
    if ref is not None:
        ax.axvline(ref, **FAIR_STYLE)
    if names:
        ax.set_yticks(y)
        ax.set_yticklabels([short_text(n) for n in d["name"]], fontsize=8)
    else:
        ax.set_yticks([])
    ax.set_ylim(-0.6, len(d) - 0.4)
    ax.set_xlabel(xlabel)
    panel_title(ax, title)
    ax.grid(axis="x", alpha=0.3)
    flat_axis(ax, "x", pd.concat([d["value"], d["lo"], d["hi"]]), rate=bool(d["lo"].min() >= 0))


def write_ratings(ratings: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    d = forest_data(ratings, "rating", "rating_lo", "rating_hi", name_cols=("policy",))
    fig = new_figure(7, 0.45 * len(d) + 2)
    ax = fig.subplots()
    plot_forest(ax, d, "", "rating (log-strength, centred at 0)", ref=0.0)
    fig.suptitle(heading(title, "Bradley-Terry rating with 95% interval"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "ratings.png")
    return "ratings.png", "Bradley-Terry ratings of the policies (higher is stronger, strongest on top), 95% intervals."


# -- game-specific (balance) tables -------------------------------------------------------------


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


def _panel_column(table: pd.DataFrame) -> str | None:
    """The column that splits a table into small multiples: grid cells, else player counts."""
    for col in ("panel", "cell", "players"):
        if col in table.columns and table[col].nunique() > 1 and table.groupby(col).size().max() > 1:
            return col
    return None


def _reference(value: str, d: pd.DataFrame, players) -> float | None:
    """The dashed line of a forest panel: the fair share for a win rate, zero for an effect."""
    if "effect" in value or "swing" in value or value == "regret" or (d["lo"] < 0).any():
        return 0.0
    if "win" in value:
        return fair_share(players)
    return None


def balance_panels(table: pd.DataFrame, value: str, lo: str, hi: str,
                   players: dict | None = None) -> list[tuple[str, object, pd.DataFrame]]:
    """(panel title, players, forest rows) per panel, every panel's rows in one shared order (by the mean
    value over the panels) so a card or goal sits on the same line in each."""
    col = _panel_column(table)
    groups = [(None, table)] if col is None else list(table.groupby(col, sort=False))
    if col is None:
        order = forest_data(table, value, lo, hi)["name"]
    else:  # the same rows on every panel (shared y axis), by the mean over the panels
        means = table.assign(_name=row_names(table)).groupby("_name", sort=False)[value].mean()
        order = means.dropna().sort_values(kind="stable").index
    out = []
    for key, part in groups:
        d = forest_data(part, value, lo, hi)
        if d.empty:
            continue
        d = d.set_index("name").reindex(pd.Index(list(order), name="name")).reset_index()
        if col == "cell":
            label = str(part["label"].iloc[0]) if "label" in part.columns else f"cell {key}"
        elif col == "players":
            label = f"{key} players"
        elif col == "panel":
            label = str(key)
        else:
            label = ""
        if "players" in part.columns:
            p = part["players"].iloc[0]
        elif players and "cell" in part.columns:
            p = players.get(int(part["cell"].iloc[0]))
        else:
            p = None
        out.append((label, p, d))
    return out


# what a balance table's column means, where its name alone would not say (axis labels and chart titles)
AXIS_NAMES = {
    ("card_strength", "effect"): "strength: swing minus the average card's",
    ("card_strength", "swing"): "swing: win share hiring it whenever possible minus never",
    ("card_strength", "swing_ref"): "the average market card's swing",
    ("card_strength", "win_favour"): "win share of a seat hiring it whenever possible",
    ("card_strength", "win_avoid"): "win share of a seat never hiring it",
    ("card_strength", "regret"): "regret: win share favouring it minus the base player's",
}


def write_balance(name: str, table: pd.DataFrame, out_dir, title: str,
                  players: dict | None = None) -> list[tuple[str, str]]:
    """A forest plot for each rate-with-interval in a game-specific table, one panel per grid cell.

    ``players`` maps cell -> player count (for the fair-share line of win rates).
    """
    if name == "card_sweep":
        return [write_dose_response(table, out_dir, title)] if not table.empty else []
    if "copies" in table.columns:
        table = table[table["copies"].fillna(1) > 0]  # a card not in the game has nothing to show
    if "base" in table.columns and table["base"].nunique() > 1:  # a skill axis: each card side by side per level
        table = table.assign(panel=[short_text(f"{n} players, base {b}", 40) if "players" in table.columns
                                    else short_text(f"base {b}", 40)
                                    for n, b in zip(table.get("players", table["base"]), table["base"], strict=True)])
    written = []
    one_per_cell = "cell" in table.columns and not table["cell"].duplicated().any() and table["cell"].nunique() > 1
    for value, lo, hi in _rate_columns(table):
        what = AXIS_NAMES.get((name, value), value.replace("_", " "))
        if one_per_cell:  # one row per cell (rule variants): the cells are the rows, in grid order
            written.append(_write_cells_forest(name, table, value, lo, hi, out_dir, title, players))
            continue
        parts = balance_panels(table, value, lo, hi, players)
        if not parts:
            continue
        n_rows = max(len(d) for _, _, d in parts)
        rows, cols = grid_shape(len(parts))
        fig = new_figure(3.2 * cols + 2.6, (0.2 * n_rows + 1.0) * rows + 1.2)
        axes = panels(fig, len(parts))
        cols = grid_shape(len(parts))[1]
        for k, (ax, (label, p, d)) in enumerate(zip(axes, parts, strict=True)):
            plot_forest(ax, d, label, what, ref=_reference(value, d, p), names=k % cols == 0)
        match_limits(axes, inner_labels=True)
        every = pd.concat([pd.concat([d["value"], d["lo"], d["hi"]]) for _, _, d in parts])
        for ax in axes:
            flat_axis(ax, "x", every, rate=bool(every.min() >= 0))
        fig.suptitle(heading(title, f"{name}: {what} (95% interval)"), fontsize=TITLE_SIZE)
        fname = f"balance_{name}_{value}.png"
        save(fig, out_dir / fname)
        many = f", one panel per {'grid cell' if len(parts) > 1 else 'cell'}" if len(parts) > 1 else ""
        ref = " Dashed: the fair share 1/players." if "win" in value else (
            " Dashed: zero." if any(_reference(value, d, None) == 0.0 for _, _, d in parts) else "")
        written.append((fname, f"{name}: {what} with 95% intervals{many}, sorted by the mean over panels.{ref}"))
    return written


def _write_cells_forest(name, table, value, lo, hi, out_dir, title, players) -> tuple[str, str]:
    d = table.copy()
    d["label"] = d["label"] if "label" in d.columns else "cell " + d["cell"].astype(str)
    f = forest_data(d.iloc[::-1], value, lo, hi, name_cols=("label",))
    f = f.set_index("name").reindex(list(d["label"].astype(str))[::-1]).dropna(subset=["value"]).reset_index()
    f["name"] = [cell_text(n).replace("\n", "; ") for n in f["name"]]
    what = value.replace("_", " ")
    fig = new_figure(8, 0.35 * len(f) + 2.2)
    ax = fig.subplots()
    fair = None
    if "win" in value:
        fairs = {fair_share(players.get(int(c))) if players else None for c in d["cell"]}
        fair = fairs.pop() if len(fairs) == 1 else None
    plot_forest(ax, f, "", what, ref=fair if "win" in value else (0.0 if (f["lo"] < 0).any() else None))
    fig.suptitle(heading(title, f"{name}: {what} per grid cell (95% interval)"), fontsize=TITLE_SIZE)
    fname = f"balance_{name}_{value}.png"
    save(fig, out_dir / fname)
    return fname, f"{name}: {what} in each grid cell (first cell on top), with 95% intervals."


def dose_response_data(sweep: pd.DataFrame) -> pd.DataFrame:
    """The card sweep in order of the swept value, per card and player count."""
    return sweep.sort_values(["players", "card", "value"], kind="stable").reset_index(drop=True)


def write_dose_response(sweep: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Card sweep: each card's effect against the swept field's value, a line per card, zero marked."""
    d = dose_response_data(sweep)
    counts = list(dict.fromkeys(d["players"]))
    rows, cols = grid_shape(len(counts))
    fig = new_figure(4.0 * cols + 2.8, 3.2 * rows + 1.2)
    axes = panels(fig, len(counts))
    for ax, n in zip(axes, counts, strict=True):
        part = d[d["players"] == n]
        for card, s in part.groupby("card", sort=False):
            line = ax.plot(s["value"], s["effect"], marker="o", label=str(card))[0]
            ax.fill_between(s["value"], s["effect_lo"], s["effect_hi"], color=line.get_color(), alpha=0.15,
                            linewidth=0)
        ax.axhline(0.0, color="black", linewidth=1)
        panel_title(ax, f"{n} players")
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    match_limits(axes)
    field = str(d["field"].iloc[0]) if "field" in d.columns else "value"
    fig.supxlabel(f"card {field} (swept value)", fontsize=9)
    fig.supylabel("win rate added (95% interval)", fontsize=9)
    figure_legend(fig, axes, "card")
    fig.suptitle(heading(title, f"effect of each card's {field} (0 = no advantage)"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "balance_card_sweep_effect.png")
    return "balance_card_sweep_effect.png", (
        f"Card sweep: the win rate seat 0 gains by favouring each card, as its {field} goes from low to high "
        "(shaded: 95% interval). The black line is zero: where a card's line crosses it, the card is as good "
        "as the baseline's own choices.")


# -- optimizer and fame curves --------------------------------------------------------------------


def write_convergence(history: pd.DataFrame, check: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    fig = new_figure(8, 4.5)
    ax = fig.subplots()
    ax.plot(history["generation"], history["best_win_rate"], marker="o", label="best so far (search seeds)")
    for row, colour in zip(check.itertuples(), ("grey", "green"), strict=False):
        ax.axhspan(row.win_lo, row.win_hi, color=colour, alpha=0.2,
                   label=f"{row.which} on fresh seeds: {row.win_rate:.3f} (95% interval)")
    ax.set_xlabel("generation (differential evolution)")
    ax.set_ylabel("win rate of the tuned seat")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(heading(title, "convergence"), fontsize=TITLE_SIZE)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    save(fig, out_dir / "convergence.png")
    return "convergence.png", "Optimizer convergence, and start vs best parameters re-measured on fresh seeds."


def write_fame_curves(curve: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Mean fame per round for each seat, one panel per grid cell, from balance_fame_curve.csv."""
    cells = list(dict.fromkeys(curve["cell"]))
    rows, cols = grid_shape(len(cells))
    fig = new_figure(3.4 * cols + 2.6, 2.8 * rows + 1.2)
    axes = panels(fig, len(cells))
    for ax, c in zip(axes, cells, strict=True):
        d = curve[curve["cell"] == c]
        d = d[d["games"] >= max(30, 0.01 * d["games"].max())]  # late rounds with a handful of games are noise
        for seat, s in d.groupby("seat"):
            ax.plot(s["round"], s["mean_fame"], marker=".", label=f"seat {seat}: {s['policy'].iloc[0]}")
        if "label" in d.columns and len(d) and (len(cells) > 1 or str(d["label"].iloc[0]) != "all"):
            panel_title(ax, cell_text(str(d["label"].iloc[0])))
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    match_limits(axes)
    fig.supxlabel("round", fontsize=9)
    fig.supylabel("mean fame that round\n(games still running)", fontsize=9)
    figure_legend(fig, axes)
    fig.suptitle(heading(title, "per-round fame curves"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "fame_curves.png")
    return "fame_curves.png", ("Mean fame per round for each seat, over the games still running in that round, "
                               "one panel per grid cell.")


# -- metagame -------------------------------------------------------------------------------------------

META_KINDS = (("nash", "Nash equilibrium (max entropy)"), ("alpha_rank", "alpha-Rank"),
              ("replicator", "replicator, time average"))


def write_metagame(shares: pd.DataFrame, trajectory: pd.DataFrame, out_dir, title: str) -> tuple[str, str]:
    """Each policy's share under the three readings of the metagame, with intervals, beside the replicator
    dynamics' path from equal shares."""
    names = list(shares["policy"])
    k = len(names)
    fig = new_figure(12.0, 0.45 * k * 3 + 2.5)
    left, right = fig.subplots(1, 2, width_ratios=[1.1, 1.0])
    y = np.arange(k)
    height = 0.8 / len(META_KINDS)
    for n, (col, label) in enumerate(META_KINDS):
        v = shares[col].to_numpy(float)
        err = np.vstack([v - shares[f"{col}_lo"].to_numpy(float), shares[f"{col}_hi"].to_numpy(float) - v])
        left.barh(y + (n - 1) * height, v, height, xerr=np.clip(err, 0, None), label=label, capsize=2)
    left.axvline(1.0 / k, **FAIR_STYLE, label=f"equal shares (1/{k})")
    left.set_yticks(y)
    left.set_yticklabels([short_text(s, 24) for s in names], fontsize=8)
    left.invert_yaxis()
    left.set_xlim(0, 1)
    left.set_xlabel("share of the population (95% bootstrap interval over deals)")
    left.set_ylabel("policy")
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)  # below: never on a bar
    for name in names:
        t = trajectory[trajectory["policy"] == name]
        right.plot(t["time"].to_numpy(float)[1:], t["share"].to_numpy(float)[1:], label=short_text(name, 24))
    right.set_xscale("log")
    right.set_ylim(0, 1)
    right.axhline(1.0 / k, **FAIR_STYLE)
    right.set_xlabel("time (replicator dynamics, log scale)")
    right.set_ylabel("share of the population")
    legend_outside(right)
    fig.suptitle(heading(title, "where the metagame settles: shares of each policy, and the replicator path "
                                "from equal shares"), fontsize=TITLE_SIZE)
    save(fig, out_dir / "metagame.png")
    alpha = float(shares["alpha"].iloc[0])
    return "metagame.png", (
        "Metagame of the round robin's head-to-head table. Left: each policy's share in the symmetric Nash "
        "equilibrium (the mix no single policy beats; the one of maximum entropy where several exist), in "
        f"alpha-Rank's stationary distribution (alpha = {alpha:g}) and in the replicator dynamics' time average "
        "from equal shares, each with a 95% interval from resampling the deals; the dashed line is equal shares. "
        "Right: the replicator dynamics' path from equal shares (a policy that wins more than the population's "
        "mean grows). Every number comes from the head-to-head table of paired deals.")
