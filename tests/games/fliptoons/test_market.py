"""Spec §14.5-14.7: market, refill, hooks and multiplayer steps on constructed states (Table)."""

from __future__ import annotations

import pandas as pd
import pytest

from boardsim.games.fliptoons import GAME, Table
from boardsim.games.fliptoons.engine import _cleanup, _final_flip
from boardsim.games.fliptoons.state import (
    CRITIC,
    DEPLETED,
    END,
    END_DEPLETION,
    FIRST,
    PH_CLEANUP,
    PH_FINAL,
    PHASE,
    POL_RANDOM,
    R_ACTIONS,
    REFLIPS,
    ROUND,
    WINNER,
)


def ranked_cards() -> pd.DataFrame:
    """A table with extra rank-only cards r1, r1x, r2, r3a, r3b, r5, r9 (plain 1-fame cards)."""
    base = GAME.card_table()
    rows = []
    for name, rank in (("r1", 1), ("r1x", 1), ("r2", 2), ("r3a", 3), ("r3b", 3), ("r5", 5), ("r9", 9)):
        row = base[base["name"] == "Bee"].iloc[0].copy()
        row["name"], row["rank"], row["starter"] = name, rank, 0
        rows.append(row)
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True)


def test_case50_initial_sort():
    t = Table(2, cards=ranked_cards())
    t.set_toon(["r9", "r1", "r5", "r2", "r3a"])
    t.refill()
    assert t.market() == ["r1", "r2", "r3a", "r5", "r9"]
    assert not t.depleted


def test_case51_refill_resorts():
    t = Table(2, cards=ranked_cards())
    t.set_market(["r1", "r2", "r3a", "r5", "r9"])
    t.set_toon(["r1x"])
    t.set_fame(0, 7)
    t.hire(0, 2)
    assert t.market() == ["r1", "r2", None, "r5", "r9"]  # the slot stays empty during the turn
    t.refill()
    assert t.market() == ["r1", "r1x", "r2", "r5", "r9"]  # r2 moved from price 4 to price 7
    assert t.spendable(0) == 0


def test_case52_tie_newcomer_right():
    t = Table(2, cards=ranked_cards())
    t.set_market([None, None, "r3a", None, None])
    t.set_toon(["r3b", "r1", "r5", "r9"])
    t.refill()
    assert t.market() == ["r1", "r3a", "r3b", "r5", "r9"]


def test_case53_short_market_right_justified():
    t = Table(2, cards=ranked_cards())
    t.set_toon(["r2", "r1"])
    t.refill()
    assert t.market() == [None, None, None, "r1", "r2"]
    assert t.depleted and t.toon() == []


@pytest.mark.parametrize("left,expect_count,depleted", [(1, 4, True), (2, 5, False), (0, 3, True)])
def test_case54_decay(left, expect_count, depleted):
    t = Table(2, cards=ranked_cards())
    t.set_market(["r1", "r2", "r3a", "r5", "r9"])
    t.set_toon(["r1x", "r3b"][:left])
    t.decay()
    market = t.market()
    assert sum(m is not None for m in market) == expect_count
    assert "r1" not in market and "r9" not in market
    if left == 1:
        assert market[0] is None
    assert t.depleted == depleted


def test_depletion_option_market_empty():
    t = Table(2, cards=ranked_cards(), rules={"depletion": "market_empty"})
    t.set_toon(["r2", "r1"])
    t.refill()
    assert not t.depleted


def test_case55_horse():
    rules = {"market_prices": [3, 4, 7]}
    t = Table(2, rules=rules)
    t.set_market(["Horse", "Ostrich", "Goat"])
    t.set_toon(["Sheep", "Rabbit"])
    t.set_fame(0, 10)
    t.set_deck(0, ["Elephant", "Elephant", "Peacock"])  # a strong deck: Ostrich is junk to it
    t.C[5][t.kind["Goat"]] = 10.0  # ... and the Goat is not
    t.hire(0, 0)
    assert t.market() == ["Goat", "Sheep", "Rabbit"]
    assert t.spendable(0) == 7
    # discarding nothing still refills Horse's own slot
    t = Table(2, rules=rules)
    t.set_market(["Horse", "Ostrich", "Goat"])
    t.set_toon(["Sheep", "Rabbit"])
    t.set_fame(0, 10)
    t.set_deck(0, ["Caterpillar", "Caterpillar"])  # a weak deck keeps everything
    t.hire(0, 0)
    assert t.market() == ["Ostrich", "Goat", "Sheep"]
    assert t.toon() == ["Rabbit"]


