"""FlipToons rule options: every §12 ambiguity of the spec is one option with the documented default.

The engine reads options from one float64 vector (positions ``state.R_*``), so sweeping an option
never recompiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from boardsim.errors import BadInput
from boardsim.games.base import Option
from boardsim.games.fliptoons.state import (
    N_RULES,
    R_ACTIONS,
    R_COW_FLOOR,
    R_CRITIC_BONUS,
    R_CRITIC_DEPL,
    R_CRITIC_REFLIP,
    R_DECAY_PLAYERS,
    R_DEPLETION,
    R_FINAL_FLIP,
    R_FIRST,
    R_GOAL,
    R_HOOK_TIMING,
    R_LATERAL,
    R_MAX_REFLIPS,
    R_MAX_ROUNDS,
    R_MIN_CARDS,
    R_MIN_COUNTS,
    R_MIN_FREE,
    R_OSTRICH_MOVES,
    R_RABBIT_EXTRA,
    R_SHEEP_EXTRA,
    R_SKUNK_FACEUP,
    R_SNAKE_EDGE,
    R_SNAKE_ORDER,
    R_SNAKE_PEACOCK,
    R_SNAKE_RIGHT_PLACED,
    R_SOLO_DISCARD,
    R_SOLO_WIN,
)

OPTIONS: tuple[Option, ...] = (
    Option("min_cards_after_dismiss", 4,
           "A1: the minimum deck size for a dismissal, counted as min_cards_counts says; 0 = no limit ([NV])",
           "int", 0, 60),
    Option("min_cards_counts", "total",
           "A1: what the minimum counts: total = deck + grid after the dismissal may not drop below it "
           "(the Persian seed, fliptoons-fa.txt: a player may not bring their total below four cards); "
           "deck = a dismissal is allowed only while the deck holds at least that many cards, whatever "
           "the grid holds (the Spanish seed, fliptoons-es.txt: no dismissing with fewer than four cards "
           "in the deck)",
           "choice", choices=("total", "deck")),
    Option("min_cards_free_dismissals", True,
           "A1: apply the minimum to free dismissals too (Skunk, Donkey, Alligator, Snake, Butterfly)", "bool"),
    Option("depletion", "short_refill",
           "A2: the endgame latches when any refill comes up short ([NV]) or only when the market is empty",
           "choice", choices=("short_refill", "market_empty")),
    Option("critic_on_depletion", False,
           "A3: award the Critic's Choice to the single top scorer on a depletion-only ending", "bool"),
    Option("critic_in_reflips", True, "A4: the Critic's Choice +3 applies on every tie re-flip ([NV])", "bool"),
    Option("ostrich_stacked_moves", False,
           "A5: a Rabbit or Turkey stacked by an Ostrich still moves itself ([NV]: it stays)", "bool"),
    Option("rabbit_searches_extra_rows", False,
           "A6: Rabbit also searches the extra rows for a Rabbit or face-down card", "bool"),
    Option("snake_edge", "column",
           "A7: where Snake sends an immune top card back to the deck bottom: any Snake in column c2 "
           "([NV]) or only a Snake in the final slot r1c2 (r0c2 then uses the next empty slot)",
           "choice", choices=("column", "last_slot")),
    Option("snake_peacock_counts", False,
           "A8: a Peacock stacked by a Snake adds its +2 to the Check-Fame total (30 trigger) too", "bool"),
    Option("solo_win", "check_fame",
           "A9: solo win when a Check Fame reaches the goal, or also instantly when spendable fame does",
           "choice", choices=("check_fame", "instant")),
    Option("cow_floor_zero", False,
           "A10: Cow never copies a negative fame ([NV] copies the Pig's -1)", "bool"),
    Option("extra_row_lateral", True,
           "A11: cards side by side in an extra row are adjacent ([NV])", "bool"),
    Option("skunk_needs_faceup", True,
           "A12: the Skunk must be face-up in the grid to trigger ([NV] ruling)", "bool"),
    Option("hook_timing", "end_of_turn",
           "A13: Donkey and Alligator resolve at each player's own end of turn ([NV]) or after the "
           "whole Market phase", "choice", choices=("end_of_turn", "end_of_market")),
    Option("snake_draw_order", "seat",
           "A14: the order in which players' Snakes draw from the toon deck during the Flip",
           "choice", choices=("seat", "turn")),
    Option("snake_side_card_is_placed", False,
           "A15: a card Snake puts to its right becomes the previous placed card ([NV]: no)", "bool"),
    Option("sheep_counts_extra_rows", True,
           "Sheep's middle column includes extra-row slots in column c1 ([NV])", "bool"),
    Option("fame_goal", 30, "fame in one Check Fame that triggers the endgame (and wins solo)", "int", 1, 500),
    Option("critic_bonus", 3, "fame the Critic's Choice adds in the Final Flip", "int", 0, 50),
    Option("max_reflips", 100, "tie re-flips before a shared win ([NV] caps at 100)", "int", 0, 1000),
    Option("max_rounds", 60, "safety cap: after this many rounds the game goes to the Final Flip "
           "(solo: a loss)", "int", 1, 500),
    Option("final_flip", True,
           "play the Final Flip; false = the trigger round's fame plus the Critic's Choice decides", "bool"),
    Option("first_player", "random", "who starts: random ([RB]: whoever last watched a cartoon) or seat 0",
           "choice", choices=("random", "seat0")),
    Option("solo_difficulty", "normal", "solo: how many toon cards are discarded at setup",
           "choice", choices=("easy", "normal", "hard")),
    Option("solo_discards", [17, 20, 23], "solo discards for easy, normal, hard", "list", 0, 200),
    Option("decay_max_players", 2,
           "market decay (discard leftmost and rightmost each round) applies at this many players or fewer",
           "int", 0, 4),
    Option("market_prices", [3, 4, 7, 10, 15], "market slot prices, left to right (the market width)",
           "list", 0, 100),
    Option("actions", 2, "Market actions per turn (at least 1: with none, no one could ever hire)", "int", 1, 10),
)
_BY_NAME = {o.name: o for o in OPTIONS}


def _flag(v: Any) -> float:
    return 1.0 if v else 0.0


def encode_rules(r: Mapping[str, Any]) -> np.ndarray:
    """The float64 rule vector the engine reads."""
    v = np.zeros(N_RULES, dtype=np.float64)
    v[R_MIN_CARDS] = r["min_cards_after_dismiss"]
    v[R_MIN_COUNTS] = _BY_NAME["min_cards_counts"].encode(r["min_cards_counts"])
    v[R_MIN_FREE] = _flag(r["min_cards_free_dismissals"])
    v[R_DEPLETION] = _BY_NAME["depletion"].encode(r["depletion"])
    v[R_CRITIC_DEPL] = _flag(r["critic_on_depletion"])
    v[R_CRITIC_REFLIP] = _flag(r["critic_in_reflips"])
    v[R_OSTRICH_MOVES] = _flag(r["ostrich_stacked_moves"])
    v[R_RABBIT_EXTRA] = _flag(r["rabbit_searches_extra_rows"])
    v[R_SNAKE_EDGE] = _BY_NAME["snake_edge"].encode(r["snake_edge"])
    v[R_SNAKE_PEACOCK] = _flag(r["snake_peacock_counts"])
    v[R_SOLO_WIN] = _BY_NAME["solo_win"].encode(r["solo_win"])
    v[R_COW_FLOOR] = _flag(r["cow_floor_zero"])
    v[R_LATERAL] = _flag(r["extra_row_lateral"])
    v[R_SKUNK_FACEUP] = _flag(r["skunk_needs_faceup"])
    v[R_HOOK_TIMING] = _BY_NAME["hook_timing"].encode(r["hook_timing"])
    v[R_SNAKE_ORDER] = _BY_NAME["snake_draw_order"].encode(r["snake_draw_order"])
    v[R_SNAKE_RIGHT_PLACED] = _flag(r["snake_side_card_is_placed"])
    v[R_SHEEP_EXTRA] = _flag(r["sheep_counts_extra_rows"])
    v[R_GOAL] = r["fame_goal"]
    v[R_CRITIC_BONUS] = r["critic_bonus"]
    v[R_MAX_REFLIPS] = r["max_reflips"]
    v[R_MAX_ROUNDS] = r["max_rounds"]
    v[R_FINAL_FLIP] = _flag(r["final_flip"])
    v[R_FIRST] = _BY_NAME["first_player"].encode(r["first_player"])
    discards = list(r["solo_discards"])
    if len(discards) != 3:
        raise BadInput("rules.solo_discards", f"got {discards!r}; allowed: three integers (easy, normal, hard)")
    v[R_SOLO_DISCARD] = discards[("easy", "normal", "hard").index(r["solo_difficulty"])]
    v[R_DECAY_PLAYERS] = r["decay_max_players"]
    v[R_ACTIONS] = r["actions"]
    return v


def encode_prices(r: Mapping[str, Any]) -> np.ndarray:
    prices = np.asarray(list(r["market_prices"]), dtype=np.int32)
    if not 1 <= prices.size <= 10:
        raise BadInput("rules.market_prices", f"got {list(prices)!r}; allowed: 1 to 10 prices")
    return prices
