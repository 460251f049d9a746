"""Town scoring and placement legality, with expected points worked out by hand.

Bundled fronts used below (TL, TR / BL, BR; land/symbol):
A [M/Wagon, D/Fort / W/Fort, M/Cow]       B [P/Cow, P/Fort / P/Pickaxe, F/Bottle]
C [W/Pickaxe, W/Bottle / S/Wagon, W/Gun]  D [M/Fort, M/Pickaxe / D/Bottle, M/Wagon]
E [F/Cow, P/Bottle / D/Bottle, F/Pickaxe] F [D/Wagon, D/Gun / D/Cow, M/Fort]
G [P/Bottle, F/Cow / M/Cow, P/Gun]        H [P/Bottle, M/Bottle / W/Bottle, F/Cow]
I [P/Cow, S/Cow / D/Bottle, F/Cow]        J [M/Fort, P/Fort / S/Fort, D/Wagon]
K [S/Gun, S/Cow / S/Fort, W/Pickaxe]      L [W/Pickaxe, M/Gun / P/Pickaxe, S/Pickaxe]
M [S/Gun, D/Gun / F/Gun, W/Pickaxe]       N [S/Fort, F/Pickaxe / S/Pickaxe, W/Gun]
O [D/Fort, M/Wagon / S/Wagon, D/Bottle]   P [F/Wagon, W/Gun / F/Wagon, P/Wagon]
Q [W/Wagon, F/Gun / D/Fort, W/Bottle]
"""

from __future__ import annotations

import pytest

from boardsim.games.wagons import legal_placements, score_town


def goal_points(placements, goal, opponent=None):
    return score_town(placements, goals=[goal], opponent=opponent).goals[goal]


# -- geometry ------------------------------------------------------------------------------------------

def test_card_cells_and_rotation():
    cells = score_town([("A", 0, 0, 0)]).cells
    assert cells == {(0, 0): ("Mountain", "Wagon"), (1, 0): ("Desert", "Fort"),
                     (0, 1): ("Water", "Fort"), (1, 1): ("Mountain", "Cow")}
    cells = score_town([("A", 5, -3, 180)]).cells  # 180: TL<->BR, TR<->BL
    assert cells == {(5, -3): ("Mountain", "Cow"), (6, -3): ("Water", "Fort"),
                     (5, -2): ("Desert", "Fort"), (6, -2): ("Mountain", "Wagon")}


def test_first_card_anywhere():
    assert score_town([("B", 1000, -777, 0)]).total == 4


def test_covering_is_legal_and_top_card_shows():
    cells = score_town([("A", 0, 0, 0), ("B", 1, 0, 0)]).cells
    assert cells[(0, 0)] == ("Mountain", "Wagon")  # still A
    assert cells[(1, 0)] == ("Plains", "Cow")  # B covers A's TR
    assert cells[(1, 1)] == ("Plains", "Pickaxe")  # B covers A's BR
    assert cells[(0, 1)] == ("Water", "Fort")
    assert len(cells) == 6


def test_half_card_offset_is_legal():
    town = score_town([("A", 0, 0, 0), ("B", 2, 1, 0)])  # shares the edge (1,1)-(2,1)
    assert len(town.cells) == 8
    assert (2, 1, 0) in legal_placements([("A", 0, 0, 0)], "B")


def test_corner_only_contact_is_illegal():
    with pytest.raises(ValueError, match="corner"):
        score_town([("A", 0, 0, 0), ("B", 2, 2, 0)])
    with pytest.raises(ValueError, match="neither covers"):
        score_town([("A", 0, 0, 0), ("B", 5, 0, 0)])
    legal = legal_placements([("A", 0, 0, 0)], "B")
    for corner in [(2, 2), (-2, -2), (2, -2), (-2, 2)]:
        assert (*corner, 0) not in legal
    # x, y in -2..2 minus the 4 corner-only spots, each in 2 rotations
    assert len(legal) == (25 - 4) * 2


def test_bad_placements_raise():
    with pytest.raises(ValueError, match="rotation"):
        score_town([("A", 0, 0, 90)])
    with pytest.raises(ValueError, match="unknown card"):
        score_town([("Z", 0, 0, 0)])
    with pytest.raises(ValueError, match="second time"):
        score_town([("A", 0, 0, 0), ("A", 2, 0, 0)])


# -- land groups ---------------------------------------------------------------------------------------

def test_largest_group_across_cards():
    # B at (0,0): P P / P F;  G at (2,0): P F / M P
    # Plains {(0,0),(1,0),(0,1),(2,0)} = 4 (the lone (3,1) Plains does not count);
    # Forest (1,1) and (3,0) are two groups of 1: tied, scores 1; Mountain 1.
    town = score_town([("B", 0, 0, 0), ("G", 2, 0, 0)])
    assert town.lands == {"Desert": 0, "Forest": 1, "Mountain": 1, "Plains": 4, "Snow": 0, "Water": 0}
    assert town.total == 6


def test_diagonal_lands_do_not_connect():
    town = score_town([("A", 0, 0, 0)])  # Mountain at (0,0) and (1,1): two groups of 1
    assert town.lands["Mountain"] == 1
    assert town.total == 3


