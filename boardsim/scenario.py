"""Scenario TOML -> a validated plan of grid cells.

Every problem is a ``BadInput`` naming the file and the key, raised
while loading, before any game is played.  See docs/reference/scenario.md for the format.
"""

from __future__ import annotations

import copy
import itertools
import re
import tomllib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardsim import custom
from boardsim.cell import MAX_GAMES, Cell, check_entries, make_cell
from boardsim.errors import BadInput
from boardsim.games import get as get_game
from boardsim.games.base import Game, Seat
from boardsim.rng import MAX_SEED
from boardsim.seating import resolve as resolve_seating
from boardsim.stats.feel import PICKS

TOP_KEYS = {
    "name": "output folder name (default: the file name)",
    "title": "the question the scenario answers",
    "description": "longer text for the report",
    "game": "game name",
    "players": "number of players",
    "games": "games per grid cell",
    "seed": "base seed",
    "seating": "seating design: all (every arrangement), cyclic (rotations) or fixed",
    "rotate_seats": "older alias: true = seating cyclic, false = fixed",
    "seats": "list of {policy, params}",
    "rules": "rule options",
    "cards": "card edits: [cards.<name>] field = value",
    "card_file": "a CSV card table replacing the bundled one",
    "grid": "keys to sweep, each a list of values",
    "chunk_size": "the most deals per chunk",
    "tournament": "a [tournament] table: policies, players, games, mode, field",
    "skill": "a [skill] table: levels = [policy, ...]; each level plays every seat, one grid axis (skill=...)",
    "optimize": "an [optimize] table: seat, params = {name = [low, high]}, games, check_games, maxiter, popsize, "
                "objective (win_rate, a feel target such as \"comeback_rate>=0.2\" or a metagame target such as "
                "\"nash_support>=2\")",
    "feel": "a [feel] table for the feel command: players, levels, deals, search_deals, comeback, blowout",
    "replays": "deals of the first cell to write as step-through replays, picked by what happened: a list of "
               "upset, comeback, typical, longest, first-player-loses",
}
# how a tournament forms its matches: every policy against every other, or each against one field policy
TOURNAMENT_MODES = ("round_robin", "field")
OPTIMIZE_KEYS = ("seat", "params", "games", "check_games", "maxiter", "popsize", "objective")
TOURNAMENT_KEYS = ("policies", "players", "games", "mode", "field", "seating")
FEEL_KEYS = ("players", "levels", "deals", "search_deals", "comeback", "blowout")  # [feel]: the feel command
_SEAT_KEY = re.compile(r"^seats\[(\d+)\]\.(policy|params\.([A-Za-z_][A-Za-z0-9_]*))$")


