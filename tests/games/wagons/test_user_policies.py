"""Circle the Wagons rules and custom policies: equal to the built-ins they reproduce, checked before any
game, and swept without recompiling."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, decide, kernel
from tests.games.wagons import scorers

CARDS = GAME.card_table()
SCORERS = "tests.games.wagons.scorers"
GMG_RULES = Seat("rules", {"rules": [{"draft": "best_gain_minus_gift"}]})
GMG_CUSTOM = Seat("custom", {"function": f"{SCORERS}:gain_minus_gift"})


def play(seats, key, n, rules=None):
    return GAME.play(GAME.prepare(2, seats, rules or {}, CARDS), key, 0, n)


def assert_same(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("key", [1, 0xC0FFEE, 77])
def test_rule_list_reproduces_the_default(key):
    # both seats, and against a different built-in, so the gift spot handed between seats is exercised
    assert_same(play([GMG_RULES, GMG_RULES], key, 60), play([Seat("gain_minus_gift")] * 2, key, 60))
    assert_same(play([Seat("gain"), GMG_RULES], key, 40), play([Seat("gain"), Seat("gain_minus_gift")], key, 40))


def test_rule_lists_reproduce_other_builtins_with_their_parameters():
    params = {"lookahead": 3, "gift_weight": 0.5, "goal_weight": 2.0, "placement": "lands"}
    rules = Seat("rules", {"rules": [{"draft": "best_gain_minus_gift"}], **params})
    assert_same(play([rules, Seat("first")], 9, 40, {"fixed_goal": 12}),
                play([Seat("gain_minus_gift", params), Seat("first")], 9, 40, {"fixed_goal": 12}))
    best_gain = Seat("rules", {"rules": [{"draft": "best_gain"}]})
    assert_same(play([best_gain, Seat("random")], 4, 40), play([Seat("gain"), Seat("random")], 4, 40))


def test_condition_on_the_picked_candidate_and_the_fallback():
    # gain > $t never holds for a huge t, so the fallback (the first card) plays the built-in first
    seat = {"rules": [{"draft": "best_gain", "if": "gain > $t and position >= 0"}], "start": "first"}
    never = Seat("rules", {**seat, "t": 1000})
    assert_same(play([never, Seat("gain")], 3, 40), play([Seat("first"), Seat("gain")], 3, 40))
    always = Seat("rules", {**seat, "t": -1000, "start": "spoil"})
    assert_same(play([always, Seat("gain")], 3, 40), play([Seat("gain"), Seat("gain")], 3, 40))


def test_custom_scorer_reproduces_the_default():
    for key in (1, 0xC0FFEE):
        assert_same(play([GMG_CUSTOM, Seat("gain")], key, 60), play([Seat("gain_minus_gift"), Seat("gain")], key, 60))
    weighted = Seat("custom", {"function": scorers.weighted, "w": 1.0})  # a function object works too
    assert_same(play([Seat("first"), weighted], 2, 40), play([Seat("first"), Seat("gain_minus_gift")], 2, 40))


def test_swept_param_changes_play_without_recompiling():
    play([GMG_RULES, Seat("gain")], 5, 2)  # compiled (or loaded) once
    play_range, batch = kernel.play_range_for(None, True), kernel.batch_kernel(None, True)  # the rules variant
    counts = (len(batch.signatures), len(play_range.signatures))
    results = []
    for t in (0.0, 3.0):
        seat = Seat("rules", {"rules": [{"draft": "last", "if": "gain - gift > $t"}, {"draft": "first"}], "t": t})
        results.append(play([seat, Seat("gain")], 5, 60)["skipped"][:, 0].sum())
    assert results[0] > results[1]  # a higher bar skips cards less often
    assert (len(batch.signatures), len(play_range.signatures)) == counts == (1, 1)


def test_every_feature_can_be_read_and_trace_works():
    cond = " + ".join(decide.FEATURES) + " > -100000"  # every feature, within a rule's 64 steps
    seat = Seat("rules", {"rules": [{"draft": "least_gift", "if": cond}], "name": "all-features"})
    prepared = GAME.prepare(2, [seat, GMG_CUSTOM], {}, CARDS)
    out = GAME.play(prepared, 8, 0, 5)
    assert out["score"].shape == (5, 2) and (out["taken"].sum(axis=1) + out["skipped"].sum(axis=1) == 15).all()
    text = GAME.trace(prepared, 8, 0)
    assert "all-features" in text and "turn 1" in text


@pytest.mark.parametrize("rules,key,words", [
    ([{"draft": "best_gain", "if": "gains > 2"}], "seats[0].params.rules[0].if", "unknown feature 'gains'"),
    ([{"draft": "card_M"}], "seats[0].params.rules[0].draft", "allowed: one of first, last, best_gain"),
    ([{"take": "first"}], "seats[0].params.rules[0].take", "unknown action 'take'"),
    ([{"draft": "first", "if": "gain > $t"}], "seats[0].params.rules[0].if", "unknown parameter $t"),
    ([{"draft": "first", "if": "(gain > 1"}], "seats[0].params.rules[0].if", "unbalanced parentheses"),
    ([{"draft": "first", "if": "gain + 1"}], "seats[0].params.rules[0].if", "is a number"),
])
def test_rule_errors_name_the_rule(rules, key, words):
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("rules", {"rules": rules, "lookahead": 3}), Seat("gain")], {}, CARDS)
    assert e.value.key == key and words in e.value.message and "\n" not in str(e.value)


def test_declared_parameters_are_checked_not_taken_for_params():
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("gain"), Seat("rules", {"rules": [{"draft": "first"}], "placement": "best"})], {}, CARDS)
    assert e.value.key == "seats[1].params.placement"


@pytest.mark.parametrize("name,words", [
    ("returns_value", "no return value"),
    ("two_args", "does not compile"),
    ("not_jitted", "not a numba function"),
    ("missing", "has no 'missing'"),
])
def test_bad_scorer_fails_before_any_game(name, words, monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(kernel, "batch_kernel", no_games)
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("gain"), Seat("custom", {"function": f"{SCORERS}:{name}"})], {}, CARDS)
    assert e.value.key == "seats[1].params.function" and words in e.value.message


def test_decision_view_is_consistent():
    checker = Seat("custom", {"function": f"{SCORERS}:checks_view"})
    out = play([checker, Seat("gain_minus_gift", {"lookahead": 3})], 6, 40)
    assert (out["skipped"][:, 0] == 0).all()  # the scorer never saw an inconsistent view


@pytest.mark.parametrize("params,expect", [
    ('{ rules = [{ draft = "best_gain", if = "gain > $t and (cards_left > 3" }], t = 1 }',
     "].params.rules[0].if: unexpected end of text (unbalanced parentheses)"),
    ('{ rules = [{ draft = "first" }, { draft = "best_gain", if = "gain > $margin" }], t = 1 }',
     "].params.rules[1].if: unknown parameter $margin (known: $t)"),
    (f'{{ function = "{SCORERS}:two_args" }}', "].params.function: two_args does not compile"),
])
def test_cli_reports_one_line_and_exit_2(tmp_path, capsys, params, expect):
    # (the runner keys a seat by its place in the first seating arrangement, not yet by the scenario's
    # seat index, so only the part after "seats[i" is checked here)
    from boardsim import cli

    policy = "custom" if "function" in params else "rules"
    path = tmp_path / "bad.toml"
    path.write_text(f'game = "wagons"\ngames = 10\n[[seats]]\npolicy = "{policy}"\nparams = {params}\n'
                    '[[seats]]\npolicy = "gain"\n')
    assert cli.main(["sweep", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {path}: ") and expect in err, err
    assert not (tmp_path / "out").exists()
