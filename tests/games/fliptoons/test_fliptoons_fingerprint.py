"""Results fingerprint: restructuring the engine or its decisions must not change a single game.

The digests were taken from the engine before the decision interface of issue 16 (decide.py, named state)
and must stay as they are for every built-in policy; a deliberate change of the rules or of a policy
regenerates them with ``python tests/games/fliptoons/test_fliptoons_fingerprint.py`` and says so in its
commit message.

Regenerated once on purpose (issue 17, item 3): fame_per_cost reads its deck mean from an exact fixed-point
running sum instead of a float sum recomputed at each decision, so near-tie decisions may go the other way
(about 1% of 2-player games differ at all).  Every summary figure of 1,000,000 2-player games stayed inside
the old engine's 95% interval; test_value_sum.py checks the statistics on a smaller sample.
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
    "fpc2": "d1c706ced8cd161b",
    "fpc4": "db605a9d00aeb668",
    "solo_fpc": "1d0c7d89a02f14d0",
    "solo_synergy": "ffc49c1562b5bbc1",
    "random": "48d8545acea1b042",
    "highest3": "b9d67b0f3c7afe33",
    "priority": "89cad0c7adcdd780",
    "priority_none": "1de7d2109520999a",
    "fpc_params": "6b4df0d8e8c4119e",
    "synergy": "88907360b1efeb17",
    "lookahead": "b5601d0324c26a1d",
    "options": "8ec3ff43f256cf0a",
    "options4": "45db6e54e932d294",
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
