"""001's systems at their own scale: the 100k-node Dragonfly, Slim Fly, 3- and 4-level fat-trees,
Fishnet and Fishnet-lite of Li et al. (2019), each under minimal routing, UGAL-L and (on the
systems with groups: the Dragonfly and the Fishnets) the Fishnet-tailored adaptive scheme, with
two workloads:

- uniform random traffic at 30% load, 1 us of warm-up and 2 us measured, no drain;
- one MPI motif: an AllReduce over every endpoint of the system (one job, one rank per
  endpoint, linear placement), by recursive doubling of a 256 B buffer. Recursive doubling is
  MPICH's algorithm for small buffers: log2 p steps of one message per rank (p the largest power
  of two <= the ranks, 2 more steps folding in the rest), so at 100k ranks it is 18 steps and
  about 1.8 M single-packet messages, a few us of simulated time. Rabenseifner or a ring would
  cut the buffer into 100k-th blocks (or take 200k steps) and only pay off for large buffers.
  The NIC MTU is set to 256 B so the AllReduce's packets are the uniform runs' (256 B payload +
  32 B header) and the default 2 KiB VC buffers hold them. Its figure of merit is the job
  time, `jobs_completion_ns_max`.

Each network runs with the fewest VCs its scheme accepts, at least 2 (the core refuses fewer,
naming router.vcs), on one thread. The 4-level fat-tree runs minimal routing only, as when the
recorded table was made: UGAL-L then needed more VCs than 8 there (a VC per hop); it now needs 2
(a VC class per leg, docs/routing.md). Every run happens in a fresh process, so its peak RSS
(the MB column: the whole process, Python and the built network included) is its own; wall s is
the simulation alone.
BENCHMARKS.md and docs/routing.md record the figures: on a shared 2-core machine a uniform run
of a 100k-endpoint system took 34 s to 3 minutes and 250-730 MB, an AllReduce 12-32 s and
250-300 MB, so the whole table takes about 45 minutes. A line is printed as each run finishes.

Run with `python3 examples/li_2019_scale.py`. EXANET_EXAMPLES_QUICK=1 runs small members of
the same families for 0.5 us and 64 B AllReduces instead (a few seconds; example_scale.py).
"""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

