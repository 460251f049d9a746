"""``boardsim.patch``: a patch job's inputs checked, the search run, and its files written.

Every input is checked before the output folder is created or a game is played, so a bad flag, field or
span is one ``BadInput`` and writes nothing.  The search itself is ``boardsim.analysis.patch``.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from boardsim import safe_io
from boardsim.analysis.patch import Problem, Result, parse_objective, search_patch
from boardsim.analysis.players import base_players
from boardsim.errors import BadInput, BadParameter
from boardsim.games.base import Game, Seat
from boardsim.stats.metagame import TARGET_METRICS as META_METRICS

DEFAULT_GAMES = 4_000  # games per test on the search deals (and as many again on the verification deals)
DEFAULT_SPAN = 3
DEFAULT_MAX_EDITS = 5
MIN_GAMES = 40  # the race's first rung must hold a few deals at 4 players
MAX_SPAN = 1_000
MAX_EDITS_LIMIT = 100

FILES = ("patch.toml", "patch_objective.csv", "patch_verification.csv", "patch_candidates.csv",
         "patch_history.csv", "patch_dose.csv")


@dataclass
class PatchRun:
    """A finished patch job: the search's result and where its files went."""

    result: Result
    out_dir: Path | None
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def edits(self) -> dict[str, dict[str, int]]:
        """The patch as card edits ({card: {field: value}}), the scenario's own ``[cards]`` edits excluded."""
        out: dict[str, dict[str, int]] = {}
        for item, fld, value in self.result.edits:
            out.setdefault(item, {})[fld] = value
        return out

    @property
    def objective(self) -> pd.DataFrame:
        return self.result.objective

    @property
    def verification(self) -> pd.DataFrame:
        return self.result.verification


