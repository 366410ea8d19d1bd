import gzip
import io
import json
import re
import struct
import time
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from google.protobuf import proto

import exanet
import exanet.traces.chakra
import exanet.traces.exanet_format
from exanet.errors import ConfigError
from exanet.program import (
    Program,
    allgather,
    allreduce,
    alltoall,
    barrier,
    bcast,
    comm,
    compute,
    exscan,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    scan,
    scatter,
    send,
    wait,
    waitall,
)
from exanet.traces import load_trace, read_goal, read_trace, write_chakra, write_trace
from exanet.traces.chakra import decode_chakra, read_chakra
from exanet.traces.chakra.et_def_pb2 import (
    COMM_COLL_NODE,
    COMP_NODE,
    AttributeProto,
    CollectiveCommType,
    GlobalMetadata,
    IOInfo,
    Node,
)
from exanet.traces.samples import pingpong, ring_allreduce, train_step

SAMPLES = Path(exanet.__file__).parent / "data" / "traces"


def everything(rank, size):
    """Every op and column: communicators, algorithms, wildcards, fractional compute times."""
    yield comm(1) if rank < 2 else comm(2)
    yield compute(0.125)
    if rank == 0:
        yield recv()
        r = yield irecv(2, "1KiB", tag=9)
        yield wait(r)
    elif rank in (1, 2):
        yield send(0, 64, tag=rank)
        if rank == 2:
            yield isend(0, "1KiB", tag=9)
            yield waitall()
    yield bcast("4KiB", root=1, comm=1 if rank < 2 else 2, algorithm="binomial")
    yield allgather(100, algorithm="recursive_doubling")
    yield barrier(algorithm="dissemination")


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_exanet_format_round_trip(tmp_path, suffix):
    program = Program.from_generator(everything, 4).validate()
    path = tmp_path / f"trace{suffix}"
    write_trace(program, path)
    back = read_trace(path)
    assert back.ranks == 4
    pd.testing.assert_frame_equal(back.sorted(), program.sorted())
    assert back.validate().to_core() == program.to_core()


def test_file_layouts_and_row_order(tmp_path):
    program = Program.from_generator(pingpong, 3)
    write_trace(program, tmp_path / "p.parquet")
    assert pq.read_schema(tmp_path / "p.parquet").metadata[b"exanet.ranks"] == b"3"
    write_trace(program, tmp_path / "p.csv")
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "# exanet-trace ranks=3"
    assert lines[1] == "rank,seq,op,peer,bytes,tag,compute_ns,communicator,request,algorithm"
    assert lines[2] == "0,0,send,1,4096,0,0.0,0,-1,"
    # rows may come in any order
    (tmp_path / "shuffled.csv").write_text("\n".join([lines[0], lines[1], *lines[:1:-1]]) + "\n")
    shuffled = read_trace(tmp_path / "shuffled.csv")
    assert shuffled.to_core() == program.to_core()


def write_csv(
    path, header="# exanet-trace ranks=2", columns=None, rows=("0,0,compute,-1,0,0,5.0,0,-1,",)
):
    columns = columns or "rank,seq,op,peer,bytes,tag,compute_ns,communicator,request,algorithm"
    path.write_text("\n".join([header, columns, *rows]) + "\n")
    return path


@pytest.mark.parametrize(
    ("kwargs", "value", "expected"),
    [
        ({"header": "rank,seq"}, "first line 'rank,seq'", "# exanet-trace ranks=N"),
        (
            {
                "columns": "rank,seq,op,peer,bytes,compute_ns,communicator,request,algorithm",
                "rows": ["0,0,compute,-1,0,5.0,0,-1,"],
            },
            "columns rank, seq, op",
            "(missing: tag)",
        ),
        ({"rows": ["0,0,compute,-1,0,0,five,0,-1,"]}, "column compute_ns row 0: 'five'", "number"),
        ({"rows": ["0,0,send,1,8,0,0,0,-1,", "1,0,recv,0,x,0,0,0,-1,"]}, "bytes row 1", "int"),
        ({"rows": ["0,0,fetch,-1,0,0,0,0,-1,"]}, "column op row 0: 'fetch'", "an op among"),
        # numbers beyond what the core takes: these were ValueErrors or hangs
        ({"header": "# exanet-trace ranks=" + "9" * 500}, "ranks of 500 digits", "1..2147483647"),
        ({"header": "# exanet-trace ranks=" + "9" * 5000}, "more than 1024 characters", "ranks=N"),
        ({"header": "# exanet-trace ranks=2147483648"}, "2147483648", "1..2147483647"),
        ({"rows": ["0,0,send,1,99999999999999999999,0,0,0,-1,"]}, "bytes row 0", "fits int64"),
        ({"rows": ["0,0,send,9223372036854775808,8,0,0,0,-1,"]}, "peer row 0", "fits int32"),
        ({"rows": ["0,0,compute,-1,0,0,1e400,0,-1,"]}, "compute_ns row 0", "a finite number"),
    ],
)
def test_csv_errors_name_the_key_file_and_column(tmp_path, kwargs, value, expected):
    path = write_csv(tmp_path / "bad.csv", **kwargs)
    with pytest.raises(ConfigError) as info:
        read_trace(path, key="traffic.jobs[2].trace")
    assert info.value.key == "traffic.jobs[2].trace"
    assert info.value.value.startswith(f"{path}: ")
    assert value in info.value.value
    assert expected in info.value.expected


