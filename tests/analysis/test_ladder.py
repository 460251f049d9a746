"""The skill ladder (boardsim.analysis.ladder): rungs in rating order, head-to-head against the rung below,
skill depth, Elo span, the share skill decides, and each rung's first-player rate in self-play."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boardsim
from boardsim.analysis.ladder import default_rungs, run_ladder, skill_depth, summarize
from boardsim.errors import BadInput
from boardsim.games import get


def test_skill_depth_is_the_longest_chain_of_clear_wins_in_rating_order():
    order = ["a", "b", "c", "d"]
    assert skill_depth(order, set()) == 1
    assert skill_depth(order, {("a", "b"), ("b", "c"), ("c", "d")}) == 4
    # a beats c and c beats d, but b beats nobody clearly: a > c > d
    assert skill_depth(order, {("a", "c"), ("c", "d")}) == 3
    # a win up the order (d over a) does not make a chain
    assert skill_depth(order, {("d", "a")}) == 1


def test_default_rungs_are_random_the_heuristics_then_each_budget():
    rungs = default_rungs(get("art_deco"), (10, 100))
    assert rungs[0] == "random" and rungs[-2:] == [("mcts", {"iterations": 10}), ("mcts", {"iterations": 100})]
    assert "rules" not in rungs and "custom" not in rungs and "par" in rungs
    # named policies replace the heuristics only: random and the budgets stay, random once
    assert default_rungs(get("art_deco"), (10,), ["par", "random"]) == ["random", "par", ("mcts", {"iterations": 10})]


@pytest.fixture(scope="module")
def ladder():
    return run_ladder("art_deco", budgets=(4, 32), games=40, seed=1, progress=False)


def test_ladder_rows_are_in_rating_order_with_the_rate_against_the_rung_below(ladder):
    lad = ladder.ladder
    rungs = default_rungs(get("art_deco"), (4, 32), None, players=2)
    assert "learned" in rungs  # the bundled 2-player model: a rung between the heuristics and the search
    assert list(lad["rung"]) == list(range(1, len(lad) + 1)) and len(lad) == len(rungs) == 8
    assert (np.diff(lad["rating"]) <= 0).all()
    assert {"mcts(iterations=4)", "mcts(iterations=32)", "random"} <= set(lad["policy"])
    pair = ladder.tournament.pairwise.set_index(["policy", "opponent"])
    for row in lad.iloc[:-1].itertuples():
        assert row.below == lad["policy"].iloc[row.rung]
        assert row.vs_below == pytest.approx(pair.loc[(row.policy, row.below), "win_rate"])
        assert row.vs_below_lo <= row.vs_below <= row.vs_below_hi
    assert np.isnan(lad["vs_below"].iloc[-1])


def test_skill_summary(ladder):
    s = ladder.skill.iloc[0]
    top = ladder.ladder["policy"].iloc[0]
    rate = ladder.tournament.pairwise.set_index(["policy", "opponent"]).loc[(top, "random"), "win_rate"]
    assert s["strongest"] == top and s["skill_share"] == pytest.approx(2 * (rate - 0.5))
    assert 2 <= s["skill_depth"] <= s["rungs"] and s["elo_span"] > 0


def test_first_player_rate_per_rung_in_self_play(ladder):
    fp = ladder.first_player
    assert len(fp) == 8 and (fp["games"] == 40).all() and (fp["fair_share"] == 0.5).all()
    assert ((fp["lo"] <= fp["first_player_rate"]) & (fp["first_player_rate"] <= fp["hi"])).all()


def test_the_same_seed_gives_the_same_ladder(ladder):
    again = boardsim.ladder("art_deco", budgets=(4, 32), games=40, seed=1, progress=False)
    assert again.ladder.equals(ladder.ladder) and again.first_player.equals(ladder.first_player)


@pytest.mark.parametrize("kwargs,key", [({"budgets": (0,)}, "budgets"), ({"games": 0}, "games"),
                                        ({"players": 9}, "players")])
def test_bad_arguments_name_their_key(kwargs, key):
    with pytest.raises(BadInput) as e:
        run_ladder("art_deco", **kwargs)
    assert key in str(e.value)


def test_cli_writes_the_ladder_tables_and_report(tmp_path, capsys, layout_checked):
    from boardsim import cli

    out = tmp_path / "lad"
    code = cli.main(["ladder", "art_deco", "--budgets", "4", "--games", "20", "--policies", "par", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0 and "skill decides about" in printed.out
    assert "estimated time" in printed.err  # the calibration's estimate, before any match
    assert {"first_player.csv", "ladder.csv", "matrix.csv", "skill.csv", "tournament_pairwise.csv", "run.json",
            "ladder.png", "first_player.png", "heatmap.png", "index.html"} <= {p.name for p in out.iterdir()}
    assert (out / "ladder.csv").read_text().count("\n") == 4  # header, random, par, mcts(iterations=4)
    assert {"ladder.png", "first_player.png", "heatmap.png"} <= {p.rsplit("/", 1)[-1] for p in layout_checked}
    page = (out / "index.html").read_text()
    # the answer comes first: skill's share, the levels, the first-player edge for beginners and strong players
    answer = page[page.index("id='answer'"):page.index("</section>")]
    assert answer.index("Skill decides about") < answer.index("first player wins") < answer.index("Tournament")
    assert "for beginners (random)" in answer and "for strong players" in answer


@pytest.mark.parametrize("argv", [["--budgets", "0"], ["--budgets", "x"], ["--games", "0"],
                                  ["--policies", "nope"], ["--players", "9"]])
def test_cli_bad_flags_are_one_error_line_and_write_nothing(argv, tmp_path, capsys, monkeypatch):
    from boardsim import cli

    monkeypatch.chdir(tmp_path)
    try:
        code = cli.main(["ladder", "art_deco", *argv])
    except SystemExit as e:  # argparse's own one-line errors (--games 0)
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


# -- a toy with a known order: each deal, a "best of k" player draws k uniform values and keeps the largest; the
# larger value finishes ahead.  Best of a against best of b wins a / (a + b) of games, so random (k = 1), best of
# two and best of four form a ladder whose every step wins 2/3.

def _toy(draws, deals, seed):
    from boardsim.stats.ratings import bradley_terry
    from boardsim.tournaments import pairwise_table

    gen = np.random.default_rng(seed)
    k = len(draws)
    per_deal = np.zeros((deals, k, k))
    for i in range(k):
        for j in range(i + 1, k):
            for _ in range(2):  # each deal in both seatings
                a = gen.random((deals, draws[i])).max(axis=1)
                b = gen.random((deals, draws[j])).max(axis=1)
                per_deal[:, i, j] += a > b
                per_deal[:, j, i] += b > a
    names = ["random"] + [f"best of {d}" for d in draws[1:]]
    games = np.full((k, k), 2 * deals)
    return summarize(bradley_terry(per_deal.sum(axis=0), names, per_deal), pairwise_table(per_deal, names, games))


@pytest.mark.parametrize("draws", [(1, 2), (1, 2, 4)])
def test_a_toy_ladder_recovers_the_known_order_and_depth(draws):
    known = ["random"] + [f"best of {d}" for d in draws[1:]]
    right = 0
    for seed in range(100):
        ladder, skill = _toy(draws, 150, seed)
        right += list(ladder["policy"])[::-1] == known and int(skill["skill_depth"].iloc[0]) == len(draws)
    assert right >= 95


def test_the_skill_share_interval_covers_the_true_share():
    # best of 4 against random wins 4/5 of comparisons: skill decides 2 (0.8 - 0.5) = 0.6 of outcomes
    inside = 0
    for seed in range(300):
        _, skill = _toy((1, 2, 4), 60, 1000 + seed)
        s = skill.iloc[0]
        assert s["strongest"] == "best of 4" or s["skill_share_lo"] <= s["skill_share"] <= s["skill_share_hi"]
        inside += s["skill_share_lo"] <= 0.6 <= s["skill_share_hi"]
    assert 0.92 <= inside / 300 <= 0.985


def test_a_killed_ladder_resumes_from_its_saved_matches_to_the_same_ladder(tmp_path, monkeypatch, capsys):
    """Item 5: the ladder saves each finished match; a rerun after a kill plays only what was missing."""
    from boardsim import cli, executors

    argv = ["ladder", "art_deco", "--policies", "par,eligibility", "--budgets", "3", "--games", "20", "--quiet"]
    assert cli.main([*argv, "--out", str(tmp_path / "whole")]) == 0
    whole = pd.read_csv(tmp_path / "whole" / "ladder.csv")
    real, calls = executors.per_deal, []  # each match plays through it once

    def killed(*a, **k):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(executors, "per_deal", killed)
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) == 130
    assert len(list((tmp_path / "out" / "chunks" / "matches").glob("*.npz"))) == 3
    played = []
    monkeypatch.setattr(executors, "per_deal", lambda *a, **k: played.append(1) or real(*a, **k))
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) == 0
    n_matches = len(list((tmp_path / "whole" / "chunks" / "matches").glob("*.npz")))
    assert len(played) == n_matches - 3
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "out" / "ladder.csv"), whole)


def test_the_ladder_on_worker_processes_is_the_local_ladder(tmp_path, capsys):
    """Issue 42 item 5: tournament and ladder matches run on --executor processes with the local result."""
    from boardsim import cli

    argv = ["ladder", "art_deco", "--policies", "par", "--budgets", "3", "--games", "20", "--quiet"]
    assert cli.main([*argv, "--out", str(tmp_path / "local")]) == 0
    assert cli.main([*argv, "--out", str(tmp_path / "procs"), "--executor", "processes", "--workers", "2"]) == 0
    for name in ("ladder.csv", "tournament_pairwise.csv", "first_player.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "procs" / name), pd.read_csv(tmp_path / "local" / name))
