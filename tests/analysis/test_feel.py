"""``feel`` (analysis/feel.py, boardsim.feel, ``python -m boardsim feel``): the folder, the report's answer,
determinism across threads, chunks and executors, the scenario's [feel] table, and one ``error:`` line per
bad key or flag with nothing written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boardsim
from boardsim import cli
from boardsim.analysis.feel import feel_job
from boardsim.errors import BadInput
from boardsim.stats import feel as F


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("feel") / "f"
    assert cli.main(["feel", "fliptoons", "--players", "2,3", "--levels", "fame_per_cost,priority", "--deals", "400",
                     "--out", str(out), "--quiet", "--seed", "5"]) == 0
    return out


def test_the_folder_holds_the_tables_chart_and_an_answer_first(folder):
    for name in ("feel.csv", "leader_wins.csv", "leader_wins.png", "index.html", "run.json"):
        assert (folder / name).is_file(), name
    m = pd.read_csv(folder / "feel.csv")
    assert set(m["players"]) == {2, 3} and set(m["level"]) == {"fame_per_cost", "priority"}
    assert {name for name, _ in F.METRICS} | {"decisive_round"} == set(m["metric"])
    rates = m[m["metric"].str.endswith("_rate")]
    assert ((rates["lo"] <= rates["mean"]) & (rates["mean"] <= rates["hi"])).all()
    assert (m[m["metric"] == "rounds"]["games"] == 400).all()  # self-play: one arrangement, a game per deal
    curve = pd.read_csv(folder / "leader_wins.csv")
    assert curve["leader_wins"].between(0, 1).all() and (curve["games"] > 0).all()
    html = (folder / "index.html").read_text()
    answer = html[html.index("id='answer'"):html.index("</section>")]
    assert "At 2 players the leader after round" in answer and "fair random walk" in answer


def test_api_equals_the_folder_and_does_not_depend_on_threads_or_chunks(folder):
    api = boardsim.feel("fliptoons", players=[2, 3], levels=["fame_per_cost", "priority"], deals=400, seed=5,
                        threads=1, progress=False)
    saved = pd.read_csv(folder / "feel.csv")
    np.testing.assert_allclose(api.metrics["mean"].to_numpy(float), saved["mean"].to_numpy(float), rtol=1e-12,
                               equal_nan=True)
    from boardsim.analysis.feel import run_feel
    from boardsim.games import get
    from boardsim.seat import Seat

    # chunks of 37 deals: the deals arrive in many parts
    chunked = run_feel(get("fliptoons"), [2], [Seat("fame_per_cost", {})], deals=400, seed=5, progress=False,
                       chunk_size=37)
    mine = api.metrics[(api.metrics["players"] == 2) & (api.metrics["level"] == "fame_per_cost")]
    np.testing.assert_allclose(chunked.metrics["mean"].to_numpy(float), mine["mean"].to_numpy(float), equal_nan=True)


def test_processes_give_the_same_figures(tmp_path):
    local = feel_job("fliptoons", players=2, levels=["fame_per_cost"], deals=300, seed=2, out=tmp_path / "a",
                     progress=False)
    procs = feel_job("fliptoons", players=2, levels=["fame_per_cost"], deals=300, seed=2, out=tmp_path / "b",
                     progress=False, executor="processes", workers=2)
    pd.testing.assert_frame_equal(local.result.metrics, procs.result.metrics)
    pd.testing.assert_frame_equal(local.result.curve, procs.result.curve)


def test_a_scenario_feel_table(tmp_path):
    sc = tmp_path / "variant.toml"
    sc.write_text('name = "variant"\ngame = "fliptoons"\nseed = 3\n[rules]\nfame_goal = 25\n'
                  '[feel]\nplayers = [2]\nlevels = ["priority"]\ndeals = 200\ncomeback = 0.2\n')
    job = feel_job(str(sc), out=tmp_path / "out", progress=False)
    m = job.result.metrics
    assert set(m["level"]) == {"priority"} and set(m["deals"]) == {200}
    meta = (tmp_path / "out" / "run.json").read_text()
    assert '"fame_goal": 25' in meta and '"comeback margin": 0.2' in meta
    flag = feel_job(str(sc), deals=100, out=tmp_path / "out2", progress=False)  # a flag overrides the table
    assert set(flag.result.metrics["deals"]) == {100}


@pytest.mark.parametrize("argv, key", [
    (["feel", "fliptoons", "--players", "9"], "--players"),
    (["feel", "fliptoons", "--levels", "nonsense"], "--levels[0]"),
    (["feel", "fliptoons", "--levels", "priority,priority"], "--levels[1]"),
    (["feel", "fliptoons", "--comeback", "-1"], "--comeback"),
    (["feel", "fliptoons", "--blowout", "nan"], "--blowout"),
    (["feel", "fliptoons", "--deals", "1"], "--deals"),
    (["feel", "chess"], "target"),
])
def test_bad_flags_are_one_error_line_and_write_nothing(argv, key, tmp_path, capsys):
    out = tmp_path / "never"
    assert cli.main([*argv, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {key}"), err
    assert not out.exists()


@pytest.mark.parametrize("table, key", [
    ("[feel]\nbogus = 1\n", "feel.bogus"),
    ("[feel]\nlevels = [\"nonsense\"]\n", "feel.levels[0]"),
    ("[feel]\ndeals = 0\n", "feel.deals"),
    ("feel = 3\n", "feel"),
])
def test_bad_scenario_keys_name_the_file_and_key(table, key, tmp_path, capsys):
    sc = tmp_path / "bad.toml"
    sc.write_text('game = "fliptoons"\n' + table)
    out = tmp_path / "never"
    assert cli.main(["feel", str(sc), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and key in err[0] and "bad.toml" in err[0], err
    assert not out.exists()


def test_api_refuses_bad_settings_by_name():
    for kw, key in (({"players": 1}, "players"), ({"levels": "priority"}, "levels"), ({"seed": -1}, "seed"),
                    ({"search_deals": 0}, "search_deals")):
        with pytest.raises(BadInput) as e:
            boardsim.feel("fliptoons", **kw)
        assert e.value.key == key


def test_wagons_rounds_are_pairs_of_turns():
    from boardsim.games import get

    turns = np.array([9, 15])
    prog = np.zeros((2, 2, 15), dtype=np.int64)
    prog[:, 0, :] = np.arange(1, 16)  # seat 0's points after turn t are t (filled past the last turn)
    prog[0, 0, 9:] = 9
    p, rounds, t = get("wagons").feel_rounds({"progress": prog, "rounds": turns})
    assert rounds.tolist() == [5, 8] and t.tolist() == [9, 15]
    assert p[0, 0, :5].tolist() == [2, 4, 6, 8, 9] and p[1, 0].tolist() == [2, 4, 6, 8, 10, 12, 14, 15]
    p, rounds, t = get("fliptoons").feel_rounds({"progress": prog, "rounds": turns})
    assert rounds.tolist() == [9, 15] and t.tolist() == [18, 30]


def test_art_deco_feel_reads_its_own_win_rule():
    """Art Deco's leader is whoever would win if the game ended then (ArtDeco.standing): after its last round
    (every game at the default rules runs all 10), the leader is the winner, at every count and level."""
    f = boardsim.feel("art_deco", players=[2, 3], levels=["eligibility", "par"], deals=300, seed=4, progress=False)
    last = f.curve[f.curve["round"] == 10]
    assert len(last) == 4 and (last["leader_wins"] == 1.0).all(), last
    m = f.metrics.set_index(["players", "level", "metric"])["mean"]
    assert m[(2, "eligibility", "rounds")] == 10 and m[(3, "par", "turns")] == 30
    assert (f.curve["games"] > 0).all()


def test_wagons_feel_is_split_by_goal(tmp_path):
    """Circle the Wagons deals three goals a game at random: each figure is split by goal, in a table of its
    own and a sentence of the answer; games without such a split write none."""
    job = feel_job("wagons", levels=["gain_minus_gift"], deals=300, seed=3, out=tmp_path / "w", progress=False)
    split = pd.read_csv(tmp_path / "w" / "feel_by_goal.csv")
    assert job.result.split_kind == "goal" and len(set(split["goal"])) == 18
    rounds = split[split["metric"] == "rounds"]
    assert rounds["games_with"].sum() == 3 * 300  # three goals a game
    assert ((rounds["games_with"] + rounds["games_without"]) == 300).all()
    assert (split["p_holm"] >= split["p_value"]).all()
    html = (tmp_path / "w" / "index.html").read_text()
    assert "goals are dealt at random" in html or "No goal measurably changes" in html
    art = feel_job("art_deco", players=2, levels=["eligibility"], deals=100, out=tmp_path / "a", progress=False)
    assert art.result.split.empty and not list((tmp_path / "a").glob("feel_by_*.csv"))
