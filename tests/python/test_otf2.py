"""The OTF2 importer and writer: round trips, replay, the shipped sample, the mapping of a trace
laid out the way Score-P writes one, and the errors."""

import sys
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

import exanet
from exanet.errors import ConfigError
from exanet.program import (
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
from exanet.traces import load_trace, read_otf2, write_otf2
from exanet.traces import otf2 as otf2_module
from exanet.traces.otf2 import archive_paths
from exanet.traces.samples import ring_exchange

# The otf2 wheels exist for CPython 3.11 on x86-64 Linux only (pyproject.toml).
otf2 = pytest.importorskip("otf2")

SAMPLES = Path(exanet.__file__).parent / "data" / "traces"
E = otf2.events
LOCATION_FILES = [f"{rank}.{suffix}" for rank in range(4) for suffix in ("def", "evt")]


def everything(rank, size):
    """Every operation OTF2 can carry: communicators, roots, blocking and non-blocking messages
    (some larger than the eager limit), waits and waitall, fractional compute times."""
    yield comm(1) if rank < 2 else comm(2)
    sub = 1 if rank < 2 else 2
    yield compute(0.125)
    r = yield irecv((rank - 1) % size, 512, tag=1)
    s = yield isend((rank + 1) % size, 512, tag=1)
    yield compute("1us")
    yield wait(r)
    yield alltoall(64)
    yield bcast("1KiB", root=1, comm=sub)
    yield wait(s)
    yield reduce(8, root=2)
    if rank % 2 == 0:
        yield send(rank + 1, 4, tag=2)
        yield recv(rank + 1, 40000, tag=3)
    else:
        yield recv(rank - 1, 4, tag=2)
        yield send(rank - 1, 40000, tag=3)
    yield allgather(16, comm=sub)
    yield alltoallv(1000)
    yield isend((rank + 1) % size, 1, tag=4)
    yield irecv((rank - 1) % size, 1, tag=4)
    yield barrier()
    yield allreduce("4KiB")
    yield waitall()
    yield compute("2.5us")


def test_round_trip_gives_the_same_operations(tmp_path):
    program = Program.from_generator(everything, 4).validate()
    path = tmp_path / "everything.otf2"
    assert write_otf2(program, path) is None
    anchor, definitions, events = archive_paths(path)
    assert anchor.is_file() and definitions.is_file()
    assert sorted(p.name for p in events.iterdir()) == LOCATION_FILES
    back = read_otf2(path).validate()
    assert back.ranks == 4
    pd.testing.assert_frame_equal(back.sorted(), program.sorted())
    assert back.to_core() == program.to_core()
    # the archive is what Score-P would record: one MPI call per operation
    with otf2.reader.open(str(path)) as trace:
        rank0 = trace.definitions.locations[0]
        names = [type(event).__name__ for location, event in trace.events if location == rank0]
    assert names.count("MpiCollectiveEnd") == 7
    assert names.count("MpiIrecvRequest") == names.count("MpiIrecv") == 2
    assert names.count("MpiIsend") == names.count("MpiIsendComplete") == 2


def new_collectives(rank, size):
    """The collectives added for real traces, on the world and on two sub-communicators, with
    roots other than 0 and a reduce_scatter buffer that does not split evenly."""
    yield comm(1) if rank % 2 == 0 else comm(2)
    sub = 1 if rank % 2 == 0 else 2
    yield gather(24, root=3)
    yield compute(1.5)
    yield scatter(100, root=1, comm=sub)
    yield reduce_scatter(1001)
    yield scan(64, comm=sub)
    yield exscan(48)
    yield gather(8, root=0, comm=sub)
    yield scatter("1KiB")
    yield compute(2)


def test_the_collectives_of_real_traces_round_trip(tmp_path):
    program = Program.from_generator(new_collectives, 5).validate()
    path = tmp_path / "new.otf2"
    write_otf2(program, path)
    pd.testing.assert_frame_equal(read_otf2(path).validate().sorted(), program.sorted())
    with otf2.reader.open(str(path)) as trace:
        rank3 = trace.definitions.locations[3]
        ends = [
            (str(event.collective_op).rsplit(".", 1)[-1], event.size_sent, event.size_received)
            for location, event in trace.events
            if location == rank3 and isinstance(event, E.MpiCollectiveEnd)
        ]
    # Score-P's sizes on rank 3: root of the gather, and rank 1 of 2 on communicator 2, so root
    # of its scatter
    assert ends == [
        ("GATHER", 24, 5 * 24),
        ("SCATTER", 2 * 100, 100),
        ("REDUCE_SCATTER", 1001, 5 * 200),  # blocks of 201, 200, 200, 200, 200 bytes
        ("SCAN", 64, 2 * 64),
        ("EXSCAN", 48, 3 * 48),
        ("GATHER", 8, 0),
        ("SCATTER", 0, 1024),
    ]


PROGRAM = """\
from exanet.program import allreduce, comm, compute, irecv, isend, reduce, send, recv, wait, waitall

def program(rank, size):
    yield comm(1) if rank % 2 == 0 else comm(2)
    for step in range(3):
        yield compute("2us")
        r = yield irecv((rank - 1) % size, "32KiB", tag=step)
        yield isend((rank + 1) % size, "32KiB", tag=step)
        yield wait(r)
        yield reduce("4KiB", root=1, comm=1 + rank % 2)
        if rank % 2 == 0:
            yield send(rank + 1, "20KiB", tag=9)
        else:
            yield recv(rank - 1, "20KiB", tag=9)
        yield allreduce("64KiB")
    yield waitall()
    yield compute("750ns")
"""


def test_replaying_the_trace_takes_the_time_of_the_program(tmp_path):
    source = tmp_path / "exchange.py"
    source.write_text(PROGRAM)
    path = tmp_path / "exchange.otf2"
    write_otf2(Program.from_file(source, 8), path)

    def run(job):
        topology = {"kind": "torus", "dims": [4, 4]}
        traffic = {"kind": "jobs", "jobs": [job], "send_overhead": "100ns"}
        return exanet.simulate(
            {"topology": topology, "router": {"vc_buffer": "16KiB"}, "traffic": traffic}
        )

    direct = run({"program": str(source), "ranks": 8, "name": "exchange"})
    replayed = run({"trace": str(path), "name": "exchange"})
    completion_ns = direct.jobs["completion_ns"][0]
    assert replayed.jobs["completion_ns"][0] == completion_ns
    assert completion_ns > 3 * 2000 + 750  # the compute alone
    assert replayed.summary["messages_sent"] == direct.summary["messages_sent"] > 8 * 3 * 2
    assert replayed.summary["bytes_sent"] == direct.summary["bytes_sent"]
    assert replayed.summary["delivery_checksum_ok"]


def test_the_shipped_sample_loads_validates_and_matches_its_generator():
    anchor, definitions, events = archive_paths(SAMPLES / "ring_exchange.otf2")
    assert anchor.is_file() and definitions.is_file()
    assert sorted(p.name for p in events.iterdir()) == LOCATION_FILES
    program = load_trace(anchor, ranks=4).validate("traffic.jobs[0].trace")
    pd.testing.assert_frame_equal(
        program.sorted(), Program.from_generator(ring_exchange, 4).sorted()
    )
    rank0 = program.sorted().query("rank == 0")
    assert rank0["op"].tolist() == (
        ["compute", "irecv", "isend", "wait", "allreduce"] * 2 + ["waitall", "compute"]
    )
    assert rank0.query("op == 'compute'")["compute_ns"].tolist() == [3000.0, 3000.0, 500.0]


# --- a trace laid out the way Score-P writes one ----------------------------------------------


def write_scorep_like(path, rank0_events, ranks=3):
    """An archive with MPI_COMM_WORLD, `split` (job ranks 2 and 0, in that communicator-rank
    order), MPI_COMM_SELF and `dup` (a duplicate of the world), on a nanosecond clock; rank 0
    gets `rank0_events(comms, region)`, the others an empty `main`."""
    write_scorep_trace(
        path, ranks, lambda rank, comms, region: rank0_events(comms, region) if rank == 0 else []
    )


def write_scorep_trace(path, ranks, rank_events):
    """An archive with the communicators of `write_scorep_like`; rank r gets
    `rank_events(r, comms, region)`, or an empty `main` where that is empty."""
    with otf2.writer.open(
        str(path.parent), archive_name=path.stem, timer_resolution=10**9
    ) as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        locations = [
            d.location(
                "Master thread", group=d.location_group(f"rank {r}", system_tree_parent=node)
            )
            for r in range(ranks)
        ]
        mpi, group_type = otf2.Paradigm.MPI, otf2.GroupType
        d.group("locations", group_type=group_type.COMM_LOCATIONS, paradigm=mpi, members=locations)

        def group(name, members, kind=group_type.COMM_GROUP):
            return d.group(name, group_type=kind, paradigm=mpi, members=members)

        world_group = group("world", locations)
        world = d.comm("MPI_COMM_WORLD", group=world_group)
        comms = {
            "world": world,
            "split": d.comm(
                "split", group=group("split", [locations[-1], locations[0]]), parent=world
            ),
            "self": d.comm("MPI_COMM_SELF", group=group("self", [], group_type.COMM_SELF)),
            "dup": d.comm("dup", group=world_group, parent=world),
        }
        regions = {}

        def region(name):
            paradigm = mpi if name.startswith("MPI_") else otf2.Paradigm.USER
            return regions.setdefault(name, d.region(name, paradigm=paradigm))

        for rank, location in enumerate(locations):
            write = trace.event_writer_from_location(location)
            events = rank_events(rank, comms, region)
            for event in events or [E.Enter(5000, region("main")), E.Leave(5000, region("main"))]:
                write(event)


def call(region, name, enter, leave, *events):
    """The MPI call `name` from tick `enter` to tick `leave`, with its events."""
    return [E.Enter(enter, region(name)), *events, E.Leave(leave, region(name))]


def collective_end(tick, name, comm, root, sent, received):
    op = getattr(otf2.CollectiveOp, name)
    return [E.MpiCollectiveBegin(tick), E.MpiCollectiveEnd(tick, op, comm, root, sent, received)]


NO_ROOT = 2**32 - 1


def rank0_story(comms, region):
    world, split, mpi = comms["world"], comms["split"], partial(call, region)
    create = collective_end(1750, "CREATE_HANDLE", world, NO_ROOT, 0, 0)
    allreduce_3x32 = collective_end(4050, "ALLREDUCE", comms["dup"], NO_ROOT, 96, 96)
    sendrecv = [E.MpiSend(2000, 1, world, 5, 100), E.MpiRecv(2400, 1, world, 6, 200)]
    return [
        E.Enter(1000, region("main")),
        *mpi("MPI_Init", 1200, 1500),  # MPI time: neither compute nor an operation
        *mpi("MPI_Comm_split", 1700, 1800, *create),
        *mpi("MPI_Sendrecv", 2000, 2500, *sendrecv),
        *mpi("MPI_Irecv", 2600, 2610, E.MpiIrecvRequest(2605, 77)),
        *mpi("MPI_Isend", 2700, 2710, E.MpiIsend(2705, 0, split, 9, 300, 78)),
        # completes the irecv but not the isend: a wait, not a waitall
        *mpi("MPI_Waitall", 3000, 3100, E.MpiIrecv(3050, 1, world, 7, 400, 77)),
        # in-place root (communicator rank 0 = job rank 2): 0 sent, (N - 1)·B received
        *mpi("MPI_Reduce", 3200, 3300, *collective_end(3250, "REDUCE", split, 0, 0, 64)),
        *mpi("MPI_Bcast", 3400, 3450, *collective_end(3420, "BCAST", comms["self"], 0, 8, 8)),
        E.Enter(3500, region("solver")),
        E.MpiSend(3600, 2, world, 1, 10),  # outside any MPI region: a call of no length
        E.Leave(3700, region("solver")),
        *mpi("MPI_Wait", 3800, 3900, E.MpiIsendComplete(3850, 78)),
        *mpi("MPI_Allreduce", 4000, 4100, *allreduce_3x32),
        *mpi("MPI_Irecv", 4100, 4110, E.MpiIrecvRequest(4105, 79)),
        *mpi("MPI_Test", 4200, 4250, E.MpiRequestCancelled(4220, 79)),
        E.Leave(4500, region("main")),
    ]


def test_a_scorep_like_trace_maps_calls_requests_collectives_and_communicators(tmp_path):
    path = tmp_path / "scorep.otf2"
    write_scorep_like(path, rank0_story)
    program = read_otf2(path, ranks=3)
    rows = list(
        program.sorted()
        .query("rank == 0")[["op", "peer", "bytes", "tag", "compute_ns", "communicator", "request"]]
        .itertuples(index=False, name=None)
    )
    assert rows == [
        ("comm", -1, 0, 0, 0.0, 1, -1),  # split: id 1; MPI_COMM_SELF: none
        ("comm", -1, 0, 0, 0.0, 2, -1),  # dup has every rank but a parent: id 2, not 0
        ("compute", -1, 0, 0, 200.0, 0, -1),  # first event -> MPI_Init
        ("compute", -1, 0, 0, 200.0, 0, -1),  # MPI_Init -> MPI_Comm_split (skipped)
        ("compute", -1, 0, 0, 200.0, 0, -1),
        ("isend", 1, 100, 5, 0.0, 0, 0),  # MPI_Sendrecv: both at once
        ("irecv", 1, 200, 6, 0.0, 0, 1),
        ("wait", -1, 0, 0, 0.0, 0, 0),
        ("wait", -1, 0, 0, 0.0, 0, 1),
        ("compute", -1, 0, 0, 100.0, 0, -1),
        ("irecv", 1, 400, 7, 0.0, 0, 2),  # source, size and tag from its completion
        ("compute", -1, 0, 0, 90.0, 0, -1),
        ("isend", 2, 300, 9, 0.0, 0, 3),  # split rank 0 is job rank 2
        ("compute", -1, 0, 0, 290.0, 0, -1),
        ("wait", -1, 0, 0, 0.0, 0, 2),
        ("compute", -1, 0, 0, 100.0, 0, -1),
        ("reduce", 1, 64, 0, 0.0, 1, -1),  # root: job rank 2, second of split's ranks (0, 2)
        ("compute", -1, 0, 0, 100.0, 0, -1),  # the bcast over MPI_COMM_SELF moves nothing
        ("compute", -1, 0, 0, 150.0, 0, -1),
        ("send", 2, 10, 1, 0.0, 0, -1),
        ("compute", -1, 0, 0, 200.0, 0, -1),
        ("wait", -1, 0, 0, 0.0, 0, 3),
        ("compute", -1, 0, 0, 100.0, 0, -1),
        ("allreduce", -1, 32, 0, 0.0, 2, -1),  # 96 B sent = 3 ranks x 32 B
        ("compute", -1, 0, 0, 90.0, 0, -1),  # the cancelled irecv is gone
        ("compute", -1, 0, 0, 250.0, 0, -1),  # last Leave of MPI -> last event
    ]
    # ranks 1 and 2 only declare their communicators
    assert program.sorted().query("rank > 0")["op"].tolist() == ["comm", "comm", "comm"]
    assert program.sorted().query("rank == 2")["communicator"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("events", "value", "expected"),
    [
        (
            lambda comms, region: call(
                region, "MPI_Ibcast", 10, 20, E.NonBlockingCollectiveRequest(15, 7)
            ),
            "rank 0: non-blocking collective request 7 of MPI_Ibcast",
            "a NonBlockingCollectiveComplete completing each NonBlockingCollectiveRequest",
        ),
        (
            lambda comms, region: [
                E.NonBlockingCollectiveComplete(
                    10, otf2.CollectiveOp.BARRIER, comms["world"], NO_ROOT, 0, 0, 7
                )
            ],
            "NonBlockingCollectiveComplete at 0 ns: request 7",
            "a request started by a NonBlockingCollectiveRequest before",
        ),
        (
            lambda comms, region: [E.MpiIsendComplete(10, 5)],
            "rank 0, MpiIsendComplete at 0 ns: request 5",
            "a request started by an MpiIsend before",
        ),
        (
            lambda comms, region: [
                E.MpiIsend(10, 1, comms["world"], 0, 8, 5),
                E.MpiRequestCancelled(20, 5),
            ],
            "MpiRequestCancelled at 10 ns: request 5",
            "a cancelled receive (not a send)",
        ),
        (
            lambda comms, region: [E.MpiIrecvRequest(10, 5)],
            "rank 0: irecv request 0",
            "an MpiIrecv completing each MpiIrecvRequest",
        ),
        (
            lambda comms, region: [E.MpiSend(10, 2, comms["split"], 0, 8)],
            "rank 2 of split",
            "a rank in 0..1",
        ),
        # beyond what the core takes: an OverflowError, a message simulated until killed, a
        # compute time that wrapped the core's clock around
        (
            lambda comms, region: [E.MpiSend(10, 1, comms["world"], 2**31, 8)],
            "MpiSend at 0 ns: tag 2147483648",
            "a tag in 0..2147483647",
        ),
        (
            lambda comms, region: [E.MpiSend(10, 1, comms["world"], 0, 2**63)],
            "MpiSend at 0 ns: 9223372036854775808 bytes",
            "at most 1099511627776 bytes",
        ),
        (
            lambda comms, region: collective_end(10, "BCAST", comms["world"], 0, 0, 2**41),
            "MpiCollectiveEnd at 0 ns: 2199023255552 bytes",
            "at most 1099511627776 bytes",
        ),
        (
            lambda comms, region: [E.Enter(0, region("main")), E.Leave(10**16, region("main"))],
            "compute of 1e+16 ns",
            "at most 1000000000000000 ns",
        ),
    ],
)
def test_what_exanet_cannot_read_is_refused_naming_the_key_and_event(
    tmp_path, events, value, expected
):
    path = tmp_path / "bad.otf2"
    write_scorep_like(path, events)
    with pytest.raises(ConfigError) as info:
        load_trace(path, key="traffic.jobs[2].trace")
    assert info.value.key == "traffic.jobs[2].trace"
    assert str(path) in info.value.value
    assert value in info.value.value
    assert expected in info.value.expected


def icoll_complete(tick, name, comm, root, sent, received, request):
    op = getattr(otf2.CollectiveOp, name)
    return E.NonBlockingCollectiveComplete(tick, op, comm, root, sent, received, request)


def sst_macro_like(rank, comms, region):
    """Rank `rank` of 10 in a trace like SST/macro's Score-P test trace, sizes as Score-P
    records them: MPI_Gather (root 0, 8 B each), MPI_Scatter (root 0, 400 B each), MPI_Gatherv
    (root 3, rank r gives 8·(r + 1) B), MPI_Ibarrier and MPI_Ibcast (root 0, 1 KiB) completed
    by two MPI_Waits in the other order, MPI_Allgatherv (rank r gives 4·(r + 1) B)."""
    world, mpi, n = comms["world"], partial(call, region), 10
    gatherv_own, allgatherv_own = 8 * (rank + 1), 4 * (rank + 1)
    return [
        E.Enter(0, region("main")),
        *mpi("MPI_Init", 100, 200),
        *mpi(
            "MPI_Gather",
            *(1000, 1100),
            *collective_end(1050, "GATHER", world, 0, 8, 8 * n if rank == 0 else 0),
        ),
        *mpi(
            "MPI_Scatter",
            *(1200, 1300),
            *collective_end(1250, "SCATTER", world, 0, 400 * n if rank == 0 else 0, 400),
        ),
        *mpi(
            "MPI_Gatherv",
            *(1400, 1500),
            *collective_end(1450, "GATHERV", world, 3, gatherv_own, 440 if rank == 3 else 0),
        ),
        *mpi("MPI_Ibarrier", 1600, 1610, E.NonBlockingCollectiveRequest(1605, 100)),
        *mpi("MPI_Ibcast", 1700, 1710, E.NonBlockingCollectiveRequest(1705, 101)),
        *mpi(
            "MPI_Wait",
            *(2000, 2100),
            icoll_complete(2050, "BCAST", world, 0, 1024 * n if rank == 0 else 0, 1024, 101),
        ),
        *mpi("MPI_Wait", 2200, 2300, icoll_complete(2250, "BARRIER", world, NO_ROOT, 0, 0, 100)),
        *mpi(
            "MPI_Allgatherv",
            *(2400, 2500),
            *collective_end(2450, "ALLGATHERV", world, NO_ROOT, n * allgatherv_own, 220),
        ),
        *mpi("MPI_Finalize", 2600, 2700),
        E.Leave(3000, region("main")),
    ]


SST_MACRO_LIKE_ROWS = [  # (op, peer, bytes, communicator, compute_ns) of each rank
    ("compute", -1, 0, 0, 100.0),
    ("compute", -1, 0, 0, 800.0),
    ("gather", 0, 8, 0, 0.0),
    ("compute", -1, 0, 0, 100.0),
    ("scatter", 0, 400, 0, 0.0),
    ("compute", -1, 0, 0, 100.0),
    ("gather", 3, 44, 0, 0.0),  # the mean block: 8·(1 + ... + 10) / 10
    ("compute", -1, 0, 0, 100.0),
    ("compute", -1, 0, 0, 90.0),
    ("compute", -1, 0, 0, 290.0),
    ("barrier", -1, 0, 0, 0.0),  # requested first: it runs first, in the first MPI_Wait
    ("bcast", 0, 1024, 0, 0.0),
    ("compute", -1, 0, 0, 100.0),
    ("compute", -1, 0, 0, 100.0),  # the second MPI_Wait completes what has run
    ("allgather", -1, 22, 0, 0.0),  # 4·(1 + ... + 10) / 10
    ("compute", -1, 0, 0, 100.0),
    ("compute", -1, 0, 0, 300.0),
]


def rows(program, rank, columns=("op", "peer", "bytes", "communicator", "compute_ns")):
    """The rows of `rank` but the communicators it declares (the archive's split and dup)."""
    ops = program.sorted().query(f"rank == {rank} and op != 'comm'")
    return list(ops[list(columns)].itertuples(index=False, name=None))


def test_a_trace_like_sst_macros_maps_rooted_vector_and_non_blocking_collectives(tmp_path):
    path = tmp_path / "sst_macro_like.otf2"
    write_scorep_trace(path, 10, sst_macro_like)
    program = read_otf2(path, ranks=10)
    for rank in range(10):
        assert rows(program, rank) == SST_MACRO_LIKE_ROWS, rank


def test_the_trace_like_sst_macros_replays_as_a_job(tmp_path):
    path = tmp_path / "sst_macro_like.otf2"
    write_scorep_trace(path, 10, sst_macro_like)
    result = exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "links": {"bandwidth": "1GB/s"},  # 1 B/ns: the collectives' bytes take time
            "router": {"vc_buffer": "16KiB"},
            "traffic": {"kind": "jobs", "jobs": [{"trace": str(path), "name": "sst_macro"}]},
        }
    )
    compute_ns = sum(row[4] for row in SST_MACRO_LIKE_ROWS)
    assert compute_ns == 2180
    # rank 0 alone, one collective after the other: it receives the other 9 ranks' 8 B of the
    # gather, sends at least their 400 B of the scatter and the 1 KiB of the bcast once, and
    # receives 9 blocks of 22 B in the allgather, at 1 B/ns
    communication_ns = 9 * 8 + 9 * 400 + 1024 + 9 * 22
    assert result.jobs["completion_ns"][0] >= compute_ns + communication_ns
    assert result.summary["messages_sent"] > 0
    assert result.summary["delivery_checksum_ok"]


