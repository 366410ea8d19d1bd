"""Collective algorithms chosen by size (algorithm = "auto", MPICH 3.2's default thresholds),
the tree allreduce of SST Ember, and the jobs table's `algorithms` column."""

import pytest

import exanet
from exanet.errors import ConfigError
from exanet.program import Program, allgather, allreduce, alltoall, bcast, reduce_scatter
from exanet.traces import write_trace

TORUS = {"kind": "torus", "dims": [4, 4]}
ROUTER = {"vc_buffer": "16KiB"}
KIB = 1024


def run(*jobs, **traffic):
    config = {
        "topology": TORUS,
        "router": ROUTER,
        "traffic": {"kind": "jobs", "jobs": list(jobs), **traffic},
    }
    return exanet.simulate(config, progress=False)


def algorithms(*jobs, **traffic) -> list[str]:
    return [str(a) for a in run(*jobs, **traffic).jobs["algorithms"]]


@pytest.mark.parametrize(
    ("app", "ranks", "message", "ran"),
    [
        # MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048: recursive doubling up to 2 KiB, then
        # Rabenseifner (count = S/8 doubles >= pof2), on a power of two and not.
        ("allreduce", 16, "1KiB", "allreduce:recursive_doubling=1"),
        ("allreduce", 16, "2KiB", "allreduce:recursive_doubling=1"),
        ("allreduce", 16, "1MiB", "allreduce:rabenseifner=1"),
        ("allreduce", 12, "4KiB", "allreduce:rabenseifner=1"),
        # MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE = 524288 on ranks x block, powers of two only.
        ("allgather", 16, "1KiB", "allgather:recursive_doubling=1"),
        ("allgather", 16, "32KiB", "allgather:ring=1"),
        # Otherwise MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE = 81920 on ranks x block: Bruck below.
        ("allgather", 12, "1KiB", "allgather:bruck=1"),
        ("allgather", 12, "8KiB", "allgather:ring=1"),
        # MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256 with at least 8 ranks, then scattered up
        # to MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE = 32768, pairwise above.
        ("alltoall", 8, "256B", "alltoall:bruck=1"),
        ("alltoall", 8, "257B", "alltoall:scattered=1"),
        ("alltoall", 4, "64B", "alltoall:scattered=1"),
        ("alltoall", 8, "32KiB", "alltoall:scattered=1"),
        ("alltoall", 8, "33KiB", "alltoall:pairwise=1"),
        # MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MIN_PROCS = 8, LONG_MSG_SIZE = 524288.
        ("bcast", 16, "8KiB", "bcast:binomial=1"),
        ("bcast", 4, "1MiB", "bcast:binomial=1"),
        ("bcast", 16, "64KiB", "bcast:scatter_doubling_allgather=1"),
        ("bcast", 12, "64KiB", "bcast:scatter_ring_allgather=1"),
        ("bcast", 16, "1MiB", "bcast:scatter_ring_allgather=1"),
        # MPIR_CVAR_REDUCE_SHORT_MSG_SIZE = 2048 (and size/8 >= the power of two of ranks).
        ("reduce", 16, "2KiB", "reduce:binomial=1"),
        ("reduce", 16, "1MiB", "reduce:rabenseifner=1"),
        ("barrier", 16, "0B", "barrier:dissemination=1"),
    ],
)
def test_auto_picks_mpich_default_algorithm(app, ranks, message, ran):
    job = {"app": app, "ranks": ranks, "message": message, "algorithm": "auto"}
    assert algorithms(job) == [ran]


def test_a_changed_threshold_changes_the_choice():
    job = {"app": "allreduce", "ranks": 16, "message": "1MiB", "algorithm": "auto"}
    raised = algorithms(job, collective_thresholds={"allreduce_short": "2MiB"})
    assert raised == ["allreduce:recursive_doubling=1"]
    lowered = {"app": "alltoall", "ranks": 4, "message": "64B", "algorithm": "auto"}
    assert algorithms(lowered, collective_thresholds={"alltoall_min_ranks": 4}) == [
        "alltoall:bruck=1"
    ]
    # Without "auto" the thresholds change nothing.
    fixed = {"app": "allreduce", "ranks": 16, "message": "1MiB", "iterations": 3}
    assert algorithms(fixed, collective_thresholds={"allreduce_short": "1B"}) == [
        "allreduce:recursive_doubling=3"
    ]


def test_auto_is_resolved_per_call_and_counted_per_call(tmp_path):
    def program(rank, size):
        yield allreduce(KIB, algorithm="auto")
        yield allreduce(KIB * KIB, algorithm="auto")
        yield allreduce(KIB * KIB, algorithm="auto")
        yield bcast(64 * KIB, algorithm="auto")
        yield allgather(KIB)
        yield alltoall(64, algorithm="bruck")

    path = tmp_path / "mixed.parquet"
    write_trace(Program.from_generator(program, 8), path)
    result = run({"trace": str(path), "name": "mixed"}, {"app": "pingpong", "ranks": 2})
    assert list(result.jobs["algorithms"].astype(str)) == [
        # 64 KiB on 8 ranks: at least 12 KiB and 8 ranks, a power of two below 512 KiB
        "bcast:scatter_doubling_allgather=1, allreduce:recursive_doubling=1, "
        "allreduce:rabenseifner=2, "
        "allgather:ring=1, alltoall:bruck=1",
        "",
    ]


