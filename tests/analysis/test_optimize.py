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


def test_reports_the_paired_difference_and_rounds_to_the_supported_precision():
    seats = [Seat("eligibility", {"hard": 0.3}), Seat("eligibility")]
    r = tune(GAME, 3, seats, {}, GAME.card_table(), 0, {"hard": [0.3, 3.0]}, games=600, check_games=6000,
             maxiter=3, popsize=4, seed=2)
    diff = r.check.set_index("which").loc["best - start"]
    # the paired difference is measured on the same deals as the two rates, and excludes zero here
    assert diff["win_lo"] > 0 and r.improvement["effect_lo"] == diff["win_lo"]
    assert r.improvement["effect"] == pytest.approx(r.check.set_index("which").loc["best", "win_rate"]
                                                    - r.check.set_index("which").loc["start", "win_rate"])
    step = r.steps["hard"]
    assert step > 0 and abs(r.rounded["hard"] - r.best["hard"]) <= step / 2 + 1e-12
    assert round(r.rounded["hard"] / step, 9) == round(r.rounded["hard"] / step)


def test_supported_precision_follows_the_indistinguishable_candidates():
    import numpy as np

    from boardsim.analysis.optimize import supported_precision

    tried = [(np.array([1.00, 5.0]), 0.30), (np.array([1.04, 6.0]), 0.299), (np.array([2.5, 3.0]), 0.20)]
    # within 0.005 of the best: the first two; hard spans 0.04 -> steps of 0.01, target spans 1 -> 1
    steps = supported_precision(tried, np.array([1.0, 5.0]), 0.30, 0.005, np.array([3.0, 7.0]), [False, True])
    assert steps == [0.01, 1.0]
    # a wide interval makes every candidate indistinguishable: coarser steps
    steps = supported_precision(tried, np.array([1.0, 5.0]), 0.30, 0.2, np.array([3.0, 7.0]), [False, True])
    assert steps == [1.0, 1.0]


def test_improves_a_rule_threshold_that_starts_deliberately_bad():
    # a FlipToons rule list that hires nothing before round $start: start = 14 wastes most of the game
    import boardsim

    mine = boardsim.rules_policy([{"hire": "best_gain_per_cost", "if": "round >= $start"}], start=14)
    r = boardsim.optimize("fliptoons", [mine, "fame_per_cost"], 0, {"start": [1, 14]}, players=2, games=400,
                          check_games=4000, maxiter=3, popsize=4, seed=3)
    start, best = r.check.set_index("which").loc["start"], r.check.set_index("which").loc["best"]
    assert best["win_lo"] > start["win_hi"]
    assert r.best["start"] < 14 and r.improvement["effect_lo"] > 0  # paired on the same fresh deals


def test_the_same_tuning_on_worker_processes():
    """Issue 42 item 5: every evaluation and the paired check run on the executor; the result is the local one."""
    import pandas as pd

    from boardsim.executors import open_executor

    seats = [Seat("eligibility", {"hard": 0.3}), Seat("eligibility")]
    args = (GAME, 2, seats, {}, GAME.card_table(), 0, {"hard": [0.3, 3.0]})
    kw = {"games": 60, "check_games": 200, "maxiter": 1, "popsize": 2, "seed": 4}
    local = tune(*args, **kw)
    with open_executor("processes", 2) as ex:
        procs = tune(*args, **kw, executor=ex)
    assert procs.best == local.best and procs.evaluations == local.evaluations
    pd.testing.assert_frame_equal(procs.check, local.check)


# -- feel targets (issue 43 item 4) ------------------------------------------------------------------------


