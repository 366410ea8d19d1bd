"""Import and write Chakra execution traces (MLCommons Chakra; schema: et_def.proto here).

A Chakra trace is one file per rank, `<prefix>.<rank>.et` (gzip-compressed files are accepted),
each a sequence of protobuf messages, each preceded by its length as a varint: a GlobalMetadata,
then Node messages. This module decodes the protobuf wire format itself, for the fields it needs,
so it needs no protobuf package. A file holds at most MAX_FILE_BYTES, decompressed.

Mapping of nodes to operations:

- COMP_NODE: compute for duration_micros (x 1000 ns);
- COMM_SEND_NODE / COMM_RECV_NODE: isend to comm_dst / irecv from comm_src, comm_size bytes,
  tag comm_tag (default 0);
- COMM_COLL_NODE by comm_type: ALL_REDUCE -> allreduce, REDUCE -> reduce, ALL_GATHER ->
  allgather, BROADCAST -> bcast, ALL_TO_ALL -> alltoall, BARRIER -> barrier; comm_size is each
  rank's buffer (allgather: its contribution; all-to-all: its whole send buffer, so each other
  rank gets comm_size / ranks). Collectives span every rank (pg_name process groups are not
  read), with root 0 and the default algorithm. Other collective types are refused. A
  COMM_COLL_NODE without comm_type is the host-side call (Chakra's PyTorch converter writes one
  for every c10d call, e.g. `c10d::broadcast_`, beside the device-side kernel node that carries
  comm_type): no operation, as for METADATA_NODE;
- METADATA_NODE: no operation (its dependencies still order the others).

data_deps and ctrl_deps both mean "after the completion of", and each rank's graph becomes a
sequential program the way GOAL `requires` does (`exanet.traces._dag`). A ctrl_dep on a node the
file does not hold is left out: Chakra's PyTorch converter drops its root node but keeps the
control edges to it, and Chakra's own feeder follows data_deps only. A data_dep on a missing node
is an error.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exanet.errors import ConfigError
from exanet.program import (
    MAX_JOB_TIME_PS,
    MAX_MESSAGE_BYTES,
    Op,
    Program,
    check_operation_count,
)
from exanet.traces._dag import DagNode, sequentialize

MAX_FILE_BYTES = 2**30
"""Bytes of one rank's file at most, after decompression (1 GiB): a gzip-compressed file can
decompress to a thousand times its size, and is refused as soon as it passes this."""

NODE_TYPES = {
    0: "INVALID_NODE",
    1: "METADATA_NODE",
    2: "MEM_LOAD_NODE",
    3: "MEM_STORE_NODE",
    4: "COMP_NODE",
    5: "COMM_SEND_NODE",
    6: "COMM_RECV_NODE",
    7: "COMM_COLL_NODE",
}
COLLECTIVE_TYPES = {
    0: "ALL_REDUCE",
    1: "REDUCE",
    2: "ALL_GATHER",
    3: "GATHER",
    4: "SCATTER",
    5: "BROADCAST",
    6: "ALL_TO_ALL",
    7: "REDUCE_SCATTER",
    8: "REDUCE_SCATTER_BLOCK",
    9: "BARRIER",
}
_OPS_OF_COLLECTIVES = {
    "ALL_REDUCE": "allreduce",
    "REDUCE": "reduce",
    "ALL_GATHER": "allgather",
    "BROADCAST": "bcast",
    "ALL_TO_ALL": "alltoall",
    "BARRIER": "barrier",
}
_NODE_TYPE_IDS = {name: number for number, name in NODE_TYPES.items()}
_COLLECTIVE_TYPE_IDS = {
    op: number
    for number, name in COLLECTIVE_TYPES.items()
    if (op := _OPS_OF_COLLECTIVES.get(name)) is not None
}
_VERSION = "0.0.4"
_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5  # wire types
_INT32_VAL, _INT64_VAL = 7, 9  # AttributeProto fields written (as Chakra's feeder reads them)
_FILE_NAME = re.compile(r"(?P<prefix>.+)\.(?P<rank>\d+)\.et")
_GZIP_MAGIC = b"\x1f\x8b"
_MAX_TAG = 2**31 - 1  # tags are int32


@dataclass
class ChakraNode:
    """The fields of a Chakra Node message that exanet reads."""

    id: int = 0
    name: str = ""
    type: int = 0
    ctrl_deps: list[int] = field(default_factory=list)
    data_deps: list[int] = field(default_factory=list)
    duration_micros: int = 0
    attrs: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"node {self.id} ({self.name!r}, {NODE_TYPES.get(self.type, self.type)})"


# --- protobuf wire format -------------------------------------------------------------------


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    if pos < len(data) and data[pos] < 0x80:  # one byte: most varints
        return data[pos], pos + 1
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("a varint runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise ValueError("a varint is longer than 10 bytes")


def _fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of a message: an int for varints, else the raw bytes."""
    pos = 0
    while pos < len(data):
        tag, pos = _read_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == _VARINT:
            value, pos = _read_varint(data, pos)
        else:
            if wire == _LENGTH_DELIMITED:
                size, pos = _read_varint(data, pos)
            elif wire in (_FIXED64, _FIXED32):
                size = 8 if wire == _FIXED64 else 4
            else:
                raise ValueError(f"field {number} has unsupported wire type {wire}")
            if pos + size > len(data):
                raise ValueError(f"field {number} runs past the end")
            value, pos = data[pos : pos + size], pos + size
        yield number, wire, value


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


