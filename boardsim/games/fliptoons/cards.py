"""The FlipToons Season 1 card table (spec §10) and its encoding into integer arrays.

Every ability is one of a fixed set of kinds (bonus, banner, placement, hook) with integer
parameters, so the jitted engine reads cards from an array and an edited table never recompiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from boardsim.errors import BadInput
from boardsim.games.base import MAX_FIELD, apply_integer_edits, int_cell, read_card_csv
from boardsim.seat import by_table

COLUMNS = (
    "name", "rank", "starter", "copies", "solo_copies", "fame", "bonus", "bonus_fame", "bonus_param",
    "banner", "hired", "hired_a", "hired_b", "on_dismiss", "place", "hook", "dismiss_cost", "target",
)
INT_COLUMNS = (
    "rank", "starter", "copies", "solo_copies", "fame", "bonus_fame", "bonus_param", "hired_a", "hired_b",
    "dismiss_cost",
)
# The integer fields a scenario may edit (``[cards.Elephant] fame = 9``; copies = 0 removes a card),
# ``cards --sweep`` may vary and ``patch`` may change, with their bounds; the other integer columns are
# held to +-MAX_FIELD so the int32 card matrix never wraps.
FIELDS = {"fame": (-50, 100), "copies": (0, 20), "solo_copies": (0, 20), "rank": (0, 1000),
          "bonus_fame": (-50, 100), "bonus_param": (0, 1000), "dismiss_cost": (0, 100)}

# Ability kinds: the position in each tuple is the code the engine switches on.
BONUS_KINDS = (
    "none", "unique_adjacent", "row", "column", "elsewhere", "most", "rank_count", "dismissed_starters",
    "dismissed", "adjacent_rank_max", "any_facedown", "all_unique", "faceup_count", "copy_adjacent",
)
BANNERS = ("", "cbf", "cbd")
HIRED_KINDS = ("", "dismiss_target", "market_discard", "place_any_deck", "gain")
DISMISSED_KINDS = ("", "place_any_deck")
PLACE_KINDS = ("", "ostrich", "eagle", "elephant", "turkey", "rabbit", "monkey", "snake")
HOOK_KINDS = ("", "least_fame_dismiss", "self_dismiss_lower", "dismiss_right")

# Columns of the int32 card matrix the engine reads (state.py, grid.py, engine.py and the policies import these).
C_RANK, C_STARTER, C_COPIES, C_SOLO, C_FAME, C_BONUS, C_BFAME, C_BPARAM = range(8)
C_CBF, C_CBD, C_HIRED, C_HA, C_HB, C_ONDISM, C_PLACE, C_HOOK, C_DCOST, C_TARGET = range(8, 18)
N_CARD_COLS = 18
MAX_KINDS = 60
# Extra rows above each column (the engine's grid geometry).  Every card with the Monkey placement opens a
# row of its own, and one player can own all of them and flip them into one column, so a table may hold
# at most this many: fixed rows keep the grid arrays and the adjacency table constants of the engine.
MAX_EXTRA_ROWS = 4


def load_table(card_file: str | None = None) -> pd.DataFrame:
    """The bundled Season 1 table, or a user CSV with the same columns (checked row by row)."""
    source = card_file
    if card_file is None:
        with resources.files("boardsim.games.fliptoons").joinpath("data/season1.csv").open() as f:
            table = pd.read_csv(f, keep_default_na=False, dtype=str)
    else:
        table = read_card_csv(card_file)
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise BadInput("columns", f"missing {', '.join(missing)} (need {', '.join(COLUMNS)})", source)
    table = table[list(COLUMNS)].copy()
    for col in INT_COLUMNS:  # the same bounds as a scenario's edits, so the int32 card matrix never wraps
        lo, hi = FIELDS.get(col, (-MAX_FIELD, MAX_FIELD))
        table[col] = np.asarray([int_cell(v, f"row {i + 2}.{col}", lo, hi, source)
                                 for i, v in enumerate(table[col])], dtype=np.int64)
    checks = (("bonus", BONUS_KINDS), ("banner", BANNERS), ("hired", HIRED_KINDS),
              ("on_dismiss", DISMISSED_KINDS), ("place", PLACE_KINDS), ("hook", HOOK_KINDS))
    for col, known in checks:
        for i, v in enumerate(table[col]):
            if v not in known:
                allowed = ", ".join(repr(k) for k in known)
                raise BadInput(f"row {i + 2}.{col}", f"got {v!r}; allowed: {allowed}", source)
    names = list(table["name"])
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BadInput("name", f"card {dup!r} appears twice", source)
    for i, v in enumerate(table["target"]):
        if v and v not in names:
            raise BadInput(f"row {i + 2}.target", f"unknown card {v!r}", source)
    if len(names) > MAX_KINDS:
        raise BadInput("rows", f"{len(names)} cards; at most {MAX_KINDS} kinds are supported", source)
    return table


def apply_edits(table: pd.DataFrame, edits: Mapping[str, Mapping[str, Any]] | None) -> pd.DataFrame:
    """The table with ``{card: {field: value}}`` applied; BadInput names ``cards.<card>.<field>``."""
    table = apply_integer_edits(table, edits, FIELDS)
    check_extra_rows(table)
    return table


def check_extra_rows(table: pd.DataFrame) -> None:
    """BadInput (``cards.<card>.copies`` or ``.solo_copies``) when more cards move to an extra row than
    the engine has rows (MAX_EXTRA_ROWS)."""
    movers = table[table["place"] == "monkey"]
    for col in ("copies", "solo_copies"):
        n = int(movers[col].sum())
        if n > MAX_EXTRA_ROWS:
            name = movers.loc[movers[col].idxmax(), "name"]
            raise BadInput(f"cards.{name}.{col}",
                           f"{n} cards with the Monkey placement; at most {MAX_EXTRA_ROWS} are supported (each "
                           f"can open its own extra row and the engine holds {MAX_EXTRA_ROWS} extra rows)")


def encode(table: pd.DataFrame) -> np.ndarray:
    """The int32 card matrix (kinds × N_CARD_COLS) the engine reads."""
    check_extra_rows(table)  # also for tables that did not come through apply_edits
    names = list(table["name"])
    out = np.zeros((len(table), N_CARD_COLS), dtype=np.int32)
    out[:, C_RANK] = table["rank"]
    out[:, C_STARTER] = table["starter"]
    out[:, C_COPIES] = table["copies"]
    out[:, C_SOLO] = table["solo_copies"]
    out[:, C_FAME] = table["fame"]
    out[:, C_BONUS] = [BONUS_KINDS.index(v) for v in table["bonus"]]
    out[:, C_BFAME] = table["bonus_fame"]
    out[:, C_BPARAM] = table["bonus_param"]
    out[:, C_CBF] = [v == "cbf" for v in table["banner"]]
    out[:, C_CBD] = [v == "cbd" for v in table["banner"]]
    out[:, C_HIRED] = [HIRED_KINDS.index(v) for v in table["hired"]]
    out[:, C_HA] = table["hired_a"]
    out[:, C_HB] = table["hired_b"]
    out[:, C_ONDISM] = [DISMISSED_KINDS.index(v) for v in table["on_dismiss"]]
    out[:, C_PLACE] = [PLACE_KINDS.index(v) for v in table["place"]]
    out[:, C_HOOK] = [HOOK_KINDS.index(v) for v in table["hook"]]
    out[:, C_DCOST] = table["dismiss_cost"]
    out[:, C_TARGET] = [names.index(v) if v else -1 for v in table["target"]]
    return out


# Rough fame a card adds to a grid, used by the greedy policies and for sub-choices (which card
# to dismiss, what Horse discards).  Bonus factors are typical condition hit rates or counts.
_BONUS_FACTOR = {
    "none": 0.0, "unique_adjacent": 2.0, "row": 0.5, "column": 0.35, "elsewhere": 0.5, "most": 0.6,
    "rank_count": 4.0, "dismissed_starters": 1.5, "dismissed": 2.5, "adjacent_rank_max": 0.5,
    "any_facedown": 0.3, "all_unique": 0.4, "faceup_count": 6.0, "copy_adjacent": 0.0,
}
_PLACE_VALUE = {"": 0.0, "ostrich": 1.5, "eagle": -1.5, "elephant": -1.5, "turkey": 1.5, "rabbit": 1.0,
                "monkey": 1.5, "snake": 2.0}


def card_values(table: pd.DataFrame) -> np.ndarray:
    """Static value estimate of each kind (float64), from its fame, bonus and placement kind."""
    v = table["fame"].to_numpy(np.float64).copy()
    for i, row in enumerate(table.itertuples(index=False)):
        v[i] += row.bonus_fame * _BONUS_FACTOR[row.bonus]
        if row.bonus == "copy_adjacent":
            v[i] += 3.5
        v[i] += _PLACE_VALUE[row.place]
        if row.hook == "self_dismiss_lower":
            v[i] -= 1.0
        if row.hired == "gain":
            v[i] += 0.5
    return v


def names(table: pd.DataFrame) -> list[str]:
    return [str(n) for n in table["name"]]


@by_table
def derived(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(``encode``, ``card_values``, ``names``) of a table: what ``prepare`` reads from it, once per content."""
    return encode(table), card_values(table), names(table)
