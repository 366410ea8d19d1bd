"""The on-disk layout of a sweep's results, and reading it back.

    OUT/points/KEY/point.json      key, status ("ok" or "failed"), error
    OUT/points/KEY/summary.json    and config.json, endpoints.parquet, links.parquet, ... as
                                   `exanet run` writes them (ok points only)
    OUT/points.parquet             one row per point of the last sweep run into OUT

A point's directory appears in one rename once complete and its files synced, so a sweep killed
at any moment, or a disk that fills up, leaves each point either finished or absent (plus, at
worst, a hidden .tmp-* directory); points.parquet is replaced in one rename likewise.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from exanet.errors import OutputError
from exanet.result import json_writer, os_reason, parquet_writer, sync_directory, write_files

POINTS_DIR = "points"
DATASET_FILE = "points.parquet"
POINT_FILE = "point.json"


def point_dir(out: str | os.PathLike[str], key: str) -> Path:
    return Path(out) / POINTS_DIR / key


def store_point(
    out: str | os.PathLike[str], key: str, record: dict[str, Any], write: Callable[[Path], Any]
) -> None:
    """Write a point's files with `write(directory)` and its record, then publish them at once.
    Raises OutputError (and leaves nothing behind) when they cannot be written."""
    final = point_dir(out, key)
    staging = final.parent / f".tmp-{key}-{uuid.uuid4().hex}"
    try:
        staging.mkdir(parents=True)
        write(staging)
        write_files(staging, {POINT_FILE: json_writer(record)})
        try:
            staging.rename(final)
        except OSError:
            if not final.is_dir():
                raise
            shutil.rmtree(staging)  # another run of the same sweep published this point first
            return
        sync_directory(final.parent)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OutputError) and Path(error.path).parent == staging:
            # Named as published: the staging directory means nothing to the reader.
            raise OutputError(str(final / Path(error.path).name), error.reason) from None
        if isinstance(error, OSError):
            raise OutputError(str(final), os_reason(error)) from None
        raise


def read_point(out: str | os.PathLike[str], key: str) -> dict[str, Any] | None:
    """A stored point's record with its scalar summary statistics merged in; None if absent
    or damaged (a file that is not the JSON object exanet wrote: the point is run again)."""
    directory = point_dir(out, key)
    record = _json_object(directory / POINT_FILE)
    if record is None or record.get("status") not in ("ok", "failed"):
        return None
    summary_file = directory / "summary.json"
    if summary_file.exists():
        summary = _json_object(summary_file)
        if summary is None:
            return None
        record.update({k: v for k, v in summary.items() if not isinstance(v, (list, dict))})
    return record


def _json_object(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):  # absent, unreadable, not UTF-8 or not JSON
        return None
    return value if isinstance(value, dict) else None


def write_dataset(out: str | os.PathLike[str], rows: list[dict[str, Any]]) -> Path:
    """Write the rows of a sweep as OUT/points.parquet (atomically, like the points)."""
    frame = pd.DataFrame(rows)
    for name in frame.columns:
        frame[name] = _uniform_column(frame[name])
    write_files(out, {DATASET_FILE: parquet_writer(frame)})
    return Path(out) / DATASET_FILE


def _uniform_column(column: pd.Series) -> pd.Series:
    """Parquet needs one type per column: an axis whose values mix types (0.5 and "0.5",
    "10ns" and 1e-8) is stored as text."""
    kinds = {
        "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v)
        for v in column
        if v is not None and not (isinstance(v, float) and pd.isna(v))
    }
    if len(kinds) <= 1:
        return column
    return column.map(lambda value: None if value is None else str(value))


def load(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The points of a sweep as a DataFrame: `path` is its output directory or points.parquet.
    One row per point: key, status, error, repetition, seed, every axis (a column per dotted
    key) and every summary statistic."""
    path = Path(path)
    return pd.read_parquet(path / DATASET_FILE if path.is_dir() else path, engine="pyarrow")


def load_table(path: str | os.PathLike[str], name: str) -> pd.DataFrame:
    """One per-point table (endpoints, links, jobs, bursts) of every ok point of a sweep,
    concatenated, with the point's key as the first column."""
    points = load(path)
    out = Path(path) if Path(path).is_dir() else Path(path).parent
    frames = []
    for key in points.loc[points["status"] == "ok", "key"].drop_duplicates():
        file = point_dir(out, key) / f"{name}.parquet"
        if file.exists():
            frames.append(pd.read_parquet(file).assign(key=key))
    if not frames:
        return pd.DataFrame()
    table = pd.concat(frames, ignore_index=True)
    return table[["key", *[c for c in table.columns if c != "key"]]]
