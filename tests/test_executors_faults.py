"""Faults around the executors: a killed or terminated sweep leaves no workers behind, and a Dask cluster that
loses its workers or its scheduler ends the sweep with one line that says how to resume, keeping its chunks.

Every sweep here runs as a child process (the CLI, as a user runs it) under a time limit, so no test can hang.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from boardsim.errors import BadInput
from boardsim.executors import DEFAULT_WORKER_TIMEOUT, WORKER_TIMEOUT_ENV, _worker_timeout

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # children import this checkout's boardsim
# far more chunks than a test ever waits for: each test acts on the sweep once its first chunk is saved
SCENARIO = 'name = "faults"\ngame = "art_deco"\ngames = 4_000_000\nseed = 3\nchunk_size = 4000\n'


def wait_for(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"waited {seconds} s for {what}")


def chunks(out: Path) -> list[Path]:
    return sorted((out / "chunks").glob("cell-*/deals-*.npz"))


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its new parent to reap it has stopped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def start_sweep(tmp_path: Path, *flags: str, env: dict | None = None) -> tuple[subprocess.Popen, Path]:
    scenario, out = tmp_path / "s.toml", tmp_path / "out"
    scenario.write_text(SCENARIO)
    proc = subprocess.Popen([sys.executable, "-m", "boardsim", "sweep", str(scenario), "--out", str(out), "--quiet",
                             *flags], cwd=ROOT, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    return proc, out


def stop(pids) -> None:
    """Clean-up after a failed assertion: kill what a test started, by pid."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def first_chunk(proc: subprocess.Popen, out: Path) -> int:
    def saved():
        assert proc.poll() is None, f"the sweep ended early: {proc.communicate()}"
        return len(chunks(out))

    return wait_for(saved, 180, "the first saved chunk")


# -- processes -----------------------------------------------------------------


def test_pool_workers_and_resource_tracker_exit_when_the_sweep_is_killed(tmp_path):
    proc, out = start_sweep(tmp_path, "--executor", "processes", "--workers", "2")
    helpers: list[int] = []
    try:
        first_chunk(proc, out)
        helpers = children(proc.pid)
        assert len(helpers) >= 3  # two workers and multiprocessing's resource tracker
        proc.kill()
        proc.communicate(timeout=30)
        wait_for(lambda: not any(alive(p) for p in helpers), 10, f"the orphans {helpers} to exit")
    finally:
        stop([proc.pid, *helpers])


def test_sigterm_stops_the_sweep_like_ctrl_c_and_keeps_finished_chunks(tmp_path):
    proc, out = start_sweep(tmp_path, "--executor", "processes", "--workers", "2")
    helpers: list[int] = []
    try:
        before = first_chunk(proc, out)
        helpers = children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 143, stderr
        assert stderr.startswith("interrupted"), stderr
        assert "Traceback" not in stderr
        kept = chunks(out)
        assert len(kept) >= before
        assert not list(out.glob("chunks/*/*.tmp*"))
        for path in kept:  # every kept chunk is whole
            with np.load(path) as z:
                assert int(z["meta.count"]) == 4000
        assert not (out / "summary.csv").exists()  # no cell was finished (4M games), none is claimed
        wait_for(lambda: not any(alive(p) for p in helpers), 10, f"the workers {helpers} to exit")
    finally:
        stop([proc.pid, *helpers])


def test_the_watchdog_ends_a_worker_whose_parent_dies_without_prctl(tmp_path):
    # the portable fallback alone: the grandchild pretends not to be on Linux, so no death signal is armed
    grandchild = textwrap.dedent("""
        import os, sys, time
        from boardsim.executors import _exit_with_parent
        sys.platform = "darwin"  # read when called, after numba has loaded for this platform
        _exit_with_parent(os.getppid())
        print(os.getpid(), flush=True)
        time.sleep(120)
    """)
    child = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {grandchild!r}])\ntime.sleep(120)\n"
    proc = subprocess.Popen([sys.executable, "-c", child], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, text=True)
    pid = None
    try:
        pid = int(proc.stdout.readline())
        assert alive(pid)
        proc.kill()
        proc.wait(timeout=10)
        wait_for(lambda: not alive(pid), 10, "the orphan to notice")
    finally:
        stop([proc.pid] + ([pid] if pid else []))