def test_a_feel_target_tunes_the_seat_towards_it():
    # Art Deco at 2 players: a multiple(1.0) bidder against eligibility leads half a change a game; asked for
    # at least one lead change, the search raises its multiple and the fresh-deal check confirms the move
    g = get("art_deco")
    r = tune(g, 2, [Seat("multiple", {"multiple": 1.0}), Seat("eligibility")], {}, g.card_table(), 0,
             {"multiple": [0.5, 3.0]}, games=600, check_games=4000, maxiter=3, popsize=4, seed=3,
             objective="lead_changes>=1.0")
    by = r.check.set_index("which")
    assert r.extra["objective"] == "lead_changes>=1" and r.best["multiple"] > 1.2
    assert by.loc["best", "figure_lo"] > by.loc["start", "figure_hi"]
    assert by.loc["best - start", "figure_lo"] > 0
    assert abs(by.loc["best", "shortfall"]) < abs(by.loc["start", "shortfall"])
    assert set(r.history.columns) >= {"generation", "best_shortfall"}


def test_a_ratio_difference_of_one_game_a_deal_is_the_paired_t_interval():
    import numpy as np
    from scipy import stats

    from boardsim.analysis.optimize import ratio_difference

    gen = np.random.default_rng(1)
    a, b = gen.normal(1.0, 1.0, 300), gen.normal(0.7, 1.0, 300)
    ones = np.ones(300)
    diff, lo, hi = ratio_difference((a, ones), (b, ones))
    d = a - b
    half = stats.t.ppf(0.975, 299) * d.std(ddof=1) / np.sqrt(300)
    assert diff == pytest.approx(d.mean()) and (lo, hi) == pytest.approx((d.mean() - half, d.mean() + half))


def test_an_unknown_objective_names_the_key():
    g = get("art_deco")
    with pytest.raises(BadInput) as e:
        tune(g, 2, [Seat("multiple"), Seat("par")], {}, g.card_table(), 0, {"multiple": [0.5, 3.0]},
             objective="decisive_round>=3")
    assert e.value.key == "optimize.objective" and "win_rate" in e.value.message


def test_a_metagame_target_makes_the_tuned_policy_viable():
    # Art Deco, seats multiple(1.0), eligibility and par: head to head at 2 players, the equilibrium plays two
    # of them; asked for all three, the search finds a multiple that keeps its bidder in the equilibrium
    g = get("art_deco")
    seats = [Seat("multiple", {"multiple": 1.0}), Seat("eligibility"), Seat("par")]
    r = tune(g, 3, seats, {}, g.card_table(), 0, {"multiple": [0.5, 3.0]}, games=600, check_games=6000,
             maxiter=3, popsize=4, seed=3, objective="nash_support>=3")
    by = r.check.set_index("which")
    assert by.loc["start", "figure"] == 2 and by.loc["best", "figure"] == 3 and by.loc["best", "shortfall"] == 0
    assert by.loc["best", "figure_lo"] == 3 and r.extra["objective"] == "nash_support>=3"
    with pytest.raises(BadInput) as e:  # one policy in every seat: no table to judge
        tune(g, 2, [Seat("par"), Seat("par")], {}, g.card_table(), 0, {"multiple": [0.5, 3.0]},
             objective="alpha_entropy>=1")
    assert e.value.key == "optimize.objective"



def test_seat_win_rate_is_the_sweeps_exact_sum_of_simulates_games():
    """seat_win_rate reads its games through the sweep's Aggregate (one summing path): the seat's wins are
    simulate's win shares of the same games, each in whole WIN_UNITS, summed."""
    import numpy as np

    import boardsim
    from boardsim.analysis.optimize import seat_win_rate
    from boardsim.games.base import WIN_UNITS

    g = get("art_deco")
    seats = [Seat("eligibility"), Seat("random"), Seat("par")]
    wins, games = seat_win_rate(g, 3, seats, None, g.card_table(), 1, 600, 7)
    df = boardsim.simulate("art_deco", 600, ["eligibility", "random", "par"], seed=7, players=3, seating="all")
    assert games == len(df) == 600 and 0 < wins < games
    assert wins == np.rint(df["win_1"].to_numpy() * WIN_UNITS).sum() / WIN_UNITS
