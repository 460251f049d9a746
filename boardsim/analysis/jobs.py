"""Whole analysis workflows that write a results folder: a tournament, a skill ladder, a tuning run, a
card-strength study and a round robin's metagame (the patch search is ``boardsim.analysis.patch_job``).

Each one checks every input and the output folder before it plays a game or touches the folder, plays,
writes its tables, ``run.json`` and report, and returns what it found with the files it wrote; the CLI only
parses flags, calls one of these and prints.  Errors name the parameter (``out``, ``base``, ``threads``).
"""

from __future__ import annotations

import sys
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardsim import safe_io
from boardsim.errors import BadInput, BadParameter
from boardsim.folders import writing
from boardsim.games.base import Game, Seat
from boardsim.replays import job_replays
from boardsim.stats.metagame import DRAWS

MIN_DRAWS, MAX_DRAWS = 10, 100_000  # meta's bootstrap resamples


@dataclass
class Job:
    """What a workflow found (``result``: its own result object), where it wrote it and which files."""

    result: Any
    out_dir: Path
    files: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # workflow-specific tables the CLI prints


def out_folder(out: str | Path | None, default: str | Path, owner: str, force: bool = False) -> Path:
    """``out`` (or ``default``) checked like a sweep's folder, not yet created: it is refused when it holds
    another run's results (a sweep's, a patch's, another command's) unless ``force``.  ``owner`` names the
    run (command and game): the same command may rewrite its own folder."""
    from boardsim.folders import claim

    return claim(out, default, owner, force)


def _game(game: str | Game) -> Game:
    from boardsim.games import get

    return get(game) if isinstance(game, str) else game


def tournament_job(
    game: str | Game,
    policies: Sequence[Any],
    players: int | None = None,
    games: int = 10_000,
    seed: int = 0,
    mode: str = "round_robin",
    field: Any = None,
    rules: Mapping[str, Any] | None = None,
    seating: str = "all",
    threads: int | None = None,
    out: str | Path | None = None,
    progress: bool | None = None,
    force: bool = False,
    fresh: bool = False,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
) -> Job:
    """``run_tournament``, written with its report into ``out`` (default
    ``reports/tournament-<game>/``; another run's folder only with ``force``).  Every finished match is
    saved under ``out/chunks/matches``: a rerun after a kill resumes there (``fresh`` plays everything again)."""
    from boardsim.report.build import write_meta
    from boardsim.runner import executing
    from boardsim.seat import as_seat
    from boardsim.tournaments import MatchStore, run_tournament, write_tournament

    g = _game(game)
    players = players or max(2, g.min_players)
    seats = [as_seat(p) for p in policies]
    owner = f"tournament {g.name}"
    out_dir = out_folder(out, f"reports/tournament-{g.name}", owner, force)  # made once the games are played
    rules = dict(rules or {})
    with executing(executor, workers, scheduler, scheduler_file, threads) as ex:
        # each finished match is saved under out/chunks/matches: a rerun after a kill resumes (unless fresh)
        result = run_tournament(g, seats, players=players, games=games, seed=seed, mode=mode, field=field,
                                rules=rules, progress=progress, seating=seating,
                                store=MatchStore(out_dir / "chunks" / "matches", fresh), executor=ex)
    with writing(out_dir):
        write_tournament(result, out_dir)
        files = write_meta(out_dir, f"{g.title}: {mode.replace('_', ' ')} tournament at {players} players",
                           f"Policies: {', '.join(s.label() for s in seats)}; {games:,} games per match, "
                           f"each deal in every seat arrangement ({seating}).",
                           {"game": g.name, "seed": seed, "games per match": games, "seating": seating,
                            "rules": rules}, owner)
    return Job(result, out_dir, files)


