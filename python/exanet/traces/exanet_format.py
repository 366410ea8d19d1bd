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
from exanet.program import COLUMNS, OPS, Program

RANKS_METADATA_KEY = b"exanet.ranks"
_CSV_HEADER = re.compile(r"#\s*exanet-trace\s+ranks=(?P<ranks>\d+)\s*")


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


def read_trace(path: str | Path) -> Program:
    """Read a .parquet or .csv exanet trace (not validated: call `validate` on the result)."""
    path = Path(path)
    key = str(path)
    try:
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            ranks_text = (table.schema.metadata or {}).get(RANKS_METADATA_KEY, b"").decode()
            if not ranks_text.isdigit():
                raise ConfigError(key, "no exanet.ranks in the Parquet metadata", _RANKS_EXPECTED)
            return _checked(Program(table.to_pandas(), int(ranks_text), key=key), key)
        if path.suffix == ".csv":
            with path.open(newline="") as file:
                first_line = file.readline().rstrip("\r\n")
                header = _CSV_HEADER.fullmatch(first_line)
                if header is None:
                    raise ConfigError(key, f"first line {first_line!r}", _RANKS_EXPECTED)
                frame = pd.read_csv(file, dtype=str, keep_default_na=False)
            return _checked(Program(frame, int(header["ranks"]), key=key), key)
    except (
        OSError,
        pa.ArrowException,
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        UnicodeDecodeError,
    ) as exc:
        raise ConfigError(key, "unreadable", f"a readable exanet trace file ({exc})") from None
    raise ConfigError("trace", key, "a file name ending in .parquet or .csv")


def _checked(program: Program, key: str) -> Program:
    """`program`, if every op is known (the rest is checked by `Program.validate`)."""
    unknown = ~program.ops["op"].isin(OPS)
    if unknown.any():
        row = int(unknown.to_numpy().argmax())
        op = program.ops["op"].iloc[row]
        raise ConfigError(key, f"column op row {row}: {op!r}", f"an op among {', '.join(OPS)}")
    return program


_RANKS_EXPECTED = (
    "an exanet trace: a CSV file starting with the line '# exanet-trace ranks=N', or a Parquet "
    f"file written by exanet.traces.write_trace; its columns are {', '.join(COLUMNS)}"
)
