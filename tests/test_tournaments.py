import numpy as np
import pandas as pd
import pytest

import boardsim
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.tournaments import run_tournament


def test_round_robin_pairwise_and_ratings():
    r = run_tournament("art_deco", ["par", "eligibility", "random"], players=2, games=2000, seed=3)
    assert len(r.matches) == 3 * 2
    m = r.matrix()
    assert list(m.index) == ["par", "eligibility", "random"] and np.isnan(m.loc["par", "par"])
    # head-to-head: each comparison is won by one side or shared, so the two directions add up to 1
    assert np.isclose(m.loc["par", "eligibility"] + m.loc["eligibility", "par"], 1.0)
    assert (r.pairwise["win_lo"] <= r.pairwise["win_rate"]).all()
    assert (r.pairwise["win_rate"] <= r.pairwise["win_hi"]).all()
    worst = r.ratings.sort_values("rating").iloc[0]["policy"]
    assert worst == "random" and m.loc["random"].max() < 0.5


def test_matches_use_paired_seeds_and_rotated_seats():
    a = run_tournament("art_deco", ["par", "multiple"], players=2, games=1000, seed=5)
    b = run_tournament("art_deco", ["multiple", "par"], players=2, games=1000, seed=5)
    # the same deals with the seats swapped: each side's wins are identical
    wa = a.matches.set_index("policy")["wins"]
    wb = b.matches.set_index("policy")["wins"]
    assert np.isclose(wa["par"], wb["par"]) and np.isclose(wa["multiple"], wb["multiple"])


def test_a_policy_against_a_field_of_itself_reads_one_half():
    # the first player's edge must not show as the policy's rate against the field (it once read 61%)
    r = run_tournament("wagons", ["gain_minus_gift", "gain"], games=40, seed=2, mode="field", field="gain_minus_gift")
    row = r.pairwise.set_index("policy").loc["gain_minus_gift"]
    assert row["win_rate"] == pytest.approx(0.5) and row["deals"] == 20


def test_one_vs_field_and_more_seats():
    r = run_tournament("art_deco", ["eligibility", "random"], players=4, games=800, seed=1, mode="field",
                       field="par")
    # head-to-head against each field seat: the fair share is one half at any table size
    assert list(r.pairwise["policy"]) == ["eligibility", "random"] and (r.pairwise["fair_share"] == 0.5).all()
    assert r.pairwise.set_index("policy").loc["random", "win_hi"] < 0.5
    r3 = run_tournament("art_deco", ["par", "eligibility", "blocker", "random"], players=3, games=600, seed=1)
    assert r3.matches["match"].nunique() == 4


def test_bad_tournaments():
    with pytest.raises(BadInput, match="field policy"):
        run_tournament("art_deco", ["par"], mode="field")
    with pytest.raises(BadInput, match="unknown mode"):
        run_tournament("art_deco", ["par", "random"], mode="swiss")
    with pytest.raises(BadInput, match="only once"):
        run_tournament("art_deco", ["par", "par"])


def test_a_perfectly_separated_tournament_has_finite_ratings_and_a_chart_that_shows_the_order(tmp_path):
    from boardsim.report import plots

    # a bidder that always passes never reaches 5 cards: eligibility finishes ahead in every game
    r = run_tournament("art_deco", [{"policy": "random", "params": {"pass_prob": 1.0}}, "eligibility"],
                       players=2, games=1000, seed=2, progress=False)
    pair = r.pairwise.set_index("policy")
    assert pair.loc["eligibility", "win_rate"] == 1.0 and pair.loc["eligibility", "win_hi"] == 1.0
    assert 0.99 < pair.loc["eligibility", "win_lo"] < 1.0
    ratings = r.ratings
    assert np.isfinite(ratings[["rating", "rating_lo", "rating_hi", "se"]].to_numpy()).all()
    assert list(ratings["policy"]) == ["eligibility", "random(pass_prob=1.0)"]
    assert ratings["rating_lo"].iloc[0] > ratings["rating_hi"].iloc[1]
    data = plots.forest_data(ratings, "rating", "rating_lo", "rating_hi", name_cols=("policy",))
    assert list(data["name"]) == ["random(pass_prob=1.0)", "eligibility"]  # drawn bottom to top
    name, _ = plots.write_ratings(ratings, tmp_path, "T")
    assert (tmp_path / name).stat().st_size > 0


