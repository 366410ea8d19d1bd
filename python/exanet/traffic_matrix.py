"""Traffic matrices for `pattern = "matrix"`: read from a file or given inline, and handed to the
core in sparse form (endpoints, src, dst, weight).

Accepted forms (docs/workloads.md, "Fine-grained traffic"):
- dense: an N x N grid of weights, as rows in the config, a CSV file of numbers (no header) or
  a NumPy .npy file;
- sparse: a CSV or Parquet table with columns src, dst and one weight column (bytes, packets or
  weight); endpoints it does not name send nothing.
"""

from __future__ import annotations

import math
import os
from typing import Any

from exanet._validation import format_value
from exanet.errors import ConfigError

KEY = "traffic.matrix"
FORMATS = (
    "rows of weights (an N x N list), or a file: .csv (a grid of numbers, or columns src, dst "
    "and bytes/packets/weight), .parquet (columns src, dst and bytes/packets/weight) or .npy "
    "(an N x N array)"
)
WEIGHT_COLUMNS = ("bytes", "packets", "weight")


def _error(value: Any, expected: str) -> ConfigError:
    shown = format_value(value) if isinstance(value, str) else "(the inline rows)"
    return ConfigError(KEY, shown, expected)


def _check_weight(value: Any, where: str, source: Any) -> float:
    try:
        weight = float(value)
    except (TypeError, ValueError):
        raise _error(source, f"numeric weights; {where} is {value!r}") from None
    if not math.isfinite(weight) or weight < 0:
        raise _error(source, f"finite weights >= 0; {where} is {value!r}")
    return weight


def _from_dense(rows: Any, source: Any) -> dict[str, Any]:
    n = len(rows)
    if n < 2:
        raise _error(source, f"at least a 2 x 2 matrix: {FORMATS}")
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    for i, row in enumerate(rows):
        row = list(row)
        if len(row) != n:
            raise _error(source, f"a square matrix: row {i} has {len(row)} entries, not {n}")
        for j, value in enumerate(row):
            w = _check_weight(value, f"entry ({i}, {j})", source)
            if w > 0:
                src.append(i)
                dst.append(j)
                weight.append(w)
    return {"endpoints": n, "src": src, "dst": dst, "weight": weight}


def _from_columns(columns: dict[str, list[Any]], source: Any) -> dict[str, Any]:
    missing = [c for c in ("src", "dst") if c not in columns]
    weight_column = next((c for c in WEIGHT_COLUMNS if c in columns), None)
    if missing or weight_column is None:
        raise _error(
            source,
            "columns src, dst and one of bytes, packets, weight; found "
            + (", ".join(columns) or "none"),
        )
    ids: dict[str, list[int]] = {}
    for name in ("src", "dst"):
        values = []
        for row, value in enumerate(columns[name]):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise _error(source, f"endpoint ids >= 0 in column {name}; row {row} is {value!r}")
            values.append(value)
        ids[name] = values
    weight = [
        _check_weight(v, f"row {row} of column {weight_column}", source)
        for row, v in enumerate(columns[weight_column])
    ]
    return {"endpoints": None, "src": ids["src"], "dst": ids["dst"], "weight": weight}


def _read_csv(path: str) -> dict[str, Any]:
    import csv

    with open(path, encoding="utf-8", newline="") as file:
        rows = [row for row in csv.reader(file) if row and not row[0].startswith("#")]
    if not rows:
        raise _error(path, f"a non-empty file: {FORMATS}")
    header = [cell.strip() for cell in rows[0]]
    if "src" in header:
        columns: dict[str, list[Any]] = {name: [] for name in header}
        for number, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                raise _error(
                    path, f"{len(header)} cells on every line; line {number} has {len(row)}"
                )
            for name, cell in zip(header, row, strict=True):
                text = cell.strip()
                columns[name].append(int(text) if text.isdigit() else text)
        return _from_columns(columns, path)
    return _from_dense([[cell.strip() for cell in row] for row in rows], path)


def load_matrix(value: Any) -> dict[str, Any]:
    """The core's sparse form of a matrix given inline (rows, or a NumPy array) or as a path."""
    if not isinstance(value, (str, os.PathLike)):
        if hasattr(value, "tolist"):
            value = value.tolist()
        if not isinstance(value, list) or not all(isinstance(r, (list, tuple)) for r in value):
            raise _error(value, FORMATS)
        return _from_dense(value, value)
    path = os.fspath(value)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".csv", ".parquet", ".npy"):
        raise _error(path, FORMATS)
    try:
        if suffix == ".csv":
            return _read_csv(path)
        if suffix == ".npy":
            import numpy

            array = numpy.load(path, allow_pickle=False)
            if array.ndim != 2:
                raise _error(path, f"a 2-dimensional array; this one has {array.ndim}")
            return _from_dense(array.tolist(), path)
        import pyarrow.parquet

        table = pyarrow.parquet.read_table(path)
        return _from_columns(table.to_pydict(), path)
    except ConfigError:
        raise
    except OSError as exc:
        raise _error(path, f"a readable file ({exc.strerror or exc}): {FORMATS}") from None
    except UnicodeDecodeError:
        raise _error(path, "a UTF-8 CSV file") from None
    except ValueError as exc:
        raise _error(path, f"{FORMATS} ({exc})") from None
