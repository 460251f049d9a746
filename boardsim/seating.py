"""Seating designs: which arrangements of a cell's seat list over the table's positions each deal is played in.

A cell lists one policy per *slot* (``seats[j % len(seats)]``).  An arrangement puts every slot at one
position of the table (position 0 opens the first round).  Every deal of a cell is played once in every
arrangement of its design, on the same seed, so policies are compared on the same cards:

- ``all``: every distinct arrangement of the slot *labels* over the positions.  Slots with the same policy
  (and parameters) are interchangeable, so two ``par`` and two ``blocker`` at 4 seats give 6 arrangements,
  four distinct policies 24.  The arrangements are ordered by their policy-by-position text, so listing the
  seats in another order plays exactly the same games: per-policy results do not depend on the listing.
- ``cyclic``: the P rotations of the listed order (who sits to whose left never changes).
- ``fixed``: the listed order only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from boardsim.errors import BadInput

SEATINGS = ("all", "cyclic", "fixed")
DEFAULT = "all"


def check(seating: object, key: str = "seating") -> str:
    """``seating`` if it names a design (any other value, of any type, is BadInput keyed ``key``)."""
    if not isinstance(seating, str) or seating not in SEATINGS:
        raise BadInput(key, f"got {seating!r}; allowed: one of " + ", ".join(repr(s) for s in SEATINGS))
    return seating


def resolve(seating: str | None, rotate_seats: bool | None = None, key: str = "seating") -> str:
    """The design to use: ``seating`` if given; else ``rotate_seats`` (True = cyclic, False = fixed); else all."""
    if seating is not None:
        return check(seating, key)
    if rotate_seats is None:
        return DEFAULT
    return "cyclic" if rotate_seats else "fixed"


def arrangements(labels: Sequence[str], seating: str) -> list[tuple[int, ...]]:
    """``position_of_slot`` tuples, one per arrangement: entry ``j`` is the position slot ``j`` sits at."""
    P = len(labels)
    if seating == "fixed":
        return [tuple(range(P))]
    if seating == "cyclic":
        return [tuple((j + k) % P for j in range(P)) for k in range(P)]
    check(seating)
    out = []
    for by_position in sorted(set(itertools.permutations(labels))):
        # interchangeable slots (same label) take that label's positions in increasing order
        free = {lab: [j for j in range(P) if labels[j] == lab] for lab in set(labels)}
        position_of_slot = [0] * P
        for p, lab in enumerate(by_position):
            position_of_slot[free[lab].pop(0)] = p
        out.append(tuple(position_of_slot))
    return out


def groups(labels: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    """The distinct policies in first-listed order, and each slot's index into them."""
    names: list[str] = []
    for lab in labels:
        if lab not in names:
            names.append(lab)
    return names, tuple(names.index(lab) for lab in labels)


def coverage_warnings(labels: Sequence[str], n_players: int, where: str = "") -> list[str]:
    """Warnings when the seat list does not map one-to-one onto the table.

    More listed seats than players leaves some policies out; fewer repeats some, and which ones repeat
    then depends on the listing order.
    """
    at = f" {where}" if where else ""
    n = len(labels)
    if n > n_players:
        idle = ", ".join(f"seats[{j}] ({labels[j]})" for j in range(n_players, n))
        return [f"{n} seats listed for {n_players} players{at}: {idle} never play{'s' if n - n_players == 1 else ''}"]
    if n < n_players and len(set(labels)) > 1:
        filled = [labels[i % n] for i in range(n_players)]
        counts = {lab: filled.count(lab) for lab in dict.fromkeys(filled)}
        parts = ", ".join(f"{lab} plays {c} seat{'s' if c > 1 else ''}" for lab, c in counts.items())
        uneven = len(set(counts.values())) > 1
        tail = "; which policy gets the extra seats depends on the listing order" if uneven else ""
        return [f"{n} seats listed for {n_players} players{at}: policies repeat ({parts}){tail}"]
    return []
