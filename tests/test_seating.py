"""Seating designs: arrangements, seat-order invariance for every game, coverage warnings, calibration."""

import itertools

import numpy as np
import pytest

from boardsim import seating
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.report import tables
from boardsim.runner import WIN_UNITS, make_cell, run_cell, simulate
from boardsim.stats.intervals import deal_interval


def test_all_gives_every_distinct_arrangement_once():
    four = seating.arrangements(["a", "b", "c", "d"], "all")
    assert len(four) == 24 and len(set(four)) == 24
    assert all(sorted(a) == [0, 1, 2, 3] for a in four)
    # repeated policies count once: two par and two blocker give 4! / (2! 2!) = 6
    assert len(seating.arrangements(["par", "par", "blocker", "blocker"], "all")) == 6
    assert seating.arrangements(["x", "x", "x"], "all") == [(0, 1, 2)]
    assert len(seating.arrangements(list("abc"), "cyclic")) == 3
    assert seating.arrangements(list("abc"), "fixed") == [(0, 1, 2)]


def by_position(labels, arrangement):
    out = [""] * len(labels)
    for j, p in enumerate(arrangement):
        out[p] = labels[j]
    return tuple(out)


def test_all_plays_the_same_tables_in_the_same_order_whatever_the_listing():
    labels = ["par", "par", "blocker", "eligibility"]
    reference = [by_position(labels, a) for a in seating.arrangements(labels, "all")]
    for perm in itertools.permutations(labels):
        assert [by_position(perm, a) for a in seating.arrangements(list(perm), "all")] == reference


def test_resolve_defaults_and_the_rotate_seats_alias():
    assert seating.resolve(None) == "all"
    assert seating.resolve(None, True) == "cyclic" and seating.resolve(None, False) == "fixed"
    assert seating.resolve("fixed", True) == "fixed"
    with pytest.raises(BadInput, match="'all', 'cyclic', 'fixed'"):
        seating.resolve("random")
    # the scenario key still reads, with a deprecation warning (issue 29: old names kept, marked)
    from boardsim.scenario import parse

    with pytest.warns(DeprecationWarning, match="rotate_seats"):
        assert parse({"game": "art_deco", "rotate_seats": True}).seating == "cyclic"
    with pytest.warns(DeprecationWarning, match="rotate_seats"):
        assert parse({"game": "art_deco", "rotate_seats": False}).seating == "fixed"


def per_policy(game_name, seats, players, games, seed, rules=None):
    game = get(game_name)
    cell = make_cell(game, players, seats, rules, game.card_table(), seating_design="all")
    agg = cell.new_aggregate()
    run_cell(cell, seed, games, agg.add, progress=False, reduce=True)
    rows = tables.summary_rows("t", cell, agg)
    return rows[rows["level"] == "policy"].set_index("policy").sort_index()


CASES = {
    "art_deco": ([Seat("par"), Seat("multiple", {"multiple": 1.3}), Seat("eligibility"), Seat("blocker")], 4, 480),
    "fliptoons": ([Seat("fame_per_cost"), Seat("highest_rank"), Seat("random")], 3, 60),
    "wagons": ([Seat("gain_minus_gift"), Seat("first")], 2, 20),
}


@pytest.mark.parametrize("game_name", sorted(CASES))
def test_listing_the_seats_in_another_order_gives_the_same_per_policy_results_exactly(game_name):
    seats, players, games = CASES[game_name]
    base = per_policy(game_name, seats, players, games, seed=11)
    assert len(base) == len(seats) and (base["seating"] == "all").all()
    for perm in list(itertools.permutations(seats))[1:4] + [tuple(reversed(seats))]:
        other = per_policy(game_name, list(perm), players, games, seed=11)
        cols = ["games", "deals", "wins", "win_rate", "win_lo", "win_hi", "score_mean", "score_lo",
                "seating_spread"]
        assert other[cols].equals(base[cols]), perm


def test_cyclic_depends_on_who_sits_to_whose_left_but_all_does_not():
    a = [Seat("par"), Seat("multiple", {"multiple": 1.3}), Seat("eligibility"), Seat("blocker")]
    b = [a[0], a[2], a[1], a[3]]  # same policies, two neighbours swapped
    wins = {}
    for name, seats in (("a", a), ("b", b)):
        for design in ("cyclic", "all"):
            df = simulate("art_deco", 2400, seats, seed=3, players=4, seating=design, progress=False)
            wins[name, design] = {s.label(): df[f"win_{j}"].sum() for j, s in enumerate(seats)}
    assert wins["a", "all"] == wins["b", "all"]
    assert wins["a", "cyclic"] != wins["b", "cyclic"]


def test_games_are_rounded_up_to_whole_deals_of_every_arrangement():
    df = simulate("art_deco", 100, ["par", "blocker", "eligibility"], seed=1, players=3, progress=False)
    assert len(df) == 102 and df.attrs["arrangements"] == 6 and df.attrs["deals"] == 17
    assert (df.groupby("game")["rotation"].nunique() == 6).all()


def test_coverage_warnings():
    assert seating.coverage_warnings(["a", "b", "c", "d"], 4) == []
    assert seating.coverage_warnings(["a"], 4) == []  # one policy in every seat: self-play, on purpose
    [idle] = seating.coverage_warnings(["a", "b", "c", "d"], 2)
    assert "seats[2] (c), seats[3] (d) never play" in idle
    [uneven] = seating.coverage_warnings(["a", "b", "c"], 4)
    assert "a plays 2 seats, b plays 1 seat, c plays 1 seat" in uneven and "listing order" in uneven