def test_case56_peacock():
    t = Table(2, rules={"market_prices": [3]})
    t.set_market(["Peacock"])
    t.set_toon([])
    t.set_fame(0, 50, actions=1)
    t.hire(0, 0)
    assert t.spendable(0) == 49 and t.actions(0) == 1 and t.fame(0) == 50


def test_case57_butterfly():
    t = Table(2)
    t.set_market(["Butterfly", None, None, None, None])
    t.set_grid(0, {"r0c0": ["Caterpillar"], "r0c1": ["Bee"]})
    t.set_deck(0, ["Snail", "Snail", "Snail"])
    t.set_fame(0, 3)
    t.hire(0, 0)
    assert t.spendable(0) == 0
    assert t.dismissed(0) == ["Caterpillar"] and "r0c0" not in t.grid(0)
    # declined (a random-policy coin flip can decline): the Caterpillar stays
    declined = 0
    for seed in range(12):
        t = Table(2, seed=seed)
        t.set_policy(0, POL_RANDOM)
        t.set_market(["Butterfly", None, None, None, None])
        t.set_grid(0, {"r0c0": ["Caterpillar"]})
        t.set_deck(0, ["Snail", "Snail", "Snail", "Snail"])
        t.set_fame(0, 3)
        t.hire(0, 0)
        declined += t.grid(0).get("r0c0") == ["Caterpillar"]
    assert 0 < declined < 12


def test_case58_dismiss_costs_and_refusals():
    t = Table(2)
    t.set_grid(0, {"r0c0": ["Caterpillar"], "r0c1": ["Cat"], "r0c2": ["Tiger"], "r1c0": ["Snail(fd)"],
                   "r1c1": ["Bee"]})
    t.set_deck(0, ["Snail", "Snail"])
    t.set_fame(0, 8)
    assert not t.can_dismiss(0, "Cat") and not t.can_dismiss(0, "Tiger")
    assert not t.can_dismiss(0, "Snail(fd)")
    t.dismiss(0, "Caterpillar")
    assert t.spendable(0) == 5
    t.dismiss(0, "Bee")
    assert t.spendable(0) == 0 and sorted(t.dismissed(0)) == ["Bee", "Caterpillar"]


def test_min_cards_after_dismiss():
    t = Table(2)
    t.set_grid(0, {"r0c0": ["Caterpillar"], "r0c1": ["Bee"], "r0c2": ["Snail"], "r1c0": ["Bee"]})
    t.set_fame(0, 10)
    assert not t.can_dismiss(0, "Caterpillar")  # 4 cards in total: dismissing leaves 3
    t = Table(2, rules={"min_cards_after_dismiss": 0})
    t.set_grid(0, {"r0c0": ["Caterpillar"]})
    t.set_fame(0, 10)
    assert t.can_dismiss(0, "Caterpillar")


def test_case59_donkey():
    t = Table(2)
    t.set_grid(0, {"r1c0": ["Donkey"], "r0c0": ["Bee"]})
    t.set_deck(0, ["Snail"] * 5)
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == ["Donkey"]
    t = Table(2)
    t.set_grid(0, {"r0c0": ["Donkey"]})
    t.set_deck(0, ["Snail"] * 5)
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == []


@pytest.mark.parametrize("grid,expect", [
    ({"r0c0": ["Alligator"], "r0c1": ["Bee"]}, ["Bee"]),
    ({"r0c2": ["Alligator"], "r1c0": ["Bee"]}, []),
    ({"r0c0": ["Alligator"], "r0c1": ["Cat"]}, []),
    ({"r0c0": ["Alligator"], "r0c1": ["Bee", "Sheep(fd)"]}, ["Bee"]),
    ({"r0c0": ["Alligator"], "r0c1": ["Bee", "Cat"]}, ["Bee"]),
])
def test_case60_alligator(grid, expect):
    t = Table(2)
    t.set_grid(0, grid)
    t.set_deck(0, ["Snail"] * 5)
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == expect


def test_case60_alligator_owner_chooses_in_stack():
    t = Table(2)
    t.set_grid(0, {"r0c0": ["Alligator"], "r0c1": ["Bee", "Sheep"]})
    t.set_deck(0, ["Snail"] * 5)
    t.end_of_turn_hooks(0)
    assert t.dismissed(0) == ["Bee"]  # the lower-value card
    assert t.grid(0)["r0c1"] == ["Sheep"]


