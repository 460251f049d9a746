"""A seat of a game (a policy name and its parameters) and the digest that names rule lists and cards.

Below every other boardsim module: the games, the custom-scorer helpers and the run layer all import it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import threading
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from boardsim.errors import BadInput


def table_key(table: pd.DataFrame) -> bytes:
    """A key equal for two tables exactly when their columns, column types and values are (the index and
    ``attrs`` left out): pickled, so 1, 1.0 and True stay three keys.  Equal tables built apart may pickle
    differently (shared string objects): then a memo (``by_table``) misses, never hits wrongly.  About 0.2 ms
    for FlipToons' 31 x 18 table, against about 5 ms for what ``prepare`` derives from it."""
    return pickle.dumps((list(table.columns), [str(t) for t in table.dtypes], table.values.tolist()), protocol=5)


def _fresh(x: Any) -> Any:
    """A copy of a memoised result that a caller may change without changing the memo."""
    if isinstance(x, (np.ndarray, pd.DataFrame, list)):
        return x.copy()
    if isinstance(x, tuple):
        return tuple(_fresh(v) for v in x)
    return x


def by_table(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(*tables)``, a pure function of card tables' contents, worked out once per content (``table_key``)
    and copied out after: a cell prepares its card arrays once per arrangement, and a card measure prepares
    dozens of cells on one table, so pandas' per-column work was most of a FlipToons or Wagons ``prepare``.
    The 64 latest contents are kept."""
    memo: dict[tuple[bytes, ...], Any] = {}
    lock = threading.Lock()

    @functools.wraps(fn)
    def wrapped(*tables: pd.DataFrame) -> Any:
        try:
            key = tuple(table_key(t) for t in tables)
        except (pickle.PicklingError, TypeError, AttributeError):  # a value pickle cannot write: no memo
            return fn(*tables)
        with lock:
            found = memo.get(key)
        if found is None:
            found = fn(*tables)
            with lock:
                if len(memo) >= 64:
                    memo.pop(next(iter(memo)))
                memo[key] = found
        return _fresh(found)

    return wrapped


@by_table
def _csv(table: pd.DataFrame) -> bytes:
    return table.to_csv(index=False).encode()


def stable_hash(*parts: Any) -> str:
    """Short hex digest of JSON-able parts (card table, options) for provenance."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, pd.DataFrame):
            h.update(_csv(p))
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
    """A Seat from a name, a label with parameters (``"mcts(iterations=300)"``, the syntax of ``--policies``
    and of report labels), a Seat, a (name, params) pair or a {'policy', 'params'} dict."""
    if isinstance(spec, Seat):
        return spec
    if isinstance(spec, str):
        if "(" not in spec:
            return Seat(spec, {})
        seats = parse_seats(spec)
        if len(seats) != 1:
            raise BadInput("policies", f"got {spec!r}, which names {len(seats)} policies; allowed: one, "
                                       "such as mcts(iterations=300)")
        return seats[0]
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


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside parentheses, brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_seats(text: str) -> list[Seat]:
    """Seats from text: ``par,multiple(multiple=1.3),priority(order=[Elephant, Bear])``.

    The same syntax as the labels in reports: a name, or a name with ``key=value`` parameters in
    parentheses; values are read as TOML (numbers, booleans, lists, quoted strings), a bare word as a
    string, and list items that are bare words as strings too.
    """
    seats = []
    for item in split_top(text):
        name, paren, rest = item.partition("(")
        name = name.strip()
        if not name or (paren and not rest.endswith(")")):
            raise BadInput("policies", f"cannot read {item!r}; allowed: name or name(key=value, ...)")
        params = {}
        for pair in split_top(rest[:-1]) if paren else []:
            key, eq, raw = pair.partition("=")
            if not eq or not key.strip():
                raise BadInput("policies", f"cannot read {pair!r} in {item!r}; allowed: key=value")
            params[key.strip()] = _value(raw.strip())
        seats.append(Seat(name, params))
    if not seats:
        raise BadInput("policies", "no policy given; allowed: a comma-separated list such as par,blocker")
    return seats


def _value(raw: str) -> Any:
    """A parameter value: TOML where it parses, else a bare word (inside lists too)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if raw.startswith("[") and raw.endswith("]"):
        return [_value(part) for part in split_top(raw[1:-1])]
    return raw


def entry_key(key: str, entry: str, params: bool = True) -> str:
    """An error key about one seat of a table (``seats[0].params.iterations``, ``seats[0].policy``) as the key
    of the list entry the user wrote that seat in (``tournament.policies[1].params.iterations``; without
    ``params``, as flags spell it: ``policies[1].iterations``).  A key about anything else is left as it is."""
    head, dot, rest = key.partition("]")
    if not head.startswith("seats["):
        return entry if key in ("policies", "seats", "policy") else key
    rest = rest.removeprefix(".")
    if rest in ("", "policy"):
        return entry
    if not params:
        rest = rest.removeprefix("params.")
    return f"{entry}.{rest}"
