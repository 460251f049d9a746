"""Spec §14.1-14.3: Check Fame validation cases through score_grid (the engine's own scorer)."""

from __future__ import annotations

import pytest

from boardsim.games.fliptoons import GAME, score_grid

BASE = ("r0c0", "r0c1", "r0c2", "r1c0", "r1c1", "r1c2")


def row_grid(*names: str) -> dict[str, list[str]]:
    return {s: [n] for s, n in zip(BASE, names, strict=False) if n}


def fame_of(result, slot: str, card: str) -> int:
    return next(f for s, c, f in result.lines if s == slot and c == card)


def test_case1_starters():
    r = score_grid(row_grid("Bee", "Dragonfly", "Caterpillar", "Caterpillar", "Snail", "Skunk"))
    assert r.total == 6
    assert fame_of(r, "r0c1", "Dragonfly") == 3
    assert [f for _, _, f in r.lines] == [1, 3, 0, 0, 2, 0]


def test_case2_order_independent():
    a = score_grid(row_grid("Bee", "Dragonfly", "Caterpillar", "Caterpillar", "Snail", "Skunk"))
    grid = dict(reversed(list(row_grid("Bee", "Dragonfly", "Caterpillar", "Caterpillar", "Snail",
                                       "Skunk").items())))
    b = score_grid(grid)
    assert sorted(a.lines) == sorted(b.lines) and a.total == b.total


def test_case3_partial_grid():
    r = score_grid(row_grid("Bee", "Dragonfly", "Caterpillar", "Caterpillar"))
    assert len(r.lines) == 4


def test_case4_dragonfly_unique_names():
    r = score_grid(row_grid("Caterpillar", "Dragonfly", "Caterpillar", "Bee", "Snail", "Skunk"))
    assert fame_of(r, "r0c1", "Dragonfly") == 2
    assert r.total == 5


def test_case5_dragonfly_next_to_stack():
    r = score_grid({"r0c0": ["Bee", "Snail"], "r0c1": ["Dragonfly"]})
    assert fame_of(r, "r0c1", "Dragonfly") == 2
    r = score_grid({"r0c0": ["Bee", "Snail", "Caterpillar(fd)"], "r0c1": ["Dragonfly"]})
    assert fame_of(r, "r0c1", "Dragonfly") == 2


def test_case6_extra_row_adjacency():
    r = score_grid({"X0c1": ["Snail"], "r0c1": ["Dragonfly"]})
    assert fame_of(r, "X0c1", "Snail") == 2 and fame_of(r, "r0c1", "Dragonfly") == 1
    assert r.total == 3


def test_case7_eagle_alone():
    assert score_grid({"r0c0": ["Eagle"]}).total == 4


def test_case8_face_down_only():
    r = score_grid({"r0c0": ["Snail(fd)"]})
    assert r.total == 0 and r.lines == []


def test_case9_to_11_cow():
    r = score_grid({"r0c1": ["Cow"], "r0c0": ["Bee"], "r0c2": ["Snail"], "r1c1": ["Skunk"]})
    assert fame_of(r, "r0c1", "Cow") == 2 and r.total == 5
    r = score_grid({"r0c1": ["Cow"], "r0c0": ["Bee", "Snail"]})
    assert fame_of(r, "r0c1", "Cow") == 2
    r = score_grid({"r0c1": ["Cow"], "r0c0": ["Bee", "Snail", "Snail(fd)"]})
    assert fame_of(r, "r0c1", "Cow") == 2
    assert score_grid({"r0c0": ["Cow"]}).total == 0


def test_cow_chains_and_pig():
    cards = GAME.card_table({"Cow": {"copies": 2}})
    r = score_grid({"r0c0": ["Cow"], "r0c1": ["Cow"], "r0c2": ["Elephant"]}, cards=cards)
    assert [f for _, _, f in r.lines] == [7, 7, 7]
    assert score_grid({"r0c0": ["Cow"], "r0c1": ["Pig"]}).total == -2
    assert score_grid({"r0c0": ["Cow"], "r0c1": ["Pig"]}, rules={"cow_floor_zero": True}).total == -1


