"""Burst-synchronized sources and message-passing jobs through the Python front end: the config
keys, their errors, traces replayed, and the command line."""

import json
import subprocess
import sys
import time

import pytest

import exanet
from exanet.errors import ConfigError, ProgramStalledError
from exanet.program import Program, irecv, isend, recv, waitall
from exanet.traces import write_trace

TORUS = {"kind": "torus", "dims": [4, 4]}
ROUTER = {"vc_buffer": "16KiB"}


def jobs_config(*jobs, **traffic):
    return {
        "topology": TORUS,
        "router": ROUTER,
        "traffic": {"kind": "jobs", "jobs": list(jobs), **traffic},
    }


def test_a_trace_written_and_replayed_takes_the_time_of_its_program(tmp_path):
    app = {"app": "halo2d", "ranks": 9, "message": "6KiB", "iterations": 3, "compute": "1us"}
    direct = exanet.simulate(jobs_config(app, send_overhead="100ns"))
    for suffix in (".parquet", ".csv"):
        path = tmp_path / f"halo{suffix}"
        write_trace(exanet.job_program(jobs_config(app), 0), path)
        replayed = exanet.simulate(
            jobs_config({"trace": str(path), "name": "job0"}, send_overhead="100ns")
        )
        assert replayed.jobs["completion_ns"][0] == direct.jobs["completion_ns"][0]
        assert replayed.summary["messages_sent"] == direct.summary["messages_sent"] == 3 * 24
        assert replayed.summary["delivery_checksum_ok"]


def test_a_python_program_file_runs_relative_to_its_toml(tmp_path):
    (tmp_path / "ring.py").write_text(
        "from exanet.program import irecv, isend, waitall\n"
        "def program(rank, size, bytes=1000):\n"
        "    yield irecv((rank - 1) % size, bytes)\n"
        "    yield isend((rank + 1) % size, bytes)\n"
        "    yield waitall()\n"
    )
    (tmp_path / "ring.toml").write_text(
        '[topology]\nkind = "torus"\ndims = [4, 4]\n[router]\nvc_buffer = "8KiB"\n'
        '[traffic]\nkind = "jobs"\n[[traffic.jobs]]\nprogram = "ring.py"\nranks = 8\n'
        "params = {bytes = 2000}\n"
    )
    result = exanet.simulate(tmp_path / "ring.toml")
    assert result.summary["messages_sent"] == 8
    assert result.summary["bytes_sent"] == 8 * 2000
    assert result.jobs["app"][0] == "program"


