"""Wagons balance tables agree with the per-game results they summarise."""

import numpy as np

from boardsim.games import get
from boardsim.games.wagons import balance
from boardsim.runner import simulate

GAME = get("wagons")


def test_goal_start_and_skip_tables_match_the_game_rows():
    df = simulate("wagons", 120, ["gain_minus_gift", "first"], seed=5, seating="cyclic")
    out = {c: df[c].to_numpy() for c in ("first_player", "start_card", "goal0", "goal1", "goal2")}
    for name in ("win", "position", "skipped", "taken") + tuple(f"goal{k}_points" for k in range(3)):
        out[name] = df[[f"{name}_0", f"{name}_1"]].to_numpy()
    stats = balance.chunk_stats(out)
    assert stats["goal_games"].sum() == 3 * len(df) and stats["start_games"].sum() == len(df)
    # mean points of one goal, straight from the rows
    g = int(df["goal0"].iloc[0])
    pts = []
    for k in range(3):
        rows = df[df[f"goal{k}"] == g]
        pts += list(rows[f"goal{k}_points_0"]) + list(rows[f"goal{k}_points_1"])
    assert stats["goal_points"][g] == sum(pts)

    from boardsim.games.base import Seat
    from boardsim.runner import make_cell

    cell = make_cell(GAME, 2, [Seat("gain_minus_gift"), Seat("first")], {}, GAME.card_table(), seating_design="cyclic")
    tables = balance.balance_tables(cell, stats, len(df))
    goals = tables["goals"].set_index("goal")
    assert np.isclose(goals.loc[g + 1, "points_mean"], np.mean(pts))
    assert (goals["points_lo"] <= goals["points_mean"]).all()
    p1 = df.apply(lambda r: r["win_0"] if r["position_0"] == r["first_player"] else r["win_1"], axis=1).sum()
    start = tables["start_card"]
    assert np.isclose((start["p1_win_rate"] * start["games"]).sum(), p1)
    skips = tables["skips"].set_index("seat")
    assert np.isclose(skips.loc[1, "mean_skipped"], df["skipped_1"].mean())
    assert skips.loc[1, "policy"] == "first" and skips.loc[1, "mean_skipped"] == 0
