"""The README and docs/ document every game, rule option, policy and summary column, and point only at
files the repository has."""

import re
import subprocess
from pathlib import Path

from boardsim import games
from boardsim.report.tables import SUMMARY_BASE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# Each registered game's rules page under docs/rules/.
RULE_PAGES = {"art_deco": "art-deco.md", "fliptoons": "fliptoons.md", "wagons": "circle-the-wagons.md"}
# Rule specs kept outside the repository, which a user who clones it does not have. Built from two
# parts so that this file does not match its own test.
OUTSIDE_RULES = "shared" + "/rules/"
# [text](target) and ![alt](target) links in Markdown; the target ends at whitespace or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def undocumented(game, text: str) -> list[str]:
    """The game's name, options, policies and policy parameters that ``text`` does not name in backticks."""
    names = [game.name] + [o.name for o in game.options]
    for pol in game.policies:
        names += [pol.name] + [p.name for p in pol.params]
    return [n for n in names if f"`{n}`" not in text]


def test_every_game_option_and_policy_is_documented():
    for name in games.names():
        assert undocumented(games.get(name), README) == [], f"{name}: missing from README"


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


def _tracked_files() -> list[Path]:
    """Every file git tracks in the repository (the working copy of each)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree instead
        skip = {".git", "__pycache__"}
        return [f for f in ROOT.rglob("*") if f.is_file() and not skip & set(f.relative_to(ROOT).parts)]
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_file_points_at_rules_outside_the_repository():
    files = _tracked_files()
    assert ROOT / "README.md" in files
    offenders = [
        str(f.relative_to(ROOT)) for f in files
        if f.is_file() and OUTSIDE_RULES.encode() in f.read_bytes()
    ]
    assert offenders == [], f"these files refer to {OUTSIDE_RULES} (use docs/rules/ instead): {offenders}"


def test_every_game_has_a_rules_page_with_every_option_and_policy():
    assert sorted(games.names()) == sorted(RULE_PAGES)
    for name, page in RULE_PAGES.items():
        text = (ROOT / "docs" / "rules" / page).read_text()
        assert undocumented(games.get(name), text) == [], f"{name}: missing from docs/rules/{page}"


def test_every_game_section_of_the_readme_links_its_rules_page():
    for name, page in RULE_PAGES.items():
        title = games.get(name).title.split(" (")[0]
        section = README.split(f"### {title}", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
        assert f"(docs/rules/{page})" in section, f"README's {title} section does not link docs/rules/{page}"


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_markdown_files_have_links():
    # guards the link check below against a pattern that silently matches nothing
    links = LINK.findall(README)
    assert "docs/development.md" in links and "reports/examples/art_deco/heatmap.png" in links
    assert len(_markdown_files()) >= 5


def test_every_relative_link_points_at_an_existing_file():
    broken = []
    for md in _markdown_files():
        for target in LINK.findall(md.read_text()):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL (https:, mailto:) or an anchor on the same page
            path = target.split("#", 1)[0]
            if not (md.parent / path).exists():
                broken.append(f"{md.relative_to(ROOT)}: {target}")
    assert broken == []
