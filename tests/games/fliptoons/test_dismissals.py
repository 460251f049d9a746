"""Dismissal rules (issue 12): the Pig's When Dismissed banner on every route, and A1's two readings."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME, Table, flip
from boardsim.games.fliptoons.kernel import play_game
from boardsim.games.fliptoons.state import LOG_W, N_STATS, POL_FPC, POL_RANDOM, R_MIN_COUNTS, ST_DISMISSED, Outputs

SNAILS = ["Snail"] * 5  # a deck big enough that the A1 minimum never blocks a dismissal


def edited(card: str, **fields: str) -> pd.DataFrame:
    """The Season 1 table with text fields of one card changed (abilities are data)."""
    table = GAME.card_table()
    for field, value in fields.items():
        table.loc[table["name"] == card, field] = value
    return table


def two_players(cards: pd.DataFrame | None = None, rules: dict | None = None) -> Table:
    """Seat 0 acts; seat 1 leads on fame, so fame_per_cost sends a Pig to seat 1's deck."""
    t = Table(2, rules=rules, cards=cards)
    t.set_deck(0, SNAILS)
    t.set_deck(1, ["Bee"] * 4)
    t.set_fame(1, 20)
    return t


def assert_pig_went_to_seat1(t: Table) -> None:
    assert "Pig" not in t.dismissed(0)
    assert all("Pig" not in stack for stack in t.grid(0).values())
    assert t.deck(1) == ["Bee"] * 4 + ["Pig"]  # a player's deck takes it at the bottom
    assert t.O.stats[ST_DISMISSED, 0, t.kind["Pig"]] == 1  # still counted as a dismissal


