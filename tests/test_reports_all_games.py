"""Every registered game produces a full report: PNGs that open, CSVs with their documented columns."""

import pandas as pd
import pytest
from matplotlib import image

from boardsim import games
from boardsim.analysis.tournament import run_tournament
from boardsim.report.build import write_meta
from boardsim.report.tables import SUMMARY_BASE
from boardsim.scenario import parse
from boardsim.sweeps import sweep, write_tournament

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


@pytest.mark.parametrize("name", games.names())
def test_sweep_report_for_each_game(name, tmp_path):
    game = games.get(name)
    players = [p for p in range(game.min_players, game.max_players + 1)][:2]
    sc = parse({"name": f"t-{name}", "title": f"{game.title} test", "game": name, "games": 300, "seed": 1,
                "rotate_seats": True, "grid": {"players": players}})
    result = sweep(sc, out=tmp_path / name, progress=False)
    assert result.complete
    for required in ("summary.csv", "positions.csv", "scores.csv", "rounds.csv", "winrate.png", "scores.png"):
        assert (tmp_path / name / required).exists()
    check_folder(tmp_path / name)


@pytest.mark.parametrize("name", games.names())
def test_tournament_report_for_each_game(name, tmp_path):
    game = games.get(name)
    policies = [p.name for p in game.policies][:3]
    players = max(2, game.min_players)
    r = run_tournament(game, policies, players=players, games=200, seed=2)
    write_tournament(r, tmp_path)
    write_meta(tmp_path, "t", "", {"seed": 2})
    assert (tmp_path / "heatmap.png").exists() and (tmp_path / "ratings.png").exists()
    check_folder(tmp_path)
