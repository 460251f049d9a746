"""Art Deco rules on constructed (unshuffled) deals and invariants on seeded batches."""

import numpy as np
import pytest

from boardsim import cli
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.runner import simulate

GAME = get("art_deco")


def play_one(seats, **rules):
    """One scripted game: ``values`` dealt in order, P0 gets the first hand."""
    rules.setdefault("shuffle", False)
    prep = GAME.prepare(len(seats), [Seat(*s) if isinstance(s, tuple) else Seat(s) for s in seats], rules,
                        GAME.card_table())
    out = GAME.play(prep, 1, 0, 1)
    return {k: v[0] for k, v in out.items()}


def test_eligible_lower_score_beats_ineligible_higher_score():
    # P0 dealt 5,5,5 buys the 9 and two 2s (6 cards); P1 dealt 10,10,10 holds only 3 cards
    r = play_one(["par", "par"], values=[5, 5, 5, 10, 10, 10, 9, 2, 2, 7], rounds=1)
    assert list(r["cards_held"]) == [6, 3]
    assert list(r["score"]) == [28 - 13, 30]
    assert list(r["eligible"]) == [1, 0]
    assert list(r["win"]) == [1.0, 0.0]


def test_no_eligible_player_means_no_winner():
    r = play_one(["par", "par"], values=[5, 5, 5, 10, 10, 10, 9, 2, 2, 7], rounds=1, min_cards_to_win=10)
    assert r["win"].sum() == 0.0


def test_tie_on_score_goes_to_more_cards():
    # both score 9; P0 bought the 2 at par so holds 4 cards to P1's 3
    never = ("multiple", {"multiple": 0.0})
    r = play_one(["par", never], values=[3, 3, 3, 4, 4, 1, 2, 8], rounds=1, direct_buy_max=0, min_cards_to_win=0)
    assert list(r["score"]) == [9, 9]
    assert list(r["cards_held"]) == [4, 3]
    assert list(r["win"]) == [1.0, 0.0]


def test_full_tie_is_shared():
    never = ("multiple", {"multiple": 0.0})
    r = play_one([never, never], values=[3, 3, 3, 4, 4, 1, 2, 8], rounds=1, min_cards_to_win=0)
    assert list(r["score"]) == [9, 9]
    assert list(r["win"]) == [0.5, 0.5]
    assert r["unsold"] == 1


def test_auction_overbid_and_direct_buy_at_value():
    # P0 par opens 9, P1 multiple 1.5 raises to 10, P0 passes; P1 pays 10, buys 2 and 3 directly
    r = play_one(["par", ("multiple", {"multiple": 1.5})], values=[1, 1, 1, 1, 1, 1, 9, 2, 3, 7], rounds=1)
    assert list(r["paid"]) == [0, 15]
    assert list(r["overbid"]) == [0, 1]
    assert list(r["direct_buys"]) == [0, 2]


def test_unsold_card_discard_or_pile_bottom():
    never = ("multiple", {"multiple": 0.0})
    vals = [1] * 6 + [9, 2, 3, 4]
    discard = play_one([never, never], values=vals, rounds=1)
    bottom = play_one([never, never], values=vals, rounds=1, unsold="pile_bottom")
    assert bottom["pile_left"] == discard["pile_left"] + 1


def test_only_cards_from_earlier_rounds_can_be_sold():
    # sale price x2: P0 wins the 12 in round 1 but may only sell a dealt 1 (for 2)
    r = play_one(["par", ("multiple", {"multiple": 0.0})], values=[1, 1, 1, 5, 5, 5, 12, 3],
                 rounds=1, direct_buy_max=0, sale_price_factor=2.0, min_cards_to_win=0)
    assert r["cards_sold"][0] == 1
    assert r["sold_value"][0] == 2
    assert r["score"][0] == r["held_value"][0] + r["sold_value"][0] - r["paid"][0]


def test_sellers_keep_enough_cards_to_win():
    r = play_one(["par", "par"], values=[1, 1, 1, 5, 5, 5, 12, 3, 3, 4, 4, 4], rounds=2,
                 sale_price_factor=2.0)
    assert all(r["cards_held"][p] >= 5 or r["cards_sold"][p] == 0 for p in range(2))


