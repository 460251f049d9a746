"""Base players: the skill levels an experiment measures under (``cards --base``, ``patch --base/--judge``).

One reader for both the CLI and the Python API: a policy name, a Seat, a ``(name, params)`` pair, a
``{"policy", "params"}`` dict, or a list of these; each one's parameters checked before any game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from boardsim.errors import BadInput, BadParameter
from boardsim.seat import Seat, as_seat

if TYPE_CHECKING:
    from boardsim.games.base import Game


def base_players(game: Game, base: Any, key: str = "base") -> list[Seat]:
    """The distinct base players named by ``base`` (None: the game's default policy).

    Errors are keyed by the parameter ``key`` (``base``, ``judge``): an unknown policy or a bad
    parameter value as ``<key>.<param>``, a policy named twice as ``<key>``.
    """
    from boardsim.games.base import resolve_options

    if base is None:
        return [Seat(game.default_policy, {})]
    one = isinstance(base, (str, Seat, Mapping)) or (
        isinstance(base, tuple) and len(base) == 2 and isinstance(base[0], str))
    specs = [base] if one else list(base)
    if not specs:
        raise BadParameter(key, "no base player given; allowed: one or more policies")
    seats = []
    for spec in specs:
        try:
            seat = as_seat(spec)
            resolve_options(game.policy(seat.policy).options_for(seat.params), seat.params)
        except BadInput as e:
            raise BadParameter(f"{key}.{e.key}" if e.key else key, e.message) from None
        seats.append(seat)
    labels = [s.label() for s in seats]
    if len(set(labels)) != len(labels):
        raise BadParameter(key, f"{', '.join(labels)} names a policy twice; allowed: distinct policies, e.g. "
                                "fame_per_cost,\"mcts(iterations=200)\"")
    return seats
