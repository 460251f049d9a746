"""Determinism, seeding and the shape of simulate()'s results."""

import numpy as np
import pandas as pd
import pytest

from boardsim import rng
from boardsim.errors import BadInput
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.runner import Aggregate, make_cell, play_chunk, simulate

SEATS = ["par", "multiple", "eligibility", "blocker"]


def test_same_seed_same_frame_and_other_seed_differs():
    a = simulate("art_deco", 3000, SEATS, seed=42)
    b = simulate("art_deco", 3000, SEATS, seed=42)
    c = simulate("art_deco", 3000, SEATS, seed=43)
    pd.testing.assert_frame_equal(a, b)
    assert not a["score_0"].equals(c["score_0"])


def test_threads_and_chunk_size_do_not_change_results():
    base = simulate("art_deco", 5000, SEATS, seed=7, seating="cyclic", threads=2)
    for threads, chunk in ((1, 5000), (2, 333), (1, 97)):
        other = simulate("art_deco", 5000, SEATS, seed=7, seating="cyclic", threads=threads, chunk_size=chunk)
        pd.testing.assert_frame_equal(base, other)


def test_any_game_replays_from_seed_cell_and_index():
    df = simulate("art_deco", 500, SEATS, seed=5, cell=3, seating="fixed")
    row = df.iloc[321]
    game = get("art_deco")
    cell = make_cell(game, 4, [Seat(s) for s in SEATS], {}, game.card_table(), seating_design="fixed", index=3)
    key = rng.cell_key(5, 3)
    assert row["seed"] == rng.game_seed(np.uint64(key), 321)
    one = play_chunk(cell, key, 321, 1)
    assert list(one["score"][0]) == [row[f"score_{j}"] for j in range(4)]
    assert f"score {row['score_0']} =" in game.trace(cell.prepared[0], key, 321)


def test_rotation_plays_each_deal_in_every_seat_order():
    df = simulate("art_deco", 400, SEATS, seed=1, seating="cyclic")
    assert len(df) == 400 and (df.groupby("game")["rotation"].nunique() == 4).all()
    assert sorted(df["position_0"].unique()) == [0, 1, 2, 3]
    # the same deal: the dealt values follow the positions around the table
    g0 = df[df["game"] == 0].set_index("rotation")
    dealt = {r: {g0.loc[r, f"position_{j}"]: g0.loc[r, f"dealt_value_{j}"] for j in range(4)} for r in range(4)}
    assert all(dealt[r] == dealt[0] for r in range(4))


def test_frame_columns():
    df = simulate("art_deco", 50, ["par", "random"], seed=1)
    for col in ["game", "rotation", "seed", "rounds", "first_player", "end", "score_0", "win_1",
                "held_value_0", "dealt_value_1", "eligible_0", "position_1"]:
        assert col in df.columns
    assert df.attrs["game"] == "art_deco" and df.attrs["seats"] == ["par", "random"]
    assert set(df["end"].cat.categories) == {"rounds", "pile_empty"}


def test_aggregate_matches_full_rows():
    game = get("art_deco")
    cell = make_cell(game, 3, [Seat("random"), Seat("par")], {}, game.card_table(), seating_design="cyclic")
    out = play_chunk(cell, 99, 0, 1000)
    agg = Aggregate(3, game.seat_counters, len(game.end_reasons))
    agg.add(play_chunk(cell, 99, 0, 400))
    agg.add(play_chunk(cell, 99, 400, 600))
    assert agg.games == 3000
    assert np.array_equal(agg.score_sum, out["score"].sum(axis=0))
    assert np.allclose(agg.wins / 12, out["win"].sum(axis=0))
    assert sum(h[0] for h in agg.score_hist.values()) == 3000


def test_aggregate_counter_block_matches_each_counter():
    # Aggregate.add sums all seat counters through the one (games, seats, counters) block; the
    # per-name path (outputs without the block) must give the same sums, rotated or not.
    game = get("art_deco")
    for design in ("fixed", "cyclic"):
        cell = make_cell(game, 3, [Seat("random"), Seat("par")], {}, game.card_table(), seating_design=design)
        out = play_chunk(cell, 5, 0, 500)
        block, by_name = (Aggregate(3, game.seat_counters, len(game.end_reasons)) for _ in range(2))
        block.add(out)
        by_name.add({k: v for k, v in out.items() if k != "counters"})
        assert np.array_equal(block.counter_sum, by_name.counter_sum)
        for k, name in enumerate(game.seat_counters):
            assert np.array_equal(block.counter_sum[:, k], out[name].sum(axis=0))
        assert np.array_equal(block.score_sq, (out["score"] ** 2).sum(axis=0))


def test_bad_arguments():
    with pytest.raises(BadInput, match="unknown game"):
        simulate("chess", 10)
    with pytest.raises(BadInput, match="unknown policy"):
        simulate("art_deco", 10, ["greedyy"])
    with pytest.raises(BadInput, match="rules.rounds"):
        simulate("art_deco", 10, rules={"rounds": 0})
    with pytest.raises(BadInput, match="players"):
        simulate("art_deco", 10, players=9)


