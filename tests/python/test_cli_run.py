"""The `exanet` command end to end with the real simulator: in a subprocess, or in this process
where a test fakes a failing disk."""

import errno
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from exanet.cli import app

CONFIG = """
seed = 3
[topology]
kind = "torus"
dims = [4, 4]
[router]
vcs = 2
[traffic]
pattern = "uniform"
load = 0.2
packet = "256B"
[run]
warmup = "1us"
measure = "5us"
"""


def exanet(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "exanet", *args], cwd=cwd, capture_output=True, text=True
    )


def test_run_writes_summary_and_parquet_tables(tmp_path):
    (tmp_path / "small.toml").write_text(CONFIG)
    done = exanet("run", "small.toml", "-o", "out", "--set", "traffic.load=0.25", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    core = json.loads((tmp_path / "out" / "config.json").read_text())
    assert core["traffic"]["load"] == 0.25
    assert summary["endpoints"] == 16
    assert abs(summary["offered_load"] - 0.25) < 0.05
    endpoints = pd.read_parquet(tmp_path / "out" / "endpoints.parquet")
    links = pd.read_parquet(tmp_path / "out" / "links.parquet")
    assert len(endpoints) == 16
    # 16 routers x 4 network links + 16 injection + 16 ejection links.
    assert len(links) == 96
    assert endpoints["accepted_load"].mean() == pytest.approx(summary["accepted_load"])
    assert "latency" in done.stdout


UNSAFE_CONFIG = (
    CONFIG.replace("vcs = 2", "vcs = 1")
    .replace("dims = [4, 4]", "dims = [8, 8]")
    .replace("load = 0.2", "load = 1.0")
    .replace('warmup = "1us"', 'duration = "1ms"')
    .replace('measure = "5us"', 'deadlock_timeout = "5us"')
    + '[routing]\nkind = "dor"\nallow_unsafe = true\n'
)
"""Deadlocks within a second of simulation (exit 3)."""


def test_unsafe_torus_deadlock_exits_3_and_names_the_cycle(tmp_path):
    (tmp_path / "unsafe.toml").write_text(UNSAFE_CONFIG)
    done = exanet("run", "unsafe.toml", "-q", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "deadlock" in done.stderr
    assert "vc 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_one_vc_torus_without_opt_in_exits_2_with_the_reason(tmp_path):
    (tmp_path / "bad.toml").write_text(CONFIG.replace("vcs = 2", "vcs = 1"))
    done = exanet("run", "bad.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "router.vcs" in done.stderr
    assert "dateline" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("output", ["taken", "taken/run"])
def test_output_under_a_file_exits_2_before_simulating(tmp_path, output):
    (tmp_path / "taken").write_text("a file")
    (tmp_path / "unsafe.toml").write_text(UNSAFE_CONFIG)
    done = exanet("run", "unsafe.toml", "-o", output, "-q", cwd=tmp_path)
    # 2, not the deadlock's 3: the output was checked before the simulation.
    assert done.returncode == 2, done.stderr
    assert f"'--output' = \"{output}\"" in done.stderr
    assert "taken is a file, not a directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_full_disk_after_the_run_exits_2_and_leaves_no_summary(tmp_path, monkeypatch):
    def disk_full(frame, file, **options):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.toml").write_text(CONFIG)
    done = CliRunner().invoke(app, ["run", "small.toml", "-o", "out", "-q"])
    assert done.exit_code == 2, done.output
    assert "endpoints.parquet: disk full" in done.output
    assert list((tmp_path / "out").iterdir()) == []


SATURATING_CONFIG = """
[topology]
kind = "torus"
dims = [8, 8]
[traffic]
pattern = "transpose"
load = 0.9
packet = "256B"
[run]
warmup = "1us"
measure = "3us"
"""


def test_a_run_past_saturation_says_so_first(tmp_path):
    # Transpose on an 8x8 torus saturates near 0.3: at 0.9 it accepts about a third.
    (tmp_path / "transpose.toml").write_text(SATURATING_CONFIG)
    done = exanet("run", "transpose.toml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["steady_state"] is False
    assert summary["accepted_load"] < 0.5 < 0.85 < summary["offered_load"]
    assert done.stdout.splitlines()[0] == (
        f"saturated: accepted {summary['accepted_load']:.3f} of {summary['offered_load']:.3f} "
        "offered; latency is not steady-state"
    )


def test_a_healthy_run_prints_no_saturation_line(tmp_path):
    (tmp_path / "transpose.toml").write_text(SATURATING_CONFIG)
    done = exanet("run", "transpose.toml", "-o", "out", "--set", "traffic.load=0.1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["steady_state"] is True
    assert "saturated" not in done.stdout
    assert "steady-state" not in done.stdout
    assert "exanet run transpose.toml" in done.stdout.splitlines()[0]


JOBS_CONFIG = """
[topology]
kind = "torus"
dims = [4, 4]
[router]
vc_buffer = "8KiB"
[traffic]
kind = "jobs"
[[traffic.jobs]]
name = "ring"
app = "allreduce"
ranks = 16
"""


def test_a_jobs_run_has_no_steady_state_verdict(tmp_path):
    (tmp_path / "jobs.toml").write_text(JOBS_CONFIG)
    done = exanet("run", "jobs.toml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "steady_state" not in summary
    assert "saturated" not in done.stdout