WITH_GROUPS = ("minimal", "ugal_l", "fishnet_adaptive")
SYSTEMS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = sized(
    {
        "Dragonfly p13 a26 h13": ({"kind": "dragonfly", "p": 13, "a": 26, "h": 13}, WITH_GROUPS),
        "Slim Fly q53 p18": ({"kind": "slim_fly", "q": 53, "p": 18}, ("minimal", "ugal_l")),
        "FT3 radix 74": (
            {"kind": "fat_tree", "levels": 3, "radix": 74, "pods": 74},
            ("minimal", "ugal_l"),
        ),
        "FT4 radix 30": ({"kind": "fat_tree", "levels": 4, "radix": 30, "pods": 30}, ("minimal",)),
        "Fishnet on MMS q7 p10": (
            {"kind": "fishnet", "base": {"kind": "slim_fly", "q": 7}, "p": 10},
            WITH_GROUPS,
        ),
        "Fishnet-lite on MMS q7 p10": (
            {"kind": "fishnet_lite", "base": {"kind": "slim_fly", "q": 7}, "p": 10},
            WITH_GROUPS,
        ),
    },
    {
        "Dragonfly p2 a4 h2": ({"kind": "dragonfly", "p": 2, "a": 4, "h": 2}, WITH_GROUPS),
        "Slim Fly q5 p3": ({"kind": "slim_fly", "q": 5, "p": 3}, ("minimal", "ugal_l")),
        "FT3 radix 4": (
            {"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4},
            ("minimal", "ugal_l"),
        ),
        "FT4 radix 4": ({"kind": "fat_tree", "levels": 4, "radix": 4, "pods": 4}, ("minimal",)),
        "Fishnet on Petersen p2": (
            {"kind": "fishnet", "base": {"kind": "petersen"}, "p": 2},
            WITH_GROUPS,
        ),
        "Fishnet-lite on Petersen p2": (
            {"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 2},
            WITH_GROUPS,
        ),
    },
)
UNIFORM = {
    "traffic": {"pattern": "uniform", "load": 0.3},
    "run": sized(
        {"warmup": "1us", "measure": "2us", "drain": "none"},
        {"warmup": "0.2us", "measure": "0.3us", "drain": "none"},
    ),
}
ALLREDUCE_BYTES = sized(256, 64)
MOST_VCS = 8


def fewest_vcs(topology: dict[str, Any], scheme: str) -> tuple[int, int]:
    """The fewest VCs `scheme` accepts on `topology` (at most MOST_VCS), and its endpoints."""
    for vcs in range(2, MOST_VCS + 1):
        config = {
            "topology": topology,
            "routing": {"kind": scheme},
            "router": {"vcs": vcs},
            **UNIFORM,
        }
        try:
            return vcs, exanet.validate(config)["endpoints"]
        except exanet.ConfigError as error:
            if error.key != "router.vcs":
                raise
    raise SystemExit(f"error: {scheme} needs more than {MOST_VCS} VCs on {topology}")


def allreduce(endpoints: int) -> dict[str, Any]:
    """One recursive-doubling AllReduce of ALLREDUCE_BYTES over all `endpoints`."""
    job = {
        "app": "allreduce",
        "ranks": endpoints,
        "message": ALLREDUCE_BYTES,
        "algorithm": "recursive_doubling",
    }
    return {"traffic": {"kind": "jobs", "jobs": [job]}, "nic": {"mtu": ALLREDUCE_BYTES}}


def peak_rss_mb() -> float:
    """This process's peak resident set size, in MB (ru_maxrss is KiB on Linux, B on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1e6 if sys.platform == "darwin" else peak * 1024 / 1e6


def simulate(config: dict[str, Any]) -> tuple[dict[str, Any], float, float]:
    """The run's summary, its wall seconds and the process's peak RSS in MB."""
    started = time.perf_counter()
    summary = exanet.simulate(config, progress=False).summary
    return summary, time.perf_counter() - started, peak_rss_mb()


def main() -> None:
    console = Console()
    columns = (
        "system",
        "routing",
        "traffic",
        "VCs",
        "endpoints",
        "routers",
        "accepted",
        "latency ns",
        "hops",
        "job us",
        "wall s",
        "peak MB",
    )
    table = Table(title=sized("001's systems at 100k nodes", "001's systems, small members"))
    for column in columns:
        table.add_column(column, justify="left" if column in columns[:3] else "right")
    workloads = {"uniform 30%": lambda endpoints: UNIFORM, "allreduce": allreduce}
    # A fresh process per run, so each peak RSS is the run's own: forked from a server that has
    # imported exanet and nothing else (no VCs found, no network built), for a quick start.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["exanet.api"])
    for name, (topology, schemes) in SYSTEMS.items():
        for scheme in schemes:
            vcs, endpoints = fewest_vcs(topology, scheme)
            for traffic, workload in workloads.items():
                config = {
                    "topology": topology,
                    "routing": {"kind": scheme},
                    "router": {"vcs": vcs},
                    **workload(endpoints),
                }
                # An executor, not a Pool: a worker that dies raises instead of hanging.
                with ProcessPoolExecutor(1, mp_context=context) as pool:
                    summary, wall_s, peak_mb = pool.submit(simulate, config).result()
                job_us = summary.get("jobs_completion_ns_max")
                row = (
                    name,
                    scheme,
                    traffic,
                    str(vcs),
                    f"{summary['endpoints']:,}",
                    f"{summary['routers']:,}",
                    f"{summary['accepted_load']:.3f}",
                    f"{summary['latency_ns_mean']:.0f}",
                    f"{summary['hops_mean']:.2f}",
                    "-" if job_us is None else f"{job_us / 1e3:.2f}",
                    f"{wall_s:.1f}",
                    f"{peak_mb:.0f}",
                )
                console.print(" | ".join(row), style="dim", soft_wrap=True)
                table.add_row(*row)
    console.print(table)


if __name__ == "__main__":
    main()
