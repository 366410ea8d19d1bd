"""Progress on stderr: of a running simulation (fed by the callback of `_core.run`), and of any
other long call (`activity`). On a terminal a rich line redrawn in place; on other streams (a
log file, a pipe, CI) one plain line once the work has lasted SHOW_AFTER_S, then one every
LOG_INTERVAL_S."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
)

from exanet.display import format_si

SHOW_AFTER_S = 2.0
"""With automatic progress, work shorter than this (wall time) shows nothing."""
LOG_INTERVAL_S = 10.0
"""Off a terminal, seconds between two progress lines."""
POLL_INTERVAL_S = 0.1
"""How often `activity` looks whether its call has finished."""

T = TypeVar("T")

ENDLESS_PS = 2**63
"""A window ending at or beyond this (the core's 2^64 - 1 ps) has no end: message-passing jobs
run until they finish."""
LONGEST_ETA_S = 1000 * 86400
"""ETAs beyond this are shown as "more than 1,000 days"."""


def _duration(seconds: float) -> str:
    if seconds >= LONGEST_ETA_S:
        return "more than 1,000 days"
    return str(timedelta(seconds=round(max(seconds, 0))))


class PeriodicLog:
    """Plain progress lines for a stream that is not a terminal: `update` writes its text when
    `elapsed_s` has reached the time of the next line (first `first_s`, then every
    LOG_INTERVAL_S)."""

    def __init__(self, console: Console, first_s: float) -> None:
        self._console = console
        self._next_s = first_s
        self.written = False

    def update(self, elapsed_s: float, text: str) -> None:
        if elapsed_s >= self._next_s:
            self.write(text)
            self._next_s = elapsed_s + LOG_INTERVAL_S

    def write(self, text: str) -> None:
        self._console.print(text, markup=False, highlight=False, soft_wrap=True)
        self.written = True


class ProgressDisplay:
    """Callback for `_core.run` that shows simulated time, phase, events/s and ETA on stderr,
    and while draining the packets in flight and how far the drain is from `drain_limit_ps`
    (simulated time after the window, as the run was configured; None when the run does not
    drain).

    `mode` True shows progress from the first update, False never, and None (automatic) once the
    run has lasted SHOW_AFTER_S. Use as a context manager.
    """

    def __init__(
        self,
        mode: bool | None,
        console: Console | None = None,
        drain_limit_ps: int | None = None,
    ) -> None:
        self._console = console or Console(stderr=True)
        self._enabled = mode is not False
        self._show_after_s = SHOW_AFTER_S if mode is None else 0.0
        self._drain_limit_ps = drain_limit_ps
        self._log = (
            None if self._console.is_terminal else PeriodicLog(self._console, self._show_after_s)
        )
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last_events = 0
        self._last_wall_s = 0.0
        self._drain_start: tuple[float, int] | None = None  # (wall_s, sim_time_ps)

    def __enter__(self) -> ProgressDisplay:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, update: dict[str, Any]) -> None:
        wall_s = update["wall_s"]
        if update["phase"] == "drain" and self._drain_start is None:
            self._drain_start = (wall_s, update["sim_time_ps"])
        interval_s = wall_s - self._last_wall_s
        events_per_s = (update["events"] - self._last_events) / interval_s if interval_s else 0.0
        self._last_events, self._last_wall_s = update["events"], wall_s
        if not self._enabled or wall_s < self._show_after_s:
            return
        fields = self._fields(update, events_per_s)
        if self._log is not None:
            self._log.update(
                wall_s,
                f"run: {fields['phase']}, {fields['simulated']}, {fields['event_rate']}"
                + (f", {fields['eta']}" if fields["eta"] else ""),
            )
            return
        if self._progress is None:
            self._progress = Progress(
                TextColumn("[bold]{task.fields[phase]:>7}"),
                BarColumn(),
                TextColumn("{task.fields[simulated]}"),
                TextColumn("{task.fields[event_rate]}"),
                TextColumn("{task.fields[eta]}"),
                console=self._console,
                transient=True,
            )
            self._task = self._progress.add_task("simulating", **fields)
            self._progress.start()
        completed, total = self._bar(update)
        self._progress.update(self._task, completed=completed, total=total, **fields)

    def _bar(self, update: dict[str, Any]) -> tuple[int, int]:
        """The bar runs to the end of the window, then (draining) to the drain limit."""
        sim_ps, target_ps = update["sim_time_ps"], update["target_time_ps"]
        if update["phase"] == "drain" and self._drain_limit_ps:
            return min(sim_ps - target_ps, self._drain_limit_ps), self._drain_limit_ps
        if target_ps >= ENDLESS_PS:
            return 0, 0
        return min(sim_ps, target_ps), target_ps

    def _fields(self, update: dict[str, Any], events_per_s: float) -> dict[str, str]:
        sim_us, target_us = update["sim_time_ps"] / 1e6, update["target_time_ps"] / 1e6
        if update["phase"] == "drain":
            limit = (
                ""
                if self._drain_limit_ps is None
                else f" (limit {self._drain_limit_ps / 1e6:,.2f} us)"
            )
            simulated = (
                f"{update['packets_in_flight']:,} packets in flight, "
                f"{sim_us - target_us:,.2f} us past the window{limit}"
            )
        elif update["target_time_ps"] >= ENDLESS_PS:
            simulated = f"{sim_us:,.2f} us simulated"
        else:
            simulated = f"{sim_us:,.2f} / {target_us:,.2f} us simulated"
        return {
            "phase": update["phase"],
            "simulated": simulated,
            "event_rate": f"{format_si(events_per_s)} events/s",
            "eta": self._eta(update),
        }

    def _eta(self, update: dict[str, Any]) -> str:
        """Remaining wall time at the average simulation speed so far; while draining, the
        longest it can take: until the drain limit at the speed of the drain so far."""
        sim_ps, target_ps, wall_s = (
            update["sim_time_ps"],
            update["target_time_ps"],
            update["wall_s"],
        )
        if update["phase"] == "drain":
            if self._drain_start is None or self._drain_limit_ps is None:
                return ""
            start_wall_s, start_sim_ps = self._drain_start
            if sim_ps <= start_sim_ps:
                return ""
            speed = (sim_ps - start_sim_ps) / (wall_s - start_wall_s)
            remaining_s = (target_ps + self._drain_limit_ps - sim_ps) / speed
            return f"at most {_duration(remaining_s)} to the limit"
        if sim_ps <= 0 or wall_s <= 0 or target_ps < sim_ps or target_ps >= ENDLESS_PS:
            return ""
        remaining_s = (target_ps - sim_ps) * wall_s / sim_ps
        return f"ETA {_duration(remaining_s)}"


def activity(
    label: str,
    call: Callable[[], T],
    console: Console | None = None,
    detail: Callable[[], str] = lambda: "",
) -> T:
    """`call()`, run in a worker thread while this thread shows on stderr that `label` is still
    going: once it has lasted SHOW_AFTER_S, a spinner with the elapsed time and `detail()` (how
    far the call has come, when it says) on a terminal, else a line such as "check routing:
    84 s elapsed, 120 of 338 destination routers" every LOG_INTERVAL_S. Returns what `call`
    returns, or raises what it raises.

    The core's long calls release the GIL but do not look at signals, so waiting here instead
    of inside them lets Ctrl-C raise KeyboardInterrupt at once (the abandoned call ends with
    the process)."""
    console = console or Console(stderr=True)
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # handed to the waiting thread, which raises it
            outcome["error"] = error

    worker = threading.Thread(target=work, name=f"exanet {label}", daemon=True)
    started = time.monotonic()
    worker.start()
    log = None if console.is_terminal else PeriodicLog(console, SHOW_AFTER_S)
    spinner: Progress | None = None
    try:
        while worker.is_alive():
            worker.join(POLL_INTERVAL_S)
            elapsed_s = time.monotonic() - started
            status = ", ".join(filter(None, [f"{label}: {elapsed_s:,.0f} s elapsed", detail()]))
            if log is not None:
                log.update(elapsed_s, status)
            elif spinner is None and elapsed_s >= SHOW_AFTER_S:
                spinner = Progress(
                    SpinnerColumn(),
                    TextColumn("{task.description}"),
                    console=console,
                    transient=True,
                )
                task = spinner.add_task(label, total=None)
                spinner.start()
            if spinner is not None:
                spinner.update(task, description=status)
    finally:
        if spinner is not None:
            spinner.stop()
    if log is not None and log.written:
        log.write(f"{label}: done in {time.monotonic() - started:,.0f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