# AttributeProto scalar fields: number -> (wire type, decoder of the raw value)
_ATTRIBUTE_SCALARS: dict[int, tuple[int, Callable[[Any], Any]]] = {
    3: (_FIXED64, lambda raw: struct.unpack("<d", raw)[0]),  # double_val
    5: (_FIXED32, lambda raw: struct.unpack("<f", raw)[0]),  # float_val
    7: (_VARINT, _signed64),  # int32_val (negative values are sign-extended to 64 bits)
    9: (_VARINT, _signed64),  # int64_val
    11: (_VARINT, int),  # uint32_val
    13: (_VARINT, int),  # uint64_val
    15: (_VARINT, lambda raw: (raw >> 1) ^ -(raw & 1)),  # sint32_val (zigzag)
    17: (_VARINT, lambda raw: (raw >> 1) ^ -(raw & 1)),  # sint64_val (zigzag)
    19: (_FIXED32, lambda raw: int.from_bytes(raw, "little")),  # fixed32_val
    21: (_FIXED64, lambda raw: int.from_bytes(raw, "little")),  # fixed64_val
    23: (_FIXED32, lambda raw: int.from_bytes(raw, "little", signed=True)),  # sfixed32_val
    25: (_FIXED64, lambda raw: int.from_bytes(raw, "little", signed=True)),  # sfixed64_val
    27: (_VARINT, bool),  # bool_val
    29: (_LENGTH_DELIMITED, lambda raw: raw.decode()),  # string_val
}


def _expect_wire(number: int, wire: int, wanted: int) -> None:
    if wire != wanted:
        raise ValueError(f"field {number} has wire type {wire}, expected {wanted}")


def _decode_attribute(data: bytes) -> tuple[str, Any]:
    name, value = "", None
    for number, wire, raw in _fields(data):
        if number == 1:
            _expect_wire(number, wire, _LENGTH_DELIMITED)
            name = raw.decode()
        elif number in _ATTRIBUTE_SCALARS:
            wanted, decode = _ATTRIBUTE_SCALARS[number]
            _expect_wire(number, wire, wanted)
            value = decode(raw)
    return name, value


def _decode_node(data: bytes) -> ChakraNode:
    node = ChakraNode()
    for number, wire, raw in _fields(data):
        if number == 1:
            _expect_wire(number, wire, _VARINT)
            node.id = raw
        elif number == 3:
            _expect_wire(number, wire, _VARINT)
            node.type = raw
        elif number == 7:
            _expect_wire(number, wire, _VARINT)
            node.duration_micros = raw
        elif number == 2:
            _expect_wire(number, wire, _LENGTH_DELIMITED)
            node.name = raw.decode()
        elif number in (4, 5):
            deps = node.ctrl_deps if number == 4 else node.data_deps
            if wire == _VARINT:
                deps.append(raw)
            else:  # packed
                _expect_wire(number, wire, _LENGTH_DELIMITED)
                pos = 0
                while pos < len(raw):
                    dep, pos = _read_varint(raw, pos)
                    deps.append(dep)
        elif number == 10:
            _expect_wire(number, wire, _LENGTH_DELIMITED)
            name, value = _decode_attribute(raw)
            node.attrs[name] = value
    return node


