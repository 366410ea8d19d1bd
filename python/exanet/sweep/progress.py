"""The progress bar of a running sweep: points done, running and failed, and the ETA."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)


class SweepProgress:
    """Counts finished points; draws them on stderr when `mode` is True, or when it is None and
    stderr is a terminal. Points already stored count as done from the start."""

    def __init__(
        self, total: int, done: int, failed: int, workers: int, mode: bool | None = None
    ) -> None:
        self.done = done
        self.failed = failed
        self._total = total
        self._workers = workers
        console = Console(stderr=True)
        enabled = console.is_terminal if mode is None else mode
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
            if enabled
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
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        if self._progress is not None:
            self._progress.update(
                self._task, advance=1, running=self._running(), failed=self.failed
            )
