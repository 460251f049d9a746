"""Art Deco stepped from Python: the Game contract's step API (``Game.steps``) over step.py's jitted functions,
the ones the search player plays with, driven as ``mcts.play_range`` drives them."""

from __future__ import annotations

import numpy as np

from boardsim import rng
from boardsim.games.art_deco import engine as E
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco import step
from boardsim.games.art_deco.kernel import inputs
from boardsim.games.art_deco.state import HELPERS
from boardsim.games.base import Prepared

_READY: list[bool] = []


def compile_helpers() -> None:
    """The engine's fixed-signature helpers compiled for their own signatures before any step function that
    inlines them, then closed to others (as kernel._engine does): compiled first for a Python call, they would
    take that call's types and the engine would refuse its own."""
    if not _READY:
        for fn, sig in HELPERS:
            if hasattr(fn, "signatures") and not fn.signatures:
                fn.compile(sig)
                fn.disable_compile()
        _READY.append(True)


class Steps:
    """One Art Deco table of a prepared cell, stepped a decision at a time (see ``Game.steps``)."""

    def __init__(self, prepared: Prepared, cell_key: int):
        compile_helpers()
        self.n_players = prepared.n_players
        self.key = np.uint64(cell_key)
        self.rules, self.deck, self.pol, self.tables, _rl = inputs(prepared)
        self.cap = E.collection_capacity.py_func(self.rules)
        dmax = int(self.rules[R.R_DIRECT_MAX])
        self.w = step.new_world(self.n_players, self.deck.shape[0], self.cap, dmax, 0)
        step.set_codes(self.w, self.pol, self.rules)
        # step.legal lists bids (up to max value + bid_ceiling + 1, and a pass) or sales (up to a collection)
        self.buf = np.zeros(max(int(self.deck.max()) + int(self.rules[R.R_CEILING]) + 2, self.cap + 1),
                            dtype=np.int64)

    @property
    def state(self):
        """The engine's world (step.World): read it, never write it."""
        return self.w

    def setup(self, index: int) -> None:
        step.setup(self.w, np.uint64(rng.game_seed(self.key, np.int64(index))), self.rules, self.deck, self.pol,
                   self.tables)

    def to_move(self) -> int:
        return int(step.to_move(self.w))

    def is_over(self) -> bool:
        return self.w.v[step.V_PHASE] == step.PH_OVER

    def legal(self) -> list[int]:
        n = step.legal(self.w, self.rules, self.buf)
        return [int(a) for a in self.buf[:n]]

    def apply(self, action: int) -> None:
        step.apply(self.w, np.int64(action), self.rules, self.pol, self.tables)

    def returns(self) -> tuple[np.ndarray, np.ndarray]:
        """The finished game's scores and win shares, as the batch kernel writes them."""
        P = self.n_players
        score = np.zeros((1, P), dtype=np.int64)
        win = np.zeros((1, P), dtype=np.float64)
        step.outputs(self.w, 0, score, win, np.zeros((1, P, step.N_SEAT), dtype=np.int64),
                     np.zeros((1, E.N_GAME), dtype=np.int64))
        return score[0], win[0]