# -- the 12 goal kinds ---------------------------------------------------------------------------------

def test_symbol_between():
    # F at (0,0): D/Wagon D/Gun / D/Cow M/Fort; O at (2,0): D/Fort M/Wagon / S/Wagon D/Bottle.
    # The Gun at (1,0) has Desert at (0,0) and (2,0): 4.  Without O its right is empty: 0.
    town = [("F", 0, 0, 0), ("O", 2, 0, 0)]
    assert goal_points(town, "Badlands") == 4
    assert goal_points(town[:1], "Badlands") == 0
    # Desert {(0,0),(1,0),(2,0),(0,1)} = 4, Mountain 1, Snow 1 -> 6 + 4
    assert score_town(town, goals=["Badlands"]).total == 10


def test_majority_penalty():
    # H has 3 Bottles, E has 2: H's owner has more and loses 1 per opponent Bottle.
    assert goal_points([("H", 0, 0, 0)], "One Too Many", opponent=[("E", 0, 0, 0)]) == -2
    assert goal_points([("E", 0, 0, 0)], "One Too Many", opponent=[("H", 0, 0, 0)]) == 0
    assert goal_points([("C", 0, 0, 0)], "One Too Many", opponent=[("D", 0, 0, 0)]) == 0  # 1 vs 1


def test_symbol_away_from():
    # G alone: Cows at (1,0) Forest and (0,1) Mountain, no Snow anywhere: 2 x 2
    assert goal_points([("G", 0, 0, 0)], "Happy Cows") == 4
    # K at (2,0) puts Snow next to G's (1,0) Cow, and K's own Cow is on Snow: only (0,1) counts
    assert goal_points([("G", 0, 0, 0), ("K", 2, 0, 0)], "Happy Cows") == 2


def test_symbol_largest_cluster():
    # I: Cows at (0,0), (1,0), (1,1) form one edge-connected cluster of 3
    assert goal_points([("I", 0, 0, 0)], "The Herd") == 6


def test_symbol_near_largest_group():
    # C: Water (0,0),(1,0),(1,1) is one group of 3; the Wagon at (0,1) is next to (0,0)
    assert goal_points([("C", 0, 0, 0)], "Cool Water") == 3
    # Q: two tied Water groups of 1; the owner picks the one with the Wagon on it, either rotation
    assert goal_points([("Q", 0, 0, 0)], "Cool Water") == 3
    assert goal_points([("Q", 0, 0, 180)], "Cool Water") == 3
    # A: tied Mountain groups (0,0) and (1,1); both Forts touch both: 2 x 2
    assert goal_points([("A", 0, 0, 0)], "Fort Apache") == 4
    # no Water at all: nothing
    assert goal_points([("B", 0, 0, 0)], "Cool Water") == 0


def test_symbol_next_to_symbol():
    # (D, whose back is Last Call, cannot be in a town while Last Call is in play.)
    # O at (0,0): Bottle (1,1) next to Wagons (1,0) and (0,1): +2.
    # H at (2,0): Bottle (2,0) touches O's Wagon (1,0): +2; (3,0) and (2,1) touch no Wagon: -1 each
    assert goal_points([("O", 0, 0, 0)], "Last Call") == 2
    assert goal_points([("O", 0, 0, 0), ("H", 2, 0, 0)], "Last Call") == 2 + 2 - 1 - 1
    # Q alone: its Bottle (1,1) touches the Wagon (0,0) only at a corner: -1
    assert goal_points([("Q", 0, 0, 0)], "Last Call") == -1
    # M: three Guns, each next to another Gun: 3 x 3
    assert goal_points([("M", 0, 0, 0)], "Showdown") == 9
    # L: Pickaxes (0,0) next to Gun (1,0): -2; (0,1) no; (1,1) next to Gun (1,0): -2
    assert goal_points([("L", 0, 0, 0)], "Claim Jumpers") == -4


def test_symbol_on_land():
    # L's BR is Snow/Pickaxe; N below it has Snow/Pickaxe at its BL: 2 x 3
    assert goal_points([("L", 0, 0, 0), ("N", 0, 2, 0)], "Frozen Assets") == 6
    assert goal_points([("D", 0, 0, 0)], "Gold Rush") == 2
    assert goal_points([("B", 0, 0, 0)], "Cattle Drive") == 2


def test_symbol_minus_land():
    # J (3 Forts) + B at (2,0) (1 Fort, 1 Forest): 4 x 2 - 1
    assert goal_points([("J", 0, 0, 0), ("B", 2, 0, 0)], "The Clearing") == 7
    assert goal_points([("N", 0, 0, 0)], "The Clearing") == 2 - 1


def test_majority_bonus():
    assert goal_points([("P", 0, 0, 0)], "Trail Boss", opponent=[("C", 0, 0, 0)]) == 5  # 3 vs 1
    assert goal_points([("C", 0, 0, 0)], "Trail Boss", opponent=[("P", 0, 0, 0)]) == 0
    assert goal_points([("A", 0, 0, 0)], "Trail Boss", opponent=[("C", 0, 0, 0)]) == 0  # 1 vs 1


