"""Results fingerprint: speed work on the placement search must not change a single game.

The digests were taken from the engine before the bitboard search (issue 17) and must stay as they are
for exact greedy placement; a deliberate change of the rules or of a policy regenerates them with
``python tests/games/wagons/test_wagons_fingerprint.py`` and says so in its commit message.
"""

from __future__ import annotations

import pytest

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME
from tests.fingerprint import result_digest

KEY = 0xF1A9
# (seat 0, seat 1, rules, games): the default policies on every fixed goal, so each goal kind is in play,
# plus the other placement modes, goal weights (negative too) and lookaheads
CASES = {
    "default": (("gain_minus_gift", {}), ("gain_minus_gift", {}), {}, 300),
    **{f"goal{g}": (("gain_minus_gift", {}), ("gain", {}), {"fixed_goal": g}, 25) for g in range(1, 19)},
    "lands": (("gain_minus_gift", {"placement": "lands"}), ("first", {}), {"tie_break": "guns"}, 60),
    "weights": (("gain_minus_gift", {"goal_weight": 2.5, "gift_weight": 0.5, "lookahead": 4}),
                ("gain", {"goal_weight": -1.0}), {"first_player": "random"}, 60),
    "random": (("random", {}), ("gain_minus_gift", {"placement": "random"}), {}, 60),
}
DIGESTS = {
    "default": "7312d5ba9675b619",
    "goal1": "0421be543a14fbce",
    "goal2": "c89ab5fcd08d51bd",
    "goal3": "c0307d19b11e7733",
    "goal4": "de9c0722cd31a870",
    "goal5": "cbefd002a9846d9a",
    "goal6": "a3564fad9eed554d",
    "goal7": "5d500f86c1a7c180",
    "goal8": "4fc7860ce51052e4",
    "goal9": "558b1d4dd5065295",
    "goal10": "c439fa429167bd25",
    "goal11": "fbaced0026a60e80",
    "goal12": "9640cac745cf44d0",
    "goal13": "5575a44828ad2e87",
    "goal14": "1de2098d52f87a86",
    "goal15": "93fe74f7187d8e5e",
    "goal16": "e0096ba0108d8c08",
    "goal17": "8e96006f75d31065",
    "goal18": "7360193a24f1c1b5",
    "lands": "ee28c291b8723b9c",
    "weights": "5e450786fd9f8a07",
    "random": "be64ef61422f6504",
}


def digest(case: str) -> str:
    (a, pa), (b, pb), rules, n = CASES[case]
    prep = GAME.prepare(2, [Seat(a, pa), Seat(b, pb)], rules, GAME.card_table())
    result = GAME.play(prep, KEY, 0, n)
    return result_digest(result)


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_fingerprint_unchanged(case):
    assert digest(case) == DIGESTS[case]


if __name__ == "__main__":
    for case in CASES:
        print(f"    {case!r}: {digest(case)!r},")
