"""Message-passing programs: the per-rank operations of one job.

A `Program` holds one table (the *exanet trace format*, docs/traces.md) with one row per operation:
rank, seq, op, peer, bytes, tag, compute_ns, communicator, request, algorithm. Every source of
programs produces one: Python generators (`Program.from_generator`, `Program.from_file`), exanet
trace files and the GOAL and Chakra importers (`exanet.traces`).

A generator program is a function `program(rank, size, **params)` that yields operations built by
the helpers of this module; `isend` and `irecv` send the new request id back as the yield's value:

    def program(rank, size, bytes="4KiB"):
        r = yield irecv((rank - 1) % size, bytes)
        yield send((rank + 1) % size, bytes)
        yield wait(r)
        yield compute("1.5us")
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import inspect
import operator
import reprlib
from collections import defaultdict
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from exanet.errors import ConfigError
from exanet.units import QuantityError, parse_size_bytes, parse_time_ps

ALGORITHMS: dict[str, tuple[str, ...]] = {
    "allreduce": ("recursive_doubling", "ring", "rabenseifner", "tree", "auto"),
    "bcast": ("binomial", "scatter_ring_allgather", "scatter_doubling_allgather", "auto"),
    "reduce": ("binomial", "rabenseifner", "auto"),
    "allgather": ("ring", "recursive_doubling", "bruck", "auto"),
    "alltoall": ("pairwise", "bruck", "scattered", "auto"),
    "alltoallv": ("pairwise", "bruck", "scattered", "auto"),
    "barrier": ("dissemination", "auto"),
    "gather": ("binomial", "linear", "auto"),
    "scatter": ("binomial", "linear", "auto"),
    "reduce_scatter": ("ring", "pairwise", "recursive_halving", "auto"),
    "scan": ("recursive_doubling", "auto"),
    "exscan": ("recursive_doubling", "auto"),
}
"""Collective operations (and barrier) with the algorithms each accepts ("" = the default;
"auto" = chosen per call by message size and ranks as MPICH does, [traffic]
collective_thresholds)."""

COLLECTIVES = tuple(ALGORITHMS)
POINT_TO_POINT = ("send", "recv", "isend", "irecv")
OPS = ("compute", *POINT_TO_POINT, "wait", "waitall", *COLLECTIVES, "comm")

COLUMNS: dict[str, str] = {
    "rank": "int32",
    "seq": "int32",
    "op": "str",
    "peer": "int32",
    "bytes": "int64",
    "tag": "int32",
    "compute_ns": "float64",
    "communicator": "int32",
    "request": "int32",
    "algorithm": "str",
}
"""The exanet trace format: column name -> pandas dtype."""

MAX_RANKS = 2**31 - 1
"""Ranks of one job at most (rank is an int32 column)."""
MAX_MESSAGE_BYTES = 2**40
"""Bytes of one operation at most (a message, a collective's buffer): 1 TiB. The simulator moves
a few GB per second of wall time, so a larger message would run for hours; within this limit a
job's byte counts stay far below the core's 64-bit counters."""
MAX_JOB_TIME_PS = 10**18
"""A job's start, and each rank's compute time added up, at most: 10^6 s (about 11.6 days), so
the core's 64-bit picosecond clock (about 213 days) cannot overflow."""
MAX_OPERATIONS_PER_JOB = 10**7
"""Operations of one job at most (a generator that never ends is stopped here). On its way to
the core an operation takes about 600 bytes of memory: 10^7 of them about 6 GB."""

_INT32 = np.iinfo("int32")
_SENDS = ("send", "isend")
_RECVS = ("recv", "irecv")
_ROOTED = ("bcast", "reduce", "gather", "scatter")


class Op(NamedTuple):
    """One operation of a rank: a row of the trace table without its rank and seq."""

    op: str
    peer: int = -1
    bytes: int = 0
    tag: int = 0
    compute_ns: float = 0.0
    communicator: int = 0
    request: int = -1
    algorithm: str = ""


def _integer(value: Any, key: str) -> int:
    """`value` as an int32 (the dtype of every integer column but bytes)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise ConfigError(key, repr(value), "an integer") from None
    if not _INT32.min <= number <= _INT32.max:
        raise ConfigError(key, repr(value), f"an integer in {_INT32.min}..{_INT32.max}")
    return number


def _size(value: int | str, key: str) -> int:
    try:
        size = parse_size_bytes(value)
    except QuantityError as exc:
        raise ConfigError(key, repr(value), exc.expected) from None
    if size > MAX_MESSAGE_BYTES:
        raise ConfigError(key, repr(value), _MESSAGE_BYTES_EXPECTED)
    return size


def _duration_ns(value: float | str, key: str) -> float:
    if isinstance(value, str):
        try:
            ps = parse_time_ps(value)
        except QuantityError as exc:
            raise ConfigError(key, repr(value), exc.expected) from None
        if ps > MAX_JOB_TIME_PS:
            raise ConfigError(key, repr(value), _COMPUTE_EXPECTED)
        return ps / 1000
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigError(key, repr(value), 'a duration >= 0: nanoseconds or a string like "1.5us"')
    if value > MAX_JOB_TIME_PS // 1000:
        raise ConfigError(key, repr(value), _COMPUTE_EXPECTED)
    return float(value)


_MESSAGE_BYTES_EXPECTED = (
    f"a size of at most {MAX_MESSAGE_BYTES} bytes (1TiB, exanet.program.MAX_MESSAGE_BYTES)"
)
_COMPUTE_EXPECTED = (
    f"compute of at most {MAX_JOB_TIME_PS // 1000} ns (10^6 s) per rank in all "
    "(exanet.program.MAX_JOB_TIME_PS)"
)


def compute(ns: float | str) -> Op:
    """Compute for `ns` nanoseconds (a number, or a time string such as "1.5us")."""
    return Op("compute", compute_ns=_duration_ns(ns, "compute.ns"))


def _point_to_point(op: str, peer: int, size: int | str, tag: int, comm: int) -> Op:
    return Op(
        op,
        peer=_integer(peer, f"{op}.peer"),
        bytes=_size(size, f"{op}.bytes"),
        tag=_integer(tag, f"{op}.tag"),
        communicator=_integer(comm, f"{op}.comm"),
    )


def send(peer: int, bytes: int | str, tag: int = 0, comm: int = 0) -> Op:
    """Blocking send of `bytes` (an int or a size string such as "4KiB") to rank `peer` (a rank
    of the job) on communicator `comm`, the matching context."""
    return _point_to_point("send", peer, bytes, tag, comm)


def recv(peer: int = -1, bytes: int | str = 0, tag: int = -1, comm: int = 0) -> Op:
    """Blocking receive from `peer` (-1: any source) with `tag` (-1: any tag) on `comm`."""
    return _point_to_point("recv", peer, bytes, tag, comm)


def isend(peer: int, bytes: int | str, tag: int = 0, comm: int = 0) -> Op:
    """Non-blocking send; the yield returns its request id, for `wait`."""
    return _point_to_point("isend", peer, bytes, tag, comm)


def irecv(peer: int = -1, bytes: int | str = 0, tag: int = -1, comm: int = 0) -> Op:
    """Non-blocking receive; the yield returns its request id, for `wait`."""
    return _point_to_point("irecv", peer, bytes, tag, comm)


def wait(request: int) -> Op:
    """Wait until the request returned by an `isend` or `irecv` completes."""
    return Op("wait", request=_integer(request, "wait.request"))


def waitall() -> Op:
    """Wait until every outstanding request of this rank completes."""
    return Op("waitall")


def comm(k: int) -> Op:
    """Declare this rank a member of communicator `k` (>= 1); members are ordered by rank."""
    return Op("comm", communicator=_integer(k, "comm.k"))


def _collective(op: str, size: int | str, algorithm: str, comm: int, root: int = -1) -> Op:
    return Op(
        op,
        peer=_integer(root, f"{op}.root"),
        bytes=_size(size, f"{op}.bytes"),
        communicator=_integer(comm, f"{op}.comm"),
        algorithm=algorithm,
    )


def barrier(comm: int = 0, algorithm: str = "") -> Op:
    """Barrier over communicator `comm` (0: every rank of the job)."""
    return _collective("barrier", 0, algorithm, comm)


def allreduce(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """Allreduce of a `bytes` buffer."""
    return _collective("allreduce", bytes, algorithm, comm)


def bcast(bytes: int | str, root: int = 0, algorithm: str = "", comm: int = 0) -> Op:
    """Broadcast of a `bytes` buffer from `root` (a rank of the communicator)."""
    return _collective("bcast", bytes, algorithm, comm, root)


def reduce(bytes: int | str, root: int = 0, algorithm: str = "", comm: int = 0) -> Op:
    """Reduction of a `bytes` buffer to `root` (a rank of the communicator)."""
    return _collective("reduce", bytes, algorithm, comm, root)


def allgather(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """Allgather; `bytes` is each rank's contribution."""
    return _collective("allgather", bytes, algorithm, comm)


def alltoall(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """All-to-all; `bytes` go to each other rank."""
    return _collective("alltoall", bytes, algorithm, comm)


def alltoallv(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """All-to-all with per-rank sizes; `bytes` is the total this rank sends."""
    return _collective("alltoallv", bytes, algorithm, comm)


def gather(bytes: int | str, root: int = 0, algorithm: str = "", comm: int = 0) -> Op:
    """Gather to `root` (a rank of the communicator); `bytes` is each rank's contribution."""
    return _collective("gather", bytes, algorithm, comm, root)


def scatter(bytes: int | str, root: int = 0, algorithm: str = "", comm: int = 0) -> Op:
    """Scatter from `root` (a rank of the communicator); `bytes` is what each rank ends with."""
    return _collective("scatter", bytes, algorithm, comm, root)


def reduce_scatter(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """Reduce-scatter of a `bytes` buffer: each rank ends with its 1/size of it reduced."""
    return _collective("reduce_scatter", bytes, algorithm, comm)


def scan(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """Inclusive prefix reduction of a `bytes` buffer over the ranks in order."""
    return _collective("scan", bytes, algorithm, comm)


def exscan(bytes: int | str, algorithm: str = "", comm: int = 0) -> Op:
    """Exclusive prefix reduction of a `bytes` buffer (rank r gets ranks 0..r-1's)."""
    return _collective("exscan", bytes, algorithm, comm)


class Program:
    """The operations of every rank of one job: `ops` (a DataFrame in the exanet trace format)."""

    def __init__(self, ops: pd.DataFrame, ranks: int, *, key: str = "program") -> None:
        self.ranks = _ranks(ranks, key)
        self.ops = _normalize(ops, key)
        self.eager_limit: int | None = None
        """The eager limit, in bytes, of the protocol the program's producer assumed (a trace
        importer sets it: Chakra every message, GOAL LogGOPSim's 65,535 B); None: the job's."""

    def __repr__(self) -> str:
        return f"Program(ranks={self.ranks}, ops={len(self.ops)})"

    def __len__(self) -> int:
        return len(self.ops)

    @classmethod
    def from_ops(
        cls,
        ops_by_rank: Sequence[Sequence[Op]] | Mapping[int, Sequence[Op]],
        ranks: int,
        *,
        key: str = "program",
    ) -> Program:
        """A program from each rank's operations in order (seq = position): a sequence indexed
        by rank, or a mapping rank -> operations that leaves out the ranks without any."""
        items = ops_by_rank.items() if isinstance(ops_by_rank, Mapping) else enumerate(ops_by_rank)
        rank_column: list[int] = []
        seq_column: list[int] = []
        ops: list[Op] = []
        for rank, rank_ops in items:
            rank_column += [rank] * len(rank_ops)
            seq_column += range(len(rank_ops))
            ops += rank_ops
        fields = zip(*ops, strict=True) if ops else [()] * len(Op._fields)
        # object columns: a value that does not fit its dtype is named by _normalize
        frame = pd.DataFrame(
            {
                "rank": pd.Series(rank_column, dtype=object),
                "seq": pd.Series(seq_column, dtype=object),
                **{
                    name: pd.Series(values, dtype=object)
                    for name, values in zip(Op._fields, fields, strict=True)
                },
            }
        )
        return cls(frame, ranks, key=key)

    @classmethod
    def from_generator(cls, fn: Callable[..., Iterator[Op]], ranks: int, **params: Any) -> Program:
        """Run `fn(rank, ranks, **params)`, a generator of operations, for every rank."""
        return _generate(fn, ranks, params, "program")

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        ranks: int,
        params: dict[str, Any] | None = None,
        *,
        key: str = "program",
    ) -> Program:
        """Run the generator `program(rank, size, **params)` defined in the Python file `path`;
        errors name `key` (e.g. `traffic.jobs[0].program`)."""
        path = Path(path)
        try:
            is_file = path.is_file()
        except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
            raise ConfigError(key, repr(str(path)), f"a readable Python file ({exc})") from None
        if not is_file:
            raise ConfigError(key, str(path), "a readable Python file (there is no such file)")
        name = f"exanet_user_program_{path.stem}"
        loader = importlib.machinery.SourceFileLoader(name, str(path))
        module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
        try:
            loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except OSError as exc:
            raise ConfigError(key, str(path), f"a readable Python file ({exc})") from None
        except BaseException as exc:  # a syntax error, a failing import, an exit: not exanet's
            raise ConfigError(
                key, str(path), f"a Python file that loads ({_failure(exc)})"
            ) from None
        program = getattr(module, "program", None)
        if not inspect.isgeneratorfunction(program):
            raise ConfigError(
                key,
                str(path),
                "a Python file defining a generator function `def program(rank, size, **params)`",
            )
        return _generate(program, ranks, params or {}, key)

    def sorted(self) -> pd.DataFrame:
        """The operations ordered by (rank, seq), with a fresh index."""
        return self.ops.sort_values(["rank", "seq"], kind="stable", ignore_index=True)

    def to_core(self) -> dict[str, Any]:
        """The program as the core receives it: column lists in (rank, seq) order, no seq,
        compute durations in integer picoseconds."""
        ops = self.sorted()
        columns = {name: ops[name].tolist() for name in ("rank", "op", "peer", "bytes", "tag")}
        columns["compute_ps"] = (ops["compute_ns"] * 1000).round().astype("int64").tolist()
        for name in ("communicator", "request", "algorithm"):
            columns[name] = ops[name].tolist()
        return {"ranks": self.ranks, "ops": columns}

    def validate(self, key: str = "program") -> Program:
        """Check the program; raise ConfigError under `key` naming the first bad row."""
        check_operation_count(len(self.ops), key, f"{len(self.ops)} rows")
        _validate(self.sorted(), self.ranks, key)
        return self


def check_operation_count(count: int, key: str, where: str) -> None:
    """Raise ConfigError under `key` if `count` operations are more than a job may have;
    `where` says what holds them (a file, ranks)."""
    if count > MAX_OPERATIONS_PER_JOB:
        raise _too_many_operations(key, where)


def _too_many_operations(key: str, where: str) -> ConfigError:
    return ConfigError(
        key,
        f"{where}: more than {MAX_OPERATIONS_PER_JOB:,} operations",
        f"at most {MAX_OPERATIONS_PER_JOB:,} operations in a job "
        "(exanet.program.MAX_OPERATIONS_PER_JOB)",
    )


def _ranks(ranks: Any, key: str) -> int:
    if (
        isinstance(ranks, bool)
        or not isinstance(ranks, (int, np.integer))
        or not 1 <= ranks <= MAX_RANKS
    ):
        raise ConfigError(key, repr(ranks), f"a number of ranks in 1..{MAX_RANKS}")
    return int(ranks)


def _generate(fn: Callable[..., Iterator[Op]], ranks: int, params: dict, key: str) -> Program:
    """The program of the generator function `fn` on `ranks` ranks; errors name `key`."""
    size = _ranks(ranks, key)
    if size > MAX_OPERATIONS_PER_JOB:  # the generator runs once per rank, even an idle one
        raise ConfigError(
            key,
            f"{size} ranks",
            f"at most {MAX_OPERATIONS_PER_JOB:,} ranks for a generator program, which runs once "
            "per rank (exanet.program.MAX_OPERATIONS_PER_JOB)",
        )
    ops_by_rank = []
    remaining = MAX_OPERATIONS_PER_JOB
    for rank in range(size):
        ops = _run_rank(fn, rank, size, params, key, remaining)
        remaining -= len(ops)
        ops_by_rank.append(ops)
    return Program.from_ops(ops_by_rank, size, key=key)


def _run_rank(
    fn: Callable[..., Iterator[Op]], rank: int, size: int, params: dict, key: str, most: int
) -> list[Op]:
    """The operations `fn` yields on `rank`, at most `most` of them. The user's code runs
    isolated: whatever it raises, exits included, becomes a ConfigError; Ctrl-C stays Ctrl-C."""
    name = getattr(fn, "__name__", repr(fn))
    try:
        generator = fn(rank, size, **params)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # e.g. TypeError: a parameter the function does not take
        raise ConfigError(
            key,
            f"{name}(rank={rank}, size={size}, **{reprlib.repr(params)}): {_failure(exc)}",
            "a generator function taking (rank, size) and the job's params as keyword arguments",
        ) from None
    if not inspect.isgenerator(generator):
        raise ConfigError(
            key,
            f"{name}(rank={rank}) returned {type(generator).__name__}",
            "a generator function (it yields operations: `yield send(1, '4KiB')`)",
        )
    ops: list[Op] = []
    reply = None
    requests = 0
    while True:
        try:
            op = generator.send(reply)
        except StopIteration:
            return ops
        except KeyboardInterrupt:
            raise
        except ConfigError as exc:  # an operation helper refused its arguments
            raise ConfigError(
                key, f"rank {rank} operation {len(ops)}: {exc.key} = {exc.value}", exc.expected
            ) from None
        except BaseException as exc:  # the user's code failed or exited: say where, no traceback
            raise ConfigError(
                key,
                f"rank {rank} after operation {len(ops)}: {_failure(exc)}",
                "a program whose code runs without raising or exiting",
            ) from None
        if not isinstance(op, Op):
            _close(generator)
            raise ConfigError(
                key,
                f"rank {rank} yielded {reprlib.repr(op)} as operation {len(ops)}",
                "an operation built by an exanet.program helper (compute, send, recv, ...)",
            )
        if len(ops) == most:
            _close(generator)
            raise _too_many_operations(key, f"ranks 0..{rank}")
        reply = None
        if op.op in ("isend", "irecv"):
            op = op._replace(request=requests)
            reply, requests = requests, requests + 1
        ops.append(op)


def _failure(exc: BaseException) -> str:
    """An exception of the user's code as "Type: message", even one whose message fails."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message cannot be shown: str() fails)"
    return f"{type(exc).__name__}: {message}"


def _close(generator: Generator) -> None:
    """Stop a generator exanet gives up on; an error of its cleanup code would only hide the
    reason exanet gave up."""
    try:
        generator.close()
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass


def _normalize(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """The trace columns of `frame` in order and with their dtypes; ConfigError names a bad one."""
    missing = [name for name in COLUMNS if name not in frame.columns]
    unknown = [str(name) for name in frame.columns if name not in COLUMNS]
    if missing or unknown:
        found = ", ".join(map(str, frame.columns)) or "none"
        raise ConfigError(
            key,
            f"columns {found}",
            f"exactly the trace columns {', '.join(COLUMNS)}"
            + (f" (missing: {', '.join(missing)})" if missing else "")
            + (f" (unknown: {', '.join(unknown)})" if unknown else ""),
        )
    return pd.DataFrame(
        {name: _coerce(frame[name], name, dtype, key) for name, dtype in COLUMNS.items()}
    )


_MAX_NAME_CHARS = 32  # the string columns hold names: "allreduce", "recursive_doubling"
# inferred kinds (pandas.api.types.infer_dtype) whose values may be numbers
_NUMERIC_KINDS = ("integer", "floating", "mixed-integer-float", "decimal", "string", "mixed")


def _coerce(column: pd.Series, name: str, dtype: str, key: str) -> pd.Series:
    values = column.reset_index(drop=True)
    if isinstance(values.dtype, pd.CategoricalDtype):  # a Parquet dictionary column
        values = values.astype(object)
    kind = pd.api.types.infer_dtype(values, skipna=False)
    if dtype == "str":
        missing = values.isna()
        if kind not in ("string", "empty") or missing.any():
            bad = next((i for i, v in enumerate(values) if missing[i] or not isinstance(v, str)), 0)
            raise _column_error(key, name, bad, values[bad], "a string")
        # before the copy: a dictionary column may repeat one huge string millions of times
        too_long = values.str.len() > _MAX_NAME_CHARS
        if too_long.any():
            bad = int(np.argmax(too_long.to_numpy()))
            expected = f"a name (an op or an algorithm) of at most {_MAX_NAME_CHARS} characters"
            raise _column_error(key, name, bad, values[bad], expected)
        return values.astype("str")
    if kind == "empty":
        return values.astype(dtype)
    if kind not in _NUMERIC_KINDS:
        raise _column_error(key, name, 0, values[0], f"numbers (found {kind} values)")
    numbers = pd.to_numeric(values, errors="coerce")
    if dtype == "float64":
        bad_mask = ~np.isfinite(numbers.astype("float64"))
        expected = "a finite number"
    else:
        info = np.iinfo(dtype)
        # bounds as Python ints: exact against integer and float columns alike
        bad_mask = ~(np.isfinite(numbers.astype("float64")) & (numbers % 1 == 0)) | ~(
            (numbers >= int(info.min)) & (numbers < int(info.max) + 1)
        )
        expected = f"an integer that fits {dtype}"
    if bad_mask.any():
        bad = int(np.argmax(bad_mask.to_numpy()))
        raise _column_error(key, name, bad, values[bad], expected)
    return numbers.astype(dtype)


def _column_error(key: str, name: str, row: int, value: Any, expected: str) -> ConfigError:
    value = value.item() if isinstance(value, np.generic) else value
    return ConfigError(key, f"column {name} row {row}: {reprlib.repr(value)}", expected)


def _describe(row: Any) -> str:
    text = f"rank {row.rank} seq {row.seq} {row.op}"
    request = f", request {row.request}" if row.op in ("isend", "irecv") else ""
    if row.op in POINT_TO_POINT:
        return f"{text} (peer {row.peer}, tag {row.tag}, {row.bytes} B{request})"
    return f"{text} (request {row.request})" if row.op == "wait" else text


def _first(ops: pd.DataFrame, mask: pd.Series | np.ndarray, key: str, expected: str) -> None:
    """Raise for the first row of `ops` (sorted by rank, seq) where `mask` holds."""
    mask = np.asarray(mask, dtype=bool)
    if mask.any():
        row = next(ops[mask].head(1).itertuples(index=False))
        raise ConfigError(key, _describe(row), expected)


def _validate(ops: pd.DataFrame, ranks: int, key: str) -> None:
    op, rank, peer = ops["op"], ops["rank"], ops["peer"]
    last = ranks - 1
    _first(ops, ~op.isin(OPS), key, f"an op among {', '.join(OPS)}")
    _first(ops, (rank < 0) | (rank > last), key, f"a rank in 0..{last} (the job has {ranks})")
    _first(ops, ops.duplicated(["rank", "seq"]), key, "a seq not used by another row of the rank")
    _first(ops, ops["bytes"] < 0, key, "a size (bytes) >= 0")
    _first(ops, ops["bytes"] > MAX_MESSAGE_BYTES, key, _MESSAGE_BYTES_EXPECTED)
    _first(ops, ops["compute_ns"] < 0, key, "a compute duration (compute_ns) >= 0")
    compute_so_far_ns = ops.groupby("rank")["compute_ns"].cumsum()
    _first(ops, compute_so_far_ns > MAX_JOB_TIME_PS // 1000, key, _COMPUTE_EXPECTED)
    in_job = (peer >= 0) & (peer <= last)
    _first(ops, op.isin(_SENDS) & ~in_job, key, f"a destination rank (peer) in 0..{last}")
    _first(
        ops, op.isin(_RECVS) & ~(in_job | (peer == -1)), key, f"a source (peer) in 0..{last} or -1"
    )
    _first(ops, op.isin(_SENDS) & (ops["tag"] < 0), key, "a send tag >= 0")
    _first(ops, op.isin(_RECVS) & (ops["tag"] < -1), key, "a receive tag >= 0 or -1 (any tag)")
    _first(ops, (op == "comm") & (ops["communicator"] < 1), key, "a communicator id >= 1")
    _first(ops, ops["communicator"] < 0, key, "a communicator >= 0 (0: every rank)")
    for name in ops.loc[ops["algorithm"] != "", "op"].unique():
        valid = ALGORITHMS.get(name, ())
        expected = (
            f'an algorithm for {name}: one of {", ".join(valid)}, or "" for the default'
            if valid
            else f'no algorithm ("") for {name}'
        )
        _first(ops, (op == name) & ~ops["algorithm"].isin(("", *valid)), key, expected)
    _validate_requests(ops[op.isin(("isend", "irecv", "wait", "waitall"))], key)
    _validate_communicators(ops, ranks, key)
    _validate_matching(ops[op.isin(POINT_TO_POINT)], key)


def _validate_requests(ops: pd.DataFrame, key: str) -> None:
    """Each request id is created once while outstanding and waited at most once."""
    outstanding_by_rank: dict[int, set[int]] = defaultdict(set)
    for row in ops.itertuples(index=False):
        outstanding, request = outstanding_by_rank[row.rank], row.request
        if row.op == "waitall":
            outstanding.clear()
        elif row.op == "wait":
            if request not in outstanding:
                raise ConfigError(
                    key,
                    _describe(row),
                    f"a request created by an earlier isend/irecv of rank {row.rank} and not "
                    "already waited for",
                )
            outstanding.remove(request)
        elif request < 0 or request in outstanding:
            raise ConfigError(
                key, _describe(row), "a request id >= 0 not held by an outstanding request"
            )
        else:
            outstanding.add(request)


def _validate_communicators(ops: pd.DataFrame, ranks: int, key: str) -> None:
    """Collectives run on communicators their rank declared, in the same order on every member,
    with a root inside the communicator."""
    # every rank as a range, not a set: a job may declare billions of ranks
    members: dict[int, range | set[int]] = {0: range(ranks)}
    for k, group in ops[ops["op"] == "comm"].groupby("communicator"):
        members[int(k)] = set(group["rank"].tolist())
    collectives = ops[ops["op"].isin(COLLECTIVES)]
    pairs = zip(collectives["rank"], collectives["communicator"], strict=True)
    undeclared = [r not in members.get(k, ()) for r, k in pairs]
    _first(collectives, undeclared, key, "a communicator this rank declared with a comm row")
    size = collectives["communicator"].map(lambda k: len(members[k]))
    root = collectives["peer"]
    bad_root = collectives["op"].isin(_ROOTED) & ((root < 0) | (root >= size))
    _first(collectives, bad_root, key, "a root (peer) in 0..size-1: a rank of the communicator")
    for k, member_ranks in members.items():
        on_k = collectives[collectives["communicator"] == k]
        sequences = {r: names.tolist() for r, names in on_k.groupby("rank")["op"]}
        in_order = member_ranks if isinstance(member_ranks, range) else sorted(member_ranks)
        first = in_order[0]
        reference = sequences.get(first, [])
        # the members without collectives on k have the same (empty) sequence: the first of
        # them stands for all
        idle = next((r for r in in_order if r not in sequences), None)
        for r in sorted(sequences.keys() | ({idle} if idle is not None else set())):
            names = sequences.get(r, [])
            if names == reference:
                continue
            pairs = enumerate(zip_longest(names, reference))
            i = next(i for i, (name, wanted) in pairs if name != wanted)
            rows = on_k[on_k["rank"] == r]
            where = (
                _describe(next(rows.iloc[[i]].itertuples(index=False)))
                if i < len(names)
                else f"rank {r} ends after {len(names)} collectives"
            )
            wanted = (
                f"collective {i} of rank {first} is {reference[i]}"
                if i < len(reference)
                else f"rank {first} has only {len(reference)} collectives"
            )
            raise ConfigError(
                key,
                f"{where} on communicator {k}",
                f"the same collectives in the same order on every member: {wanted}",
            )


def _validate_matching(p2p: pd.DataFrame, key: str) -> None:
    """Per (communicator, source, destination, tag), explicit sends and receives come in equal
    numbers.

    Destinations that post a wildcard receive (any source or any tag) are not checked.
    """
    is_send = p2p["op"].isin(_SENDS).to_numpy()
    source = np.where(is_send, p2p["rank"], p2p["peer"])
    destination = np.where(is_send, p2p["peer"], p2p["rank"])
    wildcard = ~is_send & ((p2p["peer"] == -1) | (p2p["tag"] == -1)).to_numpy()
    checked = ~np.isin(destination, destination[wildcard])
    table = pd.DataFrame(
        {
            "communicator": p2p["communicator"].to_numpy(),
            "source": source,
            "destination": destination,
            "tag": p2p["tag"].to_numpy(),
        }
    )[checked]
    rows = p2p[checked]
    sends = is_send[checked]
    keys = ["communicator", "source", "destination", "tag"]
    send_count = table[sends].groupby(keys).size().rename("sends")
    recv_count = table[~sends].groupby(keys).size().rename("recvs")
    counts = table.join(send_count, on=keys).join(recv_count, on=keys).fillna(0)
    ordinal = table.assign(is_send=sends).groupby([*keys, "is_send"]).cumcount()
    unmatched = np.where(sends, ordinal >= counts["recvs"], ordinal >= counts["sends"])
    if unmatched.any():
        i = int(np.argmax(unmatched))
        row = next(rows.iloc[[i]].itertuples(index=False))
        k, src, dst, tag = (int(table[name].iloc[i]) for name in keys)
        n_sends, n_recvs = int(counts["sends"].iloc[i]), int(counts["recvs"].iloc[i])
        wanted = "receive" if sends[i] else "send"
        on = f" on communicator {k}" if k else ""
        raise ConfigError(
            key,
            _describe(row),
            f"a matching {wanted}: rank {src} sends {n_sends} message(s) with tag {tag}{on} to "
            f"rank {dst}, which receives {n_recvs} from rank {src} with tag {tag}{on}",
        )
