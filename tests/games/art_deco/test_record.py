"""Art Deco's decision recorder (issue 40): record.record plays ``play``'s games and keeps, at every decision a
custom scorer would be asked, that view and what the acting seat's policy chose.

Compiles the recorder once (and, for the mcts and custom cells, the engine variants ``play`` uses); the
searches run 30 iterations.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from boardsim.games.art_deco import GAME, _inputs
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import record as RC
from boardsim.games.base import Seat

KEY = 0xAD40
DECISION_KEYS = ("features", "candidates", "rows", "target", "value", "chosen", "game", "seat", "kind")


@njit(cache=True)
def collector(features, candidates, params, scores):
    """A scorer unlike any built-in: bids up to the value + ``extra``, buys at a gain >= 0, and while holding
    more than ``keep`` cards sells its most valuable sellable card."""
    extra, keep = params[0], params[1]
    for i in range(candidates.shape[0]):
        action = candidates[i, D.K_ACTION]
        if action == D.DO_NOTHING:
            scores[i] = 0.0
        elif action == D.DO_BID:
            scores[i] = 1.0 if candidates[i, D.K_PRICE] <= candidates[i, D.K_VALUE] + extra else -1.0
        elif action == D.DO_BUY:
            scores[i] = 1.0 if candidates[i, D.K_GAIN] >= 0.0 else -1.0
        else:
            scores[i] = candidates[i, D.K_VALUE] if features[D.F_CARDS] > keep else -1.0


def _seat(s):
    return Seat(*s) if isinstance(s, tuple) else Seat(s)


def _prep(seats, rules=None):
    return GAME.prepare(len(seats), [_seat(s) for s in seats], rules, GAME.card_table())


def _check(out, prep, start, count):
    """The layout every recording has: shapes, the view's fixed rows, zero padding, targets on legal rows."""
    n = out["rows"].shape[0]
    feats, cols, kinds = RC.view_names(prep)
    rows_max = out["candidates"].shape[1]
    assert n > 0
    assert out["features"].shape == (n, len(feats)) and out["candidates"].shape == (n, rows_max, len(cols))
    assert out["target"].shape == (n, rows_max)
    assert out["score"].shape == out["win"].shape == (count, prep.n_players)
    assert all(out[k].dtype == np.int64 for k in ("rows", "chosen", "game", "seat", "kind", "score"))
    assert set(np.unique(out["kind"]).tolist()) <= set(range(len(kinds)))
    np.testing.assert_array_equal(out["features"][:, D.F_DECISION], out["kind"])
    assert (out["rows"] >= 2).all() and (out["rows"] <= rows_max).all()
    assert (out["rows"][out["kind"] != D.SELL] == 2).all()
    beyond = np.arange(rows_max)[None, :] >= out["rows"][:, None]
    assert not out["candidates"][beyond].any() and not out["target"][beyond].any()
    assert (out["candidates"][:, 0, D.K_ACTION] == D.DO_NOTHING).all()
    second = {D.BID: D.DO_BID, D.BUY: D.DO_BUY, D.SELL: D.DO_SELL}
    np.testing.assert_array_equal(out["candidates"][:, 1, D.K_ACTION], [second[k] for k in out["kind"]])
    assert (out["target"] >= 0).all()
    np.testing.assert_allclose(out["target"].sum(axis=1), 1.0)
    assert ((out["chosen"] >= 0) & (out["chosen"] < out["rows"])).all()
    assert (out["target"][np.arange(n), out["chosen"]] > 0).all()
    assert (np.diff(out["game"]) >= 0).all()
    assert set(np.unique(out["game"]).tolist()) <= set(range(start, start + count))
    assert set(np.unique(out["seat"]).tolist()) <= set(range(prep.n_players))


def _one_hot(out, mask):
    """Rows of ``mask`` carry 1.0 on their chosen row."""
    t = out["target"][mask]
    np.testing.assert_array_equal(t, np.eye(t.shape[1])[out["chosen"][mask]])


def _same_games(out, prep, start, count):
    ref = GAME.play(prep, KEY, start, count)
    np.testing.assert_array_equal(out["score"], ref["score"])
    np.testing.assert_array_equal(out["win"], ref["win"])


@pytest.mark.parametrize("seats,rules", [
    (("eligibility", "par"), None),
    (("random", "par", "blocker"), None),
    ((("par", {"sell_margin": 0}), ("rules", {"rules": [{"bid_up_to": "value * 1.2", "if": "cash > -5"},
                                                        {"buy_up_to": "value"}, {"sell": "highest_value",
                                                                                 "if": "cards_held > 6"}]}),
      ("blocker", {"multiple": 1.1}), ("random", {"sell_prob": 0.6})), {"sale_price_factor": 1.3}),
    (("eligibility", "blocker", "par", "multiple"), {"start_player": "last_winner", "open_min_bid": 0.5,
                                                     "unsold": "pile_bottom", "direct_price_factor": 0.8,
                                                     "credit_limit": 5, "bid_ceiling": 6}),
])
def test_heuristic_seats_play_plays_games(seats, rules):
    """Built-in and rule-list seats: ``play``'s games (scores and wins), every decision one-hot on its action."""
    prep = _prep(seats, rules)
    out = RC.record(prep, KEY, 3, 40)
    _same_games(out, prep, 3, 40)
    _check(out, prep, 3, 40)
    _one_hot(out, np.ones(out["rows"].shape[0], dtype=bool))
    assert set(np.unique(out["game"]).tolist()) == set(range(3, 43))
    # every seat is recorded at every sale, including those that can never sell (they keep)
    sells = out["kind"] == D.SELL
    assert set(np.unique(out["seat"][sells]).tolist()) == set(range(prep.n_players))