# -- the Pig leaves the dismissed pile, whatever dismissed it ---------------------------------------------
def test_issue_repro_snake_dismissed_pig_leaves_the_pile():
    deck = ["Snake", "Pig", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar", "Caterpillar"]
    r = flip(deck, ["Sheep"])
    assert "Pig" not in r.dismissed and r.dismissed == []
    # solo has only the toon deck to take it (shuffled in); the Snake then draws Sheep or the Pig from it
    placed = [c for stack in r.grid.values() for c in stack]
    assert Counter(placed) + Counter(r.deck) + Counter(r.toon_deck) == Counter(deck) + Counter(["Sheep"])
    assert "Pig" in r.toon_deck or r.grid["r0c0"] == ["Snake", "Pig"]


def test_paid_dismissal_of_the_pig():
    t = two_players()
    t.set_grid(0, {"r0c0": ["Pig"], "r0c1": ["Bee"]})
    t.set_fame(0, 5)
    t.dismiss(0, "Pig")
    assert t.spendable(0) == 0 and t.actions(0) == 1
    assert_pig_went_to_seat1(t)


def test_skunk_dismisses_the_pig():
    t = two_players()
    t.set_grid(0, {"r0c0": ["Skunk"], "r0c1": ["Pig"], "r0c2": ["Snail"]})
    t.set_fame(0, 1)
    t.least_fame_hook()  # the lowest-value card is the Pig
    assert_pig_went_to_seat1(t)


def test_donkey_hook_dismisses_a_pig():
    # a Pig that carries the Donkey's hook dismisses itself from the lower row
    t = two_players(edited("Pig", hook="self_dismiss_lower"))
    t.set_grid(0, {"r1c0": ["Pig"], "r0c0": ["Bee"]})
    t.end_of_turn_hooks(0)
    assert_pig_went_to_seat1(t)
    # ... and a Donkey that carries the Pig's banner leaves the pile the same way
    t = two_players(edited("Donkey", on_dismiss="place_any_deck"))
    t.set_grid(0, {"r1c0": ["Donkey"], "r0c0": ["Bee"]})
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == [] and t.deck(1) == ["Bee"] * 4 + ["Donkey"]


def test_alligator_dismisses_the_pig():
    t = two_players()
    t.set_grid(0, {"r0c0": ["Alligator"], "r0c1": ["Pig"]})
    t.end_of_turn_hooks(0)
    assert_pig_went_to_seat1(t)


def test_snake_dismisses_the_pig_in_a_multiplayer_flip():
    t = two_players()
    t.set_deck(0, ["Snake", "Pig", "Bee", "Snail", "Dragonfly", "Skunk", "Caterpillar", "Caterpillar"])
    t.set_toon(["Sheep"])
    t.place_all(0)
    assert t.grid(0)["r0c0"] == ["Snake", "Sheep"]
    assert_pig_went_to_seat1(t)


def test_butterfly_dismisses_a_pig():
    t = two_players(edited("Butterfly", target="Pig"))
    t.set_market(["Butterfly", None, None, None, None])
    t.set_grid(0, {"r0c0": ["Pig"], "r0c1": ["Bee"]})
    t.set_fame(0, 3)
    t.hire(0, 0)
    assert_pig_went_to_seat1(t)


@pytest.mark.parametrize("policy", [POL_FPC, POL_RANDOM])
def test_dismissed_pig_goes_where_a_hired_pig_goes(policy):
    """The deck is the policy's choice, the same one the hire makes from the same state and generator."""
    def table() -> Table:
        t = Table(3, seed=5)
        t.set_policy(0, policy)
        for p, fame in enumerate((8, 3, 9)):
            t.set_fame(p, fame)
            t.set_deck(p, SNAILS)
        return t

    hired = table()
    hired.set_market(["Pig", None, None, None, None])
    hired.hire(0, 0)
    dismissed = table()
    dismissed.set_grid(0, {"r0c0": ["Pig"]})
    dismissed.dismiss(0, "Pig")
    where = [[p for p in range(3) if "Pig" in t.deck(p)] or ["toon"] for t in (hired, dismissed)]
    assert where[0] == where[1]
    if policy == POL_FPC:
        assert where[0] == [2]  # the opponent with the most fame


def test_tiger_does_not_count_a_pig_that_left():
    t = two_players()
    t.set_grid(0, {"r0c0": ["Tiger"], "r0c1": ["Pig"], "r0c2": ["Bee"]})
    t.set_fame(0, 10)
    t.dismiss(0, "Pig")
    tiger = next(f for _, name, f in t.score(0).lines if name == "Tiger")
    assert tiger == 3  # base fame only: the pile is empty
    t.dismiss(0, "Bee")
    tiger = next(f for _, name, f in t.score(0).lines if name == "Tiger")
    assert tiger == 4


def test_no_pig_stays_in_a_pile_in_whole_games():
    prep = GAME.prepare(2, [Seat("random"), Seat("random")], None, GAME.card_table())
    pig = list(GAME.card_table()["name"]).index("Pig")
    pig_dismissals = 0
    for index in range(150):
        O = Outputs(np.zeros((N_STATS, 2, prep["cards"].shape[0]), np.int32), np.zeros((2, 60), np.int16),
             np.zeros((1, LOG_W), np.int32))
        S = play_game(prep, 3, index, O)
        assert S[2][:, pig].sum() == 0
        pig_dismissals += int(O.stats[ST_DISMISSED, :, pig].sum())
    assert pig_dismissals > 0


# -- A1: min_cards_counts -----------------------------------------------------------------------------------
GRID5 = {"r0c0": ["Caterpillar"], "r0c1": ["Bee"], "r0c2": ["Snail"], "r1c0": ["Bee"], "r1c1": ["Snail"]}


@pytest.mark.parametrize("counts,deck,allowed", [
    ("total", 3, True),  # 5 + 3 - 1 = 7 cards left
    ("deck", 3, False),  # the Spanish text: not with fewer than four cards in the deck
    ("deck", 4, True),
])
def test_min_cards_counts_paid_dismissal(counts, deck, allowed):
    t = Table(2, rules={"min_cards_counts": counts})
    t.set_grid(0, GRID5)
    t.set_deck(0, ["Snail"] * deck)
    t.set_fame(0, 10)
    assert t.can_dismiss(0, "Caterpillar") == allowed


def test_min_cards_counts_total_is_the_default():
    t = Table(2)
    t.set_grid(0, GRID5)
    t.set_deck(0, ["Snail"] * 3)
    t.set_fame(0, 10)
    assert t.can_dismiss(0, "Caterpillar")
    t = Table(2)
    t.set_grid(0, {"r0c0": ["Caterpillar"], "r0c1": ["Bee"], "r0c2": ["Snail"], "r1c0": ["Bee"]})
    t.set_fame(0, 10)
    assert not t.can_dismiss(0, "Caterpillar")  # 4 in all: 3 would be left


@pytest.mark.parametrize("counts,deck,dismissed", [("total", 3, True), ("deck", 3, False), ("deck", 4, True)])
def test_min_cards_counts_free_dismissal(counts, deck, dismissed):
    t = Table(2, rules={"min_cards_counts": counts})
    t.set_grid(0, {"r1c0": ["Donkey"], "r0c0": ["Bee"], "r0c1": ["Snail"]})
    t.set_deck(0, ["Snail"] * deck)
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == (["Donkey"] if dismissed else [])


def test_min_cards_counts_snake():
    # Snake at r0c2 with three cards left in the deck: 3 + 3 - 1 = 5 in total, but only 3 in the deck
    deck = ["Bee", "Snail", "Snake", "Dragonfly", "Skunk", "Caterpillar"]
    assert flip(deck).dismissed == ["Dragonfly"]
    r = flip(deck, rules={"min_cards_counts": "deck"})
    assert r.dismissed == [] and r.grid["r1c0"] == ["Dragonfly"]


def test_min_cards_counts_is_data_and_validated():
    seats = [Seat("fame_per_cost"), Seat("random")]
    a = GAME.prepare(2, seats, {"min_cards_counts": "deck"}, GAME.card_table())
    b = GAME.prepare(2, seats, None, GAME.card_table())
    assert a["rules"][R_MIN_COUNTS] == 1.0 and b["rules"][R_MIN_COUNTS] == 0.0
    deck, total = GAME.play(a, 4, 0, 200), GAME.play(b, 4, 0, 200)
    assert np.allclose(deck["win"].sum(axis=1), 1.0)
    assert deck["dismissals"].sum() < total["dismissals"].sum()  # the deck reading is the stricter one
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, seats, {"min_cards_counts": "grid"}, GAME.card_table())
    assert e.value.key == "rules.min_cards_counts" and "deck" in e.value.message
