"""The README documents every game, rule option, policy and summary column."""

from pathlib import Path

from boardsim import games
from boardsim.report.tables import SUMMARY_BASE

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_every_game_option_and_policy_is_documented():
    for name in games.names():
        game = games.get(name)
        assert f"`{game.name}`" in README
        for opt in game.options:
            assert f"`{opt.name}`" in README, f"{name} option {opt.name} missing from README"
        for pol in game.policies:
            assert f"`{pol.name}`" in README, f"{name} policy {pol.name} missing from README"
            for param in pol.params:
                assert f"`{param.name}`" in README, f"{name} policy {pol.name} param {param.name} missing"


def test_summary_columns_are_documented():
    for col in SUMMARY_BASE:
        assert f"`{col}`" in README


def test_quick_start_has_two_commands_and_ci_runs_the_test_command():
    block = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.strip().splitlines() if line.strip()]
    assert len(commands) == 2
    assert "boardsim sweep scenarios/quickstart.toml" in commands[0]
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "python3 -m pytest -q" in commands[1] and "python3 -m pytest -q" in ci