def test_parquet_errors_name_the_key_file_and_column(tmp_path):
    frame = Program.from_generator(pingpong, 2).sorted()
    path = tmp_path / "plain.parquet"
    frame.to_parquet(path)
    with pytest.raises(ConfigError, match=r"no exanet\.ranks") as info:
        read_trace(path)
    assert info.value.key == "trace"
    assert info.value.value.startswith(str(path))
    program = Program(frame, 2)
    program.ops["peer"] = program.ops["peer"].astype(str).replace("1", "one")
    write_trace(program, path)
    with pytest.raises(ConfigError, match="column peer row 0: 'one'"):
        read_trace(path)
    with pytest.raises(ConfigError, match="readable exanet trace"):
        read_trace(tmp_path / "missing.parquet")


def test_parquet_dictionary_columns_read_like_plain_ones(tmp_path):
    # pandas writes categorical columns as Parquet dictionaries; this was a StopIteration
    program = Program.from_generator(pingpong, 2)
    frame = program.sorted().astype({"op": "category", "algorithm": "category", "tag": "category"})
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = tmp_path / "dictionary.parquet"
    pq.write_table(table.replace_schema_metadata({b"exanet.ranks": b"2"}), path)
    assert read_trace(path).to_core() == program.to_core()


def test_a_parquet_dictionary_of_one_huge_string_is_refused_before_it_is_copied(tmp_path):
    # 10^4 rows naming one 10^5-character op: a small file, 1 GB once each row holds a copy
    frame = Program.from_generator(pingpong, 2).sorted().iloc[[0] * 10**4]
    table = pa.Table.from_pandas(frame, preserve_index=False)
    huge_op = pa.DictionaryArray.from_arrays(pa.array([0] * 10**4, pa.int32()), ["x" * 10**5])
    table = table.set_column(table.column_names.index("op"), "op", huge_op)
    path = tmp_path / "huge_op.parquet"
    pq.write_table(table.replace_schema_metadata({b"exanet.ranks": b"2"}), path)
    assert path.stat().st_size < 100_000
    with pytest.raises(ConfigError, match="at most 32 characters") as info:
        read_trace(path)
    assert "column op row 0: 'xxxxxxxxxxxx...xxxxxxxxxxxxx'" in info.value.value


@pytest.mark.parametrize(
    ("metadata", "value"),
    [
        ({b"exanet.ranks": b"9" * 100_000}, "ranks of 100000 digits"),  # was a ValueError
        ({b"exanet.ranks": b"\xff\xfe"}, "no exanet.ranks (a whole number)"),
        ({}, "no exanet.ranks (a whole number)"),
    ],
)
def test_parquet_rank_counts_the_core_cannot_take_are_refused(tmp_path, metadata, value):
    table = pa.Table.from_pandas(Program.from_generator(pingpong, 2).sorted())
    path = tmp_path / "t.parquet"
    pq.write_table(table.replace_schema_metadata(metadata), path)
    with pytest.raises(ConfigError) as info:
        read_trace(path, key="traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert value in info.value.value


def test_traces_with_more_rows_than_a_job_may_have_are_refused_before_reading(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(exanet.program, "MAX_OPERATIONS_PER_JOB", 100)
    monkeypatch.setattr(exanet.traces.exanet_format, "MAX_OPERATIONS_PER_JOB", 100)
    # 10^6 identical rows: a few KiB of Parquet, and 10^6 rows once read
    frame = Program.from_generator(pingpong, 2).sorted().iloc[[0] * 10**6]
    path = tmp_path / "many.parquet"
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"exanet.ranks": b"2"}), path)
    with pytest.raises(ConfigError, match="1000000 rows") as info:
        read_trace(path)
    assert "at most 100 operations" in info.value.expected
    rows = ["0,0,compute,-1,0,0,5.0,0,-1,"] * 101
    with pytest.raises(ConfigError, match="more than 100 operations"):
        read_trace(write_csv(tmp_path / "many.csv", rows=rows))


GOAL = """\
// exchange with a dependency the file order would deadlock on
num_ranks 2
rank 0 {
  r: recv 8b from 1 tag 3 cpu 0 nic 0   /* a comment */
  c: calc 250 cpu 1
  c requires r
  s: send 16b to 1
  w: recv 4b from -1 tag -1
  w irequires c
}
/* rank 1 mirrors rank 0,
   with labels used before they are defined */
rank 1 {
  c requires r
  r: recv 16b from 0
  c: calc 100
  send 8b to 0 tag 3
  send 4b to 0 tag 11
}
"""


def test_goal_schedule_to_sequential_program(tmp_path):
    path = tmp_path / "x.goal"
    path.write_text(GOAL)
    program = read_goal(path).validate()
    ops = program.sorted()
    rows = list(
        ops[["rank", "op", "peer", "bytes", "tag", "compute_ns", "request"]].itertuples(
            index=False, name=None
        )
    )
    assert rows == [
        (0, "irecv", 1, 8, 3, 0.0, 0),
        (0, "isend", 1, 16, 0, 0.0, 1),  # needs no wait: issued before c waits for r
        (0, "wait", -1, 0, 0, 0.0, 0),
        (0, "compute", -1, 0, 0, 250.0, -1),
        (0, "irecv", -1, 4, -1, 0.0, 2),
        (0, "waitall", -1, 0, 0, 0.0, -1),
        (1, "irecv", 0, 16, 0, 0.0, 0),
        (1, "isend", 0, 8, 3, 0.0, 1),
        (1, "isend", 0, 4, 11, 0.0, 2),
        (1, "wait", -1, 0, 0, 0.0, 0),
        (1, "compute", -1, 0, 0, 100.0, -1),
        (1, "waitall", -1, 0, 0, 0.0, -1),
    ]  # fmt: skip


