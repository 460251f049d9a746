"""The step interface and the mcts player of Art Deco (issue 25).

Compiles the mcts engine variant once (scorer-free); every search here runs a few dozen iterations.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import boardsim
from boardsim import cli, rng
from boardsim.games.art_deco import GAME, _inputs, mcts, step
from boardsim.games.art_deco import rules as R
from boardsim.games.art_deco.state import C_CARDS, C_CASH, C_HELD_VAL
from boardsim.games.base import Seat

KEY = 0xAD25


def _seat(s):
    return Seat(*s) if isinstance(s, tuple) else Seat(s)


def _prep(seats, rules=None):
    return GAME.prepare(len(seats), [_seat(s) for s in seats], rules, GAME.card_table())


@pytest.mark.parametrize("seats,rules", [
    (("eligibility", "eligibility"), None),
    (("random", "par", "blocker"), None),
    ((("par", {"sell_margin": 0}), ("eligibility", {"hard": 2.0, "target": 6, "sell_margin": -2}),
      ("blocker", {"multiple": 1.1}), ("random", {"sell_prob": 0.6})), {"sale_price_factor": 1.3}),
    (("eligibility", "blocker", "par"), {"start_player": "last_winner", "open_min_bid": 0.5, "unsold": "pile_bottom",
                                         "direct_price_factor": 0.8, "credit_limit": 5, "bid_ceiling": 6}),
    ((("multiple", {"multiple": 0.7}), ("random", {"max_raise": 6})),
     {"rounds": 30, "direct_buy_max": 4, "min_cards_to_win": 8}),
    ((("rules", {"rules": [{"bid_up_to": "value + 6", "if": "leader_is_high == 1"}, {"bid_up_to": "value * 1.1"},
                            {"buy_up_to": "value"}]}), "par"), None),
])
def test_step_interface_plays_the_batch_kernels_games(seats, rules):
    """Games played through step.py, each decision what decide.py chooses, are the batch kernel's games
    exactly (scores, wins and every counter)."""
    prep = _prep(seats, rules)
    ref = GAME.play(prep, KEY, 5, 60)
    out = mcts.run(_inputs(prep), GAME._scorers(prep), prep["mcts"], KEY, 5, 60, prep.n_players)
    got = GAME.result_arrays(*out[:2], out[3], out[2])
    assert set(ref) == set(got)
    for k in ref:
        np.testing.assert_array_equal(np.asarray(ref[k]), np.asarray(got[k]), err_msg=k)


def test_the_logged_actions_are_legal_steps():
    """Replaying a step-interface game: every action decide.py chooses is in step.legal's list, and each
    candidate list of the mcts player is a list of distinct legal actions."""
    prep = _prep(("eligibility", "blocker", "random"))
    rules, deck, pol, tables, rl = _inputs(prep)
    buf = np.zeros(64, dtype=np.int64)
    cand = np.zeros(2 * mcts.BRANCHING, dtype=np.int64)
    for i in range(5):
        w = _world(prep, i)
        n_dec = 0
        while w.v[step.V_PHASE] != step.PH_OVER:
            n = step.legal(w, rules, buf)
            a = step.builtin(w, rules, pol, tables, rl, None)
            assert a in buf[:n]
            k = mcts.candidates(w, cand, mcts.MAX_BIDS, pol, rules)
            assert len(set(cand[:k].tolist())) == k and set(cand[:k].tolist()) <= set(buf[:n].tolist())
            kinds = cand[mcts.BRANCHING:mcts.BRANCHING + k].tolist()
            assert len(set(kinds)) == k and all(mcts.action_of(cand, k, kd) == cand[j] for j, kd in enumerate(kinds))
            step.apply(w, a, rules, pol, tables)
            n_dec += 1
        assert n_dec > 10


# -- Python-side helpers over the step interface -------------------------------------------------------------------


def _new(prep, log_rows=0):
    rules, deck = _inputs(prep)[:2]
    cap = int(rules[R.R_HAND]) + int(rules[R.R_ROUNDS]) * (1 + int(rules[R.R_DIRECT_MAX])) + 1
    return step.new_world(prep.n_players, deck.shape[0], cap, int(rules[R.R_DIRECT_MAX]), log_rows)


def _world(prep, index):
    rules, deck, pol, tables, _rl = _inputs(prep)
    w = _new(prep)
    step.set_codes(w, pol, rules)
    step.setup(w, np.uint64(rng.game_seed(np.uint64(KEY), np.int64(index))), rules, deck, pol, tables)
    return w


def _copy(prep, w):
    c = _new(prep)
    step.copy_world(w, c)
    c.scratch.codes[:] = w.scratch.codes
    return c


class Searcher:
    """mcts.decide called from Python for the prepared cell's seat 0."""

    def __init__(self, prep, **params):
        self.prep = prep
        self.rules, self.deck, self.pol, self.tables, self.rl = _inputs(prep)
        self.row = prep["mcts"][0].copy()
        self.ppol = np.ascontiguousarray(np.tile(self.row[mcts.M_PLAY:], (prep.n_players, 1)))
        self.base, self.world = _new(prep), _new(prep)
        step.set_codes(self.base, self.ppol, self.rules)
        step.set_codes(self.world, self.ppol, self.rules)
        self.buf = np.zeros(2 * mcts.BRANCHING, dtype=np.int64)
        self.stats = np.zeros(3)
        self.reward = np.zeros(prep.n_players)

    def __call__(self, w, iterations):
        self.row[mcts.M_ITER] = iterations
        tr = mcts.TR.new_tree(max(2, iterations + 1))
        a = mcts.decide(w, self.base, self.world, tr, self.buf, self.row, self.ppol, self.rules, self.tables, self.rl,
                        self.stats, self.reward)
        return int(a), self.stats.copy()

    def play_until(self, w, stop):
        """The real game on, every seat the playout policy, until ``stop(w)``."""
        while w.v[step.V_PHASE] != step.PH_OVER and not stop(w):
            a, _ = self(_copy(self.prep, w), 0)
            step.apply(w, a, self.rules, self.pol, self.tables)


