"""A sweep: a base config and axes, expanded into points that run once each, resumably."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from exanet.config import Config, apply_overrides, read_config_toml
from exanet.errors import ConfigError, OutputError
from exanet.result import check_output_directory
from exanet.summaries import sweep_html
from exanet.sweep.executors import Executor, WorkerDied, make_executor
from exanet.sweep.points import Point, expand
from exanet.sweep.progress import SweepProgress
from exanet.sweep.spec import SweepSpec, parse_spec
from exanet.sweep.store import point_dir, read_point, write_dataset
from exanet.sweep.worker import Task, record_invalid, run_point

ZipAxes = Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Sequence[Any]]]


@dataclass(frozen=True)
class SweepRun:
    """What `Sweep.run` did: `points` (the dataset's rows), how many points it `ran` and how
    many it found already stored (`skipped`), and where the dataset is."""

    points: pd.DataFrame
    ran: int
    skipped: int
    path: Path

    @property
    def failures(self) -> pd.DataFrame:
        return self.points[self.points["status"] != "ok"]

    def _repr_html_(self) -> str:
        head = f"exanet sweep {self.path.parent.name}: {self.ran:,} run, {self.skipped:,} stored"
        return sweep_html(self.points, head)


class Sweep:
    """A base config (a Config, a mapping of config keys or a TOML path) and its axes.

    `grid`: {dotted key: values}, their Cartesian product. `zip`: {key: values, ...} (or a list
    of such) whose lists advance in lock-step. `points`: explicit variants, each a mapping of
    dotted keys. `repetitions`: runs of every point with seeds seed, seed + 1, ...
    """

    def __init__(
        self,
        base: Config | Mapping[str, Any] | str | os.PathLike[str],
        grid: Mapping[str, Sequence[Any]] | None = None,
        zip: ZipAxes | None = None,
        points: Sequence[Mapping[str, Any]] = (),
        repetitions: int = 1,
    ) -> None:
        zips = [zip] if isinstance(zip, Mapping) else list(zip or [])
        spec = {
            "grid": dict(grid or {}),
            "zip": [_zip_axis(index, axis) for index, axis in enumerate(zips)],
            "points": [dict(point) for point in points],
            "repetitions": repetitions,
        }
        self.__init_from(_base_mapping(base), parse_spec(spec))

    def __init_from(self, base: dict[str, Any], spec: SweepSpec) -> None:
        self.base = base
        self.spec = spec

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> Sweep:
        """A sweep file: a config with a [sweep] section (docs/sweeps.md). `overrides`
        ("dotted.key=value") change the base config."""
        raw = read_config_toml(path)
        if "sweep" not in raw:
            raise ConfigError("sweep", "(missing)", f"a [sweep] section in {path} (docs/sweeps.md)")
        spec = parse_spec(raw.pop("sweep"))
        sweep = cls.__new__(cls)
        sweep.__init_from(apply_overrides(raw, overrides), spec)
        return sweep

    @cached_property
    def points(self) -> list[Point]:
        return expand(self.base, self.spec)

    def run(
        self,
        out: str | os.PathLike[str],
        *,
        executor: str | Executor = "local",
        jobs: int | None = None,
        address: str | None = None,
        retry_failed: bool = False,
        progress: bool | None = None,
    ) -> SweepRun:
        """Run every point not yet stored under `out` and write `out`/points.parquet.

        `executor`: "local" (a process pool), "submitit" or "dask" with `jobs` workers (default:
        every core) and, for dask, a scheduler `address`; or an executor object. A point that
        fails is stored as failed and not rerun unless `retry_failed`; one whose worker died
        is reported as failed but not stored, so the next run tries it again. Raises
        ConfigError when `out` is not a writable directory, before running anything, and
        OutputError (the points stored so far kept) when results cannot be written."""
        out = check_output_directory(Path(out).resolve(), "out")
        records = self._stored(out, retry_failed)
        skipped = len(records)
        unique = {point.key: point for point in self.points}
        for point in unique.values():
            if point.key not in records and point.error is not None:
                records[point.key] = record_invalid(str(out), point.key, point.error)
        tasks = [Task(p.key, p.config, str(out)) for p in unique.values() if p.key not in records]
        if isinstance(executor, str):
            executor = make_executor(executor, jobs, out / "submitit", address)
        failed = sum(record["status"] != "ok" for record in records.values())
        with (
            executor,
            SweepProgress(len(unique), len(records), failed, executor.workers, progress) as bar,
        ):
            for task, outcome in executor.map_unordered(run_point, tasks):
                if isinstance(outcome, OutputError):  # no later point could be stored either
                    raise outcome
                if isinstance(outcome, BaseException):  # not stored: a rerun tries again
                    outcome = {"key": task.key, "status": "failed", "error": _failure(outcome)}
                else:  # read back, so a fresh row equals the row of a resumed sweep
                    outcome = read_point(out, task.key) or outcome
                records[task.key] = outcome
                bar.advance(outcome["status"] != "ok")
        rows = [self._row(point, records[point.key]) for point in self.points]
        path = write_dataset(out, rows)
        return SweepRun(pd.DataFrame(rows), len(unique) - skipped, skipped, path)

    def _stored(self, out: Path, retry_failed: bool) -> dict[str, dict[str, Any]]:
        records = {}
        for key in {point.key for point in self.points}:
            record = read_point(out, key)
            if record is None or (retry_failed and record["status"] != "ok"):
                # Absent, damaged or to retry: what is left of it goes, so the rerun publishes.
                shutil.rmtree(point_dir(out, key), ignore_errors=True)
                continue
            records[key] = record
        return records

    @staticmethod
    def _row(point: Point, record: dict[str, Any]) -> dict[str, Any]:
        identity = {
            "key": point.key,
            "status": record["status"],
            "error": record["error"],
            "repetition": point.repetition,
            "seed": point.config.seed if point.config else None,
        }
        metrics = {k: v for k, v in record.items() if k not in identity}
        return {**identity, **point.axes, **metrics}


def _failure(exc: BaseException) -> str:
    if isinstance(exc, WorkerDied):
        return str(exc)
    return f"worker failed: {type(exc).__name__}: {exc}"


def _zip_axis(index: int, axis: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    lengths = {key: len(values) for key, values in axis.items()}
    if len(set(lengths.values())) > 1:
        raise ConfigError(
            f"sweep.zip[{index}]",
            ", ".join(f"{key}: {n} values" for key, n in lengths.items()),
            "lists of equal length, which advance together",
        )
    return {"keys": list(axis), "values": [list(row) for row in zip(*axis.values(), strict=True)]}


def _base_mapping(base: Config | Mapping[str, Any] | str | os.PathLike[str]) -> dict[str, Any]:
    if isinstance(base, Config):
        return base.model_dump(exclude_unset=True)
    if isinstance(base, Mapping):
        return dict(base)
    if isinstance(base, (str, os.PathLike)):
        return read_config_toml(base)
    raise TypeError(f"expected a Config, a mapping or a path, not {type(base).__name__}")
