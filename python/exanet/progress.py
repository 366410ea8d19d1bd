"""Progress display of a running simulation, fed by the callback of `_core.run`."""

from __future__ import annotations

from datetime import timedelta
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn

from exanet.display import format_si

SHOW_AFTER_S = 2.0
"""With automatic progress, runs shorter than this (wall time) show nothing."""


class ProgressDisplay:
    """Callback for `_core.run` that draws simulated time, phase, events/s and ETA on stderr.

    `mode` True shows progress from the first update, False never, and None (automatic) once the
    run has lasted SHOW_AFTER_S when stderr is a terminal. Use as a context manager.
    """

    def __init__(self, mode: bool | None, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._enabled = self._console.is_terminal if mode is None else mode
        self._show_after_s = SHOW_AFTER_S if mode is None else 0.0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last_events = 0
        self._last_wall_s = 0.0

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
        if not self._enabled or wall_s < self._show_after_s:
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
            self._task = self._progress.add_task("simulating", **_fields(update, 0.0))
            self._progress.start()
        interval_s = wall_s - self._last_wall_s
        events_per_s = (update["events"] - self._last_events) / interval_s if interval_s else 0.0
        self._last_events, self._last_wall_s = update["events"], wall_s
        target_ps = update["target_time_ps"]
        self._progress.update(
            self._task,
            completed=min(update["sim_time_ps"], target_ps),
            total=target_ps,
            **_fields(update, events_per_s),
        )


def _fields(update: dict[str, Any], events_per_s: float) -> dict[str, str]:
    sim_us, target_us = update["sim_time_ps"] / 1e6, update["target_time_ps"] / 1e6
    if update["phase"] == "drain":
        simulated = f"{sim_us:,.2f} us simulated, window ended at {target_us:,.2f} us"
    else:
        simulated = f"{sim_us:,.2f} / {target_us:,.2f} us simulated"
    return {
        "phase": update["phase"],
        "simulated": simulated,
        "event_rate": f"{format_si(events_per_s)} events/s",
        "eta": _eta(update),
    }


def _eta(update: dict[str, Any]) -> str:
    """Remaining wall time at the average simulation speed so far; unknown while draining."""
    sim_ps, target_ps, wall_s = update["sim_time_ps"], update["target_time_ps"], update["wall_s"]
    if update["phase"] == "drain" or sim_ps <= 0 or wall_s <= 0 or target_ps < sim_ps:
        return ""
    remaining_s = (target_ps - sim_ps) * wall_s / sim_ps
    return f"ETA {timedelta(seconds=round(remaining_s))}"
