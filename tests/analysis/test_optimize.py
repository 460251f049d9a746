import pytest

from boardsim.analysis.optimize import tune
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat

GAME = get("art_deco")


def test_improves_a_deliberately_bad_start():
    # hard = 0.3: while short of 5 cards it offers only 0.3 x value, so it rarely becomes eligible
    seats = [Seat("eligibility", {"hard": 0.3}), Seat("eligibility")]
    r = tune(GAME, 3, seats, {}, GAME.card_table(), 0, {"hard": [0.3, 3.0]}, games=600, check_games=6000,
             maxiter=3, popsize=4, seed=2)
    start, best = r.check.set_index("which").loc["start"], r.check.set_index("which").loc["best"]
    assert best["win_lo"] > start["win_hi"]
    assert r.best["hard"] > 0.3 and len(r.history) == 3
    assert (r.history["best_win_rate"].diff().dropna() >= 0).all()


def test_integer_parameters_stay_integers():
    seats = [Seat("eligibility", {"hard": 1.5, "target": 1}), Seat("par")]
    r = tune(GAME, 2, seats, {}, GAME.card_table(), 0, {"target": [1, 8]}, games=300, check_games=600,
             maxiter=2, popsize=3, seed=1)
    assert isinstance(r.best["target"], int) and 1 <= r.best["target"] <= 8


def test_bad_bounds_name_the_key():
    seats = [Seat("par"), Seat("par")]
    with pytest.raises(BadInput) as e:
        tune(GAME, 2, seats, {}, GAME.card_table(), 0, {"multiple": [0, 2]})
    assert e.value.key == "optimize.params.multiple" and "sell_margin" in e.value.message
    with pytest.raises(BadInput) as e:
        tune(GAME, 2, [Seat("multiple"), Seat("par")], {}, GAME.card_table(), 0, {"multiple": [2, 1]})
    assert "low < high" in e.value.message
