"""The exanet trace format on disk: Parquet or CSV files of the `Program` table (docs/traces.md).

Parquet stores the rank count in the schema metadata (key `exanet.ranks`). CSV files start with
one comment line `# exanet-trace ranks=N`, then a header row with the column names, then one row
per operation; empty `algorithm` cells mean the default algorithm.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from exanet.errors import ConfigError
from exanet.program import (
    COLUMNS,
    MAX_OPERATIONS_PER_JOB,
    MAX_RANKS,
    OPS,
    Program,
    check_operation_count,
)

RANKS_METADATA_KEY = b"exanet.ranks"
_CSV_HEADER = re.compile(r"#\s*exanet-trace\s+ranks=(?P<ranks>\d+)\s*")
_RANKS_DIGITS = len(str(MAX_RANKS))
_MAX_HEADER_CHARS = 1024


def write_trace(program: Program, path: str | Path) -> None:
    """Write `program` to `path`, a .parquet or .csv file; rows in (rank, seq) order."""
    path = Path(path)
    ops = program.sorted()
    if path.suffix == ".parquet":
        table = pa.Table.from_pandas(ops, preserve_index=False)
        metadata = {
            **(table.schema.metadata or {}),
            RANKS_METADATA_KEY: str(program.ranks).encode(),
        }
        pq.write_table(table.replace_schema_metadata(metadata), path)
    elif path.suffix == ".csv":
        with path.open("w", newline="") as file:
            file.write(f"# exanet-trace ranks={program.ranks}\n")
            ops.to_csv(file, index=False, lineterminator="\n")
    else:
        raise ConfigError("trace", str(path), "a file name ending in .parquet or .csv")


def read_trace(path: str | Path, *, key: str = "trace") -> Program:
    """Read a .parquet or .csv exanet trace (not validated: call `validate` on the result).
    Errors name `key` (e.g. `traffic.jobs[0].trace`) and give the file in their value."""
    path = Path(path)
    if path.suffix not in (".parquet", ".csv"):
        raise ConfigError(key, str(path), "a file name ending in .parquet or .csv")
    try:
        if not path.is_file():
            raise FileNotFoundError(f"{path} is not a file")
        frame, ranks_text = _read_parquet(path) if path.suffix == ".parquet" else _read_csv(path)
    # ValueError: pandas' parse errors, undecodable text, a NUL character in the path
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise ConfigError(key, str(path), f"a readable exanet trace file ({exc})") from None
    except _Refused as exc:
        raise ConfigError(key, f"{path}: {exc.value}", exc.expected) from None
    if ranks_text is None:
        raise ConfigError(
            key,
            f"{path}: no exanet.ranks (a whole number) in the Parquet metadata",
            _RANKS_EXPECTED,
        )
    if len(ranks_text) > _RANKS_DIGITS:
        shown = ranks_text if len(ranks_text) <= 40 else f"of {len(ranks_text)} digits"
        raise ConfigError(key, f"{path}: ranks {shown}", _RANKS_EXPECTED)
    check_operation_count(len(frame), key, f"{path} ({len(frame)} rows)")
    try:
        program = Program(frame, int(ranks_text), key=key)
    except ConfigError as exc:
        raise ConfigError(key, f"{path}: {exc.value}", exc.expected) from None
    unknown = ~program.ops["op"].isin(OPS)
    if unknown.any():
        row = int(unknown.to_numpy().argmax())
        op = program.ops["op"].iloc[row]
        raise ConfigError(
            key, f"{path}: column op row {row}: {op!r}", f"an op among {', '.join(OPS)}"
        )
    return program


class _Refused(Exception):
    """A trace file that is readable but is no exanet trace (before it is read in full)."""

    def __init__(self, value: str, expected: str) -> None:
        self.value, self.expected = value, expected


def _read_parquet(path: Path) -> tuple[pd.DataFrame, str | None]:
    """The operations and the rank count (text) of a Parquet trace. Its footer is checked
    before the columns are read: a small file can declare billions of rows, or rows of nested
    values (the footer's column chunks are not looked at: pyarrow aborts the process on some
    damaged ones)."""
    with pq.ParquetFile(path) as file:
        rows = file.metadata.num_rows
        if rows > MAX_OPERATIONS_PER_JOB:
            raise _Refused(
                f"{rows} rows",
                f"at most {MAX_OPERATIONS_PER_JOB:,} operations in a job "
                "(exanet.program.MAX_OPERATIONS_PER_JOB)",
            )
        schema = file.schema_arrow
    for column in schema:
        if not _flat(column.type):
            raise _Refused(
                f"column {column.name} of type {column.type}", "a column of numbers or strings"
            )
    # strings stay dictionary-encoded: a string repeated on every row is held once
    strings = [column.name for column in schema if _is_string(column.type)]
    table = pq.read_table(path, read_dictionary=strings)
    ranks = (schema.metadata or {}).get(RANKS_METADATA_KEY)
    ranks_text = ranks.decode(errors="replace") if ranks is not None else None
    return table.to_pandas(), ranks_text if ranks_text and ranks_text.isdigit() else None


def _flat(arrow_type: pa.DataType) -> bool:
    """A type whose values take a bounded size each (strings: see `read_dictionary`)."""
    if pa.types.is_dictionary(arrow_type):
        return _flat(arrow_type.value_type)
    return (
        pa.types.is_integer(arrow_type)
        or pa.types.is_floating(arrow_type)
        or pa.types.is_boolean(arrow_type)
        or pa.types.is_null(arrow_type)
        or _is_string(arrow_type)
    )


def _is_string(arrow_type: pa.DataType) -> bool:
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)


def _read_csv(path: Path) -> tuple[pd.DataFrame, str | None]:
    """The operations and the rank count (text) of a CSV trace."""
    with path.open(newline="") as file:
        first_line = file.readline(_MAX_HEADER_CHARS + 1).rstrip("\r\n")
        if len(first_line) > _MAX_HEADER_CHARS:
            raise _Refused(
                f"a first line of more than {_MAX_HEADER_CHARS} characters", _RANKS_EXPECTED
            )
        header = _CSV_HEADER.fullmatch(first_line)
        if header is None:
            raise _Refused(f"first line {first_line!r}", _RANKS_EXPECTED)
        # one row past the limit is enough to refuse the file
        frame = pd.read_csv(
            file, dtype=str, keep_default_na=False, nrows=MAX_OPERATIONS_PER_JOB + 1
        )
    return frame, header["ranks"]


_RANKS_EXPECTED = (
    "an exanet trace: a CSV file starting with the line '# exanet-trace ranks=N', or a Parquet "
    f"file written by exanet.traces.write_trace, with N in 1..{MAX_RANKS}; its columns are "
    f"{', '.join(COLUMNS)}"
)
