"""Benchmark suite: packet-hops/s, events/s and peak memory per endpoint (docs/architecture.md
§14).

    python -m exanet.bench [--only a,b] [--quick] [--json PATH] [--compare REF.json]
    python -m exanet.bench --compare REF.json --against NEW.json

Each scenario runs in a fresh child process, so that its peak RSS is its own; a child that only
imports exanet gives the baseline subtracted before dividing by the number of endpoints. Children
ask the core for the summary only, so the figures measure the simulator, not its result tables.
`--compare` prints each scenario's figures against a recorded run (`--json`) as after / before
ratios: of this run, or of another recorded one (`--against`, nothing simulated).

On a virtual machine the host may run other guests on the same cores: the time it takes from
this one (steal time, in Linux's /proc/stat) slows the run without showing in it. Each row
gives the share of the machine's CPU time stolen while its median run ran (`host_steal_share`),
so that a slow run can be told from a slow simulator (BENCHMARKS.md, issue 25's thirteenth step).

"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from exanet import distributed
from exanet.api import simulate
from exanet.cli import reporting_errors
from exanet.display import format_si
from exanet.units import format_time_ps, parse_size_bytes, parse_time_ps

BASELINE = "baseline"
_RUN_TIME_KEYS = ("warmup", "measure", "duration")
_CHILD_FIGURES = (  # summary statistics reported for each scenario
    "endpoints",
    "packet_hops",
    "wall_s",
    "packet_hops_per_s",
    "events_per_s",
    "barrier_wait_share",
)
QUICK_TIME_DIVISOR = 10
_MAXRSS_BYTES = 1 if sys.platform == "darwin" else 1024  # ru_maxrss unit

stdout = Console()
if not stdout.is_terminal:
    stdout.width = 132  # a log or a file gets the whole table, not one squeezed to 80 columns


@dataclass(frozen=True)
class Scenario:
    """One benchmark: a config (user-facing keys) and a one-line description."""

    name: str
    description: str
    config: dict[str, Any]


def _torus_scenario(
    name: str, dims: list[int], process: str, load: float, run: dict[str, str]
) -> Scenario:
    """Uniform traffic of 256 B packets on a torus with 2 VCs and 25 GB/s links. The run stops at
    the end of its window (no drain), so every scenario simulates a fixed span whatever its load."""
    shape = "x".join(map(str, dims))
    return Scenario(
        name=name,
        description=f"{shape} torus, uniform {process.capitalize()}, {load:.0%} load",
        config={
            "topology": {"kind": "torus", "dims": dims},
            "router": {"vcs": 2},
            "links": {"bandwidth": "25GB/s"},
            "traffic": {"pattern": "uniform", "process": process, "load": load, "packet": "256B"},
            "run": {"drain": "none", **run},
        },
    )


def _routing_scenario(
    name: str,
    description: str,
    topology: dict[str, Any],
    routing: dict[str, Any],
    vcs: int,
    load: float = 0.3,
) -> Scenario:
    """Uniform Bernoulli traffic under a routing scheme, 5 us warm-up + 20 us: the per-hop cost
    of routing beside the DOR torus scenarios."""
    return Scenario(
        name=name,
        description=description,
        config={
            "topology": topology,
            "routing": routing,
            "router": {"vcs": vcs},
            "links": {"bandwidth": "25GB/s"},
            "traffic": {"pattern": "uniform", "load": load, "packet": "256B"},
            "run": {"drain": "none", "warmup": "5us", "measure": "20us"},
        },
    )


def _jobs_scenario(name: str, description: str, jobs: list[dict[str, Any]]) -> Scenario:
    """Message-passing jobs on a dragonfly of 4,224 endpoints (p=8 a=16 h=8 g=33), UGAL-L,
    3 VCs of 64 KiB, 4 KiB packets: the run lasts until the jobs finish."""
    return Scenario(
        name=name,
        description=description,
        config={
            "topology": {"kind": "dragonfly", "p": 8, "a": 16, "h": 8, "g": 33},
            "routing": {"kind": "ugal_l"},
            "router": {"vcs": 3, "vc_buffer": "64KiB"},
            "links": {"bandwidth": "25GB/s"},
            "traffic": {"kind": "jobs", "jobs": jobs},
            "run": {},
        },
    )


SCENARIOS = {
    scenario.name: scenario
    for scenario in (
        _torus_scenario("a", [8, 8], "bernoulli", 0.3, {"warmup": "5us", "measure": "20us"}),
        _torus_scenario("b", [32, 32], "bernoulli", 0.5, {"warmup": "5us", "measure": "20us"}),
        _torus_scenario("c", [64, 64, 64], "poisson", 0.1, {"duration": "1us"}),
        _torus_scenario("d", [32, 32, 32, 32], "poisson", 0.05, {"duration": "1us"}),
        _routing_scenario(
            "e",
            "dragonfly a=8 h=4 p=4 g=33, UGAL-L, uniform Bernoulli, 30% load",
            {"kind": "dragonfly", "a": 8, "h": 4, "p": 4, "g": 33},
            {"kind": "ugal_l"},
            3,
        ),
        _routing_scenario(
            "f",
            "Slim Fly q=9 p=7, minimal adaptive, uniform Bernoulli, 30% load",
            {"kind": "slim_fly", "q": 9, "p": 7},
            {"kind": "minimal"},
            2,
        ),
        _routing_scenario(
            "g",
            "32x32 torus, minimal adaptive with bubble escape, uniform Bernoulli, 8% load",
            {"kind": "torus", "dims": [32, 32]},
            {"kind": "minimal", "escape": "bubble"},
            2,
            0.08,
        ),
        _routing_scenario(
            "h",
            "32x32 torus, DOR, uniform Bernoulli, 8% load (g's baseline: same packets)",
            {"kind": "torus", "dims": [32, 32]},
            {"kind": "dor"},
            2,
            0.08,
        ),
        _jobs_scenario(
            "i",
            "dragonfly 4,224 endpoints, AllReduce 1 MiB (Rabenseifner) on 4,096 ranks",
            [{"app": "allreduce", "ranks": 4096, "message": "1MiB", "algorithm": "rabenseifner"}],
        ),
        _jobs_scenario(
            "j",
            "dragonfly 4,224 endpoints, 004-style mix: MILC-comm 2,048 + pF3D-comm 2,000 ranks, "
            "256 KiB, random placement",
            [
                {
                    "app": "milc",
                    "ranks": 2048,
                    "message": "256KiB",
                    "placement": "random_endpoints",
                },
                {
                    "app": "pf3d",
                    "ranks": 2000,
                    "message": "256KiB",
                    "placement": "random_endpoints",
                },
            ],
        ),
        _routing_scenario(
            "k",
            "dragonfly a=16 h=8 p=8 g=129 (16,512 endpoints), UGAL-L, uniform Bernoulli, "
            "30% load (the parallel engine's dragonfly)",
            {"kind": "dragonfly", "a": 16, "h": 8, "p": 8, "g": 129},
            {"kind": "ugal_l"},
            3,
        ),
    )
}


def scenario_config(scenario: Scenario, quick: bool) -> dict[str, Any]:
    """The scenario's config; `quick` divides its run times (message sizes, for jobs) by
    QUICK_TIME_DIVISOR."""
    if not quick:
        return scenario.config
    traffic = scenario.config["traffic"]
    if traffic.get("kind") == "jobs":
        jobs = [
            {**job, "message": parse_size_bytes(job["message"]) // QUICK_TIME_DIVISOR}
            for job in traffic["jobs"]
        ]
        return {**scenario.config, "traffic": {**traffic, "jobs": jobs}}
    run = {
        key: format_time_ps(parse_time_ps(value) // QUICK_TIME_DIVISOR)
        if key in _RUN_TIME_KEYS
        else value
        for key, value in scenario.config["run"].items()
    }
    return {**scenario.config, "run": run}


def _run_child(name: str, quick: bool, threads: int) -> dict[str, Any]:
    """Simulate one scenario in this process on `threads` workers (summary only, no tables);
    its figures."""
    if name == BASELINE:
        return {}
    summary = simulate({**scenario_config(SCENARIOS[name], quick), "threads": threads}).summary
    messages_per_s = summary.get("messages_sent", math.nan) / max(summary["wall_s"], 1e-9)
    return {**{key: summary[key] for key in _CHILD_FIGURES}, "messages_per_s": messages_per_s}


_PROC_STAT = Path("/proc/stat")


def cpu_ticks(proc_stat: str) -> tuple[int, int] | None:
    """(stolen, all) ticks of the machine's CPUs so far, from the text of Linux's /proc/stat:
    its first line sums user, nice, system, idle, iowait, irq, softirq and steal over the CPUs
    (guest time is counted in user already); None if the text has no such line."""
    fields = proc_stat.split("\n", 1)[0].split()
    if len(fields) < 9 or fields[0] != "cpu" or not all(f.isdigit() for f in fields[1:9]):
        return None
    ticks = [int(value) for value in fields[1:9]]
    return ticks[7], sum(ticks)


def steal_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float:
    """The share of the machine's CPU time that the host took between two `cpu_ticks`
    readings (NaN where the system does not report it)."""
    if before is None or after is None or after[1] <= before[1]:
        return math.nan
    return (after[0] - before[0]) / (after[1] - before[1])


def _read_cpu_ticks() -> tuple[int, int] | None:
    try:
        return cpu_ticks(_PROC_STAT.read_text())
    except OSError:
        return None


def _spawn_child(
    name: str, quick: bool, threads: int = 1, processes: int = 1
) -> tuple[dict[str, Any], int]:
    """Run one child process (with `processes` > 1, that many under `mpiexec`, one run across
    processes); its measurements, with the host's steal share while it ran, and its peak RSS
    in bytes (of the largest process: the launcher waits for them all, and a wait reports the
    largest of a process tree)."""
    command = [sys.executable, "-m", "exanet.bench", "--child", name, "--threads", str(threads)]
    if quick:
        command.append("--quick")
    if processes > 1:
        # The one installed beside this Python first (pip install 'exanet[mpi]'), else PATH's.
        scripts = sysconfig.get_path("scripts")
        launcher = shutil.which("mpiexec", path=scripts) or shutil.which("mpiexec")
        if launcher is None:
            raise typer.BadParameter(
                f"{processes}: runs across processes start under mpiexec, which is not on the "
                "PATH (pip install 'exanet[mpi]' brings one)",
                param_hint="--processes",
            )
        command = [launcher, "-n", str(processes), *command]
    ticks_before = _read_cpu_ticks()
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    stolen = steal_share(ticks_before, _read_cpu_ticks())
    if child.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed (exit code {child.returncode})")
    figures = {**json.loads(output.splitlines()[-1]), "host_steal_share": stolen}
    return figures, usage.ru_maxrss * _MAXRSS_BYTES


def run_benchmarks(
    names: list[str], quick: bool, repeat: int = 1, threads: int = 1, processes: int = 1
) -> list[dict[str, Any]]:
    """Run scenarios `names` in child processes on `threads` workers (in each of `processes`
    processes), each `repeat` times; one row per scenario with the median run (by wall time)
    and the largest peak RSS (of one process)."""
    _, baseline_rss_bytes = _spawn_child(BASELINE, quick, processes=processes)
    rows = []
    for name in names:
        stdout.print(f"scenario {name}: {SCENARIOS[name].description}")
        runs = sorted(
            (_spawn_child(name, quick, threads, processes) for _ in range(repeat)),
            key=lambda run: run[0]["wall_s"],
        )
        figures = runs[len(runs) // 2][0]
        peak_rss_bytes = max(rss for _, rss in runs)
        rows.append(
            {
                "scenario": name,
                "threads": threads,
                "processes": processes,
                **figures,
                "peak_rss_mib": peak_rss_bytes / 2**20,
                "bytes_per_endpoint": (peak_rss_bytes - baseline_rss_bytes) / figures["endpoints"],
            }
        )
    return rows


_COLUMN_FORMATS = {  # the columns of the benchmark table, in order
    "scenario": str,
    "threads": str,
    "processes": str,
    "endpoints": "{:,}".format,
    "packet_hops": "{:,}".format,
    "wall_s": "{:.2f}".format,
    "packet_hops_per_s": format_si,
    "events_per_s": format_si,
    "messages_per_s": lambda v: "-" if math.isnan(v) else format_si(v),
    "barrier_wait_share": "{:.0%}".format,
    "host_steal_share": lambda v: "-" if math.isnan(v) else f"{v:.0%}",
    "peak_rss_mib": "{:,.1f}".format,
    "bytes_per_endpoint": "{:,.0f}".format,
}


def _rows_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="exanet benchmarks", header_style="bold")
    for column in _COLUMN_FORMATS:
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for row in rows:
        table.add_row(
            *(format_value(row[column]) for column, format_value in _COLUMN_FORMATS.items())
        )
    return table


#: Figures compared between two recorded runs: (column, what a ratio above 1 means).
COMPARED = (
    ("packet_hops_per_s", "faster"),
    ("events_per_s", "faster"),
    ("wall_s", "slower"),
    ("bytes_per_endpoint", "more memory"),
)


def compare_rows(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per scenario (and thread count) recorded in both runs: each COMPARED figure's
    after / before ratio, whether the two simulated the same work (equal packet-hops; a
    change that moves them changed the results, and its speed ratios compare different runs),
    and the host's steal share in each (NaN if not recorded), which a speed ratio includes."""

    def key(row: dict[str, Any]) -> tuple[str, int, int]:
        return row["scenario"], row["threads"], row.get("processes", 1)

    earlier = {key(row): row for row in before}
    rows = []
    for row in after:
        old = earlier.get(key(row))
        if old is None:
            continue
        ratios = {
            f"{column}_ratio": row[column] / old[column] if old[column] else math.nan
            for column, _ in COMPARED
        }
        same_work = row["packet_hops"] == old["packet_hops"]
        labels = {"scenario": row["scenario"], "threads": row["threads"]}
        labels["processes"] = row.get("processes", 1)
        steal = {
            f"host_steal_share_{when}": run.get("host_steal_share", math.nan)
            for when, run in (("before", old), ("after", row))
        }
        rows.append({**labels, **ratios, "same_work": same_work, **steal})
    return rows


