"""Where the points of a sweep run, behind one small interface.

An executor is a context manager with `workers` (points that run at once) and
`map_unordered(function, tasks)`, which yields `(task, result)` as points finish; `result` is
the exception instead when running the point failed (a worker died, a job was cancelled).
Workers write results themselves, so with submitit or dask the output directory must be on a
file system every worker reaches.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
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


class LocalExecutor(_NoResources):
    """A process pool on this machine, one process per core by default. Processes rather than
    threads so that a point that crashes the interpreter costs that point only."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def map_unordered(self, function, tasks):
        with ProcessPoolExecutor(max_workers=self.workers) as pool:
            futures = {pool.submit(function, task): task for task in tasks}
            try:
                for future in as_completed(futures):
                    yield futures[future], future.exception() or future.result()
            finally:  # interrupted: drop what has not started
                pool.shutdown(wait=True, cancel_futures=True)


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
