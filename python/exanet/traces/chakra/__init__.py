"""Import and write Chakra execution traces (MLCommons Chakra; schema: et_def.proto here).

A Chakra trace is one file per rank, `<prefix>.<rank>.et` (gzip-compressed files are accepted),
each a sequence of protobuf messages, each preceded by its length as a varint: a GlobalMetadata,
then Node messages. They are read and written with the protobuf package and the classes that
protoc generated from the vendored schema (et_def_pb2.py; scripts/generate_chakra_pb2.sh). A file
holds at most MAX_FILE_BYTES, decompressed.

Mapping of nodes to operations:

- COMP_NODE: compute for duration_micros (x 1000 ns);
- COMM_SEND_NODE / COMM_RECV_NODE: isend to comm_dst / irecv from comm_src, comm_size bytes,
  tag comm_tag (default 0);
- COMM_COLL_NODE by comm_type, with comm_size read the way ASTRA-sim (the simulator Chakra
  feeds) and Chakra's PyTorch converter read it. ASTRA-sim's Workload::issue_coll_comm hands
  comm_size to Sys::generate_all_reduce / _all_gather / _reduce_scatter / _all_to_all, whose
  phases (Ring, HalvingDoubling, ...) take it as the rank's input: all-gather's result is
  comm_size x n, reduce-scatter's comm_size / n, all-to-all's messages comm_size / n. The
  converter sets comm_size to the bytes of the kernel's input tensors. So:
  ALL_REDUCE -> allreduce (the buffer); ALL_GATHER -> allgather (each rank's contribution);
  REDUCE_SCATTER and REDUCE_SCATTER_BLOCK -> reduce_scatter (each rank's whole input buffer, of
  which it ends with 1/n); ALL_TO_ALL -> alltoall of comm_size / n to each rank (the rank's whole
  send buffer); BARRIER -> barrier (comm_size not read). ASTRA-sim simulates no REDUCE, GATHER
  or SCATTER (it refuses them) and replays BROADCAST for its recorded duration; for these
  comm_size is the rank's input as well: REDUCE -> reduce and BROADCAST -> bcast of the buffer,
  GATHER -> gather of each rank's contribution, SCATTER -> scatter of the block each rank
  receives. Chakra has no root (no field, no attribute; neither ASTRA-sim nor the converter
  writes one): rooted collectives use root 0 of their communicator. A collective spans every
  rank of the job, as in ASTRA-sim without a communicator-group file; with one (`comm_groups`:
  ASTRA-sim's --comm-group-configuration JSON, {"<group id>": [rank, ...], ...}), a collective
  whose pg_name attribute names a group runs over that group's ranks, as ASTRA-sim's
  Workload::extract_comm_group picks it. The default algorithm runs. A COMM_COLL_NODE
  without comm_type is the host-side call (Chakra's PyTorch converter writes one for every c10d
  call, e.g. `c10d::broadcast_`, beside the device-side kernel node that carries comm_type): no
  operation, as for METADATA_NODE;
- METADATA_NODE: no operation (its dependencies still order the others).

data_deps and ctrl_deps both mean "after the completion of", and each rank's graph becomes a
sequential program the way GOAL `requires` does (`exanet.traces._dag`). A ctrl_dep on a node the
file does not hold is left out: Chakra's PyTorch converter drops its root node but keeps the
control edges to it, and Chakra's own feeder follows data_deps only. A data_dep on a missing node
is an error.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf import proto
from google.protobuf.message import DecodeError

from exanet.errors import ConfigError
from exanet.program import (
    COLLECTIVES,
    MAX_JOB_TIME_PS,
    MAX_MESSAGE_BYTES,
    Op,
    Program,
    check_operation_count,
)
from exanet.traces._dag import DagNode, sequentialize
from exanet.traces.chakra.et_def_pb2 import AttributeProto, GlobalMetadata, Node, NodeType
from exanet.traces.chakra.et_def_pb2 import CollectiveCommType as CommType

MAX_FILE_BYTES = 2**30
"""Bytes of one rank's file at most, after decompression (1 GiB): a gzip-compressed file can
decompress to a thousand times its size, and is refused as soon as it passes this."""

NODE_TYPES = {number: name for name, number in NodeType.items()}
COLLECTIVE_TYPES = {number: name for name, number in CommType.items()}
_OPS_OF_COLLECTIVES = {
    "ALL_REDUCE": "allreduce",
    "REDUCE": "reduce",
    "ALL_GATHER": "allgather",
    "GATHER": "gather",
    "SCATTER": "scatter",
    "BROADCAST": "bcast",
    "ALL_TO_ALL": "alltoall",
    "REDUCE_SCATTER": "reduce_scatter",
    "REDUCE_SCATTER_BLOCK": "reduce_scatter",
    "BARRIER": "barrier",
}
"""The exanet operation of each Chakra collective type (every type of the schema)."""
_ROOTED = ("bcast", "reduce", "gather", "scatter")  # root 0: Chakra collectives have no root
_COLLECTIVE_TYPE_IDS = {  # op -> the type write_chakra writes: the first that reads as it
    op: CommType.Value(name) for name, op in reversed(_OPS_OF_COLLECTIVES.items())
}
_NOT_IN_CHAKRA = tuple(op for op in ("comm", *COLLECTIVES) if op not in _COLLECTIVE_TYPE_IDS)
"""Operations write_chakra refuses (comm, alltoallv, scan, exscan): Chakra has no such node."""
_VERSION = "0.0.4"
_FILE_NAME = re.compile(r"(?P<prefix>.+)\.(?P<rank>\d+)\.et")
_GZIP_MAGIC = b"\x1f\x8b"
_MAX_TAG = 2**31 - 1  # tags are int32


def _describe(node: Node) -> str:
    """A node as errors name it."""
    return f"node {node.id} ({node.name!r}, {NODE_TYPES.get(node.type, node.type)})"


def _attributes(node: Node) -> dict[str, Any]:
    """The attributes of a node by name: a scalar, or a list for the *_list kinds."""
    values: dict[str, Any] = {}
    for attr in node.attr:
        kind = attr.WhichOneof("value")
        value = None if kind is None else getattr(attr, kind)
        values[attr.name] = list(value.values) if kind and kind.endswith("_list") else value
    return values


# --- reading ---------------------------------------------------------------------------------


def decode_chakra(data: bytes) -> list[Node]:
    """The nodes of one rank's Chakra trace (bytes of a `.et` file, gzip-compressed or not), as
    protobuf `Node` messages of the vendored schema; the GlobalMetadata is checked and skipped."""
    return list(_nodes(data))


def _nodes(data: bytes) -> Iterator[Node]:
    """The nodes of one rank's file, one at a time; ValueError for a malformed file."""
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data)
    stream = io.BytesIO(data)
    for index in itertools.count():
        offset = stream.tell()
        kind = Node if index else GlobalMetadata
        try:
            message = proto.parse_length_prefixed(kind, stream)
        except (DecodeError, ValueError) as exc:  # ValueError: a length or message cut short
            cut = " cut short by the end of the file, or" if stream.tell() >= len(data) else ""
            raise ValueError(
                f"message {index} at byte {offset} ({kind.DESCRIPTOR.full_name}) is{cut} not "
                f"valid protobuf: {exc}"
            ) from None
        if message is None:  # the end of the file
            return
        if index:
            yield message


