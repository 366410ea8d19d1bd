"""A newcomer's first hour, as a test: the README's commands run as written, in an empty
directory, step by step, and every example runs (at reduced sizes, EXANET_EXAMPLES_QUICK=1).

The commands are those from the README's section "A five-minute tour" to its end (the tour,
then the feature map's, which use the tour's files): a ```toml block whose first line is
`# NAME.toml` is a file to write, each line of a ```sh block a command to run, a ```python block
a script to run. Every command has an expectation below, and every expectation a command, so a
step added to the README without a check, or a check whose step left the README, fails here.
The set-up commands (they install) come before the tour and are not run."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EXAMPLES = ROOT / "examples"


def runnable_part() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index("\n## A five-minute tour\n") :]


def readme_steps() -> list[tuple[str, str]]:
    """(kind, text) in README order: ("file", toml), ("sh", one command), ("python", script)."""
    steps = []
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", runnable_part(), flags=re.S | re.M):
        kind, body = match.groups()
        if kind == "toml":
            steps.append(("file", body))
        elif kind == "sh":
            steps += [("sh", line) for line in body.splitlines() if line.strip()]
        elif kind == "python":
            steps.append(("python", body))
        else:
            assert kind in ("text", ""), f"the README has a ```{kind} block the test cannot run"
    return steps


def summary(directory: Path) -> dict:
    return json.loads((directory / "summary.json").read_text())


def healthy_run(cwd: Path, out: str) -> None:
    """The headline run: below saturation, so it accepts what it offers, drains and obeys
    Little's law."""
    s = summary(cwd / "run")
    assert s["drained"], s
    assert s["offered_load"] == pytest.approx(0.2, abs=0.01)
    assert s["accepted_load"] == pytest.approx(s["offered_load"], rel=0.02)
    assert abs(s["littles_law_error"]) < 0.02
    assert "run" in out


def swept(cwd: Path, out: str) -> None:
    points = pd.read_parquet(cwd / "sweep" / "points.parquet")
    assert len(points) == 10
    assert set(points["traffic.pattern"]) == {"uniform", "transpose"}
    assert sorted(set(points["traffic.load"])) == [0.1, 0.2, 0.3, 0.4, 0.5]