def test_tree_allreduce_is_binomial_reduce_then_bcast():
    size = 10_000
    result = run({"app": "allreduce", "ranks": 8, "message": size, "algorithm": "tree"})
    # 7 messages of S up to rank 0, 7 back down.
    assert result.summary["messages_sent"] == 2 * 7
    assert result.summary["bytes_sent"] == 2 * 7 * size
    assert list(result.jobs["algorithms"].astype(str)) == ["allreduce:tree=1"]
    recursive = run({"app": "allreduce", "ranks": 8, "message": size})
    assert recursive.summary["messages_sent"] == 8 * 3
    # Two trees of depth 3 one after the other take longer than 3 exchange steps.
    assert result.jobs["completion_ns"][0] > recursive.jobs["completion_ns"][0]


@pytest.mark.parametrize(
    ("traffic", "key", "words"),
    [
        ({"collective_thresholds": {"allreduce_shrt": "2KiB"}}, "collective_thresholds", ""),
        (
            {"collective_thresholds": {"allreduce_short": "lots"}},
            "collective_thresholds",
            "size",
        ),
        ({"collective_thresholds": {"alltoall_min_ranks": 0}}, "alltoall_min_ranks", ""),
    ],
)
def test_bad_thresholds_are_refused_naming_the_key(traffic, key, words):
    with pytest.raises(ConfigError) as info:
        run({"app": "allreduce", "ranks": 4, "algorithm": "auto"}, **traffic)
    assert key in info.value.key
    assert words in str(info.value)


def test_tree_is_only_an_allreduce_algorithm():
    with pytest.raises(ConfigError) as info:
        run({"app": "bcast", "ranks": 4, "algorithm": "tree"})
    assert "algorithm" in info.value.key
    assert "binomial, scatter_ring_allgather, scatter_doubling_allgather, auto" in str(info.value)
    with pytest.raises(ConfigError, match="recursive_doubling, ring, rabenseifner, tree, auto"):
        Program.from_ops([[allreduce(8, algorithm="binomial")]], 1).validate("ops")


def test_scatter_allgather_bcasts_move_the_analytic_bytes_in_about_twice_a_transfer():
    # 1 MiB from one of 16 ranks on 25 GB/s links: one whole transfer takes S/B = 41.9 us.
    # Binomial sends the whole buffer 4 times in a row (4 S/B); the scatter sends 15/16 of it
    # down the tree and the allgather 15 chunks of S/16, 2 x 15/16 S/B in all, the bytes of
    # the scatter's subtrees (32 chunks) plus 16 x 15 chunks of the allgather.
    size = 1024 * KIB
    transfer_ns = size / 25e9 * 1e9
    chunk = size // 16

    def bcast_ran(algorithm):
        job = {"app": "bcast", "ranks": 16, "message": "1MiB", "algorithm": algorithm}
        return run(job).jobs.iloc[0]

    binomial = bcast_ran("binomial")
    assert 4 * transfer_ns <= binomial.completion_ns <= 1.1 * 4 * transfer_ns
    for algorithm in ["scatter_ring_allgather", "scatter_doubling_allgather"]:
        ran = bcast_ran(algorithm)
        assert ran.bytes_sent == (32 + 16 * 15) * chunk
        assert 2 * 15 / 16 * transfer_ns <= ran.completion_ns < 0.65 * binomial.completion_ns


def test_bruck_allgather_sends_the_ring_s_bytes_in_log_steps():
    # 12 ranks, B = 1000: steps of 1, 2, 4 and 4 blocks, 4 messages a rank where the ring
    # takes 11; both send B(n - 1) a rank.
    def summary(algorithm):
        job = {"app": "allgather", "ranks": 12, "message": 1000, "algorithm": algorithm}
        return run(job).summary

    bruck, ring = summary("bruck"), summary("ring")
    assert (bruck["messages_sent"], bruck["bytes_sent"]) == (12 * 4, 12 * 11 * 1000)
    assert (ring["messages_sent"], ring["bytes_sent"]) == (12 * 11, 12 * 11 * 1000)


def test_recursive_halving_reduce_scatter_is_auto_below_512_kib_and_sends_the_analytic_bytes(
    tmp_path,
):
    # 8 ranks, S = 8000 (chunks of 1000): steps of 4, 2 and 1 chunks, 3 messages a rank.
    def ran(size):
        def program(rank, ranks):
            yield reduce_scatter(size, algorithm="auto")

        path = tmp_path / f"rs{size}.parquet"
        write_trace(Program.from_generator(program, 8), path)
        return run({"trace": str(path), "name": "rs"})

    short = ran(8000)
    assert list(short.jobs["algorithms"].astype(str)) == ["reduce_scatter:recursive_halving=1"]
    assert (short.summary["messages_sent"], short.summary["bytes_sent"]) == (24, 56_000)
    assert list(ran(512 * KIB).jobs["algorithms"].astype(str)) == ["reduce_scatter:pairwise=1"]


def test_rabenseifner_reduce_sends_the_analytic_bytes_and_beats_binomial_on_long_messages():
    # 16 ranks, S = 16000 (chunks of 1000): the reduce-scatter's 16 x 4 messages of 8, 4, 2
    # and 1 chunks, then the gather's 8, 4, 2 and 1 senders of 1, 2, 4 and 8 chunks.
    def reduce_ran(algorithm, message):
        job = {"app": "reduce", "ranks": 16, "message": message, "algorithm": algorithm}
        return run(job)

    small = reduce_ran("rabenseifner", 16_000).summary
    assert (small["messages_sent"], small["bytes_sent"]) == (16 * 4 + 15, 240_000 + 32_000)
    # 1 MiB: binomial sends S 4 times in a row at the root's link, Rabenseifner about 2 x 15/16.
    binomial = reduce_ran("binomial", "1MiB").jobs.iloc[0].completion_ns
    rabenseifner = reduce_ran("rabenseifner", "1MiB").jobs.iloc[0].completion_ns
    assert rabenseifner < 0.65 * binomial
