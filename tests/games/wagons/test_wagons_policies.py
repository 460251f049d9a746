"""Greedy placement is the true argmax: every spot the engine chose is checked against scoring each legal
spot from scratch with the explain API (so the incremental values, the candidate bounds that skip spots
and the reuse of spots between decisions in decide.py cannot drift from the rules' scoring)."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim.games.base import Seat
from boardsim.games.wagons import GAME, cards, legal_placements, score_town
from boardsim.games.wagons import town as TW

KEY = 0xB0B
DECK, GOAL_TABLE = cards.load_tables()  # the bundled tables, read once (score_town would read them per call)


def best_spot(town, opponent, name, goals, lands_only):
    """The first (scan order, as the engine) legal spot of the highest value, the way the engine values it."""
    if not town:
        spots = [(TW.CENTER, TW.CENTER, 0), (TW.CENTER, TW.CENTER, 180)]
    else:
        spots = legal_placements(town, name, deck=DECK)
    best, pick = None, None
    for x, y, rot in spots:
        s = score_town(town + [(name, x, y, rot)], goals=goals, opponent=opponent, deck=DECK, goal_table=GOAL_TABLE)
        v = sum(s.lands.values()) if lands_only else s.total
        if best is None or v > best:
            best, pick = v, (x, y, rot)
    return pick


@pytest.mark.parametrize(
    "fixed_goal,placement,policy",
    [
        (5, "greedy", "gain_minus_gift"),  # symbol near largest group
        (16, "greedy", "gain_minus_gift"),  # enclosed empty spaces
        (4, "greedy", "gain"),  # symbol largest cluster
        (1, "greedy", "gain_minus_gift"),  # symbol between lands
        (12, "lands", "gain_minus_gift"),  # majority bonus; placement on land groups only
    ],
)
def test_every_greedy_placement_is_the_first_best_spot(fixed_goal, placement, policy):
    seat = Seat(policy, {"placement": placement})
    prep = GAME.prepare(2, [seat, seat], {"fixed_goal": fixed_goal}, GAME.card_table())
    names = list(prep["card_names"])
    index = fixed_goal  # one game per case keeps the from-scratch scoring quick
    result = GAME.play(prep, KEY, index, 1)
    goals = [int(result[f"goal{g}"][0]) + 1 for g in range(3)]
    assert fixed_goal in goals
    events = GAME.trace_events(prep, KEY, index)
    towns = [[], []]
    checked = 0
    for e in events:
        p, c, x, y, rot = (int(v) for v in e[:5])
        want = best_spot(towns[p], towns[1 - p], names[c], goals, placement == "lands")
        assert (x, y, 180 * rot) == want, f"game {index}, card {names[c]} of seat {p}"
        towns[p].append((names[c], x, y, 180 * rot))
        checked += 1
    assert checked == 15 and np.unique(events[:, 1]).size == 15
