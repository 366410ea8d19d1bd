import sys
import time

import pandas as pd
import pytest

import exanet.program
from exanet.errors import ConfigError
from exanet.program import (
    COLUMNS,
    Op,
    Program,
    allreduce,
    barrier,
    bcast,
    comm,
    compute,
    exscan,
    gather,
    irecv,
    isend,
    recv,
    reduce_scatter,
    scan,
    scatter,
    send,
    wait,
    waitall,
)

DEFAULTS = {
    "peer": -1,
    "bytes": 0,
    "tag": 0,
    "compute_ns": 0.0,
    "communicator": 0,
    "request": -1,
    "algorithm": "",
}


def program_of(rows, ranks):
    """A Program from rows given as (rank, seq, op, {other columns})."""
    records = [
        {"rank": rank, "seq": seq, "op": op, **DEFAULTS, **extra}
        for rank, seq, op, *more in rows
        for extra in [more[0] if more else {}]
    ]
    return Program(pd.DataFrame(records, columns=list(COLUMNS)), ranks)


def exchange(rank, size, bytes="4KiB"):
    peer = 1 - rank
    received = yield irecv(peer, bytes, tag=5)
    sent = yield isend(peer, bytes, tag=5)
    yield compute("1.5us")
    yield wait(received)
    yield wait(sent)
    yield allreduce(256, algorithm="ring")


def test_generator_rows_and_request_ids_fed_back():
    replies = []

    def recorder(rank, size):
        replies.append((rank, (yield isend((rank + 1) % size, "1KiB"))))
        replies.append((rank, (yield irecv((rank - 1) % size, 1024, tag=0))))
        replies.append((rank, (yield compute(2.5))))

    Program.from_generator(recorder, 2)
    assert replies == [(0, 0), (0, 1), (0, None), (1, 0), (1, 1), (1, None)]

    program = Program.from_generator(exchange, 2, bytes="2KiB")
    columns = ["seq", "op", "peer", "bytes", "tag", "compute_ns", "request", "algorithm"]
    assert program.sorted().query("rank == 0")[columns].to_dict("records") == [
        {"seq": 0, "op": "irecv", "peer": 1, "bytes": 2048, "tag": 5, "compute_ns": 0.0,
         "request": 0, "algorithm": ""},
        {"seq": 1, "op": "isend", "peer": 1, "bytes": 2048, "tag": 5, "compute_ns": 0.0,
         "request": 1, "algorithm": ""},
        {"seq": 2, "op": "compute", "peer": -1, "bytes": 0, "tag": 0, "compute_ns": 1500.0,
         "request": -1, "algorithm": ""},
        {"seq": 3, "op": "wait", "peer": -1, "bytes": 0, "tag": 0, "compute_ns": 0.0,
         "request": 0, "algorithm": ""},
        {"seq": 4, "op": "wait", "peer": -1, "bytes": 0, "tag": 0, "compute_ns": 0.0,
         "request": 1, "algorithm": ""},
        {"seq": 5, "op": "allreduce", "peer": -1, "bytes": 256, "tag": 0, "compute_ns": 0.0,
         "request": -1, "algorithm": "ring"},
    ]  # fmt: skip
    assert program.ranks == 2 and len(program) == 12
    assert dict(program.ops.dtypes.astype(str)) == COLUMNS
    assert program.validate("traffic.jobs[0].trace") is program


