"""The step interface (issue 25): games played decision by decision through step.to_move, legal,
apply and advance (stopping at every seat's decision), choosing what each seat's policy chooses, are
the batch kernel's games exactly: the same final state (scores, wins, counters, decks) and statistics."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons.kernel import consts, custom_none, play_game, play_stepped, rule_arrays
from boardsim.games.fliptoons.state import LOG_W, N_STATS, R_MAX_ROUNDS, ST_OWNED, Outputs

CASES = {
    "fpc2": (("fame_per_cost", {}), ("fame_per_cost", {})),
    "random_priority3": (("random", {}), ("priority", {}), ("highest_rank", {})),
    "synergy_solo": ((("synergy", {"flips": 2}),)),
    "lookahead": (("lookahead", {"playouts": 2, "horizon": 1}), ("fame_per_cost", {})),
}


def _o(prep):
    P = prep.n_players
    K = prep["cards"].shape[0]
    R = int(prep["rules"][R_MAX_ROUNDS])
    return Outputs(np.zeros((N_STATS, P, K), np.int32), np.zeros((P, R), np.int16), np.zeros((1, LOG_W), np.int32))


@pytest.mark.parametrize("case", sorted(CASES))
def test_stepped_games_equal_the_batch_kernel(case):
    seats = [Seat(p, params) for p, params in CASES[case]]
    prep = GAME.prepare(len(seats), seats, {}, GAME.card_table())
    maxc, toon_size = (int(x) for x in prep["sizes"])
    for index in range(4 if case == "lookahead" else 12):
        Oa, Ob = _o(prep), _o(prep)
        a = play_game(prep, 0x5EED, index, Oa)
        b, bad = play_stepped(np.uint64(0x5EED), np.int64(index), prep.n_players, consts(prep),
                                rule_arrays(prep), custom_none(), maxc, toon_size, Ob)
        assert bad == 0
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
        # statistics: hired, dismissed, fame, appearances (ST_OWNED is counted by the batch loop at the end)
        assert ST_OWNED == 0
        assert np.array_equal(Oa.stats[1:], Ob.stats[1:])
        assert np.array_equal(Oa.round_fame, Ob.round_fame)
