"""Where the points of a sweep run, behind one small interface.

An executor is a context manager with `workers` (points that run at once) and
`map_unordered(function, tasks)`, which yields `(task, result)` as points finish; `result` is
the exception instead when running the point failed (a worker died, a job was cancelled).
Workers write results themselves, so with submitit or dask the output directory must be on a
file system every worker reaches.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

from exanet.errors import ConfigError

T = TypeVar("T")
R = TypeVar("R")
ExecutorName = Literal["local", "submitit", "dask"]
EXECUTORS: tuple[ExecutorName, ...] = ("local", "submitit", "dask")
POLL_S = 0.1
"""How often the submitit executor looks at its jobs: submitit has no completion callback."""
PARENT_POLL_S = 0.5
"""How often a local worker checks that the sweep that started it is alive (where the kernel
cannot be asked to end it along with its parent)."""
PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal a process gets when its parent dies."""
EXIT_ORPHANED = 1


class Executor(Protocol):
    workers: int

    def __enter__(self) -> Executor: ...

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def map_unordered(
        self, function: Callable[[T], R], tasks: Sequence[T]
    ) -> Iterator[tuple[T, R | BaseException]]: ...


class _NoResources:
    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb) -> None:
        return None


class WorkerDied(Exception):
    """The process running a point ended before returning its result: it crashed or was
    killed. Not an ExanetError: the point itself may be fine, so it is not stored."""

    def __init__(self, exitcode: int | None) -> None:
        self.exitcode = exitcode
        if exitcode is not None and exitcode < 0:
            how = f"signal {-exitcode}"
            with contextlib.suppress(ValueError):
                how += f", {signal.Signals(-exitcode).name}"
        else:
            how = f"exit status {exitcode}"
        super().__init__(f"worker process died ({how})")

    def __reduce__(self):
        return type(self), (self.exitcode,)


class LocalExecutor(_NoResources):
    """A pool of processes on this machine, one per core by default, each running one point at
    a time. Processes rather than threads, and the pool knows which point each one runs: a point
    that crashes its process (or gets it killed) yields WorkerDied for that point only, a new
    process takes the dead one's place, and the other points run on. The processes end when the
    process that started them dies, even by kill -9, rather than wait for work forever."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def map_unordered(self, function, tasks):
        context = multiprocessing.get_context()
        pending = collections.deque(tasks)
        idle: list[_Worker] = []
        busy: dict[_Worker, Any] = {}
        try:
            while pending or busy:
                while pending and len(busy) < self.workers:
                    worker = _take_live(idle) or _Worker(context)
                    task = pending.popleft()
                    try:
                        worker.connection.send((function, task))
                    except OSError:  # it died between two points
                        worker.stop()
                        yield task, WorkerDied(worker.process.exitcode)
                    except Exception as exc:  # the task cannot be pickled
                        idle.append(worker)
                        yield task, exc
                    else:
                        busy[worker] = task
                if not busy:  # every task left failed to reach a worker
                    continue
                waiting = [w.connection for w in busy] + [w.process.sentinel for w in busy]
                ready = set(multiprocessing.connection.wait(waiting))
                for worker in [w for w in busy if {w.connection, w.process.sentinel} & ready]:
                    task = busy.pop(worker)
                    try:
                        # Readable means a result or the end of the pipe; only the sentinel
                        # ready means the process died with the pipe still open elsewhere.
                        if not worker.connection.poll():
                            raise EOFError
                        outcome = worker.connection.recv()
                    except (EOFError, OSError):
                        worker.stop()
                        outcome = WorkerDied(worker.process.exitcode)
                    else:
                        idle.append(worker)
                    yield task, outcome
        finally:  # done or interrupted: running points are lost, not stored, so rerun later
            for worker in [*idle, *busy]:
                worker.stop()


def _take_live(idle: list[_Worker]) -> _Worker | None:
    """An idle worker that is still alive (one may have been killed while it waited)."""
    while idle:
        worker = idle.pop()
        if worker.process.is_alive():
            return worker
        worker.stop()
    return None


class _Worker:
    """One process of the local pool and the pipe that gives it points and returns results."""

    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, os.getpid()), daemon=True, name="exanet-sweep-worker"
        )
        self.process.start()
        child.close()

    def stop(self) -> None:
        """End the process (at once: whatever it runs is dropped) and wait for it."""
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def _serve(connection: Any, parent_pid: int) -> None:
    """A worker's loop: run each (function, task) received and send back the result, or the
    exception it raised, until the pipe closes."""
    exit_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            function, task = connection.recv()
        except EOFError:
            return
        try:
            outcome = function(task)
        except Exception as exc:
            outcome = exc
        try:
            connection.send(outcome)
        except Exception:  # an exception that cannot be pickled goes back as its text
            connection.send(RuntimeError(f"{type(outcome).__name__}: {outcome}"))


def exit_with_parent(parent_pid: int) -> None:
    """End this process when process `parent_pid`, which started it, dies: on Linux the kernel
    kills it (PR_SET_PDEATHSIG), elsewhere and as a fallback a thread notices."""
    set_parent_death_signal()
    watch_parent(parent_pid)


def set_parent_death_signal() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (nothing elsewhere)."""
    if sys.platform != "linux":
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def watch_parent(parent_pid: int) -> None:
    """Start a thread that ends this process once `parent_pid` has died: gone, or this process
    reparented (its parent then is init, a subreaper, or after a forkserver the server's)."""
    parent_at_start = os.getppid()

    def watch() -> None:
        while os.getppid() == parent_at_start and _exists(parent_pid):
            time.sleep(PARENT_POLL_S)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="exanet-parent-watch", daemon=True).start()


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        pass
    return True


