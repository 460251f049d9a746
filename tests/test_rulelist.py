"""The rule-list expression language: parsing, checking, and the jitted evaluator."""

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.rulelist import STACK, compile_expression, evaluate, pack

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
