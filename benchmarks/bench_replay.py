"""How long a replay takes to build and how large its page is (issue 44: a 4-player Art Deco game under
``mcts`` in under 10 s after compile, under 2 MB), and, with ``--shots``, the guide's screenshots.

Run from the repository root:
    python benchmarks/bench_replay.py [--iterations 1000] [--deals 3] [--shots docs/img]

Builds one replay per deal of a 4-player Art Deco table where every seat plays ``mcts(iterations)`` (the
first build compiles; it is reported apart), then one per game of a smaller table, and prints each build's
seconds and the page's size beside the yardstick.  ``--shots DIR`` also opens one page per game in Debian's
Chromium (through Playwright) at a step with a choice and saves ``DIR/replay-<game>.png``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from timing import yardstick  # noqa: E402

from boardsim.replays import replay  # noqa: E402

SHOTS = {  # game: (policies, players, deal, the screenshot's step: the search seat's first choice from this one)
    "art_deco": (["mcts(iterations=300)", "eligibility", "par", "blocker"], 4, 1, 8),
    "fliptoons": (["mcts(iterations=200)", "learned"], 2, 1, 4),
    "wagons": (["mcts(iterations=300)", "learned"], 2, 1, 2),
}


def search_step(path: Path, start: int) -> int:
    """The first step from ``start`` (1-based) where seat 0, the search seat, searched among two or more
    options (shares and values shown)."""
    from boardsim.report.replay_page import read_data

    steps = read_data(path.read_text(encoding="utf-8"))["steps"]
    return next((i + 1 for i, s in enumerate(steps) if i + 1 >= start and s["seat"] == 0 and len(s["options"]) > 1
                 and s["options"][0]["share"] is not None), start)


def shots(folder: Path, out: Path) -> None:
    import shutil

    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        for game, (policies, players, deal, step) in SHOTS.items():
            r = replay(game, policies, players=players, seed=1, deal=deal, out=out / f"shot-{game}.html")
            step = search_step(r.path, step)
            page = browser.new_page(viewport={"width": 1000, "height": 1180})
            page.goto(r.path.resolve().as_uri() + f"#step={step}")
            page.screenshot(path=str(folder / f"replay-{game}.png"))
            page.close()
            print(f"{folder / f'replay-{game}.png'}: {game}, step {step} of {r.steps}", flush=True)
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--shots", type=Path, help="write the guide's screenshots into this folder")
    ap.add_argument("--out", type=Path, default=Path("reports/bench-replay"))
    args = ap.parse_args()
    print(yardstick(), flush=True)
    seats = [f"mcts(iterations={args.iterations})"] * 4
    t0 = time.perf_counter()
    replay("art_deco", seats, players=4, seed=7, deal=0, out=args.out / "warm.html")
    print(f"art_deco 4p, every seat mcts({args.iterations}): first build (compiles) {time.perf_counter() - t0:.1f} s",
          flush=True)
    for deal in range(1, args.deals + 1):
        r = replay("art_deco", seats, players=4, seed=7, deal=deal, out=args.out / f"ad-{deal}.html")
        print(f"art_deco 4p mcts({args.iterations}) deal {deal}: {r.seconds:.2f} s, {r.steps} decisions, "
              f"{r.path.stat().st_size / 1e6:.3f} MB (targets: < 10 s, < 2 MB)", flush=True)
    for game, (policies, players, deal, _step) in SHOTS.items():
        replay(game, policies, players=players, seed=1, deal=0, out=args.out / f"{game}-warm.html")
        r = replay(game, policies, players=players, seed=1, deal=deal, out=args.out / f"{game}.html")
        print(f"{game} {players}p {','.join(policies)}: {r.seconds:.2f} s, {r.steps} decisions, "
              f"{r.path.stat().st_size / 1e6:.3f} MB", flush=True)
    if args.shots:
        shots(args.shots, args.out)


if __name__ == "__main__":
    main()
