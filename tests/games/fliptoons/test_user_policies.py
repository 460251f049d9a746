"""The rules and custom policies (issue 16): built-in equivalents give identical games, errors name their key."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME, decide
from boardsim.games.fliptoons.kernel import _play_range, play_batch

# fame_per_cost with its default parameters, as rules: its junk dismissal when it beats its hire, else its hire
FPC_RULES = [
    {"dismiss": "lowest_value", "if": "value <= 0.5 and gain > 0 and gain_per_cost > hire_gain_per_cost"},
    {"hire": "best_gain_per_cost"},
]
ORDER = ["Tiger", "Elephant", "Rabbit", "Cow", "Peacock"]
FPC_SCORER = "tests.games.fliptoons.scorers:fame_per_cost"


def play(seats, players, key, n=120, rules=None):
    prep = GAME.prepare(players, [seats[i % len(seats)] for i in range(players)], rules, GAME.card_table())
    return GAME.play(prep, key, 0, n)


def assert_same(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("key", [5, 77])
def test_rules_equal_fame_per_cost(players, key):
    builtin = play([Seat("fame_per_cost"), Seat("random")], players, key)
    rules = play([Seat("rules", {"rules": FPC_RULES}), Seat("random")], players, key)
    assert_same(builtin, rules)
    assert builtin["hires"][:, 0].sum() > 0 and builtin["dismissals"][:, 0].sum() > 0


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("key", [1, 9])
def test_rules_equal_priority(players, key):
    hires = [{"hire": card} for card in ORDER]
    fallback = play([Seat("priority", {"order": ORDER}), Seat("fame_per_cost")], players, key)
    assert_same(fallback, play([Seat("rules", {"rules": hires + FPC_RULES}), Seat("fame_per_cost")], players, key))
    none = play([Seat("priority", {"order": ORDER, "fallback": "none"}), Seat("fame_per_cost")], players, key)
    assert_same(none, play([Seat("rules", {"rules": hires}), Seat("fame_per_cost")], players, key))
    assert not np.array_equal(fallback["hires"], none["hires"])


def test_rules_equal_highest_rank():
    assert_same(play([Seat("highest_rank"), Seat("fame_per_cost")], 3, 4),
                play([Seat("rules", {"rules": [{"hire": "highest_rank"}]}), Seat("fame_per_cost")], 3, 4))


@pytest.mark.parametrize("players", [2, 4])
def test_custom_scorer_equals_fame_per_cost(players):
    builtin = play([Seat("fame_per_cost"), Seat("highest_rank")], players, 31)
    custom = play([Seat("custom", {"function": FPC_SCORER}), Seat("highest_rank")], players, 31)
    assert_same(builtin, custom)


def test_rules_and_custom_seats_together_and_in_a_trace():
    seats = [Seat("rules", {"rules": FPC_RULES}), Seat("custom", {"function": FPC_SCORER})]
    assert_same(play(seats, 2, 8), play([Seat("fame_per_cost")] * 2, 2, 8))
    prep = GAME.prepare(2, seats, None, GAME.card_table())
    text = GAME.trace(prep, 8, 3)
    assert "hires" in text and "== End:" in text
    fpc = GAME.trace(GAME.prepare(2, [Seat("fame_per_cost")] * 2, None, GAME.card_table()), 8, 3)
    assert text.splitlines()[1:] == fpc.splitlines()[1:]  # the same game; only the seat labels differ


def test_conditions_read_features_counts_and_candidates():
    # no Snake, so a Rabbit only arrives by a hire: owning at most two needs count_Rabbit to be right
    table = GAME.card_table({"Snake": {"copies": 0}})
    rabbit = table["name"].tolist().index("Rabbit")

    def owned(rules):
        prep = GAME.prepare(2, [Seat("rules", {"rules": rules}), Seat("fame_per_cost")], None, table)
        return GAME.play(prep, 3, 0, 150)["owned"][:, 0, rabbit]

    assert owned([{"hire": "Rabbit"}]).max() > 2
    capped = owned([{"hire": "Rabbit", "if": "count_Rabbit < 2 and copies_left >= 0 and price <= spend"}])
    assert capped.max() == 2
    # nothing hired before round 3; candidates' gain, standings and a $param in one condition
    rules = [{"pass": True, "if": "round < 3"},
             {"hire": "cheapest", "if": "gain > $g and fame_rank >= 1 and leader_fame >= fame"}]
    prep = GAME.prepare(2, [Seat("rules", {"rules": rules, "g": 0.0}), Seat("fame_per_cost")], None, table)
    text = GAME.trace(prep, 3, 0)
    assert "P0 hires" not in text[: text.index("== Round 3")] and "P0 hires" in text


def test_a_swept_param_changes_games_without_compiling():
    def run(g):
        seats = [Seat("rules", {"rules": [{"hire": "cheapest", "if": "gain > $g"}], "g": g}), Seat("fame_per_cost")]
        return play(seats, 2, 12, n=150)

    low = run(-5.0)
    kernels = (len(play_batch.signatures), len(_play_range.signatures))
    high = run(1.0)
    assert (len(play_batch.signatures), len(_play_range.signatures)) == kernels == (1, 1)
    assert low["hires"][:, 0].sum() > high["hires"][:, 0].sum()
    c0 = play([Seat("custom", {"function": "tests.games.fliptoons.scorers:cheapest_with", "t": -5.0}),
               Seat("fame_per_cost")], 2, 12, n=150)
    c1 = play([Seat("custom", {"function": "tests.games.fliptoons.scorers:cheapest_with", "t": 1.0}),
               Seat("fame_per_cost")], 2, 12, n=150)
    assert (len(play_batch.signatures), len(_play_range.signatures)) == (1, 1)
    assert c0["hires"][:, 0].sum() > c1["hires"][:, 0].sum()
    assert_same(c0, low)  # the same strategy as rules and as a scorer


@pytest.mark.parametrize("rule, key, words", [
    ({"hire": "Tiger", "if": "fam >= 3"}, "seats[0].params.rules[1].if", "unknown feature 'fam'"),
    ({"hire": "Tigger"}, "seats[0].params.rules[1].hire", "got 'Tigger'; allowed: one of"),
    ({"dismiss": "best_gain"}, "seats[0].params.rules[1].dismiss", "got 'best_gain'"),
    ({"buy": "Tiger"}, "seats[0].params.rules[1].buy", "unknown action 'buy'"),
    ({"hire": "Tiger", "if": "spend >= $t"}, "seats[0].params.rules[1].if", "unknown parameter $t"),
    ({"hire": "Tiger", "if": "(spend >= 3"}, "seats[0].params.rules[1].if", "unbalanced parentheses"),
    ({"hire": "Tiger", "if": "spend + 3"}, "seats[0].params.rules[1].if", "is a number"),
    ({"pass": 1}, "seats[0].params.rules[1].pass", "allowed: true"),
])
def test_rule_errors_name_their_key(rule, key, words):
    seats = [Seat("rules", {"rules": [{"pass": True, "if": "round > 50"}, rule]}), Seat("fame_per_cost")]
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, seats, None, GAME.card_table())
    assert e.value.key == key and words in str(e.value) and "\n" not in str(e.value)


def test_rule_error_through_the_cli_is_one_line_exit_2(tmp_path, capsys):
    from boardsim import cli

    path = tmp_path / "s.toml"
    # seating fixed: under a rotating design the key names the seat of the arrangement that failed
    path.write_text('game = "fliptoons"\nseating = "fixed"\n[[seats]]\npolicy = "rules"\n'
                    'params = { rules = [{ hire = "Tiger", if = "fame >= $t" }] }\n'
                    '[[seats]]\npolicy = "fame_per_cost"\n')
    code = cli.main(["sweep", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "seats[0].params.rules[0].if" in err and "unknown parameter $t" in err


@pytest.mark.parametrize("function, words", [
    ("tests.games.fliptoons.scorers:wrong_arity", "does not compile"),
    ("tests.games.fliptoons.scorers:not_numba", "not a numba function"),
    ("tests.games.fliptoons.scorers:missing", "has no 'missing'"),
])
def test_bad_scorer_fails_before_any_game(function, words):
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("fame_per_cost"), Seat("custom", {"function": function})], None, GAME.card_table())
    assert e.value.key == "seats[1].params.function" and words in str(e.value)


def test_the_decision_view_is_named_for_the_cards():
    names = GAME.card_table()["name"].tolist()
    features = decide.decision_features(names)
    assert features[: len(decide.DECISION_FEATURES)] == decide.DECISION_FEATURES
    assert "count_Elephant" in features and features[-len(decide.CANDIDATE_COLUMNS) + 1:] == \
        decide.CANDIDATE_COLUMNS[1:]
    assert len(set(features)) == len(features)
    hire = decide.rule_actions(names)[0]
    assert "best_gain_per_cost" in hire.targets and "Tiger" in hire.targets