def test_three_player_matches_play_every_arrangement_and_find_cycles():
    from boardsim.tournaments import cycles

    r = run_tournament("art_deco", ["par", "eligibility", "blocker"], players=3, games=600, seed=1,
                       progress=False)
    assert (r.matches["games"] == 600).all() and (r.matches["deals"] == 100).all()  # 6 arrangements per deal
    m = r.matrix().to_numpy()
    assert len(r.pairwise) == 6 and np.allclose((m + m.T)[~np.eye(3, dtype=bool)], 1.0)
    import pandas as pd

    fake = pd.DataFrame({"policy": ["a", "b", "c", "b", "c", "a"], "opponent": ["b", "c", "a", "a", "b", "c"],
                         "win_rate": [0.6, 0.7, 0.8, 0.4, 0.3, 0.2], "win_lo": [0.55, 0.65, 0.75, 0.35, 0.25, 0.15]})
    found = cycles(fake)
    assert len(found) == 1 and tuple(found.iloc[0][["a", "b", "c"]]) == ("a", "b", "c")
    assert cycles(fake.assign(win_lo=fake["win_lo"].where(fake["policy"] != "c", 0.45))).empty


def test_a_progress_callable_hears_every_match_as_it_plays():
    # one bar over the whole tournament: every match's games reach it (the old per-match bars went silent)
    heard = []
    res = run_tournament("art_deco", ["random", "par", "multiple"], games=30, seed=2, progress=heard.append)
    assert sum(heard) == res.matches.groupby("match")["games"].first().sum() == 3 * 30


def test_saved_matches_are_read_back_only_when_whole_and_give_the_same_tournament(tmp_path):
    from boardsim.tournaments import MatchStore

    args = dict(players=2, games=60, seed=4)
    plain = run_tournament("art_deco", ["par", "random", "eligibility"], **args)
    store = MatchStore(tmp_path / "m")
    first = run_tournament("art_deco", ["par", "random", "eligibility"], **args, store=store)
    assert store.saved == 3 and store.loaded == 0
    saved = sorted((tmp_path / "m").glob("*.npz"))
    saved[0].write_bytes(saved[0].read_bytes()[:100])  # cut short
    saved[1].write_bytes(saved[2].read_bytes())  # another match under this one's name
    again = MatchStore(tmp_path / "m")
    second = run_tournament("art_deco", ["par", "random", "eligibility"], **args, store=again)
    assert again.loaded == 1 and again.saved == 2
    for r in (first, second):
        pd.testing.assert_frame_equal(r.pairwise, plain.pairwise)
        pd.testing.assert_frame_equal(r.ratings, plain.ratings)
    fresh = MatchStore(tmp_path / "m", fresh=True)
    run_tournament("art_deco", ["par", "random", "eligibility"], **args, store=fresh)
    assert fresh.loaded == 0 and fresh.saved == 3


@pytest.mark.parametrize("game,seats,players", [("art_deco", ["par", "random", "eligibility"], 3),
                                                ("wagons", ["gain_minus_gift", "random"], 2)])
def test_a_match_is_simulates_games_summed_per_deal(game, seats, players):
    """play_match keeps per-deal sums (executors.per_deal), not rows: they are the sums of simulate's own games
    over each deal's arrangements, win shares and slot-against-slot comparisons alike."""
    from boardsim.games.base import Seat
    from boardsim.tournaments import comparisons, play_match

    g = get(game)
    table = [Seat(s) for s in seats]
    heard = []
    m = play_match(g, 50, table, 9, None, None, players, "all", None, heard.append, None)
    df = boardsim.simulate(game, 50, seats, seed=9, players=players, seating="all")
    win = df[[f"win_{j}" for j in range(players)]].to_numpy()
    score = df[[f"score_{j}" for j in range(players)]].to_numpy()
    deal = df["game"].to_numpy()
    n_arr = int(m["arrangements"])
    assert n_arr == df.attrs["arrangements"] and len(m["win"]) == df.attrs["deals"] and sum(heard) == len(df)
    for j in range(players):
        assert np.allclose(m["win"][:, j], np.bincount(deal, weights=win[:, j]))
    ahead = comparisons(win, score, range(players), players)
    want = np.stack([np.bincount(deal, weights=ahead[:, a, b]) for a in range(players) for b in range(players)], 1)
    assert np.array_equal(m["ahead"].reshape(len(want), -1), want)