def test_start_player_rotates_or_follows_the_last_winner():
    seats = [Seat("par"), Seat("multiple", {"multiple": 1.5}), Seat("par")]
    base = {"values": [1] * 9 + [9, 1, 1, 5, 1, 1, 5, 1, 1], "shuffle": False, "rounds": 2}
    rot = GAME.trace(GAME.prepare(3, seats, base, GAME.card_table()), 1, 0)
    last = GAME.trace(GAME.prepare(3, seats, {**base, "start_player": "last_winner"}, GAME.card_table()), 1, 0)
    assert "Round 2: active card 5, P1 opens" in rot
    assert "P1 wins the 9" in last and "Round 2: active card 5, P1 opens" in last
    base2 = {**base, "values": [1] * 9 + [9, 1, 1, 5]}
    seats2 = [Seat("multiple", {"multiple": 1.5}), Seat("par"), Seat("par")]
    last2 = GAME.trace(GAME.prepare(3, seats2, {**base2, "start_player": "last_winner"}, GAME.card_table()), 1, 0)
    assert "Round 2: active card 5, P0 opens" in last2


def trace_lines(seats, players=None, **rules):
    rules.setdefault("shuffle", False)
    seats = [Seat(*s) if isinstance(s, tuple) else Seat(s) for s in seats]
    return GAME.trace(GAME.prepare(players or len(seats), seats, rules, GAME.card_table()), 1, 0).splitlines()


SALE_DEAL = {"values": list(range(1, 14)), "rounds": 2, "sale_price_factor": 2.0, "direct_buy_max": 0,
             "min_cards_to_win": 0}
SALE_SEATS = ["par", "par", ("multiple", {"multiple": 1.5})]


def test_last_winner_sale_runs_from_the_round_start_player_and_the_winner_opens_the_next_round():
    # Issue 12 item 4: P2 wins round 1, which P0 opened; round 1's sale still goes P0, P1, P2 and
    # P2 opens round 2 (auction and sale).  Par sellers at sale price x2 each sell their best old card.
    assert trace_lines(SALE_SEATS, start_player="last_winner", **SALE_DEAL) == [
        "Setup: dealt hands",
        "  P0 par: [1, 2, 3] (value 6)",
        "  P1 par: [4, 5, 6] (value 15)",
        "  P2 multiple(multiple=1.5): [7, 8, 9] (value 24)",
        "Round 1: active card 10, P0 opens the bidding",
        "  P0 bids 10",
        "  P1 passes",
        "  P2 bids 11",
        "  P0 passes",
        "  P2 wins the 10 for 11 (overbid 1)",
        "  sale: P0 sells a 3 for 6",
        "  sale: P1 sells a 6 for 12",
        "  sale: P2 sells a 9 for 18",
        "Round 2: active card 11, P2 opens the bidding",
        "  P2 bids 11",
        "  P0 passes",
        "  P1 passes",
        "  P2 wins the 11 for 11 (overbid 0)",
        "  sale: P2 sells a 10 for 20",
        "  sale: P0 sells a 2 for 4",
        "  sale: P1 sells a 5 for 10",
        "Game over after round 2: rounds",
        "  P0 par: score 11 = cash 10 + cards (1 held, eligible)",
        "  P1 par: score 26 = cash 22 + cards (1 held, eligible)",
        "  P2 multiple(multiple=1.5): score 42 = cash 16 + cards (3 held, eligible) WINS",
    ]


def test_rotate_sale_order_follows_the_rotating_start_player():
    lines = trace_lines(SALE_SEATS, **SALE_DEAL)
    assert "Round 2: active card 11, P1 opens the bidding" in lines
    sellers = [line.split()[1] for line in lines if line.startswith("  sale:")]
    assert sellers == ["P0", "P1", "P2", "P1", "P2", "P0"]


NEVER = ("multiple", {"multiple": 0.0})
TIE_DEAL = {"values": [3, 3, 3, 4, 4, 1, 2, 8], "rounds": 1, "min_cards_to_win": 0}


def test_trace_says_the_card_count_broke_a_tie():
    assert trace_lines(["par", NEVER], direct_buy_max=0, **TIE_DEAL) == [
        "Setup: dealt hands",
        "  P0 par: [3, 3, 3] (value 9)",
        "  P1 multiple(multiple=0.0): [4, 4, 1] (value 9)",
        "Round 1: active card 2, P0 opens the bidding",
        "  P0 bids 2",
        "  P1 passes",
        "  P0 wins the 2 for 2 (overbid 0)",
        "Game over after round 1: rounds",
        "  P0 par: score 9 = cash -2 + cards (4 held, eligible) WINS",
        "  P1 multiple(multiple=0.0): score 9 = cash 0 + cards (3 held, eligible)",
        "  tie-break: P0 and P1 tie on score 9; P0 wins on more cards (4 vs 3)",
    ]


