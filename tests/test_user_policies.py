"""Rule lists and custom scorers from the user's side: the CLI's one-line errors, the bundled rule
scenarios, and the example script (each game's own equivalence tests sit in tests/games/<game>/)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from boardsim import cli
from boardsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
RULE_SCENARIOS = sorted(ROOT.glob("scenarios/*-rules.toml"))


def _toml(value) -> str:
    """Just enough TOML for the scenarios below (tables, lists, strings, numbers, booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml(v)}' for k, v in value.items()) + " }"
    return repr(value)


def write(raw: dict, path: Path) -> Path:
    lines = [f'"{k}" = {_toml(v)}' for k, v in raw.items() if not isinstance(v, (dict, list)) or k == "seats"]
    lines += [f"[{k}]\n" + "\n".join(f'"{a}" = {_toml(b)}' for a, b in v.items())
              for k, v in raw.items() if isinstance(v, dict)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_game_bundles_a_rule_scenario_that_loads():
    assert {p.name.split("-rules")[0] for p in RULE_SCENARIOS} == {"art-deco", "fliptoons", "wagons"}
    for path in RULE_SCENARIOS:
        sc = load_scenario(path)
        assert sc.seats[0].policy == "rules" and any("seats[0].params." in k for k in sc.grid)


ROUND = {"art-deco": "round", "fliptoons": "round", "wagons": "turn"}  # a feature each game has
BREAKS = [
    ("if", "no_such_feature > 1", "unknown feature 'no_such_feature'"),
    ("if", "{f} > $nope", "unknown parameter $nope"),
    ("if", "({f} > 1", "unbalanced parentheses"),
    ("if", "{f} + 1", "is a number; allowed: a condition"),
    ("if", "{f} and 1", "'and' needs a truth value"),
    ("action", "no_such_action", "unknown action 'no_such_action'"),
]


@pytest.mark.parametrize("path", RULE_SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("part, text, message", BREAKS, ids=[b[2][:24] for b in BREAKS])
def test_a_bad_rule_is_one_error_line_and_exit_2_with_nothing_written(path, part, text, message, tmp_path,
                                                                      capsys):
    raw = tomllib.loads(path.read_text())
    rule = dict(raw["seats"][0]["params"]["rules"][0])
    if part == "if":
        rule["if"] = text.format(f=ROUND[path.name.split("-rules")[0]])
        key = "seats[0].params.rules[0].if"
    else:
        rule[text] = True
        key = f"seats[0].params.rules[0].{text}"
    raw["seats"][0]["params"]["rules"][0] = rule
    bad = write(raw, tmp_path / "bad.toml")
    out = tmp_path / "out"
    assert cli.main(["sweep", str(bad), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {bad}: {key}: ") and message in err[0], err
    assert not out.exists()


TARGET_ACTION = {"art-deco": "sell", "fliptoons": "hire", "wagons": "draft"}  # an action that takes a target


@pytest.mark.parametrize("path", RULE_SCENARIOS, ids=lambda p: p.stem)
def test_an_unknown_target_is_one_error_line(path, tmp_path, capsys):
    raw = tomllib.loads(path.read_text())
    action = TARGET_ACTION[path.name.split("-rules")[0]]
    rules = raw["seats"][0]["params"]["rules"]
    i = next(i for i, r in enumerate(rules) if action in r)
    rules[i] = {action: "NoSuchTarget"}
    bad = write(raw, tmp_path / "bad.toml")
    assert cli.main(["sweep", str(bad), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"seats[0].params.rules[{i}].{action}: got 'NoSuchTarget'; allowed: one of" in err[0]


def test_a_scenario_names_a_scorer_beside_it(tmp_path, capsys):
    (tmp_path / "my_bots_beside.py").write_text(
        "from numba import njit\n\n@njit\ndef cheap(features, candidates, params, scores):\n"
        "    for i in range(candidates.shape[0]):\n        scores[i] = -candidates[i, 2]\n")
    sc = write({"name": "beside", "game": "fliptoons", "players": 2, "games": 40, "seats": [
        {"policy": "custom", "params": {"function": "my_bots_beside:cheap"}}, {"policy": "fame_per_cost"}]},
        tmp_path / "beside.toml")
    assert cli.main(["sweep", str(sc), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert (tmp_path / "o" / "summary.csv").exists()


def test_the_custom_policy_example_ranks_its_scorer():
    # as a user runs it: a script whose scorer lives in __main__ (the local executor plays it)
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "custom_policy.py"), "200"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    ratings = done.stdout.split("\n\n")[1]
    assert "fame_now(late=9)" in ratings and "fame_per_cost" in ratings and "highest_rank" in ratings


def test_a_scorer_named_only_in_the_grid_is_looked_up_beside_the_scenario(tmp_path):
    (tmp_path / "grid_bots_beside.py").write_text(
        "from numba import njit\n\n@njit\ndef cheap(features, candidates, params, scores):\n"
        "    for i in range(candidates.shape[0]):\n        scores[i] = -candidates[i, 2]\n")
    sc = write({"name": "grid-beside", "game": "fliptoons", "players": 2, "games": 40,
                "seats": [{"policy": "custom", "params": {"function": "tests.games.fliptoons.scorers:fame_per_cost"}},
                          {"policy": "fame_per_cost"}],
                "grid": {"seats[0].params.function": ["grid_bots_beside:cheap"]}}, tmp_path / "grid.toml")
    assert load_scenario(sc).cells()[0].seats[0].params["function"] == "grid_bots_beside:cheap"
