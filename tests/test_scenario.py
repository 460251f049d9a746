import os
from pathlib import Path

import pandas as pd
import pytest

from boardsim.errors import BadInput
from boardsim.scenario import load_scenario, parse

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_scenarios_load():
    paths = sorted((ROOT / "scenarios").glob("*.toml"))
    assert paths
    for path in paths:
        sc = load_scenario(path)
        assert sc.cells()


def test_grid_is_a_cartesian_product():
    sc = parse({
        "game": "art_deco",
        "seats": [{"policy": "par"}, {"policy": "multiple"}],
        "grid": {"players": [2, 3], "rules.rounds": [5, 10, 15], "seats[1].params.multiple": [1.1, 1.5],
                 "cards.v12.copies": [0, 9]},
    })
    cells = sc.cells()
    assert len(cells) == 2 * 3 * 2 * 2
    last = cells[-1]
    assert last.n_players == 3 and last.prepared[0].rules["rounds"] == 15
    assert last.seats[1].params == {"multiple": 1.5}
    assert int(last.cards.loc[last.cards["name"] == "v12", "copies"].iloc[0]) == 9


def test_dotted_grid_keys_from_toml(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('game = "art_deco"\n[grid]\nrules.rounds = [4, 8]\n')
    assert [c.values for c in load_scenario(f).cells()] == [{"rules.rounds": 4}, {"rules.rounds": 8}]


@pytest.mark.parametrize(
    "raw, key, words",
    [
        ({"game": "chess"}, "game", "unknown game"),
        ({"game": "art_deco", "seats": [{"policy": "greedyy"}]}, "seats[0].policy", "known: random"),
        ({"game": "art_deco", "rules": {"roundz": 3}}, "rules.roundz", "unknown option"),
        ({"game": "art_deco", "rules": {"rounds": -1}}, "rules.rounds", "allowed: an integer in [1, 200]"),
        ({"game": "art_deco", "rules": {"unsold": "burn"}}, "rules.unsold", "one of 'discard'"),
        ({"game": "art_deco", "cards": {"v13": {"copies": 1}}}, "cards.v13", "unknown card"),
        ({"game": "art_deco", "cards": {"v12": {"colour": 1}}}, "cards.v12.colour", "unknown card field"),
        ({"game": "art_deco", "players": 7}, "players", "2 to 4 players"),
        ({"game": "art_deco", "gmaes": 7}, "gmaes", "unknown key"),
        ({"game": "art_deco", "grid": {"rules.rounds": []}}, "grid.rules.rounds", "non-empty list"),
        ({"game": "art_deco", "grid": {"seats[3].policy": ["par"]}}, "grid.seats[3].policy", "does not exist"),
        ({"game": "art_deco", "grid": {"rules.rounds": [5, 0]}}, "rules.rounds", "grid cell"),
        ({"game": "art_deco", "seats": [{"policy": "multiple", "params": {"multiple": -2}}]},
         "seats[0].params.multiple", "allowed"),
    ],
)
def test_bad_scenarios_name_the_key(raw, key, words):
    with pytest.raises(BadInput) as err:
        parse(raw, "x.toml")
    assert err.value.key == key
    assert words in err.value.message
    assert err.value.line().startswith("x.toml: ")


def test_malformed_toml_names_the_file(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("game = \n")
    with pytest.raises(BadInput) as err:
        load_scenario(f)
    assert err.value.file == str(f) and "malformed TOML" in err.value.message


def test_a_skill_table_is_the_first_grid_axis_and_each_level_plays_every_seat():
    sc = parse({"game": "fliptoons", "players": 3, "seats": [{"policy": "random"}, {"policy": "highest_rank"}],
                "skill": {"levels": ["fame_per_cost", {"policy": "mcts", "params": {"iterations": 20}}]},
                "grid": {"rules": {"fame_goal": [25, 30]}}})
    assert list(sc.grid) == ["skill", "rules.fame_goal"]
    cells = sc.cells()
    assert len(cells) == 4
    assert [s.label() for s in cells[0].seats] == ["fame_per_cost"] * 3
    assert [s.label() for s in cells[3].seats] == ["mcts(iterations=20)"] * 3
    assert cells[3].values == {"skill": "mcts(iterations=20)", "rules.fame_goal": 30}


def test_a_sweep_with_a_skill_axis_reports_the_first_player_edge_per_level(tmp_path):
    from boardsim.report.answer import skill_answer
    from boardsim.sweeps import sweep

    f = tmp_path / "s.toml"
    f.write_text('game = "art_deco"\nplayers = 2\ngames = 40\nseed = 2\n[skill]\nlevels = ["random", "par"]\n'
                 '[grid]\n"rules.rounds" = [3, 4]\n')
    sweep(f, out=tmp_path / "out", progress=False)
    pos = pd.read_csv(tmp_path / "out" / "positions.csv")
    assert sorted(set(pos["label"])) == ["skill=par; rounds=3", "skill=par; rounds=4", "skill=random; rounds=3",
                                         "skill=random; rounds=4"]
    text = skill_answer(pos)
    assert text[0].startswith("First player's win rate by skill level") and "rounds=3 at 2 players: random" in text[0]
    assert "skill" in text[1]
    page = (tmp_path / "out" / "index.html").read_text()
    assert page.index("First player&#x27;s win rate by skill level") < page.index("<img")


@pytest.mark.parametrize(("entry", "key"), [
    ({"policy": "mcts", "params": {"iterations": -5}}, "tournament.policies[1].params.iterations"),
    ({"policy": "par", "params": {"nonsense": 1}}, "tournament.policies[1].params.nonsense"),
    ("no_such_policy", "tournament.policies[1]"),
])
def test_a_tournament_policy_is_checked_with_its_parameters_before_anything_plays(entry, key):
    """D1: a bad [tournament] entry is refused when the scenario is read, naming the entry, not after the
    sweep has played and written its cells."""
    with pytest.raises(BadInput) as e:
        parse({"game": "art_deco", "tournament": {"policies": ["par", entry], "games": 10}})
    assert e.value.key == key, e.value.key


def test_a_tournament_field_is_checked_too():
    with pytest.raises(BadInput) as e:
        parse({"game": "art_deco", "tournament": {"policies": ["par"], "mode": "field",
                                                  "field": {"policy": "multiple", "params": {"multiple": -1}}}})
    assert e.value.key.startswith("tournament.field"), e.value.key


@pytest.mark.parametrize("text", [
    "x = " + "[" * 5000 + "]" * 5000,  # deeper than tomllib's recursion reaches
    "[grid]\n\"rules.rounds\" = " + "[" * 40 + "6" + "]" * 40,  # readable, but deeper than any scenario needs
    "[" + ".".join(["a"] * 60) + "]\nx = 1\n",
])
def test_a_deeply_nested_scenario_is_one_error_line_not_a_recursion(tmp_path, text):
    """D4: nesting gets one BadInput naming the file (and the key where it can), not a 3,000-line traceback."""
    path = tmp_path / "deep.toml"
    path.write_text('game = "art_deco"\n' + text)
    with pytest.raises(BadInput) as e:
        load_scenario(path)
    assert "nested too deeply" in e.value.message and e.value.file == str(path)


def test_a_non_utf8_file_name_with_a_name_key_sweeps_and_writes_its_report(tmp_path):
    """D5: with ``name`` set, a file name that is no UTF-8 text is only a path: the sweep writes every file."""
    from boardsim.sweeps import sweep

    path = tmp_path / os.fsdecode(b"caf\xe9.toml")
    path.write_text('name = "cafe"\ngame = "art_deco"\ngames = 20\nseed = 1\n')
    result = sweep(path, out=tmp_path / "out", progress=False)
    assert result.complete
    assert (tmp_path / "out" / "index.html").is_file() and list((tmp_path / "out").glob("*.png"))
