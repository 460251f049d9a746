"""Hypothesis: for any legal rules, deck and policies, cards are never created or lost and the books balance."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat

GAME = get("art_deco")
# rules and custom need a rule list or scorer; learned a model (tests/test_learned.py)
POLICIES = [p.name for p in GAME.policies if not p.open and p.name != "learned"]

def unplayable_key(rules, players):
    """The option prepare must reject, written out independently of the engine: a deck too small for
    the deal, or no card value v with ceil(open_min_bid x v) <= v + bid_ceiling (no auction can open)."""
    if len(rules["values"]) < players * rules["hand_size"]:
        return "rules.hand_size"
    f, c = rules["open_min_bid"], rules["bid_ceiling"]
    if all(math.ceil(f * v - 1e-9) > v + c for v in rules["values"]):
        return "rules.open_min_bid"
    return None


rules_strategy = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 25),
        "hand_size": st.integers(0, 6),
        "start_player": st.sampled_from(["rotate", "last_winner"]),
        "open_min_bid": st.floats(0.0, 2.0),
        "unsold": st.sampled_from(["discard", "pile_bottom"]),
        "direct_buy_max": st.integers(0, 4),
        "direct_price_factor": st.floats(0.0, 2.0),
        "sale_price_factor": st.floats(0.0, 3.0),
        "credit_limit": st.integers(-1, 30),
        "bid_ceiling": st.integers(0, 40),
        "min_cards_to_win": st.integers(0, 8),
        "values": st.lists(st.integers(1, 20), min_size=1, max_size=60),
    }
)


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, players=st.integers(2, 4), seats=st.lists(st.sampled_from(POLICIES), min_size=4,
                                                                       max_size=4), seed=st.integers(0, 2**32))
def test_cards_conserved_and_books_balance(rules, players, seats, seed):
    unplayable = unplayable_key(rules, players)
    if unplayable:  # prepare refuses the setups no game can be played with
        with pytest.raises(BadInput) as e:
            GAME.prepare(players, [Seat(s) for s in seats[:players]], rules, GAME.card_table())
        assert e.value.key == unplayable
        return
    prep = GAME.with_checks(GAME.prepare(players, [Seat(s) for s in seats[:players]], rules, GAME.card_table()))
    out = GAME.play(prep, seed, 0, 50)
    n_cards = len(rules["values"])
    held = out["cards_held"].sum(axis=1)
    discarded = out["unsold"] if rules["unsold"] == "discard" else 0
    assert np.array_equal(held + out["pile_left"] + discarded, np.full(50, n_cards))
    assert np.array_equal(out["score"], out["held_value"] + out["sold_value"] - out["paid"])
    assert np.array_equal(out["cash"], out["sold_value"] - out["paid"])
    assert out["illegal"].sum() == 0
    if rules["credit_limit"] >= 0:
        assert out["cash"].min() >= -rules["credit_limit"]
    wins = out["win"].sum(axis=1)
    assert np.all(np.isclose(wins, 0.0) | np.isclose(wins, 1.0))
    assert np.all(out["win"][out["eligible"] == 0] == 0)
    assert (out["rounds"] <= rules["rounds"]).all()
