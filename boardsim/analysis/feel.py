"""How a game feels at each skill level: ``boardsim.feel`` and ``python -m boardsim feel`` (docs/guide/feel.md).

Each (player count, level) is a self-play table: every seat plays the level's policy, its deals played with
the engine's per-round progress recording on (``Prepared.progress``).  Each chunk's games become per-game feel
values (stats.feel.game_values) summed per deal, so memory does not grow with the games; the figures are means
over games with deal-level 95% intervals, the leader-wins curve and the decisiveness round.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardsim import learned, safe_io
from boardsim.analysis.balance import holm
from boardsim.errors import BadInput, BadParameter
from boardsim.games.base import Game
from boardsim.seat import Seat, as_seat
from boardsim.stats import feel as F

DEALS = 20_000  # deals per level for fast players
SEARCH_DEALS = 200  # deals per level for search players (mcts)
MAX_DEALS = 10_000_000


@dataclass
class FeelResult:
    """``metrics``: one row per (players, level, metric) with mean, lo, hi and games; ``curve``: the leader-wins
    curve per (players, level, round); ``levels``: the levels played at each player count."""

    game: str
    metrics: pd.DataFrame
    curve: pd.DataFrame
    levels: dict[int, list[str]] = field(default_factory=dict)
    seed: int = 0
    # the figures split by something dealt at random in each game (Game.feel_groups: Wagons' goals), one row
    # per player count, level, group and metric; empty where the game has no such split
    split: pd.DataFrame = field(default_factory=pd.DataFrame)
    split_kind: str = ""

    def answer(self) -> list[str]:
        from boardsim.report.feel import feel_answer

        return feel_answer(self.metrics, self.curve)


def default_levels(g: Game, players: int) -> list[Seat]:
    """The default heuristic, ``learned`` where a model is bundled for ``players`` (the strongest fast
    player), and ``mcts(iterations=100)``."""
    levels = [Seat(g.default_policy, {})]
    if any(p.name == "learned" for p in g.policies) and learned.bundled_path(g.name, players).exists():
        levels.append(Seat("learned", {}))
    levels.append(Seat("mcts", {"iterations": 100}))
    return levels


def check_settings(g: Game, players: Any, levels: Any, deals: Any, search_deals: Any, comeback: Any,
                   blowout: Any, seed: Any, prefix: str = "") -> tuple[list[int], list[Seat] | None]:
    """Every feel setting checked before anything plays; BadParameter naming the key (``prefix`` + key)."""
    def whole(value: Any, key: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise BadParameter(prefix + key, f"got {value!r}; allowed: a whole number from {low} to {high:,}")
        return int(value)

    if players is None:
        counts = [p for p in range(max(2, g.min_players), g.max_players + 1)]
    else:
        raw = players if isinstance(players, (list, tuple)) else [players]
        if not raw:
            raise BadParameter(prefix + "players", "got an empty list; allowed: player counts from "
                                                   f"{max(2, g.min_players)} to {g.max_players}")
        counts = [whole(p, "players", max(2, g.min_players), g.max_players) for p in raw]
    whole(deals, "deals", 2, MAX_DEALS)
    whole(search_deals, "search_deals", 2, MAX_DEALS)
    whole(seed, "seed", 0, 2**63 - 1)
    for value, key in ((comeback, "comeback"), (blowout, "blowout")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 10.0 \
                or math.isnan(value):
            raise BadParameter(prefix + key, f"got {value!r}; allowed: a share of the winner's score from 0 to 10")
    seats = None
    if levels is not None:
        if isinstance(levels, (str, Mapping)) or not isinstance(levels, Sequence) or not levels:
            raise BadParameter(prefix + "levels", f"got {levels!r}; allowed: a non-empty list of policies")
        seats = []
        for i, p in enumerate(levels):
            try:
                seats.append(as_seat(p))
            except BadInput as e:
                raise BadParameter(f"{prefix}levels[{i}]", e.message) from None
            if any(s.label() == seats[-1].label() for s in seats[:-1]):
                raise BadParameter(f"{prefix}levels[{i}]", f"{seats[-1].label()} is listed twice; allowed: "
                                                           "distinct levels")
    return sorted(set(counts)), seats


def run_feel(g: Game, players: Sequence[int], levels: Sequence[Seat] | None = None, deals: int = DEALS,
             search_deals: int = SEARCH_DEALS, seed: int = 0, rules: Mapping[str, Any] | None = None,
             cards: Any = None, comeback: float = F.COMEBACK, blowout: float = F.BLOWOUT,
             progress: bool | None = None, executor: Any = None, chunk_size: int = 50_000) -> FeelResult:
    """Play every (player count, level) table and measure its feel (the cells are all made, so every level
    is checked, before any game is played)."""
    from boardsim.runner import policies_cell, run_cell

    table = cards if isinstance(cards, pd.DataFrame) else g.card_table(cards)
    plan = []
    for P in players:
        for i, seat in enumerate(levels if levels is not None else default_levels(g, P)):
            try:
                cell = policies_cell(g, P, [seat], rules, table, index=P * 100 + i, seating_design="all")
            except BadParameter as e:
                raise BadParameter(e.key.replace("policies[0]", f"levels[{i}]"), e.message, e.file) from None
            for prep in cell.prepared:
                prep.progress = True
            plan.append((P, seat.label(), cell, search_deals if cell.cost > 1.0 else deals))
    metrics, curves, played, splits, kind = [], [], {}, [], ""
    for P, label, cell, n in plan:
        sink = _Sink(cell, n, comeback, blowout, table)
        run_cell(cell, seed, n * len(cell.prepared), sink.add, chunk_size=chunk_size, progress=progress,
                 executor=executor, label=f"{P}p {label}")
        sums = sink.sums
        assert sums is not None
        f = F.summary(sums, seed=seed)
        m = f.metrics.assign(players=P, level=label, deals=n)
        m = pd.concat([m, pd.DataFrame([{"metric": "decisive_round", "mean": f.decisive, "lo": f.decisive_lo,
                                         "hi": f.decisive_hi, "games": int(sums.curve_count[:, 0].sum()),
                                         "meaning": f"first round from which on the leader wins more than "
                                                    f"{F.DECISIVE:.0%} (bootstrap interval over deals)",
                                         "players": P, "level": label, "deals": n}])], ignore_index=True)
        metrics.append(m)
        curves.append(f.curve.assign(players=P, level=label))
        played.setdefault(P, []).append(label)
        if sink.groups is not None:
            kind = sink.groups.kind
            split = sink.groups.table()
            split["p_holm"] = holm(split["p_value"].to_numpy()) if len(split) else []  # per table: its goals x metrics
            splits.append(split.assign(players=P, level=label))
    cols = ["players", "level", "metric", "mean", "lo", "hi", "games", "deals", "meaning"]
    return FeelResult(g.name, pd.concat(metrics, ignore_index=True)[cols],
                      pd.concat(curves, ignore_index=True)[["players", "level", "round", "leader_wins", "lo", "hi",
                                                            "games"]], played, seed,
                      pd.concat(splits, ignore_index=True) if splits else pd.DataFrame(), kind)


class _Sink:
    """A cell's chunks turned into per-deal sums of their feel values as they arrive (any order, any size)."""

    def __init__(self, cell: Any, deals: int, comeback: float, blowout: float, cards: Any = None):
        self.cell, self.deals, self.comeback, self.blowout, self.cards = cell, deals, comeback, blowout, cards
        self.rules = cell.prepared[0].rules
        self.sums: F.DealSums | None = None
        self.groups: F.GroupSums | None = None

    def add(self, out: Mapping[str, np.ndarray]) -> None:
        values = F.chunk_values(self.cell.game, out, self.rules, self.comeback, self.blowout)
        if self.sums is None:
            self.sums = F.DealSums(self.deals, values["leader_win"].shape[1])
        self.sums.add(values, np.asarray(out["game"], dtype=np.int64))
        split = self.cell.game.feel_groups(out, self.cards)
        if split is not None:
            if self.groups is None:
                self.groups = F.GroupSums(split[0], split[1])
            self.groups.add(values, split[2])


