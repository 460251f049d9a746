from pathlib import Path

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
    assert last.n_players == 3 and last.rotations[0].rules["rounds"] == 15
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
