"""Resumable sweeps: chunks on disk, a killed run resumed, corrupt or stale chunks played again."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import boardsim
from boardsim.games import get
from boardsim.games.base import Seat
from boardsim.runner import Aggregate, make_cell, play_chunk

TABLES = ("summary.csv", "positions.csv", "scores.csv", "rounds.csv")


def write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\ngame = "art_deco"\n' + body)
    return path


def tables(folder: Path) -> dict[str, bytes]:
    # run.json carries a date and timings, the CSVs only results
    return {name: (folder / name).read_bytes() for name in TABLES if (folder / name).exists()}


def chunk_files(folder: Path) -> list[Path]:
    return sorted((folder / "chunks").glob("cell-*/deals-*.npz"))


def test_aggregate_round_trips_through_arrays_and_merges_exactly():
    game = get("art_deco")
    cell = make_cell(game, 3, [Seat("random"), Seat("par")], {}, game.card_table(), seating_design="cyclic")
    whole = Aggregate(3, game.seat_counters, len(game.end_reasons), game=game)
    whole.add(play_chunk(cell, 7, 0, 500))
    parts = []
    for start, count in ((0, 123), (123, 377)):
        part = Aggregate(3, game.seat_counters, len(game.end_reasons), game=game)
        part.add(play_chunk(cell, 7, start, count))
        parts.append(Aggregate.from_arrays(part.to_arrays()))
    merged = Aggregate(3, game.seat_counters, len(game.end_reasons))
    for part in reversed(parts):  # order does not matter: whole-number sums
        merged.add(part)
    a, b = whole.to_arrays(), merged.to_arrays()
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name


def test_killed_sweep_resumes_to_the_same_files(tmp_path):
    # big enough that the run is still going when its first chunk lands
    path = write(tmp_path, "long", 'games = 1000000\nseed = 4\nchunk_size = 20000\nseating = "fixed"\n'
                                   '[[seats]]\npolicy = "par"\n[[seats]]\npolicy = "eligibility"\n'
                                   '[grid]\n"rules.rounds" = [8, 10]\n')
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "boardsim", "sweep", str(path), "--out", str(out), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300  # a cold compile on a busy machine can take minutes
    while not chunk_files(out) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    first = len(chunk_files(out))
    assert 1 <= first < 100  # 2 cells x 50 chunks: it died mid-run

    resumed = boardsim.sweep(path, out=out, progress=False)
    assert resumed.complete and resumed.chunks_reused >= first
    assert resumed.chunks_reused + resumed.chunks_played == 100
    fresh = boardsim.sweep(path, out=tmp_path / "whole", progress=False)
    assert fresh.chunks_reused == 0
    assert tables(out) == tables(tmp_path / "whole") and len(tables(out)) >= 3


def test_corrupt_partial_and_stale_chunks_are_played_again(tmp_path):
    path = write(tmp_path, "small", 'games = 4000\nseed = 2\nchunk_size = 500\nseating = "cyclic"\n'
                                    '[[seats]]\npolicy = "multiple"\n[[seats]]\npolicy = "blocker"\n')
    out = tmp_path / "out"
    first = boardsim.sweep(path, out=out, progress=False)
    files = chunk_files(out)
    assert len(files) == 2 and first.chunks_played == 2  # 1000 deals in 4 rotations
    good = tables(out)

    again = boardsim.sweep(path, out=out, progress=False)
    assert (again.chunks_reused, again.chunks_played) == (2, 0) and tables(out) == good

    raw = bytearray(files[0].read_bytes())
    raw[len(raw) // 2: len(raw) // 2 + 64] = b"\x00" * 64  # bytes overwritten inside the zip
    files[0].write_bytes(bytes(raw))
    files[1].write_bytes(files[1].read_bytes()[:100])  # truncated
    (files[0].parent / (files[0].name + ".tmp999")).write_bytes(b"half a file")  # a write cut short
    repaired = boardsim.sweep(path, out=out, progress=False)
    assert (repaired.chunks_reused, repaired.chunks_played) == (0, 2) and tables(out) == good
    assert not list(files[0].parent.glob("*.tmp*"))

    # a changed scenario (another rule value) must not reuse these chunks
    changed = tmp_path / "changed.toml"
    changed.write_text(path.read_text() + "[rules]\nrounds = 7\n")
    stale = boardsim.sweep(changed, out=out, progress=False)
    assert stale.chunks_reused == 0
    boardsim.sweep(changed, out=tmp_path / "elsewhere", progress=False)
    assert tables(out) == tables(tmp_path / "elsewhere") != good

    # more games per cell: the same deal ranges, but a different plan, so nothing is reused either
    more = boardsim.sweep(changed, out=out, games=6000, progress=False)
    assert more.chunks_reused == 0 and more.chunks_played == 3

    again = boardsim.sweep(changed, out=out, games=6000, progress=False, fresh=True)
    assert again.chunks_reused == 0 and again.chunks_played == 3


def test_code_hash_is_in_the_chunk_digest(tmp_path, monkeypatch):
    # an edit to the engine or policy sources makes every saved chunk stale
    from boardsim import chunks

    path = write(tmp_path, "code", 'games = 400\nseed = 3\nchunk_size = 200\nseating = "fixed"\n')
    out = tmp_path / "out"
    assert boardsim.sweep(path, out=out, progress=False).chunks_played == 2
    monkeypatch.setattr(chunks, "code_hash", lambda: "edited-engine")
    again = boardsim.sweep(path, out=out, progress=False)
    assert (again.chunks_reused, again.chunks_played) == (0, 2)


def test_lazy_batches_give_the_same_files(tmp_path, monkeypatch):
    from boardsim import runner

    path = write(tmp_path, "lazy", 'games = 900\nseed = 5\nchunk_size = 100\nseating = "fixed"\n')
    boardsim.sweep(path, out=tmp_path / "one", progress=False)
    monkeypatch.setattr(runner, "RANGES_PER_BATCH", 2)  # 9 ranges in 5 batches
    boardsim.sweep(path, out=tmp_path / "many", progress=False)
    assert tables(tmp_path / "one") == tables(tmp_path / "many")
    assert [p.name for p in chunk_files(tmp_path / "one")] == [p.name for p in chunk_files(tmp_path / "many")]


def test_symlinks_in_out_are_replaced_not_followed(tmp_path):
    path = write(tmp_path, "links", 'games = 200\nseed = 1\nchunk_size = 100\nseating = "fixed"\n')
    out = tmp_path / "out"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.tmp1").write_text("keep")
    cell = out / "chunks" / "cell-0000"
    cell.mkdir(parents=True)
    names = ["summary.csv", "index.html", "run.json", "winrate.png"]
    for name in names:
        (outside / name).write_text("keep")
        (out / name).symlink_to(outside / name)
    (outside / "cell.json").write_text("keep")
    (cell / "cell.json").symlink_to(outside / "cell.json")
    (out / "chunks" / "cell-0001").symlink_to(outside)  # a linked folder: never cleaned or written through
    (cell / "deals-000000000-000000099.npz.tmp1").symlink_to(outside / "victim.tmp1")
    boardsim.sweep(path, out=out, progress=False)
    assert all((outside / n).read_text() == "keep" for n in names + ["cell.json", "victim.tmp1"])
    assert not (out / "summary.csv").is_symlink() and not (cell / "cell.json").is_symlink()


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    from boardsim import cli, safe_io

    path = write(tmp_path, "full", 'games = 200\nseed = 1\nchunk_size = 100\nseating = "fixed"\n')
    real = safe_io.write_with

    def full_disk(target, fill, sync=False):
        if Path(target).name == "run.json":
            def fail(f):
                f.write(b"{")
                raise OSError(28, "No space left on device", str(target))
            return real(target, fail, sync)
        return real(target, fill, sync)

    monkeypatch.setattr(safe_io, "write_with", full_disk)
    code = cli.main(["sweep", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "run.json: --out: cannot write: No space left" in err
    assert not list((tmp_path / "out").rglob("*.tmp*")) and not (tmp_path / "out" / "run.json").exists()


def test_sums_that_would_overflow_int64_stop_with_one_line():
    import pytest

    game = get("art_deco")
    agg = Aggregate(2, game.seat_counters, len(game.end_reasons))
    out = {"score": np.full((4, 2), 2**31, dtype=np.int64)}
    with pytest.raises(OverflowError):
        agg._check_room(out["score"])
    big = Aggregate(2, game.seat_counters, len(game.end_reasons))
    big.score_sq[:] = 2**62
    with pytest.raises(OverflowError):
        big.merge(big)  # 2**62 + 2**62 leaves int64