def feel_job(target: str | Game, players: Any = None, levels: Any = None, deals: int | None = None,
             search_deals: int | None = None, seed: int | None = None, comeback: float | None = None,
             blowout: float | None = None, threads: int | None = None, out: str | Path | None = None,
             progress: bool | None = None, force: bool = False, executor: Any = None, workers: int | None = None,
             scheduler: Any = None, scheduler_file: str | None = None) -> Any:
    """``feel`` for a game name or a scenario file (its game, rules, cards, seed and ``[feel]`` table, which
    the arguments given here override), written with its report into ``out`` (default
    ``reports/feel-<game or scenario name>/``; another run's folder only with ``force``): feel.csv,
    leader_wins.csv, leader_wins.png, run.json, index.html.  Every setting is checked before a game is played."""
    from boardsim.analysis.jobs import Job, out_folder
    from boardsim.folders import writing
    from boardsim.report.build import build_report, write_meta
    from boardsim.runner import executing

    g, rules, cards, settings, name = _target(target)
    given = {"players": players, "levels": levels, "deals": deals, "search_deals": search_deals, "seed": seed,
             "comeback": comeback, "blowout": blowout}
    s = {"deals": DEALS, "search_deals": SEARCH_DEALS, "seed": 0, "comeback": F.COMEBACK, "blowout": F.BLOWOUT,
         **settings, **{k: v for k, v in given.items() if v is not None}}
    counts, seats = check_settings(g, s.get("players"), s.get("levels"), s["deals"], s["search_deals"],
                                   s["comeback"], s["blowout"], s["seed"])
    owner = f"feel {g.name}"
    out_dir = out_folder(out, f"reports/feel-{name}", owner, force)
    with executing(executor, workers, scheduler, scheduler_file, threads) as ex:
        try:  # every level is made into a cell, and so checked at its table, before a game is played
            result = run_feel(g, counts, seats, s["deals"], s["search_deals"], s["seed"], rules, cards,
                              s["comeback"], s["blowout"], progress, ex)
        except BadInput as e:
            if levels is None and "levels" in settings and e.key.startswith("levels"):  # the scenario's levels
                raise BadInput("feel." + e.key, e.message, str(target)) from None
            raise
    with writing(out_dir):
        safe_io.write_csv(result.metrics, out_dir / "feel.csv")
        safe_io.write_csv(result.curve, out_dir / "leader_wins.csv")
        if not result.split.empty:
            safe_io.write_csv(result.split, out_dir / f"feel_by_{result.split_kind}.csv")
        files = write_meta(out_dir, f"{g.title}: how the game feels at each skill level",
                           f"Self-play at {', '.join(map(str, counts))} players; {s['deals']:,} deals per fast "
                           f"level, {s['search_deals']:,} per search level. Progress: {g.progress_measure}.",
                           {"game": g.name, "seed": s["seed"], "deals": s["deals"], "search deals": s["search_deals"],
                            "comeback margin": s["comeback"], "blowout margin": s["blowout"], "rules": dict(rules),
                            "levels": {str(k): v for k, v in result.levels.items()}}, owner)
        files = sorted(set(files) | set(build_report(out_dir)))
    return Job(result, out_dir, files)


