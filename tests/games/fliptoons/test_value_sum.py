"""The owned cards' running value sum (engine._own) against a recount, and fame_per_cost's statistics.

Every seat keeps the fixed-point sum of its owned cards' values up to date at each hire, dismissal, Pig move
and Snake draw (issue 17, item 3), instead of a pass over its cards at each decision.  These tests recount
it after whole games of every policy and after random single steps, and check that fame_per_cost's summary
statistics agree with the engine that recomputed the mean (the running sum changed the float summation, so
near-tie decisions, and with them the random stream, may differ).
"""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons.explain import Table
from boardsim.games.fliptoons.state import (
    DECK,
    DN,
    END_FAME,
    GK,
    GN,
    NP,
    POL_RANDOM,
    VALUE_SCALE,
    VHI,
    VLO,
    _recount_values,
)
from tests.games.fliptoons.kept_state import CELLS, final_states, random_steps


def running_sum(pv: np.ndarray, p: int) -> int:
    """The seat's running sum as engine._value_sum reads it (low word unsigned, high word signed)."""
    return (int(pv[p, VHI]) << 32) | (int(pv[p, VLO]) & 0xFFFFFFFF)


def recount(pc: np.ndarray, pv: np.ndarray, p: int, values: np.ndarray) -> int:
    """The sum from scratch in plain Python: every owned card's round(value * VALUE_SCALE)."""
    owned = list(pc[p, DECK, : pv[p, DN]]) + list(pc[p, GK, : pv[p, GN]])
    return sum(int(np.floor(values[k] * VALUE_SCALE + 0.5)) for k in owned)


def assert_sums(S, values) -> None:
    pc, pv = S[0], S[1]
    for p in range(int(S[3][NP])):
        expected = recount(pc, pv, p, values)
        assert running_sum(pv, p) == expected
        assert _recount_values(p, pc, pv, values) == expected


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_running_sum_equals_recount_after_whole_games(cell):
    for S, prep in final_states(cell, 31, 60):
        assert_sums(S, prep["values"])


def test_running_sum_equals_recount_after_random_steps():
    """Random tables, then random hires (Horse, Pig, Butterfly banners), paid dismissals, flips (Snake
    draws), hooks and the least-fame hook, the sums checked after every step."""
    rng = np.random.default_rng(17)
    t0 = Table(2)
    names, values = t0.names, t0.C.values
    starters = ["Caterpillar", "Skunk", "Dragonfly", "Bee", "Snail"]
    checked = 0
    for seed in range(80):
        t = Table(2, seed=seed)
        t.set_policy(1, POL_RANDOM)  # a random seat sends its Pig to any deck, the toon deck included
        t.set_toon(list(rng.choice(names, 30)))
        t.set_market(list(rng.choice(names, 5)))
        for p in range(2):
            t.set_deck(p, list(rng.choice(names, int(rng.integers(4, 14)))) + starters)
            t.set_fame(p, int(rng.integers(0, 40)), actions=4)
        assert_sums(t.S, values)
        checked += random_steps(t, rng, 12, lambda t: assert_sums(t.S, values))
    assert checked == 80 * 12


# fame_per_cost at 2 players, cell key 0xE17: the summary of games 0..999,999 played by the engine before the
# running sum (it recomputed the mean at each decision), as (mean, standard deviation over games).
REFERENCE_2P = {
    "win_rate_0": (0.50198, 0.5000),
    "score_0": (25.77058, 5.9689),
    "score_1": (25.73520, 5.9613),
    "rounds": (8.92794, 1.6579),
    "end_fame": (0.66237, 0.4729),
    "hires_0": (10.85298, 2.4567),
    "dismissals_0": (5.43752, 2.3730),
    "deck_size_0": (12.53842, 2.9736),
    "max_fame_0": (27.64226, 4.3534),
}
TEST_GAMES = 20_000
TEST_START = 1_000_000  # games the reference did not play: an independent sample


def summary_figures(r: dict) -> dict[str, float]:
    """The REFERENCE_2P figures of a result dict."""
    return {
        "win_rate_0": float(r["win"][:, 0].mean()),
        "score_0": float(r["score"][:, 0].mean()),
        "score_1": float(r["score"][:, 1].mean()),
        "rounds": float(r["rounds"].mean()),
        "end_fame": float((r["end"] == END_FAME).mean()),
        "hires_0": float(r["hires"][:, 0].mean()),
        "dismissals_0": float(r["dismissals"][:, 0].mean()),
        "deck_size_0": float(r["deck_size"][:, 0].mean()),
        "max_fame_0": float(r["max_fame"][:, 0].mean()),
    }


def test_fame_per_cost_statistics_agree_with_the_recomputed_mean():
    """Each summary figure of 20,000 games lies within 4 standard errors (of 20,000 games) of the old engine's
    mean over 1,000,000 games: a fixed sample and fixed intervals, nothing timed."""
    prep = GAME.prepare(2, [Seat("fame_per_cost")] * 2, None, GAME.card_table())
    figures = summary_figures(GAME.play(prep, 0xE17, TEST_START, TEST_GAMES))
    for name, (mean, sd) in REFERENCE_2P.items():
        half = 4.0 * sd / np.sqrt(TEST_GAMES)
        assert abs(figures[name] - mean) <= half, (name, figures[name], mean, half)
