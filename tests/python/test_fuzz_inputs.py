"""Property-based fuzzing of every input a job reads: trace files of each format (exanet CSV and
Parquet, GOAL, Chakra, OTF2) and Python programs, valid, mutated (truncated, damaged, huge or
negative numbers, wrong types) or random. Each either loads as a job (the core's validation
included) or is refused with a ConfigError naming a key of the job; never another exception,
never a hang. The inputs fuzzing found failing are kept as explicit examples."""

import gzip
import importlib.util
import shutil
import signal
import struct
import tempfile
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import exanet
import exanet.program
from exanet.errors import ConfigError
from exanet.program import (
    OPS,
    Op,
    Program,
    allgather,
    allreduce,
    alltoall,
    alltoallv,
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
from exanet.traces import write_chakra, write_otf2
from exanet.traces.samples import pingpong, ring_allreduce, ring_exchange, train_step

TORUS = {"kind": "torus", "dims": [4, 4]}  # 16 endpoints
JOB = "traffic.jobs[0]"
HANG_SECONDS = 20  # an example still running then is a hang
FUZZ = settings(
    max_examples=40,
    deadline=timedelta(seconds=5),
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SAMPLES = [
    Program.from_generator(pingpong, 2),
    Program.from_generator(ring_allreduce, 4),
    Program.from_generator(train_step, 2),
    Program.from_generator(ring_exchange, 3),
]


class Hung(KeyboardInterrupt):
    """What the alarm raises: like Ctrl-C, exanet must let it through."""


@contextmanager
def at_most(seconds):
    def ring(signum, frame):
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    except Hung as exc:  # a failure of this example, not a stop of the test session
        raise AssertionError(str(exc)) from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def assert_loads_or_names_the_job(job):
    """Validate a config whose only job is `job`, through the core (placement and all): it
    succeeds, or raises a ConfigError on a key of the job."""
    config = {
        "topology": TORUS,
        "router": {"vc_buffer": "16KiB"},
        "traffic": {"kind": "jobs", "jobs": [job]},
    }
    with at_most(HANG_SECONDS):
        try:
            exanet.validate(config)
        except ConfigError as exc:
            assert exc.key.startswith(f"{JOB}."), exc


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


# --- values and damage ------------------------------------------------------------------------

# around the limits of int32, int64, uint64, float64, 1 TiB and 10^6 s; and far beyond
EDGES = [
    -1,
    2**31 - 1,
    2**31,
    -(2**31) - 1,
    2**40,
    2**40 + 1,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    10**15,
    10**19,
    10**30,
    -(10**30),
]
INTEGERS = st.one_of(st.integers(-2, 20), st.sampled_from(EDGES))
NUMBERS = st.one_of(INTEGERS, st.floats(), st.integers(20, 3000).map(lambda n: int("9" * n)))
WORDS = st.sampled_from([*OPS, "", "nan", "inf", "-1e400", "1e400", "ring", "4KiB", "1.5us"])
CELLS = st.one_of(NUMBERS.map(str), WORDS, st.text(max_size=6))


@st.composite
def damaged(draw, data):
    """`data` as it is, cut short, with bytes changed or inserted, or replaced by noise."""
    kind = draw(st.sampled_from(["intact", "intact", "truncated", "changed", "inserted", "noise"]))
    if kind == "truncated":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if kind in ("changed", "inserted") and data:
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(out) - 1))
            byte = draw(st.integers(0, 255))
            if kind == "changed":
                out[at] = byte
            else:
                out.insert(at, byte)
        return bytes(out)
    if kind == "noise":
        return draw(st.binary(max_size=256))
    return data


# --- exanet CSV and Parquet -------------------------------------------------------------------


@st.composite
def csv_traces(draw):
    program = draw(st.sampled_from(SAMPLES))
    rows = [[str(v) for v in row] for row in program.sorted().itertuples(index=False)]
    for _ in range(draw(st.integers(0, 3))):
        row = draw(st.integers(0, len(rows) - 1))
        rows[row][draw(st.integers(0, 9))] = draw(CELLS)
    ranks = draw(st.one_of(st.just(program.ranks), NUMBERS))
    header = ",".join(program.ops.columns)
    text = "\n".join([f"# exanet-trace ranks={ranks}", header, *map(",".join, rows)]) + "\n"
    return draw(damaged(text.encode()))


