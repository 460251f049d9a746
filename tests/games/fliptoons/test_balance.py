"""FlipToons balance tables agree with the per-game arrays they summarise."""

import numpy as np

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons import balance
from boardsim.runner import make_cell, play_chunk

GAME = get("fliptoons")


def test_card_critic_and_curve_tables_match_the_arrays():
    cell = make_cell(GAME, 3, [Seat("fame_per_cost"), Seat("highest_rank"), Seat("random")], {}, GAME.card_table(),
                     rotate=True)
    out = play_chunk(cell, 11, 0, 60)
    stats = balance.chunk_stats(out)
    tables = balance.balance_tables(cell, stats, 180)
    cards = tables["cards"].set_index("card")
    names = list(GAME.card_table()["name"])
    k = names.index("Elephant")
    owners = out["owned"][:, :, k] > 0
    assert np.isclose(cards.loc["Elephant", "owned_rate"], owners.mean())
    if owners.any():
        assert np.isclose(cards.loc["Elephant", "owner_win_rate"], out["win"][owners].mean())
    assert np.isclose(cards.loc["Elephant", "hires_per_game"], out["hired"][:, :, k].mean())
    assert np.isclose(cards["fame_per_game"].sum() * 180 * 3, out["kind_fame"].sum())
    critic = tables["critic"].iloc[0]
    held = out["critic"] >= 0
    assert critic["critic_games"] == held.sum()
    curve = tables["fame_curve"]
    first = curve[(curve["round"] == 1) & (curve["seat"] == 0)].iloc[0]
    assert first["games"] == 180 and np.isclose(first["mean_fame"], out["round_fame"][:, 0, 0].mean())


def test_favour_and_market_cards():
    table = GAME.card_table()
    market = GAME.market_cards(table)
    assert "Elephant" in market and "Caterpillar" not in market and len(market) == 25
    seat = GAME.favour("Elephant")
    assert seat.policy == "priority" and seat.params["order"] == ["Elephant"]


def test_fame_per_appearance_counts_face_up_cards_at_check_fame():
    cell = make_cell(GAME, 2, [Seat("fame_per_cost")], {}, GAME.card_table(), rotate=True)
    out = play_chunk(cell, 3, 0, 40)
    names = list(GAME.card_table()["name"])
    snail = names.index("Snail")  # a starter worth a flat 2 fame every time it is face-up
    assert out["appearances"][:, :, snail].sum() > 0
    assert out["kind_fame"][:, :, snail].sum() == 2 * out["appearances"][:, :, snail].sum()
    tables = balance.balance_tables(cell, balance.chunk_stats(out), 80)
    assert tables["cards"].set_index("card").loc["Snail", "fame_per_appearance"] == 2.0