def test_goal_sample_halo():
    program = load_trace(SAMPLES / "halo.goal").validate()
    assert program.ranks == 4
    rank0 = program.sorted().query("rank == 0")
    assert rank0["op"].tolist() == (
        ["irecv", "irecv", "isend", "isend", "compute", "wait", "wait", "compute"] * 2 + ["waitall"]
    )
    assert rank0["peer"].tolist()[:4] == [3, 1, 1, 3]
    assert rank0["compute_ns"].tolist()[4::8][:2] == [20000.0, 20000.0]
    assert rank0.query("op == 'wait'")["request"].tolist() == [0, 1, 4, 5]


@pytest.mark.parametrize(
    ("text", "line", "value", "expected"),
    [
        ("rank 0 {\n}\n", 1, '"rank 0 {"', "num_ranks <N>"),
        ("num_ranks 2\nrank 0 {\nl1: sned 8b to 1\n}\n", 3, '"l1: sned 8b to 1"', "an operation"),
        ("num_ranks 2\nrank 0 {\nl1: send 8b from 1\n}\n", 3, "send 8b from 1", '"send <size>b to'),
        ("num_ranks 2\nrank 0 {\nl1: send 8b to 2\n}\n", 3, "to 2", "a rank in 0..1"),
        ("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag -2\n}\n", 3, "tag -2", "an operation"),
        ("num_ranks 2\nrank 2 {\n}\n", 2, '"rank 2 {"', "a rank in 0..1"),
        ("num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", 4, "l1: calc 6", "a label not"),
        ("num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l9\n}\n", 4, "l9", "labels defined"),
        ("num_ranks 2\nsend 8b to 1\n", 2, '"send 8b to 1"', '"rank <R> {"'),
        # numbers beyond what the core takes: these were OverflowErrors or ValueErrors
        ("num_ranks 2147483648\n", 1, "num_ranks 2147483648", "1..2147483647"),
        ("num_ranks " + "9" * 5000 + "\n", 1, "num_ranks 999", "1..2147483647"),
        ("num_ranks 2\nrank " + "9" * 5000 + " {\n", 2, "rank 999", "a rank in 0..1"),
        ("num_ranks 2\nrank 0 {\nsend 1099511627777b to 1\n}\n", 3, "send", "1099511627776"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 2147483648\n}\n", 3, "tag", "0..2147483647"),
        ("num_ranks 2\nrank 0 {\nrecv 8b from 99999999999\n}\n", 3, "from", "0..1 or -1"),
        ("num_ranks 2\nrank 0 {\ncalc 99999999999999999999\n}\n", 3, "calc", "at most"),
        ("num_ranks 2\n/* open\n\nrank 0 {\n", 2, "/*", 'a "*/" closing the comment'),
    ],
)
def test_goal_parse_errors_name_the_key_file_and_line(tmp_path, text, line, value, expected):
    path = tmp_path / "bad.goal"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        read_goal(path, key="traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.value.startswith(f"{path} line {line}: ")
    assert value in info.value.value
    assert expected in info.value.expected


def test_goal_structure_errors(tmp_path):
    path = tmp_path / "bad.goal"
    path.write_text("num_ranks 1\nrank 0 {\nl1: calc 5\n")
    with pytest.raises(ConfigError, match='a "}" closing the block of rank 0'):
        read_goal(path)
    path.write_text("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb requires a\n}\n")
    with pytest.raises(ConfigError, match="without a cycle") as info:
        read_goal(path)
    assert info.value.key == "trace"
    assert info.value.value.startswith(f"{path} rank 0: ")


def test_goal_reading_takes_time_in_proportion_to_the_file(tmp_path):
    # unclosed comments: a regular expression rescanned the rest of the file at each "/*"
    path = tmp_path / "comments.goal"
    path.write_text("num_ranks 1\n" + "/*" * 100_000)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match='a "\\*/" closing the comment'):
        read_goal(path)
    assert time.perf_counter() - started < 1.0
    # a billion ranks declared, one used: no per-rank list
    path.write_text("num_ranks 1000000000\nrank 0 {\ncalc 5\n}\n")
    started = time.perf_counter()
    program = read_goal(path).validate()
    assert (program.ranks, len(program)) == (10**9, 1)
    assert time.perf_counter() - started < 2.0


def collectives_and_messages(rank, size):
    yield compute("3us")
    r = yield irecv((rank - 1) % size, 512, tag=1)
    s = yield isend((rank + 1) % size, 512, tag=1)
    yield compute("1us")
    yield wait(r)
    yield alltoall(64)
    yield bcast("1KiB")
    yield wait(s)
    yield reduce(8)
    yield send((rank + 1) % size, 4, tag=2)
    yield recv((rank - 1) % size, 4, tag=2)
    yield allgather(16)
    t = yield isend((rank + 1) % size, 1, tag=3)
    yield irecv((rank - 1) % size, 1, tag=3)
    yield barrier()
    yield wait(t)
    yield waitall()