CSV_HEAD = b"# exanet-trace ranks=2\n" + ",".join(exanet.program.COLUMNS).encode() + b"\n"


@FUZZ
@given(data=csv_traces())
@example(data=b"# exanet-trace ranks=" + b"9" * 5000 + b"\n")  # was a ValueError
@example(data=CSV_HEAD.replace(b"=2", b"=100000000") + b"0,0,compute,-1,0,0,1.0,0,-1,\n")  # hung
@example(data=CSV_HEAD + b"0,0,compute,-1,0,0,1e19,0,-1,\n")  # wrapped the core's clock around
@example(data=CSV_HEAD + b"0,0,compute,-1,0,0,1,-5,-1,\n")  # the key 'config': core's u32
def test_csv_traces(workdir, data):
    path = workdir / "trace.csv"
    path.write_bytes(data)
    assert_loads_or_names_the_job({"trace": str(path)})


ARROW_TYPES = {
    "int64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "uint64": (pa.uint64(), st.integers(0, 2**64 - 1)),
    "float64": (pa.float64(), st.floats()),
    "string": (pa.string(), st.one_of(WORDS, st.text(max_size=4))),
    "bool": (pa.bool_(), st.booleans()),
    "null": (pa.null(), st.none()),
    "timestamp": (pa.timestamp("s"), st.integers(-(10**10), 10**10)),
    "list": (pa.list_(pa.int64()), st.lists(st.integers(0, 3), max_size=2)),
}


@st.composite
def parquet_traces(draw):
    program = draw(st.sampled_from(SAMPLES))
    table = pa.Table.from_pandas(program.sorted(), preserve_index=False)
    for _ in range(draw(st.integers(0, 2))):
        column = draw(st.sampled_from(table.column_names))
        kind = draw(st.sampled_from([*ARROW_TYPES, "dictionary", "dropped"]))
        at = table.column_names.index(column)
        if kind == "dropped":
            table = table.remove_column(at)
            continue
        if kind == "dictionary":  # the sample's values, dictionary-encoded
            values = pa.array(program.sorted()[column].tolist()).dictionary_encode()
        else:
            arrow_type, items = ARROW_TYPES[kind]
            values = pa.array(draw(st.lists(items, min_size=len(table), max_size=len(table))),
                              type=arrow_type)  # fmt: skip
        table = table.set_column(at, column, values)
    ranks = draw(st.one_of(st.just(str(program.ranks)), NUMBERS.map(str), st.text(max_size=4)))
    metadata = draw(st.sampled_from([{b"exanet.ranks": ranks.encode()}, {}]))
    buffer = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(metadata), buffer)
    return draw(damaged(buffer.getvalue().to_pybytes()))


def parquet_bytes(table, ranks):
    buffer = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata({b"exanet.ranks": ranks}), buffer)
    return buffer.getvalue().to_pybytes()


PINGPONG_TABLE = pa.Table.from_pandas(SAMPLES[0].sorted(), preserve_index=False)


def with_footer_byte_raised(data, offset):
    """`data`, a Parquet file, with byte `offset` of its footer raised by one."""
    footer_start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    at = footer_start + offset
    return data[:at] + bytes([(data[at] + 1) % 256]) + data[at + 1 :]


@FUZZ
@given(data=parquet_traces())
@example(data=parquet_bytes(PINGPONG_TABLE, b"9" * 100_000))  # was a MemoryError / ValueError
@example(  # a dictionary column was a StopIteration
    data=parquet_bytes(
        PINGPONG_TABLE.set_column(2, "op", PINGPONG_TABLE["op"].dictionary_encode()), b"2"
    )
)
@example(  # with pyarrow 26.0.1, reading this footer's column chunks aborts the process
    data=with_footer_byte_raised(parquet_bytes(PINGPONG_TABLE, b"2"), 19)
)
def test_parquet_traces(workdir, data):
    path = workdir / "trace.parquet"
    path.write_bytes(data)
    assert_loads_or_names_the_job({"trace": str(path)})


