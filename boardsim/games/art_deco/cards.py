"""The Art Deco card table: one row per card value with its copy count."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from boardsim.errors import BadInput
from boardsim.games.base import apply_integer_edits

COLUMNS = ("name", "value", "copies")
EDITABLE = ("value", "copies")
EDIT_RANGES = {"value": (1, None), "copies": (0, None)}


def load_table(card_file: str | None = None) -> pd.DataFrame:
    """The bundled table, or a user CSV with the same columns (checked row by row)."""
    if card_file is None:
        with resources.files("boardsim.games.art_deco").joinpath("data/cards.csv").open() as f:
            return pd.read_csv(f)
    try:
        table = pd.read_csv(card_file)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as e:
        raise BadInput("card_file", f"cannot read card file: {e}", card_file) from None
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise BadInput("columns", f"missing {', '.join(missing)} (need {', '.join(COLUMNS)})", card_file)
    for i, row in table.iterrows():
        for col in EDITABLE:
            v = row[col]
            ok = isinstance(v, (int, np.integer)) and (v >= 1 if col == "value" else v >= 0)
            if not ok:
                raise BadInput(f"row {i + 2}.{col}", f"got {v!r}; allowed: a whole number >= "
                               f"{1 if col == 'value' else 0}", card_file)
    if table["name"].duplicated().any():
        dup = table.loc[table["name"].duplicated(), "name"].iloc[0]
        raise BadInput("name", f"card {dup!r} appears twice", card_file)
    return table[list(COLUMNS)].copy()


def apply_edits(table: pd.DataFrame, edits: Mapping[str, Mapping[str, Any]] | None) -> pd.DataFrame:
    return apply_integer_edits(table, edits, EDIT_RANGES)


def deck_values(table: pd.DataFrame) -> np.ndarray:
    """Every card of the deck as its value, in table order (the engine shuffles)."""
    return np.repeat(table["value"].to_numpy(np.int64), table["copies"].to_numpy(np.int64))
