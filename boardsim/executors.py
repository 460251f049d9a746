"""Where chunks run: this process (``local``), a pool of processes, or a Dask cluster.

Every executor plays the same tasks, ``play_chunk`` over a range of deals,
and ``play_ranges`` hands the results back in deal order, so the choice
never changes a result: chunk results are exact integer sums keyed by deal
range.  Tasks are coarse (a scenario chunk: at most 50,000 deals by default, at least
``game.min_task_games`` games; ``cell.chunk_deals``) so the
cost of shipping a cell to a worker is small next to playing it; a worker
plays its task in calls of at most ``game.max_chunk_deals`` deals and sends
back the sums, so memory stays flat.

Each worker warms the Numba cache once when it starts (the parent compiles
first, so workers on this machine only load the cached machine code) and runs
``cores // workers`` Numba threads, so workers x threads never oversubscribe
the cores.  A worker runs one kernel at a time (a lock), because Numba's
threading layers do not all allow parallel kernels launched from two threads.

Dask is optional (``pip install -e '.[dask]'``) and imported only when asked for.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numba
import numpy as np

from boardsim.cell import Cell, play_chunk
from boardsim.errors import BadInput, BadParameter, ClusterLost
from boardsim.games import get as get_game

EXECUTORS = ("local", "processes", "dask")
Range = tuple[int, int]  # (first deal, number of deals)


class Executor:
    """Runs chunk tasks in this process, one after another (Numba threads do the parallel work)."""

    name = "local"

    def warm(self, cell: Cell) -> None:
        """Make sure the workers have compiled (or loaded) ``cell``'s kernels; once per game."""

    def play(self, cell: Cell, key: int, ranges: Sequence[Range], reduce: bool,
             on_games: Callable[[int], None] | None = None) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, result)`` for ``ranges[i]`` as each finishes, in any order.

        ``on_games(n)`` hears of games played inside a task as they finish, for a progress bar that moves
        within a chunk; only this in-process executor reports them (the others ignore it).
        """
        for i, (start, count) in enumerate(ranges):
            yield i, chunk_result(cell, key, start, count, reduce, on_games)

    def tasks(self, fn: Callable[..., Any], args: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, fn(*args[i]))`` as each finishes, in any order: work other than a cell's chunks (the
        games ``learn`` records).  ``fn`` must be a module-level function, for the process and Dask workers."""
        for i, a in enumerate(args):
            yield i, fn(*a)

    def describe(self) -> str:
        return f"local, {numba.get_num_threads()} Numba threads"

    def close(self) -> None:
        pass

    def abort(self) -> None:
        """Stop after a failure or an interrupt; tasks still running may be dropped."""
        self.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SUBCALL_SECONDS = 0.25  # with a progress listener, a sub-call of a chunk grows towards about this long
_SUBCALL_DEALS: dict[str, int] = {}  # the sub-call size each game has grown to, kept from chunk to chunk


PIPELINE_CALLS = 4  # calls a chunk is split into, so that adding one up overlaps playing the next
PIPELINE_MIN_DEALS = 2_048  # ... but no call smaller than this (a call has a fixed cost)


def _timed_chunk(cell: Cell, key: int, start: int, count: int, threads: int) -> tuple[dict[str, Any], float]:
    numba.set_num_threads(threads)  # numba's thread count is per thread: take the caller's
    t0 = time.perf_counter()
    return play_chunk(cell, key, start, count), time.perf_counter() - t0


