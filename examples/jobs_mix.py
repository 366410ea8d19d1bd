"""Two jobs sharing a dragonfly under linear and random placement, in the style of Bhatele et
al.'s multi-job study (docs/workloads.md).

The machine: an all-to-all dragonfly of 9 groups of 4 routers, 2 endpoints and 2 global links
per router (72 endpoints; exactly one global link between each pair of groups), 3 VCs of
64 KiB. The jobs, 32 ranks each, 2 iterations of 64 KiB messages (rendezvous: above the
16 KiB eager limit):

- milc: a periodic 4x2x2x2 grid, every rank exchanges 8 messages with its grid neighbours
  (+-1 in each dimension; in a dimension of size 2 both are the same rank);
- spread: every rank exchanges with the partners of 4 random perfect matchings.

Placements fill the free endpoints in order (linear: milc on groups 0-3, spread on groups 4-7),
by random routers, or at random. With `alone = true` each job also runs by itself on the same
endpoints, which gives its slowdown from sharing the machine. Minimal routing keeps a linearly
placed job inside its groups (no interference, slowdown 1) but squeezes its traffic between two
groups through their single global link; random placement and UGAL-L spread traffic over more
global links, and over links the other job uses. Every figure is the mean over SEEDS (random
placements, spread's partners). A slowdown below 1 can occur: the other job's traffic changes
the order in which messages meet in the network.

Run with `python3 examples/jobs_mix.py`; it takes about 3 s on a 2-core machine.
EXANET_EXAMPLES_QUICK=1 runs one seed instead of three (about 2 s; example_scale.py).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

TOPOLOGY = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9}
ROUTER = {"vcs": 3, "vc_buffer": "64KiB"}
JOBS = [
    {"name": "milc", "app": "milc", "ranks": 32, "grid": [4, 2, 2, 2], "message": "64KiB"},
    {"name": "spread", "app": "spread", "ranks": 32, "message": "64KiB", "partners": 4},
]
ITERATIONS = 2
ROUTINGS = ("minimal", "ugal_l")
PLACEMENTS = ("linear", "random_routers", "random_endpoints")
SEEDS = sized((1, 2, 3), (1,))


def jobs_config(routing: str, placement: str, seed: int) -> dict[str, Any]:
    """Both jobs under `placement`, each also run alone, on the dragonfly with `routing`."""
    return {
        "seed": seed,
        "topology": TOPOLOGY,
        "routing": {"kind": routing},
        "router": ROUTER,
        "traffic": {
            "kind": "jobs",
            "alone": True,
            "jobs": [{**job, "iterations": ITERATIONS, "placement": placement} for job in JOBS],
        },
    }


def run_all() -> pd.DataFrame:
    """One row per (routing, placement, seed, job) with the jobs table's columns."""
    frames = []
    for routing in ROUTINGS:
        for placement in PLACEMENTS:
            for seed in SEEDS:
                jobs = exanet.simulate(jobs_config(routing, placement, seed), progress=False).jobs
                frames.append(jobs.assign(routing=routing, placement=placement, seed=seed))
    return pd.concat(frames, ignore_index=True).astype({"name": str})


def main() -> None:
    runs = run_all()
    means = runs.groupby(["routing", "placement", "name"], sort=False)[
        ["completion_ns", "slowdown_vs_alone", "communication_rate_gbytes_per_s"]
    ].mean()
    names = [job["name"] for job in JOBS]
    table = Table(
        title=f"{len(names)} jobs of {JOBS[0]['ranks']} ranks on a 72-endpoint dragonfly, mean "
        f"over {len(SEEDS)} seeds\ncompletion in us / slowdown vs alone / communication rate in "
        "GB/s (bytes sent over completion time)",
        header_style="bold",
    )
    table.add_column("routing")
    table.add_column("placement")
    for name in names:
        table.add_column(name, justify="right")
    table.add_column("total GB/s", justify="right")
    for routing in ROUTINGS:
        for placement in PLACEMENTS:
            cells = []
            total = 0.0
            for name in names:
                completion, slowdown, rate = means.loc[(routing, placement, name)]
                cells.append(f"{completion / 1000:.1f} / {slowdown:.3f} / {rate:.0f}")
                total += rate
            table.add_row(routing, placement, *cells, f"{total:.0f}")
        table.add_section()
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