def _messages(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(byte offset, message) of a stream of varint-length-prefixed messages."""
    pos = 0
    while pos < len(data):
        start = pos
        size, pos = _read_varint(data, pos)
        if pos + size > len(data):
            raise ValueError(f"the message at byte {start} runs past the end of the file")
        yield start, data[pos : pos + size]
        pos += size


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative integers: 64-bit two's complement, as protobuf does
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _varint_field(number: int, value: int) -> bytes:
    return _varint(number << 3 | _VARINT) + _varint(value)


def _bytes_field(number: int, data: bytes) -> bytes:
    return _varint(number << 3 | _LENGTH_DELIMITED) + _varint(len(data)) + data


# --- reading ---------------------------------------------------------------------------------


def decode_chakra(data: bytes) -> list[ChakraNode]:
    """The nodes of one rank's Chakra trace (bytes of a `.et` file); the metadata is skipped."""
    return list(_nodes(data))


def _nodes(data: bytes) -> Iterator[ChakraNode]:
    """The nodes of one rank's file, one at a time; ValueError for a malformed file."""
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data)
    for i, (offset, message) in enumerate(_messages(data)):
        if i > 0:  # message 0 is the GlobalMetadata
            try:
                yield _decode_node(message)
            except ValueError as exc:  # UnicodeDecodeError included
                raise ValueError(f"the node at byte {offset}: {exc}") from None


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


def read_chakra(prefix: str | Path, ranks: int | None = None, *, key: str = "trace") -> Program:
    """The program of the Chakra trace `<prefix>.<rank>.et` (one file per rank). Errors name
    `key` (e.g. `traffic.jobs[0].trace`) and give the file and node in their value."""
    files = chakra_files(prefix, ranks, key=key)
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
        programs.append(_rank_program(nodes, len(files), key, path))
    return Program.from_ops(programs, len(files), key=key)


def _rank_program(nodes: list[ChakraNode], ranks: int, key: str, path: Path) -> list[Op]:
    index: dict[int, int] = {}
    for i, node in enumerate(nodes):
        if node.id in index:
            raise ConfigError(key, f"{path}: {node}", "a node id used once")
        index[node.id] = i
    dag = []
    for node in nodes:
        deps = []
        present_ctrl = [dep for dep in node.ctrl_deps if dep in index]
        for dep in node.data_deps + present_ctrl:
            if dep not in index:
                raise ConfigError(
                    key, f"{path}: {node} depends on {dep}", "ids of nodes of its file"
                )
            deps.append(index[dep])
        dag.append(DagNode(node, _op(node, ranks, key, path), deps))
    return sequentialize(dag, key, str(path))


def _attr(
    node: ChakraNode, name: str, where: str, key: str, lowest: int, highest: int, default=None
) -> int:
    """Integer attribute `name` of `node`, in lowest..highest (`where`: the node's file)."""
    value = node.attrs.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"{where}: {node}", f"an integer attribute {name}")
    if not lowest <= value <= highest:
        raise ConfigError(
            key, f"{where}: {node}: {name} = {value}", f"{name} in {lowest}..{highest}"
        )
    return value