def test_symbol_isolated():
    assert goal_points([("A", 0, 0, 0)], "Outpost") == 4  # Forts (1,0) and (0,1) touch only diagonally
    assert goal_points([("J", 0, 0, 0)], "Outpost") == 0  # three Forts in an L


def test_land_group_bonus():
    assert goal_points([("C", 0, 0, 0)], "River Town") == 3


def test_enclosed_empty():
    # A (0,0), B (2,-1), C (3,1), D (1,2) ring the empty cell (2,1): one enclosed space
    town = [("A", 0, 0, 0), ("B", 2, -1, 0), ("C", 3, 1, 0), ("D", 1, 2, 0)]
    assert goal_points(town, "Homestead") == 3
    assert goal_points(town[:3], "Homestead") == 0


def test_goals_by_number_and_total():
    town = score_town([("F", 0, 0, 0), ("O", 2, 0, 0)], goals=[1, 16])
    assert town.goals == {"Badlands": 4, "Homestead": 0}
    assert town.total == sum(town.lands.values()) + sum(town.goals.values())
    with pytest.raises(ValueError, match="unknown goal"):
        score_town([("A", 0, 0, 0)], goals=["Nope"])


# -- positions no game can reach -----------------------------------------------------------------------
# Card backs (goal numbers): A 1, B 2, C 4, D 6, E 8, F 9, G 10, H 11, I 12, J 13, K 14, L 15, M 16,
# N 17, O 18, P 5, Q 3, R 7.

def row_of(cards: str) -> list[tuple[str, int, int, int]]:
    """The cards side by side in one row, each sharing an edge with the one before: always legal."""
    return [(c, 2 * i, 0, 0) for i, c in enumerate(cards)]


def test_duplicate_goal_raises():
    with pytest.raises(ValueError, match=r"goal Badlands \(#1\) is given twice"):
        score_town([("F", 0, 0, 0)], goals=["Badlands", 1])
    with pytest.raises(ValueError, match="given twice"):
        score_town([("F", 0, 0, 0)], goals=["The Herd", "the herd"])


def test_more_than_three_goals_raises():
    with pytest.raises(ValueError, match="4 goals given; a game has 3 goals in play"):
        score_town([("F", 0, 0, 0)], goals=[1, 2, 3, 4])


def test_same_card_in_both_towns_raises():
    with pytest.raises(ValueError, match="card F is in both towns"):
        score_town([("F", 0, 0, 0), ("G", 2, 0, 0)], opponent=[("H", 0, 0, 0), ("F", 0, 2, 0)])


def test_card_whose_goal_is_in_play_raises():
    # A's back is Badlands: with Badlands in play, A lies in the centre
    with pytest.raises(ValueError, match=r"town: card A cannot be in a town while its back, goal Badlands \(#1\)"):
        score_town([("F", 0, 0, 0), ("A", 2, 0, 0)], goals=["Badlands"])
    with pytest.raises(ValueError, match="opponent: card M cannot be in a town"):
        score_town([("F", 0, 0, 0)], goals=[1, 16], opponent=[("M", 0, 0, 0)])


def test_more_cards_than_a_town_holds_raises():
    # 15 circle cards, and the other player always drafts at least one: 14 at most per town
    with pytest.raises(ValueError, match="town: 15 cards, but a town holds at most 14"):
        score_town(row_of("ABCDEFGHIJKLMNO"))
    with pytest.raises(ValueError, match="opponent: 15 cards"):
        score_town([("P", 0, 0, 0)], opponent=row_of("ABCDEFGHIJKLMNO"))
    with pytest.raises(ValueError, match="the towns hold 16 cards together"):
        score_town(row_of("ABCDEFGH"), opponent=row_of("IJKLMNOP"))
    with pytest.raises(ValueError, match="already holds 14 cards"):
        legal_placements(row_of("ABCDEFGHIJKLMN"), "O")


def test_legal_placements_for_a_card_already_in_the_town_raises():
    with pytest.raises(ValueError, match=r"card B is already in the town \(placement 1\)"):
        legal_placements([("A", 0, 0, 0), ("B", 2, 0, 0)], "B")


def test_reachable_positions_still_score():
    # goals Badlands, One Too Many, Happy Cows put A, B, Q in the centre; the other 15 are drafted,
    # 14 by one player and 1 by the other (P1 skipped 14 cards on the first turn)
    big, small = row_of("CDEFGHIJKLMNOP"), [("R", 0, 0, 0)]
    s = score_town(big, goals=["Badlands", 2, "happy cows"], opponent=small)
    assert s.total == sum(s.lands.values()) + sum(s.goals.values())
    assert list(s.goals) == ["Badlands", "One Too Many", "Happy Cows"]
    assert len(s.cells) == 4 * 14
    assert score_town(small, goals=[1, 2, 3], opponent=big).total > 0
    # a town of 13 still takes a 14th card, next to its last one
    assert (26, 0, 0) in legal_placements(big[:13], "P")