def ladder_job(
    game: str | Game,
    players: int | None = None,
    budgets: Sequence[int] = (10, 100, 1000),
    games: int = 200,
    policies: Sequence[Any] | None = None,
    seed: int = 0,
    threads: int | None = None,
    out: str | Path | None = None,
    progress: bool | None = None,
    force: bool = False,
    fresh: bool = False,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    replays: bool = False,
) -> Job:
    """``run_ladder``, written with its report into ``out`` (default
    ``reports/ladder-<game>/``; another run's folder only with ``force``).  Every finished match is saved
    under ``out/chunks/matches``: a rerun after a kill resumes there (``fresh`` plays everything again).
    ``replays``: also write two step-through replays of the top two rungs head to head (an upset, where the
    second rung wins, and a typical game), linked beside the answer (docs/guide/replay.md)."""
    from boardsim.analysis.ladder import run_ladder
    from boardsim.report.build import write_meta
    from boardsim.runner import executing
    from boardsim.tournaments import MatchStore, write_metagame

    g = _game(game)
    players = players or max(2, g.min_players)
    owner = f"ladder {g.name}"
    out_dir = out_folder(out, f"reports/ladder-{g.name}", owner, force)  # made once the ladder is played
    with executing(executor, workers, scheduler, scheduler_file, threads) as ex:
        result = run_ladder(g, players=players, budgets=budgets, games=games, policies=policies, seed=seed,
                            progress=progress, store=MatchStore(out_dir / "chunks" / "matches", fresh),
                            executor=ex)
    with writing(out_dir):
        safe_io.write_csv(result.ladder, out_dir / "ladder.csv")
        safe_io.write_csv(result.skill, out_dir / "skill.csv")
        safe_io.write_csv(result.first_player, out_dir / "first_player.csv")
        safe_io.write_csv(result.tournament.matrix().reset_index(), out_dir / "matrix.csv")
        safe_io.write_csv(result.tournament.pairwise, out_dir / "tournament_pairwise.csv")
        safe_io.write_csv(result.tournament.ratings, out_dir / "tournament_ratings.csv")
        if result.tournament.per_deal is not None:
            write_metagame(result.tournament.per_deal, result.tournament.policies, out_dir, seed)
        if replays and len(result.ladder) >= 2:
            top = list(result.ladder["policy"][:2])
            _warn(job_replays(g, [("top-two-upset", top, "upset", None), ("top-two-typical", top, "typical", None)],
                              players, seed, None, out_dir))
        files = write_meta(out_dir, f"{g.title}: skill ladder at {players} players",
                           "random, the built-in heuristics and mcts at each budget in a round robin on common deals "
                           "(every deal in every seating); each rung also plays itself in every seat for the "
                           "first-player edge.",
                           {"game": g.name, "players": players, "budgets": list(budgets), "games per match": games,
                            "seed": seed, "threads": threads, "rungs": list(result.ladder["policy"])}, owner)
    return Job(result, out_dir, files)


def optimize_job(
    scenario: Any,
    games: int | None = None,
    objective: str | None = None,
    maxiter: int | None = None,
    threads: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
) -> Job:
    """Tune the seat named by a scenario's ``[optimize]`` table (``tune``) and
    write the check, the search history and the report into ``out`` (default
    ``reports/<scenario name>-optimize/``).  ``games``, ``maxiter`` and ``objective`` (``win_rate`` or a feel
    target such as ``"comeback_rate>=0.2"``) override the table's."""
    from boardsim.analysis.optimize import tune
    from boardsim.report.build import write_meta
    from boardsim.runner import executing
    from boardsim.scenario import Scenario, load_scenario

    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if sc.optimize is None:
        raise BadInput("optimize", "the scenario has no [optimize] table", sc.path)
    opt = sc.optimize
    cell = sc.cells()[0]
    owner = f"optimize {sc.name}"
    out_dir = out_folder(out, f"reports/{sc.name}-optimize", owner, force)  # made once the search is done
    try:
        with executing(executor, workers, scheduler, scheduler_file, threads) as ex:
            result = tune(sc.game, cell.n_players, cell.seats, sc.rules, cell.cards, opt.get("seat", 0),
                          opt["params"], games=games or opt.get("games", 2000),
                          check_games=opt.get("check_games", 20_000), maxiter=maxiter or opt.get("maxiter", 10),
                          popsize=opt.get("popsize", 8), seed=sc.seed, executor=ex,
                          objective=objective or opt.get("objective", "win_rate"))
    except BadParameter:
        raise
    except BadInput as e:
        raise BadInput(e.key, e.message, sc.path) from None
    with writing(out_dir):
        safe_io.write_csv(result.check, out_dir / "optimize_check.csv")
        safe_io.write_csv(result.history, out_dir / "optimize_history.csv")
        files = write_meta(out_dir, f"{sc.title}: tuning seat {result.seat} ({result.policy})", sc.description,
                           {"scenario": sc.path, "seed": sc.seed, "evaluations": result.evaluations,
                            "search bounds": opt["params"], "best parameters": result.best,
                            "best parameters, rounded to the supported precision": result.rounded,
                            "objective": result.extra.get("objective", "win_rate"),
                            "best - start (paired, fresh deals)": result.improvement}, owner)
    return Job(result, out_dir, files)