@pytest.mark.parametrize("fames,who", [([9, 2, 7], 1), ([2, 2, 7], None)])
def test_case61_least_fame_hook(fames, who):
    t = Table(3)
    for p in range(3):
        t.set_grid(p, {"r0c0": ["Skunk"], "r0c1": ["Snail"]})
        t.set_deck(p, ["Bee"] * 4)
        t.set_fame(p, fames[p])
    t.least_fame_hook()
    for p in range(3):
        assert t.dismissed(p) == (["Skunk"] if p == who else [])
        assert t.spendable(p) == fames[p] and t.actions(p) == 2


def test_skunk_must_be_face_up():
    t = Table(2)
    for p in range(2):
        t.set_grid(p, {"r0c0": ["Skunk(fd)"], "r0c1": ["Caterpillar"]})
        t.set_deck(p, ["Bee"] * 4)
    t.set_fame(0, 1)
    t.set_fame(1, 5)
    t.least_fame_hook()
    assert t.dismissed(0) == []


def test_case62_63_cleanup_and_final_flip():
    """Cleanup triggers and the Final Flip run inside whole games; see test_games for invariants."""
    t = Table(2, rules={"first_player": "seat0"})
    # p0: 6 Caterpillars + Critic's Choice; p1: 4 Caterpillars + Snail + Bee; tied at 3 forever
    t.set_deck(0, ["Caterpillar"] * 6)
    t.set_deck(1, ["Caterpillar"] * 4 + ["Snail", "Bee"])
    sh, pv = t.S[3], t.S[1]
    sh[CRITIC] = 0
    sh[PHASE] = PH_FINAL
    _final_flip(t.S, t.C, t.O, t.rng, None)
    assert sh[REFLIPS] == 100
    assert pv[0, WINNER] == 1 and pv[1, WINNER] == 1
    t = Table(2)
    t.set_deck(0, ["Caterpillar"] * 6)
    t.set_deck(1, ["Caterpillar"] * 4 + ["Snail", "Bee"])
    t.S[3][PHASE] = PH_FINAL
    _final_flip(t.S, t.C, t.O, t.rng, None)
    assert t.S[3][REFLIPS] == 0 and t.S[1][1, WINNER] == 1 and t.S[1][0, WINNER] == 0


@pytest.mark.parametrize("fames,critic,trigger", [
    ([30, 12], 0, True), ([29, 12], -1, False), ([34, 30, 12], 0, True), ([30, 34], 1, True),
    ([33, 33, 8], -1, True),
])
def test_case62_triggers_and_critic(fames, critic, trigger):
    t = Table(len(fames))
    for p, f in enumerate(fames):
        t.set_fame(p, f)
        t.set_deck(p, ["Bee"] * 6)
    sh = t.S[3]
    sh[ROUND] = 1
    sh[PHASE] = PH_CLEANUP
    _cleanup(t.S, t.C, t.O, t.rng)
    assert sh[CRITIC] == critic
    assert (sh[PHASE] == PH_FINAL) == trigger
    if not trigger:
        assert sh[FIRST] == 1 and sh[ROUND] == 1


def test_case62_depletion_only_no_critic():
    t = Table(3)
    for p in range(3):
        t.set_fame(p, 4)
        t.set_deck(p, ["Bee"] * 6)
    sh = t.S[3]
    sh[DEPLETED] = 1
    sh[PHASE] = PH_CLEANUP
    _cleanup(t.S, t.C, t.O, t.rng)
    assert sh[PHASE] == PH_FINAL and sh[CRITIC] == -1 and sh[END] == END_DEPLETION


def test_case64_decay_uses_the_toon_deck_only_at_two_players():
    from boardsim.games.base import Seat

    table = GAME.card_table()
    rules = {"max_rounds": 8, "final_flip": False}

    def no_actions(players):
        # a game where nobody hires, so the toon deck moves only by decay: the option refuses 0 actions (no
        # one could ever hire), so the prepared rule vector is set by hand
        prep = GAME.prepare(players, [Seat("fame_per_cost")] * players, rules, table)
        prep["rules"][R_ACTIONS] = 0
        return prep

    r = GAME.play(no_actions(3), 5, 0, 20)
    assert (r["toon_left"] == 53 - 5).all()  # nobody hires, no decay: the toon deck is untouched
    r = GAME.play(no_actions(2), 5, 0, 20)
    assert (r["toon_left"] == 53 - 5 - 2 * r["rounds"]).all()  # exactly two toon cards per round
