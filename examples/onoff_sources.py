"""Bursty sources at the same load (002 §1's on-off models): Bernoulli, on/off (two-state
Markov, geometric bursts and idle periods) and Pareto on/off (heavy-tailed bursts and idle
periods, whose aggregate is self-similar with H = (3 - alpha) / 2) on an 8x8 torus with
dimension-order routing, uniform destinations, 256 B messages.

Every process offers the same long-run load; the bursty ones offer it in bursts of
`burst_length` messages on average, back to back at the injection link's rate. A burst does not
queue at its source (its messages leave as fast as they are due), but bursts from several
sources that meet at a router or a destination do: the latency's tail grows, and far more under
the Pareto tails (long bursts, some of hundreds of messages) than under the geometric ones. The
table gives, per process, the offered load the run measured, the accepted load, and the mean,
p99 and largest latency.

Run with `python3 examples/onoff_sources.py [--load F] [--burst-length B] [--alpha A]`
(about 10 s on a 2-core machine); EXANET_EXAMPLES_QUICK=1 runs a 4x4 torus over a shorter
window (about 1 s; example_scale.py).
"""

from __future__ import annotations

import argparse

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

DIMS = sized([8, 8], [4, 4])
MEASURE = sized("100us", "10us")


def config(process: dict, load: float) -> dict:
    return {
        "topology": {"kind": "torus", "dims": DIMS},
        "routing": {"kind": "dor"},
        "router": {"vcs": 2},
        "traffic": {"pattern": "uniform", "packet": "256B", "load": load, **process},
        "run": {"warmup": "5us", "measure": MEASURE, "drain": "measured"},
        "seed": 1,
    }


def main(load: float, burst_length: float, alpha: float) -> None:
    processes = {
        "bernoulli": {"process": "bernoulli"},
        f"on_off b={burst_length:g}": {
            "process": "on_off",
            "burst_length": burst_length,
        },
        f"pareto_on_off b={burst_length:g} alpha={alpha:g}": {
            "process": "pareto_on_off",
            "burst_length": burst_length,
            "pareto_alpha": alpha,
        },
    }
    torus = "x".join(map(str, DIMS))
    table = Table(
        title=f"Bursty sources at load {load:g} on a {torus} torus (DOR, uniform, 256 B)",
        header_style="bold",
    )
    for name in ("process", "offered", "accepted", "latency ns mean", "p99", "max"):
        table.add_column(name, justify="left" if name == "process" else "right")
    for name, process in processes.items():
        s = exanet.simulate(config(process, load), progress=False).summary
        table.add_row(
            name,
            f"{s['offered_load']:.3f}",
            f"{s['accepted_load']:.3f}",
            f"{s['latency_ns_mean']:.0f}",
            f"{s['latency_ns_p99']:.0f}",
            f"{s['latency_ns_max']:.0f}",
        )
    Console().print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=float, default=0.3)
    parser.add_argument("--burst-length", type=float, default=8.0)
    parser.add_argument("--alpha", type=float, default=1.5)
    args = parser.parse_args()
    main(args.load, args.burst_length, args.alpha)
