"""MPI's matching rules in the message-passing engine and the protocols traces assume: collective
messages in a context of their own, communicators as matching contexts, wildcards and the
non-overtaking rule, Schedgen's collective tags in GOAL schedules, per-job eager limits."""

import pytest

import exanet
from exanet.errors import ConfigError, ProgramStalledError
from exanet.program import Op, Program, barrier, compute, irecv, isend, recv, send, wait
from exanet.traces import load_trace, write_chakra, write_trace

TORUS = {"kind": "torus", "dims": [4, 4]}


def run(tmp_path, program, **job):
    path = tmp_path / "program.parquet"
    write_trace(program, path)
    return run_trace(str(path), **job)


def run_trace(trace, router=None, **job):
    return exanet.simulate(
        {
            "topology": TORUS,
            "router": router or {"vc_buffer": "16KiB"},
            "traffic": {"kind": "jobs", "jobs": [{"trace": trace, "name": "job", **job}]},
        }
    )


def test_a_receive_for_any_tag_never_takes_a_collectives_message(tmp_path):
    # Rank 0's wildcard receive is posted before the barrier; rank 1's barrier message reaches
    # rank 0 first. MPI keeps collective traffic apart: the receive waits for the user message.
    def program(rank, size):
        if rank == 0:
            r = yield irecv(-1, 8, tag=-1)
            yield barrier()
            yield wait(r)
        else:
            yield barrier()
            yield send(0, 8, tag=7)

    result = run(tmp_path, Program.from_generator(program, 2))
    assert result.summary["messages_sent"] == 1 + 2  # the user message and the barrier's two


def test_communicators_are_the_matching_contexts_of_messages(tmp_path):
    # Rank 1 sends on communicator 1 first, then on 0; rank 0's receive for any source and any
    # tag on communicator 0 must take the second message, leaving the first to its receive.
    ops = {
        0: [
            Op("recv", peer=-1, bytes=8, tag=-1),
            Op("recv", peer=1, bytes=64, tag=9, communicator=1),
        ],
        1: [
            Op("send", peer=0, bytes=64, tag=9, communicator=1),
            Op("send", peer=0, bytes=8, tag=3),
        ],
    }
    result = run(tmp_path, Program.from_ops(ops, 2).validate())
    assert result.summary["messages_sent"] == 2
    assert result.summary["bytes_sent"] == 72


def test_an_unmatched_message_names_its_communicator():
    ops = {
        0: [Op("recv", peer=1, bytes=8, tag=3, communicator=2)],
        1: [Op("send", peer=0, bytes=8, tag=3)],
    }
    with pytest.raises(
        ConfigError, match=r"rank 1 sends 0 message\(s\) with tag 3 on communicator 2 to rank 0"
    ):
        Program.from_ops(ops, 2).validate("job")


def test_a_stalled_receive_on_a_communicator_says_which(tmp_path):
    def program(rank, size):
        if rank == 0:
            yield recv(-1, 8, tag=-1, comm=4)

    with pytest.raises(ProgramStalledError) as info:
        run(tmp_path, Program.from_generator(program, 2))
    assert info.value.report["ranks"][0]["waiting_for"] == (
        "recv, waiting for a message from any source with any tag on communicator 4"
    )


def test_wildcard_receives_keep_the_order_in_which_one_source_sent(tmp_path):
    # Rank 1 sends a large message then a one-byte one; under adaptive routing the small one
    # can arrive first. A receive for any source and tag must still take the first one sent
    # (non-overtaking), else the receive for tag 2 would wait forever.
    def program(rank, size):
        if rank == 0:
            yield compute("5us")
            first = yield irecv(-1, 0, tag=-1)
            second = yield irecv(1, 0, tag=2)
            yield wait(first)
            yield wait(second)
        elif rank == 1:
            yield isend(0, "48KiB", tag=1)
            yield isend(0, 1, tag=2)
            yield compute("0ns")

    result = run(
        tmp_path,
        Program.from_generator(program, 2),
        eager_limit="64KiB",
        placement="map",
        map=[0, 10],
    )
    assert result.summary["messages_sent"] == 2


