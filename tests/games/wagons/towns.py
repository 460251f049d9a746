"""Random Wagons towns for the search and placement tests."""

from __future__ import annotations

import numpy as np

from boardsim.games.wagons import town as TW


def random_town(rnd: np.random.Generator, n_cards: int, card_land, card_sym):
    """A town grown by random legal placements, in the engine's arrays (and its occupancy rows)."""
    land, sym, idx, cx, cy, meta = (a[0] for a in TW.new_towns(1))
    saved = np.zeros(TW.N_SAVED, dtype=np.int64)
    for k in range(n_cards):
        c = int(rnd.integers(18))
        if k == 0:
            x = y = TW.CENTER
        else:
            spots = [(x, y) for y in range(meta[TW.META_Y0] - 2,
                                           meta[TW.META_Y1] + 2) for x in range(meta[TW.META_X0] - 2,
                                                                                meta[TW.META_X1] + 2)
                     if TW.is_legal(idx, meta[TW.META_N], x, y)]
            x, y = spots[int(rnd.integers(len(spots)))]
        was_empty = meta[TW.META_N] == 0
        TW.place(land, sym, idx, cx, cy, meta, card_land[c], card_sym[c], x, y, int(rnd.integers(2)), saved)
        TW.commit(meta, x, y, was_empty)
    return land, sym, idx, cx, cy, meta
