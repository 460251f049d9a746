"""Whole games: the Game interface, invariants on random games, determinism, policies, trace."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from numba import types

from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons import GAME
from boardsim.games.fliptoons.kernel import BLOCK, PLAY_RANGE, play_batch, play_game, trace_game
from boardsim.games.fliptoons.state import (
    DISCARDED,
    DN,
    DTOT,
    EV_CLEANUP,
    EV_FAME,
    EV_FINAL,
    EV_GRID,
    EV_ROUND,
    GN,
    LOG_W,
    N_STATS,
    NS,
    TN,
    TOTAL,
    Outputs,
)

ALL_POLICIES = ["random", "highest_rank", "priority", "fame_per_cost", "synergy"]


def prepared(players, policies=("fame_per_cost",), rules=None, edits=None, params=None):
    seats = [Seat(policies[i % len(policies)], (params or {}) if i == 0 else {}) for i in range(players)]
    return GAME.prepare(players, seats, rules, GAME.card_table(edits))


def final_state(prep, key, index):
    """Play one game through the engine and return its final state tuple."""
    P = prep.n_players
    K = prep["cards"].shape[0]
    O = Outputs(np.zeros((N_STATS, P, K), np.int32), np.zeros((P, 60), np.int16), np.zeros((1, LOG_W), np.int32))
    return play_game(prep, key, index, O), O


def test_registered():
    assert get("fliptoons") is GAME
    assert GAME.default_policy == "fame_per_cost"
    assert set(ALL_POLICIES + ["lookahead", "rules", "custom", "learned", "mcts"]) == set(GAME.policy_names())


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_result_shapes_and_ranges(players):
    prep = prepared(players, ALL_POLICIES)
    n = 64
    r = GAME.play(prep, 99, 0, n)
    assert r["score"].shape == (n, players) and r["win"].shape == (n, players)
    K = prep["cards"].shape[0]
    for key in ("owned", "hired", "dismissed", "kind_fame"):
        assert r[key].shape == (n, players, K) and r[key].dtype == np.int32
    assert r["round_fame"].shape[:2] == (n, players)
    shares = r["win"].sum(axis=1)
    if players > 1:
        assert np.allclose(shares, 1.0)
        assert set(np.unique(r["end"])) <= {0, 1, 2}
        assert ((r["critic"] >= -1) & (r["critic"] < players)).all()
    else:
        assert set(np.unique(r["end"])) <= {3, 4}
        assert ((shares == 0) | (shares == 1)).all()
    assert (r["rounds"] >= 1).all() and (r["rounds"] <= 60).all()
    assert ((r["first_player"] >= 0) & (r["first_player"] < players)).all()
    # owned cards per seat agree with the deck_size counter
    assert (r["owned"].sum(axis=2) == r["deck_size"]).all()
    assert (r["hired"].sum(axis=2) >= r["hires"]).all()


def test_deterministic_and_chunk_independent():
    prep = prepared(3, ["fame_per_cost", "random", "synergy"])
    a = GAME.play(prep, 7, 0, 40)
    b = GAME.play(prep, 7, 20, 20)
    for key in ("score", "win", "rounds", "end", "owned", "kind_fame"):
        assert np.array_equal(a[key][20:], b[key])


@pytest.mark.parametrize("players", [1, 2, 4])
def test_cards_conserved(players):
    prep = prepared(players, ["random", "fame_per_cost", "highest_rank"])
    for index in range(20):
        S, _ = final_state(prep, 5, index)
        pc, pv, dism, sh, toon, mk = S
        total = int(pv[:, DN].sum() + pv[:, GN].sum() + dism.sum() + sh[TN]
                    + (mk[0] >= 0).sum() + sh[DISCARDED])
        assert total == sh[TOTAL]
        assert pv[:, DTOT].sum() == dism.sum()


def _parse_log(log):
    """(per Check Fame) player -> list of line fames, totals and base slots, from the event log."""
    checks = []
    grid, totals = {}, {}
    for row in log:
        code = int(row[0])
        if code == EV_GRID:
            grid.setdefault(int(row[1]), []).append((int(row[2]), int(row[4]), int(row[5])))
        elif code == EV_FAME:
            totals[int(row[1])] = int(row[2])
            checks.append(({q: list(v) for q, v in grid.items()}, dict(totals)))
        elif code in (EV_ROUND, EV_FINAL, EV_CLEANUP):
            grid, totals = {}, {}
    return checks


@pytest.mark.parametrize("players", [1, 3])
def test_fame_equals_sum_of_lines_and_grid_size(players):
    prep = prepared(players, ["random", "fame_per_cost"])
    for index in range(6):
        maxc, toon_size = (int(x) for x in prep["sizes"])
        score, win, game_out, log = trace_game(
            np.uint64(3), np.int64(index), players, prep["cards"], prep["rules"], prep["prices"],
            prep["policies"], prep["priority"], prep["values"], maxc, toon_size, 100_000, 60)
        checks = _parse_log(log)
        assert checks
        for grid, totals in checks:
            for p, cards in grid.items():
                if p in totals:
                    assert sum(f for _, fd, f in cards if not fd) == totals[p]
                base = {s for s, _, _ in cards if s < 6}
                assert len(base) <= 6 and all(0 <= s < NS for s, _, _ in cards)
                assert all(f == 0 for _, fd, f in cards if fd)


def test_trace_matches_play_and_reads_well():
    prep = prepared(3, ["fame_per_cost", "random", "highest_rank"])
    text = GAME.trace(prep, 11, 4)
    r = GAME.play(prep, 11, 4, 1)
    assert "Round 1" in text and "market:" in text and "Check Fame" in text and "r0c0" in text
    last = text.strip().splitlines()[-1]
    for p in range(3):
        assert f"P{p} {int(r['score'][0, p])}" in last


def test_card_edits_do_not_change_types_and_take_effect():
    base = prepared(2, ["fame_per_cost"])
    strong = prepared(2, ["fame_per_cost"], edits={"Elephant": {"fame": 30}})
    assert base["cards"].dtype == strong["cards"].dtype and base["cards"].shape == strong["cards"].shape
    a = GAME.play(base, 1, 0, 200)
    b = GAME.play(strong, 1, 0, 200)
    k = list(GAME.card_table()["name"]).index("Elephant")
    assert b["kind_fame"][:, :, k].sum() > a["kind_fame"][:, :, k].sum()
    removed = prepared(2, ["fame_per_cost"], edits={"Elephant": {"copies": 0}})
    c = GAME.play(removed, 1, 0, 100)
    assert c["owned"][:, :, k].sum() == 0


def test_bad_inputs():
    with pytest.raises(BadInput) as e:
        GAME.card_table({"Elephant": {"famme": 9}})
    assert e.value.key == "cards.Elephant.famme" and "known:" in e.value.message
    with pytest.raises(BadInput) as e:
        GAME.card_table({"Elefant": {"fame": 9}})
    assert e.value.key == "cards.Elefant"
    with pytest.raises(BadInput):
        GAME.card_table({"Elephant": {"fame": "9"}})
    with pytest.raises(BadInput) as e:
        prepared(2, rules={"depletion": "never"})
    assert e.value.key == "rules.depletion"
    with pytest.raises(BadInput):
        prepared(5)
    with pytest.raises(BadInput) as e:
        GAME.prepare(2, [Seat("priority", {"order": ["Elephnt"]}), Seat("random")], None, GAME.card_table())
    assert e.value.key.startswith("seats[0]")


def test_rule_options_change_outcomes():
    for rules in ({"final_flip": False}, {"depletion": "market_empty"}, {"hook_timing": "end_of_market"},
                  {"min_cards_after_dismiss": 0}, {"min_cards_counts": "deck"}, {"snake_peacock_counts": True},
                  {"critic_in_reflips": False},
                  {"market_prices": [2, 3, 5, 8, 12]}, {"first_player": "seat0"}, {"solo_win": "instant"}):
        r = GAME.play(prepared(2, ["fame_per_cost", "highest_rank"], rules=rules), 2, 0, 30)
        assert np.allclose(r["win"].sum(axis=1), 1.0)
    r = GAME.play(prepared(2, rules={"first_player": "seat0"}), 2, 0, 30)
    assert (r["first_player"] == 0).all()


def test_solo_difficulty_orders_win_rates():
    rates = []
    for level in ("easy", "hard"):
        r = GAME.play(prepared(1, rules={"solo_difficulty": level}), 4, 0, 400)
        rates.append(r["win"].mean())
    assert rates[0] > rates[1]


def test_policies_beat_random():
    prep = prepared(2, ["fame_per_cost", "random"])
    r = GAME.play(prep, 8, 0, 300)
    assert r["win"][:, 0].mean() > 0.7


def test_priority_hires_listed_cards():
    prep = GAME.prepare(2, [Seat("priority", {"order": ["Elephant"], "fallback": "none"}), Seat("random")], None,
                        GAME.card_table())
    r = GAME.play(prep, 6, 0, 100)
    names = list(GAME.card_table()["name"])
    hired = r["hired"][:, 0, :].sum(axis=0)
    assert hired[names.index("Elephant")] > 0
    snake_draws = hired.sum() - r["hires"][:, 0].sum()  # the hired stat also counts Snake-stacked cards
    assert hired.sum() - hired[names.index("Elephant")] <= snake_draws


def test_lookahead_plays_legal_games():
    prep = GAME.prepare(2, [Seat("lookahead", {"playouts": 3}), Seat("fame_per_cost")], None, GAME.card_table())
    r = GAME.play(prep, 12, 0, 4)
    assert np.allclose(r["win"].sum(axis=1), 1.0)
    solo = GAME.prepare(1, [Seat("lookahead", {"playouts": 3, "horizon": 2})], None, GAME.card_table())
    r = GAME.play(solo, 12, 0, 4)
    assert set(np.unique(r["end"])) <= {3, 4}


def test_edits_options_and_policy_params_do_not_recompile():
    GAME.play(prepared(2), 1, 0, 2)
    before = len(play_batch.signatures)
    GAME.play(prepared(2, rules={"market_prices": [1, 2, 3, 4, 5], "depletion": "market_empty"},
                       edits={"Elephant": {"fame": 9, "copies": 0}, "Bee": {"dismiss_cost": 1}},
                       params={"min_gain": 1.5}), 1, 0, 2)
    GAME.play(prepared(2, ["priority", "synergy"], params={"order": ["Cow", "Lion"]}), 1, 0, 2)
    assert len(play_batch.signatures) == before


def test_batch_kernel_calls_the_engine_through_a_pointer():
    # A statically linked engine would be re-optimised in the kernel, its gufunc and wrappers (~9 s of
    # cold compile); the kernel's one signature takes the engine as a first-class function instead.
    GAME.play(prepared(2), 1, 0, 2)
    (sig,) = play_batch.signatures
    assert sig[0] == types.FunctionType(PLAY_RANGE)
    n = 2 * BLOCK + 5  # three blocks, the last one short
    a = GAME.play(prepared(3), 7, 0, n)
    b = GAME.play(prepared(3), 7, 40, n - 40)  # the same games in other blocks
    for key in ("score", "win", "owned", "round_fame"):
        assert np.array_equal(a[key][40:], b[key])


def test_policy_matrix_columns_follow_the_declared_parameters():
    """policies.py's column names (read by the jitted policies) are the columns Game.policy_matrix writes."""

    cols = sys.modules["boardsim.games.fliptoons.policies"]
    seats = [Seat("fame_per_cost", {"min_gain": 1.5, "cost_exponent": 2.5, "dismiss_below": 3.5,
                                    "dismiss_reserve": 4}),
             Seat("synergy", {"flips": 5, "cost_exponent": 4.5, "min_gain": 7.5, "dismiss_below": 8.5,
                              "dismiss_reserve": 9}),
             Seat("priority", {"order": ["Bear"], "fallback": "none"}),
             Seat("lookahead", {"playouts": 11, "horizon": 12})]
    m = GAME.policy_matrix(seats, cols.POLICY_WIDTH)
    fpc, syn, prio, look = m
    assert [fpc[c] for c in (cols.FPC_MIN_GAIN, cols.FPC_COST_EXPONENT, cols.FPC_DISMISS_BELOW,
                             cols.FPC_DISMISS_RESERVE)] == [1.5, 2.5, 3.5, 4]
    assert [syn[c] for c in (cols.SYNERGY_FLIPS, cols.SYNERGY_COST_EXPONENT, cols.SYNERGY_MIN_GAIN,
                             cols.SYNERGY_DISMISS_BELOW, cols.SYNERGY_DISMISS_RESERVE)] == [5, 4.5, 7.5, 8.5, 9]
    assert prio[cols.PRIORITY_FALLBACK] == 1  # "none"; 0 is fame_per_cost
    assert [look[c] for c in (cols.LOOKAHEAD_PLAYOUTS, cols.LOOKAHEAD_HORIZON)] == [11, 12]
    codes = {p.name: p.code for p in GAME.policies}
    assert [int(r[cols.POLICY_CODE]) for r in m] == [codes[s.policy] for s in seats]
