"""Results fingerprint: restructuring the engine or its decisions must not change a single game.

The digests were taken from the engine before the decision interface of issue 16 (decide.py, named state)
and must stay as they are for every built-in policy; a deliberate change of the rules or of a policy
regenerates them with ``python tests/games/fliptoons/test_fliptoons_fingerprint.py`` and says so in its
commit message.
"""

from __future__ import annotations

import pytest

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from tests.fingerprint import result_digest

KEY = 0xF7F7
FPC = ("fame_per_cost", {})
# name: (seats as (policy, params), rule options, games) -- every built-in policy, 1, 2, 3 and 4 players,
# non-default policy parameters, and rule options that change hooks, dismissals and the market
CASES = {
    "fpc2": ((FPC, FPC), {}, 300),
    "fpc4": ((FPC, FPC, FPC, FPC), {}, 100),
    "solo_fpc": ((FPC,), {"solo_difficulty": "hard"}, 150),
    "solo_synergy": (((("synergy", {"flips": 3}),)), {}, 30),
    "random": ((("random", {}), FPC), {}, 150),
    "highest3": ((("highest_rank", {}), FPC, ("random", {})), {}, 100),
    "priority": ((("priority", {}), FPC), {}, 150),
    "priority_none": ((("priority", {"order": ["Tiger", "Cow", "Rabbit"], "fallback": "none"}), FPC), {}, 100),
    "fpc_params": ((("fame_per_cost", {"min_gain": 0.5, "cost_exponent": 0.5, "dismiss_below": 1.5,
                                       "dismiss_reserve": 2}), FPC), {}, 150),
    "synergy": ((("synergy", {"flips": 4, "dismiss_below": 1.0}), FPC), {}, 40),
    "lookahead": ((("lookahead", {"playouts": 3, "horizon": 2}), FPC), {}, 6),
    "options": ((FPC, ("priority", {})), {"hook_timing": "end_of_market", "min_cards_counts": "deck",
                                         "depletion": "market_empty", "actions": 3}, 150),
    "options4": ((FPC, ("random", {}), ("highest_rank", {}), FPC),
                 {"market_prices": [2, 3, 5, 8], "first_player": "seat0", "snake_draw_order": "turn"}, 80),
}
DIGESTS = {
    "fpc2": "da433f82aa33e649",
    "fpc4": "5f51ad57029eea27",
    "solo_fpc": "1d0c7d89a02f14d0",
    "solo_synergy": "ffc49c1562b5bbc1",
    "random": "48d8545acea1b042",
    "highest3": "67fb4e5efaeb8575",
    "priority": "5bec2d869ce74cae",
    "priority_none": "6c8c7082843de785",
    "fpc_params": "9833b96d0dd02c9d",
    "synergy": "88907360b1efeb17",
    "lookahead": "b5601d0324c26a1d",
    "options": "0bb48b4639767923",
    "options4": "da7dbb7807329840",
}


def digest(case: str) -> str:
    seats, rules, n = CASES[case]
    prep = GAME.prepare(len(seats), [Seat(p, params) for p, params in seats], rules, GAME.card_table())
    result = GAME.play(prep, KEY, 0, n)
    return result_digest(result)


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_fingerprint_unchanged(case):
    assert digest(case) == DIGESTS[case]


if __name__ == "__main__":
    for case in CASES:
        print(f"    {case!r}: {digest(case)!r},")