def _target(target: str | Game) -> tuple[Game, dict, Any, dict, str]:
    """(game, rules, cards, settings, report name) of a game or a scenario file; a scenario's ``[feel]`` table
    (with its seed, its ``[skill]`` levels and its players as defaults) is checked here, an error naming
    ``feel.<key>`` and the file."""
    from boardsim.games import get, names

    if isinstance(target, Game):
        return target, {}, None, {}, target.name
    if str(target).endswith(".toml"):
        from boardsim.scenario import load_scenario

        sc = load_scenario(target)
        cards = sc.game.card_table(sc.cards, sc.card_file)
        settings = {"players": sc.players, "seed": sc.seed, **dict(sc.feel or {})}
        if "levels" not in settings and sc.skill:
            settings["levels"] = [{"policy": s.policy, "params": dict(s.params)} for s in sc.skill.values()]
        try:
            check_settings(sc.game, settings.get("players"), settings.get("levels"), settings.get("deals", DEALS),
                           settings.get("search_deals", SEARCH_DEALS), settings.get("comeback", F.COMEBACK),
                           settings.get("blowout", F.BLOWOUT), settings["seed"], prefix="feel.")
        except BadInput as e:
            raise BadInput(e.key, e.message, str(target)) from None
        return sc.game, dict(sc.rules), cards, settings, sc.name
    if not isinstance(target, str) or target not in names():
        raise BadParameter("target", f"got {target!r}; allowed: a game ({', '.join(names())}) or a scenario .toml")
    g = get(target)
    return g, {}, None, {}, g.name


def feel(game: str | Game, players: Any = None, levels: Any = None, deals: int = DEALS,
         search_deals: int = SEARCH_DEALS, seed: int = 0, rules: Mapping[str, Any] | None = None, cards: Any = None,
         comeback: float = F.COMEBACK, blowout: float = F.BLOWOUT, threads: int | None = None,
         progress: bool | None = None) -> FeelResult:
    """How a game feels at each skill level, with deal-level 95% intervals; writes nothing.

    >>> f = boardsim.feel("wagons", levels=["gain_minus_gift"], deals=2000)
    >>> f.metrics[f.metrics.metric == "lead_changes"]

    :param game: a game name or ``Game``.
    :param players: a player count or a list of them (default: every count from 2 the game allows).
    :param levels: the policies, each played in every seat (default: the default heuristic, ``learned`` where a
        model is bundled for the count, and ``mcts(iterations=100)``).
    :param deals: deals per level for fast players; ``search_deals`` for levels that search.
    :param comeback: the comeback margin, a share of the winner's final score (default 0.10).
    :param blowout: the blowout margin, a share of the winner's final score (default 0.25).
    :return: ``FeelResult``: ``metrics`` (players, level, metric, mean, lo, hi, games) and ``curve`` (the
        leader-wins curve); ``answer()`` says it in sentences.
    """
    from boardsim.runner import numba_threads

    g = game if isinstance(game, Game) else _target(game)[0]
    counts, seats = check_settings(g, players, levels, deals, search_deals, comeback, blowout, seed)
    with numba_threads(threads):
        return run_feel(g, counts, seats, deals, search_deals, seed, rules, cards, comeback, blowout, progress)