def test_chakra_write_read_round_trip(tmp_path):
    program = Program.from_generator(train_step, 3)
    files = write_chakra(program, tmp_path / "step")
    assert [f.name for f in files] == ["step.0.et", "step.1.et", "step.2.et"]
    pd.testing.assert_frame_equal(read_chakra(tmp_path / "step").sorted(), program.sorted())

    program = Program.from_generator(collectives_and_messages, 3)
    write_chakra(program, tmp_path / "mix")
    back = read_chakra(tmp_path / "mix.1.et").validate()
    rank1 = back.sorted().query("rank == 1")
    # blocking send/recv come back as isend/irecv + wait, the trailing waits as one waitall
    assert rank1["op"].tolist() == [
        "compute", "irecv", "isend", "compute", "wait", "alltoall", "bcast", "wait", "reduce",
        "isend", "wait", "irecv", "wait", "allgather", "isend", "irecv", "barrier", "waitall",
    ]  # fmt: skip
    assert rank1.query("op == 'alltoall'")["bytes"].tolist() == [64]
    assert rank1.query("op == 'wait'")["request"].tolist() == [0, 1, 2, 3]


def varint(value):
    out = b""
    while value >= 0x80:
        out += bytes([value & 0x7F | 0x80])
        value >>= 7
    return out + bytes([value])


def message(*parts):
    body = b"".join(parts)
    return varint(len(body)) + body


def attribute(name, tag, value):
    """An AttributeProto as field 10 of a Node: name (field 1) and one value field."""
    body = b"\x0a" + varint(len(name)) + name.encode() + tag + value
    return b"\x52" + varint(len(body)) + body


# AttributeProto value field keys (field number << 3 | wire type) as varints
INT32, INT64, UINT64, SINT32 = b"\x38", b"\x48", b"\x68", b"\x78"  # fields 7, 9, 13, 15
FIXED64, BOOL = b"\xa9\x01", b"\xd8\x01"  # fields 21, 27

METADATA = message(b"\x0a\x05" + b"0.0.4")  # GlobalMetadata.version


def hand_built_rank0():
    return METADATA + b"".join(
        [
            # id 1, name "fwd", type COMP_NODE (4), duration_micros 5
            message(b"\x08\x01", b"\x12\x03fwd", b"\x18\x04", b"\x38\x05"),
            # id 2, COMM_SEND_NODE (5), data_deps 1 (unpacked), ctrl_deps [1] (packed)
            message(
                b"\x08\x02",
                b"\x18\x05",
                b"\x28\x01",
                b"\x22\x01\x01",
                attribute("comm_dst", INT32, b"\x01"),  # 1
                attribute("comm_size", UINT64, b"\xac\x02"),  # 300
                attribute("comm_tag", SINT32, b"\x0e"),  # 7 (zigzag: 14)
                attribute("is_cpu_op", BOOL, b"\x00"),  # false
            ),
            # id 3, COMM_COLL_NODE (7), data_deps [2] (packed), ALL_REDUCE of 1024 B (fixed64)
            message(
                b"\x08\x03",
                b"\x18\x07",
                b"\x2a\x01\x02",
                attribute("comm_type", INT64, b"\x00"),
                attribute("comm_size", FIXED64, struct.pack("<Q", 1024)),
            ),
        ]
    )


def test_chakra_hand_built_byte_stream():
    """Bytes written by hand, in forms Chakra's writers may use (unpacked and packed deps, zigzag
    and fixed64 attributes) decode into the schema's Node messages."""
    rank0 = hand_built_rank0()
    assert decode_chakra(rank0) == [
        Node(id=1, name="fwd", type=4, duration_micros=5),
        Node(
            id=2,
            type=5,
            ctrl_deps=[1],
            data_deps=[1],
            attr=[
                AttributeProto(name="comm_dst", int32_val=1),
                AttributeProto(name="comm_size", uint64_val=300),
                AttributeProto(name="comm_tag", sint32_val=7),
                AttributeProto(name="is_cpu_op", bool_val=False),
            ],
        ),
        Node(
            id=3,
            type=7,
            data_deps=[2],
            attr=[
                AttributeProto(name="comm_type", int64_val=0),
                AttributeProto(name="comm_size", fixed64_val=1024),
            ],
        ),
    ]
    assert decode_chakra(gzip.compress(rank0)) == decode_chakra(rank0)
    # registered under Chakra's own file name, so that Chakra's et_def_pb2 can load beside it
    assert Node.DESCRIPTOR.file.name == "et_def.proto"


def test_chakra_files_to_program(tmp_path):
    rank1 = METADATA + b"".join(
        [
            message(
                b"\x08\x07",
                b"\x18\x06",  # COMM_RECV_NODE from 0, tag 7, 300 B (int64_val)
                attribute("comm_src", INT32, b"\x00"),
                attribute("comm_size", INT64, b"\xac\x02"),
                attribute("comm_tag", INT32, b"\x07"),
            ),
            message(b"\x08\x09", b"\x18\x01"),  # METADATA_NODE: no operation
            message(
                b"\x08\x08",
                b"\x18\x07",
                b"\x2a\x02\x07\x09",
                attribute("comm_type", INT64, b"\x00"),
                attribute("comm_size", INT64, b"\x80\x08"),
            ),
        ]
    )
    (tmp_path / "t.0.et").write_bytes(hand_built_rank0())
    (tmp_path / "t.1.et").write_bytes(rank1)
    program = load_trace(tmp_path / "t", ranks=2).validate()
    rows = list(
        program.sorted()[
            ["rank", "op", "peer", "bytes", "tag", "compute_ns", "request"]
        ].itertuples(index=False, name=None)
    )
    assert rows == [
        (0, "compute", -1, 0, 0, 5000.0, -1),
        (0, "isend", 1, 300, 7, 0.0, 0),
        (0, "wait", -1, 0, 0, 0.0, 0),
        (0, "allreduce", -1, 1024, 0, 0.0, -1),
        (1, "irecv", 0, 300, 7, 0.0, 0),
        (1, "wait", -1, 0, 0, 0.0, 0),
        (1, "allreduce", -1, 1024, 0, 0.0, -1),
    ]  # fmt: skip


