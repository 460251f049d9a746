"""Registry of games: name -> Game.  Modules are imported on first use."""

from __future__ import annotations

import importlib

from boardsim.errors import BadInput
from boardsim.games.base import Game

_MODULES = {
    "art_deco": "boardsim.games.art_deco",
    "wagons": "boardsim.games.wagons",
    "fliptoons": "boardsim.games.fliptoons",
}


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> Game:
    """The game called ``name`` (``art-deco`` and ``art_deco`` both work)."""
    key = str(name).replace("-", "_").lower()
    if key not in _MODULES:
        raise BadInput("game", f"unknown game {name!r} (known: {', '.join(names())})")
    return importlib.import_module(_MODULES[key]).GAME
