"""The progress of a running sweep: points done, running and failed, and the ETA."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from exanet import progress


class SweepProgress:
    """Counts finished points and shows them on stderr unless `mode` is False: a bar on a
    terminal; elsewhere a line once the sweep has lasted progress.SHOW_AFTER_S (at once when
    `mode` is True), then every progress.LOG_INTERVAL_S, written by a thread of its own so that
    long points do not silence it. Points already stored count as done from the start."""

    def __init__(
        self, total: int, done: int, failed: int, workers: int, mode: bool | None = None
    ) -> None:
        self.done = done
        self.failed = failed
        self._total = total
        self._workers = workers
        self._started = time.monotonic()
        console = Console(stderr=True)
        enabled = mode is not False
        self._log = (
            progress.PeriodicLog(console, progress.SHOW_AFTER_S if mode is None else 0.0)
            if enabled and not console.is_terminal
            else None
        )
        self._stopped = threading.Event()
        self._ticker = threading.Thread(
            target=self._tick, name="exanet sweep progress", daemon=True
        )
        self._progress = (
            Progress(
                TextColumn("[bold]sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[running]} running"),
                TextColumn("[red]{task.fields[failed]} failed"),
                TimeRemainingColumn(),
                console=console,
            )
            if enabled and console.is_terminal
            else None
        )

    def _running(self) -> int:
        return min(self._workers, self._total - self.done)

    def __enter__(self) -> SweepProgress:
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task(
                "sweep",
                total=self._total,
                completed=self.done,
                running=self._running(),
                failed=self.failed,
            )
        if self._log is not None:
            self._ticker.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()
        if self._ticker.is_alive():
            self._stopped.set()
            self._ticker.join()

    def _tick(self) -> None:
        while not self._stopped.wait(progress.POLL_INTERVAL_S):
            elapsed_s = time.monotonic() - self._started
            self._log.update(
                elapsed_s,
                f"sweep: {self.done:,} of {self._total:,} points done, {self._running()} "
                f"running, {self.failed:,} failed, {timedelta(seconds=round(elapsed_s))} elapsed",
            )

    def advance(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        if self._progress is not None:
            self._progress.update(
                self._task, advance=1, running=self._running(), failed=self.failed
            )
