"""The ``mcts`` player is a policy like any other (issue 25): it plays in ``simulate`` under every seating
design, in ``tournament``, in a ``sweep`` scenario with its parameters on a grid, in ``cards`` as the base
and in ``optimize`` (its ``c`` tuned), in every game, at budgets small enough for a test."""

from __future__ import annotations

import numpy as np
import pytest

import boardsim
from boardsim import cli
from boardsim.analysis.balance import card_strength
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.runner import as_seat

# per game: a small search seat and a cheap opponent
GAMES = {
    "art_deco": (("mcts", {"iterations": 8}), "par"),
    "fliptoons": (("mcts", {"iterations": 8}), "fame_per_cost"),
    "wagons": (("mcts", {"iterations": 6, "spots": 2}), "gain"),
}
# every game's bad mcts parameters, each with the key its error names; then each game's own
BAD = [({"iterations": 0}, "iterations"), ({"iterations": -1}, "iterations"), ({"playout": "mcts"}, "playout"),
       ({"playout": "nope"}, "playout"), ({"c": -0.1}, "c"), ({"horizon": -1}, "horizon"),
       ({"opponents": "nope"}, "opponents"), ({"iteration": 5}, "")]
OWN_BAD = {
    "art_deco": [({"playout": "rules"}, "playout"), ({"bids": 9}, "bids"), ({"widening": -1}, "widening")],
    "fliptoons": [({"playout": "lookahead"}, "playout")],
    "wagons": [({"spots": 9}, "spots"), ({"widening": -1}, "widening")],
}


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("seating", ["all", "cyclic", "fixed"])
def test_simulate_under_every_seating_design(game, seating):
    search, other = GAMES[game]
    df = boardsim.simulate(game, 4, [search, other], seed=1, seating=seating)
    assert len(df) >= 4
    np.testing.assert_allclose(df.filter(like="win").iloc[:, :2].sum(axis=1), 1.0)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_tournament_ranks_the_search_player(game):
    search, other = GAMES[game]
    res = boardsim.tournament(game, [search, other], games=4, seed=2, progress=False)
    labels = set(res.pairwise["policy"])
    assert any(label.startswith("mcts(") for label in labels) and len(res.pairwise) == 2
    assert res.pairwise["games"].min() >= 4


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sweep_grids_a_search_parameter(game, tmp_path):
    search, other = GAMES[game]
    params = ", ".join(f"{k} = {v}" for k, v in search[1].items())
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        f'game = "{game}"\ngames = 4\nseed = 3\n[[seats]]\npolicy = "mcts"\nparams = {{ {params} }}\n'
        f'[[seats]]\npolicy = "{other}"\n[grid]\n"seats[0].params.c" = [0.3, 1.0]\n')
    res = boardsim.sweep(scenario, out=tmp_path / "out", progress=False)
    assert sorted(float(c) for c in res.summary["seats[0].params.c"].unique()) == [0.3, 1.0]
    assert res.summary["policy"].str.startswith("mcts(c=").any()
    assert (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_optimize_tunes_the_exploration_constant(game):
    search, other = GAMES[game]
    res = boardsim.optimize(game, [search, other], seat=0, bounds={"c": [0.1, 2.0]}, games=4, check_games=4,
                            maxiter=1, popsize=2, seed=4)
    assert 0.1 <= res.best["c"] <= 2.0


def test_cards_measures_against_a_search_base():
    g = get("fliptoons")
    table = g.card_table()
    frame = card_strength(g, [2], as_seat(("mcts", {"iterations": 4})), ["Tiger"], table, 8, 5, None)
    assert list(frame["card"]) == ["Tiger"] and frame["effect"].between(-1, 1).all()


@pytest.mark.parametrize("game,params,key", [(g, p, k) for g in sorted(GAMES) for p, k in BAD + OWN_BAD[g]])
def test_bad_parameters_name_their_key(game, params, key):
    g = get(game)
    with pytest.raises(BadInput) as e:
        g.prepare(2, [Seat("mcts", params), Seat(GAMES[game][1])], None, g.card_table())
    assert f"seats[0].params{'.' + key if key else ''}" in str(e.value)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_pool_over_the_memory_limit_is_refused(game, monkeypatch):
    monkeypatch.setenv("BOARDSIM_MCTS_MEMORY", str(10**6))
    g = get(game)
    with pytest.raises(BadInput) as e:
        g.prepare(2, [Seat(GAMES[game][1]), Seat("mcts", {"iterations": 10**6})], None, g.card_table())
    assert "seats[1].params.iterations" in str(e.value)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_cli_bad_mcts_parameter_is_one_error_line(game, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["play", game, "--policies", f"mcts(iterations=0),{GAMES[game][1]}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error:") and "iterations" in err
    assert list(tmp_path.iterdir()) == []
