"""Build a report folder's charts and index.html from the CSV files in it.

``sweep`` calls this after writing its tables; ``python -m boardsim report
DIR`` calls it again on an existing folder, so a report can be redrawn
without re-running games.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from boardsim import games, safe_io
from boardsim.errors import BadInput
from boardsim.report import answer, html, plots, replay_page, skill
from boardsim.report import feel as feel_report
from boardsim.report import patch as patch_report

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
    "meta_shares.csv": "metagame: each policy's share in the symmetric Nash equilibrium (maximum entropy), in "
                       "alpha-Rank's stationary distribution and in the replicator dynamics' time average from "
                       "equal shares, each with a 95% bootstrap interval over deals",
    "meta_split.csv": "metagame: the share of the head-to-head table a rating explains (transitive) and the rest "
                      "(cyclic), with a 95% bootstrap interval over deals",
    "meta_replicator.csv": "metagame: the replicator dynamics' path from equal shares (time, policy, share)",
    "ladder.csv": "skill ladder: rungs strongest first, Bradley-Terry rating and Elo with 95% intervals, and the "
                  "share of comparisons won against the next rung down with a deal-level interval",
    "skill.csv": "skill summary: skill depth, Elo span, and the share of outcomes skill decides with its interval",
    "first_player.csv": "each rung's first-player win rate in self-play, 95% Wilson interval, fair share",
    "matrix.csv": "skill ladder: the round robin's head-to-head shares as a matrix (row against column)",
    "card_verdicts.csv": "card strength on a skill axis: the cards whose verdict changes between base players "
                          "(flagged at one level and not another, or an effect that changes sign), each level's "
                          "flag and effect",
    "card_skill.csv": "card strength on a skill axis: per player count and card, each base player's strength, "
                      "interval and verdict side by side, and whether the verdict changes",
    "card_suggestions.csv": "card sweep: per card, the one value of the swept field that is fairest at every "
                            "player count and base player, whether it is fair everywhere, and each one's strength",
    "patch_objective.csv": "balance patch: the objective (worst |effect|) of today's table and the patched one on "
                           "fresh deals, with a 95% simultaneous interval, flagged counts under Holm's correction, "
                           "per skill level when there are several",
    "patch_verification.csv": "balance patch: every test's effect on the fresh verification deals, today and "
                              "patched, with 95% intervals, Holm-adjusted p-values, flags and the deal ranges",
    "patch_candidates.csv": "balance patch: every candidate scored in the search, at each rung of its race, with "
                            "the search deals behind each score",
    "patch_history.csv": "balance patch: the accepted patch after each round of the search",
    "patch_dose.csv": "balance patch: the measured dose-response (effect per unit of the field) behind each "
                      "candidate move",
    "optimize_check.csv": "optimizer: start and best parameters re-measured on fresh seeds, 95% intervals",
    "optimize_history.csv": "optimizer: best win rate found after each generation",
    "feel.csv": "how the game feels: per player count, skill level and metric (length, lead changes against a "
                "fair random walk, comeback and blowout rates, final margin, drama, security, decisiveness round), "
                "the mean over games with a deal-level 95% interval",
    "feel_by_goal.csv": "how each goal changes the feel (goals are dealt at random: causal): per player count, "
                        "level, goal and figure, the mean with and without the goal, their difference with a "
                        "Welch 95% interval, p-value and Holm's correction over the table's goals and figures",
    "leader_wins.csv": "the leader-wins curve: per player count, skill level and round, the share of games the "
                       "leader after that round wins, with a deal-level 95% interval",
    "run.json": "provenance: version, seed, games, hashes, date",
}


# columns the charts read from each table; a table without them is reported before anything is drawn
REQUIRED = {
    "summary.csv": ("cell", "label", "policy", "games", "win_rate", "win_lo", "win_hi"),
    "scores.csv": ("cell", "seat", "policy", "label", "score", "count"),
    "positions.csv": ("cell", "label", "players", "position", "win_rate", "win_lo", "win_hi"),
    "rounds.csv": ("cell", "label", "rounds", "count"),
    "tournament_pairwise.csv": ("policy", "opponent", "games"),
    "ladder.csv": ("rung", "policy", "elo", "below", "vs_below", "vs_below_lo", "vs_below_hi"),
    "skill.csv": ("skill_depth", "elo_span", "skill_share", "skill_share_lo", "skill_share_hi", "strongest",
                  "strongest_vs_random", "rungs"),
    "first_player.csv": ("policy", "first_player_rate", "lo", "hi", "fair_share"),
    "patch_objective.csv": ("table", "base", "patch", "objective", "objective_lo", "objective_hi", "flagged",
                            "flagged_cards", "confirmed"),
    "patch_verification.csv": ("table", "base", "players", "card", "effect", "effect_lo", "effect_hi", "flag"),
    "patch_history.csv": ("round", "objective", "edits"),
    "patch_candidates.csv": ("round", "objective", "share_of_search_deals"),
    "feel.csv": ("players", "level", "metric", "mean", "lo", "hi"),
    "leader_wins.csv": ("players", "level", "round", "leader_wins", "lo", "hi", "games"),
}


def _read(path: Path) -> pd.DataFrame:
    """A table of the folder (empty when absent); BadInput naming the file when it is not a readable CSV
    with the columns the charts need."""
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return pd.DataFrame()
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except (OSError, ValueError, pd.errors.ParserError) as e:  # UnicodeDecodeError is a ValueError
        raise BadInput("csv", f"not a readable CSV table: {getattr(e, 'strerror', None) or e}", str(path)) from None
    missing = [c for c in REQUIRED.get(path.name, ()) if c not in frame.columns]
    if missing and not frame.empty:
        raise BadInput("columns", f"missing {', '.join(missing)} (a {path.name} written by boardsim has them)",
                       str(path))
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


def _read_meta(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or e
        raise BadInput("run.json", f"not a readable JSON file: {why}", str(path)) from None
    if not isinstance(meta, dict) or not isinstance(meta.get("provenance", {}), dict):
        raise BadInput("run.json", "expected a JSON object with title, description and provenance", str(path))
    return meta


def _draw(path: Path, draw: Callable[..., Any], *args: Any) -> Any:
    """``draw(*args)``; a table whose values the chart cannot use is BadInput naming it."""
    try:
        return draw(*args)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
        raise BadInput("columns", f"cannot draw a chart from this table ({type(e).__name__}: {e})", str(path)) from None


def _replays(d: Path) -> list[tuple[str, str]]:
    """(file name, what it shows) of every replay page in the folder (replays.py), for the answer's links; a
    page that cannot be read is listed by its name alone."""
    found = []
    for p in sorted(d.glob("replay-*.html")):
        try:
            data = replay_page.read_data(p.read_text(encoding="utf-8"))
            what = f"{data['title']}, deal {data['deal']}: {data.get('reason', '')}"
        except (OSError, ValueError, KeyError, TypeError):
            what = "a replay"
        found.append((p.name, what))
    return found


def build_report(out_dir: str | Path) -> list[str]:
    """Draw every chart the folder's tables allow and write index.html, opening with the answer; returns
    file names.

    Everything is drawn into a scratch folder first and copied in only when all of it worked, so a
    folder with a bad table or run.json gets one BadInput naming the file and is left as it was.
    """
    d = Path(out_dir)
    meta = _read_meta(d / "run.json")
    title = str(meta.get("title", d.name))
    frames = {name: _read(d / name) for name in REQUIRED}
    balance = {p: _read(p) for p in sorted(d.glob("balance_*.csv"))}
    with tempfile.TemporaryDirectory(prefix="boardsim-report-") as scratch:
        s = Path(scratch)
        images = _draw_all(d, s, meta, title, frames, balance)
        tables = [(name, cap) for name, cap in TABLE_CAPTIONS.items() if (d / name).exists()]
        tables += [(p.name, f"game-specific table: {p.stem.removeprefix('balance_')}") for p in balance]
        summary, pair = frames["summary.csv"], frames["tournament_pairwise.csv"]
        patch_objective = _read(d / "patch_objective.csv")
        sentences = _draw(d / "patch_objective.csv", patch_report.patch_answer, patch_objective,
                          list(meta.get("provenance", {}).get("search limits", [])),
                          _read(d / "patch_verification.csv")) if not patch_objective.empty else []
        sentences += _draw(d / "positions.csv", answer.skill_answer, frames["positions.csv"])
        if not frames["feel.csv"].empty:
            sentences += _draw(d / "feel.csv", feel_report.feel_answer, frames["feel.csv"], frames["leader_wins.csv"])
            for split in sorted(d.glob("feel_by_*.csv")):
                sentences += _draw(split, feel_report.split_answer, _read(split))
        sentences += answer.sweep_answer(summary)
        if not frames["skill.csv"].empty and not frames["ladder.csv"].empty:  # a ladder: its answer comes first
            sentences += _draw(d / "skill.csv", answer.ladder_answer, frames["skill.csv"], frames["first_player.csv"],
                               frames["ladder.csv"])
        sentences += answer.tournament_answer(_read(d / "tournament_ratings.csv"), pair,
                                              _read(d / "tournament_cycles.csv"), _tournament_players(d))
        sentences += _draw(d / "meta_shares.csv", answer.meta_answer, _read(d / "meta_shares.csv"),
                           _read(d / "meta_split.csv"), _tournament_players(d))
        strength = balance.get(d / "balance_card_strength.csv", pd.DataFrame())
        if not strength.empty:
            sentences += answer.cards_answer(strength, _read(d / "card_verdicts.csv"))
            sentences += answer.suggestions_answer(_read(d / "card_suggestions.csv"))
        check = _read(d / "optimize_check.csv")
        if not check.empty:
            sentences += answer.optimize_answer(check)
        found = answer.caveats(summary, lambda name: _read(d / name))
        provenance = meta.get("provenance", {})
        replays = _replays(d)
        _draw(d / "run.json", lambda: html.write_index(s, title, str(meta.get("description", "")), images, provenance,
                                                       summary, tables, warnings=list(meta.get("warnings", [])),
                                                       answer=sentences, caveats=found, replays=replays))
        for made in sorted(s.iterdir()):
            safe_io.write_bytes(d / made.name, made.read_bytes())
    return [name for name, _ in tables] + [name for name, _ in images] + ["index.html"]


def _draw_all(d: Path, s: Path, meta: dict, title: str, frames: dict[str, pd.DataFrame],
              balance: dict[Path, pd.DataFrame]) -> list[tuple[str, str]]:
    """Every chart the tables of ``d`` allow, drawn into ``s``."""
    images: list[tuple[str, str]] = []
    summary = frames["summary.csv"]
    images += _draw(d / "summary.csv", plots.write_standard_plots, summary, frames["scores.csv"], s, title)
    positions = frames["positions.csv"]
    if not positions.empty and positions["players"].max() > 1:
        images.append(_draw(d / "positions.csv", plots.write_positions, positions, s, title))
    rounds = frames["rounds.csv"]
    if not rounds.empty:
        images.append(_draw(d / "rounds.csv", plots.write_rounds, rounds, s, title))
    if not frames["ladder.csv"].empty:
        images.append(_draw(d / "ladder.csv", skill.write_ladder, frames["ladder.csv"], s, title))
    if not frames["first_player.csv"].empty:
        images.append(_draw(d / "first_player.csv", skill.write_first_player, frames["first_player.csv"], s, title))
    pair = frames["tournament_pairwise.csv"]
    if not pair.empty:
        images.append(_draw(d / "tournament_pairwise.csv", plots.write_heatmap, pair, s, title,
                            _tournament_players(d)))
    ratings = _read(d / "tournament_ratings.csv")
    if not ratings.empty:
        images.append(_draw(d / "tournament_ratings.csv", plots.write_ratings, ratings, s, title))
    shares = _read(d / "meta_shares.csv")
    if not shares.empty:
        images.append(_draw(d / "meta_shares.csv", plots.write_metagame, shares, _read(d / "meta_replicator.csv"),
                            s, title))
    verification = _read(d / "patch_verification.csv")
    if not verification.empty:
        kinds = patch_report.kinds(verification)
        if (~kinds.isin(patch_report.TARGET_KINDS)).any():
            images.append(_draw(d / "patch_verification.csv", patch_report.write_effects, verification, s, title))
        if kinds.isin(patch_report.TARGET_KINDS).any():
            images.append(_draw(d / "patch_verification.csv", patch_report.write_feel, verification, s, title))
    patch_history = _read(d / "patch_history.csv")
    if not patch_history.empty:
        images.append(_draw(d / "patch_history.csv", patch_report.write_search, patch_history,
                            _read(d / "patch_candidates.csv"), s, title))
    if not frames["leader_wins.csv"].empty:
        images.append(_draw(d / "leader_wins.csv", feel_report.write_leader_wins, frames["leader_wins.csv"], s, title))
    history = _read(d / "optimize_history.csv")
    if not history.empty and "best_win_rate" in history.columns:  # a feel target's check is the answer's table
        images.append(_draw(d / "optimize_history.csv", plots.write_convergence, history,
                            _read(d / "optimize_check.csv"), s, title))
    curve = balance.get(d / "balance_fame_curve.csv", pd.DataFrame())
    if not curve.empty:
        images.append(_draw(d / "balance_fame_curve.csv", plots.write_fame_curves, curve, s, title))
    notes = _chart_notes(meta, summary)
    players = _players_by_cell(summary)
    for path, frame in balance.items():
        name = path.stem.removeprefix("balance_")
        note = notes.get(name)
        drawn = _draw(path, plots.write_balance, name, frame, s, title, players)
        images += [(f, f"{cap} {note}" if note else cap) for f, cap in drawn]
    return images


def _chart_notes(meta: dict, summary: pd.DataFrame) -> dict[str, str]:
    """The game's own sentences for its balance charts (``Game.chart_notes``: its balance module's
    ``CHART_NOTES``), by table name; the game comes from run.json's provenance or summary.csv."""
    name = meta.get("provenance", {}).get("game")
    if not isinstance(name, str):
        name = None
    if name is None and "game" in summary.columns and len(summary):
        name = summary["game"].iloc[0]
    if name is None:
        return {}
    try:
        game = games.get(name)
    except BadInput:
        return {}
    return game.chart_notes()


def write_meta(out_dir: str | Path, title: str, description: str, provenance: dict,
               owner: str | None = None) -> list[str]:
    """Write run.json (title, description, the run id that owns the folder, provenance with version and date)
    and build the report."""
    import datetime as _dt

    from boardsim.version import __version__

    prov = {"boardsim version": __version__, **provenance,
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    meta = {"title": title, "description": description, "provenance": prov}
    if owner is not None:
        meta["run id"] = owner
    safe_io.write_text(Path(out_dir) / "run.json", json.dumps(meta, indent=2, default=str))
    return build_report(out_dir)
