"""Pieces of FlipToons' information-set MCTS player (issue 25; the policy itself is not built yet).

:func:`determinize` resamples, in a copy of the real state, everything a searching seat cannot see,
consistently with what it has seen:

- the toon deck's order: its cards (a public multiset: the table's copies minus every card seen) are
  sorted, then shuffled with the search's generator;
- in solo, which toon cards the setup discarded unseen: they are pooled with the toon deck before the
  shuffle, and the first ``TN`` of the shuffled pool form the deck;
- every player's deck order: sorted (each deck is reshuffled at its owner's next flip, with the world's
  generator, so a sorted deck is a canonical representative).

Two states that differ only in that hidden content and order give the same world for the same generator
state (tests/games/fliptoons/test_mcts.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.fliptoons.cards import C_SOLO, C_STARTER
from boardsim.games.fliptoons.engine import DECK, DN, NP, R_SOLO_DISCARD, TN
from boardsim.rng import shuffle


@njit(cache=True, nogil=True)
def _sort_prefix(a, n):
    """Insertion sort of a[:n] (small arrays, no allocation)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, nogil=True)
def determinize(S, C, rng):
    """Resample the hidden information of state S in place (S is the search's copy): see the module doc."""
    pc, pv, sh, toon = S.rows, S.seat, S.shared, S.toon
    P = np.int64(sh[NP])
    for p in range(P):
        _sort_prefix(pc[p, DECK], np.int64(pv[p, DN]))
    tn = np.int64(sh[TN])
    if P == 1:
        # the setup's unseen discards sit right above the deck's starting top: toon[t0 - d : t0]
        cards = C.cards
        t0 = np.int64(0)
        for k in range(cards.shape[0]):
            if cards[k, C_STARTER] == 0:
                t0 += cards[k, C_SOLO]
        d = min(t0, np.int64(C.rules[R_SOLO_DISCARD]))
        lo = t0 - d
        if d > 0 and tn <= lo:
            # pool: the deck, then the discards moved down next to it
            for j in range(d):
                toon[tn + j] = toon[lo + j]
            _sort_prefix(toon, tn + d)
            shuffle(rng, toon, tn + d)
            # the discards back in their place (above the deck's top stays unread but the pool's tail)
            for j in range(d - 1, -1, -1):
                toon[lo + j] = toon[tn + j]
            return
    _sort_prefix(toon, tn)
    shuffle(rng, toon, tn)
