"""The README and the guide in docs/ document every game, rule option, policy and summary column, point
only at files the repository has, and stay in shape: a README of at most 150 lines that is a front page,
and a guide whose every page is in mkdocs.yml's navigation (.ci/run builds it with warnings as errors)."""

import re
import subprocess
from pathlib import Path

from boardsim import games
from boardsim.report.tables import SUMMARY_BASE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
README_MAX_LINES = 150
# The guide's reference page for the files a sweep writes.
OUTPUT_FILES = ROOT / "docs" / "reference" / "output-files.md"
# Each registered game's rules page under docs/rules/.
# each game's rules page, as the game declares it (tests/games/test_contract.py checks what the page names)
RULE_PAGES = {name: Path(games.get(name).rules_page).name for name in games.names()}
# Rule specs kept outside the repository, which a user who clones it does not have. Built from two
# parts so that this file does not match its own test.
OUTSIDE_RULES = "shared" + "/rules/"
# [text](target) and ![alt](target) links in Markdown; the target ends at whitespace or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def test_summary_columns_are_documented():
    text = OUTPUT_FILES.read_text()
    for col in SUMMARY_BASE:
        assert f"`{col}`" in text, f"{col}: missing from {OUTPUT_FILES.relative_to(ROOT)}"


def test_readme_is_a_front_page():
    # the rest lives in the guide: a README that grows past a screenful or two has started repeating it
    assert len(README.splitlines()) <= README_MAX_LINES
    assert "docs/img/" in README  # the one answered question shows its chart


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


def test_the_readme_names_every_game_with_a_link_to_its_rules_page():
    for name, page in RULE_PAGES.items():
        lines = [line for line in README.splitlines() if f"(`{name}`" in line]
        assert lines, f"README has no line naming the game `{name}`"
        # the game's entry runs from its line to the next list item or blank line
        start = README.index(lines[0])
        entry = README[start:].split("\n\n", 1)[0].split("\n- ", 1)[0]
        assert f"(docs/rules/{page})" in entry, f"README's entry for {name} does not link docs/rules/{page}"


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_markdown_files_have_links():
    # guards the link check below against a pattern that silently matches nothing
    links = LINK.findall(README)
    assert "docs/development.md" in links and "docs/img/quickstart-winrate.png" in links
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


def _nav_pages() -> list[str]:
    """The page paths (relative to docs/) that mkdocs.yml's nav lists, read without a YAML library: each nav
    entry is a "- Title: page.md" line below "nav:" (the title may hold a colon, in quotes)."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text.split("\nnav:", 1)[1]
    return re.findall(r"^\s*-\s.*:\s*([\w./-]+\.md)\s*$", nav, flags=re.M)


def test_every_guide_page_is_in_the_navigation():
    pages = _nav_pages()
    assert "index.md" in pages and "guide/add-a-game.md" in pages and "reference/api.md" in pages
    on_disk = sorted(str(f.relative_to(ROOT / "docs")) for f in (ROOT / "docs").rglob("*.md"))
    assert sorted(pages) == on_disk, "mkdocs.yml's nav and the pages under docs/ differ"


def test_ci_builds_the_guide_with_warnings_as_errors():
    # the build itself (~5 s once mkdocs is installed) is left to .ci/run, which installs the docs extra
    ci = (ROOT / ".ci" / "run").read_text()
    assert "[test,docs]" in ci and "mkdocs build --strict" in ci
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r"^docs = \[.*mkdocstrings", pyproject, flags=re.M)


def test_docstrings_use_no_sphinx_roles_the_reference_would_print_literally():
    role = re.compile(r":(?:func|class|mod|meth|attr|data|obj|exc):`")
    found = [f"{p.relative_to(ROOT)}:{i + 1}" for p in sorted((ROOT / "boardsim").rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines()) if role.search(line)]
    assert not found, found


def test_the_reference_shows_defaults_as_values_and_they_are_the_constants():
    import inspect

    from boardsim.analysis import ladder, learn, patch_job
    from boardsim.cell import DEFAULT_CHUNK
    from boardsim.runner import simulate

    def default(f, name):
        return inspect.signature(f).parameters[name].default

    assert default(simulate, "chunk_size") == DEFAULT_CHUNK
    assert default(ladder.run_ladder, "budgets") == ladder.DEFAULT_BUDGETS
    assert default(learn.learn, "teacher") == learn.DEFAULT_TEACHER
    assert (default(patch_job.patch, "max_edits"), default(patch_job.patch, "span"),
            default(patch_job.patch, "games")) == (patch_job.DEFAULT_MAX_EDITS, patch_job.DEFAULT_SPAN,
                                                   patch_job.DEFAULT_GAMES)


def test_the_api_reference_names_every_public_function_as_users_call_it():
    import boardsim

    text = (ROOT / "docs" / "reference" / "api.md").read_text()
    lazy = [n for n in boardsim.__all__ if n not in ("BadInput", "games", "__version__")]
    for name in lazy:
        assert f'heading: "boardsim.{name}"' in text or f"::: boardsim.{name}\n" in text, name
