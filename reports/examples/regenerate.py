"""Regenerate the small example reports committed under reports/examples/.

Run from the repository root:  python reports/examples/regenerate.py [NAME ...]
(names of examples to rebuild, e.g. fliptoons-patch fliptoons-cards-skill; none: every one).
Each example is a bundled scenario run with few games, so it takes seconds;
the real scenarios in scenarios/ use many more.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from boardsim import games
from boardsim.analysis.jobs import cards_job
from boardsim.analysis.patch_job import patch
from boardsim.cli import parse_policies
from boardsim.report.build import build_report
from boardsim.sweeps import sweep
from boardsim.tournaments import run_tournament, write_tournament

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# game -> (scenario, games per cell, tournament policies, tournament seats)
EXAMPLES = {
    "art_deco": ("scenarios/art-deco-policies.toml", 20_000, None, 2),  # the scenario has its own [tournament]
    "wagons": ("scenarios/wagons-draft.toml", 4_000, ["first", "gain", "gain_minus_gift", "random"], 2),
    "fliptoons": ("scenarios/fliptoons-heuristics.toml", 4_000, None, 2),  # the scenario has its own [tournament]
}


# the skill scenarios (issue 26) run as bundled, at their own size (minutes each, with search seats)
SKILL = ("fliptoons-skill", "art-deco-skill", "wagons-skill")

# balance patches (issue 27), at the sizes docs/patch.md quotes; the skill example is judged by the learned player
PATCHES = {
    "fliptoons-patch": ("fliptoons", {"players": [2, 3, 4]}),
    "art-deco-patch": ("art_deco", {"players": [2, 3, 4], "games": 40_000}),
    "wagons-patch": ("wagons", {}),
    "fliptoons-patch-skill": ("fliptoons", {"players": [2], "games": 4_000, "judge": ["learned"]}),
}


# card strength (issue 41): every card at 2-4 players under the default heuristic and the learned player (the
# size of docs/skill.md's figures), and a fair-value sweep of two cards across both levels
CARDS = {
    "fliptoons-cards-skill": {"players": [2, 3, 4], "base": ["fame_per_cost", "learned"], "games": 20_000, "seed": 26},
    "fliptoons-cards-sweep": {"players": [2, 3, 4], "base": ["fame_per_cost", "learned"], "games": 5_000, "seed": 26,
                              "cards": ["Cat", "Snake"], "sweep": "fame", "span": 2},
}


def main() -> None:
    only = set(sys.argv[1:])
    for name, kwargs in CARDS.items():
        if not only or name in only:
            out = HERE / name
            shutil.rmtree(out, ignore_errors=True)
            cards_job("fliptoons", out=out, **kwargs)
            print(f"wrote {out.relative_to(ROOT)}")
    if only:
        for name, (game, kwargs) in PATCHES.items():
            if name in only:
                _patch(name, game, kwargs)
        return
    for name in games.names():
        if name not in EXAMPLES:
            print(f"no example configured for {name}")
            continue
        scenario, n_games, policies, seats = EXAMPLES[name]
        out = HERE / name
        shutil.rmtree(out, ignore_errors=True)
        sweep(ROOT / scenario, out=out, games=n_games, progress=False)
        if policies:
            write_tournament(run_tournament(name, policies, players=seats, games=n_games // 2, seed=7,
                                            progress=False), out)
            build_report(out)
        shutil.rmtree(out / "chunks", ignore_errors=True)  # resume data is not part of an example
        print(f"wrote {out.relative_to(ROOT)}")
    for name in SKILL:
        out = HERE / name
        shutil.rmtree(out, ignore_errors=True)
        sweep(ROOT / "scenarios" / f"{name}.toml", out=out, progress=False)
        shutil.rmtree(out / "chunks", ignore_errors=True)
        print(f"wrote {out.relative_to(ROOT)}")
    for name, (game, kwargs) in PATCHES.items():
        _patch(name, game, kwargs)


def _patch(name: str, game: str, kwargs: dict) -> None:
    out = HERE / name
    shutil.rmtree(out, ignore_errors=True)
    if "judge" in kwargs:
        kwargs = {**kwargs, "judge": [s for text in kwargs["judge"] for s in parse_policies(text)]}
    patch(game, out=out, say=None, **kwargs)
    shutil.rmtree(out / "chunks", ignore_errors=True)
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