def test_sweep_reports_coverage_warnings_and_writes_seatings(tmp_path, capsys):
    import boardsim
    from boardsim.scenario import parse

    sc = parse({"game": "art_deco", "players": 2, "games": 400, "seed": 1,
                "seats": [{"policy": "par"}, {"policy": "blocker"}, {"policy": "eligibility"}]})
    result = boardsim.sweep(sc, out=tmp_path / "w", progress=False)
    assert any("seats[2] (eligibility) never plays" in w for w in result.warnings)
    assert "warning: 3 seats listed for 2 players" in capsys.readouterr().err
    html = (tmp_path / "w" / "index.html").read_text()
    assert "id='warnings'" in html and "never plays" in html
    seat_table = (tmp_path / "w" / "seatings.csv").read_text().splitlines()
    assert len(seat_table) == 1 + 2 * 2  # 2 arrangements x 2 policies
    summary = result.summary
    policy_rows = summary[summary["level"] == "policy"]
    assert list(policy_rows["policy"]) == ["par", "blocker"] and (policy_rows["deals"] == 200).all()
    assert np.isclose(policy_rows["win_rate"].sum() + policy_rows["no_winner_rate"].iloc[0], 1.0)


def test_deal_level_interval_matches_a_direct_t_interval():
    from scipy import stats

    y = np.array([3, 0, 12, 5, 7, 1, 9], dtype=float)
    mean, lo, hi = deal_interval(y.sum(), (y * y).sum(), len(y), 12.0)
    half = stats.t.ppf(0.975, len(y) - 1) * y.std(ddof=1) / np.sqrt(len(y)) / 12.0
    assert np.isclose(mean, y.mean() / 12.0) and np.isclose(hi - mean, half) and np.isclose(mean - lo, half)


def coverage(game_name, seats, players, design, games, reps, truth, rules=None):
    game = get(game_name)
    cell = make_cell(game, players, seats, rules, game.card_table(), seating_design=design)
    hits, widths = 0, []
    for rep in range(reps):
        agg = cell.new_aggregate()
        run_cell(cell, 10_000 + rep, games, agg.add, progress=False, reduce=True)
        rows = tables.summary_rows("t", cell, agg)
        row = rows[rows["level"] == "policy"].set_index("policy").loc[seats[0].label()]
        t = truth(cell, agg) if callable(truth) else truth
        hits += bool(row["win_lo"] <= t <= row["win_hi"])
        widths.append(row["win_hi"] - row["win_lo"])
    return hits / reps, float(np.mean(widths))


def test_calibration_fixed_seats_identical_policies_cover_the_fair_share():
    # two identical bots (labels differ only by a spelled-out default): by symmetry of the random first
    # player each wins half of the win shares; fixed seats play independent games, so Wilson applies
    seats = [Seat("fame_per_cost"), Seat("fame_per_cost", {"cost_exponent": 1.0})]
    rate, width = coverage("fliptoons", seats, 2, "fixed", 150, 200, 0.5)
    assert rate >= 0.92 and 0.1 < width < 0.25


def test_calibration_all_seats_identical_policies_are_exactly_fair():
    # in every arrangement the same game is played, so each deal's mean is exactly the fair share: the
    # design removes all variance, and the interval is the point
    seats = [Seat("fame_per_cost"), Seat("fame_per_cost", {"cost_exponent": 1.0})]
    rate, width = coverage("fliptoons", seats, 2, "all", 150, 20, 0.5)
    assert rate == 1.0 and width < 1e-12


def test_calibration_all_seats_distinct_policies_cover_a_reference_answer():
    # four different Art Deco bots: the truth is taken from a run 1,000 times larger (its own error is
    # about 1/30 of one small run's), and 200 small runs of 20 deals x 24 arrangements must cover it
    seats = [Seat("eligibility"), Seat("par"), Seat("blocker"), Seat("multiple", {"multiple": 1.3})]
    game = get("art_deco")
    cell = make_cell(game, 4, seats, None, game.card_table(), seating_design="all")
    big = cell.new_aggregate()
    run_cell(cell, 999, 24 * 20_000, big.add, progress=False, reduce=True)
    truth = big.wins[0] / WIN_UNITS / big.games
    rate, width = coverage("art_deco", seats, 4, "all", 24 * 20, 200, truth)
    assert rate >= 0.92, (rate, width)


@pytest.mark.parametrize("raw, line", [
    ({"seating": 5}, "seating: got 5; allowed: one of 'all', 'cyclic', 'fixed'"),
    ({"seating": "al"}, "seating: got 'al'; allowed"),
    ({"tournament": {"policies": ["par", "random"], "seating": 3}}, "tournament.seating: got 3; allowed"),
    ({"seating": "all", "rotate_seats": True}, "rotate_seats: give seating or rotate_seats"),
])
def test_a_bad_seating_in_a_scenario_is_one_line_naming_the_key(raw, line):
    from boardsim.scenario import parse

    with pytest.raises(BadInput) as e:
        parse({"game": "art_deco", **raw})
    assert line in e.value.line()