def _comparison_table(rows: list[dict[str, Any]], before: str) -> Table:
    table = Table(title=f"after / before ({before})", header_style="bold")
    table.add_column("scenario")
    table.add_column("threads", justify="right")
    table.add_column("processes", justify="right")
    for column, above_one in COMPARED:
        table.add_column(f"{column} (> 1: {above_one})", justify="right")
    table.add_column("same packet-hops")
    table.add_column("host steal (before, after)", justify="right")
    steal = _COLUMN_FORMATS["host_steal_share"]
    for row in rows:
        table.add_row(
            row["scenario"],
            str(row["threads"]),
            str(row["processes"]),
            *(f"{row[f'{column}_ratio']:.3f}x" for column, _ in COMPARED),
            "yes" if row["same_work"] else "NO: results changed",
            f"{steal(row['host_steal_share_before'])}, {steal(row['host_steal_share_after'])}",
        )
    return table


def _read_rows(path: Path, key: str) -> list[dict[str, Any]]:
    """The rows of a run recorded with --json, or a clear error naming the option."""
    try:
        rows = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(
            f"{path}: not a recorded benchmark run ({exc})", param_hint=key
        ) from None
    needed = {"scenario", "threads", "packet_hops", *(column for column, _ in COMPARED)}
    if not isinstance(rows, list) or not all(
        isinstance(row, dict) and needed <= row.keys() for row in rows
    ):
        raise typer.BadParameter(
            f"{path}: expected the JSON list that --json writes, each row with "
            f"{', '.join(sorted(needed))}",
            param_hint=key,
        )
    return rows


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
@reporting_errors
def bench(
    only: Annotated[
        str | None,
        typer.Option(
            help=f"Comma-separated scenarios to run, out of {', '.join(SCENARIOS)} (default: all).",
            show_default=False,
        ),
    ] = None,
    quick: Annotated[
        bool, typer.Option(help=f"Simulate 1/{QUICK_TIME_DIVISOR} of each scenario's time.")
    ] = False,
    repeat: Annotated[
        int,
        typer.Option(
            min=1, help="Runs per scenario; the table shows the median run (machines are noisy)."
        ),
    ] = 1,
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the rows to this JSON file.", show_default=False),
    ] = None,
    threads: Annotated[
        int,
        typer.Option(min=1, help="Workers of the parallel engine for every scenario."),
    ] = 1,
    processes: Annotated[
        int,
        typer.Option(
            min=1,
            help="Run every scenario across this many processes, under mpiexec (peak RSS is "
            "then the largest process's).",
        ),
    ] = 1,
    compare: Annotated[
        Path | None,
        typer.Option(
            help="A run recorded with --json: print after / before ratios against it.",
            show_default=False,
        ),
    ] = None,
    against: Annotated[
        Path | None,
        typer.Option(
            help="With --compare: the recorded run to compare instead of running (no simulation).",
            show_default=False,
        ),
    ] = None,
    child: Annotated[str | None, typer.Option(hidden=True)] = None,
) -> None:
    """Measure simulator speed and memory: tori (a) 8x8, (b) 32x32, (c) 64x64x64, (d)
    32x32x32x32 (1,048,576 endpoints); routing (e)-(h); message-passing jobs (i), (j); a
    16,512-endpoint dragonfly (k)."""
    if child is not None:
        figures = _run_child(child, quick, threads)
        if distributed.rank() == 0:
            print(json.dumps(figures))
        return
    if against is not None and compare is None:
        raise typer.BadParameter("--against needs --compare REF.json", param_hint="--against")
    before = None if compare is None else _read_rows(compare, "--compare")
    if before is not None and against is not None:
        after = _read_rows(against, "--against")
        stdout.print(_comparison_table(compare_rows(before, after), str(compare)))
        return
    names = list(SCENARIOS) if only is None else [name.strip() for name in only.split(",")]
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        raise typer.BadParameter(f"unknown scenarios {unknown}; choose from {list(SCENARIOS)}")
    rows = run_benchmarks(names, quick, repeat, threads, processes)
    stdout.print(_rows_table(rows))
    if json_path is not None:
        json_path.write_text(json.dumps(rows, indent=2) + "\n")
    if before is not None:
        stdout.print(_comparison_table(compare_rows(before, rows), str(compare)))


if __name__ == "__main__":
    app()