# --- GOAL -------------------------------------------------------------------------------------

GOAL_NUMBERS = st.one_of(st.integers(0, 3).map(str), st.just("-1"), NUMBERS.map(str))


@st.composite
def goal_schedules(draw):
    ranks = draw(st.integers(1, 3))
    lines = [f"num_ranks {draw(st.one_of(st.just(str(ranks)), GOAL_NUMBERS))}"]
    for rank in range(ranks):
        lines.append(f"rank {rank} {{")
        labels = []
        for i in range(draw(st.integers(0, 4))):
            label = f"l{i}"
            n = draw(GOAL_NUMBERS)
            peer = draw(st.one_of(st.just(str((rank + 1) % ranks)), GOAL_NUMBERS))
            operation = draw(st.sampled_from([
                f"send {n}b to {peer} tag {draw(GOAL_NUMBERS)}",
                f"recv {n}b from {peer}",
                f"calc {n} cpu 0",
            ]))  # fmt: skip
            lines.append(f"{label}: {operation}")
            if labels and draw(st.booleans()):
                kind = draw(st.sampled_from(["requires", "irequires"]))
                lines.append(f"{label} {kind} {draw(st.sampled_from(labels))}")
            labels.append(label)
        lines.append(draw(st.sampled_from(["}", "} // done", "/* end */ }", "/* }"])))
    return draw(damaged("\n".join(lines).encode()))


@FUZZ
@given(data=goal_schedules())
@example(data=b"num_ranks 100000000\nrank 0 {\ncalc 5\n}\n")  # was a MemoryError
@example(data=b"num_ranks 2\nrank 0 {\nsend 9223372036854775807b to 1\n}\n")  # simulated forever
@example(data=b"num_ranks 2\nrank 0 {\nsend 8b to 1 tag 99999999999\n}\n")  # was an OverflowError
@example(data=b"num_ranks 1\n" + b"/*" * 50_000)  # quadratic comment removal
def test_goal_schedules(workdir, data):
    path = workdir / "trace.goal"
    path.write_bytes(data)
    assert_loads_or_names_the_job({"trace": str(path)})


# --- Chakra -----------------------------------------------------------------------------------


def varint(value):
    value &= (1 << 64) - 1
    out = b""
    while value >= 0x80:
        out += bytes([value & 0x7F | 0x80])
        value >>= 7
    return out + bytes([value])


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def length_delimited(number, body):
    return field(number, 2, varint(len(body)) + body)


# AttributeProto value fields: number -> encoder of an integer
ATTRIBUTE_VALUES = {
    7: lambda v: field(7, 0, varint(v)),  # int32_val
    9: lambda v: field(9, 0, varint(v)),  # int64_val
    13: lambda v: field(13, 0, varint(v)),  # uint64_val
    17: lambda v: field(17, 0, varint((v << 1) ^ (v >> 63))),  # sint64_val
    21: lambda v: field(21, 1, struct.pack("<Q", v % 2**64)),  # fixed64_val
    3: lambda v: field(3, 1, struct.pack("<d", float(v) if abs(v) < 1e300 else 0.0)),  # double
    27: lambda v: field(27, 0, varint(v & 1)),  # bool_val
}
ATTRIBUTE_NAMES = ["comm_dst", "comm_src", "comm_size", "comm_tag", "comm_type", "other"]


@st.composite
def chakra_nodes(draw, ids):
    node_id = draw(st.one_of(st.sampled_from(ids), INTEGERS))
    body = field(1, 0, varint(node_id)) + field(3, 0, varint(draw(st.integers(0, 9))))
    for dep in draw(st.lists(st.one_of(st.sampled_from(ids), INTEGERS), max_size=2)):
        body += field(draw(st.sampled_from([4, 5])), 0, varint(dep))
    if draw(st.booleans()):
        body += field(7, 0, varint(draw(INTEGERS)))  # duration_micros
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from(ATTRIBUTE_NAMES)).encode()
        value = ATTRIBUTE_VALUES[draw(st.sampled_from(list(ATTRIBUTE_VALUES)))](
            draw(st.one_of(st.integers(0, 4), INTEGERS))
        )
        body += length_delimited(10, length_delimited(1, name) + value)
    return body


