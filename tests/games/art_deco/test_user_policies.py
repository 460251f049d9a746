"""Rule-list and custom policies: equivalent ones play exactly like the built-ins, errors are one line."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim import cli
from boardsim.errors import BadInput
from boardsim.games.art_deco import GAME, kernel
from boardsim.games.base import Seat

SCORERS = "tests.games.art_deco.scorers"
SALE = {"sell": "best_gain", "if": "gain >= $margin and cards_held > min_cards"}  # par's sale rule
PAR_RULES = [{"bid_up_to": "value"}, {"buy_up_to": "value"}, SALE]
ELIGIBILITY_RULES = [
    {"bid_up_to": "value * $hard", "if": "cards_held < $target"},
    {"bid_up_to": "value"},
    {"buy_up_to": "value * $hard", "if": "cards_held < $target"},
    {"buy_up_to": "value"},
    SALE,
]
# the blocker reads a feature that changes during an auction: who holds the high bid
BLOCKER_RULES = [
    {"bid_up_to": "value + $cap", "if": "leader_is_high == 1"},
    {"bid_up_to": "value * $m"},
    {"buy_up_to": "value * $m"},
    SALE,
]
# seller-friendly rules so that sales happen, and a credit limit so that spending is bounded
RULE_SETS = ({}, {"sale_price_factor": 1.3, "credit_limit": 12}, {"start_player": "last_winner", "open_min_bid": 0.5})


def play(seats, rules=None, key=11, n=1500):
    prep = GAME.prepare(len(seats), seats, rules or {}, GAME.card_table())
    return GAME.play(prep, key, 0, n)


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


# the built-in, its rule list and its scorer, with parameters that differ from the defaults
EQUIVALENTS = {
    "par": (Seat("par", {"sell_margin": 1}), Seat("rules", {"rules": PAR_RULES, "margin": 1}),
            Seat("custom", {"function": f"{SCORERS}:par"})),
    "eligibility": (Seat("eligibility", {"hard": 1.7, "target": 6}),
                    Seat("rules", {"rules": ELIGIBILITY_RULES, "hard": 1.7, "target": 6, "margin": 1}),
                    Seat("custom", {"function": f"{SCORERS}:eligibility", "hard": 1.7, "target": 6})),
}


@pytest.mark.parametrize("name", sorted(EQUIVALENTS))
@pytest.mark.parametrize("players", [2, 4])
def test_equivalent_rules_and_scorer_give_identical_results(name, players):
    builtin, rules, scorer = EQUIVALENTS[name]
    others = [Seat("eligibility"), Seat("blocker", {"sell_margin": 0}), Seat("random", {"sell_prob": 0.5})]
    for r, game_rules in enumerate(RULE_SETS):
        for key in (3, 4):
            # the seat under test sits at a different place each time
            at = (key + r) % players
            table = others[: players - 1]
            want = play(table[:at] + [builtin] + table[at:], game_rules, key)
            if "sale_price_factor" in game_rules:  # the sale rule is exercised, not only the bids
                assert want["cards_sold"][:, at].sum() > 0
            assert_same(play(table[:at] + [rules] + table[at:], game_rules, key), want)
            assert_same(play(table[:at] + [scorer] + table[at:], game_rules, key), want)


def test_every_seat_a_rule_list_matches_the_default_table():
    seats = [Seat("rules", {"rules": ELIGIBILITY_RULES, "hard": 1.6, "target": 5, "margin": 1})] * 4
    assert_same(play(seats, key=5, n=3000), play([Seat("eligibility")] * 4, key=5, n=3000))


def test_interpreted_rules_match_tabled_ones():
    # reading the high bid, cash or the round sends a rule list to the per-decision interpreter instead of
    # the tables worked out before play (decide.rule_tables); the answers must be the same
    interpreted = [
        {"bid_up_to": "value * $hard", "if": "cards_held < $target and high_bid >= 0"},
        {"bid_up_to": "value", "if": "round >= 1"},
        {"buy_up_to": "value * $hard", "if": "cards_held < $target and cash > -1000000"},
        {"buy_up_to": "value"},
        {"sell": "best_gain", "if": "gain >= $margin and cards_held > min_cards and round > 0"},
    ]
    seat = Seat("rules", {"rules": interpreted, "hard": 1.7, "target": 6, "margin": 1})
    builtin = Seat("eligibility", {"hard": 1.7, "target": 6})
    for game_rules in RULE_SETS:
        table = [Seat("blocker"), Seat("random")]
        assert_same(play([seat] + table, game_rules, key=9), play([builtin] + table, game_rules, key=9))


def test_blocker_rules_read_the_high_bidder_at_each_turn():
    blocker = Seat("blocker", {"multiple": 1.1, "cap": 6})
    rules = Seat("rules", {"rules": BLOCKER_RULES, "m": 1.1, "cap": 6, "margin": 1})
    for players in (2, 3):
        table = [Seat("multiple", {"multiple": 1.3})] * (players - 1)
        want = play([blocker] + table, key=8)
        assert want["overbid"][:, 0].sum() > 0
        assert_same(play([rules] + table, key=8), want)


def test_flags_and_sell_targets():
    base = [Seat("eligibility")] * 2
    never = play([Seat("rules", {"rules": [{"pass": True}, {"bid_up_to": "value"}]})] + base)
    assert never["auctions_won"][:, 0].sum() == 0
    # decline stops buying until the seat holds 6 cards
    picky = play([Seat("rules", {"rules": [{"bid_up_to": "value"}, {"decline": True, "if": "cards_held < 6"},
                                           {"buy_up_to": "value"}]})] + base)
    assert picky["direct_buys"][:, 0].sum() > 0
    assert picky["direct_buys"][:, 0].sum() < play([Seat("par")] + base)["direct_buys"][:, 0].sum()
    # in round 2 sell one card: the highest-valued sellable one, or the lowest; keep stops it
    sold = {}
    for target in ("highest_value", "lowest_value", "best_gain", "oldest"):
        out = play([Seat("rules", {"rules": [{"bid_up_to": "value"}, {"sell": target, "if": "round == 2"}]})] + base)
        assert (out["cards_sold"][:, 0] == 1).all()
        sold[target] = out["sold_value"][:, 0].mean()
    assert sold["highest_value"] > sold["oldest"] > sold["lowest_value"]
    kept = play([Seat("rules", {"rules": [{"keep": True}, {"sell": "oldest", "if": "round == 2"}]})] + base)
    assert kept["cards_sold"][:, 0].sum() == 0


def test_a_swept_param_changes_play_without_recompiling():
    seat = [{"bid_up_to": "value * $t"}, {"buy_up_to": "value"}]
    play([Seat("rules", {"rules": seat, "t": 1.0}), Seat("par")])
    compiled = len(kernel._play_range.signatures)
    low = play([Seat("rules", {"rules": seat, "t": 1.0}), Seat("par")])
    high = play([Seat("rules", {"rules": seat, "t": 1.5}), Seat("par")])
    other = play([Seat("rules", {"rules": [{"bid_up_to": "value + $t", "if": "cards_needed > 0"}], "t": 2}),
                  Seat("par")])
    assert high["overbid"][:, 0].mean() > low["overbid"][:, 0].mean()
    assert other["overbid"][:, 0].sum() > 0
    assert len(kernel._play_range.signatures) == compiled
    # a rule list read at each decision (it reads the round) runs in the engine's other signature
    asked = [{"bid_up_to": "value * $t", "if": "round > 0"}]
    play([Seat("rules", {"rules": asked, "t": 1.0}), Seat("par")])
    compiled = len(kernel._play_range.signatures)
    assert not np.array_equal(play([Seat("rules", {"rules": asked, "t": 1.5}), Seat("par")])["overbid"],
                              play([Seat("rules", {"rules": asked, "t": 1.0}), Seat("par")])["overbid"])
    assert len(kernel._play_range.signatures) == compiled <= 2


@pytest.mark.parametrize(("rules", "key", "words"), [
    ([{"bid_up_to": "value", "if": "cards > 3"}], "seats[1].params.rules[0].if", "unknown feature 'cards'"),
    ([{"bid_up_to": "value"}, {"sell": "v12"}], "seats[1].params.rules[1].sell", "best_gain, lowest_value"),
    ([{"bid_up_to": "value"}, {"bid": "value"}], "seats[1].params.rules[1].bid", "unknown action 'bid'"),
    ([{"bid_up_to": "value * $hard"}], "seats[1].params.rules[0].bid_up_to", "unknown parameter $hard"),
    ([{"buy_up_to": "value > 3"}], "seats[1].params.rules[0].buy_up_to", "is a truth value"),
    ([{"pass": True, "if": "(round < 3"}], "seats[1].params.rules[0].if", "unbalanced parentheses"),
])
def test_rule_errors_name_the_rule(rules, key, words):
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("par"), Seat("rules", {"rules": rules})], {}, GAME.card_table())
    assert e.value.key == key
    assert words in str(e.value)


@pytest.mark.parametrize(("function", "words"), [
    (f"{SCORERS}:wrong_arity", "does not compile"),
    (f"{SCORERS}:returns_a_score", "returns float64"),
    (f"{SCORERS}:no_such", "has no 'no_such'"),
])
def test_a_bad_scorer_is_rejected_before_any_game(function, words):
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("par"), Seat("custom", {"function": function})], {}, GAME.card_table())
    assert e.value.key == "seats[1].params.function"
    assert words in str(e.value)


def test_scenario_errors_are_one_cli_line(tmp_path, capsys):
    cases = (("rules", 'rules = [{ bid_up_to = "value", if = "pile >= $t" }]', "seats[0].params.rules[0].if"),
             ("custom", f'function = "{SCORERS}:wrong_arity"', "seats[0].params.function"))
    for policy, params, key in cases:
        path = tmp_path / "s.toml"
        seat = f'[[seats]]\npolicy = "{policy}"\nparams = {{ {params} }}\n'
        path.write_text(f'game = "art_deco"\nplayers = 2\n{seat}{seat}')
        assert cli.main(["sweep", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"error: {path}: {key}: "), err


def test_traces_show_rule_and_scorer_seats():
    seats = [Seat("rules", {"rules": PAR_RULES, "margin": 1, "name": "my_par"}),
             Seat("custom", {"function": f"{SCORERS}:par"})]
    prep = GAME.prepare(2, seats, {"sale_price_factor": 1.5}, GAME.card_table())
    text = GAME.trace(prep, 3, 0)
    assert "P0 my_par" in text and "custom(function=par)" in text
    assert "P0 bids" in text and "P1 bids" in text and " sells " in text
