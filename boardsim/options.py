"""Named rule options and policy parameters: their kinds and bounds, how a user's value is checked, and
the number a jitted kernel reads for it.

On the ground floor: the games declare their options with it, and the search tree (``tree.py``) declares
its own, so neither has to import the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardsim import learned
from boardsim.errors import BadInput

# Largest magnitude of any integer card field or rule option without a tighter bound of its own: a game
# score is a sum of at most a few hundred such numbers, so per-game scores stay far inside int64 and the
# sweep's sums of squared scores (checked as they grow, runner.Aggregate) hold for billions of games.
MAX_FIELD = 10_000


@dataclass(frozen=True)
class Option:
    """A named rule option or policy parameter.

    ``kind`` is one of ``int``, ``float``, ``bool``, ``choice`` (a string from
    ``choices``, encoded as its index) or ``list`` (a list of ints, or of
    ``choices`` strings when those are given).  ``low``/``high`` bound numbers
    (and list items) inclusively; ``None`` means unbounded.
    """

    name: str
    default: Any
    doc: str
    kind: str = "int"
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    most: int | None = None  # a list's longest allowed length (None: any)

    def allowed(self) -> str:
        text = self._allowed()
        return text if self.most is None else f"{text}, at most {self.most}"

    def _allowed(self) -> str:
        if self.kind == "rules":
            return "a list of rules, each a table with one action and an optional if (see docs/policies.md)"
        if self.kind == "function":
            return "\"module:function\" naming an @numba.njit scorer, or such a function (see docs/policies.md)"
        if self.kind == "name":
            return "a short label for reports"
        if self.kind == "model":
            return "the path of a model file written by `boardsim learn` (empty: the bundled model)"
        if self.kind == "names":
            return "a list of card names (the game checks them against its card table)"
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "bool":
            return "true or false"
        what = {"int": "an integer", "float": "a number", "list": "a list"}[self.kind]
        if self.kind == "list" and self.choices:
            return "a list of " + ", ".join(repr(c) for c in self.choices)
        lo = _fmt(-MAX_FIELD) if self.low is None else _fmt(self.low)
        hi = _fmt(MAX_FIELD) if self.high is None else _fmt(self.high)
        item = " of integers" if self.kind == "list" else ""
        return f"{what}{item} in [{lo}, {hi}]"

    def check(self, value: Any) -> Any:
        """The value, normalised, or BadInput naming this option."""
        bad = BadInput(self.name, f"got {value!r}; allowed: {self.allowed()}")
        if self.most is not None and isinstance(value, (list, tuple)) and len(value) > self.most:
            raise bad
        if self.kind == "rules":  # the game compiles and checks each rule (rulelist.compile_rules)
            if not isinstance(value, (list, tuple)) or not value:
                raise bad
            return value
        if self.kind == "function":  # checked against the scorer signature by custom.resolve
            if isinstance(value, str) and ":" in value or callable(value):
                return value
            raise bad
        if self.kind == "model":  # the file is read and checked against the table by Game.learned_params
            if isinstance(value, (str, os.PathLike, learned.Model)):
                return value
            raise bad
        if self.kind == "name":
            if not isinstance(value, str) or not value.strip() or len(value) > 40 or any(c in value for c in "(),="):
                raise BadInput(self.name, f"got {value!r}; allowed: a label of 1 to 40 characters without ( ) , =")
            return value
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise bad
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.kind == "names":  # card names the game resolves against the table it is played with
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
                raise bad
            return tuple(value)
        if self.kind == "list":
            if not isinstance(value, (list, tuple)):
                raise bad
            if self.choices:
                if not all(isinstance(v, str) and v in self.choices for v in value):
                    raise bad
                return tuple(value)
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise bad
            if any(not self._in_range(v) for v in value):
                raise bad
            return tuple(int(v) for v in value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if self.kind == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise bad
                value = int(value)
        else:
            value = float(value)
        if not np.isfinite(value) or not self._in_range(value):
            raise bad
        return value

    def _in_range(self, v: float) -> bool:
        if abs(v) > MAX_FIELD and (self.low is None or self.high is None):
            return False  # an unbounded option still keeps every sum a game makes of it in range
        return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)

    def encode(self, value: Any) -> float:
        """The number a jitted kernel reads for a scalar option."""
        if self.kind == "choice":
            return float(self.choices.index(value))
        return float(value)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def resolve_options(options: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with checked user values; unknown names are BadInput."""
    known = {o.name: o for o in options}
    resolved = {o.name: o.default for o in options}
    for name, value in (given or {}).items():
        if name not in known:
            allowed = ", ".join(known) if known else "none"
            raise BadInput(name, f"unknown option {name!r} (known: {allowed})")
        resolved[name] = known[name].check(value)
    return resolved