@pytest.fixture(scope="module")
def search():
    # 3 players, so that seat 0 opens (and, bidding the value, wins) the last round's auction; direct buys at
    # half price, so that buying a shown card gains half its value and can decide the game
    # the eligibility playout (not the default) because the positions come from games it plays out
    return Searcher(_prep((("mcts", {"iterations": 50, "playout": "eligibility"}), "eligibility", "eligibility"),
                          {"direct_price_factor": 0.5}))


def _final(search, w, a):
    """Win shares after action ``a`` when it is the game's last decision (else None)."""
    c = _copy(search.prep, w)
    step.apply(c, a, search.rules, search.pol, search.tables)
    return c.win.copy() if c.v[step.V_PHASE] == step.PH_OVER else None


def test_golden_last_direct_buy(search):
    """At a game's last decision, a direct purchase where buying and leaving the card differ in who wins,
    a 20-iteration search picks the winning one."""
    found = 0
    for i in range(150):
        w = _world(search.prep, i)
        search.play_until(w, lambda x: x.v[step.V_PHASE] == step.PH_BUY and x.v[step.V_SEAT] == 0
                          and x.v[step.V_RND] == int(search.rules[R.R_ROUNDS])
                          and x.v[step.V_K] == x.v[step.V_NSHOWN] - 1)
        if w.v[step.V_PHASE] != step.PH_BUY:
            continue
        outs = {a: _final(search, w, a) for a in (step.PASS, 1)}
        assert all(o is not None for o in outs.values())
        if outs[step.PASS][0] == outs[1][0]:
            continue
        a, stats = search(_copy(search.prep, w), 20)
        assert outs[a][0] == max(o[0] for o in outs.values()), (i, outs, a)
        found += 1
    assert found >= 3


def test_search_is_blind_to_the_unseen_pile_order(search):
    """The order of the never-drawn cards is the one thing a seat cannot see: two states that differ only in
    it (and in their logs and the current decision's uniform) give the same decision and root statistics."""
    for i in range(3):
        w = _world(search.prep, 20 + i)
        search.play_until(w, lambda x: x.v[step.V_RND] >= 3 and step.to_move(x) == 0
                          and x.v[step.V_PHASE] == step.PH_BID)
        head, n_deck = int(w.v[step.V_HEAD]), w.scratch.ring.shape[0]
        assert head < n_deck - 5
        w2 = _copy(search.prep, w)
        order = np.random.default_rng(i).permutation(np.arange(head, n_deck))
        w2.scratch.ring[head:] = w.scratch.ring[order]
        w2.r[0] = 0.123
        assert not np.array_equal(w.scratch.ring, w2.scratch.ring)
        a1, s1 = search(_copy(search.prep, w), 60)
        a2, s2 = search(w2, 60)
        assert a1 == a2
        np.testing.assert_array_equal(s1, s2)


def test_mcts_beats_random():
    r = boardsim.simulate("art_deco", 30, [("mcts", {"iterations": 40}), "random"], seed=2, threads=1,
                          seating="all")
    assert r["win_0"].mean() > 0.75, r["win_0"].mean()  # win_j: listed seat j's, wherever it sat