@dataclass
class Scenario:
    """A validated scenario: the base settings and the cells of its grid."""

    name: str
    title: str
    game: Game
    players: int
    games: int
    seed: int
    seats: list[Seat]
    rules: dict[str, Any]
    cards: dict[str, dict[str, Any]]
    card_file: str | None
    grid: dict[str, list[Any]]
    seating: str
    chunk_size: int
    path: str | None = None
    description: str = ""
    tournament: dict[str, Any] | None = None
    optimize: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    skill: dict[str, Seat] = field(default_factory=dict)  # grid value "skill" -> the seat every seat plays
    feel: dict[str, Any] | None = None  # the [feel] table (checked by feel itself, which reads it)
    replays: tuple[str, ...] = ()  # picks: the sweep writes a replay of its first cell for each (replays.py)

    def grid_points(self) -> list[dict[str, Any]]:
        keys = list(self.grid)
        return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*self.grid.values())]

    def cells(self) -> list[Cell]:
        """Every grid cell, validated; errors name the grid key that caused them."""
        return [self._cell(i, point) for i, point in enumerate(self.grid_points())]

    def check_tournament(self) -> None:
        """Every ``[tournament]`` policy, its parameters included, checked at the tournament's table before
        anything plays: a bad entry is refused by name (``tournament.policies[1].params.iterations``) before
        the sweep writes its first cell, not after."""
        if self.tournament is None:
            return
        from boardsim.seat import as_seat

        t = self.tournament
        entries = [(f"tournament.policies[{i}]", p) for i, p in enumerate(t["policies"])]
        if t["field"] is not None:
            entries.append(("tournament.field", t["field"]))
        seats = []
        for key, spec in entries:
            try:
                seats.append((key, as_seat(spec)))
            except BadInput as e:
                raise BadInput(key, e.message, self.path) from None
        check_entries(self.game, t["players"], seats, self.rules, self.game.card_table(self.cards, self.card_file),
                      file=self.path)

    def _cell(self, index: int, point: Mapping[str, Any]) -> Cell:
        players = self.players
        seats = [Seat(s.policy, dict(s.params)) for s in self.seats]
        rules = dict(self.rules)
        cards = copy.deepcopy(self.cards)
        for key, value in point.items():
            if key == "skill":  # a skill level: every seat plays it (before any seat-key grid value)
                seats = [Seat(self.skill[value].policy, dict(self.skill[value].params)) for _ in seats]
            elif key == "players":
                players = value
            elif key.startswith("rules."):
                rules[key[len("rules."):]] = value
            elif key.startswith("cards."):
                _, card, fld = key.split(".", 2)
                cards.setdefault(card, {})[fld] = value
            else:
                m = _SEAT_KEY.match(key)
                j = int(m.group(1))
                if m.group(2) == "policy":
                    seats[j] = Seat(value, dict(seats[j].params))
                else:
                    seats[j] = Seat(seats[j].policy, {**seats[j].params, m.group(3): value})
        try:
            table = self.game.card_table(cards, self.card_file)
            return make_cell(self.game, players, seats, rules, table, None, index, dict(point), self.seating)
        except BadInput as e:
            hint = f" (grid cell {dict(point)})" if point else ""
            key = e.key
            if "skill" in point and re.match(r"^seats\[\d+\]", key):  # the level's own policy or parameter
                key = re.sub(r"^seats\[\d+\]", f"skill.levels[{list(self.skill).index(point['skill'])}]", key)
            raise BadInput(key, e.message + hint, e.file or self.path) from None


def _type_error(key: str, value: Any, allowed: str) -> BadInput:
    return BadInput(key, f"got {value!r}; allowed: {allowed}")


