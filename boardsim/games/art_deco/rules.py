"""Art Deco rule options (docs/rules/art-deco.md) and their encoding.

The jitted engine reads the options from one float64 vector; the ``R_*``
constants are the positions in that vector, so a new option value never
recompiles anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from boardsim.games.base import Option

OPTIONS: tuple[Option, ...] = (
    Option("rounds", 10, "rounds R; the game also ends when the pile runs out", "int", 1, 200),
    Option("hand_size", 3, "cards dealt face up to each player at setup (they score and count)", "int", 0, 20),
    Option(
        "start_player",
        "rotate",
        "who opens round r (its auction, then its sale in turn order): rotate = seat (r-1) mod N; "
        "last_winner = the previous auction's winner (unchanged after an unsold round)",
        "choice",
        choices=("rotate", "last_winner"),
    ),
    Option(
        "open_min_bid",
        1.0,
        "lowest first bid as a fraction of the card's value (1.0 = the value; 0 = any bid)",
        "float",
        0.0,
        5.0,
    ),
    Option(
        "unsold",
        "discard",
        "where an auction card nobody bid on goes",
        "choice",
        choices=("discard", "pile_bottom"),
    ),
    Option("direct_buy_max", 2, "pile cards the auction winner may buy directly each round", "int", 0, 10),
    Option("direct_price_factor", 1.0, "direct-buy price as a multiple of value (rounded)", "float", 0.0, 10.0),
    Option("sale_price_factor", 1.0, "sale price as a multiple of value (rounded)", "float", 0.0, 10.0),
    Option(
        "credit_limit",
        -1,
        "-1 = unlimited debt; C >= 0 = bid or buy only while cash - price >= -C",
        "int",
        -1,
        100000,
    ),
    Option("bid_ceiling", 30, "no bid above the card's value plus this", "int", 0, 1000),
    Option("min_cards_to_win", 5, "cards a player must hold at the end to be able to win", "int", 0, 100),
    Option(
        "shuffle",
        True,
        "shuffle the deck; false deals it in the given order, top first (scripted deals)",
        "bool",
    ),
    Option(
        "values",
        (),
        "explicit deck as a list of positive card values; empty = the card table (1..12, 9 copies)",
        "list",
        1,
        10000,
    ),
)

(
    R_ROUNDS,
    R_HAND,
    R_START,
    R_OPEN,
    R_UNSOLD,
    R_DIRECT_MAX,
    R_DIRECT_FACTOR,
    R_SALE_FACTOR,
    R_CREDIT,
    R_CEILING,
    R_MIN_CARDS,
    R_SHUFFLE,
    R_DEBUG,
) = range(13)
N_RULES = 13

START_ROTATE, START_LAST_WINNER = 0, 1
UNSOLD_DISCARD, UNSOLD_BOTTOM = 0, 1


def encode_rules(resolved: Mapping[str, Any]) -> np.ndarray:
    """The rule vector the kernel reads (``values`` travels as its own array); its debug flag ``R_DEBUG`` is
    off (``ArtDeco.with_checks`` turns it on)."""
    by_name = {o.name: o for o in OPTIONS}
    vec = np.zeros(N_RULES, dtype=np.float64)
    order = [
        "rounds",
        "hand_size",
        "start_player",
        "open_min_bid",
        "unsold",
        "direct_buy_max",
        "direct_price_factor",
        "sale_price_factor",
        "credit_limit",
        "bid_ceiling",
        "min_cards_to_win",
        "shuffle",
    ]
    for i, name in enumerate(order):
        vec[i] = by_name[name].encode(resolved[name])
    return vec