def cards_job(
    game: str | Game,
    players: int | Sequence[int] = 2,
    games: int = 20_000,
    seed: int = 0,
    cards: Sequence[str] | None = None,
    base: Any = None,
    sweep: str | None = None,
    span: int = 3,
    rules: Mapping[str, Any] | None = None,
    seating: str = "all",
    threads: int | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    force: bool = False,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    replays: bool = False,
) -> Job:
    """Card strength (``card_strength``): each card's swing (the win share of a
    seat that hires it whenever it can minus that of one that never hires it, ``base`` in every other seat
    and otherwise in the measured seat, on the same deals) minus the average market card's, with the regret
    against the base's own choices beside it; with ``sweep``, each flagged card's integer field swept over
    +-``span`` for one value that is fairest over every player count and base player.

    ``base``: one or more base players (a skill axis); ``cards``: the cards measured (default: every
    market card).  Writes ``balance_card_strength.csv`` (and the verdicts, sweep and suggestions) with the
    report into ``out`` (default ``reports/cards-<game>/``).  ``progress``: a bar over every game played (on
    stderr).  ``executor``: where the games run, ``local`` (threads, default), ``processes`` (``workers``) or
    ``dask`` (``scheduler`` address or Client, ``scheduler_file``, or ``workers`` for a local cluster); the
    tables do not depend on it.  ``replays``: also write step-through replays of a game the strongest and
    the weakest card's owner (a seat favouring it, the first base player elsewhere) won, at the first player
    count, linked beside the answer (docs/guide/replay.md).  ``extra`` of the returned Job holds
    ``strength``, ``changes`` and ``suggestions``."""
    from boardsim import cost
    from boardsim.analysis.balance import (
        card_arms,
        card_cost,
        card_strength,
        skill_table,
        value_sweep,
        verdict_changes,
    )
    from boardsim.analysis.players import base_players
    from boardsim.report.build import write_meta
    from boardsim.runner import executing

    g = _game(game)
    counts = [players] if isinstance(players, int) else list(players)
    for n in counts:
        try:
            g.check_players(n)
        except BadInput as e:
            raise BadParameter("players", e.message) from None
    table = g.card_table()
    known = g.market_cards(table)
    chosen = list(cards) if cards else known
    for card in chosen:
        if card not in known:
            raise BadParameter("cards", f"unknown card {card!r} (known: {', '.join(known) or 'none'})")
    bases = base_players(g, base)
    for b in bases:  # a base that cannot favour or avoid a card is refused before any game
        g.favour(chosen[0] if chosen else "", b)
        g.avoid(chosen[0] if chosen else "", b)
    if sweep:  # checked before any game is played
        sweepable = g.card_fields(table)
        if sweep not in sweepable:
            what = "not a sweepable" if sweep in table.columns else "unknown"
            raise BadParameter("sweep", f"{what} card field {sweep!r}; allowed: {', '.join(sweepable) or 'none'}")
    owner = f"cards {g.name}"
    out_dir = out_folder(out, f"reports/cards-{g.name}", owner, force)  # made once the first table is measured
    rules = dict(rules or {})
    with executing(executor, workers, scheduler, scheduler_file, threads) as ex:
        seconds, took = card_cost(g, counts, bases, chosen, table, games, seed, rules)
        cost.announce(seconds, took, f"{g.title} card strength, {len(chosen)} cards x {len(counts)} player "
                                     f"counts x {len(bases)} base players")
        arms = card_arms(g, chosen, table)
        with cost.Bar(progress, total=games * arms * len(counts) * len(bases), desc="cards") as bar:
            strength = card_strength(g, counts, bases, chosen, table, games, seed, rules,
                                     progress=lambda _label, n: bar.update(n), seating=seating, executor=ex)
        with writing(out_dir):
            safe_io.write_csv(strength, out_dir / "balance_card_strength.csv")
            changes = verdict_changes(strength)
            skill = skill_table(strength)
            if len(bases) > 1:
                safe_io.write_csv(changes, out_dir / "card_verdicts.csv")
                safe_io.write_csv(skill, out_dir / "card_skill.csv")
            sweeps, suggestions = [], []
            if sweep:
                # the cards named by the caller, or else those flagged at any player count or skill level
                targets = chosen if cards else list(dict.fromkeys(strength.loc[strength["flag"] != "", "card"]))
                per_value = 4 * len(counts) * len(bases) * games  # the card's two arms and the references, per value
                with cost.Bar(progress, total=per_value * (2 * span + 1) * len(targets), desc="sweep") as bar:
                    for card in targets:
                        now = int(table.loc[table["name"] == card, sweep].iloc[0])
                        values = range(now - span, now + span + 1)
                        frame, suggestion = value_sweep(g, counts, bases, card, sweep, values, games, seed,
                                                        rules, seating=seating, executor=ex,
                                                        progress=lambda _label, n: bar.update(n))
                        sweeps.append(frame)
                        if suggestion is not None:
                            suggestions.append({"current": now, **suggestion})
            if sweeps:
                safe_io.write_csv(pd.concat(sweeps), out_dir / "balance_card_sweep.csv")
                safe_io.write_csv(pd.DataFrame(suggestions), out_dir / "card_suggestions.csv")
            if replays:
                _warn(job_replays(g, _card_tables(g, strength, bases[0], counts[0]), counts[0], seed, rules, out_dir))
            where = ", ".join(str(n) for n in counts)
            labels = [b.label() for b in bases]
            text = ("Strength: a card's swing (the win share of a seat that hires it whenever it can minus that "
                    "of a seat that never hires it, both otherwise the base player, on the same deals) minus the "
                    "average market card's swing (0 = the average card; positive = stronger); the regret column "
                    "is the favouring seat's share minus the base player's own"
                    + (f", measured under each base player ({', '.join(labels)}): a skill axis" if len(bases) > 1
                       else f", base player {labels[0]}")
                    + ". A card is flagged strong or weak when its strength differs from zero after Holm's "
                    "correction over all cards, player counts and base players tested.")
            files = write_meta(out_dir, f"{g.title}: card strength at {where} players, base {' and '.join(labels)}",
                               text, {"game": g.name, "seed": seed, "games per arm per card": games,
                                      "players": counts, "cards": chosen, "base policy": labels, "rules": rules,
                                      "seating": seating, "sweep": sweep, "span": span, "threads": threads}, owner)
    return Job(strength, out_dir, files, {"strength": strength, "changes": changes, "bases": bases, "skill": skill,
                                          "suggestions": pd.DataFrame(suggestions),
                                          "sweep": pd.concat(sweeps) if sweeps else pd.DataFrame()})