def _op(node: ChakraNode, ranks: int, key: str, path: Path) -> Op | None:
    node_type = NODE_TYPES.get(node.type)
    where = str(path)
    if node_type == "COMP_NODE":
        most = MAX_JOB_TIME_PS // 10**6
        if node.duration_micros > most:
            raise ConfigError(
                key,
                f"{where}: {node}: duration_micros = {node.duration_micros}",
                f"a compute time of at most {most} us (10^6 s)",
            )
        return Op("compute", compute_ns=node.duration_micros * 1000.0)
    if node_type in ("COMM_SEND_NODE", "COMM_RECV_NODE"):
        is_send = node_type == "COMM_SEND_NODE"
        return Op(
            "isend" if is_send else "irecv",
            peer=_attr(node, "comm_dst" if is_send else "comm_src", where, key, 0, ranks - 1),
            bytes=_attr(node, "comm_size", where, key, 0, MAX_MESSAGE_BYTES),
            tag=_attr(node, "comm_tag", where, key, 0, _MAX_TAG, default=0),
        )
    if node_type == "COMM_COLL_NODE" and "comm_type" not in node.attrs:
        return None
    if node_type == "COMM_COLL_NODE":
        comm_type = _attr(node, "comm_type", where, key, 0, max(COLLECTIVE_TYPES))
        op = _OPS_OF_COLLECTIVES.get(COLLECTIVE_TYPES[comm_type])
        if op is None:
            supported = ", ".join(_OPS_OF_COLLECTIVES)
            raise ConfigError(
                key,
                f"{where}: {node}: {COLLECTIVE_TYPES[comm_type]}",
                f"a collective among {supported}",
            )
        size = 0 if op == "barrier" else _attr(node, "comm_size", where, key, 0, MAX_MESSAGE_BYTES)
        root = 0 if op in ("bcast", "reduce") else -1
        return Op(op, peer=root, bytes=size // ranks if op == "alltoall" else size)
    if node_type == "METADATA_NODE":
        return None
    supported = "METADATA_NODE, COMP_NODE, COMM_SEND_NODE, COMM_RECV_NODE or COMM_COLL_NODE"
    raise ConfigError(key, f"{where}: {node}", f"a node type exanet simulates: {supported}")


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
        messages = [_bytes_field(1, _VERSION.encode())]  # GlobalMetadata.version
        messages += _encode_rank(rows, program.ranks, str(prefix))
        path = Path(f"{prefix}.{rank}.et")
        path.write_bytes(b"".join(_varint(len(message)) + message for message in messages))
        files.append(path)
    return files


def _encode_rank(rows: Iterator[Any], ranks: int, key: str) -> list[bytes]:
    nodes: list[bytes] = []
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
        if row.communicator != 0 or row.algorithm or row.op in ("comm", "alltoallv"):
            raise ConfigError(key, where, "no communicators, algorithms or alltoallv in Chakra")
        node_id = len(nodes)
        attrs: list[tuple[str, int, int]] = []  # name, AttributeProto field, value
        duration_micros = 0
        if row.op == "compute":
            duration_micros = round(row.compute_ns / 1000)
            if duration_micros * 1000 != row.compute_ns:
                raise ConfigError(key, where, "a compute time in whole microseconds for Chakra")
            node_type = "COMP_NODE"
        elif row.op in ("send", "isend", "recv", "irecv"):
            if row.peer < 0 or row.tag < 0:
                raise ConfigError(
                    key, where, "an explicit source and tag (Chakra has no wildcards)"
                )
            is_send = row.op in ("send", "isend")
            node_type = "COMM_SEND_NODE" if is_send else "COMM_RECV_NODE"
            attrs = [
                ("comm_dst" if is_send else "comm_src", _INT32_VAL, row.peer),
                ("comm_tag", _INT32_VAL, row.tag),
                ("comm_size", _INT64_VAL, row.bytes),
            ]
        else:
            if row.op in ("bcast", "reduce") and row.peer != 0:
                raise ConfigError(key, where, "root 0 (Chakra collectives have no root)")
            node_type = "COMM_COLL_NODE"
            size = row.bytes * ranks if row.op == "alltoall" else row.bytes
            attrs = [
                ("comm_type", _INT64_VAL, _COLLECTIVE_TYPE_IDS[row.op]),
                ("comm_size", _INT64_VAL, size),
            ]
        nodes.append(_encode_node(node_id, row.op, node_type, after, duration_micros, attrs))
        if row.op in ("isend", "irecv"):
            node_of_request[row.request] = node_id
            outstanding.append(row.request)
        elif row.op in ("send", "recv"):
            after = [*after, node_id]
        else:
            after = [node_id]
    return nodes


def _encode_node(
    node_id: int,
    name: str,
    node_type: str,
    data_deps: list[int],
    duration_micros: int,
    attrs: list[tuple[str, int, int]],
) -> bytes:
    out = _varint_field(1, node_id) + _bytes_field(2, name.encode())
    out += _varint_field(3, _NODE_TYPE_IDS[node_type])
    if data_deps:
        out += _bytes_field(5, b"".join(_varint(dep) for dep in dict.fromkeys(data_deps)))
    if duration_micros:
        out += _varint_field(7, duration_micros)
    for attr_name, number, value in attrs:
        attribute = _bytes_field(1, attr_name.encode()) + _varint_field(number, value)
        out += _bytes_field(10, attribute)
    return out