def order_story(rank, comms, region):
    """Two ranks request an MPI_Iallreduce (64 B) and then an MPI_Ibcast (root 1, 32 B); rank 0
    calls an MPI_Barrier before completing them, the Ibcast first; rank 1 completes them in
    request order and then calls the MPI_Barrier."""
    world, mpi = comms["world"], partial(call, region)
    allreduce = icoll_complete(0, "ALLREDUCE", world, NO_ROOT, 128, 128, 5)
    bcast = icoll_complete(0, "BCAST", world, 1, 64 if rank == 1 else 0, 32, 6)
    barrier = mpi("MPI_Barrier", 0, 0, *collective_end(0, "BARRIER", world, NO_ROOT, 0, 0))
    requests = [
        *mpi("MPI_Iallreduce", 100, 110, E.NonBlockingCollectiveRequest(105, 5)),
        *mpi("MPI_Ibcast", 200, 210, E.NonBlockingCollectiveRequest(205, 6)),
    ]
    if rank == 0:
        calls = [barrier, mpi("MPI_Wait", 0, 0, bcast), mpi("MPI_Wait", 0, 0, allreduce)]
    else:
        calls = [mpi("MPI_Wait", 0, 0, allreduce), mpi("MPI_Wait", 0, 0, bcast), barrier]
    events = [E.Enter(0, region("main")), *requests]
    for i, events_of_call in enumerate(calls):  # 100 ns apart, from 1000 ns
        tick = 1000 + 100 * i
        for event in events_of_call:
            event.time = tick + (10 if type(event).__name__ != "Enter" else 0)
        events += events_of_call
    return [*events, E.Leave(2000, region("main"))]


