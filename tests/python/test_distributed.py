"""Runs across processes: `mpiexec -n N exanet run CONFIG` (MPICH from PyPI, installed by the
test extras) gives exactly the answer of one process, and a launch without mpi4py is refused
with a message that says what to install."""

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest
from samples import ENGINE_KEYS

from exanet import distributed
from exanet.errors import ExanetError

MPIEXEC = str(Path(sysconfig.get_path("scripts")) / "mpiexec")


TORUS = """
[topology]
kind = "torus"
dims = [8, 8]
[routing]
kind = "minimal"
selection = "adaptive"
escape = "dor"
[router]
vcs = 3
[traffic]
pattern = "transpose"
load = 0.6
[run]
warmup = "1us"
measure = "2us"
"""

JOBS = """
[topology]
kind = "dragonfly"
p = 2
a = 4
h = 2
g = 9
[routing]
kind = "ugal_l"
[router]
vcs = 6
vc_buffer = "16KiB"
[traffic]
kind = "jobs"
alone = true
send_overhead = "50ns"
[[traffic.jobs]]
app = "allpingpong"
ranks = 16
message = "24KiB"
placement = "random_endpoints"
[[traffic.jobs]]
app = "allreduce"
ranks = 32
message = "64KiB"
placement = "random_endpoints"
"""


def run_cli(tmp_path: Path, text: str, processes: int, threads: int = 1) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(text)
    out = tmp_path / f"out{processes}x{threads}"
    command = [sys.executable, "-m", "exanet", "run", str(config), "-q", "-o", str(out)]
    command += ["--threads", str(threads)]
    if processes > 1:
        command = [MPIEXEC, "-n", str(processes), *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def network_figures(out: Path) -> dict:
    summary = json.loads((out / "summary.json").read_text())
    return {k: v for k, v in summary.items() if k not in ENGINE_KEYS}


@pytest.mark.parametrize("text", [TORUS, JOBS], ids=["torus_adaptive", "dragonfly_jobs"])
def test_mpiexec_on_two_and_four_processes_gives_the_sequential_results(tmp_path, text):
    # Each process holds the rows of its own part; the first writes them all, in order.
    one = run_cli(tmp_path, text, 1)
    for processes, threads in ((2, 1), (4, 1), (2, 2)):
        many = run_cli(tmp_path, text, processes, threads)
        summary = json.loads((many / "summary.json").read_text())
        assert (summary["processes"], summary["threads"]) == (processes, threads)
        assert summary["lookahead_ns"] > 0
        assert network_figures(many) == network_figures(one)
        for table in ("endpoints", "links"):
            assert pd.read_parquet(many / f"{table}.parquet").equals(
                pd.read_parquet(one / f"{table}.parquet")
            ), table
        if (one / "jobs.parquet").exists():
            assert pd.read_parquet(many / "jobs.parquet").equals(
                pd.read_parquet(one / "jobs.parquet")
            )


def test_a_launch_without_mpi4py_says_what_to_install(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "4")
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # importing it now fails
    distributed.world.cache_clear()
    try:
        with pytest.raises(ExanetError, match=r"4 processes.*pip install 'exanet\[mpi\]'"):
            distributed.world()
    finally:
        distributed.world.cache_clear()


def test_a_process_alone_has_no_world(monkeypatch):
    for name in distributed.SIZE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    distributed.world.cache_clear()
    assert distributed.world() is None
    assert distributed.rank() == 0


def test_processes_given_different_configs_end_the_job_naming_the_odd_one(tmp_path):
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text(TORUS)
    second.write_text(TORUS.replace("load = 0.6", "load = 0.5"))
    run = [sys.executable, "-m", "exanet", "run", "-q", "-o", str(tmp_path / "out")]
    # One launch, two programs (MPMD): process 0 reads a.toml, process 1 reads b.toml.
    command = [MPIEXEC, "-n", "1", *run, str(first), ":", "-n", "1", *run, str(second)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "process 1 was given another config than process 0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


DYING_PROCESS = """
import json, os, signal, sys
from exanet import _core, distributed
from exanet.config import load

# Joins the run as process 1, then dies by SIGKILL at its first progress report.
core = json.dumps(load(sys.argv[1]).to_core())
_core.run(core, lambda _: os.kill(os.getpid(), signal.SIGKILL), 0.01, comm=distributed.world())
"""


def test_a_process_that_dies_mid_run_ends_the_others_instead_of_leaving_them_waiting(tmp_path):
    config = tmp_path / "long.toml"
    config.write_text(TORUS.replace("dims = [8, 8]", "dims = [32, 32]").replace("2us", "200us"))
    dying = tmp_path / "dying.py"
    dying.write_text(DYING_PROCESS)
    run = [sys.executable, "-m", "exanet", "run", "-q", "-o", str(tmp_path / "out"), str(config)]
    command = [MPIEXEC, "-n", "1", *run, ":", "-n", "1", sys.executable, str(dying), str(config)]
    # The launcher sees process 1 killed and ends process 0, which waits for it in a
    # collective: the job ends (within seconds, not the 200 us of simulated time it asked for).
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "BAD TERMINATION" in said and "Killed (signal 9)" in said, said
    assert not (tmp_path / "out").exists()