def _gunzip(data: bytes) -> bytes:
    """The decompressed bytes of the gzip members in `data`, refused past MAX_FILE_BYTES."""
    out = bytearray()
    while data:
        if data[:2] != _GZIP_MAGIC:
            raise ValueError(f"bytes after the gzip data that are not gzip data: {data[:8]!r}")
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # 16: a gzip header and trailer
        try:
            out += inflater.decompress(data, MAX_FILE_BYTES + 1 - len(out))
        except zlib.error as exc:
            raise ValueError(f"damaged gzip data ({exc})") from None
        if len(out) > MAX_FILE_BYTES:
            raise ValueError(
                f"it decompresses to more than {MAX_FILE_BYTES} bytes "
                "(exanet.traces.chakra.MAX_FILE_BYTES)"
            )
        if not inflater.eof:
            raise ValueError("the gzip data ends early")
        data = inflater.unused_data
    return bytes(out)


def chakra_files(prefix: str | Path, ranks: int | None = None, *, key: str = "trace") -> list[Path]:
    """The files `<prefix>.0.et`, `<prefix>.1.et`, ... of a trace (`ranks` of them if given).

    `prefix` may also name one of the files, e.g. `trace.0.et`.
    """
    text = str(prefix)
    if match := _FILE_NAME.fullmatch(text):
        text = match["prefix"]
    files = []
    while ranks is None or len(files) < ranks:
        path = Path(f"{text}.{len(files)}.et")
        try:
            is_file = path.is_file()
        except (OSError, ValueError) as exc:  # a name too long, a NUL character
            raise ConfigError(key, repr(text), f"a readable Chakra trace ({exc})") from None
        if not is_file:
            if ranks is not None or not files:
                expected = f"{ranks} files" if ranks is not None else "Chakra trace files"
                raise ConfigError(
                    key, text, f"{expected} {text}.0.et, {text}.1.et, ... ({path} is missing)"
                )
            break
        files.append(path)
    return files