def _positive_int(raw: Mapping[str, Any], key: str, default: int, low: int = 1, high: int | None = None,
                  prefix: str = "") -> int:
    """``raw[key]`` (or ``default``), an integer in [low, high]; errors name ``prefix + key``."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        raise _type_error(prefix + key, value, f"an integer >= {low}" if high is None
                          else f"an integer in [{low}, {high}]")
    return value


def check_name(value: Any, key: str = "name") -> str:
    """A scenario name: one plain folder name under reports/ (no path, no '..', no NUL, not empty)."""
    if not isinstance(value, str):
        raise _type_error(key, value, "a string")
    if (not value.strip() or "\0" in value or "/" in value or "\\" in value or value in (".", "..")
            or value.startswith("~")):
        raise BadInput(key, f"got {value!r}; allowed: a plain folder name (no '/', '..', NUL or empty name), "
                            "written under reports/")
    try:  # a name taken from a file name may hold bytes that are no text: every report file would fail
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(key, f"got {value!r}, which is not UTF-8 text (it comes from the file name unless the "
                            "scenario sets name); allowed: a name of UTF-8 text: set name = \"...\" in the "
                            "scenario, or rename the file") from None
    return value


def _seats(raw: Any) -> list[Seat]:
    if not isinstance(raw, list) or not raw:
        raise _type_error("seats", raw, "a non-empty list of tables like {policy = \"par\"}")
    seats = []
    for i, item in enumerate(raw):
        if isinstance(item, str):
            seats.append(Seat(item, {}))
            continue
        if not isinstance(item, Mapping) or "policy" not in item:
            raise _type_error(f"seats[{i}]", item, "a table with a policy name")
        extra = set(item) - {"policy", "params"}
        if extra:
            raise BadInput(f"seats[{i}].{sorted(extra)[0]}", "unknown key (known: policy, params)")
        params = item.get("params", {})
        if not isinstance(params, Mapping):
            raise _type_error(f"seats[{i}].params", params, "a table of parameter values")
        seats.append(Seat(item["policy"], dict(params)))
    return seats


def _grid(raw: Any, n_seats: int) -> dict[str, list[Any]]:
    if not isinstance(raw, Mapping):
        raise _type_error("grid", raw, "a table of key = [values]")
    grid: dict[str, list[Any]] = {}
    for key, values in raw.items():
        gkey = f"grid.{key}"
        if isinstance(values, Mapping):  # TOML dotted keys arrive nested: rules.x = [...]
            for sub, sub_values in _flatten(values, key):
                grid.update(_grid({sub: sub_values}, n_seats))
            continue
        if not isinstance(values, list) or not values:
            raise _type_error(gkey, values, "a non-empty list of values")
        ok = key == "players" or key.startswith("rules.")
        if key.startswith("cards."):
            ok = key.count(".") == 2
        m = _SEAT_KEY.match(key)
        if m:
            ok = int(m.group(1)) < n_seats
            if not ok:
                seats = f"{n_seats} seat" + ("" if n_seats == 1 else "s")
                raise BadInput(gkey, f"seat {m.group(1)} does not exist (the scenario has {seats})")
        if not ok:
            raise BadInput(
                gkey,
                "unknown grid key (allowed: players, rules.<option>, seats[i].policy, "
                "seats[i].params.<param>, cards.<card>.<field>)",
            )
        grid[key] = values
    return grid


def _skill(raw: Any) -> dict[str, Seat]:
    """``[skill] levels = [...]``: each level a policy name or {policy, params}; by label, in listed order."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _type_error("skill", raw, "a table with levels = [policy, ...]")
    for key in raw:
        if key != "levels":
            raise BadInput(f"skill.{key}", "unknown key (known: levels)")
    levels = raw.get("levels")
    if not isinstance(levels, list) or len(levels) < 1:
        raise _type_error("skill.levels", levels, 'a non-empty list of policies, e.g. ["fame_per_cost", '
                                                  '{policy = "mcts", params = {iterations = 200}}]')
    out: dict[str, Seat] = {}
    for i, seat in enumerate(_seats(levels)):
        if seat.label() in out:
            raise BadInput(f"skill.levels[{i}]", f"{seat.label()} is listed twice; allowed: distinct levels")
        out[seat.label()] = seat
    return out


