"""Circle the Wagons card data: 18 fronts (deck.csv) and 18 goals (goals.csv).

Both tables are package data with a ``source`` column (known or synthetic, see
docs/rules/circle-the-wagons.md).  A user file with the same columns replaces
the bundled one; every row is checked and errors name the file and line.

The engine reads integer arrays only (``encode_deck`` / ``encode_goals``), so an
edited card or goal never recompiles anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from boardsim.errors import BadInput
from boardsim.games.base import MAX_FIELD, read_card_csv
from boardsim.seat import by_table

LANDS = ("Desert", "Forest", "Mountain", "Plains", "Snow", "Water")
SYMBOLS = ("Bottle", "Cow", "Fort", "Gun", "Pickaxe", "Wagon")
LAND_LETTERS = "DFMPSW"
SYMBOL_MARKS = "bcfgpw"
CORNERS = ("tl", "tr", "bl", "br")
N_CARDS = 18
N_GOALS = 18

# Goal kinds in engine order: the index is the code the jitted scorer switches on.
# Each kind lists the parameter columns it needs (a and b are signed points).
GOAL_KINDS: dict[str, tuple[str, ...]] = {
    "symbol_between": ("symbol", "land", "a"),
    "majority_penalty": ("symbol", "a"),
    "symbol_away_from": ("symbol", "land", "a"),
    "symbol_largest_cluster": ("symbol", "a"),
    "symbol_near_largest_group": ("symbol", "land", "a"),
    "symbol_next_to_symbol": ("symbol", "symbol2", "a", "b"),
    "symbol_on_land": ("symbol", "land", "a"),
    "symbol_minus_land": ("symbol", "land", "a", "b"),
    "majority_bonus": ("symbol", "a"),
    "symbol_isolated": ("symbol", "a"),
    "land_group_bonus": ("land", "a"),
    "enclosed_empty": ("a",),
}
KIND_CODES = {k: i for i, k in enumerate(GOAL_KINDS)}

DECK_COLUMNS = ("card",) + tuple(f"{c}_{w}" for c in CORNERS for w in ("land", "symbol")) + ("goal", "source")
GOAL_COLUMNS = ("goal", "name", "kind", "symbol", "symbol2", "land", "a", "b", "source")
DECK_EDITABLE = DECK_COLUMNS[1:-1]
GOAL_EDITABLE = ("name", "kind", "symbol", "symbol2", "land", "a", "b")
# The integer fields ``patch`` may change, with their bounds: a goal's points (a score sums a few dozen)
FIELDS = {"a": (-MAX_FIELD, MAX_FIELD), "b": (-MAX_FIELD, MAX_FIELD)}
# goal_params columns read by the jitted scorer
GP_KIND, GP_SYM, GP_SYM2, GP_LAND, GP_A, GP_B = range(6)


def _read(path: str | None, bundled: str, what: str) -> tuple[pd.DataFrame, str]:
    if path is None:
        with resources.files("boardsim.games.wagons").joinpath(f"data/{bundled}").open() as f:
            return pd.read_csv(f, dtype=str, keep_default_na=False), f"(bundled {bundled})"
    return read_card_csv(str(path), what), str(path)


def _name(value: Any, known: tuple[str, ...], what: str, key: str, file: str | None) -> str:
    text = str(value).strip()
    for k in known:
        if text.lower() == k.lower():
            return k
    raise BadInput(key, f"unknown {what} {text!r} (known: {', '.join(known)})", file)


def _int(value: Any, key: str, file: str | None) -> int:
    if isinstance(value, bool):
        raise BadInput(key, f"got {value!r}; allowed: an integer", file)
    if isinstance(value, (int, np.integer)):
        return int(value)
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        raise BadInput(key, f"got {text!r}; allowed: an integer", file) from None


def _check_columns(table: pd.DataFrame, columns: tuple[str, ...], file: str) -> pd.DataFrame:
    table = table.rename(columns=lambda c: str(c).strip().lower())
    if "source" not in table.columns:
        table["source"] = "user"
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise BadInput("columns", f"missing {', '.join(missing)} (need {', '.join(columns)})", file)
    return table[list(columns)].copy()


def check_deck(table: pd.DataFrame, file: str | None = None) -> pd.DataFrame:
    """Normalised deck table; BadInput names the line (header = line 1) and column."""
    table = _check_columns(table, DECK_COLUMNS, file or "deck")
    if len(table) != N_CARDS:
        raise BadInput("rows", f"expected {N_CARDS} cards, found {len(table)}", file)
    rows = []
    for i, row in enumerate(table.to_dict("records")):
        card = str(row["card"]).strip()
        where = f"line {i + 2} (card {card!r})"
        if not card:
            raise BadInput(f"line {i + 2}.card", "empty card name", file)
        out = {"card": card}
        for c in CORNERS:
            out[f"{c}_land"] = _name(row[f"{c}_land"], LANDS, "land", f"{where}.{c}_land", file)
            out[f"{c}_symbol"] = _name(row[f"{c}_symbol"], SYMBOLS, "symbol", f"{where}.{c}_symbol", file)
        goal = _int(row["goal"], f"{where}.goal", file)
        if not 1 <= goal <= N_GOALS:
            raise BadInput(f"{where}.goal", f"got {goal}; allowed: a goal number 1..{N_GOALS}", file)
        out["goal"] = goal
        out["source"] = str(row["source"]).strip() or "user"
        rows.append(out)
    deck = pd.DataFrame(rows, columns=list(DECK_COLUMNS))
    dup = deck["card"][deck["card"].duplicated()]
    if len(dup):
        raise BadInput("card", f"card {dup.iloc[0]!r} appears twice", file)
    dup = deck["goal"][deck["goal"].duplicated()]
    if len(dup):
        raise BadInput("goal", f"goal {dup.iloc[0]} is on the back of two cards (each goal once)", file)
    return deck


def check_goals(table: pd.DataFrame, file: str | None = None) -> pd.DataFrame:
    """Normalised goal table; rows must be goals 1..18 in order."""
    table = _check_columns(table, GOAL_COLUMNS, file or "goals")
    if len(table) != N_GOALS:
        raise BadInput("rows", f"expected {N_GOALS} goals, found {len(table)}", file)
    rows = []
    for i, row in enumerate(table.to_dict("records")):
        where = f"line {i + 2} (goal {str(row['name']).strip()!r})"
        number = _int(row["goal"], f"{where}.goal", file)
        if number != i + 1:
            raise BadInput(f"{where}.goal", f"got {number}; goals must be numbered 1..{N_GOALS} in order", file)
        kind = str(row["kind"]).strip()
        if kind not in GOAL_KINDS:
            raise BadInput(f"{where}.kind", f"unknown kind {kind!r} (known: {', '.join(GOAL_KINDS)})", file)
        out = {"goal": number, "name": str(row["name"]).strip() or f"goal {number}", "kind": kind,
               "symbol": "", "symbol2": "", "land": "", "a": 0, "b": 0}
        for col in GOAL_KINDS[kind]:
            value = row[col]
            if str(value).strip() == "":
                raise BadInput(f"{where}.{col}", f"kind {kind} needs {', '.join(GOAL_KINDS[kind])}", file)
            if col in ("symbol", "symbol2"):
                out[col] = _name(value, SYMBOLS, "symbol", f"{where}.{col}", file)
            elif col == "land":
                out[col] = _name(value, LANDS, "land", f"{where}.{col}", file)
            else:
                out[col] = _int(value, f"{where}.{col}", file)
                lo, hi = FIELDS[col]
                if not lo <= out[col] <= hi:
                    raise BadInput(f"{where}.{col}", f"got {out[col]}; allowed: an integer in [{lo}, {hi}]", file)
        out["source"] = str(row["source"]).strip() or "user"
        rows.append(out)
    goals = pd.DataFrame(rows, columns=list(GOAL_COLUMNS))
    dup = goals["name"][goals["name"].str.lower().duplicated()]
    if len(dup):
        raise BadInput("name", f"goal name {dup.iloc[0]!r} appears twice", file)
    return goals


def _is_goal_file(table: pd.DataFrame) -> bool:
    cols = {str(c).strip().lower() for c in table.columns}
    return "kind" in cols and "card" not in cols


def load_tables(card_file: str | list[str] | tuple[str, ...] | None = None,
                goal_file: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(deck, goals): bundled, or replaced by user files.

    ``card_file`` may name a deck file, a goal file (recognised by its ``kind``
    column), or a list of both, so a scenario's single ``card_file`` key can
    carry a goal file too.
    """
    deck = goals = None
    files = [] if card_file is None else [card_file] if isinstance(card_file, str) else list(card_file)
    if goal_file is not None:
        table, name = _read(goal_file, "goals.csv", "goal_file")
        goals = check_goals(table, name)
    for f in files:
        table, name = _read(f, "deck.csv", "card_file")
        if _is_goal_file(table):
            goals = check_goals(table, name)
        else:
            deck = check_deck(table, name)
    if deck is None:
        deck = check_deck(*_read(None, "deck.csv", "card_file"))
    if goals is None:
        goals = check_goals(*_read(None, "goals.csv", "goal_file"))
    return deck, goals


