"""The jitted scorer against a plain-Python reference on random legal towns."""

from __future__ import annotations

import random

from boardsim.games.wagons import legal_placements, score_town

LANDS = ("Desert", "Forest", "Mountain", "Plains", "Snow", "Water")


def groups(cells: dict, key) -> list[tuple[str, int]]:
    """(value, size) of every edge-connected group of cells sharing key(cell)."""
    seen, out = set(), []
    for start in cells:
        if start in seen:
            continue
        value, stack, size = key(cells[start]), [start], 0
        seen.add(start)
        while stack:
            x, y = stack.pop()
            size += 1
            for nb in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if nb in cells and nb not in seen and key(cells[nb]) == value:
                    seen.add(nb)
                    stack.append(nb)
        out.append((value, size))
    return out


def random_town(rnd: random.Random, n_cards: int) -> list[tuple[str, int, int, int]]:
    cards = rnd.sample("ABDEFGHIJKNOPQR", n_cards)  # not C, L, M: their backs are the goals scored below
    town: list[tuple[str, int, int, int]] = []
    for c in cards:
        town.append((c, *rnd.choice(legal_placements(town, c))))
    return town


def test_random_towns_match_reference():
    rnd = random.Random(7)
    seen_holes = seen_covering = 0
    for trial in range(60):
        town = random_town(rnd, rnd.randint(1, 12))
        s = score_town(town, goals=["The Herd", "Homestead", "River Town"])
        cells = s.cells
        best = {land: 0 for land in LANDS}
        for land, size in groups(cells, lambda c: c[0]):
            best[land] = max(best[land], size)
        assert s.lands == best, trial
        herd = max([size for sym, size in groups(cells, lambda c: c[1]) if sym == "Cow"], default=0)
        assert s.goals["The Herd"] == 2 * herd
        holes = {(x + dx, y + dy) for x, y in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))} - set(cells)
        enclosed = [h for h in holes if all((h[0] + dx, h[1] + dy) in cells
                                            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))]
        assert s.goals["Homestead"] == 3 * len(enclosed)
        seen_holes += len(enclosed) > 0
        seen_covering += len(cells) < 4 * len(town)
        assert s.goals["River Town"] == best["Water"]
        assert s.total == sum(best.values()) + sum(s.goals.values())
    assert seen_holes > 0 and seen_covering > 0  # the towns exercised both