def read_chakra(
    prefix: str | Path,
    ranks: int | None = None,
    *,
    key: str = "trace",
    comm_groups: str | Path | None = None,
    comm_groups_key: str = "comm_groups",
) -> Program:
    """The program of the Chakra trace `<prefix>.<rank>.et` (one file per rank), its
    collectives over the communicator groups of the ASTRA-sim file `comm_groups` named by their
    pg_name (see the module doc). Errors name `key` (e.g. `traffic.jobs[0].trace`), or
    `comm_groups_key` for the groups file, and give the file and node in their value."""
    files = chakra_files(prefix, ranks, key=key)
    groups = (
        {} if comm_groups is None else _comm_groups(Path(comm_groups), len(files), comm_groups_key)
    )
    programs = []
    nodes_so_far = 0
    for path in files:
        nodes = []
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(
                    f"it has more than {MAX_FILE_BYTES} bytes (exanet.traces.chakra.MAX_FILE_BYTES)"
                )
            for node in _nodes(path.read_bytes()):
                nodes.append(node)
                check_operation_count(nodes_so_far + len(nodes), key, f"{path} (nodes)")
        except (OSError, ValueError, EOFError) as exc:
            raise ConfigError(
                key, f"{path}: unreadable", f"a Chakra execution trace ({exc})"
            ) from None
        nodes_so_far += len(nodes)
        rank = len(programs)
        declared = [Op("comm", communicator=k) for k, members in groups.values() if rank in members]
        programs.append(declared + _rank_program(nodes, len(files), key, path, groups, rank))
    return Program.from_ops(programs, len(files), key=key)


def _comm_groups(path: Path, ranks: int, key: str) -> dict[str, tuple[int, frozenset[int]]]:
    """ASTRA-sim's communicator groups: group id (as pg_name writes it) -> (exanet
    communicator, 1, 2, ... in file order; its ranks)."""
    expected = (
        'an ASTRA-sim communicator-group file: a JSON object {"<group id>": [rank, ...], ...}, '
        f"each group distinct ranks in 0..{ranks - 1}"
    )
    try:
        groups = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(key, str(path), f"{expected} ({exc})") from None
    if not isinstance(groups, dict):
        raise ConfigError(key, str(path), expected)
    result = {}
    for k, (name, members) in enumerate(groups.items(), start=1):
        valid = (
            isinstance(members, list)
            and members
            and all(type(m) is int and 0 <= m < ranks for m in members)
            and len(set(members)) == len(members)
        )
        if not valid or not name.strip().lstrip("-").isdigit():
            raise ConfigError(key, f"{path}: group {name!r} = {members!r}", expected)
        result[str(int(name))] = (k, frozenset(members))
    return result


