"""A seat of a game (a policy name and its parameters) and the digest that names rule lists and cards.

Below every other boardsim module: the games, the custom-scorer helpers and the run layer all import it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from boardsim.errors import BadInput


def stable_hash(*parts: Any) -> str:
    """Short hex digest of JSON-able parts (card table, options) for provenance."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, pd.DataFrame):
            h.update(p.to_csv(index=False).encode())
        else:
            h.update(json.dumps(p, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Seat:
    """One seat of a game: a policy name and parameter overrides."""

    policy: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        """``policy(k=v,...)``; a rule list or scorer shows as a digest, and a ``name`` replaces the policy."""
        if not self.params:
            return self.policy
        head = self.params.get("name") if isinstance(self.params.get("name"), str) else self.policy
        parts = []
        for k, v in sorted(self.params.items()):
            if k == "name":
                continue
            if k == "rules":
                if "name" not in self.params:
                    parts.append(f"rules#{stable_hash(v)[:6]}")
                continue
            if k == "function":
                if "name" in self.params:
                    continue
                v = getattr(v, "__name__", v) if not isinstance(v, str) else v.rpartition(":")[2]
            parts.append(f"{k}={v}")
        return f"{head}({','.join(parts)})" if parts else head


def as_seat(spec: Any) -> Seat:
    """A Seat from a name, a Seat, a (name, params) pair or a {'policy', 'params'} dict."""
    if isinstance(spec, Seat):
        return spec
    if isinstance(spec, str):
        return Seat(spec, {})
    if isinstance(spec, Mapping):
        return Seat(spec.get("policy", ""), dict(spec.get("params", {}) or {}))
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        return Seat(spec[0], dict(spec[1]))
    raise BadInput("policies", f"cannot read a seat from {spec!r}")


def fill_seats(seats: Sequence[Seat], n_players: int) -> list[Seat]:
    """Seat i plays ``seats[i % len(seats)]``, so one policy can fill a table."""
    if not seats:
        raise BadInput("seats", "no seats given")
    return [seats[i % len(seats)] for i in range(n_players)]
