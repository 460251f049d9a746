"""Art Deco's compiled chunk statistics against the same sums written in NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from boardsim import rng, runner
from boardsim.games import get
from boardsim.games.art_deco import balance
from boardsim.games.base import Seat


def _numpy_stats(out):
    win = out["win"]
    eligible = out["eligible"].astype(bool)
    dealt = np.where(eligible, out["dealt_value"], np.iinfo(np.int64).min)
    best = dealt.max(axis=1, keepdims=True)
    has_winner = win.sum(axis=1) > 0
    best_share = (win * (eligible & (dealt == best))).sum(axis=1)
    return {
        "games_with_winner": [has_winner.sum()], "best_hand_wins12": [np.rint(best_share * 12).sum()],
        "overbid": out["overbid"].sum(axis=0), "overbid_sq": (out["overbid"] ** 2).sum(axis=0),
        "dealt_value": out["dealt_value"].sum(axis=0), "score": out["score"].sum(axis=0),
        "auctions_won": out["auctions_won"].sum(axis=0), "no_winner": [(~has_winner).sum()],
    }


@pytest.mark.parametrize(("players", "seats", "design", "rules"), [
    (4, ["eligibility", "par"], "all", {}),
    (3, ["random"], "fixed", {}),  # random bidders: some games have no winner
    (2, ["random", "blocker"], "cyclic", {"min_cards_to_win": 9}),
])
def test_chunk_stats_equal_numpy(players, seats, design, rules):
    game = get("art_deco")
    cell = runner.make_cell(game, players, [Seat(s) for s in seats], rules, game.card_table(), seating_design=design)
    out = runner.play_chunk(cell, rng.cell_key(5, 0), 0, 1500)
    got, want = balance.chunk_stats(out), _numpy_stats(out)
    assert got.keys() == want.keys()
    for name in want:
        assert np.array_equal(got[name], np.asarray(want[name], dtype=np.int64)), name
    assert got["games_with_winner"][0] + got["no_winner"][0] == len(out["score"])
