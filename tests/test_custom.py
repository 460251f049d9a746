"""Custom scorers: loading by path, the signature check, and calls through the function-pointer tuple."""

import numpy as np
import pytest
from numba import njit, types

from boardsim import custom
from boardsim.errors import BadInput
from boardsim.games.base import Seat, custom_policy, rules_policy
from tests import scorer_examples


def test_a_path_resolves_to_the_checked_function_once():
    fn = custom.resolve("tests.scorer_examples:first_column")
    assert fn is scorer_examples.first_column
    assert custom.resolve("tests.scorer_examples:first_column") is fn  # cached


@pytest.mark.parametrize("spec, message", [
    ("tests.scorer_examples:returns_a_number", "returns float64; allowed: no return value"),
    ("tests.scorer_examples:two_arguments", "does not compile as f(features, candidates, params, scores)"),
    ("tests.scorer_examples:bad_types", "does not compile as"),
    ("tests.scorer_examples:plain_python", "is not a numba function"),
    ("tests.scorer_examples:missing", "module 'tests.scorer_examples' has no 'missing'"),
    ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ("just_a_name", "allowed: \"module:function\""),
])
def test_every_bad_scorer_is_one_line_before_any_game(spec, message):
    with pytest.raises(BadInput) as e:
        custom.resolve(spec, "seats[1].params.function")
    assert e.value.key == "seats[1].params.function" and message in e.value.message
    assert "\n" not in e.value.message


def test_module_level_functions_travel_as_paths():
    assert custom.path_of(scorer_examples.first_column) == "tests.scorer_examples:first_column"

    @njit
    def local(features, candidates, params, scores):
        pass

    assert custom.path_of(local) is local  # not importable: it stays an object (local executor only)


def test_four_scorers_per_call_and_jitted_code_calls_them_by_seat():
    fns = custom.scorers([None, "tests.scorer_examples:first_column"])
    assert len(fns) == 4 and fns[0] is custom.no_scorer and fns[1] is scorer_examples.first_column

    @njit
    def call(fns, seat, cand, params):
        scores = np.zeros(cand.shape[0])
        fns[seat](np.zeros(1), cand, params, scores)
        return scores

    # the engines' way: an explicit signature with the scorer tuple, then no further compiling, so that a
    # tuple of dispatchers converts to function pointers
    call.compile(types.float64[::1](custom.SCORERS, types.int64, types.float64[:, ::1], types.float64[::1]))
    call.disable_compile()

    cand = np.arange(6.0).reshape(3, 2)
    assert call(fns, 1, cand, np.array([2.0])).tolist() == [0.0, 4.0, 8.0]
    assert call(fns, 0, cand, np.array([2.0])).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(BadInput, match="at most 4"):
        custom.scorers([None] * 5)


def test_open_policies_take_their_own_numbers_as_params():
    pol = rules_policy(9, "rules")
    names = [o.name for o in pol.options_for({"rules": [], "t": 7, "hard": 1.5})]
    assert names == ["name", "rules", "hard", "t"]
    assert [o.name for o in custom_policy(10, "c").options_for({"function": "m:f"})] == ["name", "function"]


def test_labels_show_a_name_or_a_digest_of_the_rules():
    a = Seat("rules", {"rules": [{"hire": "Tiger"}], "t": 7})
    b = Seat("rules", {"rules": [{"hire": "Pig"}], "t": 7})
    assert a.label().startswith("rules(rules#") and a.label().endswith(",t=7)") and a.label() != b.label()
    assert Seat("rules", {"name": "tiger-rush", "rules": [], "t": 7}).label() == "tiger-rush(t=7)"
    assert Seat("custom", {"function": "my.bots:greedy"}).label() == "custom(function=greedy)"
    assert Seat("custom", {"function": "my.bots:greedy", "name": "mine", "w": 2}).label() == "mine(w=2)"


def test_simulate_takes_a_custom_policy_seat_and_matches_the_builtin_it_copies():
    import boardsim
    from tests.games.fliptoons import scorers

    mine = boardsim.custom_policy(scorers.fame_per_cost)
    assert mine.params["function"] == "tests.games.fliptoons.scorers:fame_per_cost"  # travels as a path
    a = boardsim.simulate("fliptoons", 300, [mine, "priority"], seed=5, players=2)
    b = boardsim.simulate("fliptoons", 300, ["fame_per_cost", "priority"], seed=5, players=2)
    assert (a.filter(like="score_").to_numpy() == b.filter(like="score_").to_numpy()).all()
    with pytest.raises(BadInput, match="function: two_arguments does not compile"):
        boardsim.custom_policy(scorer_examples.two_arguments)
