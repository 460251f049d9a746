"""Random Wagons towns for the search and placement tests."""

from __future__ import annotations

import numpy as np

from boardsim.games.wagons import town as T


def random_town(rnd: np.random.Generator, n_cards: int, card_land, card_sym):
    """A town grown by random legal placements, in the engine's arrays (and its occupancy rows)."""
    land, sym, idx, cx, cy, meta = (a[0] for a in T.new_towns(1))
    saved = np.zeros(9, dtype=np.int64)
    for k in range(n_cards):
        c = int(rnd.integers(18))
        if k == 0:
            x = y = T.CENTER
        else:
            spots = [(x, y) for y in range(meta[2] - 2, meta[4] + 2) for x in range(meta[1] - 2, meta[3] + 2)
                     if T.is_legal(idx, meta[0], x, y)]
            x, y = spots[int(rnd.integers(len(spots)))]
        was_empty = meta[0] == 0
        T.place(land, sym, idx, cx, cy, meta, card_land[c], card_sym[c], x, y, int(rnd.integers(2)), saved)
        T.commit(meta, x, y, was_empty)
    return land, sym, idx, cx, cy, meta