def _int_in(value: Any, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadParameter(key, f"got {value!r}; allowed: an integer from {low} to {high}")
    return int(value)


def patch_target(target: str | Path) -> tuple[Game, Any]:
    """(game, scenario or None) from a game name or a scenario file."""
    from boardsim import games
    from boardsim.scenario import load_scenario

    text = str(target)
    if text.endswith(".toml") or Path(text).is_file():
        scenario = load_scenario(text)
        return scenario.game, scenario
    try:
        return games.get(text), None
    except BadInput:
        raise BadInput("game", f"unknown game or scenario {text!r} (games: {', '.join(games.names())}; or a "
                               "scenario .toml file)") from None


def make_problem(
    target: str | Path,
    players: int | Sequence[int] | None = None,
    base: Any = None,
    fields: Sequence[str] | None = None,
    max_edits: int = DEFAULT_MAX_EDITS,
    span: int = DEFAULT_SPAN,
    games: int = DEFAULT_GAMES,
    objective: str | None = None,
    seed: int = 0,
    rules: Mapping[str, Any] | None = None,
    judge: Any = None,
) -> Problem:
    """The patch problem, every input checked (BadParameter keyed by the parameter's name).

    ``target`` is a game name (the search starts from the game's own card table, base = its default policy)
    or a scenario file (its ``card_file`` and ``[cards]`` edits are the starting table; its players, seats as
    base players, rules and seating are the defaults)."""
    from boardsim.cell import make_cell

    game, scenario = patch_target(target)
    games_ = _int_in(games, "games", MIN_GAMES, 10**9)
    span_ = _int_in(span, "span", 1, MAX_SPAN)
    edits_ = _int_in(max_edits, "max_edits", 0, MAX_EDITS_LIMIT)
    seed_ = _int_in(seed, "seed", 0, 2**63 - 1)
    if players is None:
        counts = [scenario.players] if scenario is not None else sorted(
            {max(2, game.default_players)})
        if scenario is not None and "players" in scenario.grid:
            counts = sorted({*counts, *scenario.grid["players"]})
    else:
        counts = [players] if isinstance(players, int) else list(players)
    if not counts:
        raise BadParameter("players", "no player count given; allowed: e.g. 2 or 2,3,4")
    for n in counts:
        if isinstance(n, bool) or not isinstance(n, int):
            raise BadParameter("players", f"got {n!r}; allowed: player counts such as 2,3,4")
        try:
            game.check_players(n)
        except BadInput as e:
            raise BadParameter("players", e.message) from None
        if n < 2:
            raise BadParameter("players", f"got {n}; allowed: 2 or more (a patch compares seats of one table)")
    counts = list(dict.fromkeys(counts))
    if base is None and scenario is not None:  # one base player per distinct policy of the scenario's seats
        seen: dict[str, Seat] = {}
        for s in scenario.seats:
            seen.setdefault(s.label(), s)
        bases = list(seen.values())
    elif base is None:
        bases = [Seat(game.default_policy, {})]
    else:
        bases = base_players(game, base)
    judges = base_players(game, judge, "judge") if judge is not None else []
    labels = [b.label() for b in bases]
    for j in judges:
        if j.label() in labels:
            raise BadParameter("judge", f"{j.label()} is a base player already; allowed: other policies")
    bases = bases + judges
    rules_ = {**(scenario.rules if scenario is not None else {}), **dict(rules or {})}
    start_edits = dict(scenario.cards) if scenario is not None else {}
    card_file = scenario.card_file if scenario is not None else None
    seating = scenario.seating if scenario is not None else "all"
    today = game.card_table(start_edits or None, card_file)
    can_favour = bool(game.market_cards(today))
    if can_favour:  # a card's strength needs a seat that favours it and one that avoids it
        try:
            game.favour(game.market_cards(today)[0], Seat(game.default_policy, {}))
            game.avoid(game.market_cards(today)[0], Seat(game.default_policy, {}))
        except BadInput:
            can_favour = False
    if objective is None:
        objective = game.patch_default_objective if can_favour else "first_player"
    try:
        judged, targets = parse_objective(objective)
    except ValueError as e:
        raise BadParameter("objective", str(e)) from None
    if any(t.metric in META_METRICS for t in targets):  # the base players' head-to-head table at 2 players
        if len(bases) - len(judges) < 2:
            raise BadParameter("base", "a metagame target needs two or more base players, e.g. "
                                       "--base fame_per_cost,priority; allowed: a list of policies")
        if 2 not in counts:
            raise BadParameter("players", f"got {counts}; a metagame target is judged at 2 players; allowed: a "
                                          "list that holds 2")
    if judged in ("cards", "both"):
        if not game.market_cards(today):
            raise BadParameter("objective", f"{game.title} has no policy that favours a card, so card effects "
                                          "cannot be measured; allowed: first_player")
        for i, b in enumerate(bases):  # a base player that cannot favour or avoid a card is refused
            try:
                game.favour(game.market_cards(today)[0], b)
                game.avoid(game.market_cards(today)[0], b)
            except BadInput as e:
                raise BadParameter("judge" if i >= len(bases) - len(judges) else "base", e.message) from None
    allowed = list(dict.fromkeys(f for _, f, _ in game.patch_fields(today)))
    chosen = list(game.patch_default_fields) if fields is None else [str(f).strip() for f in fields]
    if not chosen:
        raise BadParameter("fields", f"no field given; allowed: {', '.join(allowed)}")
    for f in chosen:
        if f not in allowed:
            raise BadParameter("fields", f"unknown or not patchable field {f!r}; allowed: {', '.join(allowed)}")
    for n in counts:  # rules and seats checked as a run would check them, before anything is written
        for b in bases:
            try:
                make_cell(game, n, [b] * n, rules_, today, seating_design=seating)
            except BadInput as e:
                raise e if e.key.startswith(("rules", "cards")) else BadParameter("base", e.message) from None
    return Problem(game, counts, bases, objective, games_, seed_, span_, edits_, list(dict.fromkeys(chosen)),
                   rules_, card_file, start_edits, seating, judges=len(judges))


def default_out(target: str | Path, game: Game) -> Path:
    """``reports/<scenario>-patch/`` for a scenario file, ``reports/patch-<game>/`` for a game name."""
    text = str(target)
    if text.endswith(".toml") or Path(text).is_file():
        return Path("reports") / f"{Path(text).stem}-patch"
    return Path("reports") / f"patch-{game.name}"


def patch(
    target: str | Path,
    players: int | Sequence[int] | None = None,
    base: Any = None,
    fields: Sequence[str] | None = None,
    max_edits: int = 5,
    span: int = 3,
    games: int = 4_000,
    objective: str | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    rules: Mapping[str, Any] | None = None,
    executor: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    threads: int | None = None,
    fresh: bool = False,
    say: Callable[[str], None] | None = print,
    write: bool = True,
    judge: Any = None,
    progress: bool = True,
    force: bool = False,
    replays: bool = False,
) -> PatchRun:
    """Search for the fewest card edits that leave no card (or first player) measurably unfair, and verify
    the patch on fresh deals.

    ``target``: a game name or a scenario file.  ``players``: player counts (default: the scenario's, or 2).
    ``base``: the base player(s), each a skill level the patch is judged under.  ``fields``: the card fields
    the patch may edit (default: the game's ``patch_default_fields``).  ``max_edits``: edits at most (0 reports
    today's table unchanged, measured).  ``span``: every edit stays within +-span of today's value.
    ``games``: games per test on the search deals, and again on the verification deals.  ``objective``:
    ``cards`` (worst |card strength|), ``first_player`` (worst |first-player rate - fair share|) or ``both``.
    ``judge``: further base players the patch is judged under on the fresh deals, but not searched under (a
    search player such as ``mcts`` costs far too much to score every candidate with).  With ``say``, an
    estimate of the time is printed first (stderr) and, with ``progress``, a bar over every game played.

    Writes patch.toml, the CSV tables, charts and index.html into ``out`` (default
    ``reports/patch-<game>/``); measurements are saved under ``out/chunks/patch`` as they finish, so a rerun
    after Ctrl-C resumes (``fresh=True`` plays everything again).  A folder holding another run's results (a
    sweep's, a ladder's) is refused unless ``force``; the folder is locked while the patch writes it.  The
    result is the same for a seed on any executor, thread count or chunking.  ``replays``: also write a
    typical game of the patched table and the same deal on today's, the first base player in every seat at
    the first player count, linked beside the answer (docs/guide/replay.md)."""
    import numba

    from boardsim.analysis.patch import cost_range, table_games
    from boardsim.cost import Bar, duration
    from boardsim.folders import claim, writing
    from boardsim.runner import executing

    t0 = time.perf_counter()
    problem = make_problem(target, players, base, fields, max_edits, span, games, objective, seed, rules, judge)
    out_dir = None
    owner = f"patch {problem.game.name}"
    if write:
        out_dir = claim(out, default_out(target, problem.game), owner, force)
    if threads is not None:
        _int_in(threads, "threads", 1, 4096)
    speak = say or (lambda s: None)
    with contextlib.ExitStack() as stack:
        ex = stack.enter_context(executing(executor, workers, scheduler, scheduler_file, threads))
        if out_dir is not None:  # made and locked for the whole search: measurements are saved as they finish
            stack.enter_context(writing(out_dir))
        folder = out_dir / "chunks" / "patch" if out_dir is not None else None
        if say is not None and progress:  # the cost up front, then a bar over every game played
            low, high, took = cost_range(problem)
            print(f"{problem.game.title} patch: {table_games(problem):,} games a table measurement; estimated "
                  f"time {duration(low).removeprefix('about ')} (no edit found) to {duration(high)} (every edit "
                  f"used) on {numba.get_num_threads()} threads, from a {took:.0f} s calibration",
                  file=sys.stderr, flush=True)
        with Bar(say is not None and progress, desc="patch") as bar:
            result = search_patch(problem, ex, folder, speak, fresh=fresh, on_games=bar.update)
        run = PatchRun(result, out_dir, seconds=time.perf_counter() - t0)
        if out_dir is not None:
            if replays:
                patch_replays(result, out_dir)
            run.files = write_outputs(run, out_dir, {"executor": getattr(ex, "describe", lambda: "local")()
                                                     if ex is not None else "local", "threads": threads}, owner)
    return run


def patch_replays(result: Any, out_dir: Path) -> list[Path]:
    """A typical game of the patched table (the first base player in every seat, the first player count) and
    the same deal on today's table: ``replay-patched.html`` and ``replay-today.html``."""
    from boardsim.replays import replay

    p = result.problem
    n = p.counts[0]
    seats = [p.bases[0]] * n
    after = replay(p.game, seats, players=n, seed=p.seed, pick="typical", rules=p.rules,
                   cards=p.table(result.edits), out=out_dir / "replay-patched.html", label="the patched cards")
    before = replay(p.game, seats, players=n, seed=p.seed, deal=after.deal, rules=p.rules, cards=p.table(()),
                    out=out_dir / "replay-today.html", label="today's cards, the patched replay's deal")
    return [after.path, before.path]


def write_outputs(run: PatchRun, out_dir: Path, extra: Mapping[str, Any] | None = None,
                  owner: str | None = None) -> list[str]:
    """patch.toml, the tables, and run.json with the report built from them."""
    from boardsim.report.build import write_meta

    r, p = run.result, run.result.problem
    safe_io.write_text(out_dir / "patch.toml", r.patch_toml())
    safe_io.write_csv(r.objective, out_dir / "patch_objective.csv")
    safe_io.write_csv(r.verification, out_dir / "patch_verification.csv")
    safe_io.write_csv(r.candidates, out_dir / "patch_candidates.csv")
    safe_io.write_csv(r.history, out_dir / "patch_history.csv")
    safe_io.write_csv(r.dose, out_dir / "patch_dose.csv")
    counts = ", ".join(str(n) for n in p.counts)
    judged = {"cards": "the largest |card strength|", "first_player": "the largest |first-player rate - fair share|",
              "both": "the larger of the largest |card strength| and |first-player rate - fair share|",
              "": ""}[p.judged]
    shortfalls = [f"the shortfall from {t.label()} (0 when met)" for t in p.targets]
    judged = " and ".join(x for x in (judged, "the largest " + " or ".join(shortfalls) if shortfalls else "") if x)
    description = (f"A balance patch for {p.game.title} at {counts} players: the fewest edits of "
                   f"{', '.join(p.fields)} (each within +-{p.span} of today's value, {p.max_edits} at most) that "
                   f"minimise {judged} over every test, for base player(s) {', '.join(b.label() for b in p.bases)}. "
                   "A card's effect is its strength as `cards` measures it: its swing (the win share of a seat "
                   "that hires it whenever it can minus that of a seat that never hires it, the base player in "
                   "every other seat) minus the market's mean swing, so 0 is the average card. The search scored "
                   "every candidate "
                   "on the same deals; the verdict below replays today's table and the patch on fresh deals that "
                   "the search never saw, and flags tests under Holm's correction over each table's whole family.")
    provenance = {"game": p.game.name, "players": p.counts,
                  "base policy": [b.label() for b in p.bases[:len(p.bases) - p.judges]],
                  "judged also under": [b.label() for b in p.bases[len(p.bases) - p.judges:]],
                  "objective": p.objective, "fields": p.fields, "span": p.span, "max edits": p.max_edits,
                  "games per test": p.games, "seed": p.seed, "rules": p.rules, "seating": p.seating,
                  "card file": p.card_file, "scenario card edits": p.start_edits, "patch": r.edits_text,
                  "search limits": r.limits, "games played": r.games_played,
                  "measurements loaded": r.chunks_loaded, "seconds": round(run.seconds, 1), **dict(extra or {})}
    return list(FILES[:1]) + write_meta(out_dir, f"{p.game.title}: balance patch at {counts} players", description,
                                        provenance, owner)
