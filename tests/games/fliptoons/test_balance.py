"""FlipToons balance tables agree with the per-game arrays they summarise."""

import numpy as np

from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.games.fliptoons import balance
from boardsim.runner import make_cell, play_chunk

GAME = get("fliptoons")


def test_card_critic_and_curve_tables_match_the_arrays():
    cell = make_cell(GAME, 3, [Seat("fame_per_cost"), Seat("highest_rank"), Seat("random")], {}, GAME.card_table(),
                     seating_design="cyclic")
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
    cell = make_cell(GAME, 2, [Seat("fame_per_cost")], {}, GAME.card_table(), seating_design="cyclic")
    out = play_chunk(cell, 3, 0, 40)
    names = list(GAME.card_table()["name"])
    snail = names.index("Snail")  # a starter worth a flat 2 fame every time it is face-up
    assert out["appearances"][:, :, snail].sum() > 0
    assert out["kind_fame"][:, :, snail].sum() == 2 * out["appearances"][:, :, snail].sum()
    tables = balance.balance_tables(cell, balance.chunk_stats(out), 80)
    assert tables["cards"].set_index("card").loc["Snail", "fame_per_appearance"] == 2.0


def _numpy_stats(out):
    """The sums in plain NumPy, one array at a time."""
    win = np.rint(out["win"] * balance.WIN_UNITS).astype(np.int64)
    owned = out["owned"] > 0
    n, P = win.shape
    held = out["critic"] >= 0
    holder = np.argmax(out["position"] == out["critic"][:, None], axis=1)
    reached = out["rounds"][:, None] > np.arange(out["round_fame"].shape[2])[None, :]
    owner_wins = (win[:, :, None] * owned).sum(axis=(0, 1))
    stats = {
        "seat_games": [n * P], "hires": out["hired"].sum(axis=(0, 1)),
        "hired_games": (out["hired"] > 0).sum(axis=(0, 1)),
        "dismissals": out["dismissed"].sum(axis=(0, 1)), "owner_games": owned.sum(axis=(0, 1)),
        "owner_wins": owner_wins, "nonowner_wins": win.sum() - owner_wins,
        "kind_fame": out["kind_fame"].sum(axis=(0, 1)), "total_wins": [win.sum()],
        "critic_games": [held.sum()], "critic_wins": [win[np.arange(n), holder][held].sum()],
        "round_fame": (out["round_fame"].astype(np.int64) * reached[:, None, :]).sum(axis=0),
        "round_games": reached.sum(axis=0),
    }
    if "appearances" in out:
        stats["appearances"] = out["appearances"].sum(axis=(0, 1))
    return stats


def test_compiled_chunk_stats_equal_numpy_at_every_player_count():
    for players, seats, design in ((1, ["fame_per_cost"], "fixed"), (2, ["fame_per_cost"], "fixed"),
                                   (3, ["fame_per_cost", "random", "priority"], "all"), (4, ["random"], "cyclic")):
        cell = make_cell(GAME, players, [Seat(s) for s in seats], {}, GAME.card_table(), seating_design=design)
        out = play_chunk(cell, 5, 0, 40)
        got, want = balance.chunk_stats(out), _numpy_stats(out)
        assert got.keys() == want.keys()
        for name in want:
            assert np.array_equal(got[name], np.asarray(want[name], dtype=np.int64)), (players, name)