def test_jobs_report_rates_slowdowns_and_write_their_table(tmp_path):
    result = exanet.simulate(
        jobs_config(
            {"app": "allpingpong", "ranks": 8, "message": "4KiB", "iterations": 2},
            {"app": "alltoall", "ranks": 8, "message": "2KiB", "placement": "random_endpoints"},
            alone=True,
            send_overhead="50ns",
        )
    )
    jobs = result.jobs
    assert list(jobs["name"]) == ["job0", "job1"]
    # V_j / T_j, summed over jobs: 004's communication rate
    rates = jobs["bytes_sent"] / jobs["completion_ns"]
    assert rates.tolist() == pytest.approx(jobs["communication_rate_gbytes_per_s"].tolist())
    assert result.summary["communication_rate_gbytes_per_s"] == pytest.approx(rates.sum())
    # sharing the machine never helps; the ideal network is a lower bound
    assert (jobs["slowdown_vs_alone"] >= 1.0 - 1e-9).all()
    assert (jobs["completion_ns"] > jobs["ideal_completion_ns"]).all()
    result.write(tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [j["completion_ns"] for j in summary["jobs_detail"]] == jobs["completion_ns"].tolist()
    assert (tmp_path / "out" / "jobs.parquet").is_file()


def test_bursts_come_back_as_a_table():
    result = exanet.simulate(
        {
            "topology": TORUS,
            "router": {"in_transit_priority": True},
            "traffic": {"kind": "burst", "packets_per_burst": 50, "bursts": 4},
        }
    )
    assert len(result.bursts) == 4
    # The bursts and the three default 100 ns restart delays between them tile the run.
    total = result.bursts["time_ns"].sum() + 3 * 100.0
    assert total == pytest.approx(result.summary["sim_time_ns"])
    assert (result.endpoints["packets_injected"] == 200).all()


@pytest.mark.parametrize(
    ("job", "key", "words"),
    [
        ({"app": "nbody", "ranks": 4}, "traffic.jobs[0].app", "pingpong"),
        ({"app": "halo2d", "trace": "x.csv", "ranks": 4}, "traffic.jobs[0].app", "exactly one"),
        ({"app": "allreduce", "ranks": 4, "algorithm": "bruck"}, "algorithm", "rabenseifner"),
        ({"app": "halo3d", "ranks": 8, "grid": [2, 4]}, "grid", "3 dimensions"),
        ({"app": "halo3d", "ranks": 8, "grid": [2, 2, 3]}, "traffic.jobs[0].app", "holds 12"),
        ({"app": "pingpong", "ranks": 3}, "traffic.jobs[0].app", "exactly 2 ranks"),
        ({"app": "halo2d", "ranks": 4, "map": [0, 1, 2]}, "placement", "one endpoint per rank"),
        ({"app": "halo2d", "ranks": 4, "map": [0, 1, 2, 99]}, "placement", "endpoint below 16"),
        ({"app": "halo2d", "ranks": 40}, "placement", "at most 16 ranks"),
        ({"app": "halo2d", "ranks": 4, "placement": "random_groups"}, "placement", "groups"),
        ({"app": "halo2d", "ranks": 4, "partners": 3}, "partners", "spread and umesh"),
        ({"app": "halo2d"}, "ranks", "number of ranks"),
        # partners beyond the other ranks: the core drew 10^9 matchings, deaf to Ctrl-C
        ({"app": "spread", "ranks": 8, "partners": 10**9}, "partners", "ranks - 1 = 7"),
        ({"app": "umesh", "ranks": 8, "partners": 8}, "partners", "ranks - 1 = 7"),
        # beyond what the core takes: each was an error on the key 'config'
        ({"app": "bcast", "ranks": 2**31}, "ranks", "2147483647"),
        ({"app": "bcast", "ranks": 2, "message": 2**63}, "message", "1099511627776"),
        ({"app": "bcast", "ranks": 2, "iterations": 2**32}, "iterations", "4294967295"),
        ({"app": "bcast", "ranks": 2, "start": "10000000s"}, "start", "1000000000000000000"),
        ({"app": "bcast", "ranks": 2, "map": [0, 2**32]}, "map", "4294967295"),
        ({"app": "halo3d", "ranks": 8, "grid": [2**40, 1, 2]}, "grid", "2147483647"),
        # each compute fits, their sum wrapped the core's clock around
        ({"app": "bcast", "ranks": 2, "compute": "1000s", "iterations": 10**4}, "compute", "10^6"),
    ],
)
def test_bad_jobs_are_refused_naming_the_key(job, key, words):
    with pytest.raises(ConfigError) as info:
        exanet.simulate(jobs_config(job))
    assert key in info.value.key
    assert words in str(info.value)


def test_malformed_traces_and_programs_are_refused(tmp_path):
    negative = Program.from_ops([[isend(1, 10)], [recv(0, 10)]], 2)
    negative.ops.loc[0, "bytes"] = -5
    path = tmp_path / "negative.parquet"
    write_trace(negative, path)
    with pytest.raises(ConfigError) as info:
        exanet.simulate(jobs_config({"trace": str(path)}))
    assert info.value.key == "traffic.jobs[0].trace"
    unmatched = Program.from_ops([[waitall()], [recv(0, 10, tag=0)]], 2)
    path = tmp_path / "unmatched.csv"
    write_trace(unmatched, path)
    with pytest.raises(ConfigError, match="rank 1"):
        exanet.simulate(jobs_config({"trace": str(path)}))


def test_a_program_that_can_never_finish_names_the_rank_and_operation(tmp_path):
    # A wildcard receive escapes the static matching check; at run time nobody sends.
    def program(rank, size):
        if rank == 0:
            yield isend(1, 10)
            yield waitall()
        else:
            yield irecv(0, 10)
            yield recv(-1, 8)

    stuck = Program.from_generator(program, 2)
    path = tmp_path / "stuck.parquet"
    write_trace(stuck, path)
    config = jobs_config({"trace": str(path), "name": "stuck"})
    with pytest.raises(ProgramStalledError) as info:
        exanet.simulate(config)
    assert info.value.report["ranks"] == [
        {
            "job": "stuck",
            "rank": 1,
            "operation": 1,
            "waiting_for": "recv, waiting for a message from any source with any tag",
        }
    ]
    (tmp_path / "stuck.toml").write_text(
        f'[topology]\nkind = "torus"\ndims = [4, 4]\n[router]\nvc_buffer = "8KiB"\n'
        f'[traffic]\nkind = "jobs"\n[[traffic.jobs]]\ntrace = "{path.name}"\nname = "stuck"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "exanet", "run", "stuck.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "job stuck rank 1 at operation 1" in done.stderr


def test_jobs_too_large_for_the_network_are_refused_before_their_program_is_made(tmp_path):
    # the generator logs each rank it runs on: 10^7 of them took minutes, then the placement
    # failed in the core
    log = tmp_path / "ranks.log"
    (tmp_path / "logs.py").write_text(
        "from exanet.program import compute\n"
        "def program(rank, size):\n"
        f"    open({str(log)!r}, 'a').write(f'{{rank}}\\n')\n"
        "    yield compute(1)\n"
    )
    program = {"program": str(tmp_path / "logs.py")}
    with pytest.raises(ConfigError) as info:
        exanet.simulate(jobs_config({**program, "ranks": 10**7}))
    assert info.value.key == "traffic.jobs[0].placement"
    assert "at most 16 ranks" in info.value.expected
    assert not log.exists()
    # the endpoints earlier jobs take count too
    with pytest.raises(ConfigError, match="at most 6 ranks") as info:
        exanet.simulate(jobs_config({"app": "allreduce", "ranks": 10}, {**program, "ranks": 8}))
    assert info.value.key == "traffic.jobs[1].placement"
    assert not log.exists()
    # a trace declaring 10^8 ranks: its validation built a set of every rank
    trace = tmp_path / "wide.csv"
    trace.write_text(
        "# exanet-trace ranks=100000000\n"
        "rank,seq,op,peer,bytes,tag,compute_ns,communicator,request,algorithm\n"
        "0,0,compute,-1,0,0,1.0,0,-1,\n"
    )
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=f"100000000 ranks of {trace}"):
        exanet.simulate(jobs_config({"trace": str(trace)}))
    assert time.perf_counter() - started < 5.0


def test_a_message_too_large_to_simulate_is_refused_naming_the_file_and_line(tmp_path):
    # 2^63 - 1 bytes: the core simulated it until killed
    path = tmp_path / "huge.goal"
    path.write_text(
        "num_ranks 2\nrank 0 {\nsend 9223372036854775807b to 1\n}\n"
        "rank 1 {\nrecv 9223372036854775807b from 0\n}\n"
    )
    with pytest.raises(ConfigError) as info:
        exanet.simulate(jobs_config({"trace": str(path)}))
    assert info.value.key == "traffic.jobs[0].trace"
    assert info.value.value.startswith(f"{path} line 3: ")
    assert "at most 1099511627776 bytes" in info.value.expected


def test_a_program_that_exits_is_an_error_of_its_job(tmp_path):
    # sys.exit(0) in a program made `exanet run` exit 0 with no output, and simulate raise
    # SystemExit
    (tmp_path / "exits.py").write_text(
        "import sys\nfrom exanet.program import compute\n"
        "def program(rank, size):\n    yield compute(1)\n    sys.exit(0)\n"
    )
    config = jobs_config({"program": str(tmp_path / "exits.py"), "ranks": 2})
    with pytest.raises(ConfigError) as info:
        exanet.simulate(config)
    assert info.value.key == "traffic.jobs[0].program"
    assert "rank 0 after operation 1: SystemExit: 0" in info.value.value
    (tmp_path / "exits.toml").write_text(
        '[topology]\nkind = "torus"\ndims = [4, 4]\n[traffic]\nkind = "jobs"\n'
        '[[traffic.jobs]]\nprogram = "exits.py"\nranks = 2\nparams = {unexpected = 1}\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "exanet", "run", "exits.toml", "--output", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "traffic.jobs[0].program" in done.stderr
    assert "unexpected keyword argument 'unexpected'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_failing_python_program_is_a_config_error(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from exanet.program import send\ndef program(rank, size):\n    yield send(1 // rank, 8)\n"
    )
    with pytest.raises(ConfigError) as info:
        exanet.simulate(jobs_config({"program": str(tmp_path / "bad.py"), "ranks": 2}))
    assert info.value.key == "traffic.jobs[0].program"
    assert "rank 0 after operation 0: ZeroDivisionError" in str(info.value)
    (tmp_path / "syntax.py").write_text("def program(rank, size):\n    yield (\n")
    with pytest.raises(ConfigError, match="SyntaxError"):
        exanet.simulate(jobs_config({"program": str(tmp_path / "syntax.py"), "ranks": 2}))


# --- gather, scatter, reduce_scatter, scan, exscan ---------------------------------------------

ONE_COLLECTIVE = (
    "import exanet.program as p\n"
    "def program(rank, size, op, algorithm, bytes, root):\n"
    "    rooted = {'root': root} if op in ('gather', 'scatter') else {}\n"
    "    yield getattr(p, op)(bytes, algorithm=algorithm, **rooted)\n"
)


def run_one_collective(tmp_path, op, algorithm, ranks, size_bytes, root=0, overhead_ns=100):
    path = tmp_path / "one_collective.py"
    path.write_text(ONE_COLLECTIVE)
    params = {"op": op, "algorithm": algorithm, "bytes": size_bytes, "root": root}
    job = {"program": str(path), "ranks": ranks, "params": params}
    return exanet.simulate(jobs_config(job, send_overhead=f"{overhead_ns}ns"))


def subtree(r, n):
    """Ranks in the binomial subtree of relative rank r >= 1 among n."""
    return min(r & -r, n - r)


N, B, O_NS = 6, 1003, 100  # 6 ranks (L = 3), 1003 B (not a multiple of 6), 100 ns per send
# (op, algorithm): messages, bytes, and the time on the ideal network, where only the send
# overheads of the longest chain of messages remain
NEW_COLLECTIVES = {
    # relative ranks 5 -> 4 -> 0 and 3 -> 2 -> 0: two sends deep
    ("gather", "binomial"): (N - 1, B * sum(subtree(r, N) for r in range(1, N)), 2 * O_NS),
    ("gather", "linear"): (N - 1, B * (N - 1), O_NS),  # every rank sends once, at once
    ("scatter", "binomial"): (N - 1, B * sum(subtree(r, N) for r in range(1, N)), 3 * O_NS),
    ("scatter", "linear"): (N - 1, B * (N - 1), (N - 1) * O_NS),  # the root's n - 1 sends
    ("reduce_scatter", "ring"): (N * (N - 1), B * (N - 1), (N - 1) * O_NS),
    ("reduce_scatter", "pairwise"): (N * (N - 1), B * (N - 1), (N - 1) * O_NS),
    # step k: every rank below n - 2^k sends: 5 + 4 + 2 messages
    ("scan", "recursive_doubling"): (11, 11 * B, 3 * O_NS),
    ("exscan", "recursive_doubling"): (11, 11 * B, 3 * O_NS),
}


@pytest.mark.parametrize(("op", "algorithm"), list(NEW_COLLECTIVES))
def test_new_collectives_move_their_table_messages_and_bytes(tmp_path, op, algorithm):
    result = run_one_collective(tmp_path, op, algorithm, N, B, root=2)
    messages, volume, ideal_ns = NEW_COLLECTIVES[op, algorithm]
    assert result.summary["messages_sent"] == messages
    assert result.summary["bytes_sent"] == volume
    assert result.summary["delivery_checksum_ok"]
    assert result.jobs["ideal_completion_ns"][0] == pytest.approx(ideal_ns)
    assert result.jobs["completion_ns"][0] > ideal_ns


def test_a_linear_scatter_takes_the_time_of_its_messages_one_after_the_other(tmp_path):
    # The root hands message k (to relative rank k) to its NIC after k send overheads; 1003 B
    # leave the NIC in less than one overhead, so nothing waits and message k arrives k
    # overheads plus its one-way time after the start. The one-way times come from jobs of one
    # send each.
    ranks, root = 8, 2
    (tmp_path / "one_send.py").write_text(
        "from exanet.program import recv, send\n"
        "def program(rank, size, root, to, bytes):\n"
        "    if rank == root:\n"
        "        yield send(to, bytes)\n"
        "    elif rank == to:\n"
        "        yield recv(root, bytes)\n"
    )
    arrivals_ns = []
    for k in range(1, ranks):
        params = {"root": root, "to": (root + k) % ranks, "bytes": B}
        job = {"program": str(tmp_path / "one_send.py"), "ranks": ranks, "params": params}
        one = exanet.simulate(jobs_config(job, send_overhead=f"{O_NS}ns"))
        arrivals_ns.append(k * O_NS + one.jobs["completion_ns"][0] - O_NS)
    scatter = run_one_collective(tmp_path, "scatter", "linear", ranks, B, root=root)
    assert scatter.jobs["completion_ns"][0] == pytest.approx(max(arrivals_ns), rel=1e-9)
    # binomial: the root sends only L = 3 messages, each the subtree of its receiver
    binomial = run_one_collective(tmp_path, "scatter", "binomial", ranks, B, root=root)
    assert binomial.summary["messages_sent"] == ranks - 1
    assert binomial.jobs["ideal_completion_ns"][0] == pytest.approx(3 * O_NS)


@pytest.mark.parametrize(
    ("op", "valid"),
    [
        ("gather", "binomial, linear"),
        ("scatter", "binomial, linear"),
        ("reduce_scatter", "ring, pairwise"),
        ("scan", "recursive_doubling"),
        ("exscan", "recursive_doubling"),
    ],
)
def test_a_bad_algorithm_for_the_new_collectives_is_refused_naming_the_valid_ones(
    tmp_path, op, valid
):
    with pytest.raises(ConfigError) as info:
        run_one_collective(tmp_path, op, "bruck", 4, 64)
    assert info.value.key == "traffic.jobs[0].program"
    assert f"rank 0 seq 0 {op}" in info.value.value
    assert f"an algorithm for {op}: one of {valid}" in info.value.expected


@pytest.mark.parametrize("op", ["gather", "scatter"])
def test_a_gather_or_scatter_root_outside_the_communicator_is_refused(tmp_path, op):
    with pytest.raises(ConfigError) as info:
        run_one_collective(tmp_path, op, "", 4, 64, root=4)
    assert info.value.key == "traffic.jobs[0].program"
    assert "a root (peer) in 0..size-1" in info.value.expected