def test_chakra_traces_shaped_like_the_pytorch_converters_are_read(tmp_path):
    """Chakra's PyTorch converter drops its root node but keeps ctrl_deps to it, and writes a
    COMM_COLL_NODE without comm_type for the host-side c10d call beside the kernel node that
    carries it: the dangling control edge is left out, the host-side node is no operation."""
    rank = METADATA + b"".join(
        [
            # id 2, COMP_NODE, 3 us, ctrl_deps [1] (packed): node 1 is not in the file
            message(b"\x08\x02", b"\x12\x03mm_", b"\x18\x04", b"\x38\x03", b"\x22\x01\x01"),
            # id 3, COMM_COLL_NODE "c10d::broadcast_", no comm_type, ctrl_deps [2]
            message(
                b"\x08\x03",
                b"\x12\x10c10d::broadcast_",
                b"\x18\x07",
                b"\x22\x01\x02",
                attribute("is_cpu_op", BOOL, b"\x01"),
            ),
            # id 4, the kernel: BROADCAST (5) of 64 B, data_deps [3]
            message(
                b"\x08\x04",
                b"\x18\x07",
                b"\x2a\x01\x03",
                attribute("comm_type", INT64, b"\x05"),
                attribute("comm_size", INT64, b"\x40"),
            ),
        ]
    )
    for r in range(2):
        (tmp_path / f"conv.{r}.et").write_bytes(rank)
    program = read_chakra(tmp_path / "conv", key="traffic.jobs[0].trace").validate()
    rows = list(
        program.sorted()[["rank", "op", "bytes", "compute_ns"]].itertuples(index=False, name=None)
    )
    assert rows == [
        (0, "compute", 0, 3000.0),
        (0, "bcast", 64, 0.0),
        (1, "compute", 0, 3000.0),
        (1, "bcast", 64, 0.0),
    ]


