"""What an executor runs for one point, in whatever process or machine it chooses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from exanet import api
from exanet.config import Config
from exanet.errors import ExanetError
from exanet.result import Result
from exanet.sweep.store import store_point


@dataclass(frozen=True)
class Task:
    """A point to simulate and where its results go (a path every worker can reach)."""

    key: str
    config: Config
    out: str


def run_point(task: Task) -> dict[str, Any]:
    """Simulate one point and store it; returns its record. An ExanetError (invalid config,
    deadlock, stalled program) is a result of the point, stored as a failure; anything else is
    a fault of the worker and propagates, so a rerun tries the point again."""
    result: Result | None = None
    error = None
    try:
        result = api.simulate(task.config, progress=False)
    except ExanetError as exc:
        error = f"{type(exc).__name__}: {exc}"
    record = {
        "key": task.key,
        "status": "failed" if result is None else "ok",
        "error": error,
    }
    store_point(task.out, task.key, record, result.write if result else lambda _: None)
    return record


def record_invalid(out: str, key: str, error: str) -> dict[str, Any]:
    """Store a point whose config failed validation before reaching any worker."""
    record = {"key": key, "status": "failed", "error": f"ConfigError: {error}"}
    store_point(out, key, record, lambda _: None)
    return record