def _tournament(raw: Any, game: Game, players: int, games: int) -> dict[str, Any] | None:
    """The [tournament] table, checked: policies exist and the mode is known."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _type_error("tournament", raw, "a table with policies, players, games, mode, field")
    for key in raw:
        if key not in TOURNAMENT_KEYS:
            raise BadInput(f"tournament.{key}", f"unknown key (known: {', '.join(TOURNAMENT_KEYS)})")
    t = {"players": players, "games": games, "mode": "round_robin", "field": None, "seating": "all", **raw}
    resolve_seating(t["seating"], key="tournament.seating")
    policies = t.get("policies")
    if not isinstance(policies, list) or len(policies) < 1:
        raise _type_error("tournament.policies", policies, "a list of policy names or {policy, params} tables")
    for i, p in enumerate(policies + ([t["field"]] if t["field"] is not None else [])):
        name = p if isinstance(p, str) else (p.get("policy") if isinstance(p, Mapping) else None)
        key = f"tournament.policies[{i}]" if i < len(policies) else "tournament.field"
        try:
            game.policy(name)
        except BadInput as e:
            raise BadInput(key, e.message) from None
    if t["mode"] not in TOURNAMENT_MODES:
        raise _type_error("tournament.mode", t["mode"], " or ".join(repr(m) for m in TOURNAMENT_MODES))
    if t["mode"] == "field" and t["field"] is None:
        raise BadInput("tournament.field", "mode 'field' needs a field policy")
    t["players"] = _positive_int(t, "players", players, prefix="tournament.")
    t["games"] = _positive_int(t, "games", games, high=MAX_GAMES, prefix="tournament.")
    try:
        game.check_players(t["players"])
    except BadInput as e:
        raise BadInput("tournament.players", e.message) from None
    return t


def _flatten(table: Mapping[str, Any], prefix: str):
    for k, v in table.items():
        key = f"{prefix}.{k}"
        if isinstance(v, Mapping):
            yield from _flatten(v, key)
        else:
            yield key, v


def parse(raw: Mapping[str, Any], path: str | None = None, name: str | None = None) -> Scenario:
    """Validate a scenario given as a dict (the parsed TOML)."""
    try:
        for key in raw:
            if key not in TOP_KEYS:
                raise BadInput(key, f"unknown key (known: {', '.join(TOP_KEYS)})")
        if "game" not in raw:
            raise BadInput("game", "missing; name one of the games")
        game = get_game(raw["game"])
        players = _positive_int(raw, "players", game.default_players)
        games = _positive_int(raw, "games", 10_000, high=MAX_GAMES)
        seed = _positive_int(raw, "seed", 0, low=0, high=MAX_SEED)
        chunk = _positive_int(raw, "chunk_size", 50_000, high=MAX_GAMES)
        rotate = raw.get("rotate_seats")
        if rotate is not None and not isinstance(rotate, bool):
            raise _type_error("rotate_seats", rotate, "true or false")
        if "seating" in raw and rotate is not None:
            raise BadInput("rotate_seats", "give seating or rotate_seats (its older alias), not both")
        if rotate is not None:
            warnings.warn("the scenario key rotate_seats is deprecated; use seating = \"cyclic\" (true) or "
                          "\"fixed\" (false)", DeprecationWarning, stacklevel=2)
        design = resolve_seating(raw.get("seating"), rotate)
        seats = _seats(raw.get("seats", [{"policy": game.default_policy}]))
        rules = raw.get("rules", {})
        if not isinstance(rules, Mapping):
            raise _type_error("rules", rules, "a table of rule options")
        cards = raw.get("cards", {})
        if not isinstance(cards, Mapping) or not all(isinstance(v, Mapping) for v in cards.values()):
            raise _type_error("cards", cards, "tables like [cards.<name>] field = value")
        card_file = raw.get("card_file")
        if card_file is not None:
            if not isinstance(card_file, str) or not card_file or "\0" in card_file:
                raise _type_error("card_file", card_file, "a path to a CSV file")
            if path is not None and not Path(card_file).is_absolute():
                card_file = str(Path(path).parent / card_file)
        grid = _grid(raw.get("grid", {}), len(seats))
        try:
            skill = _skill(raw.get("skill"))
        except BadInput as e:
            raise BadInput(e.key if e.key.startswith("skill") else f"skill.{e.key.replace('seats', 'levels', 1)}",
                           e.message) from None
        if skill:  # the first grid axis, so that cells read skill=...; rule variant
            grid = {"skill": list(skill), **grid}
        tournament = _tournament(raw.get("tournament"), game, players, games)
        opt = raw.get("optimize")
        if opt is not None:
            if not isinstance(opt, Mapping) or not isinstance(opt.get("params"), Mapping):
                raise _type_error("optimize", opt, "a table with params = {name = [low, high]}")
            for key in opt:
                if key not in OPTIMIZE_KEYS:
                    raise BadInput(f"optimize.{key}", f"unknown key (known: {', '.join(OPTIMIZE_KEYS)})")
            for key in ("games", "check_games", "maxiter", "popsize"):
                if key in opt:
                    _positive_int(opt, key, 1, high=MAX_GAMES, prefix="optimize.")
            # a seat of the scenario's table (a players grid may change the count; every cell is checked
            # against it in cells() below)
            _positive_int(opt, "seat", 0, low=0, high=players - 1, prefix="optimize.")
        feel = raw.get("feel")
        if feel is not None:
            if not isinstance(feel, Mapping):
                raise _type_error("feel", feel, f"a table with {', '.join(FEEL_KEYS)}")
            for key in feel:
                if key not in FEEL_KEYS:
                    raise BadInput(f"feel.{key}", f"unknown key (known: {', '.join(FEEL_KEYS)})")
        replays = raw.get("replays", [])
        if not isinstance(replays, list) or any(not isinstance(p, str) or p not in PICKS for p in replays):
            raise _type_error("replays", replays, f"a list of picks: {', '.join(PICKS)}")
        for key in ("name", "title", "description"):
            if key in raw and not isinstance(raw[key], str):
                raise _type_error(key, raw[key], "a string")
        check_name(raw.get("name", name or "scenario"))
        scenario = Scenario(
            name=raw.get("name", name or "scenario"),
            title=raw.get("title", raw.get("name", name or "scenario")),
            game=game,
            players=players,
            games=games,
            seed=seed,
            seats=seats,
            rules=dict(rules),
            cards={k: dict(v) for k, v in cards.items()},
            card_file=card_file,
            grid=grid,
            seating=design,
            chunk_size=chunk,
            path=path,
            description=raw.get("description", ""),
            raw=dict(raw),
            tournament=tournament,
            optimize=dict(opt) if opt is not None else None,
            skill=skill,
            feel=dict(feel) if feel is not None else None,
            replays=tuple(dict.fromkeys(replays)),
        )
    except BadInput as e:
        raise BadInput(e.key, e.message, e.file or path) from None
    if path is not None and _names_a_scorer(scenario.raw):
        # a custom scorer's "module:function" may sit beside the scenario; spawned workers inherit sys.path
        custom.search_path(Path(path).parent)
    scenario.cells()  # validate every cell now, before a long run starts
    scenario.check_tournament()
    return scenario


def _names_a_scorer(value: Any) -> bool:
    """Whether a parsed scenario names a custom scorer anywhere: a ``function`` parameter of a seat or a
    tournament policy, or a grid key ``seats[i].params.function``."""
    if isinstance(value, Mapping):
        return any(k == "function" or str(k).endswith(".params.function") or _names_a_scorer(v)
                   for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_names_a_scorer(v) for v in value)
    return False


# A scenario's deepest real use is a seat's params inside a grid list (4 levels); anything far deeper is a
# mistake, refused before a recursive check, hash or report meets it.
MAX_DEPTH = 32


def _too_deep(value: Any, key: str = "", depth: int = 0) -> str | None:
    """The key of the first value nested more than MAX_DEPTH levels down, or None (no recursion: a stack)."""
    stack = [(value, key, depth)]
    while stack:
        v, k, d = stack.pop()
        if d > MAX_DEPTH:
            return k or "toml"
        if isinstance(v, Mapping):
            stack.extend((x, f"{k}.{name}" if k else str(name), d + 1) for name, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, f"{k}[{i}]", d + 1) for i, x in enumerate(v))
    return None


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario TOML file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BadInput("", "no such file", str(path)) from None
    except IsADirectoryError:
        raise BadInput("", "is a folder, not a scenario file", str(path)) from None
    except OSError as e:
        raise BadInput("", f"cannot read: {e.strerror or e}", str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput("toml", f"not a UTF-8 text file (byte {e.start})", str(path)) from None
    if "\0" in text:
        raise BadInput("toml", "not a text file (it holds NUL bytes)", str(path)) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput("toml", f"malformed TOML: {e}", str(path)) from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise BadInput("toml", f"nested too deeply; allowed: at most {MAX_DEPTH} levels of tables and arrays",
                       str(path)) from None
    where = _too_deep(raw)
    if where is not None:
        raise BadInput(where, f"nested too deeply; allowed: at most {MAX_DEPTH} levels of tables and arrays",
                       str(path))
    return parse(raw, str(path), path.stem)
