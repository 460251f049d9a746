"""The card fields an experiment may vary: ``cards --sweep`` sweeps one, ``patch`` edits them.

Needs nothing but the game's own card table, so ``games.base`` can import it without reaching the
run layer (``analysis.balance`` plays games and sits above the games).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from boardsim.errors import BadInput

if TYPE_CHECKING:
    from boardsim.games.base import Game


def sweepable_fields(game: Game, table: pd.DataFrame) -> list[str]:
    """Card fields that ``--sweep`` can vary: integer columns that a card edit accepts."""
    if table.empty:
        return []
    first = str(table["name"].iloc[0])
    fields = []
    for col in table.columns:
        if col == "name" or not pd.api.types.is_integer_dtype(table[col]):
            continue
        try:
            game.card_table({first: {col: int(table[col].iloc[0])}})
        except BadInput:
            continue
        fields.append(str(col))
    return fields