def test_helpers_parse_units_and_defaults():
    assert send(3, "1MiB") == Op("send", peer=3, bytes=1 << 20, tag=0)
    assert recv() == Op("recv", peer=-1, bytes=0, tag=-1)
    assert compute("250ns") == Op("compute", compute_ns=250.0)
    assert bcast("1KB", root=2, comm=1) == Op("bcast", peer=2, bytes=1000, communicator=1)
    assert barrier() == Op("barrier")
    assert gather("1KB", root=2, comm=1) == Op("gather", peer=2, bytes=1000, communicator=1)
    assert scatter(8, algorithm="linear") == Op("scatter", peer=0, bytes=8, algorithm="linear")
    assert reduce_scatter("1KiB", "pairwise") == Op(
        "reduce_scatter", bytes=1024, algorithm="pairwise"
    )
    assert scan(4) == Op("scan", bytes=4)
    assert exscan(4, comm=2) == Op("exscan", bytes=4, communicator=2)
    assert comm(4) == Op("comm", communicator=4)
    assert waitall() == Op("waitall")


@pytest.mark.parametrize(
    ("make", "key", "expected"),
    [
        (lambda: send(1, "4 parsecs"), "send.bytes", "size unit"),
        (lambda: isend(1, -5), "isend.bytes", "non-negative"),
        (lambda: compute(-1), "compute.ns", "duration >= 0"),
        (lambda: compute("3 fortnights"), "compute.ns", "time unit"),
        (lambda: send(1.5, 8), "send.peer", "an integer"),
        # beyond what the core takes: these were OverflowErrors or wrapped around
        (lambda: send(2**40, 8), "send.peer", "-2147483648..2147483647"),
        (lambda: send(1, 8, tag=2**31), "send.tag", "-2147483648..2147483647"),
        (lambda: irecv(1, 2**63), "irecv.bytes", "at most 1099511627776 bytes"),
        (lambda: allreduce("2TiB"), "allreduce.bytes", "at most 1099511627776 bytes"),
        (lambda: wait(2**63), "wait.request", "-2147483648..2147483647"),
        (lambda: comm(-(2**40)), "comm.k", "-2147483648..2147483647"),
        (lambda: compute(1e19), "compute.ns", "at most 1000000000000000 ns"),
        (lambda: compute(10**400), "compute.ns", "at most 1000000000000000 ns"),
        (lambda: compute(float("inf")), "compute.ns", "at most 1000000000000000 ns"),
        (lambda: compute(float("nan")), "compute.ns", "duration >= 0"),
        (lambda: compute("1e7s"), "compute.ns", "at most 1000000000000000 ns"),
    ],
)
def test_helpers_refuse_bad_arguments(make, key, expected):
    with pytest.raises(ConfigError) as info:
        make()
    assert info.value.key == key
    assert expected in info.value.expected


def test_generator_must_yield_operations():
    def yields_text(rank, size):
        yield "send"

    def not_a_generator(rank, size):
        return [send(0, 1)]

    with pytest.raises(ConfigError, match="rank 0 yielded 'send'"):
        Program.from_generator(yields_text, 1)
    with pytest.raises(ConfigError, match="generator function"):
        Program.from_generator(not_a_generator, 1)
    with pytest.raises(ConfigError, match=r"ranks in 1\.\.2147483647"):
        Program.from_generator(exchange, 0)


def test_user_code_runs_isolated_and_its_failures_are_config_errors():
    def takes_no_params(rank, size):
        yield compute(1)

    def exits(rank, size):
        yield compute(1)
        sys.exit(0)

    def closes_itself(rank, size):
        raise GeneratorExit
        yield

    def helper_refuses(rank, size):
        yield send(2**40, 8)

    def hand_built_op(rank, size):
        yield Op("send", peer=2**40, bytes=8)

    def refuses_to_stop(rank, size):
        try:
            yield "send"
        finally:
            sys.exit(3)  # its cleanup, run when exanet gives up on it, exits too

    cases = [
        (takes_no_params, {"x": 1}, "unexpected keyword argument 'x'"),
        (exits, {}, "rank 0 after operation 1: SystemExit: 0"),
        (closes_itself, {}, "GeneratorExit"),
        (helper_refuses, {}, "rank 0 operation 0: send.peer = 1099511627776"),
        (hand_built_op, {}, "column peer row 0: 1099511627776"),
        (refuses_to_stop, {}, "rank 0 yielded 'send'"),
    ]
    for fn, params, value in cases:
        with pytest.raises(ConfigError) as info:
            Program.from_generator(fn, 2, **params)
        assert info.value.key == "program"
        assert value in info.value.value


