"""Processes and Dask executors give exactly what the local executor gives."""

import pickle
import threading

import pandas as pd
import pytest

import boardsim
from boardsim import cli, executors
from boardsim.errors import BadInput
from boardsim.executors import DaskExecutor, ProcessExecutor, _pack, _unpack, chunk_result, make_executor
from boardsim.games import get, names
from boardsim.games.base import Seat
from boardsim.runner import play_chunk
from boardsim.scenario import parse

GAMES = 120  # per cell: tiny, since some engines are slow, but several chunks
CHUNK = 25


def tiny(game: str, tmp_path=None):
    g = get(game)
    raw = {"name": f"tiny-{game}", "game": game, "games": GAMES, "seed": 11, "chunk_size": CHUNK,
           "seating": "cyclic", "seats": [{"policy": g.default_policy}]}
    if g.max_players > g.default_players:
        raw["grid"] = {"players": [g.default_players, g.default_players + 1]}
    return parse(raw)


@pytest.fixture(scope="module")
def pool():
    ex = ProcessExecutor(workers=2, threads=1)
    yield ex
    ex.close()


def same_tables(a, b):
    for name in ("summary", "positions", "scores"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("game", names())
def test_a_cell_travels_to_workers_by_game_name(game):
    cell = tiny(game).cells()[0]
    packed = pickle.loads(pickle.dumps(_pack(cell)))
    assert packed[0] == game
    back = _unpack(packed)
    assert back.game is cell.game
    a, b = play_chunk(cell, 5, 0, 3), play_chunk(back, 5, 0, 3)
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)


@pytest.mark.parametrize("game", names())
def test_dask_and_processes_sweeps_equal_local(game, dask_client, pool, tmp_path):
    sc = tiny(game)
    local = boardsim.sweep(sc, out=tmp_path / "local", progress=False)
    on_dask = boardsim.sweep(sc, out=tmp_path / "dask", progress=False, executor=DaskExecutor(client=dask_client))
    same_tables(local, on_dask)
    assert on_dask.executor.startswith("dask") and "2 workers x 1" in on_dask.executor
    on_pool = boardsim.sweep(sc, out=tmp_path / "pool", progress=False, executor=pool)
    same_tables(local, on_pool)
    assert on_pool.chunks_played == local.chunks_played >= 2


def test_a_coarse_task_plays_in_capped_calls_with_the_same_sums(monkeypatch, tmp_path):
    # FlipToons caps its kernel calls (per-card rows are large); a sweep's task stays a whole chunk
    cell = tiny("fliptoons").cells()[0]
    whole = chunk_result(cell, 5, 0, 30, reduce=True).to_arrays()
    sizes = []

    def spy(cell, key, start, count):
        sizes.append(count)
        return play_chunk(cell, key, start, count)

    monkeypatch.setattr(executors, "play_chunk", spy)
    monkeypatch.setattr(cell.game, "max_chunk_deals", 7)
    capped = chunk_result(cell, 5, 0, 30, reduce=True).to_arrays()
    assert sizes == [7, 7, 7, 7, 2]
    assert whole.keys() == capped.keys() and all((whole[k] == capped[k]).all() for k in whole)
    sizes.clear()
    boardsim.sweep(tiny("fliptoons"), out=tmp_path / "s", progress=False)
    # tasks of CHUNK = 25 deals (the 2- and 3-player cells have 60 and 40 deals), each in calls of <= 7
    assert sizes == [7, 7, 7, 4] * 2 + [7, 3] + [7, 7, 7, 4] + [7, 7, 1]


def test_a_pool_worker_plays_its_calls_in_turn_with_the_same_sums(monkeypatch):
    # workers x threads = cores: a worker's chunk adds up each call before playing the next, on one thread
    cell = tiny("art_deco").cells()[0]
    monkeypatch.setattr(executors, "PIPELINE_MIN_DEALS", 5)
    piped = chunk_result(cell, 5, 0, 40, reduce=True).to_arrays()
    threads = []

    def spy(cell, key, start, count, n):
        threads.append(threading.current_thread().name)
        return executors.play_chunk(cell, key, start, count), 0.0

    monkeypatch.setattr(executors, "_timed_chunk", spy)
    monkeypatch.setitem(executors._WORKER, "pipeline", False)
    in_turn = chunk_result(cell, 5, 0, 40, reduce=True).to_arrays()
    assert threads == [threading.current_thread().name] * 4  # 4 calls of 10 deals, none on another thread
    assert piped.keys() == in_turn.keys() and all((piped[k] == in_turn[k]).all() for k in piped)


def test_simulate_rows_equal_local_on_dask_and_processes(dask_client, pool):
    args = dict(n_games=400, policies=["par", "eligibility", "blocker"], seed=9, seating="cyclic", chunk_size=40)
    local = boardsim.simulate("art_deco", **args)
    pd.testing.assert_frame_equal(local, boardsim.simulate("art_deco", **args, scheduler=dask_client))
    pd.testing.assert_frame_equal(local, boardsim.simulate("art_deco", **args, executor=pool))


