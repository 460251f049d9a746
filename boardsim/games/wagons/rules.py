"""Circle the Wagons' rule options and the rule vector the jitted engine reads (docs/rules/circle-the-wagons.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from boardsim.games.base import Option

OPTIONS = (
    # the base rulebook has no tie-break; the Guns rule comes from the Second Shot expansion
    Option("tie_break", "shared", "tied totals: shared (base rules), or most Guns wins and still tied is "
           "shared (Second Shot expansion)", "choice", choices=("shared", "guns")),
    Option("fixed_goal", 0, "goal number (1..18) always in play (its card goes to the centre, the other two "
           "goals stay random); 0 = all three random", "int", 0, 18),
    Option("first_player", "seat0", "who is P1: seat 0 every game, or a random seat", "choice",
           choices=("seat0", "random")),
)

# the rule vector's fields
R_TIE, R_FIXED, R_FIRST = range(3)
RULES_WIDTH = 3
TIE_GUNS, TIE_SHARED = 0, 1  # R_TIE's values


def encode_rules(resolved: Mapping[str, Any]) -> np.ndarray:
    """The rule vector of resolved options (``Game.resolve_rules``)."""
    vec = np.zeros(RULES_WIDTH, dtype=np.float64)
    vec[R_TIE] = TIE_GUNS if resolved["tie_break"] == "guns" else TIE_SHARED
    vec[R_FIXED] = resolved["fixed_goal"] - 1  # goal row index, -1 = none
    vec[R_FIRST] = 0 if resolved["first_player"] == "seat0" else 1
    return vec
