"""Results written earlier, read back: `exanet.open(DIR)` on a run directory (`exanet run -o
DIR`, Result.write) or a sweep directory (`exanet sweep --out DIR`, Sweep.run)."""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from exanet.errors import ConfigError
from exanet.result import SUMMARY_FILE, TABLES
from exanet.summaries import summary_html, sweep_html
from exanet.sweep.store import DATASET_FILE, load, load_table


class StoredResult:
    """A run directory: `summary` (summary.json as written: NaN reads as None), `config` (the
    config.json of core units, a dict) and the tables of Result (`endpoints`, `links`, `jobs`,
    ...), each read on first access; a table the run did not write is an empty DataFrame."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tables: dict[str, pd.DataFrame] = {}

    @cached_property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.path / SUMMARY_FILE).read_text())

    @cached_property
    def config(self) -> dict[str, Any]:
        return json.loads((self.path / "config.json").read_text())

    def table(self, name: str) -> pd.DataFrame:
        """The table `name` (one of exanet.result.TABLES) as the run wrote it."""
        if name not in TABLES:
            raise ConfigError("table", repr(name), f"one of {', '.join(TABLES)}")
        if name not in self._tables:
            file = self.path / f"{name}.parquet"
            frame = pd.read_parquet(file, engine="pyarrow") if file.exists() else pd.DataFrame()
            self._tables[name] = frame
        return self._tables[name]

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name in TABLES:
            return self.table(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *TABLES})

    def __repr__(self) -> str:
        return f"<StoredResult {self.path}: {len(self.summary)} summary statistics>"

    def _repr_html_(self) -> str:
        return summary_html(self.summary, f"exanet run {self.path.name}")


class StoredSweep:
    """A sweep directory: `points` (points.parquet as a DataFrame, read on first access),
    `failures` (its rows whose status is not ok) and `table(name)`, one per-point table of
    every ok point concatenated (exanet.sweep.load_table)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @cached_property
    def points(self) -> pd.DataFrame:
        return load(self.path)

    @property
    def failures(self) -> pd.DataFrame:
        return self.points[self.points["status"] != "ok"]

    def table(self, name: str) -> pd.DataFrame:
        return load_table(self.path, name)

    def __repr__(self) -> str:
        return f"<StoredSweep {self.path}: {len(self.points):,} points>"

    def _repr_html_(self) -> str:
        return sweep_html(self.points, f"exanet sweep {self.path.name}")


def open(path: str | os.PathLike[str]) -> StoredResult | StoredSweep:
    """Read back a run directory (with summary.json) as a StoredResult, or a sweep directory
    (with points.parquet) as a StoredSweep; files are read on first access. Raises
    ConfigError naming the path otherwise."""
    path = Path(path)
    if (path / DATASET_FILE).is_file():
        return StoredSweep(path)
    if (path / SUMMARY_FILE).is_file():
        return StoredResult(path)
    raise ConfigError(
        "path",
        str(path),
        f"a run directory (with {SUMMARY_FILE}) or a sweep directory (with {DATASET_FILE})",
    )
