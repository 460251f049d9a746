"""FlipToons search pieces (issue 25): the determinization is blind to what the searching seat cannot see."""

from __future__ import annotations

import numpy as np

from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons import engine as E
from boardsim.games.fliptoons.mcts import determinize
from boardsim.rng import seed_state


def _state(players, index):
    prep = GAME.prepare(players, [Seat("lookahead", {"playouts": 1})] + [Seat("fame_per_cost", {})] * (players - 1),
                        {}, GAME.card_table())
    maxc, T = (int(x) for x in prep["sizes"])
    C = E.consts(prep)
    S = E.first_decision(np.uint64(3), np.int64(index), players, C, E.rule_arrays(prep), E.custom_none(), maxc, T)[0]
    return S, C


def _world(S, C, seed):
    rng = np.empty(4, dtype=np.uint64)
    seed_state(np.uint64(seed), rng)
    W = tuple(a.copy() for a in S)
    determinize(E.State(*W), C, rng)
    return W


def test_states_differing_only_in_hidden_order_give_the_same_world():
    for players in (2, 1):
        S, C = _state(players, 5)
        other = tuple(a.copy() for a in S)
        tn = int(S.shared[E.TN])
        other[4][:tn] = other[4][:tn][::-1]  # another toon deck order
        for p in range(players):
            dn = int(S.seat[p, E.DN])
            other[0][p, E.DECK, :dn] = other[0][p, E.DECK, :dn][::-1]  # another deck order
        a, b = _world(S, C, 11), _world(E.State(*other), C, 11)
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
        # the hidden multisets are kept
        assert sorted(a[4][:tn]) == sorted(S.toon[:tn]) or players == 1
        c = _world(S, C, 12)
        assert not np.array_equal(a[4][:tn], c[4][:tn])  # another seed, another deal