# A schedule shaped like Schedgen's: rank 0 posts two receives for any source and any tag (a
# master collecting results) while rank 2 has already sent its result and, after it, the first
# message of a barrier Schedgen expanded with a tag from 1,000,000 up. Rank 1's result is late.
SCHEDGEN_LIKE = """\
num_ranks 3

rank 0 {
l1: calc 20000
l2: recv 8b from -1 tag -1
l2 requires l1
l3: recv 8b from -1 tag -1
l3 requires l2
l4: recv 1b from 2 tag 1000001
l4 requires l3
l5: send 1b to 2 tag 1000001
l5 requires l4
}

rank 1 {
l1: calc 60000
l2: send 8b to 0 tag 2
l2 requires l1
}

rank 2 {
l1: send 8b to 0 tag 3
l2: send 1b to 0 tag 1000001
l2 requires l1
l3: recv 1b from 0 tag 1000001
l3 requires l2
}
"""


def test_schedgen_collective_tags_are_a_context_of_their_own(tmp_path):
    path = tmp_path / "master.goal"
    path.write_text(SCHEDGEN_LIKE)
    program = load_trace(path)
    ops = program.sorted()
    assert ops.loc[ops["tag"] >= 1_000_000, "communicator"].eq(1).all()
    assert ops.loc[ops["tag"].between(-1, 3), "communicator"].eq(0).all()
    result = run_trace(str(path))
    assert result.summary["messages_sent"] == 4
    # rank 0 finishes after rank 1's late result: 60 us of compute, then the barrier's two hops
    assert result.jobs["completion_ns"][0] > 60_000
    # LogGOPSim's own rule (a wildcard takes every tag) hangs on this schedule
    with pytest.raises(ProgramStalledError) as info:
        run_trace(str(path), goal_collective_tag_base=2**31)
    stuck = {r["rank"]: r["waiting_for"] for r in info.value.report["ranks"]}
    assert stuck[0].endswith("a message from rank 2 with tag 1000001")


def test_goal_collective_tag_base_is_only_for_goal_traces(tmp_path):
    with pytest.raises(ConfigError, match="goal_collective_tag_base"):
        run_trace("x.parquet", goal_collective_tag_base=5)


def test_goal_schedules_default_to_loggopsims_eager_limit(tmp_path):
    # One 65,535 B message goes eagerly (no request-to-send), one byte more by rendezvous.
    times = {}
    for size in (65535, 65536):
        path = tmp_path / f"m{size}.goal"
        path.write_text(
            f"num_ranks 2\nrank 0 {{\nl1: send {size}b to 1\n}}\n"
            f"rank 1 {{\nl1: recv {size}b from 0\n}}\n"
        )
        times[size] = run_trace(str(path), router={"vc_buffer": "128KiB"}).jobs["completion_ns"][0]
    per_byte_ns = times[65535] / 65535
    # the rendezvous adds a request and a clear-to-send round trip: far more than one byte's time
    assert times[65536] - times[65535] > 100 * per_byte_ns


def ring_of_sends_and_receives(ranks, size):
    """An MSCCL-style ring as ASTRA-sim's custom collectives write it: each rank sends its chunk
    to the next rank, then receives the previous rank's."""

    def program(rank, n):
        yield send((rank + 1) % n, size, tag=rank)
        yield recv((rank - 1) % n, size, tag=(rank - 1) % n)

    return Program.from_generator(program, ranks)


def test_chakra_traces_send_every_message_eagerly_as_astra_sim_does(tmp_path):
    prefix = tmp_path / "ring"
    write_chakra(ring_of_sends_and_receives(4, 1 << 20), prefix)
    assert load_trace(prefix).eager_limit == 2**40
    router = {"vc_buffer": "8KiB"}
    result = run_trace(str(prefix), router=router)
    assert result.summary["messages_sent"] == 4
    # the same ring with MPI's rendezvous above 16 KiB cannot start: every rank waits in its send
    with pytest.raises(ProgramStalledError):
        run_trace(str(prefix), router=router, eager_limit="16KiB")


def test_a_jobs_eager_limit_overrides_the_traffics(tmp_path):
    ring = ring_of_sends_and_receives(4, 4096)
    with pytest.raises(ProgramStalledError):
        run(tmp_path, ring, eager_limit="1KiB")
    assert run(tmp_path, ring).summary["messages_sent"] == 4  # traffic.eager_limit: 16 KiB
