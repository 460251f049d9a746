"""Build a report folder's charts and index.html from the CSV files in it.

``sweep`` calls this after writing its tables; ``python -m boardsim report
DIR`` calls it again on an existing folder, so a report can be redrawn
without re-running games.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from boardsim import games
from boardsim.errors import BadInput
from boardsim.report import answer, html, plots

# file -> caption, in the order the index lists them
TABLE_CAPTIONS = {
    "summary.csv": "one row per cell x seat, then per cell x policy (level = policy: the policy over every seat "
                   "arrangement, with a deal-level 95% interval and its seating spread)",
    "seatings.csv": "each seat arrangement's per-policy win rate with a 95% interval",
    "positions.csv": "win rate by place in turn order (0 = the first player), with 95% intervals",
    "scores.csv": "score histogram: games per cell, seat and score",
    "rounds.csv": "game length histogram: games per cell and rounds played",
    "tournament_pairwise.csv": "tournament: win rate of each policy against each opponent, 95% intervals",
    "tournament_ratings.csv": "tournament: Bradley-Terry ratings with 95% intervals",
    "tournament_matches.csv": "tournament: each match's seats and win rates",
    "tournament_cycles.csv": "tournament: non-transitive triples whose pairwise intervals all exclude 0.5",
    "optimize_check.csv": "optimizer: start and best parameters re-measured on fresh seeds, 95% intervals",
    "optimize_history.csv": "optimizer: best win rate found after each generation",
    "run.json": "provenance: version, seed, games, hashes, date",
}


def _read(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame()
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    return _clip_rate_bounds(frame)


def _clip_rate_bounds(frame: pd.DataFrame) -> pd.DataFrame:
    """Interval bounds of rates exactly inside [0, 1]: a t interval can reach past them, and a report must
    not show a win rate below 0 or above 1.  Effects and other differences (which may be negative) keep
    their bounds."""
    for col in frame.columns:
        if col.endswith(("_lo", "_hi")):
            stem = col[:-3]
            value = next((v for v in (f"{stem}_rate", stem) if v in frame.columns), None)
            rate_like = value is not None and ("rate" in value or stem.startswith("win"))
            if rate_like and "effect" not in stem and pd.api.types.is_numeric_dtype(frame[col]):
                frame[col] = frame[col].clip(0.0, 1.0)
    return frame


def _players_by_cell(summary: pd.DataFrame) -> dict[int, int]:
    if summary.empty or not {"cell", "players"} <= set(summary.columns):
        return {}
    return {int(c): int(p) for c, p in summary.groupby("cell")["players"].first().items()}


def _tournament_players(d: Path) -> int | None:
    """Seats per tournament match (the tables themselves do not say)."""
    matches = _read(d / "tournament_matches.csv")
    if matches.empty or not {"match", "seat"} <= set(matches.columns):
        return None
    return int(matches.groupby("match")["seat"].nunique().max())


def build_report(out_dir: str | Path) -> list[str]:
    """Draw every chart the folder's tables allow and write index.html; returns file names."""
    d = Path(out_dir)
    meta = json.loads((d / "run.json").read_text()) if (d / "run.json").exists() else {}
    title = meta.get("title", d.name)
    images: list[tuple[str, str]] = []
    summary = _read(d / "summary.csv")
    images += plots.write_standard_plots(summary, _read(d / "scores.csv"), d, title)
    positions = _read(d / "positions.csv")
    if not positions.empty and positions["players"].max() > 1:
        images.append(plots.write_positions(positions, d, title))
    rounds = _read(d / "rounds.csv")
    if not rounds.empty:
        images.append(plots.write_rounds(rounds, d, title))
    pair = _read(d / "tournament_pairwise.csv")
    t_players = _tournament_players(d)
    if not pair.empty:
        images.append(plots.write_heatmap(pair, d, title, t_players))
    ratings = _read(d / "tournament_ratings.csv")
    if not ratings.empty:
        images.append(plots.write_ratings(ratings, d, title))
    history = _read(d / "optimize_history.csv")
    check = _read(d / "optimize_check.csv")
    if not history.empty:
        images.append(plots.write_convergence(history, check, d, title))
    curve = _read(d / "balance_fame_curve.csv")
    if not curve.empty:
        images.append(plots.write_fame_curves(curve, d, title))
    notes = _chart_notes(meta, summary)
    players = _players_by_cell(summary)
    for path in sorted(d.glob("balance_*.csv")):
        name = path.stem.removeprefix("balance_")
        note = notes.get(name)
        images += [(f, f"{cap} {note}" if note else cap)
                   for f, cap in plots.write_balance(name, _read(path), d, title, players)]
    tables = [(name, cap) for name, cap in TABLE_CAPTIONS.items() if (d / name).exists()]
    tables += [(p.name, f"game-specific table: {p.stem.removeprefix('balance_')}") for p in
               sorted(d.glob("balance_*.csv"))]
    sentences = answer.sweep_answer(summary)
    sentences += answer.tournament_answer(ratings, pair, _read(d / "tournament_cycles.csv"), t_players)
    strength = _read(d / "balance_card_strength.csv")
    if not strength.empty:
        sentences += answer.cards_answer(strength)
    if not check.empty:
        sentences += answer.optimize_answer(check)
    notes_found = answer.caveats(summary, lambda name: _read(d / name))
    provenance = meta.get("provenance", {})
    html.write_index(d, title, meta.get("description", ""), images, provenance, summary, tables,
                     warnings=meta.get("warnings", []), answer=sentences, caveats=notes_found)
    return [name for name, _ in tables] + [name for name, _ in images] + ["index.html"]


def _chart_notes(meta: dict, summary: pd.DataFrame) -> dict[str, str]:
    """The game's own sentences for its balance charts (``CHART_NOTES`` in its balance module), by table
    name; the game comes from run.json's provenance or summary.csv."""
    name = meta.get("provenance", {}).get("game")
    if name is None and "game" in summary.columns and len(summary):
        name = summary["game"].iloc[0]
    if name is None:
        return {}
    try:
        game = games.get(name)
    except BadInput:
        return {}
    return dict(getattr(game.balance, "CHART_NOTES", {}))


def write_meta(out_dir: str | Path, title: str, description: str, provenance: dict) -> list[str]:
    """Write run.json (title, description, provenance with version and date) and build the report."""
    import datetime as _dt

    from boardsim import __version__

    prov = {"boardsim version": __version__, **provenance,
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    meta = {"title": title, "description": description, "provenance": prov}
    (Path(out_dir) / "run.json").write_text(json.dumps(meta, indent=2, default=str))
    return build_report(out_dir)