def test_ctrl_c_in_a_program_is_not_swallowed():
    def interrupted(rank, size):
        yield compute(1)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Program.from_generator(interrupted, 2)


def test_a_generator_that_never_ends_stops_at_the_operation_limit(monkeypatch):
    monkeypatch.setattr(exanet.program, "MAX_OPERATIONS_PER_JOB", 1000)

    def endless(rank, size):
        while True:
            yield compute(1)

    def a_few_each(rank, size):
        for _ in range(400):
            yield compute(1)

    with pytest.raises(ConfigError) as info:
        Program.from_generator(endless, 2)
    assert info.value.value == "ranks 0..0: more than 1,000 operations"
    assert "MAX_OPERATIONS_PER_JOB" in info.value.expected
    assert len(Program.from_generator(a_few_each, 2)) == 800
    with pytest.raises(ConfigError, match=r"ranks 0\.\.2: more than 1,000"):
        Program.from_generator(a_few_each, 3)  # the limit is the job's, over its ranks
    with pytest.raises(ConfigError, match="at most 1,000 ranks for a generator program"):
        Program.from_generator(a_few_each, 1001)  # it runs once per rank, even doing nothing


def test_from_file_runs_program_with_params(tmp_path):
    path = tmp_path / "shift.py"
    path.write_text(
        "from exanet.program import send, recv\n"
        "def program(rank, size, bytes=8):\n"
        "    yield send((rank + 1) % size, bytes)\n"
        "    yield recv((rank - 1) % size, bytes, tag=0)\n"
    )
    program = Program.from_file(path, 3, {"bytes": "64B"}).validate()
    assert program.sorted()["bytes"].tolist() == [64] * 6
    assert program.sorted()["peer"].tolist() == [1, 2, 2, 0, 0, 1]

    (tmp_path / "empty.py").write_text("x = 1\n")
    with pytest.raises(ConfigError, match="def program"):
        Program.from_file(tmp_path / "empty.py", 2)
    with pytest.raises(ConfigError, match="readable Python file"):
        Program.from_file(tmp_path / "missing.py", 2)
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(5)\n")
    with pytest.raises(ConfigError, match=r"loads \(SystemExit: 5\)") as info:
        Program.from_file(tmp_path / "exits.py", 2, key="traffic.jobs[3].program")
    assert info.value.key == "traffic.jobs[3].program"
    with pytest.raises(ConfigError, match="readable Python file"):
        Program.from_file(tmp_path / "nul\0.py", 2)
    with pytest.raises(ConfigError, match="readable Python file"):
        Program.from_file(tmp_path / ("x" * 5000 + ".py"), 2)


def test_to_core_sorts_by_rank_and_seq_and_drops_seq():
    program = program_of(
        [
            (1, 1, "recv", {"peer": 0, "bytes": 64, "tag": 2}),
            (0, 1, "send", {"peer": 1, "bytes": 64, "tag": 2}),
            (1, 0, "compute", {"compute_ns": 0.0015}),
            (0, 0, "compute", {"compute_ns": 1.25}),
            (0, 2, "allreduce", {"bytes": 8, "algorithm": "rabenseifner"}),
            (1, 2, "allreduce", {"bytes": 8, "algorithm": "rabenseifner"}),
        ],
        ranks=2,
    )
    assert program.validate().to_core() == {
        "ranks": 2,
        "ops": {
            "rank": [0, 0, 0, 1, 1, 1],
            "op": ["compute", "send", "allreduce", "compute", "recv", "allreduce"],
            "peer": [-1, 1, -1, -1, 0, -1],
            "bytes": [0, 64, 8, 0, 64, 8],
            "tag": [0, 2, 0, 0, 2, 0],
            "compute_ps": [1250, 0, 0, 2, 0, 0],
            "communicator": [0, 0, 0, 0, 0, 0],
            "request": [-1, -1, -1, -1, -1, -1],
            "algorithm": ["", "", "rabenseifner", "", "", "rabenseifner"],
        },
    }
    core = program.to_core()["ops"]
    assert all(type(value) is int for value in core["compute_ps"] + core["bytes"])