@pytest.mark.parametrize(
    ("node", "value", "expected"),
    [
        (
            message(b"\x08\x04\x12\x02rs\x18\x07", attribute("comm_type", INT64, b"\x0a")),
            "node 4 ('rs', COMM_COLL_NODE): comm_type = 10",
            "comm_type in 0..9",
        ),
        (message(b"\x08\x05", b"\x18\x02"), "node 5 ('', MEM_LOAD_NODE)", "a node type exanet"),
        (message(b"\x08\x06", b"\x18\x05"), "node 6 ('', COMM_SEND_NODE)", "attribute comm_dst"),
        (message(b"\x08\x06", b"\x18\x04", b"\x28\x09"), "depends on 9", "ids of nodes"),
        # a node cut short: message 1, after the 8-byte metadata message
        (
            message(b"\x08\x06", b"\x18\x04")[:-1],
            "unreadable",
            "message 1 at byte 8 (ChakraProtoMsg.Node) is cut short by the end of the file",
        ),
        # attributes beyond what the core takes: these were OverflowErrors
        (
            message(
                b"\x08\x06\x18\x05",
                attribute("comm_dst", INT64, varint(2**40)),
                attribute("comm_size", INT64, b"\x08"),
            ),
            "comm_dst = 1099511627776",
            "comm_dst in 0..0",
        ),
        (
            message(
                b"\x08\x06\x18\x05",
                attribute("comm_dst", INT64, b"\x00"),
                attribute("comm_size", UINT64, varint(2**63)),
            ),
            "comm_size = 9223372036854775808",
            "comm_size in 0..1099511627776",
        ),
        (
            message(
                b"\x08\x06\x18\x06",
                attribute("comm_src", INT64, b"\x00"),
                attribute("comm_size", INT64, b"\x08"),
                attribute("comm_tag", INT64, varint(2**31)),
            ),
            "comm_tag = 2147483648",
            "comm_tag in 0..2147483647",
        ),
        (message(b"\x08\x06\x18\x04\x38" + varint(2**62)), "duration_micros", "10^6 s"),
    ],
)
def test_chakra_errors_name_the_node(tmp_path, node, value, expected):
    (tmp_path / "bad.0.et").write_bytes(METADATA + node)
    with pytest.raises(ConfigError) as info:
        read_chakra(tmp_path / "bad", key="traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.value.startswith(f"{tmp_path / 'bad.0.et'}: ")
    assert value in info.value.value
    assert expected in info.value.expected


def test_chakra_gzip_bombs_and_damaged_gzip_data_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(exanet.traces.chakra, "MAX_FILE_BYTES", 2**20)
    rank0 = hand_built_rank0()
    (tmp_path / "t.0.et").write_bytes(gzip.compress(rank0 + b"\x00" * 2**20))
    with pytest.raises(ConfigError, match=r"decompresses to more than 1048576 bytes"):
        read_chakra(tmp_path / "t")
    (tmp_path / "t.0.et").write_bytes(b"\x00" * (2**20 + 1))
    with pytest.raises(ConfigError, match=r"has more than 1048576 bytes"):
        read_chakra(tmp_path / "t")
    # damaged gzip data: these were zlib.error and EOFError
    for damaged, expected in [
        (gzip.compress(rank0)[:-12], "the gzip data ends early"),
        # a reserved deflate block type right after the 10-byte gzip header
        (gzip.compress(rank0)[:10] + b"\xff" + gzip.compress(rank0)[11:], "damaged gzip data"),
        (gzip.compress(rank0) + b"trailing", "bytes after the gzip data"),
    ]:
        (tmp_path / "t.0.et").write_bytes(damaged)
        with pytest.raises(ConfigError, match=expected):
            read_chakra(tmp_path / "t")
    # gzip members one after the other decompress as one stream
    (tmp_path / "t.0.et").write_bytes(gzip.compress(rank0[:40]) + gzip.compress(rank0[40:]))
    assert decode_chakra((tmp_path / "t.0.et").read_bytes()) == decode_chakra(rank0)


def test_write_chakra_refuses_what_chakra_cannot_say(tmp_path):
    def sub_microsecond(rank, size):
        yield compute(1.5)

    with pytest.raises(ConfigError, match="whole microseconds"):
        write_chakra(Program.from_generator(sub_microsecond, 1), tmp_path / "x")
    with pytest.raises(ConfigError, match="no communicators, algorithms"):
        write_chakra(Program.from_generator(everything, 4), tmp_path / "x")
    for unwritable in (scan, exscan):
        with pytest.raises(ConfigError, match=r"alltoallv, scan, exscan in Chakra"):
            write_chakra(Program.from_ops([[unwritable(8)]] * 2, 2), tmp_path / "x")


# --- Chakra traces as Chakra's PyTorch converter writes them, built with the protobuf classes ---


def converter_metadata():
    """The GlobalMetadata the converter writes: the host trace's schema, pid, time and span."""
    return GlobalMetadata(
        attr=[
            AttributeProto(name="schema", string_val="1.1.1-chakra.0.0.4"),
            AttributeProto(name="pid", uint64_val=4242),
            AttributeProto(name="time", string_val="2026-11-25 00:00:00"),
            AttributeProto(name="start_ts", uint64_val=1_000),
            AttributeProto(name="finish_ts", uint64_val=9_000),
        ]
    )


def converter_kernel(node_id, kernel, comm_type, comm_size, data_deps=(), duration_micros=0):
    """A device-side collective kernel node as the converter writes it: the PyTorch node's
    fields and attributes, then comm_type, comm_size and pg_name."""
    return Node(
        id=node_id,
        name=kernel,
        type=COMM_COLL_NODE,
        data_deps=list(data_deps),
        duration_micros=duration_micros,
        inputs=IOInfo(values="[[4, 5, 0, 1024, 4, 'cuda:0']]", shapes="[[1024]]", types="['f32']"),
        outputs=IOInfo(values="[]", shapes="[]", types="[]"),
        attr=[
            AttributeProto(name="rf_id", int64_val=node_id),
            AttributeProto(name="fw_parent", int64_val=0),
            AttributeProto(name="seq_id", int64_val=-1),
            AttributeProto(name="scope", int64_val=0),
            AttributeProto(name="tid", int64_val=2),
            AttributeProto(name="fw_tid", int64_val=0),
            AttributeProto(name="op_schema", string_val=""),
            AttributeProto(name="is_cpu_op", bool_val=False),
            AttributeProto(name="stream", int64_val=7),
            AttributeProto(name="comm_type", int64_val=comm_type),
            AttributeProto(name="comm_size", int64_val=comm_size),
            AttributeProto(name="pg_name", string_val="0"),
        ],
    )


def framed(message_):
    """A message preceded by its length, as the converter's encodeMessage writes it."""
    out = io.BytesIO()
    proto.serialize_length_prefixed(message_, out)
    return out.getvalue()


def write_converter_trace(prefix, ranks, nodes):
    """The same nodes on every rank, each file a GlobalMetadata then the nodes."""
    for rank in range(ranks):
        Path(f"{prefix}.{rank}.et").write_bytes(
            b"".join(framed(m) for m in [converter_metadata(), *nodes])
        )


# comm_type -> (exanet op, root, bytes) of a 4-rank trace with comm_size 4096
COLLECTIVE_READINGS = {
    "ALL_REDUCE": ("allreduce", -1, 4096),
    "REDUCE": ("reduce", 0, 4096),
    "ALL_GATHER": ("allgather", -1, 4096),  # each rank's contribution
    "GATHER": ("gather", 0, 4096),  # each rank's contribution
    "SCATTER": ("scatter", 0, 4096),  # what each rank receives
    "BROADCAST": ("bcast", 0, 4096),
    "ALL_TO_ALL": ("alltoall", -1, 1024),  # the send buffer, comm_size / 4 to each rank
    "REDUCE_SCATTER": ("reduce_scatter", -1, 4096),  # each rank's whole input buffer
    "REDUCE_SCATTER_BLOCK": ("reduce_scatter", -1, 4096),
    "BARRIER": ("barrier", -1, 0),
}


def test_every_collective_type_of_the_schema_has_a_reading():
    assert set(COLLECTIVE_READINGS) == set(CollectiveCommType.keys())


@pytest.mark.parametrize("comm_type", list(COLLECTIVE_READINGS))
def test_chakra_every_collective_type_reads_as_its_exanet_operation(tmp_path, comm_type):
    kernel = converter_kernel(3, f"ncclDevKernel_{comm_type}(ncclDevComm*)", 0, 4096)
    kernel.attr[-3].int64_val = CollectiveCommType.Value(comm_type)
    write_converter_trace(tmp_path / "coll", 4, [kernel])
    program = read_chakra(tmp_path / "coll").validate()
    rows = program.sorted()[["rank", "op", "peer", "bytes"]].itertuples(index=False, name=None)
    op, root, size = COLLECTIVE_READINGS[comm_type]
    assert list(rows) == [(rank, op, root, size) for rank in range(4)]


def test_chakra_reduce_scatter_then_all_gather_replays(tmp_path):
    """A 4-rank trace of a compute node, a REDUCE_SCATTER of S and an ALL_GATHER of S / 4 (the
    FSDP pattern): ring reduce-scatter and allgather each send (n - 1) S in all, so the job sends
    6 S, and each rank injects 1.5 S, which takes at least 1.5 S / (injection bandwidth)."""
    size_bytes = 65536
    write_converter_trace(
        tmp_path / "fsdp",
        4,
        [
            Node(id=1, name="aten::mm", type=COMP_NODE, duration_micros=2),
            converter_kernel(2, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", 7, size_bytes, [1]),
            converter_kernel(3, "ncclDevKernel_AllGather_RING_LL", 2, size_bytes // 4, [2]),
        ],
    )
    config = {
        "topology": {"kind": "torus", "dims": [4], "concentration": 1},
        "router": {"vc_buffer": "8KiB"},
        "traffic": {"kind": "jobs", "jobs": [{"trace": str(tmp_path / "fsdp")}]},
    }
    summary = exanet.simulate(config).summary
    assert summary["jobs"] == 1
    assert summary["bytes_sent"] == 6 * size_bytes
    injection_ns = 1.5 * size_bytes / summary["injection_bandwidth_gbytes_per_s"]
    assert summary["jobs_completion_ns_max"] >= 2000 + injection_ns


def every_chakra_collective(rank, size):
    yield allreduce(4096)
    yield reduce(4096)
    yield allgather(1024)
    yield gather(1024)
    yield scatter(1024)
    yield bcast(4096)
    yield alltoall(1024)
    yield reduce_scatter(4096)
    yield barrier()


def test_chakra_write_read_round_trip_of_every_collective(tmp_path):
    program = Program.from_generator(every_chakra_collective, 4)
    write_chakra(program, tmp_path / "all")
    pd.testing.assert_frame_equal(read_chakra(tmp_path / "all").sorted(), program.sorted())
    nodes = decode_chakra((tmp_path / "all.2.et").read_bytes())
    written = [
        (CollectiveCommType.Name(attr["comm_type"]), attr["comm_size"])
        for attr in ({a.name: a.int64_val for a in node.attr} for node in nodes)
    ]
    assert written == [
        ("ALL_REDUCE", 4096),
        ("REDUCE", 4096),
        ("ALL_GATHER", 1024),
        ("GATHER", 1024),
        ("SCATTER", 1024),
        ("BROADCAST", 4096),
        ("ALL_TO_ALL", 4096),  # the whole send buffer: 1024 to each of 4 ranks
        ("REDUCE_SCATTER", 4096),
        ("BARRIER", 0),
    ]
    with pytest.raises(ConfigError, match="root 0"):
        write_chakra(Program.from_ops([[scatter(8, root=1)]] * 2, 2), tmp_path / "x")


def test_a_chakra_file_protobuf_cannot_parse_is_a_config_error(tmp_path):
    nodes = [converter_kernel(i, "ncclDevKernel_AllReduce", 0, 64) for i in range(3)]
    parts = [framed(m) for m in [converter_metadata(), *nodes]]
    body_bytes = len(proto.serialize(nodes[1]))
    # node 2 (message 2): its first field's key becomes field 0 of wire type 7 (neither exists)
    parts[2] = parts[2][:-body_bytes] + b"\x07" + parts[2][-body_bytes + 1 :]
    (tmp_path / "bad.0.et").write_bytes(b"".join(parts))
    with pytest.raises(ConfigError) as info:
        read_chakra(tmp_path / "bad", key="traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.value == f"{tmp_path / 'bad.0.et'}: unreadable"
    offset = len(parts[0]) + len(parts[1])
    assert f"message 2 at byte {offset} (ChakraProtoMsg.Node) is not valid protobuf" in (
        info.value.expected
    )


def test_load_trace_dispatch_and_samples_match_their_generators(tmp_path):
    cases = {
        "pingpong.csv": Program.from_generator(pingpong, 2),
        "ring_allreduce.parquet": Program.from_generator(ring_allreduce, 4),
        "train_step": Program.from_generator(train_step, 2),
        "train_step.1.et": Program.from_generator(train_step, 2),
    }
    for name, expected in cases.items():
        program = load_trace(SAMPLES / name).validate()
        pd.testing.assert_frame_equal(program.sorted(), expected.sorted())
    assert all(path.stat().st_size < 8192 for path in SAMPLES.iterdir())
    with pytest.raises(ConfigError, match="a trace of 3 ranks") as info:
        load_trace(SAMPLES / "pingpong.csv", ranks=3, key="traffic.jobs[1].trace")
    assert info.value.key == "traffic.jobs[1].trace"
    with pytest.raises(ConfigError, match=r"\.goal GOAL schedule"):
        load_trace(tmp_path / "trace.json")
    with pytest.raises(ConfigError, match="3 files"):
        load_trace(SAMPLES / "train_step", ranks=3)


def test_a_trace_without_compute_times_warns_and_takes_a_default_or_a_scale(tmp_path):
    """A Chakra trace converted from a PyTorch host trace without durations: compute nodes of
    0 us. The run says the trace carries no compute time; a default and a scale set it."""
    rank = METADATA + b"".join(
        [
            message(b"\x08\x01", b"\x18\x04"),  # COMP_NODE, no duration
            message(
                b"\x08\x02",
                b"\x18\x07",
                b"\x2a\x01\x01",
                attribute("comm_type", INT64, b"\x00"),
                attribute("comm_size", INT64, b"\x40"),
            ),
        ]
    )
    for r in range(2):
        (tmp_path / f"host.{r}.et").write_bytes(rank)
    base = {
        "topology": {"kind": "torus", "dims": [2], "concentration": 1},
        "router": {"vc_buffer": "8KiB"},
        "traffic": {"kind": "jobs", "jobs": [{"trace": str(tmp_path / "host")}]},
    }

    def job_time_ns(**job):
        config = {
            **base,
            "traffic": {"kind": "jobs", "jobs": [{"trace": str(tmp_path / "host"), **job}]},
        }
        return exanet.simulate(config).summary["jobs_completion_ns_max"]

    with pytest.warns(UserWarning, match=r"none carries a time.*trace_compute_default"):
        bare = job_time_ns()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        defaulted = job_time_ns(trace_compute_default="2us")
        scaled = job_time_ns(trace_compute_default="2us", trace_compute_scale=3)
    assert defaulted == pytest.approx(bare + 2000)
    assert scaled == pytest.approx(bare + 6000)
    with pytest.raises(ConfigError) as caught:
        exanet.validate(
            {
                **base,
                "traffic": {
                    "kind": "jobs",
                    "jobs": [{"app": "allreduce", "ranks": 2, "trace_compute_scale": 2}],
                },
            }
        )
    assert caught.value.key == "traffic.jobs[0].trace_compute_scale"


def test_chakra_collectives_run_over_astra_sims_communicator_groups(tmp_path):
    """Tensor-parallel pairs {0, 1} and {2, 3} all-reduce within their pair (pg_name "1" and
    "2"), then all four ranks all-gather (pg_name "0"), as ASTRA-sim's --comm-group-configuration
    file says; without the file every collective spans all ranks, as in ASTRA-sim."""
    prefix = tmp_path / "tp"
    for rank in range(4):
        pair = converter_kernel(1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 8192)
        pair.attr[-1].string_val = "1" if rank < 2 else "2"
        everyone = converter_kernel(2, "ncclDevKernel_AllGather_RING_LL", 2, 1024, [1])
        Path(f"{prefix}.{rank}.et").write_bytes(
            b"".join(framed(m) for m in [converter_metadata(), pair, everyone])
        )
    groups = tmp_path / "groups.json"
    groups.write_text(json.dumps({"0": [0, 1, 2, 3], "1": [0, 1], "2": [2, 3]}))
    ops = read_chakra(prefix, comm_groups=groups).validate().sorted()
    allreduces = ops[ops["op"] == "allreduce"]
    assert allreduces["communicator"].tolist() == [2, 2, 3, 3]
    assert ops.loc[ops["op"] == "allgather", "communicator"].tolist() == [1, 1, 1, 1]
    assert ops.loc[ops["op"] == "comm", "communicator"].tolist() == [1, 2, 1, 2, 1, 3, 1, 3]
    job = {"trace": str(prefix), "trace_comm_groups": str(groups)}
    config = {
        "topology": {"kind": "torus", "dims": [4], "concentration": 1},
        "router": {"vc_buffer": "8KiB"},
        "traffic": {"kind": "jobs", "jobs": [job]},
    }
    # recursive doubling in a pair: one 8 KiB message each way; the ring allgather of 4 ranks:
    # 3 steps of 1 KiB from every rank
    assert exanet.simulate(config).summary["bytes_sent"] == 4 * 8192 + 4 * 3 * 1024
    assert read_chakra(prefix).validate().ops["communicator"].eq(0).all()


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        ('{"0": [0, 1, 2, 3]}', "a communicator group of the groups file holding rank 0: 0"),
        ('{"0": [0, 1, 2, 3], "1": [0, 9]}', "each group distinct ranks in 0..3"),
        ("[0, 1]", "a JSON object"),
        ("{", "a JSON object"),
    ],
)
def test_chakra_communicator_group_errors(tmp_path, groups, expected):
    prefix = tmp_path / "tp"
    kernel = converter_kernel(1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 8192)
    kernel.attr[-1].string_val = "1"
    write_converter_trace(prefix, 4, [kernel])
    path = tmp_path / "groups.json"
    path.write_text(groups)
    with pytest.raises(ConfigError, match=re.escape(expected)):
        read_chakra(prefix, comm_groups=path)