def test_trace_says_a_full_tie_is_shared():
    assert trace_lines([NEVER, NEVER], **TIE_DEAL) == [
        "Setup: dealt hands",
        "  P0 multiple(multiple=0.0): [3, 3, 3] (value 9)",
        "  P1 multiple(multiple=0.0): [4, 4, 1] (value 9)",
        "Round 1: active card 2, P0 opens the bidding",
        "  P0 passes",
        "  P1 passes",
        "  nobody bids: the 2 is discarded",
        "Game over after round 1: rounds",
        "  P0 multiple(multiple=0.0): score 9 = cash 0 + cards (3 held, eligible) shares the win (0.50)",
        "  P1 multiple(multiple=0.0): score 9 = cash 0 + cards (3 held, eligible) shares the win (0.50)",
        "  tie remains: P0 and P1 have score 9 and 3 cards each; the win is shared (1/2 each)",
    ]


def test_trace_tie_on_score_narrowed_by_cards_then_shared():
    # three tie on 9; P0 and P1 each bought one card at par, so they share the win
    lines = trace_lines(["par", "par", NEVER], values=[3, 3, 3, 4, 4, 1, 2, 2, 5, 2, 5], rounds=2,
                        direct_buy_max=0, min_cards_to_win=0)
    assert lines[-5:] == [
        "  P0 par: score 9 = cash -2 + cards (4 held, eligible) shares the win (0.50)",
        "  P1 par: score 9 = cash -5 + cards (4 held, eligible) shares the win (0.50)",
        "  P2 multiple(multiple=0.0): score 9 = cash 0 + cards (3 held, eligible)",
        "  tie-break: P0, P1 and P2 tie on score 9; P0 and P1 hold the most cards (4 vs 3)",
        "  tie remains: P0 and P1 have score 9 and 4 cards each; the win is shared (1/2 each)",
    ]


def test_no_tie_line_when_one_player_has_the_top_score_or_ties_are_ineligible():
    lines = trace_lines(["par", NEVER], direct_buy_max=0, **{**TIE_DEAL, "min_cards_to_win": 4})
    assert lines[-2:] == [
        "  P0 par: score 9 = cash -2 + cards (4 held, eligible) WINS",
        "  P1 multiple(multiple=0.0): score 9 = cash 0 + cards (3 held, not eligible)",
    ]
    assert not any("tie" in line for line in trace_lines(["par", "par"], values=[5, 5, 5, 10, 10, 10, 9, 2, 2, 7],
                                                          rounds=1))


def prepare(players=2, **rules):
    return GAME.prepare(players, [Seat("par")] * players, rules, GAME.card_table())