def chunk_result(cell: Cell, key: int, start: int, count: int, reduce: bool,
                 on_games: Callable[[int], None] | None = None) -> Any:
    """One chunk's raw result arrays, or (``reduce``) its Aggregate.

    A reduced chunk is played in calls of at most ``game.max_chunk_deals`` deals, each folded into the
    Aggregate at once, so a coarse task of a game with large per-game rows still uses little memory.
    With ``on_games`` the calls start small and double while they take under ``SUBCALL_SECONDS``, and
    ``on_games`` hears the games of each, so a progress bar moves within a chunk.  The sums are whole
    numbers, so how a chunk is split never changes its result.  The next call plays on a thread of its own
    while this one's results are added up.
    """
    if not reduce:
        return play_chunk(cell, key, start, count)
    agg = cell.new_aggregate()
    cap = cell.game.max_chunk_deals
    end = start + count
    # Without a listener the chunk is still split (in up to PIPELINE_CALLS calls), so that the engine plays
    # one call on a thread of its own while this thread adds up the one before: the sums are serial
    # Python work that would otherwise leave the engine's threads idle (about a fifth of a sweep's time).
    step = min(cap, _SUBCALL_DEALS.get(cell.game.name, 16)) if on_games is not None else min(
        cap, max(PIPELINE_MIN_DEALS, -(-count // PIPELINE_CALLS)))
    threads = numba.get_num_threads()
    # A pool worker (processes, Dask) is sized to its share of the cores (workers x threads = cores): a
    # second thread there would only compete with the other workers, so it plays its calls in turn.
    with (ThreadPoolExecutor(1, thread_name_prefix="boardsim-play") if _WORKER["pipeline"]
          else _InTurn()) as pool:
        n = min(step, count)
        job = pool.submit(_timed_chunk, cell, key, start, n, threads)
        first = start + n
        while job is not None:
            out, seconds = job.result()
            played, job = n, None
            if first < end:
                if on_games is not None and seconds < SUBCALL_SECONDS / 2:
                    step = min(cap, step * 2)
                    _SUBCALL_DEALS[cell.game.name] = step
                n = min(step, end - first)
                job = pool.submit(_timed_chunk, cell, key, first, n, threads)
                first += n
            agg.add(out)
            if on_games is not None:
                on_games(played * len(cell.prepared))
    agg.game = None  # the parent merges plain sums; no need to ship the game back
    return agg


class _InTurn:
    """A stand-in for a one-thread pool that runs each call when it is submitted."""

    def __enter__(self) -> _InTurn:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        done: Future = Future()
        done.set_result(fn(*args))
        return done


def split_range(start: int, count: int, size: int) -> list[Range]:
    """Deals ``start .. start + count - 1`` as consecutive ranges of at most ``size`` deals (executor tasks)."""
    return [(s, min(size, start + count - s)) for s in range(start, start + count, size)]


def play_ranges(
    cell: Cell,
    key: int,
    ranges: Sequence[Range],
    executor: Executor | None = None,
    store: Any = None,
    reduce: bool = False,
    on_games: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, Any]]:
    """``(deal count, result)`` for every range, in deal order.

    ``on_games`` is passed to the executor (see ``Executor.play``).

    With a chunk ``store`` (results must then be aggregates), ranges already
    on disk are loaded instead of played, and every new result is saved as
    soon as it arrives, so a killed run loses at most the chunks in flight.
    """
    if store is not None and not reduce:
        raise ValueError("a chunk store keeps aggregates: pass reduce=True")
    ex = executor or Executor()
    done: dict[int, Any] = {}
    todo: list[int] = []
    for i, (start, count) in enumerate(ranges):
        saved = store.load(start, count) if store is not None else None
        if saved is None:
            todo.append(i)
        else:
            done[i] = saved
    following = 0

    def ready() -> Iterator[tuple[int, Any]]:
        nonlocal following
        while following in done:
            yield ranges[following][1], done.pop(following)
            following += 1

    yield from ready()
    if todo:
        try:
            ex.warm(cell)
            for j, result in ex.play(cell, key, [ranges[i] for i in todo], reduce, on_games):
                i = todo[j]
                if store is not None:
                    with _signals_held():
                        store.save(*ranges[i], result)
                done[i] = result
                yield from ready()
        except ClusterLost as e:
            if store is None:
                raise
            where = Path(store.folder).parent
            raise ClusterLost(f"{e}; the finished chunks are kept in {where}/: rerun the same command to resume "
                              "with the rest") from None


def per_deal(cell: Cell, key: int, start: int, count: int, value: Callable[[dict[str, Any]], np.ndarray],
             size: int, executor: Executor | None = None,
             on_games: Callable[[int], None] | None = None) -> np.ndarray:
    """Per deal of ``start .. start + count - 1``: ``value(raw)`` of each game (one row per game, arrangement-major
    as ``play_chunk`` returns them, any trailing shape) summed over the deal's arrangements.

    The one path for measures that keep a value per deal (paired differences between cells, bootstraps), as
    ``Aggregate`` is the one for sums: ``cards``, ``patch`` and ``optimize`` read their games through it.  The
    deals are played in ranges of ``size`` on ``executor`` and come back in deal order, so the values are the
    same on any executor and chunking.  ``on_games(n)`` hears each range's games once it is added in."""
    n_arr = len(cell.prepared)
    ranges = split_range(start, count, size)
    out = np.zeros(0)
    for (s, c), (_, raw) in zip(ranges, play_ranges(cell, key, ranges, executor), strict=True):
        v = np.asarray(value(raw))
        part = v.reshape(n_arr, c, *v.shape[1:]).sum(axis=0)
        if s == start:
            out = np.zeros((count, *part.shape[1:]), dtype=part.dtype)
        out[s - start:s - start + c] = part
        if on_games is not None:
            on_games(n_arr * c)
    return out


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while a chunk file is written, so an interrupt never leaves half a file behind;
    a signal that came meanwhile is raised again right after.  Python handles signals in the main thread only,
    so elsewhere there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not None:  # None: a handler not set from Python, left alone
            held[sig] = signal.signal(sig, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for sig, handler in held.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)


# -- worker side -------------------------------------------------------------
# Module state of a worker process: its Numba thread count and the lock that
# keeps one kernel running at a time.  In the parent both stay unused.
_WORKER: dict[str, Any] = {"threads": None, "pipeline": True}  # pipeline: False in a pool worker
_KERNEL_LOCK = threading.Lock()


def _pack(cell: Cell) -> tuple:
    """A Cell as picklable parts: a registered game travels by name, not by value."""
    try:
        game: Any = cell.game.name if get_game(cell.game.name) is cell.game else cell.game
    except BadInput:
        game = cell.game
    return (game, cell.index, cell.n_players, cell.seats, cell.prepared, cell.arrangements, cell.seating)


def _unpack(packed: tuple) -> Cell:
    game, index, n_players, seats, prepared, arrangements, design = packed
    if isinstance(game, str):
        game = get_game(game)
    return Cell(index, {}, game, n_players, list(seats), list(prepared), None, list(arrangements), design)


def _set_threads() -> None:
    threads = _WORKER["threads"]
    if threads is not None:
        # per thread in Numba, so set it in the thread that runs the kernel
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


# How often a pool worker checks that its parent is still alive (the fallback where prctl is missing).
_PARENT_POLL_S = 0.5


def _exit_with_parent(parent: int) -> None:
    """Make this pool worker exit as soon as ``parent`` (the sweep process) dies, even by kill -9.

    Without this a killed sweep leaves its workers (and, through them, the multiprocessing
    resource tracker) running, a few hundred MB each.  On Linux the kernel sends us SIGKILL
    when the parent dies (``PR_SET_PDEATHSIG``); everywhere a daemon thread also polls
    ``os.getppid()``, which changes when an orphan is adopted by init or a subreaper.  (The death
    signal follows the parent *thread* that started the worker: the pool starts its workers in the
    thread that submits, which runs the whole sweep, so it outlives them.)
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # no usable libc: the watchdog below still works
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        os._exit(1)  # no clean-up: the parent that would collect our results is gone

    threading.Thread(target=watch, name="boardsim-parent-watchdog", daemon=True).start()


def _init_worker(threads: int | None, packed: tuple | None, ignore_sigint: bool = False,
                 parent: int | None = None) -> str:
    """Worker start-up: set its Numba threads and load the kernels once.

    ``parent``: the pid of the process that owns this pool worker; the worker exits when it dies.
    """
    if parent is not None:
        _exit_with_parent(parent)
    if ignore_sigint:
        # Ctrl-C goes to the whole process group; the parent handles it and stops the pool
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["threads"] = threads
    _WORKER["pipeline"] = False
    if packed is not None:
        _worker_task(packed, 0, 0, 1, False)
    return f"pid {os.getpid()}: {threads} Numba threads"


def _worker_task(packed: tuple, key: int, start: int, count: int, reduce: bool) -> Any:
    cell = _unpack(packed)
    with _KERNEL_LOCK:
        _set_threads()
        return chunk_result(cell, key, start, count, reduce)


def _machine() -> tuple[str, int, int]:
    import socket

    return socket.gethostname(), os.cpu_count() or 1, numba.config.NUMBA_NUM_THREADS


def _warm_here(cell: Cell) -> None:
    """Compile or load the kernels in this process, so the on-disk cache exists before workers start."""
    play_chunk(cell, 0, 0, 1)


def _cores() -> int:
    return os.cpu_count() or 1


def _check_threads(threads: int | None, workers: int, cores: int) -> int:
    """Numba threads per worker: ``cores // workers`` unless given; never more than the cores."""
    if threads is None:
        return max(1, cores // workers)
    if workers * threads > cores:
        raise BadParameter("threads", f"{workers} workers x {threads} threads is more than the {cores} cores")
    return threads


class ProcessExecutor(Executor):
    """A pool of ``workers`` processes on this machine, started with ``spawn``.

    Spawned, not forked: a parent that has already run a parallel Numba kernel
    is not safe to fork.
    """

    name = "processes"

    def __init__(self, workers: int | None = None, threads: int | None = None):
        cores = _cores()
        workers = cores if workers is None else workers
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= cores:
            raise BadParameter("workers", f"got {workers!r}; allowed: 1 to {cores} (the cores of this machine)")
        self.workers = workers
        self.threads = _check_threads(threads, workers, cores)
        self._pool: ProcessPoolExecutor | None = None
        self._warmed: set[str] = set()

    def warm(self, cell: Cell) -> None:
        if cell.game.name in self._warmed:
            return
        _warm_here(cell)
        self._warmed.add(cell.game.name)
        self._start(_pack(cell))
        # a later game (rare: a sweep has one) is loaded by each worker's first task

    def _start(self, packed: tuple | None) -> None:
        if self._pool is None:
            import multiprocessing

            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker,
                initargs=(self.threads, packed, True, os.getpid()),
            )

    def play(self, cell: Cell, key: int, ranges: Sequence[Range], reduce: bool,
             on_games: Callable[[int], None] | None = None) -> Iterator[tuple[int, Any]]:
        self.warm(cell)
        packed = _pack(cell)
        yield from self.tasks(_worker_task, [(packed, key, start, count, reduce) for start, count in ranges])

    def tasks(self, fn: Callable[..., Any], args: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        self._start(None)
        assert self._pool is not None
        pending: dict[Any, int] = {}
        window = 2 * self.workers  # enough to keep every worker busy; the rest wait here
        upcoming = iter(enumerate(args))

        def fill() -> None:
            for i, a in upcoming:
                pending[self._pool.submit(fn, *a)] = i
                if len(pending) >= window:
                    return

        fill()
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    yield pending.pop(fut), fut.result()
                fill()
        finally:
            for fut in pending:
                fut.cancel()

    def describe(self) -> str:
        return f"processes, {self.workers} workers x {self.threads} Numba threads"

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def abort(self) -> None:
        """Stop the workers now: after Ctrl-C or SIGTERM, waiting for chunks in flight (a task can
        take many seconds) would outlast a supervisor's grace period; their results are lost anyway."""
        if self._pool is not None:
            for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
                if proc.is_alive():
                    proc.terminate()
        self.close()


# How long a Dask run waits with no workers before it gives up (seconds); the environment variable overrides it.
WORKER_TIMEOUT_ENV = "BOARDSIM_DASK_WORKER_TIMEOUT"
DEFAULT_WORKER_TIMEOUT = 60.0
# A local cluster's housekeeping that nothing here reads: the worker's stack sampler (every 10 ms, for a
# dashboard we do not start) and the 20 ms event-loop tick (for warnings we silence).  Idle, they cost
# two workers, their nannies and the scheduler about a quarter of a core, which on a small machine comes
# out of the games (benchmarks/bench_dask.py measures it).
_LOCAL_QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s"}
_DASK_POLL_S = 0.5  # how often a waiting Dask run checks that the cluster still has workers


def _worker_timeout(given: float | None) -> float:
    """The no-worker timeout: ``given``, else $BOARDSIM_DASK_WORKER_TIMEOUT, else 60 s."""
    key, value = "worker_timeout", given
    if value is None:
        key, value = WORKER_TIMEOUT_ENV, os.environ.get(WORKER_TIMEOUT_ENV)
        if value is None:
            return DEFAULT_WORKER_TIMEOUT
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        error = BadParameter if key == "worker_timeout" else BadInput  # else: the environment variable
        raise error(key, f"got {value!r}; allowed: a positive number of seconds")
    return float(value)


class DaskExecutor(Executor):
    """Tasks on a Dask cluster: a scheduler address, a scheduler file, a local cluster or a Client.

    A cluster that loses every worker keeps the tasks waiting forever; after ``worker_timeout``
    seconds with no worker (default $BOARDSIM_DASK_WORKER_TIMEOUT, else 60) the run stops with
    ``ClusterLost``, as it does at once when the scheduler goes away.
    """

    name = "dask"

    def __init__(
        self,
        scheduler: str | None = None,
        scheduler_file: str | None = None,
        local_workers: int | None = None,
        threads: int | None = None,
        client: Any = None,
        worker_timeout: float | None = None,
    ):
        self.worker_timeout = _worker_timeout(worker_timeout)
        try:
            import dask
            import distributed
        except ImportError:
            raise BadParameter("executor", "dask is not installed (pip install -e '.[dask]')") from None
        self._cluster = None
        self._own_client = client is None
        self._warmed: set[str] = set()
        self._threads_given = threads
        if client is not None:
            self.client = client
        elif local_workers is not None:
            cores = _cores()
            if isinstance(local_workers, bool) or not isinstance(local_workers, int) or not (
                1 <= local_workers <= cores
            ):
                raise BadParameter("local_workers", f"got {local_workers!r}; allowed: 1 to {cores} (the cores here)")
            per_worker = _check_threads(threads, local_workers, cores)
            # loopback only: nothing outside this machine can reach the cluster
            with dask.config.set(_LOCAL_QUIET):
                self._cluster = distributed.LocalCluster(
                    n_workers=local_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=40, env={"NUMBA_NUM_THREADS": str(per_worker)},
                )
                self.client = distributed.Client(self._cluster)
        elif scheduler is not None:
            try:
                self.client = distributed.Client(scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as e:
                raise BadParameter("scheduler", f"cannot reach a Dask scheduler at {scheduler!r}: {e}") from None
        elif scheduler_file is not None:
            if not os.path.exists(scheduler_file):
                raise BadParameter("scheduler_file", f"no such file: {scheduler_file}")
            try:
                self.client = distributed.Client(scheduler_file=scheduler_file, timeout="10s")
            except (OSError, TimeoutError, ValueError) as e:
                raise BadParameter("scheduler_file", f"cannot reach the scheduler in {scheduler_file}: {e}") from None
        else:
            raise BadParameter("scheduler", "the dask executor needs a scheduler address (tcp://host:port), a "
                                            "scheduler file or a number of local workers")
        try:
            self.client.wait_for_workers(1, timeout=30)
        except TimeoutError:
            self.close()
            raise BadParameter("scheduler", "the Dask cluster has no workers (waited 30 s)") from None
        self._thread_plan = self._plan_threads()

    def _plan_threads(self) -> dict[str, int]:
        """Numba threads per worker: the host's cores shared among the worker processes on it."""
        machines = self.client.run(_machine)
        if not machines:
            raise BadParameter("scheduler", "the Dask cluster has no workers")
        per_host: dict[str, int] = {}
        for host, _, _ in machines.values():
            per_host[host] = per_host.get(host, 0) + 1
        plan = {}
        for addr, (host, cores, numba_max) in machines.items():
            threads = self._threads_given or max(1, cores // per_host[host])
            plan[addr] = min(threads, numba_max)
        return plan

    def warm(self, cell: Cell) -> None:
        if cell.game.name in self._warmed:
            return
        _warm_here(cell)
        self._thread_plan = self._plan_threads()
        packed = _pack(cell)
        # each task is pinned to its worker: one whose worker has left would wait for ever, so it is dropped
        pending = {
            self.client.submit(_init_worker, threads, packed, workers=[addr], allow_other_workers=False,
                               pure=False): addr
            for addr, threads in self._thread_plan.items()
        }
        while pending:
            for fut in self._finished(pending, pinned=True):
                del pending[fut]
                if fut.done():
                    self._result(fut)
                else:
                    fut.release()
        self._warmed.add(cell.game.name)

    def _scheduler(self) -> str:
        """The scheduler's address, for messages (a dead scheduler still has its last known address)."""
        try:
            return str(self.client.scheduler.address)
        except Exception:  # noqa: BLE001 - only a message depends on it
            return "its address"

    def _workers(self) -> set[str]:
        """The scheduler's workers now; none when it does not answer."""
        try:
            return set(self.client.nthreads(callback_timeout=max(1.0, 4 * _DASK_POLL_S)))
        except Exception:  # noqa: BLE001 - an unreachable scheduler has no workers for us either
            return set()

    def _lost(self, what: str) -> ClusterLost:
        # The run stops here and reports the loss in one line.  distributed would go on logging tracebacks of its
        # reconnect attempts, and asyncio those of the abandoned gathers, so both are quietened from now on.
        # (distributed's own config sets the levels of its child loggers, so each is set here.)
        for name in ["asyncio", "distributed", *logging.root.manager.loggerDict]:
            if name == "asyncio" or name.split(".")[0] == "distributed":
                logging.getLogger(name).setLevel(logging.CRITICAL)
        return ClusterLost(what)

    def _finished(self, futures: Any, pinned: bool = False) -> set:
        """Wait for at least one of ``futures``; raise ClusterLost when the cluster has had no workers for
        ``worker_timeout`` seconds.  A lost scheduler cancels the futures, so they come back at once.

        ``pinned``: ``futures`` maps each future to the one worker it may run on; a future whose worker has
        left comes back unfinished.
        """
        from distributed import wait as dask_wait

        no_workers_since: float | None = None
        while True:
            try:
                done = set(dask_wait(list(futures), timeout=_DASK_POLL_S, return_when="FIRST_COMPLETED").done)
            except TimeoutError:
                done = set()
            except CancelledError:  # the scheduler went away; _result says so
                done = {fut for fut in futures if fut.done()}
            except OSError:
                raise self._lost(self._scheduler_lost()) from None
            if done:
                return done
            workers = self._workers()
            if pinned and any(addr not in workers for addr in futures.values()):
                return {fut for fut, addr in futures.items() if addr not in workers}
            no_workers_since = self._check_workers(workers, no_workers_since)

    def _check_workers(self, workers: set[str], no_workers_since: float | None) -> float | None:
        """When the cluster has had no workers since; ClusterLost once that is ``worker_timeout`` ago."""
        if workers:
            return None
        now = time.monotonic()
        if no_workers_since is not None and now - no_workers_since > self.worker_timeout:
            raise self._lost(f"the Dask scheduler at {self._scheduler()} has had no workers for "
                             f"{self.worker_timeout:g} s (${WORKER_TIMEOUT_ENV} sets this timeout)")
        return now if no_workers_since is None else no_workers_since

    def _result(self, fut: Any) -> Any:
        """A finished future's result; a cancelled one (the scheduler went away) or KilledWorker is ClusterLost.

        A result held by a worker that has died since is played again, so this waits too, under the same timeout.
        """
        from distributed import KilledWorker

        no_workers_since: float | None = None
        while True:
            try:
                return fut.result(timeout=_DASK_POLL_S)
            except TimeoutError:
                no_workers_since = self._check_workers(self._workers(), no_workers_since)
            except KilledWorker as e:
                raise self._lost(f"Dask workers died while playing a chunk ({e})") from None
            except (CancelledError, OSError):  # CommClosedError is an OSError
                if fut.status == "error":
                    raise  # the task itself failed: not a lost cluster
                raise self._lost(self._scheduler_lost()) from None

    def _scheduler_lost(self) -> str:
        return f"lost the connection to the Dask scheduler at {self._scheduler()}"

    def play(self, cell: Cell, key: int, ranges: Sequence[Range], reduce: bool,
             on_games: Callable[[int], None] | None = None) -> Iterator[tuple[int, Any]]:
        self.warm(cell)
        packed = _pack(cell)
        yield from self.tasks(_worker_task, [(packed, key, start, count, reduce) for start, count in ranges])

    def tasks(self, fn: Callable[..., Any], args: Sequence[tuple]) -> Iterator[tuple[int, Any]]:
        window = 2 * max(1, len(self._thread_plan))
        upcoming = iter(enumerate(args))
        pending: dict[Any, int] = {}

        def fill() -> None:
            for i, a in upcoming:
                pending[self.client.submit(fn, *a, pure=False)] = i
                if len(pending) >= window:
                    return

        fill()
        try:
            while pending:
                for fut in self._finished(pending):
                    result = self._result(fut)
                    i = pending.pop(fut)
                    fut.release()
                    fill()
                    yield i, result
        finally:
            for fut in pending:
                fut.release()

    def describe(self) -> str:
        plan = self._thread_plan
        threads = sorted(set(plan.values()))
        where = "local cluster" if self._cluster is not None else str(self.client.scheduler.address)
        return f"dask ({where}), {len(plan)} workers x {'/'.join(map(str, threads)) or '?'} Numba threads"

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def check_scheduler_file(path: str | None) -> None:
    """A Dask scheduler file must be a JSON object with an address (Dask would fail later, less clearly)."""
    if path is None:
        return
    try:
        info = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadParameter("scheduler_file", "no such file", path) from None
    except (OSError, ValueError) as e:
        raise BadParameter("scheduler_file", f"not a Dask scheduler file (JSON): "
                                             f"{getattr(e, 'strerror', None) or e}", path) from None
    if not isinstance(info, dict) or not isinstance(info.get("address"), str):
        raise BadParameter("scheduler_file", "not a Dask scheduler file (no \"address\")", path)


def make_executor(
    executor: str | Executor | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    threads: int | None = None,
) -> Executor | None:
    """The executor named by the arguments, or None for the plain local path.

    ``executor="dask"`` needs one of ``scheduler`` (an address such as
    ``tcp://host:port``, or a ``distributed.Client``), ``scheduler_file`` or
    ``workers`` (a LocalCluster of that many workers on loopback).  A
    scheduler or scheduler file alone implies ``dask``.
    """
    if isinstance(executor, Executor):
        return executor
    check_scheduler_file(scheduler_file)
    name = executor
    if name is None:
        name = "dask" if (scheduler is not None or scheduler_file is not None) else "local"
    if not isinstance(name, str) or name not in EXECUTORS:
        raise BadParameter("executor", f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")
    if name != "dask" and (scheduler is not None or scheduler_file is not None):
        raise BadParameter("scheduler", f"a scheduler needs the dask executor (got {name})")
    if name == "local":
        if workers not in (None, 1):
            raise BadParameter("workers", "the local executor has one process; use the processes or dask executor")
        return None
    if name == "processes":
        return ProcessExecutor(workers, threads)
    if scheduler is not None and not isinstance(scheduler, str):
        return DaskExecutor(client=scheduler, threads=threads)
    try:
        return DaskExecutor(scheduler, scheduler_file,
                            workers if scheduler is None and scheduler_file is None else None, threads)
    except BadParameter as e:
        if e.key == "local_workers":  # DaskExecutor's name for what the caller passed here as workers
            raise BadParameter("workers", e.message, e.file) from None
        raise


@contextmanager
def open_executor(
    executor: str | Executor | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    scheduler_file: str | None = None,
    threads: int | None = None,
) -> Iterator[Executor | None]:
    """``make_executor``, closed afterwards when it was made here (a passed Executor stays open)."""
    ex = make_executor(executor, workers, scheduler, scheduler_file, threads)
    finished = False
    try:
        yield ex
        finished = True
    finally:
        if ex is not None and ex is not executor:
            if finished:
                ex.close()
            else:
                ex.abort()


__all__ = ["DaskExecutor", "EXECUTORS", "Executor", "ProcessExecutor", "check_scheduler_file", "make_executor",
           "open_executor", "per_deal", "play_ranges"]