def test_mcts_games_are_identical_on_any_thread_count_and_chunk_size():
    pols = [("mcts", {"iterations": 12, "bids": 5, "widening": 1.0}),
            ("mcts", {"iterations": 8, "opponents": "playout"}), "blocker"]
    a = boardsim.simulate("art_deco", 12, pols, seed=3, threads=1, players=3)
    b = boardsim.simulate("art_deco", 12, pols, seed=3, threads=2, chunk_size=2, players=3)
    cols = [c for c in a.columns if c not in ("seconds",)]
    assert a[cols].equals(b[cols])


def test_default_engine_compiles_no_search_code():
    """A cell without an mcts seat plays on engine.py: no step or search function gets compiled."""
    code = ("import boardsim; from boardsim.games.art_deco import mcts, step; "
            "boardsim.simulate('art_deco', 20, ['eligibility', 'par'], seed=1, threads=1); "
            "print(len(mcts.play_batch.signatures), len(mcts.decide.signatures), len(step.apply.signatures))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.split() == ["0", "0", "0"]


def test_golden_game():
    """A pinned mcts game (2 players, 30 iterations): a change of the search, its candidates or its stream
    shows here; regenerate deliberately, saying so in the commit message."""
    r = boardsim.simulate("art_deco", 3, [("mcts", {"iterations": 30}), "eligibility"], seed=5, threads=1)
    got = [tuple(int(x) for x in row) for row in r[["score_0", "score_1", "rounds", "pile_left"]].to_numpy()]
    assert got == GOLDEN, got


GOLDEN = [(11, 23, 10, 73), (22, 15, 10, 72), (22, 17, 10, 73), (10, 24, 10, 72)]


def test_play_traces_mcts_choices(capsys):
    code = cli.main(["play", "art_deco", "--policies", "mcts(iterations=30),eligibility"])
    out = capsys.readouterr().out
    assert code == 0
    assert "P0 mcts(iterations=30)" in out and "visits)" in out and "bids" in out


def _finishing_share(w, p):
    """The share of the other seats ``p`` finishes ahead of (a tie half): eligible first, then score, then cards."""
    st, need = w.st, 5
    keys = [(int(st[q, C_CARDS] >= need), int(st[q, C_CASH] + st[q, C_HELD_VAL]), int(st[q, C_CARDS]))
            for q in range(st.shape[0])]
    others = [q for q in range(st.shape[0]) if q != p]
    return sum(1.0 if keys[p] > keys[q] else 0.5 if keys[p] == keys[q] else 0.0 for q in others) / len(others)


def test_reward_mixes_win_share_and_finishing_share():
    """The rollout reward is (1 - rank) x win share + rank x finishing share: at rank 0 the game's win shares;
    at the default 0.25 a seat that cannot win still gains by finishing ahead of more seats (the flat win-share
    reward left a losing 4-player seat indifferent to its overbids); at 2 players the two terms agree
    whenever someone can win."""
    for seats in (("eligibility",) * 4, ("par", "multiple", "eligibility"), ("eligibility", "par")):
        prep = _prep(seats)
        rules, _deck, pol, tables, rl = _inputs(prep)
        seen_losing_spread = False
        for i in range(20):
            w = _world(prep, i)
            while w.v[step.V_PHASE] != step.PH_OVER:
                step.apply(w, step.builtin(w, rules, pol, tables, rl, None), rules, pol, tables)
            out = np.zeros(len(seats))
            mcts.evaluate(w, rules, out, 0.0)
            np.testing.assert_array_equal(out, w.win)
            mcts.evaluate(w, rules, out, 0.25)
            want = [0.75 * w.win[p] + 0.25 * _finishing_share(w, p) for p in range(len(seats))]
            np.testing.assert_allclose(out, want)
            if len(seats) == 2 and w.win.max() > 0:  # someone eligible: the finisher ahead is the winner
                np.testing.assert_allclose(out, w.win, err_msg="two players: finishing share = win share")
            losers = [out[p] for p in range(len(seats)) if w.win[p] == 0.0]
            seen_losing_spread |= len(set(losers)) > 1
        assert seen_losing_spread or len(seats) == 2


def test_bid_candidates_auto_by_player_count():
    """bids = 0 (the default) offers jump bids only at 2 players: 4 candidates there, pass and the minimum at 3-4."""
    row = np.zeros(mcts.M_WIDTH)
    assert [mcts.n_bids(row, n) for n in (2, 3, 4)] == [4, 2, 2]
    row[mcts.M_BIDS] = 5
    assert [mcts.n_bids(row, n) for n in (2, 3, 4)] == [5, 5, 5]
    assert _prep(("mcts", "eligibility", "par"))["mcts"][0, mcts.M_BIDS] == 0
    assert _prep(("mcts", "eligibility", "par"))["mcts"][0, mcts.M_RANK] == 0.25