def test_non_blocking_collectives_run_in_request_order_where_the_first_completes(tmp_path):
    path = tmp_path / "order.otf2"
    write_scorep_trace(path, 2, order_story)
    program = read_otf2(path, ranks=2)
    collectives = [("allreduce", -1, 64), ("bcast", 1, 32), ("barrier", -1, 0)]
    for rank in range(2):
        ops = program.sorted().query(f"rank == {rank} and op not in ('compute', 'comm')")
        assert list(ops[["op", "peer", "bytes"]].itertuples(index=False, name=None)) == (
            collectives
        )
    # where they run: rank 0 runs both before its barrier, learning their sizes later; rank 1
    # runs each at its own completion
    compute = ("compute", 0)
    requests = [compute] * 3  # main -> MPI_Iallreduce -> MPI_Ibcast -> the first call
    assert rows(program, 0, ("op", "bytes")) == [
        *requests,
        *[("allreduce", 64), ("bcast", 32), ("barrier", 0)],
        *[compute] * 3,
    ]
    assert rows(program, 1, ("op", "bytes")) == [
        *requests,
        *[("allreduce", 64), compute, ("bcast", 32), compute, ("barrier", 0), compute],
    ]


@pytest.mark.parametrize(
    ("name", "sent", "received", "me", "expected"),
    [  # 4 ranks, block B = 8 (scan, exscan, reduce_scatter: the buffer S = 8); root: rank 1
        ("GATHER", 8, 0, 0, 8),
        ("GATHER", 8, 32, 1, 8),
        ("GATHER", 0, 24, 1, 8),  # in place: (N - 1)·B received
        ("GATHERV", 5, 0, 0, 5),  # each rank's own block (averaged later)
        ("GATHERV", 0, 27, 1, 9),  # in place: the others' blocks, 27 B
        ("SCATTER", 0, 8, 0, 8),
        ("SCATTER", 32, 8, 1, 8),
        ("SCATTER", 24, 0, 1, 8),  # in place: (N - 1)·B sent
        ("SCATTERV", 30, 6, 1, 6),
        ("SCATTERV", 24, 0, 1, 8),
        ("BCAST", 32, 8, 1, 8),
        ("REDUCE", 0, 24, 1, 8),
        ("ALLGATHERV", 20, 36, 2, 5),  # 4 times its own 5 B sent
        ("ALLTOALLW", 100, 60, 0, 100),
        ("REDUCE_SCATTER", 8, 8, 3, 8),  # S sent, N times its own block received
        ("REDUCE_SCATTER_BLOCK", 8, 8, 0, 8),
        ("SCAN", 32, 8, 0, 8),  # (N - me)·S, (me + 1)·S
        ("SCAN", 8, 32, 3, 8),
        ("SCAN", 16, 8, 1, 8),  # in place: (N - me - 1)·S, me·S
        ("SCAN", 0, 24, 3, 8),
        ("EXSCAN", 24, 0, 0, 8),
        ("EXSCAN", 8, 16, 2, 8),
        ("BARRIER", 0, 0, 2, 0),
    ],
)
def test_collective_sizes_are_read_by_score_ps_convention(name, sent, received, me, expected):
    assert otf2_module._collective_bytes(name, sent, received, 4, me) == expected