# -- Dask -----------------------------------------------------------------------

# A scheduler in a LocalCluster on loopback, in a process of its own, with two workers in processes of their own:
# a LocalCluster's own workers have nannies that restart a killed worker, which would hide a lost one.
HOST = textwrap.dedent("""
    import os, subprocess, sys, time
    import distributed

    if __name__ == "__main__":
        cluster = distributed.LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None, silence_logs=40)
        address = cluster.scheduler_address
        for _ in range(2):
            subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                              "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "10"])
        open(sys.argv[1] + ".part", "w").write(address)
        os.replace(sys.argv[1] + ".part", sys.argv[1])
        time.sleep(300)
""")


@pytest.fixture
def cluster(tmp_path):
    """(scheduler address, process group of the scheduler and its workers); all of it is killed afterwards."""
    script, address = tmp_path / "host.py", tmp_path / "address"
    script.write_text(HOST)
    host = subprocess.Popen([sys.executable, str(script), str(address)], cwd=ROOT, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(address.exists, 60, "the Dask scheduler")
        yield address.read_text(), host.pid
    finally:
        try:
            os.killpg(host.pid, signal.SIGKILL)  # its own session: the scheduler and the workers it started
        except ProcessLookupError:
            pass
        host.wait(timeout=30)


def worker_pids(address: str) -> list[int]:
    import distributed

    with distributed.Client(address, timeout="10s") as client:
        client.wait_for_workers(2, timeout=60)
        return list(client.run(os.getpid).values())


def finish(proc: subprocess.Popen) -> list[str]:
    try:
        _, stderr = proc.communicate(timeout=90)
    finally:
        stop([proc.pid])
    return stderr.splitlines()


def assert_one_error_line(lines: list[str], *parts: str) -> str:
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, lines
    assert not any("Traceback" in line for line in lines), lines
    for part in parts:
        assert part in errors[0], errors[0]
    return errors[0]


def test_dask_losing_every_worker_ends_after_the_timeout_naming_the_scheduler(tmp_path, cluster):
    address, _ = cluster
    workers = worker_pids(address)
    proc, out = start_sweep(tmp_path, "--scheduler", address, env={**ENV, WORKER_TIMEOUT_ENV: "3"})
    before = first_chunk(proc, out)
    t0 = time.monotonic()
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    lines = finish(proc)
    assert proc.returncode == 1
    assert time.monotonic() - t0 < 60
    assert_one_error_line(lines, f"the Dask scheduler at {address} has had no workers for 3 s",
                          f"finished chunks are kept in {out}/chunks/", "rerun the same command")
    assert len(chunks(out)) >= before


def test_dask_losing_the_scheduler_is_one_line_saying_how_to_resume(tmp_path, cluster):
    address, host = cluster
    worker_pids(address)  # both workers are up
    proc, out = start_sweep(tmp_path, "--scheduler", address)
    before = first_chunk(proc, out)
    os.killpg(host, signal.SIGKILL)
    lines = finish(proc)
    assert proc.returncode == 1
    assert lines == [assert_one_error_line(lines, f"lost the connection to the Dask scheduler at {address}",
                                           "rerun the same command to resume")]
    assert len(chunks(out)) >= before


def test_the_no_worker_timeout_comes_from_the_argument_or_the_environment(monkeypatch):
    monkeypatch.delenv(WORKER_TIMEOUT_ENV, raising=False)
    assert _worker_timeout(None) == DEFAULT_WORKER_TIMEOUT == 60
    assert _worker_timeout(2.5) == 2.5
    monkeypatch.setenv(WORKER_TIMEOUT_ENV, "7")
    assert _worker_timeout(None) == 7
    assert _worker_timeout(1) == 1
    for bad in ("soon", "0", "-3", "inf", "nan"):
        monkeypatch.setenv(WORKER_TIMEOUT_ENV, bad)
        with pytest.raises(BadInput, match=WORKER_TIMEOUT_ENV):
            _worker_timeout(None)
    with pytest.raises(BadInput, match="worker_timeout"):
        _worker_timeout(0)