def test_turn_order_wins_count_from_the_first_player():
    agg = Aggregate(3, (), 1)
    out = {
        "score": np.zeros((2, 3), dtype=np.int64),
        "win": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
        "position": np.array([[0, 1, 2], [2, 0, 1]]),  # slot -> table position
        "first_player": np.array([0, 1]),  # table position that started
        "rounds": np.array([1, 1]),
        "end": np.array([0, 0]),
    }
    agg.add(out)
    # game 0: slot 0 at position 0 started and won -> place 0; game 1: slot 2 at position 1 started and won -> place 0
    assert list(agg.wins_by_position) == [24, 0, 0]


def test_the_progress_bar_moves_within_a_single_chunk_cell(monkeypatch):
    from boardsim import executors
    from boardsim import runner as runner_mod

    updates = []

    class Bar:
        def __init__(self, *args, **kwargs):
            self.total = kwargs["total"]

        def update(self, n):
            updates.append(n)

        def close(self):
            pass

    monkeypatch.setattr(runner_mod, "tqdm", Bar)
    monkeypatch.setattr(executors, "SUBCALL_SECONDS", 1e9)  # keep doubling: 16, 32, 64, ... deals per call
    monkeypatch.setattr(executors, "_SUBCALL_DEALS", {})  # from 16 deals, whatever ran before
    game = get("art_deco")
    cell = make_cell(game, 2, [Seat("par"), Seat("blocker")], None, game.card_table(), seating_design="all")
    agg = cell.new_aggregate()
    runner_mod.run_cell(cell, 1, 2 * 1000, agg.add, chunk_size=50_000, reduce=True, executor=executors.Executor())
    assert len(updates) > 3 and sum(updates) == 2000 == agg.games  # one chunk, many moves, nothing counted twice
    whole = cell.new_aggregate()
    whole.add(executors.chunk_result(cell, rng.cell_key(1, 0), 0, 1000, True))
    assert np.array_equal(whole.wins, agg.wins) and np.array_equal(whole.deal_win_sq, agg.deal_win_sq)


def test_a_bad_seat_is_named_by_its_place_in_the_list_whatever_the_arrangement():
    # under "all" the first arrangement is ordered by label, so position 0 is not listed seat 0
    g = get("art_deco")
    for bad in range(4):
        seats = [Seat("par"), Seat("eligibility"), Seat("multiple"), Seat("blocker")]
        seats[bad] = Seat(seats[bad].policy, {"sell_margin": 5000})
        with pytest.raises(BadInput) as e:
            make_cell(g, 4, seats, {}, g.card_table(), seating_design="all")
        assert e.value.key == f"seats[{bad}].params.sell_margin"


def test_a_cell_through_an_executor_splits_into_tasks_by_its_games_not_by_the_workers():
    from boardsim import executors
    from boardsim import runner as runner_mod

    wagons, art = get("wagons"), get("art_deco")
    slow = make_cell(wagons, 2, [Seat("first")], {}, wagons.card_table(), seating_design="cyclic")  # 2 arrangements
    fast = make_cell(art, 4, [Seat("par")], {}, art.card_table(), seating_design="cyclic")  # 4 arrangements
    # a 20,000-game Wagons cell used to be one 50,000-deal chunk: one worker's task, the others idle
    assert runner_mod.chunk_deals(slow, 10_000, 50_000) == 625 and 10_000 / 625 == runner_mod.TASKS_PER_CELL
    assert runner_mod.chunk_deals(slow, 100, 50_000) == 200  # no task below min_task_games: one chunk
    assert runner_mod.chunk_deals(slow, 10_000, 300) == 300  # chunk_size stays the largest chunk
    assert runner_mod.chunk_deals(fast, 250_000, 50_000) == 25_000  # 100,000 games a task at the least
    assert runner_mod.chunk_deals(fast, 10**9, 50_000) == 50_000
    # the ranges a run hands to its executor, and sums equal to one whole chunk's
    seen = []

    class Recording(executors.Executor):
        def play(self, cell, key, ranges, reduce, on_games=None):
            seen.extend(ranges)
            yield from super().play(cell, key, ranges, reduce, on_games)

    agg = slow.new_aggregate()
    runner_mod.run_cell(slow, 4, 1_600, agg.add, reduce=True, executor=Recording(), progress=False)
    assert seen == [(s, 200) for s in range(0, 800, 200)] and agg.games == 1_600
    whole = slow.new_aggregate()
    whole.add(executors.chunk_result(slow, rng.cell_key(4, slow.index), 0, 800, True))
    assert np.array_equal(whole.wins, agg.wins) and np.array_equal(whole.deal_score_sq, agg.deal_score_sq)