@pytest.mark.parametrize(
    "players, rules, needed",
    [
        (2, {"values": [1, 2, 3, 4, 5]}, "needs 6 cards but the deck has 5; allowed: hand_size <= 2"),
        (4, {"hand_size": 6, "values": list(range(1, 24))}, "needs 24 cards but the deck has 23"),
    ],
)
def test_deck_too_small_for_the_deal_is_bad_input(players, rules, needed):
    with pytest.raises(BadInput) as e:
        prepare(players, **rules)
    assert e.value.key == "rules.hand_size" and needed in e.value.message
    prepare(players, **{**rules, "hand_size": len(rules["values"]) // players})  # the largest allowed deals


def test_deck_too_small_from_the_card_table_is_bad_input():
    cards = GAME.card_table({f"v{v}": {"copies": 1} for v in range(1, 13)})  # 12 cards, 4 x 3 dealt
    GAME.prepare(4, [Seat("par")] * 4, {}, cards)
    with pytest.raises(BadInput, match="needs 16 cards but the deck has 12"):
        GAME.prepare(4, [Seat("par")] * 4, {"hand_size": 4}, cards)


def test_no_legal_opening_bid_is_bad_input():
    # the engine opens at ceil(open_min_bid x v) and allows bids up to v + bid_ceiling
    with pytest.raises(BadInput) as e:
        prepare(values=[3, 7] * 5, open_min_bid=1.7, bid_ceiling=2)  # the 3: 6 > 5; the 7: 12 > 9
    assert e.value.key == "rules.open_min_bid"
    assert "(the 3: 6 > 3 + 2)" in e.value.message
    assert "allowed: open_min_bid <= 1.6666 with bid_ceiling 2, or bid_ceiling >= 3" in e.value.message
    # both suggested fixes, and an exact fit (ceil(5/3 x 3) == 5 == 3 + 2), are accepted
    for ok in ({"open_min_bid": 1.6666, "bid_ceiling": 2}, {"open_min_bid": 1.7, "bid_ceiling": 3},
               {"open_min_bid": 5 / 3, "bid_ceiling": 2}):
        prepare(values=[3, 7] * 5, **ok)
    # one openable value is enough, even if it is rare (the 2 opens at ceil(3.4) = 4 = 2 + 2)
    prepare(values=[7] * 9 + [2], open_min_bid=1.7, bid_ceiling=2)
    with pytest.raises(BadInput, match="the 1: 5 > 1 \\+ 0"):
        prepare(open_min_bid=5.0, bid_ceiling=0)
    prepare(open_min_bid=5.0, bid_ceiling=4)  # the 1 opens at 5 = 1 + 4


def test_unplayable_setups_are_one_line_cli_errors(tmp_path, capsys):
    for rules, key in (("values = [1, 2, 3, 4, 5]", "rules.hand_size"),
                       ("open_min_bid = 3.0\nbid_ceiling = 1", "rules.open_min_bid")):
        path = tmp_path / "s.toml"
        path.write_text(f'game = "art_deco"\nplayers = 2\n[rules]\n{rules}\n')
        assert cli.main(["sweep", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"error: {path}: {key}: ") and "allowed:" in err
    assert cli.main(["play", "art_deco", "--rule", "hand_size=20", "--rule", "values=[1,2,3]"]) == 2
    assert capsys.readouterr().err.startswith("error: rules.hand_size: dealing 20 cards to each of 4 players")


def test_credit_limit_zero_forbids_debt():
    # nobody sells at par prices, so with no cash nobody can ever buy
    df = simulate("art_deco", 2000, ["par", "eligibility", "blocker", "multiple"], seed=3,
                  rules={"credit_limit": 0})
    for j in range(4):
        assert (df[f"paid_{j}"] == 0).all()
    # random sellers raise cash first, then may spend it, never going below zero
    df = simulate("art_deco", 2000, ["random"] * 4, seed=3, rules={"credit_limit": 0})
    assert (df[[f"paid_{j}" for j in range(4)]].to_numpy() > 0).any()
    for j in range(4):
        assert (df[f"cash_{j}"] >= 0).all()


def test_credit_limit_bounds_debt():
    df = simulate("art_deco", 3000, ["multiple", "eligibility", "blocker", "random"], seed=4,
                  rules={"credit_limit": 7, "sale_price_factor": 1.5})
    for j in range(4):
        assert df[f"cash_{j}"].min() >= -7


def test_bid_ceiling_caps_overbids():
    df = simulate("art_deco", 3000, [("random", {"max_raise": 50, "pass_prob": 0.1})] * 4, seed=5,
                  rules={"bid_ceiling": 3})
    for j in range(4):
        assert (df[f"overbid_{j}"] <= 3 * df[f"auctions_won_{j}"]).all()
    assert (df[[f"overbid_{j}" for j in range(4)]].to_numpy() > 0).any()


def test_open_min_bid_below_value_lets_auctions_gain():
    # between par bidders the price still climbs to the value; a half-value bidder lets par win cheap
    df = simulate("art_deco", 2000, ["par"] * 4, seed=6, rules={"open_min_bid": 0.0})
    assert (df[[f"overbid_{j}" for j in range(4)]].to_numpy() == 0).all()
    df = simulate("art_deco", 2000, ["par", ("multiple", {"multiple": 0.5})], seed=6, rules={"open_min_bid": 0.0})
    assert df["overbid_0"].mean() < 0
    assert (df["score_0"] > df["dealt_value_0"]).any()


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"sale_price_factor": 1.5, "direct_price_factor": 0.8, "open_min_bid": 0.5},
        {"unsold": "pile_bottom", "start_player": "last_winner", "credit_limit": 10, "rounds": 30},
        {"values": [1, 2, 3] * 6, "rounds": 12},
    ],
)
def test_accounting_identity_on_every_game(rules):
    seats = ["par", "multiple", "eligibility", "blocker", "random"]
    for players in (2, 4):
        df = simulate("art_deco", 20_000, seats, seed=11, rules=rules, players=players)
        for j in range(players):
            score, held, sold, paid = (df[f"{c}_{j}"].to_numpy() for c in ("score", "held_value", "sold_value",
                                                                             "paid"))
            assert np.array_equal(score, held + sold - paid)
            assert np.array_equal(df[f"cash_{j}"].to_numpy(), sold - paid)


