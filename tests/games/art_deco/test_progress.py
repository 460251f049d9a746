"""Art Deco's progress per round (Prepared.progress, docs/rules/art-deco.md "Progress per round (feel)"): each
seat's score and cards after every round, optional output of every engine variant, and the standing keys."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest

from boardsim.games.art_deco import GAME, kernel, mcts, step
from boardsim.games.art_deco.state import HELPERS
from boardsim.games.base import Seat

SCORERS = "tests.games.art_deco.scorers"


def prepare(seats, rules=None, progress=True):
    seats = [Seat(*s) if isinstance(s, tuple) else Seat(s) if isinstance(s, str) else s for s in seats]
    prep = GAME.prepare(len(seats), seats, rules or {}, GAME.card_table())
    return dataclasses.replace(prep, progress=progress)


def assert_progress_ends_at_the_score(out, rules=None):
    n, P = out["score"].shape
    R = int((rules or {}).get("rounds", 10))
    assert out["progress"].shape == out["progress_cards"].shape == (n, P, R)
    assert out["progress"].dtype == out["progress_cards"].dtype == np.int64
    last = np.clip(out["rounds"] - 1, 0, R - 1)  # the game's last round (0 rounds: the deal, filled throughout)
    rows = np.arange(n)
    np.testing.assert_array_equal(out["progress"][rows, :, last], out["score"])
    np.testing.assert_array_equal(out["progress_cards"][rows, :, last], out["cards_held"])
    # the rounds the game did not reach hold its end
    after = np.arange(R)[None, :] >= out["rounds"][:, None]  # (n, R)
    for p in range(P):
        np.testing.assert_array_equal(np.where(after, out["score"][:, p:p + 1], out["progress"][:, p]),
                                      out["progress"][:, p])


RULE_SETS = (
    {},
    {"sale_price_factor": 1.5, "direct_price_factor": 0.8, "open_min_bid": 0.5},
    {"unsold": "pile_bottom", "start_player": "last_winner", "credit_limit": 10, "rounds": 30},
    {"values": [1, 2, 3] * 6, "rounds": 12},  # ends early: the pile runs out
    {"sale_price_factor": 2.0, "direct_buy_max": 0, "min_cards_to_win": 3, "rounds": 4},
)


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_last_round_progress_is_the_score(rules, players):
    seats = ["par", "multiple", ("random", {"sell_prob": 0.5}), "blocker"][:players - 1] + ["eligibility"]
    out = GAME.play(prepare(seats, rules), 21, 0, 3000)
    assert_progress_ends_at_the_score(out, rules)
    if "values" in rules:
        assert (out["rounds"] < rules["rounds"]).any()  # some games end on an empty pile


def test_progress_off_changes_nothing():
    seats = ["eligibility", ("random", {"sell_prob": 0.5}), "blocker"]
    rules = {"sale_price_factor": 1.5}
    off = GAME.play(prepare(seats, rules, progress=False), 5, 3, 2000)
    on = GAME.play(prepare(seats, rules), 5, 3, 2000)
    assert "progress" not in off and "progress_cards" not in off
    assert set(on) - set(off) == {"progress", "progress_cards"}
    for k in off:
        np.testing.assert_array_equal(off[k], on[k], err_msg=k)


def test_golden_two_rounds_by_hand():
    # P0 par [1, 2, 3], P1 multiple 1.5 [4, 5, 6]; sale price x2, one direct card, 2 cards to win.
    # Round 1: P1 wins the 10 for 11 and buys the 2 (cash -13); P0 sells its 3 for 6, P1 its 6 for 12.
    #   P0: cash 6 + [1, 2] = 9, 2 cards;  P1: cash -1 + [4, 5, 10, 2] = 20, 4 cards.
    # Round 2: P1 wins the 11 for 11 and buys the 7 (cash -19) and sells its 10 for 20; P0 keeps its 2 cards.
    #   P0: 9, 2 cards;  P1: cash 1 + [4, 5, 2, 11, 7] = 30, 5 cards.
    rules = {"values": [1, 2, 3, 4, 5, 6, 10, 2, 11, 7, 8], "shuffle": False, "rounds": 2, "direct_buy_max": 1,
             "sale_price_factor": 2.0, "min_cards_to_win": 2}
    prep = prepare(["par", ("multiple", {"multiple": 1.5})], rules)
    out = GAME.play(prep, 1, 0, 1)
    assert out["progress"][0].tolist() == [[9, 9], [20, 30]]
    assert out["progress_cards"][0].tolist() == [[2, 2], [4, 5]]
    assert out["score"][0].tolist() == [9, 30]
    trace = GAME.trace(prep, 1, 0)
    assert "P1 buys the 2 for 2" in trace and "sale: P1 sells a 10 for 20" in trace


def test_rounds_not_reached_hold_the_end():
    # 8 cards, 6 dealt: rounds 1 and 2 sell the 7 and the 8, then the pile is empty
    never = ("multiple", {"multiple": 0.0})
    rules = {"values": [3, 3, 3, 4, 4, 1, 7, 8], "shuffle": False, "rounds": 5, "direct_buy_max": 0}
    out = GAME.play(prepare(["par", never], rules), 1, 0, 1)
    assert out["rounds"][0] == 2 and GAME.end_reasons[out["end"][0]] == "pile_empty"
    assert out["progress"][0].tolist() == [[9] * 5, [9] * 5]
    assert out["progress_cards"][0].tolist() == [[4, 5, 5, 5, 5], [3] * 5]


def test_standing_ranks_eligibility_then_score_then_cards():
    # one game, 4 seats, 3 rounds; 5 cards to win
    out = {"progress": np.array([[[30, 30, 8], [20, 20, 9], [20, 20, 9], [-5, 40, 100]]]),
           "progress_cards": np.array([[[4, 4, 5], [5, 6, 5], [5, 5, 5], [6, 4, 7]]])}
    keys = GAME.standing(out, {"min_cards_to_win": 5})
    assert keys.shape == (1, 4, 3) and keys.dtype == np.float64
    k = keys[0]
    # round 1: the eligible seats 1, 2 (20) and 3 (-5) rank above the richer ineligible seat 0 (30)
    assert k[1, 0] == k[2, 0] > k[3, 0] > k[0, 0]
    # round 2: seats 1 and 2 tie on 20, seat 1 holds more cards; the ineligible 40 and 30 come last
    assert k[1, 1] > k[2, 1] > k[3, 1] > k[0, 1]
    # round 3: every seat eligible: the score decides
    assert k[3, 2] > k[1, 2] == k[2, 2] > k[0, 2]
    # the rule's default (5) when the rules leave it out; another minimum
    np.testing.assert_array_equal(GAME.standing(out, {}), keys)
    assert GAME.standing(out, {"min_cards_to_win": 0})[0, 0, 0] > k[1, 0]


def test_standing_after_the_last_round_names_the_winner():
    rules = {"min_cards_to_win": 14}  # some games have no winner
    prep = prepare(["eligibility", "par", ("random", {"sell_prob": 0.3})], rules)
    out = GAME.play(prep, 9, 0, 3000)
    keys = GAME.standing(out, prep.rules)
    last = keys[np.arange(3000), :, out["rounds"] - 1]  # (n, P)
    top = last.max(axis=1, keepdims=True)
    won = out["win"].sum(axis=1) > 0
    assert won.any() and (~won).any()
    # where someone wins, the winners are exactly the seats with the top key (a shared win: equal keys)
    np.testing.assert_array_equal((last == top)[won], (out["win"] > 0)[won])


def test_same_progress_on_any_thread_count_and_chunking():
    prep = prepare(["eligibility", "blocker", ("random", {"sell_prob": 0.5})], {"sale_price_factor": 1.5})
    whole = GAME.play(prep, 3, 0, 1200)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        parts = [GAME.play(prep, 3, s, c) for s, c in ((0, 300), (300, 1), (301, 899))]
    finally:
        numba.set_num_threads(before)
    for k in ("progress", "progress_cards", "score"):
        np.testing.assert_array_equal(whole[k], np.concatenate([p[k] for p in parts]), err_msg=k)


def _signatures():
    fns = [kernel._play_range, step.run, mcts.play_range, mcts.play_batch, *kernel._BATCH.values(),
           *(fn for fn, _ in HELPERS)]
    return [len(fn.signatures) for fn in fns]


CELLS = (
    ["eligibility", "par"],
    [Seat("custom", {"function": f"{SCORERS}:par"}), Seat("eligibility")],  # the scorers variant
    [Seat("learned"), Seat("eligibility")],
    [Seat("mcts", {"iterations": 8}), Seat("custom", {"function": f"{SCORERS}:par"})],
    [Seat("mcts", {"iterations": 8}), Seat("eligibility"), Seat("par")],
)


def test_recording_compiles_nothing_new():
    for seats in CELLS:  # every variant compiled, with progress off
        GAME.play(prepare(seats, progress=False), 4, 0, 4)
    GAME.trace(prepare(CELLS[0], progress=False), 4, 0)
    GAME.trace(prepare(CELLS[-1], progress=False), 4, 0)
    before = _signatures()
    for seats in CELLS:
        out = GAME.play(prepare(seats), 4, 0, 4)
        assert_progress_ends_at_the_score(out)
    GAME.trace(prepare(CELLS[0]), 4, 0)
    assert _signatures() == before
    # and each is one of its variants' explicit signatures (progress on or off: the same types)
    assert {tuple(s) for s in kernel._play_range.signatures} <= {s.args for s in kernel.RANGE_SIG.values()}
    assert {tuple(s) for s in step.run.signatures} <= {s.args for s in kernel.GAME_SIG.values()}
    assert {tuple(s) for s in mcts.play_range.signatures} <= {s.args for s in mcts.RANGE_SIGS}
    assert {tuple(s) for s in mcts.play_batch.signatures} <= {s.args for s in mcts.BATCH_SIGS}


@pytest.mark.parametrize("seats", CELLS[1:], ids=["custom", "learned", "mcts_custom", "mcts3"])
def test_every_variant_records_progress(seats):
    rules = {"sale_price_factor": 1.5, "rounds": 6}
    on = GAME.play(prepare(seats, rules), 8, 2, 6)
    off = GAME.play(prepare(seats, rules, progress=False), 8, 2, 6)
    assert_progress_ends_at_the_score(on, rules)
    for k in off:  # recording changes no game (the mcts search's own worlds record nothing)
        np.testing.assert_array_equal(off[k], on[k], err_msg=k)
    # each round's progress moves: cards change every round someone buys
    assert (np.diff(on["progress_cards"], axis=2) != 0).any()