def _card_tables(g: Game, strength: pd.DataFrame, base: Seat, players: int) -> list:
    """job_replays' tables for ``cards --replays``: the strongest and the weakest card at ``players`` under
    ``base``, each favoured in seat 0 (the base elsewhere), among the games that seat won."""
    rows = strength[(strength["players"] == players) & (strength["base"] == base.label())].sort_values("effect")
    picked = list(dict.fromkeys([rows["card"].iloc[-1], rows["card"].iloc[0]])) if len(rows) else []
    return [(f"{card}-owner-wins", [g.favour(card, base)] + [base] * (players - 1), "typical", 0) for card in picked]


def _warn(skipped: Sequence[str]) -> None:
    for line in skipped:
        print(f"warning: {line}", file=sys.stderr)


@dataclass
class Cards:
    """What ``cards`` found: each a DataFrame (empty where not asked for)."""

    strength: pd.DataFrame  # per base, player count and card: strength, regret, flag (balance_card_strength.csv)
    verdicts: pd.DataFrame  # cards whose verdict changes between base players (card_verdicts.csv)
    skill: pd.DataFrame  # per count and card, every base player's strength and verdict side by side (card_skill.csv)
    suggestions: pd.DataFrame  # one value per swept card, fair at every level where one is (card_suggestions.csv)
    sweep: pd.DataFrame  # the sweep's strength at every value (balance_card_sweep.csv)
    out_dir: Path


def cards(game: str | Game, players: int | Sequence[int] = 2, games: int = 20_000, seed: int = 0,
          cards: Sequence[str] | None = None, base: Any = None, sweep: str | None = None, span: int = 3,
          rules: Mapping[str, Any] | None = None, seating: str = "all", threads: int | None = None,
          out: str | Path | None = None, progress: bool = False, force: bool = False, executor: Any = None,
          workers: int | None = None, scheduler: Any = None, scheduler_file: str | None = None,
          replays: bool = False) -> Cards:
    """``python -m boardsim cards`` from Python (``cards_job``, the same arguments): the tables as
    DataFrames, also written with the report into ``out``.

    >>> found = boardsim.cards("fliptoons", players=[2, 3], base=["fame_per_cost", "learned"], games=20_000)
    >>> found.strength.query("flag == 'strong'")
    """
    job = cards_job(game, players, games, seed, cards, base, sweep, span, rules, seating, threads, out, progress,
                    force, executor, workers, scheduler, scheduler_file, replays)
    x = job.extra
    return Cards(x["strength"], x["changes"], x["skill"], x["suggestions"], x["sweep"], job.out_dir)


