"""Every registered game produces a full report: PNGs that open, CSVs with their documented columns."""

import numpy as np
import pandas as pd
import pytest
from matplotlib import image

from boardsim import games
from boardsim.report.build import write_meta
from boardsim.report.tables import SUMMARY_BASE
from boardsim.scenario import parse
from boardsim.sweeps import sweep
from boardsim.tournaments import run_tournament, write_tournament

COLUMNS = {
    "summary.csv": SUMMARY_BASE,
    "positions.csv": ["scenario", "cell", "label", "players", "position", "games", "wins", "win_rate", "win_lo",
                      "win_hi"],
    "scores.csv": ["cell", "label", "seat", "policy", "score", "count"],
    "rounds.csv": ["cell", "label", "rounds", "count"],
    "tournament_pairwise.csv": ["policy", "opponent", "games", "wins", "win_rate", "win_lo", "win_hi"],
    "tournament_ratings.csv": ["policy", "rating", "rating_lo", "rating_hi", "se", "elo"],
}


def check_folder(out):
    pngs = list(out.glob("*.png"))
    assert pngs
    for png in pngs:
        pixels = image.imread(png)
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100 and pixels.std() > 0
    for name, cols in COLUMNS.items():
        if (out / name).exists():
            frame = pd.read_csv(out / name)
            assert len(frame) > 0 and set(cols) <= set(frame.columns), name
    html = (out / "index.html").read_text()
    for png in pngs:
        assert png.name in html
    assert "boardsim version" in html and "seed" in html


def check_answer(out, summary):
    """The answer section names each cell's winner (highest policy-row win rate) with its interval and the
    fair share."""
    html = (out / "index.html").read_text()
    section = html[html.index("<section id='answer'>"):html.index("</section>")]
    assert html.index("<section id='answer'>") < html.index("<img") < html.index("id='provenance'")
    rows = summary[summary["level"] == "policy"]
    for _, part in rows.groupby("cell"):
        best = part.sort_values("win_rate", ascending=False).iloc[0]
        players = int(best["players"])
        expect = (f"{best['policy']} wins {100 * best['win_rate']:.1f}% [{100 * best['win_lo']:.1f}, "
                  f"{100 * best['win_hi']:.1f}] of {players}-player games")
        assert expect in section
        assert f"(fair share {100 / players:.3g}%)" in section


@pytest.mark.parametrize("name", games.names())
def test_sweep_report_for_each_game(name, tmp_path, layout_checked):
    game = games.get(name)
    players = [p for p in range(max(2, game.min_players), game.max_players + 1)][:2]
    extra = {"grid": {"players": players}}
    if len(players) == 1:  # one player count: two cells from the second seat's policy
        extra = {"players": players[0], "seats": [{"policy": game.default_policy}] * players[0],
                 "grid": {"seats[1].policy": [p.name for p in game.policies][:2]}}
    sc = parse({"name": f"t-{name}", "title": f"{game.title} test", "game": name, "games": 300, "seed": 1,
                **extra})
    result = sweep(sc, out=tmp_path / name, progress=False)
    assert result.complete and result.cells_total == 2
    for required in ("summary.csv", "positions.csv", "scores.csv", "rounds.csv", "winrate.png", "scores.png"):
        assert (tmp_path / name / required).exists()
    check_folder(tmp_path / name)
    # every chart of the folder went through the layout check (text inside, legends off the data)
    assert {p.split("/")[-1] for p in layout_checked} == {p.name for p in (tmp_path / name).glob("*.png")}
    summary = pd.read_csv(tmp_path / name / "summary.csv")
    check_answer(tmp_path / name, summary)
    ends = [f"end_{r}" for r in game.end_reasons]
    assert set(ends) <= set(summary.columns)
    assert np.allclose(summary.groupby("cell")[ends].first().sum(axis=1), 1.0)
    if name == "wagons":  # the bundled deck has synthetic cards: the report says so
        assert "Synthetic data were in play" in (tmp_path / name / "index.html").read_text()


@pytest.mark.parametrize("name", games.names())
def test_tournament_report_for_each_game(name, tmp_path, layout_checked):
    game = games.get(name)
    policies = [p.name for p in game.policies][:3]
    players = max(2, game.min_players)
    r = run_tournament(game, policies, players=players, games=200, seed=2)
    write_tournament(r, tmp_path)
    write_meta(tmp_path, "t", "", {"seed": 2})
    assert (tmp_path / "heatmap.png").exists() and (tmp_path / "ratings.png").exists()
    assert {"heatmap.png", "ratings.png"} <= {p.split("/")[-1] for p in layout_checked}
    check_folder(tmp_path)
    top = r.ratings.sort_values("rating", ascending=False).iloc[0]["policy"]
    assert f"{top} rates highest" in (tmp_path / "index.html").read_text()