def test_a_collective_exanet_has_no_counterpart_of_is_refused(tmp_path, monkeypatch):
    # every collective OTF2 3 defines is read: a later one would be refused like this
    monkeypatch.delitem(otf2_module.COLLECTIVES, "SCAN")
    path = tmp_path / "scan.otf2"
    write_scorep_like(
        path, lambda comms, region: collective_end(10, "SCAN", comms["world"], NO_ROOT, 8, 8)
    )
    with pytest.raises(ConfigError) as info:
        read_otf2(path)
    assert "MpiCollectiveEnd at 0 ns: collective SCAN" in info.value.value
    assert info.value.expected.startswith("a collective exanet has: BARRIER, BCAST, GATHER")


# --- errors -----------------------------------------------------------------------------------


def test_missing_and_corrupt_archives_and_rank_counts_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"anchor file <name>\.otf2 \(missing\)") as info:
        load_trace(tmp_path / "none.otf2", key="traffic.jobs[0].trace")
    assert info.value.key == "traffic.jobs[0].trace"
    (tmp_path / "corrupt.otf2").write_bytes(b"not an OTF2 anchor file\n" * 4)
    with pytest.raises(ConfigError, match="a readable OTF2 archive") as info:
        read_otf2(tmp_path / "corrupt.otf2")
    assert info.value.key == "trace"
    assert info.value.value == str(tmp_path / "corrupt.otf2")
    # damaged event files: definitions read, events not (every rank's, so that no order in
    # which the library visits the ranks reads the trace to its end without one)
    path = tmp_path / "damaged.otf2"
    write_otf2(Program.from_generator(everything, 4), path)
    events = sorted(path.with_suffix("").glob("*.evt"))
    assert len(events) == 4
    for event_file in events:
        event_file.write_bytes(b"\x00" * 64)
    with pytest.raises(ConfigError, match="a readable OTF2 archive"):
        read_otf2(path)
    with pytest.raises(ConfigError, match="a trace of 3 ranks") as info:
        load_trace(SAMPLES / "ring_exchange.otf2", ranks=3, key="traffic.jobs[1].trace")
    assert info.value.key == "traffic.jobs[1].trace"
    assert info.value.value.endswith("(4 ranks)")