def test_a_builtin_seat_is_recorded_with_the_view_a_custom_seat_gets():
    """A scorer that plays exactly like ``eligibility`` in its place: the same games and the same recording,
    so a built-in seat's rows carry the custom seat's view (features such as leader_is_high included)."""
    eligibility = ("custom", {"function": "tests.games.art_deco.scorers:eligibility", "hard": 1.6, "target": 5})
    others = ("blocker", ("multiple", {"multiple": 1.3}))
    a = RC.record(_prep(("eligibility", *others)), KEY, 0, 30)
    b = RC.record(_prep((eligibility, *others)), KEY, 0, 30)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert a["features"][:, D.F_LEADER_IS_HIGH].any()


@pytest.mark.parametrize("others,games,with_play", [(("eligibility", "random"), 40, True),
                                                    ((("mcts", {"iterations": 30}),), 6, False)])
def test_custom_seat_targets_are_its_scorers_choice(others, games, with_play):
    """At each recorded decision of a custom seat, its one-hot target is the argmax (first on ties) of its
    scorer on the recorded features and candidates; the games are ``play``'s.  (Beside an mcts seat only the
    recorder plays them: ``play`` cannot yet compile a cell with both, as mcts.play_batch takes the scorers
    without a signature and cannot index a tuple of distinct scorers.)"""
    prep = _prep((("custom", {"function": collector, "keep": 6, "extra": 2}), *others))
    out = RC.record(prep, KEY, 0, games)
    if with_play:
        _same_games(out, prep, 0, games)
    _check(out, prep, 0, games)
    params = np.ascontiguousarray(_inputs(prep)[4].params[0])  # the params row the engine passes the scorer
    mine = np.flatnonzero(out["seat"] == 0)
    kinds = np.bincount(out["kind"][mine], minlength=3)
    assert (kinds > 0).all(), kinds
    for i in mine:
        n = out["rows"][i]
        scores = np.zeros(n)
        collector.py_func(out["features"][i], out["candidates"][i, :n], params, scores)
        assert out["chosen"][i] == int(np.argmax(scores)), i
    _one_hot(out, out["seat"] == 0)
    sold = mine[(out["kind"][mine] == D.SELL) & (out["chosen"][mine] > 0)]
    assert sold.size > 0  # it does sell, from sales of several rows
    assert (out["rows"][sold] > 2).any()


def test_mcts_targets_are_root_visit_shares():
    """An mcts seat (30 iterations): ``play``'s games; its searched decisions carry its root's visit shares,
    a distribution over the legal rows; where each row has one search action (buys, and bids with
    ``bids = 2``), the chosen row is the most visited one."""
    for params, start in (({"iterations": 30}, 0), ({"iterations": 30, "bids": 2}, 10)):
        prep = _prep((("mcts", params), "eligibility"))
        out = RC.record(prep, KEY, start, 4)
        _same_games(out, prep, start, 4)
        _check(out, prep, start, 4)
        _one_hot(out, out["seat"] == 1)
        mine = out["seat"] == 0
        t = out["target"]
        spread = mine & (t.max(axis=1) < 1.0)
        assert spread.sum() >= 20  # visit counts, not the action alone
        # each visited row's value: the search's mean backed-up win share there; 0 on unvisited rows and on
        # every row of a seat that did not search
        v = out["value"]
        assert ((v >= 0) & (v <= 1)).all() and (v[t == 0] == 0).all() and (v[~mine] == 0).all()
        assert (v[spread] > 0).any()
        # 30 visits: every share a multiple of 1/30
        np.testing.assert_allclose(t[spread] * 30, np.round(t[spread] * 30), atol=1e-9)
        # the default sale factor offers a search no sale: the seat keeps without searching
        _one_hot(out, mine & (out["kind"] == D.SELL))
        assert (out["chosen"][mine & (out["kind"] == D.SELL)] == 0).all()
        single = spread & ((out["kind"] == D.BUY) | (params.get("bids") == 2))
        top = t[single].max(axis=1)
        untied = (t[single] == top[:, None]).sum(axis=1) == 1
        assert untied.sum() >= 10
        np.testing.assert_array_equal(out["chosen"][single][untied], t[single][untied].argmax(axis=1))


def test_recording_is_deterministic_and_chunk_free():
    """Same inputs, same arrays; and the same whatever the chunks the games are split into, by record's
    buffers or by the caller."""
    prep = _prep(("eligibility", "random", "par"))
    a = RC.record(prep, KEY, 0, 12)
    b = RC.record(prep, KEY, 0, 12)
    c = RC._record(prep, KEY, 0, 12, 1)  # one game per buffer
    d1, d2 = RC.record(prep, KEY, 0, 5), RC.record(prep, KEY, 5, 7)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        np.testing.assert_array_equal(a[k], c[k], err_msg=k)
        np.testing.assert_array_equal(a[k], np.concatenate([d1[k], d2[k]]), err_msg=k)
    empty = RC.record(prep, KEY, 0, 0)
    assert all(empty[k].shape[0] == 0 and empty[k].dtype == a[k].dtype and empty[k].shape[1:] == a[k].shape[1:]
               for k in DECISION_KEYS)


def test_view_names_and_row_count():
    prep = _prep(("eligibility", "par"), {"rounds": 4, "direct_buy_max": 1, "hand_size": 2})
    feats, cols, kinds = RC.view_names(prep)
    assert feats == D.FEATURES and cols == D.COLUMNS and kinds == ("bid", "buy", "sell")
    out = RC.record(prep, KEY, 0, 30)
    # a sale of round 4 may offer the 2 dealt cards and 2 a round from rounds 1-3, and keeping
    assert out["candidates"].shape[1] == 1 + 2 + 3 * 2 == out["rows"].max()