PINGPONG = [
    (0, 0, "send", {"peer": 1, "bytes": 8}),
    (1, 0, "recv", {"peer": 0, "bytes": 8}),
]


@pytest.mark.parametrize(
    ("rows", "ranks", "value", "expected"),
    [
        (
            [*PINGPONG, (1, 1, "recv", {"peer": 0, "bytes": 8})],
            2,
            "rank 1 seq 1 recv (peer 0, tag 0, 8 B)",
            "a matching send: rank 0 sends 1 message(s) with tag 0 to rank 1, which receives 2",
        ),
        (
            [*PINGPONG, (0, 1, "isend", {"peer": 1, "bytes": 8, "tag": 3, "request": 0})],
            2,
            "rank 0 seq 1 isend (peer 1, tag 3, 8 B, request 0)",
            "a matching receive",
        ),
        ([*PINGPONG, (2, 0, "compute")], 2, "rank 2 seq 0 compute", "a rank in 0..1"),
        ([(0, 0, "send", {"peer": 1, "bytes": -8})], 2, "rank 0 seq 0 send", "bytes) >= 0"),
        ([(0, 0, "fetch")], 1, "rank 0 seq 0 fetch", "an op among compute, send"),
        (
            [(0, 0, "allreduce", {"algorithm": "bruck"})],
            1,
            "rank 0 seq 0 allreduce",
            "an algorithm for allreduce: one of recursive_doubling, ring, rabenseifner",
        ),
        ([(0, 0, "send", {"peer": 0, "algorithm": "ring"})], 1, "rank 0", 'no algorithm ("")'),
        ([(0, 0, "wait", {"request": 3})], 1, "rank 0 seq 0 wait (request 3)", "a request created"),
        (
            [
                (0, 0, "irecv", {"peer": 0, "bytes": 4, "tag": 1, "request": 0}),
                (0, 1, "send", {"peer": 0, "bytes": 4, "tag": 1}),
                (0, 2, "wait", {"request": 0}),
                (0, 3, "wait", {"request": 0}),
            ],
            1,
            "rank 0 seq 3 wait (request 0)",
            "not already waited for",
        ),
        (
            [
                (0, 0, "isend", {"peer": 0, "request": 0}),
                (0, 1, "irecv", {"peer": 0, "request": 0}),
            ],
            1,
            "rank 0 seq 1 irecv (peer 0, tag 0, 0 B, request 0)",
            "not held by an outstanding request",
        ),
        ([(0, 0, "compute"), (0, 0, "compute")], 1, "rank 0 seq 0 compute", "a seq not used"),
        ([(0, 0, "send", {"peer": 2})], 2, "rank 0 seq 0 send", "destination rank (peer) in 0..1"),
        ([(0, 0, "recv", {"peer": -2})], 2, "rank 0 seq 0 recv", "a source (peer) in 0..1 or -1"),
        ([(0, 0, "compute", {"compute_ns": -1.0})], 1, "rank 0 seq 0 compute", "(compute_ns) >= 0"),
        ([(0, 0, "barrier", {"communicator": 1})], 1, "rank 0 seq 0 barrier", "declared"),
        (
            [(0, 0, "comm", {"communicator": 1}), (0, 1, "bcast", {"communicator": 1, "peer": 1})],
            2,
            "rank 0 seq 1 bcast",
            "a root (peer) in 0..size-1",
        ),
        (
            [(0, 0, "allreduce"), (1, 0, "allgather")],
            2,
            "rank 1 seq 0 allgather on communicator 0",
            "collective 0 of rank 0 is allreduce",
        ),
        (
            [(0, 0, "barrier"), (0, 1, "barrier"), (1, 0, "barrier")],
            2,
            "rank 1 ends after 1 collectives on communicator 0",
            "the same collectives",
        ),
    ],
)
def test_validation_errors_name_the_row(rows, ranks, value, expected):
    program = program_of(rows, ranks)
    with pytest.raises(ConfigError) as info:
        program.validate("traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert value in info.value.value
    assert expected in info.value.expected


def test_wildcard_receives_skip_the_matching_check_and_communicators_validate():
    def program(rank, size):
        yield comm(1) if rank % 2 == 0 else comm(2)
        if rank == 0:
            yield recv()  # any source, any tag: rank 0 is not checked
            yield recv(-1, 8, tag=4)
        elif rank in (1, 2):
            yield send(0, 8, tag=rank)
        yield allreduce("1KiB", comm=1 if rank % 2 == 0 else 2, algorithm="ring")
        yield bcast(64, root=1, comm=1 if rank % 2 == 0 else 2)
        yield barrier()

    Program.from_generator(program, 4).validate()


def test_sizes_and_times_beyond_the_cores_range_are_refused_naming_the_row():
    huge = program_of(
        [(0, 0, "send", {"peer": 1, "bytes": 2**40 + 1}), (1, 0, "recv", {"peer": 0})], 2
    )
    with pytest.raises(ConfigError, match="at most 1099511627776 bytes") as info:
        huge.validate("traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.value.startswith("rank 0 seq 0 send")
    # each compute fits, their sum on rank 1 does not: the core's clock would wrap
    long = [(1, seq, "compute", {"compute_ns": 4e14}) for seq in range(3)]
    with pytest.raises(ConfigError, match=r"at most 1000000000000000 ns \(10\^6 s\)") as info:
        program_of([(0, 0, "compute", {"compute_ns": 9e14}), *long], 2).validate()
    assert info.value.value == "rank 1 seq 2 compute"


def test_validation_does_not_grow_with_the_declared_ranks():
    billion = program_of([(0, 0, "compute", {"compute_ns": 1.0})], 10**9)
    started = time.perf_counter()
    billion.validate()
    assert time.perf_counter() - started < 2.0  # it built a set of 10^9 ranks: minutes
    # ranks without a collective still break one that others call on communicator 0
    rows = [(r, 0, "barrier") for r in (0, 1, 5)]
    with pytest.raises(ConfigError, match="rank 2 ends after 0 collectives"):
        program_of(rows, 10**9).validate()
    with pytest.raises(ConfigError, match=r"ranks in 1\.\.2147483647"):
        program_of(rows, 2**31)


def test_constructor_checks_columns_and_types():
    frame = program_of(PINGPONG, 2).ops
    with pytest.raises(ConfigError, match="missing: tag") as info:
        Program(frame.drop(columns="tag"), 2, key="job.trace")
    assert info.value.key == "job.trace"
    with pytest.raises(ConfigError, match="unknown: color"):
        Program(frame.assign(color="red"), 2)
    with pytest.raises(ConfigError, match=r"column peer row 1: 'one'") as info:
        Program(frame.assign(peer=["1", "one"]), 2)
    assert "integer" in info.value.expected
    with pytest.raises(ConfigError, match=r"column bytes row 0: 1\.5"):
        Program(frame.assign(bytes=[1.5, 8.0]), 2)
    with pytest.raises(ConfigError, match="column op row 1: nan"):
        Program(frame.assign(op=["send", None]), 2)
    with pytest.raises(ConfigError, match=r"ranks in 1\.\.2147483647"):
        Program(frame, 0)
    as_text = Program(frame.astype(str).assign(algorithm=""), 2)
    pd.testing.assert_frame_equal(as_text.ops, frame)
