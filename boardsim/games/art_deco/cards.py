"""The Art Deco card table: one row per card value with its copy count."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from boardsim.errors import BadInput
from boardsim.games.base import apply_integer_edits, int_cell, read_card_csv

COLUMNS = ("name", "value", "copies")
# The integer fields a scenario may edit, ``cards --sweep`` may vary and ``patch`` may change, with their
# bounds. value: a score sums at most the deck's values; copies: the deck is an array of every copy (at
# most MAX_DECK cards), so neither memory nor any int64 sum over a sweep can run away
FIELDS = {"value": (1, 1000), "copies": (0, 100)}
MAX_DECK = 2000


def load_table(card_file: str | None = None) -> pd.DataFrame:
    """The bundled table, or a user CSV with the same columns (checked row by row)."""
    if card_file is None:
        with resources.files("boardsim.games.art_deco").joinpath("data/cards.csv").open() as f:
            return pd.read_csv(f)
    table = read_card_csv(card_file)
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise BadInput("columns", f"missing {', '.join(missing)} (need {', '.join(COLUMNS)})", card_file)
    for col, (lo, hi) in FIELDS.items():  # row numbers count the header as row 1, as a spreadsheet shows them
        table[col] = np.array([int_cell(v, f"row {i + 2}.{col}", lo, hi, card_file)
                               for i, v in enumerate(table[col])], dtype=np.int64)
    check_deck_size(table, card_file)
    if table["name"].duplicated().any():
        dup = table.loc[table["name"].duplicated(), "name"].iloc[0]
        raise BadInput("name", f"card {dup!r} appears twice", card_file)
    return table[list(COLUMNS)].copy()


def apply_edits(table: pd.DataFrame, edits: Mapping[str, Mapping[str, Any]] | None) -> pd.DataFrame:
    table = apply_integer_edits(table, edits, FIELDS)
    check_deck_size(table)
    return table


def check_deck_size(table: pd.DataFrame, file: str | None = None) -> None:
    total = int(table["copies"].sum())
    if total > MAX_DECK:
        name = table.loc[table["copies"].idxmax(), "name"]
        key = "copies" if file else f"cards.{name}.copies"
        raise BadInput(key, f"the deck holds {total} cards; allowed: at most {MAX_DECK}", file)


def deck_values(table: pd.DataFrame) -> np.ndarray:
    """Every card of the deck as its value, in table order (the engine shuffles)."""
    return np.repeat(table["value"].to_numpy(np.int64), table["copies"].to_numpy(np.int64))