def apply_edits(deck: pd.DataFrame, goals: pd.DataFrame,
                edits: Mapping[str, Mapping[str, Any]] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Apply {card id or goal name: {field: value}}; edited rows get source 'edited'."""
    if not edits:
        return deck, goals
    deck, goals = deck.astype(str), goals.astype(str)  # edited values are re-checked as text
    cards = list(deck["card"])
    goal_names = {str(n).lower(): i for i, n in enumerate(goals["name"])}
    for name, fields in (edits or {}).items():
        if not isinstance(fields, Mapping):
            raise BadInput(f"cards.{name}", "expected a table of fields")
        if name in cards:
            table, i, editable = deck, cards.index(name), DECK_EDITABLE
        elif str(name).lower() in goal_names:
            table, i, editable = goals, goal_names[str(name).lower()], GOAL_EDITABLE
        else:
            raise BadInput(f"cards.{name}", f"unknown card or goal {name!r} (cards: {', '.join(cards)}; "
                           f"goals: {', '.join(goals['name'])})")
        for field, value in fields.items():
            if field not in editable:
                raise BadInput(f"cards.{name}.{field}", f"unknown field {field!r} (known: {', '.join(editable)})")
            if isinstance(value, (bool, float)) or not isinstance(value, (str, int, np.integer)):
                raise BadInput(f"cards.{name}.{field}", f"got {value!r}; allowed: a name or an integer")
            table.loc[i, field] = str(value)
        table.loc[i, "source"] = "edited"
        try:  # check after each entry so the error names the card or goal that broke it
            check_deck(deck.astype(str))
            check_goals(goals.astype(str))
        except BadInput as e:
            field = e.key.rsplit(".", 1)[-1]
            raise BadInput(f"cards.{name}.{field}", e.message) from None
    return check_deck(deck.astype(str)), check_goals(goals.astype(str))


def encode_deck(deck: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(card_land, card_sym) int64[18, 4] in TL, TR, BL, BR order, and card_goal int64[18] (0-based)."""
    land = np.zeros((N_CARDS, 4), dtype=np.int64)
    sym = np.zeros((N_CARDS, 4), dtype=np.int64)
    for i, row in enumerate(deck.to_dict("records")):
        for k, c in enumerate(CORNERS):
            land[i, k] = LANDS.index(row[f"{c}_land"])
            sym[i, k] = SYMBOLS.index(row[f"{c}_symbol"])
    return land, sym, deck["goal"].to_numpy(np.int64) - 1


def encode_goals(goals: pd.DataFrame) -> np.ndarray:
    """goal_params int64[18, 6]: kind code, symbol, symbol2, land, a, b (-1 where unused)."""
    gp = np.full((N_GOALS, 6), -1, dtype=np.int64)
    for i, row in enumerate(goals.to_dict("records")):
        gp[i, GP_KIND] = KIND_CODES[row["kind"]]
        gp[i, GP_SYM] = SYMBOLS.index(row["symbol"]) if row["symbol"] else -1
        gp[i, GP_SYM2] = SYMBOLS.index(row["symbol2"]) if row["symbol2"] else -1
        gp[i, GP_LAND] = LANDS.index(row["land"]) if row["land"] else -1
        gp[i, GP_A] = int(row["a"])
        gp[i, GP_B] = int(row["b"])
    return gp


@by_table
def checked(deck: pd.DataFrame, goals: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
    """The normalised deck and goals (``check_deck``, ``check_goals``, read as text) and the engine's arrays
    (``encode_deck``, ``encode_goals``): what ``prepare`` reads from the tables, once per content."""
    deck = check_deck(deck.astype(str), "cards")
    goals = check_goals(goals.astype(str), "goals")
    return (deck, goals, *encode_deck(deck), encode_goals(goals))
