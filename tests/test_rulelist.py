"""The rule-list expression language: parsing, checking, and the jitted evaluator."""

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.rulelist import (
    MAX_PARAMS,
    STACK,
    Action,
    amount,
    compile_expression,
    compile_rules,
    condition,
    evaluate,
    pack,
    pack_seats,
    rule_params,
)

FEATURES = ["value", "cards_held", "cash", "round"]
PARAMS = {"hard": 1.6, "target": 5.0}


def run(text, features, params=(1.6, 5.0)):
    code = compile_expression(text, FEATURES, PARAMS, "k")
    ops, args = pack([code])
    return evaluate(ops, args, 0, np.asarray(features, dtype=float), np.asarray(params, dtype=float),
                    np.empty(STACK)), code.boolean


@pytest.mark.parametrize("text, expected, boolean", [
    ("value * $hard", 16.0, False),
    ("value - -cash / 2", 8.0, False),
    ("2 + 3 * 4 - 6 / 3", 12.0, False),
    ("(2 + 3) * 4", 20.0, False),
    ("cards_held < $target and not (cash < -10)", 1.0, True),
    ("round >= 9 or value == 10", 1.0, True),
    ("round >= 9 or value != 10", 0.0, True),
    ("not cards_held <= 2", 1.0, True),
    ("value / 0", 0.0, False),  # division by zero is defined as 0, never a crash in a game
])
def test_expressions_evaluate_like_python(text, expected, boolean):
    value, is_bool = run(text, [10, 3, -4, 2])
    assert value == expected and is_bool == boolean


def test_always_true_rule_and_several_rows():
    ops, args = pack([None, compile_expression("value > 20", FEATURES, PARAMS, "k")])
    f, p, stack = np.array([10.0, 0, 0, 0]), np.zeros(2), np.empty(STACK)
    assert evaluate(ops, args, 0, f, p, stack) == 1.0 and evaluate(ops, args, 1, f, p, stack) == 0.0


@pytest.mark.parametrize("text, message", [
    ("valu + 1", "unknown feature 'valu' (known: value, cards_held, cash, round)"),
    ("value * $h", "unknown parameter $h (known: $hard, $target)"),
    ("(value + 1", "unbalanced parentheses"),
    ("value + 1)", "unbalanced parentheses"),
    ("value <", "a missing operand"),
    ("value and cash", "'and' needs a truth value on each side, got a number"),
    ("not value", "'not' needs a truth value"),
    ("(value < 2) + 1", "'+' needs a number on each side, got a truth value"),
    ("value @ 2", "unexpected character '@'"),
    ("", "allowed: an expression"),
])
def test_every_grammar_error_is_one_clear_bad_input(text, message):
    with pytest.raises(BadInput) as e:
        compile_expression(text, FEATURES, PARAMS, "seats[0].params.rules[2].if")
    assert e.value.key == "seats[0].params.rules[2].if" and message in e.value.message
    assert "\n" not in e.value.message


def test_never_evaluates_python():
    with pytest.raises(BadInput):
        compile_expression("__import__('os')", FEATURES, PARAMS, "k")


# -- rule lists ----------------------------------------------------------------------------------------
ACTIONS = [Action("hire", "target", "hire a card", ("Tiger", "best_gain")),
           Action("bid_up_to", "amount", "reservation price"),
           Action("pass", "flag", "do nothing")]


def rules(items, params=None):
    return compile_rules(items, ACTIONS, FEATURES, params or PARAMS, "seats[0].params.rules")


def test_rule_list_compiles_actions_targets_and_amounts():
    out = rules([{"hire": "Tiger", "if": "round <= 8"}, {"bid_up_to": "value * $hard"}, {"pass": True}])
    assert [(r.action, r.target) for r in out] == [(0, 0), (1, -1), (2, -1)]
    assert out[0].cond.boolean and out[1].cond is None and not out[1].amount.boolean


@pytest.mark.parametrize("items, key, message", [
    ([{"hire": "Lion"}], "seats[0].params.rules[0].hire", "got 'Lion'; allowed: one of Tiger, best_gain"),
    ([{"buy": "Tiger"}], "seats[0].params.rules[0].buy", "unknown action 'buy'"),
    ([{"if": "round < 2"}], "seats[0].params.rules[0]", "got 0 actions"),
    ([{"hire": "Tiger", "pass": True}], "seats[0].params.rules[0]", "got 2 actions"),
    ([{"pass": True, "if": "round"}], "seats[0].params.rules[0].if", "is a number"),
    ([{"bid_up_to": "value > 2"}], "seats[0].params.rules[0].bid_up_to", "is a truth value"),
    ([{"pass": "yes"}], "seats[0].params.rules[0].pass", "allowed: true"),
    ([{"hire": "Tiger"}, {"pass": True, "if": "fame > 3"}], "seats[0].params.rules[1].if", "unknown feature 'fame'"),
    ([{"bid_up_to": "value * $soft"}], "seats[0].params.rules[0].bid_up_to", "unknown parameter $soft"),
    ([], "seats[0].params.rules", "allowed: a list of rules"),
    (["hire Tiger"], "seats[0].params.rules[0]", "allowed: a table with one action"),
])
def test_every_rule_list_error_is_one_line_with_its_key(items, key, message):
    with pytest.raises(BadInput) as e:
        rules(items)
    assert e.value.key == key and message in e.value.message and "\n" not in e.value.message


def test_seats_pack_into_spans_and_param_rows():
    a = rules([{"hire": "Tiger", "if": "cash >= $target"}, {"pass": True}])
    b = rules([{"bid_up_to": "value * $hard"}])
    rl = pack_seats([a, None, b], [{"hard": 1.6, "target": 5.0}, None, {"hard": 2.0, "target": 0.0}])
    assert rl.span.tolist() == [[0, 2], [2, 2], [2, 3]]
    assert rl.meta.tolist() == [[0, 0], [2, -1], [1, -1]]
    assert rl.params[2, :2].tolist() == [2.0, 0.0] and rl.params.shape == (3, MAX_PARAMS)
    f, stack = np.array([10.0, 3.0, 4.0, 1.0]), np.empty(STACK)
    assert not condition(rl, 0, f, 0, stack)  # cash 4 < target 5
    assert condition(rl, 0, f, 2, stack)  # the third seat's target is 0
    assert condition(rl, 1, f, 0, stack)  # no condition: always holds
    assert amount(rl, 2, f, 2, stack) == 20.0


def test_no_rules_still_packs_fixed_shapes():
    rl = pack_seats([None, None], [None, None])
    assert rl.ops.shape[0] == 2 and rl.meta.shape == (1, 2) and rl.span.tolist() == [[0, 0], [0, 0]]


def test_dollar_params_are_the_seats_other_numbers_sorted():
    assert list(rule_params({"rules": [], "name": "x", "t": 7, "a": 1})) == ["a", "t"]


def test_declared_options_of_an_open_policy_are_not_dollar_params():
    assert list(rule_params({"rules": [], "placement": "greedy", "t": 7}, ["placement"])) == ["t"]