@st.composite
def chakra_traces(draw):
    """The files of a trace: rank -> bytes; some written by write_chakra, some generated."""
    if draw(st.booleans()):
        files = [draw(damaged(data)) for data in draw(st.sampled_from(CHAKRA_SAMPLES))]
    else:
        files = []
        for _ in range(draw(st.integers(1, 3))):
            ids = list(range(draw(st.integers(1, 4))))
            messages = [length_delimited(1, b"0.0.4")]  # GlobalMetadata, then the nodes
            messages += [draw(chakra_nodes(ids)) for _ in ids]
            data = b"".join(varint(len(m)) + m for m in messages)
            files.append(draw(damaged(data)))
    return [gzip.compress(data) if draw(st.booleans()) else data for data in files]


def chakra_bytes(program):
    with tempfile.TemporaryDirectory() as directory:
        return [path.read_bytes() for path in write_chakra(program, Path(directory) / "t")]


CHAKRA_SAMPLES = [chakra_bytes(SAMPLES[0]), chakra_bytes(SAMPLES[2])]  # whole microseconds
GZIP_OF_ZEROS = gzip.compress(b"\x00" * 4096)


@FUZZ
@given(files=chakra_traces())
@example(files=[GZIP_OF_ZEROS[:10] + b"\xff" + GZIP_OF_ZEROS[11:]])  # was a zlib.error
@example(files=[GZIP_OF_ZEROS[:-12]])  # was an EOFError
def test_chakra_traces(workdir, files):
    directory = workdir / "chakra"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir()
    for rank, data in enumerate(files):
        (directory / f"trace.{rank}.et").write_bytes(data)
    assert_loads_or_names_the_job({"trace": str(directory / "trace")})


# --- OTF2 -------------------------------------------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("otf2") is None, reason="needs exanet[otf2]")
# Derandomized: libotf2 (the otf2 package's C library) was seen looping forever at the end of a
# damaged trace.def, reading 0 bytes, once in a random run (not reproduced alone); the fixed
# examples keep CI deterministic while that is open.
@settings(FUZZ, max_examples=15, derandomize=True)
@given(data=st.data())
def test_otf2_archives(workdir, data):
    directory = workdir / "otf2"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir()
    write_otf2(data.draw(st.sampled_from(SAMPLES)), directory / "trace.otf2")
    parts = sorted(path for path in directory.rglob("*") if path.is_file())
    part = data.draw(st.sampled_from(parts))
    part.write_bytes(data.draw(damaged(part.read_bytes())))
    assert_loads_or_names_the_job({"trace": str(directory / "trace.otf2")})


# --- Python programs --------------------------------------------------------------------------

HELPERS = {
    "compute": compute,
    "send": send,
    "recv": recv,
    "isend": isend,
    "irecv": irecv,
    "wait": wait,
    "waitall": waitall,
    "barrier": barrier,
    "allreduce": allreduce,
    "bcast": bcast,
    "reduce": reduce,
    "allgather": allgather,
    "alltoall": alltoall,
    "alltoallv": alltoallv,
    "gather": gather,
    "scatter": scatter,
    "reduce_scatter": reduce_scatter,
    "scan": scan,
    "exscan": exscan,
    "comm": comm,
}
ARGUMENTS = st.one_of(
    INTEGERS,
    st.floats(),
    st.sampled_from(["4KiB", "1.5us", "2TiB", "1e30s", "x", "", "ring"]),
    st.none(),
    st.booleans(),
    st.lists(st.integers(0, 2), max_size=2),
)


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


