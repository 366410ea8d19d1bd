"""The result of one simulation: summary statistics and per-endpoint and per-link tables."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np
import pandas as pd

from exanet import distributed
from exanet._validation import format_value
from exanet.analysis.curves import SATURATION_LOAD_MARGIN
from exanet.config import Config, RunConfig
from exanet.errors import ConfigError, InternalError, OutputError, core_errors
from exanet.topologies import topology_label

SUMMARY_FILE = "summary.json"
"""Written last: a directory holding it holds a complete result."""
TABLES = (
    "endpoints",
    "links",
    "jobs",
    "bursts",
    "traffic_matrix",
    "injection_series",
    "packet_sizes",
)
"""The tables a result writes as NAME.parquet; endpoints and links always, the others when
non-empty."""
ALWAYS_WRITTEN_TABLES = ("endpoints", "links")
PART_TABLES = ("endpoints", "links")
"""The tables whose rows each process of a run across processes holds for its own part only."""
PLAIN_OS_REASONS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}

FileWriter = Callable[[IO[bytes]], Any]
"""Writes one file's bytes to the open file it is given."""


class CoreRunResult(Protocol):
    """What `exanet._core.run` returns: the summary, and column tables built on request."""

    def summary(self) -> dict[str, Any]: ...

    def table(self, name: str) -> dict[str, Any]: ...


