"""Hypothesis property tests: random decks through flip(), random grids through score_grid(), random tables."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME, flip, score_grid
from boardsim.games.fliptoons.state import MAXX

NAMES = [n for n in GAME.card_table()["name"] if n != "Axolotl"]
BASE = ("r0c0", "r0c1", "r0c2", "r1c0", "r1c1", "r1c2")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def flat(grid):
    return [c for stack in grid.values() for c in stack]


@FAST
@given(deck=st.lists(st.sampled_from(NAMES), min_size=0, max_size=20),
       toon=st.lists(st.sampled_from(NAMES), min_size=0, max_size=4))
def test_flip_conserves_cards_and_fills_slots(deck, toon):
    if deck.count("Monkey") > MAXX:
        with pytest.raises(BadInput):
            flip(deck, toon)
        return
    r = flip(deck, toon)
    placed = [c.removesuffix("(fd)") for c in flat(r.grid)]
    # every card is in the grid, the dismissed pile, the deck left or the toon deck
    assert (Counter(placed) + Counter(r.dismissed) + Counter(r.deck) + Counter(r.toon_deck)
            == Counter(deck) + Counter(toon))
    assert "Pig" not in r.dismissed  # a dismissed Pig goes into a deck (solo: the toon deck)
    if "Pig" not in deck:  # only a Pig the Snake dismissed goes into (and shuffles) the toon deck
        drawn_from_toon = len(toon) - len(r.toon_deck)
        assert r.toon_deck == toon[drawn_from_toon:]
    base = [s for s in r.grid if s.startswith("r")]
    assert len(base) <= 6
    if r.deck:
        assert len(base) == 6  # cards are left only when the base grid is full
    # the cards left are the bottom of the deck in order (Snake may have sent one card to the bottom)
    assert all(stack for stack in r.grid.values())


@FAST
@given(deck=st.lists(st.sampled_from(NAMES), min_size=1, max_size=14),
       market=st.lists(st.sampled_from(NAMES), max_size=5),
       pile=st.lists(st.sampled_from(NAMES), max_size=6))
def test_score_equals_sum_of_lines(deck, market, pile):
    grid = flip(deck).grid
    r = score_grid(grid, market=market, dismissed=pile)
    assert r.total == sum(f for _, _, f in r.lines)
    faceup = [c for c in flat(grid) if not c.endswith("(fd)")]
    assert len(r.lines) == len(faceup)
    # Check Fame depends on the grid, not on the order the slots are listed
    again = score_grid(dict(reversed(list(grid.items()))), market=market, dismissed=pile)
    assert sorted(again.lines) == sorted(r.lines)


@FAST
@given(names=st.lists(st.sampled_from(NAMES), min_size=6, max_size=6))
def test_face_down_cards_score_nothing(names):
    grid = {s: [n] for s, n in zip(BASE, names, strict=True)}
    down = {s: [n + "(fd)"] for s, n in zip(BASE, names, strict=True)}
    assert score_grid(down).total == 0
    # turning one card face-down never raises the fame of the cards that stay face-up, except Bull
    if "Bull" not in names and "Cow" not in names and "Pig" not in names:
        one_down = dict(grid)
        one_down["r0c0"] = [names[0] + "(fd)"]
        a = {s: f for s, _, f in score_grid(grid).lines}
        b = {s: f for s, _, f in score_grid(one_down).lines}
        for s in b:
            if names[BASE.index(s)] not in ("Deer",):
                assert b[s] <= a[s] or names[BASE.index(s)] in ("Lion",)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.dictionaries(
    st.sampled_from(NAMES),
    st.fixed_dictionaries({"fame": st.integers(-3, 12), "copies": st.integers(0, 4)}),
    max_size=6),
    players=st.integers(1, 4))
def test_random_card_tables_play_valid_games(edits, players):
    table = GAME.card_table(edits)
    starters = table[table["starter"] == 1]
    if (starters["solo_copies" if players == 1 else "copies"] == 0).all():
        return
    seats = [Seat(("fame_per_cost", "random")[i % 2]) for i in range(players)]
    prep = GAME.prepare(players, seats, None, table)
    r = GAME.play(prep, 21, 0, 12)
    shares = r["win"].sum(axis=1)
    assert np.all((shares == 0) | np.isclose(shares, 1.0))
    assert (r["owned"].sum(axis=2) == r["deck_size"]).all()
    assert (r["rounds"] >= 1).all()