EXCEPTIONS = [
    ValueError("bad"),
    SystemExit(0),
    SystemExit(5),
    GeneratorExit(),
    StopIteration(),
    MemoryError(),
    Unprintable(),
]
# what a program does at one step: yield a helper's operation, a hand-built Op or another
# value, raise, or yield without end
STEPS = st.one_of(
    st.tuples(st.just("helper"), st.sampled_from(list(HELPERS)), st.lists(ARGUMENTS, max_size=3)),
    st.tuples(st.just("op"), st.sampled_from([*OPS, "nap"]), st.lists(ARGUMENTS, max_size=7)),
    st.tuples(st.just("value"), st.one_of(ARGUMENTS, st.just(object()))),
    st.tuples(st.just("raise"), st.sampled_from(EXCEPTIONS)),
    st.tuples(st.just("endless")),
)


def generator_of(steps):
    def program(rank, size):
        for step in steps:
            if step[0] == "helper":
                yield HELPERS[step[1]](*step[2])
            elif step[0] == "op":
                yield Op(step[1], *step[2])
            elif step[0] == "value":
                yield step[1]
            elif step[0] == "raise":
                raise step[1]
            else:
                while True:
                    yield compute(1)

    return program


@FUZZ
@given(
    steps=st.lists(STEPS, max_size=6),
    ranks=st.one_of(st.integers(1, 3), INTEGERS),
    params=st.dictionaries(st.sampled_from(["size", "bytes", "x"]), ARGUMENTS, max_size=2),
)
@example(steps=[("raise", SystemExit(0))], ranks=2, params={})  # exited the caller
@example(steps=[], ranks=2, params={"x": 1})  # was a TypeError
@example(steps=[("helper", "send", [2**40, 8])], ranks=2, params={})  # was an OverflowError
@example(steps=[("helper", "compute", [1e19])], ranks=2, params={})  # wrapped the clock
@example(steps=[("endless",)], ranks=2, params={})  # never ended
@example(steps=[("raise", Unprintable())], ranks=1, params={})  # str() of it raised
@example(steps=[], ranks=2**31 - 1, params={})  # ran 2^31 empty generators
def test_python_programs(steps, ranks, params):
    with mock.patch.object(exanet.program, "MAX_OPERATIONS_PER_JOB", 1000), at_most(HANG_SECONDS):
        try:
            program = Program.from_generator(generator_of(steps), ranks, **params)
            core = program.validate("program").to_core()
        except ConfigError as exc:
            assert exc.key == "program", exc
        else:
            assert core["ranks"] == ranks
            assert all(len(column) == len(program) for column in core["ops"].values())


@st.composite
def program_files(draw):
    """Source of a program file: a valid one, one cut short, or one whose body is a step."""
    body = draw(st.sampled_from([
        "    yield send((rank + 1) % size, {a})\n    yield recv((rank - 1) % size, {a}, tag=0)\n",
        "    yield compute({a})\n",
        "    yield allreduce({a})\n    raise SystemExit({a})\n",
        "    import sys\n    sys.exit({a})\n    yield\n",
        "    while True:\n        yield compute(1)\n",
    ]))  # fmt: skip
    argument = draw(st.one_of(INTEGERS, st.sampled_from(["'4KiB'", "'1e30s'", "None", "[1]"])))
    source = (
        "from exanet.program import allreduce, compute, recv, send\n"
        "def program(rank, size):\n" + body.format(a=argument)
    )
    return draw(damaged(source.encode()))


@FUZZ
@given(source=program_files(), ranks=st.one_of(st.integers(1, 3), INTEGERS))
@example(source=b"import sys\nsys.exit(0)\n", ranks=2)  # `exanet run` exited 0, no output
@example(source=b"def program(rank, size):\n    yield\n", ranks=10**7)  # generated 10^7 ranks
def test_program_files(workdir, source, ranks):
    path = workdir / "program.py"
    path.write_bytes(source)
    with mock.patch.object(exanet.program, "MAX_OPERATIONS_PER_JOB", 1000):
        assert_loads_or_names_the_job({"program": str(path), "ranks": ranks})