def identity_gap(rules, seats=("par", "multiple", "eligibility", "blocker"), players=4):
    """score - (dealt_value - overbid) for every game and seat."""
    df = simulate("art_deco", 3000, list(seats), seed=12, rules=rules, players=players)
    return np.stack([df[f"score_{j}"] - (df[f"dealt_value_{j}"] - df[f"overbid_{j}"]) for j in range(players)])


@pytest.mark.parametrize(
    "rules",
    [
        {},
        # the options the report names as keeping the identity
        {"credit_limit": 0},
        {"credit_limit": 5, "unsold": "pile_bottom", "start_player": "last_winner"},
        {"open_min_bid": 0.5, "bid_ceiling": 2, "rounds": 30, "hand_size": 5, "direct_buy_max": 4},
        {"min_cards_to_win": 2, "values": [1, 5, 9] * 12},
    ],
)
def test_score_is_dealt_value_minus_overbid_at_default_price_factors(rules):
    # random seats too: they sell and buy direct at random, which must not matter at price factor 1
    gap = identity_gap(rules, seats=("par", "multiple", "random", "blocker"))
    assert (gap == 0).all()


@pytest.mark.parametrize("rules", [{"sale_price_factor": 1.5}, {"direct_price_factor": 0.8}])
def test_price_factors_break_the_identity(rules):
    gap = identity_gap(rules, seats=("par", "multiple", "random", "blocker"))
    assert (gap != 0).any()
    if "sale_price_factor" in rules:
        assert (gap >= 0).all()  # a sale at 1.5 x value can only add to the score


def test_cards_are_conserved():
    # every card is held, still in the pile, or was discarded unsold
    df = simulate("art_deco", 5000, ["random"] * 3, seed=8)
    held = sum(df[f"cards_held_{j}"] for j in range(3))
    assert ((held + df["pile_left"] + df["unsold"]) == 108).all()
    df = simulate("art_deco", 5000, ["random"] * 3, seed=8, rules={"unsold": "pile_bottom"})
    held = sum(df[f"cards_held_{j}"] for j in range(3))
    assert ((held + df["pile_left"]) == 108).all() and df["unsold"].sum() > 0


def test_default_scores_never_exceed_dealt_value():
    df = simulate("art_deco", 5000, ["par", "multiple", "eligibility", "blocker"], seed=9)
    for j in range(4):
        assert (df[f"score_{j}"] <= df[f"dealt_value_{j}"]).all()


def test_every_policy_makes_only_legal_moves():
    seats = [Seat(p.name) for p in GAME.policies if not p.open and p.name != "learned"]
    for players in (2, 3, 4):
        for rules in ({}, {"credit_limit": 3, "sale_price_factor": 2.0}):
            prep = GAME.with_checks(GAME.prepare(players, seats[:players], rules, GAME.card_table()))
            out = GAME.play(prep, 99, 0, 3000)
            assert out["illegal"].sum() == 0
    seats = [Seat("random"), Seat("blocker"), Seat("eligibility"), Seat("multiple")]
    prep = GAME.with_checks(GAME.prepare(4, seats, {"bid_ceiling": 0}, GAME.card_table()))
    assert GAME.play(prep, 7, 0, 3000)["illegal"].sum() == 0


def test_win_shares_sum_to_one_or_zero():
    df = simulate("art_deco", 5000, ["random", "par"], seed=10, players=3)
    total = df[["win_0", "win_1", "win_2"]].sum(axis=1)
    assert set(np.round(total, 9)) <= {0.0, 1.0}


def test_engine_compiles_each_helper_and_the_game_in_one_signature():
    # Cold-compile guard: a helper compiled again per literal argument, or the game in a second signature,
    # adds seconds to the first run.  A scripted deal, a random seat and a trace (called from Python) included.
    from boardsim.games.art_deco import kernel, step
    from boardsim.games.art_deco.state import HELPERS

    play_one(["par", ("random", {"sell_prob": 1.0})], values=[5, 5, 5, 10, 10, 10, 9, 2, 2, 7], rounds=2)
    prep = GAME.prepare(3, [Seat("eligibility"), Seat("blocker"), Seat("par")], {}, GAME.card_table())
    assert "round 1" in GAME.trace(prep, 7, 3)
    assert {fn.py_func.__name__ for fn, _ in HELPERS} >= {"_rand", "_draw", "_log", "reservation"}
    for fn, sig in HELPERS:
        assert fn.signatures == [sig.args], fn.py_func.__name__
    assert {tuple(s) for s in step.run.signatures} <= {s.args for s in kernel.GAME_SIG.values()}
    assert {tuple(s) for s in kernel._play_range.signatures} <= {s.args for s in kernel.RANGE_SIG.values()}
