"""Results fingerprint: restructuring the Art Deco engine and its policies must not change a single game.

The digests were taken from the engine before its decisions moved behind ``decide.py`` (issue 16) and
must stay as they are for every built-in policy; a deliberate change of the rules or of a policy
regenerates them with ``python tests/games/art_deco/test_art_deco_fingerprint.py`` and says so in its
commit message.
"""

from __future__ import annotations

import pytest

from boardsim.games.art_deco import GAME
from boardsim.games.base import Seat
from tests.fingerprint import result_digest

KEY = 0xAD16
ALL = ("random", "par", "multiple", "eligibility", "blocker")
# (seats as (policy, params), rules, games): every built-in policy at 2, 3 and 4 players, selling and
# non-default parameters, and the rule options that change how auctions, buys and sales go
CASES = {
    "default4": ((("eligibility", {}),) * 4, {}, 400),
    "all4": (tuple((p, {}) for p in ALL[1:]), {}, 300),
    "random2": ((("random", {}), ("par", {})), {}, 300),
    "mix3": ((("random", {"pass_prob": 0.2, "sell_prob": 0.6}), ("blocker", {"cap": 9, "sell_margin": 0}),
              ("multiple", {"multiple": 1.4})), {}, 300),
    "sellers": ((("par", {"sell_margin": 0}), ("eligibility", {"hard": 2.0, "target": 6, "sell_margin": -2}),
                 ("blocker", {"multiple": 1.1}), ("multiple", {"sell_margin": 1})),
                {"sale_price_factor": 1.3}, 300),
    "variants": ((("eligibility", {}), ("blocker", {}), ("par", {})),
                 {"start_player": "last_winner", "open_min_bid": 0.5, "unsold": "pile_bottom",
                  "direct_price_factor": 0.8, "credit_limit": 5, "bid_ceiling": 6}, 300),
    "short": ((("multiple", {"multiple": 0.7}), ("random", {"max_raise": 6})),
              {"rounds": 30, "direct_buy_max": 4, "min_cards_to_win": 8}, 200),
}
DIGESTS = {
    "default4": "aadacc1bc3a25bde",
    "all4": "16adaa3df3d2fddb",
    "random2": "354b954b2285dd2c",
    "mix3": "b019dc28002b6282",
    "sellers": "ed345484bc8b12ef",
    "variants": "e9f6f31690913a0b",
    "short": "b4d2a4e223b3b31a",
}


def digest(case: str) -> str:
    seats, rules, n = CASES[case]
    prep = GAME.prepare(len(seats), [Seat(a, dict(p)) for a, p in seats], rules, GAME.card_table())
    result = GAME.play(prep, KEY, 0, n)
    return result_digest(result)


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_fingerprint_unchanged(case):
    assert digest(case) == DIGESTS[case]


if __name__ == "__main__":
    for case in CASES:
        print(f"    {case!r}: {digest(case)!r},")