def test_bad_executor_choices_are_bad_input():
    with pytest.raises(BadInput, match="unknown executor 'threads'"):
        make_executor("threads")
    # errors of the Python API name the parameter, not a flag (the CLI translates them: cli.as_flag)
    cases = [(dict(executor="dask"), "scheduler", "needs a scheduler address"),
             (dict(executor="local", workers=3), "workers", "one process"),
             (dict(executor="processes", workers=10_000), "workers", "allowed: 1 to"),
             (dict(executor="processes", scheduler="tcp://127.0.0.1:8786"), "scheduler", "needs the dask executor"),
             (dict(executor="dask", scheduler_file="/no/such/scheduler.json"), "scheduler_file", "no such file"),
             (dict(executor="processes", workers=1, threads=10_000), "threads", "more than the")]
    for kwargs, key, message in cases:
        with pytest.raises(BadInput, match=message) as e:
            make_executor(**kwargs)
        assert e.value.key == key and "--" not in str(e.value), (kwargs, str(e.value))
    assert make_executor(None) is None and make_executor("local") is None


def test_cli_reports_a_bad_executor_in_one_line(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('game = "art_deco"\ngames = 10\n')
    assert cli.main(["sweep", str(path), "--out", str(tmp_path / "o"), "--executor", "mpi"]) == 2
    assert cli.main(["sweep", str(path), "--out", str(tmp_path / "o"), "--executor", "dask"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --executor: unknown executor 'mpi' (known: local, processes, dask)",
                   "error: --executor: dask needs --scheduler tcp://host:port, --scheduler-file FILE or --dask-local N"]


def test_a_custom_scorer_plays_the_same_on_every_executor(dask_client, pool, tmp_path):
    # workers import the scorer again from its "module:function" path
    sc = parse({"name": "custom-everywhere", "game": "fliptoons", "players": 2, "games": GAMES, "seed": 4,
                "chunk_size": CHUNK, "seats": [
                    {"policy": "custom", "params": {"function": "tests.games.fliptoons.scorers:fame_per_cost"}},
                    {"policy": "priority"}]})
    local = boardsim.sweep(sc, out=tmp_path / "local", progress=False)
    same_tables(local, boardsim.sweep(sc, out=tmp_path / "dask", progress=False,
                                      executor=DaskExecutor(client=dask_client)))
    same_tables(local, boardsim.sweep(sc, out=tmp_path / "pool", progress=False, executor=pool))
    # and it is the built-in it reproduces
    builtin = boardsim.sweep(parse({**sc.raw, "name": "builtin", "seats": [{"policy": "fame_per_cost"},
                                                                           {"policy": "priority"}]}),
                             out=tmp_path / "builtin", progress=False)
    assert local.summary["wins"].tolist() == builtin.summary["wins"].tolist()


def test_a_local_dask_cluster_runs_without_the_housekeeping_nothing_reads():
    # the stack sampler and the fast event-loop tick cost a small machine's games about a quarter of a core
    import dask
    import distributed  # noqa: F401 - loads distributed's settings into dask.config

    ours = dask.config.get("distributed.worker.profile.enabled")
    with DaskExecutor(local_workers=1, threads=1) as ex:
        seen = ex.client.run(lambda: (dask.config.get("distributed.worker.profile.enabled"),
                                      dask.config.get("distributed.admin.tick.interval")))
    assert list(seen.values()) == [(False, "1s")]
    assert dask.config.get("distributed.worker.profile.enabled") == ours  # this process's settings are its own


@pytest.mark.parametrize("game", names())
def test_per_deal_sums_each_deals_arrangements_the_same_on_any_chunking_and_on_processes(game, pool):
    """executors.per_deal, the one per-deal path (cards, patch, optimize): deal d's value is the sum over its
    arrangements' games (rows arrangement-major), for any range size and on worker processes."""
    from boardsim.cell import make_cell

    g = get(game)
    cell = make_cell(g, 2, [Seat(g.default_policy)] * 2, None, g.card_table(), seating_design="all")
    n_arr, count = len(cell.prepared), 7
    raw = play_chunk(cell, 5, 3, count)
    want = raw["win"].reshape(n_arr, count, -1).sum(axis=0)
    seen = []
    got = executors.per_deal(cell, 5, 3, count, lambda r: r["win"], 7, on_games=seen.append)
    assert got.shape == want.shape and (got == want).all() and seen == [n_arr * count]
    for size in (1, 3):
        assert (executors.per_deal(cell, 5, 3, count, lambda r: r["win"], size) == want).all()
    assert (executors.per_deal(cell, 5, 3, count, lambda r: r["win"][:, 0], 2, pool) == want[:, 0]).all()
    assert executors.per_deal(cell, 5, 3, 0, lambda r: r["win"], 2).size == 0