def test_a_search_cell_costs_its_rollouts_and_is_cut_into_smaller_chunks():
    from boardsim import runner as runner_mod

    wagons = get("wagons")
    plain = make_cell(wagons, 2, [Seat("first")], {}, wagons.card_table(), seating_design="cyclic")
    search = make_cell(wagons, 2, [Seat("mcts", {"iterations": 10})], {}, wagons.card_table(), seating_design="cyclic")
    assert plain.cost == 1.0 and not runner_mod.has_search(plain)
    # one seat of 10 rollouts a decision: 1 + 10 x decisions_per_seat x rollout_share per game (both seats)
    assert search.cost == pytest.approx(1 + 2 * 10 * wagons.decisions_per_seat * wagons.rollout_share)
    assert runner_mod.has_search(search)
    assert runner_mod.chunk_deals(plain, 10_000, 50_000) == 625
    assert runner_mod.chunk_deals(search, 10_000, 50_000) == 625  # TASKS_PER_CELL still rules large cells
    assert runner_mod.chunk_deals(plain, 100, 50_000) == 200  # the plain floor: one chunk
    assert runner_mod.chunk_deals(search, 100, 50_000) == 7  # floor of one deal: 100 / TASKS_PER_CELL


def test_warm_up_announces_the_search_player_on_its_own(monkeypatch):
    from boardsim import runner as runner_mod

    wagons = get("wagons")
    search = make_cell(wagons, 2, [Seat("mcts", {"iterations": 10}), Seat("first")], {}, wagons.card_table())
    asked = []
    monkeypatch.setattr(runner_mod, "_WARM", set())
    monkeypatch.setattr(runner_mod, "engine_cached", lambda game, module="*": asked.append(module) or False)
    monkeypatch.setattr(type(wagons), "play", lambda self, *a, **k: None)
    lines: list[str] = []
    runner_mod.warm_up(search, lines.append)
    assert asked == ["mcts"]  # the search player's own cache, not the engine's
    assert lines[0] == "compiling the Circle the Wagons search player (first run only)..."
    assert lines[1].startswith("compiled the Circle the Wagons search player in ")
    assert runner_mod.warm_up(search, lines.append) == 0.0 and len(lines) == 2  # once per process


def test_the_older_names_still_work_with_a_deprecation_warning():
    """``rotate_seats``, ``make_cell(rotate=...)`` and ``Cell.rotations`` are the older spellings of
    ``seating``, ``seating_design`` and ``Cell.prepared``: same results, and a DeprecationWarning."""
    game = get("art_deco")
    with pytest.warns(DeprecationWarning, match="rotate_seats"):
        old = simulate("art_deco", 40, ["par", "random"], seed=3, rotate_seats=True)
    pd.testing.assert_frame_equal(old, simulate("art_deco", 40, ["par", "random"], seed=3, seating="cyclic"))
    with pytest.warns(DeprecationWarning, match="rotate"):
        cell = make_cell(game, 2, [Seat("par"), Seat("random")], {}, game.card_table(), rotate=False)
    assert cell.seating == "fixed"
    with pytest.warns(DeprecationWarning, match="Cell.prepared"):
        assert cell.rotations is cell.prepared


def test_the_run_layer_keeps_its_public_names():
    """Scripts import these from boardsim.runner; they are defined in seat, cell and aggregate now."""
    from boardsim import aggregate, cell, runner, seat

    assert runner.make_cell is cell.make_cell and runner.play_chunk is cell.play_chunk
    assert runner.Aggregate is aggregate.Aggregate and runner.as_seat is seat.as_seat
    assert runner.deal_count is cell.deal_count and runner.fill_seats is seat.fill_seats


@pytest.mark.parametrize(("kw", "key"), [
    ({"seed": -1}, "seed"), ({"seed": 2**64}, "seed"), ({"chunk_size": 0}, "chunk_size"), ({"cell": -1}, "cell"),
    ({"n_games": True}, "n_games"), ({"n_games": 2.5}, "n_games"),
    ({"policies": ["par", "mcts(iterations=-3)"]}, "policies[1].iterations"),
    ({"policies": ["par", "mcts(iterations=3),par"]}, "policies"),
])
def test_simulate_checks_every_number_where_it_arrives(kw, key):
    """A negative seed is one BadParameter naming ``seed``, not an error inside NumPy."""
    from boardsim.errors import BadParameter

    args = {"n_games": 10, **kw}
    with pytest.raises(BadInput) as e:
        simulate("art_deco", args.pop("n_games"), **args)
    assert e.value.key == key, e.value.key
    assert key == "policies" or isinstance(e.value, BadParameter)


def test_simulate_takes_a_label_with_parameters_and_names_each_slots_policy():
    df = simulate("art_deco", 12, ["par", "mcts(iterations=5)"], players=3, seed=2)
    assert df.attrs["seats"] == ["par", "mcts(iterations=5)", "par"]
    assert set(df["policy_1"]) == {"mcts(iterations=5)"} and set(df["policy_2"]) == {"par"}
    assert sorted(set(df["position_1"])) == [0, 1, 2]  # slot 1 sat in every position, its label stays
