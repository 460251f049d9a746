"""Golden playthroughs: whole games as text, one file per game under tests/golden/, so a change to a rule,
a policy or the search shows as a readable diff of the game it changed (which bid, which card, which
score), beside the hex digests of the fingerprint tests, which cover thousands of games but say only
that something changed.

Each case is ``trace_game``'s text (the same jitted functions as the batch kernels and the search).  A
deliberate change regenerates the files with ``python tests/games/test_playthroughs.py`` and says so in
its commit message; the diff is then the review.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest

from boardsim.runner import trace_game

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# game -> cases (seed, players, policies, rules): a heuristic table, a mixed one with random play, and
# one with a search seat (its trace shows the visits of every choice it made)
CASES = {
    "art_deco": [
        (7, 3, ["par", "eligibility", "random"], {}),
        (11, 4, ["blocker", "multiple(multiple=1.3)", "eligibility", "par"], {"unsold": "pile_bottom"}),
        (3, 2, ["mcts(iterations=40)", "eligibility"], {}),
    ],
    "fliptoons": [
        (7, 2, ["fame_per_cost", "random"], {}),
        (5, 3, ["fame_per_cost", "priority", "random"], {}),
        (2, 2, ["mcts(iterations=20)", "fame_per_cost"], {}),
    ],
    "wagons": [
        (7, 2, ["gain_minus_gift", "random"], {}),
        (9, 2, ["first", "gain_minus_gift"], {}),
        (4, 2, ["mcts(iterations=20)", "gain_minus_gift"], {}),
    ],
}


def playthrough(game: str) -> str:
    parts = []
    for seed, players, policies, rules in CASES[game]:
        head = f"=== seed {seed}, {players} players, {', '.join(policies)}" + (f", rules {rules}" if rules else "")
        parts += [head, trace_game(game, seed=seed, policies=policies, players=players, rules=rules).rstrip(), ""]
    return "\n".join(parts)


@pytest.mark.parametrize("game", sorted(CASES))
def test_the_playthrough_is_the_golden_one(game):
    want = (GOLDEN / f"{game}.txt").read_text(encoding="utf-8")
    got = playthrough(game)
    if got != want:
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"golden/{game}.txt",
                                                 "now"))[:80])
        pytest.fail(f"the {game} playthrough changed (regenerate with python {Path(__file__).name} if it "
                    f"should):\n{diff}")


def test_every_game_has_a_playthrough():
    from boardsim import games

    assert sorted(CASES) == sorted(games.names())


if __name__ == "__main__":
    for name in sys.argv[1:] or CASES:
        (GOLDEN / f"{name}.txt").write_text(playthrough(name), encoding="utf-8")
        print(f"wrote {GOLDEN / name}.txt")
