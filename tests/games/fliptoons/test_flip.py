"""Spec §14.4 and §3.5: Flip placement through flip() (the engine's own placement loop)."""

from __future__ import annotations

import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME, flip
from boardsim.games.fliptoons.state import MAXX

STARTERS = ["Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"]


def test_case26_ostrich_stacks_next():
    r = flip(["Ostrich", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"])
    assert r.grid["r0c0"] == ["Ostrich", "Bee"]
    assert len([s for s in r.grid if s.startswith("r")]) == 5 and "r1c2" not in r.grid
    assert r.deck == []


def test_case27_ostrich_last_slot():
    r = flip(["Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar", "Ostrich", "Bee"])
    assert r.grid["r1c2"] == ["Ostrich"]
    assert r.deck == ["Bee"]


def test_case28_eagle_flips_turkey_into_next_slot():
    r = flip(["Eagle", "Turkey", "Bee", "Snail", "Dragonfly", "Skunk"])
    assert r.grid["r0c0"] == ["Eagle"]
    assert r.grid["r0c1"] == ["Turkey(fd)"]


def test_case29_eagle_rabbit_immune():
    r = flip(["Eagle", "Rabbit", "Bee", "Snail"])
    assert r.grid["r0c1"] == ["Rabbit"]


def test_case30_eagle_last_slot():
    r = flip(["Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar", "Eagle", "Turkey"])
    assert r.grid["r1c2"] == ["Eagle"]
    assert r.deck == ["Turkey"]


def test_case31_rabbit_on_rabbit():
    r = flip(["Rabbit", "Bee", "Snail", "Rabbit", "Dragonfly", "Skunk", "Caterpillar"])
    assert r.grid["r0c0"] == ["Rabbit", "Rabbit"]
    assert len(r.grid) == 6 and r.deck == []


def test_case33_rabbit_alone():
    r = flip(["Rabbit", "Bee"])
    assert r.grid == {"r0c0": ["Rabbit"], "r0c1": ["Bee"]}


def test_rabbit_on_face_down_card():
    r = flip(["Eagle", "Bee", "Rabbit", "Snail"])
    assert r.grid["r0c1"] == ["Bee(fd)", "Rabbit"]
    assert r.grid["r0c2"] == ["Snail"]


def test_case34_monkey_extra_row():
    r = flip(["Bee", "Monkey", "Snail", "Dragonfly", "Skunk", "Caterpillar"])
    assert r.grid == {"r0c0": ["Bee"], "X0c1": ["Monkey"], "r0c1": ["Snail"], "r0c2": ["Dragonfly"],
                      "r1c0": ["Skunk"], "r1c1": ["Caterpillar"]}


def test_case35_monkey_lower_row_stays():
    r = flip(["Bee", "Snail", "Dragonfly", "Monkey", "Skunk"])
    assert r.grid["r1c0"] == ["Monkey"]
    assert not any(s.startswith("X") for s in r.grid)


def test_two_monkeys_same_column_stack_upwards():
    r = flip(["Monkey", "Monkey", "Bee"])
    assert r.grid["X0c0"] == ["Monkey"] and r.grid["X1c0"] == ["Monkey"] and r.grid["r0c0"] == ["Bee"]


def test_every_monkey_the_limit_allows_opens_its_own_row():
    r = flip(["Monkey"] * MAXX + ["Bee"])
    assert all(r.grid[f"X{x}c0"] == ["Monkey"] for x in range(MAXX)) and r.grid["r0c0"] == ["Bee"]
    # one more Monkey than the grid has extra rows is refused rather than silently stacked
    with pytest.raises(BadInput) as e:
        flip(["Monkey"] * (MAXX + 1) + ["Bee"])
    assert e.value.key == "deck" and f"at most {MAXX}" in e.value.message


@pytest.mark.parametrize("field", ["copies", "solo_copies"])
def test_card_table_with_more_monkeys_than_extra_rows_is_refused(field):
    assert GAME.card_table({"Monkey": {field: MAXX}}) is not None
    with pytest.raises(BadInput) as e:
        GAME.card_table({"Monkey": {field: MAXX + 1}})
    assert e.value.key == f"cards.Monkey.{field}" and f"at most {MAXX}" in e.value.message
    # a second card with the Monkey placement counts too
    table = GAME.card_table({"Monkey": {field: MAXX - 1}})
    table.loc[table["name"] == "Goat", "place"] = "monkey"  # Goat has 2 copies
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("fame_per_cost")] * 2, None, table)  # a table that skipped card_table()
    assert e.value.key == f"cards.Monkey.{field}"


def test_case37_to_39_elephant():
    r = flip(["Bee", "Elephant", "Snail"])
    assert r.grid["r0c0"] == ["Bee(fd)"] and r.grid["r0c1"] == ["Elephant"]
    r = flip(["Elephant", "Bee"])
    assert r.grid["r0c0"] == ["Elephant"] and r.grid["r0c1"] == ["Bee"]
    r = flip(["Elephant", "Elephant", "Bee"])
    assert r.grid["r0c0"] == ["Elephant"] and r.grid["r0c1"] == ["Elephant"]


def test_case41_42_turkey():
    r = flip(["Bee", "Turkey", "Snail", "Dragonfly", "Skunk", "Caterpillar"])
    assert r.grid["r0c0"] == ["Bee", "Turkey"]
    assert len(r.grid) == 5 and r.deck == []
    assert flip(["Turkey", "Bee"]).grid["r0c0"] == ["Turkey"]