def test_case15_sheep():
    assert score_grid({"r0c1": ["Sheep"]}).total == 5
    assert score_grid({"r0c0": ["Sheep"]}).total == 1


def test_case16_rooster():
    assert score_grid({"r0c0": ["Rooster"]}).total == 1
    r = score_grid({"r0c0": ["Rooster"], "r0c1": ["Donkey"], "r0c2": ["Lion"]})
    assert fame_of(r, "r0c0", "Rooster") == 2


def test_case17_lion():
    assert score_grid({"r0c0": ["Lion"]}).total == 7
    assert fame_of(score_grid({"r0c0": ["Lion"], "r0c1": ["Turkey"]}), "r0c0", "Lion") == 3
    assert fame_of(score_grid({"r0c0": ["Lion"], "r0c1": ["Donkey"]}), "r0c0", "Lion") == 7


def test_case18_bull():
    assert score_grid({"r0c0": ["Bull"]}).total == 3
    assert fame_of(score_grid({"r0c0": ["Bull"], "r1c2": ["Snail(fd)"]}), "r0c0", "Bull") == 10


def test_case19_deer():
    assert fame_of(score_grid({"r0c0": ["Deer"], "r1c2": ["Bee"]}), "r0c0", "Deer") == 8
    assert fame_of(score_grid({"r0c0": ["Deer"], "r1c2": ["Bee"], "r1c1": ["Bee"]}), "r0c0", "Deer") == 3


def test_case20_bear():
    assert score_grid({"r0c0": ["Bear"]}).total == 2
    r = score_grid({"r0c0": ["Bear"], "r1c2": ["Bee"], "r1c1": ["Snail(fd)"]})
    assert fame_of(r, "r0c0", "Bear") == 3


def test_case21_dog():
    assert fame_of(score_grid({"r0c0": ["Dog"]}, others=[{"r0c0": ["Dog"]}]), "r0c0", "Dog") == 5
    assert fame_of(score_grid({"r0c0": ["Dog"]}, market=["Dog"]), "r0c0", "Dog") == 5
    assert score_grid({"r0c0": ["Dog"]}).total == 0
    assert score_grid({"r0c0": ["Dog"], "r1c2": ["Dog"]}).total == 0
    # a face-down Dog elsewhere has no name
    assert score_grid({"r0c0": ["Dog"]}, others=[{"r0c0": ["Dog(fd)"]}]).total == 0


def test_camel_ties_score():
    assert score_grid({"r0c0": ["Camel"]}, others=[{"r0c0": ["Camel"]}]).total == 4
    assert score_grid({"r0c0": ["Camel"]}, others=[{"r0c0": ["Camel"], "r0c1": ["Camel"]}]).total == 2
    assert score_grid({"r0c0": ["Camel"]}, market=["Camel", "Camel"]).total == 2


def test_case23_cat_and_tiger():
    pile = ["Snail", "Bee", "Eagle"]
    assert score_grid({"r0c0": ["Cat"]}, dismissed=pile).total == 3
    assert score_grid({"r0c0": ["Tiger"]}, dismissed=pile).total == 6


def test_donkey_goat_rows():
    assert score_grid({"r1c0": ["Donkey"]}).total == 6
    assert score_grid({"r0c0": ["Donkey"]}).total == 1
    assert score_grid({"r0c0": ["Goat"]}).total == 4
    assert fame_of(score_grid({"r0c0": ["Goat"], "X0c0": ["Monkey"]}), "r0c0", "Goat") == 4
    assert score_grid({"X0c0": ["Goat"]}).total == 1


@pytest.mark.parametrize("order", [0, 1, 2])
def test_case24_32_fame_deck(order):
    names = ["Alligator", "Axolotl", "Peacock", "Horse", "Bull", "Bear"]
    names = names[order:] + names[:order]
    r = score_grid(row_grid(*names))
    assert r.total == 32


def test_case25_exactly_30():
    r = score_grid(row_grid("Axolotl", "Peacock", "Horse", "Alligator", "Bear", "Bee"))
    assert r.total == 30


def test_edited_card_table():
    cards = GAME.card_table({"Elephant": {"fame": 9}})
    assert score_grid({"r0c0": ["Elephant"]}, cards=cards).total == 9