def _rank_program(
    nodes: list[Node],
    ranks: int,
    key: str,
    path: Path,
    groups: dict[str, tuple[int, frozenset[int]]],
    rank: int,
) -> list[Op]:
    index: dict[int, int] = {}
    for i, node in enumerate(nodes):
        if node.id in index:
            raise ConfigError(key, f"{path}: {_describe(node)}", "a node id used once")
        index[node.id] = i
    dag = []
    for node in nodes:
        deps = []
        present_ctrl = [dep for dep in node.ctrl_deps if dep in index]
        for dep in [*node.data_deps, *present_ctrl]:
            if dep not in index:
                raise ConfigError(
                    key, f"{path}: {_describe(node)} depends on {dep}", "ids of nodes of its file"
                )
            deps.append(index[dep])
        dag.append(DagNode(_describe(node), _op(node, ranks, key, path, groups, rank), deps))
    return sequentialize(dag, key, str(path))


def _attr(
    node: Node,
    attrs: dict[str, Any],
    name: str,
    where: str,
    key: str,
    lowest: int,
    highest: int,
    default=None,
) -> int:
    """Integer attribute `name` of `node` (`attrs`: its attributes), in lowest..highest
    (`where`: the node's file)."""
    value = attrs.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"{where}: {_describe(node)}", f"an integer attribute {name}")
    if not lowest <= value <= highest:
        raise ConfigError(
            key, f"{where}: {_describe(node)}: {name} = {value}", f"{name} in {lowest}..{highest}"
        )
    return value


def _op(
    node: Node,
    ranks: int,
    key: str,
    path: Path,
    groups: dict[str, tuple[int, frozenset[int]]],
    rank: int,
) -> Op | None:
    node_type = NODE_TYPES.get(node.type)
    where = str(path)
    attrs = _attributes(node)
    if node_type == "COMP_NODE":
        most = MAX_JOB_TIME_PS // 10**6
        if node.duration_micros > most:
            raise ConfigError(
                key,
                f"{where}: {_describe(node)}: duration_micros = {node.duration_micros}",
                f"a compute time of at most {most} us (10^6 s)",
            )
        return Op("compute", compute_ns=node.duration_micros * 1000.0)
    if node_type in ("COMM_SEND_NODE", "COMM_RECV_NODE"):
        is_send = node_type == "COMM_SEND_NODE"
        peer = "comm_dst" if is_send else "comm_src"
        return Op(
            "isend" if is_send else "irecv",
            peer=_attr(node, attrs, peer, where, key, 0, ranks - 1),
            bytes=_attr(node, attrs, "comm_size", where, key, 0, MAX_MESSAGE_BYTES),
            tag=_attr(node, attrs, "comm_tag", where, key, 0, _MAX_TAG, default=0),
        )
    if node_type == "COMM_COLL_NODE" and "comm_type" not in attrs:
        return None
    if node_type == "COMM_COLL_NODE":
        comm_type = _attr(node, attrs, "comm_type", where, key, 0, max(COLLECTIVE_TYPES))
        op = _OPS_OF_COLLECTIVES[COLLECTIVE_TYPES[comm_type]]
        size = (
            0
            if op == "barrier"
            else _attr(node, attrs, "comm_size", where, key, 0, MAX_MESSAGE_BYTES)
        )
        root = 0 if op in _ROOTED else -1
        communicator, size_of_group = 0, ranks
        if groups and "pg_name" in attrs:
            name = str(attrs["pg_name"]).strip()
            group = groups.get(str(int(name)) if name.lstrip("-").isdigit() else name)
            if group is None or rank not in group[1]:
                raise ConfigError(
                    key,
                    f"{where}: {_describe(node)}: pg_name = {attrs['pg_name']!r}",
                    f"a communicator group of the groups file holding rank {rank}: "
                    + ", ".join(g for g, (_, members) in groups.items() if rank in members),
                )
            communicator, size_of_group = group[0], len(group[1])
        return Op(
            op,
            peer=root,
            bytes=size // size_of_group if op == "alltoall" else size,
            communicator=communicator,
        )
    if node_type == "METADATA_NODE":
        return None
    supported = "METADATA_NODE, COMP_NODE, COMM_SEND_NODE, COMM_RECV_NODE or COMM_COLL_NODE"
    raise ConfigError(
        key, f"{where}: {_describe(node)}", f"a node type exanet simulates: {supported}"
    )