def test_without_the_otf2_package_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "otf2", None)  # `import otf2` now raises ImportError
    sample = SAMPLES / "ring_exchange.otf2"
    expected = 'the optional OTF2 reader: pip install "exanet[otf2]"'
    with pytest.raises(ConfigError) as info:
        read_otf2(sample)
    assert (info.value.key, info.value.value, info.value.expected) == (
        "trace",
        str(sample),
        expected,
    )
    topology = {"kind": "torus", "dims": [2, 2]}
    traffic = {"kind": "jobs", "jobs": [{"trace": str(sample)}]}
    with pytest.raises(ConfigError) as info:
        exanet.simulate({"topology": topology, "traffic": traffic})
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.expected == expected
    with pytest.raises(ConfigError, match='pip install "exanet\\[otf2\\]"'):
        write_otf2(Program.from_generator(ring_exchange, 2), tmp_path / "x.otf2")


def test_write_otf2_refuses_what_otf2_cannot_record_and_existing_archives(tmp_path):
    def wildcard(rank, size):
        yield send(1, 8) if rank == 0 else recv(0, 8)

    with pytest.raises(ConfigError, match="no wildcard receives") as info:
        write_otf2(Program.from_generator(wildcard, 2), tmp_path / "w.otf2")
    assert info.value.value == "rank 1 seq 0 recv"

    def algorithm(rank, size):
        yield allreduce(64, algorithm="ring")

    with pytest.raises(ConfigError, match="no collective algorithms"):
        write_otf2(Program.from_generator(algorithm, 2), tmp_path / "a.otf2")
    with pytest.raises(ConfigError, match=r"ending in \.otf2"):
        write_otf2(Program.from_generator(ring_exchange, 2), tmp_path / "x.def")
    path = tmp_path / "ring.otf2"
    write_otf2(Program.from_generator(ring_exchange, 2), path)
    before = {p: p.read_bytes() for p in path.parent.rglob("*") if p.is_file()}
    with pytest.raises(ConfigError, match="exists"):
        write_otf2(Program.from_generator(ring_exchange, 3), path)
    assert {p: p.read_bytes() for p in path.parent.rglob("*") if p.is_file()} == before
    assert read_otf2(path).ranks == 2
    assert not list(tmp_path.glob("[wa].*"))  # refused programs leave nothing behind
