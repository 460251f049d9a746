"""Circle the Wagons stepped from Python: the Game contract's step API (``Game.steps``) over step.py's jitted
functions, driven as ``mcts.play_range`` drives them."""

from __future__ import annotations

import numpy as np

from boardsim import rng
from boardsim.games.base import Prepared
from boardsim.games.wagons import engine as E
from boardsim.games.wagons import state as ST
from boardsim.games.wagons import step


class Steps:
    """One Circle the Wagons table of a prepared cell, stepped a decision at a time (see ``Game.steps``)."""

    n_players = 2

    def __init__(self, prepared: Prepared, cell_key: int):
        from boardsim.games.wagons import GAME

        self.key = np.uint64(cell_key)
        self.rules, land, sym, goal, gp = GAME._args(prepared)[:5]
        self.tab = ST.Tables(land, sym, goal, gp)
        _town, self.scr, self.dr = ST.new_state()
        self.w = step.new_world()
        self.buf = np.zeros(step.MAX_LEGAL, dtype=np.int64)

    @property
    def state(self):
        """The engine's world (step.World): read it, never write it."""
        return self.w

    def setup(self, index: int) -> None:
        gen = rng.new_state(np.uint64(rng.game_seed(self.key, np.int64(index))))
        step.setup(self.w, self.key, np.int64(index), self.rules, self.tab, self.dr, gen)

    def to_move(self) -> int:
        return int(step.to_move(self.w))

    def is_over(self) -> bool:
        return self.w.v[step.V_PHASE] == step.PH_OVER

    def legal(self) -> list[int]:
        n = step.legal(self.w, self.buf)
        return [int(a) for a in self.buf[:n]]

    def apply(self, action: int) -> None:
        step.apply(self.w, np.int64(action), self.tab, self.scr)

    def returns(self) -> tuple[np.ndarray, np.ndarray]:
        """The finished game's scores and win shares, as the batch kernel writes them."""
        score = np.zeros((1, 2), dtype=np.int64)
        win = np.zeros((1, 2), dtype=np.float64)
        step.finish(self.w, 0, self.rules, self.tab, self.scr, score, win, np.zeros((1, 2, E.N_SEAT), dtype=np.int64),
                    np.zeros((1, E.N_GAME), dtype=np.int64), np.zeros((1, 2, ST.N_GOALS_IN_PLAY), dtype=np.int64))
        return score[0], win[0]