def table_to_dataframe(table: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame from a core column table; columns listed in `categories` become Categorical,
    and unsigned integer columns become int64, so that arithmetic on counters is safe
    (`received - generated` is negative, never 1.8e19)."""
    categories = table["categories"]
    columns = {}
    for name, dtype, buffer in table["columns"]:
        values = _signed(name, np.frombuffer(buffer, dtype=np.dtype(dtype)))
        if name in categories:
            columns[name] = pd.Categorical.from_codes(values, categories=categories[name])
        else:
            columns[name] = values
    return pd.DataFrame(columns)


def _signed(name: str, values: np.ndarray) -> np.ndarray:
    """`values` as int64 when unsigned; a value beyond int64 is refused rather than wrapped."""
    if values.dtype.kind != "u":
        return values
    if len(values) and values.max() > np.iinfo(np.int64).max:
        raise InternalError(
            f"column {name!r} holds {values.max()}, beyond the int64 range of result tables"
        )
    return values.astype(np.int64)


def undrained(summary: Mapping[str, Any], run: RunConfig) -> bool:
    """Whether a run that drains stopped at run.drain_limit with measured packets in flight."""
    return run.duration is None and run.drain != "none" and not summary["drained"]


def accepted_short(summary: Mapping[str, Any]) -> bool:
    """Whether a run accepted less than (1 - SATURATION_LOAD_MARGIN) x the load offered in its
    window (the throughput rule of `exanet.analysis.saturation_rule`): it ran past saturation,
    and its latencies grow with the window."""
    return summary["accepted_load"] < (1 - SATURATION_LOAD_MARGIN) * summary["offered_load"]


def steady_state(summary: Mapping[str, Any], run: RunConfig) -> bool:
    """Whether a run of synthetic traffic accepted what it was offered and drained."""
    return not accepted_short(summary) and not undrained(summary, run)


class Result:
    """One simulation of `config`: `summary` (a flat dict whose keys carry their units) and the
    `endpoints` and `links` DataFrames, built on first access. A run of synthetic traffic has
    the summary key `steady_state` (see `steady_state`): false when it ran past saturation.
    Bursts and jobs have none: their sources wait for the network.

    In a run across processes every process holds the whole summary and the other tables, but
    only the `endpoints` and `links` rows of its own part of the network (so that no process
    holds a row per entity of a network too large for one machine); `write`, which every
    process calls, writes the whole tables."""

    def __init__(self, config: Config, run: CoreRunResult) -> None:
        self.config = config
        self.summary = run.summary()
        if config.traffic.kind == "synthetic":
            self.summary["steady_state"] = steady_state(self.summary, config.run)
        self._run = run

    @cached_property
    def endpoints(self) -> pd.DataFrame:
        """One row per endpoint: traffic counters, loads and latencies."""
        return self._table("endpoints")

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link (network, injection and ejection): bytes, packets, utilisation."""
        return self._table("links")

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """One row per message-passing job: completion, bytes, communication rate, slowdowns
        versus an ideal network and versus running alone (empty for other workloads)."""
        return self._workload_table("jobs")

    @cached_property
    def bursts(self) -> pd.DataFrame:
        """One row per burst of burst-synchronized sources: start, end, time (else empty)."""
        return self._workload_table("burst")

    @cached_property
    def traffic_matrix(self) -> pd.DataFrame:
        """Packets and bytes injected in the window per (src, dst), non-zero cells only, at the
        level `summary["traffic_matrix_level"]` (record.traffic_matrix; empty when off)."""
        return self._recorded("traffic_matrix", self.config.record.traffic_matrix != "off")

    @cached_property
    def injection_series(self) -> pd.DataFrame:
        """Every endpoint's injected bytes and packets per record.injection_bin, zero bins
        included (empty when off)."""
        return self._recorded("injection_series", self.config.record.injection_bin is not None)

    @cached_property
    def packet_sizes(self) -> pd.DataFrame:
        """Packets delivered in the window by wire size (record.packet_sizes; empty when
        off)."""
        return self._recorded("packet_sizes", self.config.record.packet_sizes)

    def _table(self, name: str) -> pd.DataFrame:
        with core_errors():
            return table_to_dataframe(self._run.table(name))

    def _recorded(self, name: str, recorded: bool) -> pd.DataFrame:
        return self._table(name) if recorded else pd.DataFrame()

    def _workload_table(self, kind: str) -> pd.DataFrame:
        """The table of traffic kind `kind` ("jobs" or "burst"), empty under other kinds."""
        if self.config.traffic.kind != kind:
            return pd.DataFrame()
        return self._table("jobs" if kind == "jobs" else "bursts")

    def write(self, outdir: str | os.PathLike[str]) -> Path:
        """Write config.json (core units), endpoints.parquet and links.parquet, each non-empty
        workload or recorded table as NAME.parquet, and summary.json (NaN written as null).

        No reader ever sees a partial result: every file is written under a temporary name,
        synced to disk and renamed, and summary.json comes last (a summary.json left by an
        earlier result is removed before anything is replaced), so a directory holding
        summary.json holds a complete result. Raises OutputError naming the file and the reason
        ("disk full") when writing fails, after removing what it had written.

        In a run across processes, every process calls it: the first writes, and takes the
        other processes' rows of the endpoints and links tables from them one part at a time
        (see `part_table_writer`), so that no process ever holds a whole table; the others
        write nothing."""
        outdir = Path(outdir)
        comm = distributed.world()
        streamed: dict[str, FileWriter] = {}
        if comm is not None:
            for name in PART_TABLES:
                pieces = part_pieces(name, getattr(self, name))
                if comm.Get_rank() != 0:
                    for piece in pieces:
                        send_in_chunks(comm, piece)
                else:
                    streamed[name] = part_table_writer(comm, pieces)
            if comm.Get_rank() != 0:
                return outdir
        summary: dict[str, Any] = {
            key: _finite_or_none(value) for key, value in self.summary.items()
        }
        if len(self.jobs):
            summary["jobs_detail"] = [
                {key: _finite_or_none(value) for key, value in row.items()}
                for row in self.jobs.astype(object).to_dict(orient="records")
            ]
        files: dict[str, FileWriter] = {"config.json": json_writer(self.config.to_core())}
        for name in TABLES:
            if name in streamed:
                files[f"{name}.parquet"] = streamed[name]
                continue
            table = getattr(self, name)
            if name in ALWAYS_WRITTEN_TABLES or len(table):
                files[f"{name}.parquet"] = parquet_writer(table)
        files[SUMMARY_FILE] = json_writer(summary)
        stale = [f"{name}.parquet" for name in TABLES if f"{name}.parquet" not in files]
        write_files(outdir, files, obsolete=[SUMMARY_FILE, *stale])
        return outdir

    def _repr_html_(self) -> str:
        from exanet.summaries import summary_html  # summaries -> display -> result: a cycle

        return summary_html(self.summary, repr(self).strip("<>"))

    def __repr__(self) -> str:
        traffic = self.config.traffic
        workload = f"load {traffic.load}" if traffic.kind == "synthetic" else traffic.kind
        return (
            f"<Result {topology_label(self.config.topology)}, {workload}: "
            f"{len(self.summary)} summary statistics>"
        )


ROWS_PER_MESSAGE = 1_000_000
"""Rows a process sends the first in one message when it writes a run's tables (an MPI message
holds at most 2 GiB)."""


def part_pieces(name: str, table: pd.DataFrame) -> list[pd.DataFrame]:
    """This process's rows of table `name` ("endpoints" or "links"), in the pieces the first
    process writes one after another: the links of router ports before the injection links, so
    that a table written part by part has the rows of a run in one process in that run's order
    when every part is one run of router numbers (slabs of a torus, groups of a dragonfly)."""
    if name != "links":
        return [table]
    injection = (table["kind"] == "injection").to_numpy()
    return [table[~injection], table[injection]]


def send_in_chunks(comm: Any, piece: pd.DataFrame) -> None:
    """Sends `piece` to the first process in chunks of ROWS_PER_MESSAGE rows, then None."""
    for start in range(0, len(piece), ROWS_PER_MESSAGE):
        comm.send(piece.iloc[start : start + ROWS_PER_MESSAGE], dest=0)
    comm.send(None, dest=0)


def part_table_writer(comm: Any, pieces: list[pd.DataFrame]) -> FileWriter:
    """Writes a table whose rows the processes of a run hold part by part: for each kind of
    piece (see `part_pieces`), this process's, then each other process's in turn, received
    chunk by chunk and written as Parquet row groups."""

    def write(file: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        writer: pq.ParquetWriter | None = None
        schema: pa.Schema | None = None

        def received(rank: int) -> Iterator[pd.DataFrame]:
            while (chunk := comm.recv(source=rank)) is not None:
                yield chunk

        for mine in pieces:
            for rank in range(comm.Get_size()):
                for chunk in [mine] if rank == 0 else received(rank):
                    if writer is None:
                        schema = arrow_schema(pa.Schema.from_pandas(chunk, preserve_index=False))
                        writer = pq.ParquetWriter(file, schema)
                    if len(chunk):
                        table = pa.Table.from_pandas(chunk, schema=schema, preserve_index=False)
                        writer.write_table(table)
        if writer is not None:
            writer.close()

    return write


def arrow_schema(schema: Any) -> Any:
    """`schema` with every dictionary (categorical) column's indices 32-bit: the processes'
    parts number their categories apart, and some have more of them than others."""
    import pyarrow as pa

    fields = [
        field.with_type(pa.dictionary(pa.int32(), field.type.value_type))
        if pa.types.is_dictionary(field.type)
        else field
        for field in schema
    ]
    return pa.schema(fields, metadata=schema.metadata)


def _finite_or_none(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def json_writer(document: Any) -> FileWriter:
    return lambda file: file.write((json.dumps(document, indent=2) + "\n").encode())


def parquet_writer(table: pd.DataFrame) -> FileWriter:
    return lambda file: table.to_parquet(file, engine="pyarrow", index=False)


def write_files(
    directory: str | os.PathLike[str],
    files: Mapping[str, FileWriter],
    obsolete: Iterable[str] = (),
) -> None:
    """Write `files` (name: writer) into `directory` (created if needed) so that no reader sees
    a partial file: each is written under a temporary name in `directory` and synced, then all
    are renamed in the order given. The `obsolete` files are removed before the first rename:
    a caller whose last file marks a complete write lists it there, so that an old marker never
    stands beside new files. On failure the temporaries are removed and OutputError names the
    file and the reason."""
    directory = Path(directory)
    staged: list[tuple[Path, Path]] = []
    current = directory
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, write in files.items():
            current = directory / name
            staging = directory / f".tmp-{uuid.uuid4().hex}-{name}"
            staged.append((staging, current))
            with open(staging, "xb") as file:
                write(file)
                file.flush()
                os.fsync(file.fileno())
        for name in obsolete:
            current = directory / name
            current.unlink(missing_ok=True)
        for staging, final in staged:
            current = final
            staging.replace(final)
        sync_directory(directory)
    except BaseException as error:
        for staging, _ in staged:
            with contextlib.suppress(OSError):
                staging.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OutputError(str(current), os_reason(error)) from None
        raise


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """Make the renames in `directory` durable: a crash after this cannot undo them."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def os_reason(error: OSError) -> str:
    """Why an operating-system call failed, in plain words where the usual message is obscure."""
    return PLAIN_OS_REASONS.get(error.errno or 0) or error.strerror or str(error)


def check_output_directory(path: str | os.PathLike[str], key: str) -> Path:
    """Check that results can be written to the directory `path`, before a long run rather
    than after it: create it, write and remove a probe file, then remove the directories it
    created (a run that fails leaves nothing behind). Raises ConfigError naming `key` (the
    option or argument that gave the path), the path and the reason otherwise."""
    path = Path(path)
    parts = [path, *path.parents]
    blocking = next((p for p in parts if os.path.exists(p) and not os.path.isdir(p)), None)
    if blocking is not None:
        reason = f"{blocking} is a file, not a directory"
    else:
        missing = [p for p in parts if not os.path.exists(p)]  # deepest first
        probe = path / f".tmp-{uuid.uuid4().hex}-probe"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"probe")
            probe.unlink()
            return path
        except OSError as error:
            reason = os_reason(error)
        finally:
            with contextlib.suppress(OSError):
                probe.unlink(missing_ok=True)
                for directory in missing:
                    directory.rmdir()
    raise ConfigError(key, format_value(str(path)), f"a directory exanet can write ({reason})")
