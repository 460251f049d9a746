"""Policies are data: parameters change behaviour without recompiling."""

import numpy as np

from boardsim.games import get
from boardsim.games.art_deco import decide, kernel
from boardsim.games.base import Seat
from boardsim.runner import simulate

GAME = get("art_deco")


def test_policy_list_is_pinned():
    assert GAME.policy_names() == ["random", "par", "multiple", "eligibility", "blocker", "rules", "custom", "learned",
                                   "mcts"]


def test_policy_matrix_columns_are_the_options_in_order():
    # decide.py reads the built-ins' parameters by these named columns: each must be the option it names
    columns = {
        "random": {"pass_prob": decide.RANDOM_PASS, "max_raise": decide.RANDOM_RAISE, "buy_prob": decide.RANDOM_BUY,
                   "sell_prob": decide.RANDOM_SELL},
        "par": {"sell_margin": decide.PAR_MARGIN},
        "multiple": {"multiple": decide.COL_MULTIPLE, "sell_margin": decide.MULTIPLE_MARGIN},
        "eligibility": {"hard": decide.COL_MULTIPLE, "target": decide.ELIGIBILITY_TARGET,
                        "sell_margin": decide.ELIGIBILITY_MARGIN},
        "blocker": {"multiple": decide.COL_MULTIPLE, "cap": decide.BLOCKER_CAP, "sell_margin": decide.BLOCKER_MARGIN},
    }
    for name, cols in columns.items():
        values = {opt: 0.125 * (k + 1) if name == "random" and opt != "max_raise" else k + 2
                  for k, opt in enumerate(cols)}
        row = GAME.policy_matrix([Seat(name, values)], decide.POLICY_WIDTH)[0]
        assert row[decide.COL_CODE] == GAME.policy(name).code
        assert {opt: row[col] for opt, col in cols.items()} == values, name
        # favour and avoid (card strength's arms) travel in the last two columns, as 1 + a card's value
        assert [p.name for p in GAME.policy(name).params if p.kind != "names"] == list(cols), name
    row = GAME._policy_matrix([Seat("par", {"favour": ["v8"], "avoid": ["v3"]})], GAME.card_table())[0]
    assert (row[decide.COL_FAVOUR], row[decide.COL_AVOID]) == (9, 4) and decide.COL_AVOID == decide.POLICY_WIDTH - 1


def test_new_parameter_values_do_not_recompile():
    simulate("art_deco", 100, [("multiple", {"multiple": 1.1})] * 4, seed=1)
    before = len(kernel._play_range.signatures)
    for m in (0.5, 1.7, 2.3):
        simulate("art_deco", 100, [("multiple", {"multiple": m}), "blocker"], seed=1, players=3,
                 rules={"rounds": 7, "sale_price_factor": 1.3}, cards={"v12": {"copies": 2}})
    assert len(kernel._play_range.signatures) == before


def test_higher_multiple_pays_more():
    low = simulate("art_deco", 4000, [("multiple", {"multiple": 1.0}), "par"], seed=2)
    high = simulate("art_deco", 4000, [("multiple", {"multiple": 2.0}), "par"], seed=2)
    assert high["paid_0"].mean() > low["paid_0"].mean()


def test_eligibility_bidder_reaches_five_cards():
    # 6 rounds, no direct buys: par bidders win only the auctions they open, too few for 5 cards
    df = simulate("art_deco", 4000, ["eligibility", "par", "par", "par"], seed=3,
                  rules={"direct_buy_max": 0, "rounds": 6})
    assert df["eligible_0"].mean() > 0.9
    assert df["eligible_0"].mean() > df["eligible_1"].mean() + 0.3


def test_blocker_outbids_the_leader():
    calm = simulate("art_deco", 4000, [("blocker", {"cap": 0}), "multiple", "multiple"], seed=4)
    block = simulate("art_deco", 4000, [("blocker", {"cap": 8}), "multiple", "multiple"], seed=4)
    assert block["overbid_0"].mean() > calm["overbid_0"].mean()


def test_random_policy_is_reproducible_and_varied():
    a = simulate("art_deco", 500, ["random"] * 4, seed=5)
    b = simulate("art_deco", 500, ["random"] * 4, seed=5)
    assert a.equals(b)
    assert a["paid_0"].nunique() > 5


def test_policy_matrix_layout():
    m = GAME.policy_matrix([Seat("eligibility", {"hard": 2.0}), Seat("par")], 5)
    assert np.array_equal(m[0, :4], [3, 2.0, 5, 1])
    assert m[1, 0] == 1
