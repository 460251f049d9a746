"""A learned Art Deco seat whose model leaves out the features that change within an auction bids up to limits
worked out once per auction (decide.learned_limit), and has its buy and sale rows summed by the engine itself
(learned.dense_weights, row_score): the same games, to the bit, as asking its scorer at every decision, in the
batch engine, the recorder and beside the search."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import boardsim
from boardsim import learned
from boardsim.analysis import fit
from boardsim.games.art_deco import decide as D
from boardsim.games.art_deco import record
from boardsim.games.base import Seat

GAME = boardsim.games.get("art_deco")


def _model(players: int, seed: int, scale: float = 0.6) -> learned.Model:
    """Random weights over the bundled 2-player model's standardisation, the limit features left out."""
    base = learned.load(learned.bundled_path("art_deco", 2))
    rng = np.random.default_rng(seed)
    f_inv = base.f_inv.copy()
    f_inv[list(D.LIMIT_FEATURES)] = 0.0
    m = dataclasses.replace(base, players=players, f_inv=f_inv, w=rng.normal(size=base.w.size) * scale,
                            W=rng.normal(size=base.W.shape) * scale / 4, u=rng.normal(size=base.u.size) * scale)
    m.w[D.K_PRICE] = -abs(m.w[D.K_PRICE]) * (1 if seed % 2 else -1)  # the bid score falls with price, or rises
    return m


def _both(players: int, seats: list[Seat], n: int = 400, rules: dict | None = None):
    """Results with the limits (as prepared) and with every seat asked at each bid (P_LIMITS cleared)."""
    on = GAME.prepare(players, seats, rules or {}, GAME.card_table())
    off = GAME.prepare(players, seats, rules or {}, GAME.card_table())
    off["policies"][:, D.P_LIMITS] = 0.0
    return on, GAME.play(on, 9, 0, n), GAME.play(off, 9, 0, n)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_limits_play_the_same_games_as_asking_at_every_bid(tmp_path, players):
    seats = []
    for i in range(players):
        path = tmp_path / f"m{i}.npz"
        learned.save(_model(players, 10 * players + i), path)
        seats.append(Seat("learned", {"model": str(path)}))
    seats[-1] = Seat("blocker") if players > 2 else seats[-1]  # a seat that watches the leader, beside them
    if players == 4:
        seats[1] = Seat("learned", {**seats[1].params, "favour": ["v7"]})
    on, a, b = _both(players, seats)
    assert (on["policies"][:, D.P_LIMITS] == [1.0 if s.policy == "learned" else 0.0 for s in seats]).all()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert a["counters"].sum() > 0


def test_limits_hold_under_credit_limits_and_a_low_opening(tmp_path):
    learned.save(_model(2, 3), tmp_path / "a.npz")
    learned.save(_model(2, 4), tmp_path / "b.npz")
    seats = [Seat("learned", {"model": str(tmp_path / "a.npz")}), Seat("learned", {"model": str(tmp_path / "b.npz")})]
    for rules in ({"credit_limit": 3}, {"open_min_bid": 0.0, "bid_ceiling": 5}, {"start_player": "last_winner"}):
        _, a, b = _both(2, seats, 300, rules)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=f"{rules} {k}")


def test_only_a_greedy_model_that_leaves_the_auction_features_out_bids_from_limits(tmp_path):
    learned.save(_model(2, 1), tmp_path / "lim.npz")
    reads = _model(2, 1)
    reads.f_inv[D.F_HIGH_BID] = 0.2
    learned.save(reads, tmp_path / "reads.npz")
    by_price = _model(2, 1)  # a category that reads the price: the bid row's weight changes with it
    by_price.cat_col = D.K_PRICE
    learned.save(by_price, tmp_path / "by_price.npz")
    for params, flag in (({"model": str(tmp_path / "lim.npz")}, 1.0),
                         ({"model": str(tmp_path / "lim.npz"), "temperature": 0.5}, 0.0),
                         ({"model": str(tmp_path / "reads.npz")}, 0.0),
                         ({"model": str(tmp_path / "by_price.npz")}, 0.0)):
        prep = GAME.prepare(2, [Seat("learned", params), Seat("par")], {}, GAME.card_table())
        assert prep["policies"][0, D.P_LIMITS] == flag, params


def test_the_row_sums_equal_the_scorer_to_the_bit():
    m = _model(2, 5)
    params = learned.pack(m)
    rng = np.random.default_rng(2)
    g = np.zeros(len(m.columns))
    for _ in range(200):
        f = m.f_mean + rng.normal(size=m.f_mean.size) * 3
        cand = np.ascontiguousarray(rng.integers(-1, 20, size=(4, len(m.columns))).astype(np.float64))
        cand[:, D.K_ACTION] = rng.integers(0, 4, size=4)
        scores = np.zeros(4)
        learned.logits(f, cand, params, scores)
        learned.column_weights(f, params, g)
        assert [learned.row_score(cand[i], params, g) for i in range(4)] == list(scores)


def test_the_recorder_and_the_search_see_the_same_games(tmp_path):
    learned.save(_model(2, 7), tmp_path / "m.npz")
    seat = Seat("learned", {"model": str(tmp_path / "m.npz")})
    on = GAME.prepare(2, [seat, seat], {}, GAME.card_table())
    off = GAME.prepare(2, [seat, seat], {}, GAME.card_table())
    off["policies"][:, D.P_LIMITS] = 0.0
    a, b = record.record(on, 4, 0, 30), record.record(off, 4, 0, 30)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    search = [Seat("mcts", {"iterations": 30}), seat]
    on = GAME.prepare(2, search, {}, GAME.card_table())
    off = GAME.prepare(2, search, {}, GAME.card_table())
    off["policies"][:, D.P_LIMITS] = 0.0
    assert on["policies"][1, D.P_LIMITS] == 1.0
    np.testing.assert_array_equal(GAME.play(on, 2, 0, 4)["score"], GAME.play(off, 2, 0, 4)["score"])


def test_a_fitted_art_deco_model_leaves_the_auction_features_out():
    view = GAME.learned_view()
    rng = np.random.default_rng(0)
    n, rows = 50, 3
    data = {"features": rng.normal(size=(n, len(view.features))),
            "candidates": rng.normal(size=(n, rows, len(view.columns))),
            "rows": np.full(n, rows)}
    m = fit.template(data, "art_deco", 2, view)
    out = [view.features.index(name) for name in view.left_out]
    assert sorted(out) == sorted(D.LIMIT_FEATURES)
    assert (m.f_inv[out] == 0).all() and (np.delete(m.f_inv, out) > 0).all()
    assert learned.leaves_out(learned.pack(m), D.LIMIT_FEATURES)
