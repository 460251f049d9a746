"""FlipToons stepped from Python: the Game contract's step API (``Game.steps``) over step.py's jitted functions,
driven as ``kernel.play_stepped`` drives them: ``advance`` stops at every seat's market decision."""

from __future__ import annotations

import numpy as np
from numba import njit

from boardsim.games.base import Prepared
from boardsim.games.fliptoons import state as FS
from boardsim.games.fliptoons import step
from boardsim.games.fliptoons.kernel import _write_row, consts, custom_none, rule_arrays, set_up_game
from boardsim.games.fliptoons.step import to_move


@njit(cache=True, nogil=True)
def advance(S, C, O, X, U, gen, stop):
    """step.advance as kernel.play_stepped calls it (no phase function pointers), callable from Python."""
    return step.advance(S, C, O, X, U, gen, stop, None, None, None)


@njit(cache=True, nogil=True)
def write_row(S, score, win, game_out, seat_out):
    """The batch kernel's output row of a finished game (kernel._write_row), callable from Python."""
    _write_row(np.int64(0), S, score, win, game_out, seat_out)


class Steps:
    """One FlipToons table of a prepared cell, stepped a decision at a time (see ``Game.steps``).
    ``log_rows`` > 0 keeps the game's event log (``O.log``) of that many rows."""

    def __init__(self, prepared: Prepared, cell_key: int, log_rows: int = 0):
        self.n_players = prepared.n_players
        self.key = np.uint64(cell_key)
        self.maxc, self.toon_size = (int(x) for x in prepared["sizes"])
        self.C = consts(prepared)
        self.seat_rules = rule_arrays(prepared)
        self.log_rows = log_rows
        self.buf = np.empty(self.C.prices.shape[0] + self.maxc + 1, dtype=np.int64)
        self.every = np.int64((1 << self.n_players) - 1)  # stop at every seat's decisions
        self.decision = False

    @property
    def state(self):
        """The engine's state (state.State): read it, never write it."""
        return self.S

    def setup(self, index: int) -> None:
        P, K = self.n_players, self.C.cards.shape[0]
        self.S, self.X, self.U, _L, _O, self.gen = set_up_game(self.key, np.int64(index), P, self.C,
                                                                self.seat_rules, custom_none(), self.maxc,
                                                                self.toon_size)
        self.O = FS.Outputs(np.zeros((FS.N_STATS, P, K), dtype=np.int32),
                            np.zeros((P, int(self.C.rules[FS.R_MAX_ROUNDS]) + 1), dtype=np.int16),
                            np.zeros((max(1, self.log_rows), FS.LOG_W), dtype=np.int32))
        self.S.shared[FS.LOGON] = 1 if self.log_rows > 0 else 0
        self._advance()

    def _advance(self) -> None:
        self.decision = advance(self.S, self.C, self.O, self.X, self.U, self.gen, self.every) == 1

    def to_move(self) -> int:
        return int(to_move(self.S)) if self.decision else -1

    def is_over(self) -> bool:
        return not self.decision

    def legal(self) -> list[int]:
        n = step.legal(to_move(self.S), self.S, self.C, self.buf)
        return [int(a) for a in self.buf[:n]]

    def apply(self, action: int) -> None:
        step.apply(np.int64(self.to_move()), np.int64(action), self.S, self.C, self.O, self.gen)
        self._advance()

    def returns(self) -> tuple[np.ndarray, np.ndarray]:
        """The finished game's scores and win shares, as the batch kernel writes them."""
        P = self.n_players
        score = np.zeros((1, P), dtype=np.int64)
        win = np.zeros((1, P), dtype=np.float64)
        write_row(self.S, score, win, np.zeros((1, 6), dtype=np.int64), np.zeros((1, P, 4), dtype=np.int64))
        return score[0], win[0]