# --- writing --------------------------------------------------------------------------------


def write_chakra(program: Program, prefix: str | Path) -> list[Path]:
    """Write `program` as the Chakra trace `<prefix>.<rank>.et`; returns the files.

    Each operation becomes a node that depends on the last blocking operation before it and on
    the requests waited for since; blocking send/recv become send/recv nodes that later nodes
    depend on, and waits at the end of a rank are left out (read_chakra ends each rank with a
    waitall). Chakra has no communicators, algorithms, wildcards, roots other than 0, alltoallv
    or sub-microsecond compute times: such operations raise ConfigError.
    """
    ops = program.validate(str(prefix)).sorted()
    files = []
    for rank in range(program.ranks):
        rows = ops[ops["rank"] == rank].itertuples(index=False)
        nodes = _encode_rank(rows, program.ranks, str(prefix))
        path = Path(f"{prefix}.{rank}.et")
        with path.open("wb") as out:
            proto.serialize_length_prefixed(GlobalMetadata(version=_VERSION), out)
            for node in nodes:
                proto.serialize_length_prefixed(node, out)
        files.append(path)
    return files


def _encode_rank(rows: Iterator[Any], ranks: int, key: str) -> list[Node]:
    nodes: list[Node] = []
    after: list[int] = []  # the node ids the next node depends on
    node_of_request: dict[int, int] = {}
    outstanding: list[int] = []
    for row in rows:
        where = f"rank {row.rank} seq {row.seq} {row.op}"
        if row.op == "wait":
            after.append(node_of_request[row.request])
            outstanding.remove(row.request)
            continue
        if row.op == "waitall":
            after += [node_of_request[request] for request in outstanding]
            outstanding.clear()
            continue
        if row.communicator != 0 or row.algorithm or row.op in _NOT_IN_CHAKRA:
            unwritable = ", ".join(_NOT_IN_CHAKRA)
            raise ConfigError(key, where, f"no communicators, algorithms, {unwritable} in Chakra")
        node = Node(id=len(nodes), name=row.op, data_deps=list(dict.fromkeys(after)))
        if row.op == "compute":
            node.duration_micros = round(row.compute_ns / 1000)
            if node.duration_micros * 1000 != row.compute_ns:
                raise ConfigError(key, where, "a compute time in whole microseconds for Chakra")
            node.type = NodeType.COMP_NODE
        elif row.op in ("send", "isend", "recv", "irecv"):
            if row.peer < 0 or row.tag < 0:
                raise ConfigError(
                    key, where, "an explicit source and tag (Chakra has no wildcards)"
                )
            is_send = row.op in ("send", "isend")
            node.type = NodeType.COMM_SEND_NODE if is_send else NodeType.COMM_RECV_NODE
            node.attr.extend(
                [
                    AttributeProto(name="comm_dst" if is_send else "comm_src", int32_val=row.peer),
                    AttributeProto(name="comm_tag", int32_val=row.tag),
                    AttributeProto(name="comm_size", int64_val=row.bytes),
                ]
            )
        else:
            if row.op in _ROOTED and row.peer != 0:
                raise ConfigError(key, where, "root 0 (Chakra collectives have no root)")
            node.type = NodeType.COMM_COLL_NODE
            size = row.bytes * ranks if row.op == "alltoall" else row.bytes
            node.attr.extend(
                [
                    AttributeProto(name="comm_type", int64_val=_COLLECTIVE_TYPE_IDS[row.op]),
                    AttributeProto(name="comm_size", int64_val=size),
                ]
            )
        nodes.append(node)
        if row.op in ("isend", "irecv"):
            node_of_request[row.request] = node.id
            outstanding.append(row.request)
        elif row.op in ("send", "recv"):
            after = [*after, node.id]
        else:
            after = [node.id]
    return nodes