def test_case44_snake():
    r = flip(["Snake", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"], ["Ostrich"])
    assert r.dismissed == ["Bee"]
    assert r.grid["r0c0"] == ["Snake", "Ostrich"]
    assert r.toon_deck == []


def test_case45_snake_peacock_queued():
    r = flip(["Snake", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"], ["Peacock"])
    assert r.grid["r0c0"] == ["Snake", "Peacock"]
    assert r.queued == ["Peacock"]
    r = flip(["Snake", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"], ["Rabbit"])
    assert r.grid["r0c0"] == ["Snake", "Rabbit"] and r.queued == []
    r = flip(["Snake", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar"], ["Turkey"])
    assert r.grid["r0c0"] == ["Snake", "Turkey"] and r.queued == []


def test_case46_snake_immune_card_to_the_right():
    r = flip(["Snake", "Cat", "Snail", "Dragonfly", "Skunk"], ["Sheep"])
    assert r.dismissed == []
    assert r.grid["r0c1"] == ["Cat"]
    assert r.grid["r0c0"] == ["Snake", "Sheep"]


def test_snake_in_column_c2_returns_immune_card_to_bottom():
    r = flip(["Bee", "Snail", "Snake", "Tiger", "Dragonfly"], ["Sheep"])
    assert r.grid["r0c2"] == ["Snake", "Sheep"]
    assert r.grid["r1c0"] == ["Dragonfly"]
    assert r.grid["r1c1"] == ["Tiger"]  # back at the bottom, then revealed after Dragonfly


def test_case48_snake_only_card():
    r = flip(["Snake"], ["Sheep"])
    assert r.grid == {"r0c0": ["Snake", "Sheep"]}
    assert r.dismissed == []


def test_snake_with_empty_toon_deck_and_min_deck_size():
    r = flip(["Snake", "Bee", "Snail"], rules={"min_cards_after_dismiss": 0})
    assert r.grid == {"r0c0": ["Snake"], "r0c1": ["Snail"]}
    assert r.dismissed == ["Bee"]
    # A1 (seeds): a free dismissal may not leave fewer than 4 cards
    r = flip(["Snake", "Bee", "Snail"])
    assert r.dismissed == [] and r.grid == {"r0c0": ["Snake"], "r0c1": ["Bee"], "r0c2": ["Snail"]}


def test_case49_partial_decks():
    r = flip(["Caterpillar", "Caterpillar", "Skunk", "Dragonfly", "Bee", "Snail"])
    assert len(r.grid) == 6
    r = flip(["Bee", "Snail"])
    assert r.grid == {"r0c0": ["Bee"], "r0c1": ["Snail"]}


def test_interactions_3_5():
    # Ostrich, then Ostrich: both stack and the third card too
    r = flip(["Ostrich", "Ostrich", "Bee", "Snail"])
    assert r.grid["r0c0"] == ["Ostrich", "Ostrich", "Bee"]
    # Ostrich, then Eagle: Eagle stacks; the following card goes face-down into the next empty slot
    r = flip(["Ostrich", "Eagle", "Bee", "Snail"])
    assert r.grid["r0c0"] == ["Ostrich", "Eagle"] and r.grid["r0c1"] == ["Bee(fd)"]
    # Eagle, then Ostrich: Ostrich face-down, no ability
    r = flip(["Eagle", "Ostrich", "Bee"])
    assert r.grid["r0c1"] == ["Ostrich(fd)"] and r.grid["r0c2"] == ["Bee"]
    # Eagle, then Eagle: the second Eagle is immune and sets a new flip
    r = flip(["Eagle", "Eagle", "Bee"])
    assert r.grid["r0c1"] == ["Eagle"] and r.grid["r0c2"] == ["Bee(fd)"]
    # Ostrich, then Elephant: [Ostrich(fd)/Elephant]
    r = flip(["Ostrich", "Elephant", "Bee"])
    assert r.grid["r0c0"] == ["Ostrich(fd)", "Elephant"]
    # Ostrich in r0, then Monkey: Monkey moves up, the next card is not redirected to the Ostrich
    r = flip(["Ostrich", "Monkey", "Bee"])
    assert r.grid["r0c0"] == ["Ostrich"] and r.grid["X0c0"] == ["Monkey"] and r.grid["r0c1"] == ["Bee"]
    # Monkey, then Turkey: Turkey stacks on the Monkey in the extra row; the next card fills r0c0
    r = flip(["Monkey", "Turkey", "Bee"])
    assert r.grid["X0c0"] == ["Monkey", "Turkey"] and r.grid["r0c0"] == ["Bee"]
    # Monkey, then Elephant: Elephant fills the old slot and flips the Monkey
    r = flip(["Monkey", "Elephant"])
    assert r.grid["X0c0"] == ["Monkey(fd)"] and r.grid["r0c0"] == ["Elephant"]
    # Eagle-flipped card, then Turkey: Turkey stacks on the face-down card
    r = flip(["Eagle", "Bee", "Turkey"])
    assert r.grid["r0c1"] == ["Bee(fd)", "Turkey"]
    # Eagle-flipped card, then Elephant: nothing more to flip
    r = flip(["Eagle", "Bee", "Elephant"])
    assert r.grid["r0c0"] == ["Eagle"] and r.grid["r0c2"] == ["Elephant"]
    # Turkey stacked by an Ostrich stays there (A5)
    r = flip(["Bee", "Ostrich", "Turkey", "Snail"])
    assert r.grid["r0c1"] == ["Ostrich", "Turkey"]


def test_ostrich_stacked_rabbit_option():
    deck = ["Eagle", "Bee", "Ostrich", "Rabbit", "Snail"]
    assert flip(deck).grid["r0c2"] == ["Ostrich", "Rabbit"]
    moved = flip(deck, rules={"ostrich_stacked_moves": True})
    assert moved.grid["r0c1"] == ["Bee(fd)", "Rabbit"]