def reported(cwd: Path, out: str) -> None:
    page = (cwd / "sweep" / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page
    assert "report.html" in out


def jobs_ran(cwd: Path, out: str) -> None:
    jobs = pd.read_parquet(cwd / "jobs" / "jobs.parquet")
    assert list(jobs["name"]) == ["allreduce", "halo"]
    assert (jobs["slowdown_vs_ideal"] > 1).all()
    assert (jobs["slowdown_vs_alone"] >= 0.9).all()


def trace_ran(cwd: Path, out: str) -> None:
    jobs = pd.read_parquet(cwd / "trace" / "jobs.parquet")
    assert list(jobs["name"]) == ["ring"]
    assert jobs["ranks"].tolist() == [4]
    assert jobs["completion_ns"].iloc[0] > 0


def topology_json(cwd: Path, out: str) -> None:
    described = json.loads(out)
    assert described["endpoints"] == 256
    assert described["family"] == "torus"


def png_drawn(cwd: Path, out: str) -> None:
    assert (cwd / "slim_fly.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def python_ran(cwd: Path, out: str) -> None:
    s = summary(cwd / "run-python")
    assert s["endpoints"] == 256
    assert s["drained"]
    assert (cwd / "run-python" / "links.parquet").is_file()
    assert "'endpoints': 256" in out


Check = Callable[[Path, str], None]

#: What each tour command must produce, by its text in the README.
EXPECTED: dict[str, Check] = {
    "exanet validate torus.toml": lambda cwd, out: (
        None if "torus.toml is valid" in out and "256" in out else pytest.fail(out)
    ),
    "exanet run torus.toml -o run/ --set traffic.load=0.2": healthy_run,
    "exanet sweep sweep.toml -o sweep/": swept,
    "exanet report sweep/": reported,
    "exanet topo describe kind=dragonfly a=8 h=4": lambda cwd, out: (
        None if "1,056" in out and "bisection" in out else pytest.fail(out)
    ),
    "exanet run jobs.toml -o jobs/": jobs_ran,
    "python3 -m exanet.traces.samples traces/": lambda cwd, out: (
        None if (cwd / "traces" / "ring_allreduce.parquet").is_file() else pytest.fail(out)
    ),
    "exanet run trace.toml -o trace/": trace_ran,
    "python block 1": python_ran,
    "python block 2": lambda cwd, out: None if out.split() == ["6000", "2"] else pytest.fail(out),
    "exanet topo describe torus.toml --json": topology_json,
    "exanet topo draw kind=slim_fly q=5 -o slim_fly.png": png_drawn,
    "exanet topo iso --radix 40 --constraint N --nodes 12000": lambda cwd, out: (
        None if "12,000" in out and "fat_tree" in out else pytest.fail(out)
    ),
    "exanet topo iso --paper bhatele2019": lambda cwd, out: (
        None if "Iso-NRL" in out else pytest.fail(out)
    ),
    "exanet check routing jobs.toml": lambda cwd, out: (
        None if out.startswith("acyclic") else pytest.fail(out)
    ),
}


def command_key(line: str) -> str:
    """A command without its comment, as EXPECTED names it."""
    return shlex.join(shlex.split(line, comments=True))


def command_line(line: str) -> list[str]:
    """A README command as argv: `exanet` and `python3` run as this interpreter."""
    argv = shlex.split(line, comments=True)
    assert argv, line
    if argv[0] == "exanet":
        return [sys.executable, "-m", "exanet", *argv[1:]]
    if argv[0] == "python3":
        return [sys.executable, *argv[1:]]
    raise AssertionError(f"the tour runs only exanet and python3 commands, not {line!r}")


def test_the_readme_runs_as_written(tmp_path):
    steps = readme_steps()
    commands = {command_key(text) for kind, text in steps if kind == "sh"}
    blocks = sum(kind == "python" for kind, _ in steps)
    commands |= {f"python block {i}" for i in range(1, blocks + 1)}
    assert commands == set(EXPECTED), "every README command needs one expectation"
    python_blocks = 0
    env = {**os.environ, "COLUMNS": "100"}
    for kind, text in steps:
        if kind == "file":
            name = text.splitlines()[0].removeprefix("# ").strip()
            assert re.fullmatch(r"[a-z_]+\.toml", name), text.splitlines()[0]
            (tmp_path / name).write_text(text, encoding="utf-8")
            continue
        if kind == "sh":
            argv, key = command_line(text), command_key(text)
        else:
            python_blocks += 1
            argv, key = [sys.executable, "-c", text], f"python block {python_blocks}"
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"{key} exited {done.returncode}:\n{output}"
        EXPECTED[key](tmp_path, done.stdout)


#: Every example with a main, and the line its output must contain.
EXAMPLE_TITLES = {
    "bursts_ipr": "8x8 torus, DOR: 2 bursts of 50 packets",
    "collective_auto": "allreduce over 16 ranks on a 4x4 torus",
    "jobs_mix": "2 jobs of 32 ranks on a 72-endpoint dragonfly, mean over 1 seeds",
    "izu_2004": "Table 1, 8x8 torus, applied load 1",
    "li_2019_scale": "001's systems",
    "littles_law_torus": "Little's law on tori",
    "midimew_torus": "8x8 torus vs midimew of 64 nodes",
    "multi_plane_fat_tree": "64 nodes with NIC ports on fat-tree planes or rails",
    "onoff_sources": "Bursty sources at load 0.3 on a 4x4 torus",
    "partitioner_cuts": "parallel partition, links cut for 2 / 4 / 8 parts",
    "routing_dragonfly": "dragonfly p=2 a=4 h=2 g=9",
    "routing_torus": "8x8 torus, 4 KiB VC buffers",
    "seed_figures": "seed figures: radix vs size, performance per dollar, injection maps",
    "timeline_projection": "16,384 nodes under an injection cap per node",
    "updown_injection": "eligibility delay (no cap)",
    "updown_latency_tolerance": "Latency tolerance: slowdown vs the 1,000-cycle round trip",
}
#: Modules the examples import, with no main of their own.
EXAMPLE_HELPERS = {"compare_routing", "example_scale"}


def test_every_example_is_run_or_is_a_helper():
    names = {path.stem for path in EXAMPLES.glob("*.py")}
    assert names == set(EXAMPLE_TITLES) | EXAMPLE_HELPERS
    for name in names:
        has_main = 'if __name__ == "__main__":' in (EXAMPLES / f"{name}.py").read_text()
        assert has_main == (name in EXAMPLE_TITLES), name


@pytest.mark.parametrize("name", sorted(EXAMPLE_TITLES))
def test_example_runs_quickly(tmp_path, name):
    env = {**os.environ, "EXANET_EXAMPLES_QUICK": "1", "COLUMNS": "140"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert EXAMPLE_TITLES[name] in " ".join(done.stdout.split()), done.stdout


def test_examples_refuse_a_bad_quick_value(tmp_path):
    env = {**os.environ, "EXANET_EXAMPLES_QUICK": "yes"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "jobs_mix.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "EXANET_EXAMPLES_QUICK='yes' is invalid: expected 0 or 1" in done.stderr