class SubmititExecutor(_NoResources):
    """A Slurm job array through submitit (one array task per point, at most `workers` at
    once); where Slurm is absent, submitit's local executor with `workers` jobs at a time.
    `parameters` go to `AutoExecutor.update_parameters` (e.g. slurm_partition, timeout_min)."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        workers: int | None = None,
        cluster: str | None = None,
        parameters: dict[str, Any] | None = None,
    ) -> None:
        import submitit

        self.workers = workers or os.cpu_count() or 1
        self._executor = submitit.AutoExecutor(folder=Path(folder), cluster=cluster)
        self._executor.update_parameters(
            **{
                "timeout_min": 24 * 60,
                "slurm_array_parallelism": self.workers,
                **(parameters or {}),
            }
        )

    def map_unordered(self, function, tasks):
        pending = list(tasks)
        running: dict[Any, Any] = {}
        if self._executor.cluster == "slurm":  # the scheduler throttles the array itself
            running = dict(zip(self._executor.map_array(function, pending), pending, strict=True))
            pending = []
        while pending or running:
            while pending and len(running) < self.workers:
                task = pending.pop(0)
                running[self._executor.submit(function, task)] = task
            done = [job for job in running if job.done()]
            if not done:
                time.sleep(POLL_S)
            for job in done:
                task = running.pop(job)
                try:
                    yield task, job.result()
                except Exception as exc:
                    yield task, exc


class DaskExecutor:
    """Any dask.distributed scheduler at `address`, or a LocalCluster of `workers`
    single-threaded workers (`processes=False`: threads of this process, which the core allows
    since it releases the GIL)."""

    def __init__(
        self, workers: int | None = None, address: str | None = None, processes: bool = True
    ) -> None:
        self._address = address
        self._workers = workers or os.cpu_count() or 1
        self._processes = processes
        self.workers = self._workers

    def __enter__(self) -> DaskExecutor:
        from distributed import Client, LocalCluster

        if self._address:
            self._cluster = None
            self._client = Client(self._address)
            self.workers = sum(
                w["nthreads"] for w in self._client.scheduler_info()["workers"].values()
            )
        else:
            self._cluster = LocalCluster(
                n_workers=self._workers,
                threads_per_worker=1,
                processes=self._processes,
                dashboard_address=None,
            )
            self._client = Client(self._cluster)
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def map_unordered(self, function, tasks):
        from distributed import as_completed as dask_completed

        futures = self._client.map(function, tasks, pure=False)
        by_future = dict(zip(futures, tasks, strict=True))
        try:
            for future in dask_completed(futures):
                try:
                    yield by_future[future], future.result()
                except Exception as exc:
                    yield by_future[future], exc
        finally:
            self._client.cancel(futures)


def make_executor(
    name: str, workers: int | None, folder: str | os.PathLike[str], address: str | None = None
) -> Executor:
    """The executor called `name` (one of EXECUTORS); `folder` holds submitit's job files."""
    if address is not None and name != "dask":
        raise ConfigError("address", repr(address), "only with the dask executor")
    if name == "local":
        return LocalExecutor(workers)
    if name == "submitit":
        return SubmititExecutor(folder, workers)
    if name == "dask":
        return DaskExecutor(workers, address)
    raise ConfigError("executor", repr(name), f"one of {', '.join(EXECUTORS)}")