__all__ = ["Cards", "Job", "cards", "cards_job", "ladder_job", "optimize_job", "out_folder",
           "tournament_job"]


def meta_job(folder: str | Path, draws: int = DRAWS, seed: int | None = None) -> Job:
    """The metagame of a round robin (stats.metagame) from the per-deal comparisons its folder keeps
    (``tournament_per_deal.npz``, written by ``tournament`` in round-robin mode and by ``ladder``): its tables
    (meta_shares.csv, meta_split.csv, meta_replicator.csv) are written into that folder and its report is drawn
    again.  ``draws`` bootstrap resamples of the deals; ``seed`` for them (default: the tournament's)."""
    from boardsim.report.build import build_report
    from boardsim.tournaments import PER_DEAL, write_metagame

    d = Path(folder)
    if not d.is_dir():
        raise BadParameter("folder", f"got {str(d)!r}, which is not a folder; allowed: a tournament or ladder "
                                     "folder")
    _check_meta(draws, seed)
    per_deal, names, saved_seed = _per_deal(d / PER_DEAL)
    with safe_io.FolderLock(d):
        mg = write_metagame(per_deal, names, d, saved_seed if seed is None else seed, draws, keep=False)
        files = build_report(d)
    return Job(mg.shares, d, files, {"split": mg.split})


def _check_meta(draws: Any, seed: Any) -> None:
    """BadParameter ``draws`` or ``seed`` unless they are whole numbers in meta's ranges."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not MIN_DRAWS <= draws <= MAX_DRAWS:
        raise BadParameter("draws", f"got {draws!r}; allowed: a whole number from {MIN_DRAWS} to {MAX_DRAWS}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise BadParameter("seed", f"got {seed!r}; allowed: a whole number >= 0")


def _per_deal(path: Path) -> tuple[np.ndarray, list[str], int]:
    """The round robin's per-deal comparisons, policy names and seed from ``path``; BadInput naming it when it
    is missing or is not such a file."""
    if not path.is_file():
        raise BadInput("folder", f"no {path.name}: meta reads the per-deal comparisons of a round robin, which "
                                 "tournament (mode round_robin) and ladder write; allowed: such a folder",
                       str(path.parent))
    try:
        with np.load(path, allow_pickle=False) as z:
            per_deal = np.asarray(z["per_deal"], dtype=np.float64)
            names = [str(x) for x in z["names"]]
            seed = int(z["seed"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise BadInput("per_deal", f"not a per-deal comparison file ({type(e).__name__}); allowed: the file "
                                   "tournament and ladder write", str(path)) from None
    k = len(names)
    if (per_deal.ndim != 3 or per_deal.shape[1:] != (k, k) or per_deal.shape[0] < 2 or k < 2
            or not np.isfinite(per_deal).all() or (per_deal < 0).any()):
        raise BadInput("per_deal", f"shape {per_deal.shape} for {k} policies; allowed: (deals >= 2, {k}, {k}) "
                                   "non-negative counts", str(path))
    won = per_deal.sum(axis=0)
    if ((won + won.T) + np.eye(k) == 0).any():
        raise BadInput("per_deal", "some pair of policies never met; allowed: a round robin's file", str(path))
    return per_deal, names, seed


def meta(source: Any, draws: int = DRAWS, seed: int | None = None) -> Any:
    """The metagame (stats.metagame.Metagame: Nash, alpha-Rank and replicator shares with bootstrap intervals,
    the replicator's path, the transitive/cyclic split) of a round robin: a ``boardsim.tournament`` or
    ``boardsim.ladder`` result, or the folder one of them wrote (docs/guide/metagame.md).  Writes nothing."""
    from boardsim.stats.metagame import metagame
    from boardsim.tournaments import PER_DEAL

    result = getattr(source, "tournament", source)  # a ladder holds its round robin
    _check_meta(draws, seed)
    if isinstance(source, (str, Path)):
        per_deal, names, saved = _per_deal(Path(source) / PER_DEAL)
    elif getattr(result, "per_deal", None) is not None:
        per_deal, names, saved = result.per_deal, result.policies, result.seed
    else:
        raise BadParameter("source", "no per-deal comparisons; allowed: a round-robin tournament or ladder result, "
                                     "or the folder it wrote")
    return metagame(per_deal, names, saved if seed is None else seed, draws)
