"""The replay page in a real browser (Debian's Chromium, driven by Playwright without a browser of its own):
it loads from ``file://`` without a console error, the arrow keys and buttons move the step, the option
table shows the chosen action first, a chart point jumps to its round, and the omniscient toggle shows the
round's log.  One page per game.

CI (``.ci/run``) installs Chromium and sets BOARDSIM_BROWSER_TEST=required, so there a missing browser fails
the test; elsewhere a machine without Chromium or Playwright skips it, saying which is missing."""

from __future__ import annotations

import os
import shutil

import pytest

from boardsim.replays import replay

TABLES = {
    "art_deco": (["learned", "eligibility"], 2),
    "fliptoons": (["learned", "fame_per_cost"], 2),
    "wagons": (["mcts(iterations=40)", "learned"], 2),
}


def _browser_or_skip():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    missing = [name for name, ok in (("chromium", chromium), ("playwright", sync_playwright)) if not ok]
    if missing:
        if os.environ.get("BOARDSIM_BROWSER_TEST") == "required":
            pytest.fail(f"the browser test is required here but {', '.join(missing)} is missing")
        pytest.skip(f"no {', '.join(missing)} on this machine (CI installs them: .ci/run)")
    return chromium, sync_playwright


@pytest.fixture(scope="module")
def browser():
    chromium, sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _step(page) -> int:
    return int(page.get_attribute("body", "data-step"))


@pytest.mark.parametrize("game", sorted(TABLES))
def test_the_page_steps_with_the_keys_and_shows_the_chosen_option_first(game, browser, tmp_path):
    policies, players = TABLES[game]
    r = replay(game, policies, players=players, seed=3, deal=1, out=tmp_path / "r.html")
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(r.path.resolve().as_uri())
    assert _step(page) == 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _step(page) == 2
    page.keyboard.press("ArrowLeft")
    assert _step(page) == 1
    page.click("#next")
    assert _step(page) == 2
    page.keyboard.press("End")
    assert _step(page) == r.steps - 1
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert _step(page) == r.steps - 1
    page.keyboard.press("Home")
    # the option table: a header row, then the chosen option first (marked)
    rows = page.locator("#options tr")
    assert rows.count() >= 3
    assert rows.nth(1).get_attribute("class") == "chosen"
    assert rows.nth(1).inner_text().startswith("\u25B6")
    # a chart point of the last round jumps to a decision of that round (or the last one before it)
    where_before = page.inner_text("#where")
    page.locator("#chart circle").last.click()
    assert _step(page) > 0 and page.inner_text("#where") != where_before
    # FlipToons and Circle the Wagons draw their public table (grids, towns) at a later step
    page.keyboard.press("End")
    assert page.is_visible("#board") == (game != "art_deco")
    if game != "art_deco":
        assert page.locator("#board rect").count() >= 6
    # the omniscient log is hidden until asked for
    assert not page.is_visible("#log")
    page.check("#omni")
    assert page.is_visible("#log") and page.inner_text("#log").strip()
    assert problems == []
    page.close()
