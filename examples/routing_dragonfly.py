"""Compare routing schemes on a small all-to-all dragonfly (docs/routing.md).

Runs minimal, Valiant, UGAL-L and PAR on a dragonfly of 9 groups (p=2, a=4, h=2: 144
endpoints, one global link between each pair of groups) under two traffic patterns:

- group_shift: every endpoint sends to a random endpoint of the next group, so minimal routing
  puts the 8 endpoints of a group on the one global link to the next group;
- uniform: minimal routing suits it, and Valiant pays for its longer routes.

Run with `python3 examples/routing_dragonfly.py`; it takes a few seconds.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

import exanet

TOPOLOGY = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9}
ROUTINGS = ("minimal", "valiant", "ugal_l", "par")
LOADS = {"group_shift": (0.2, 0.4, 0.6), "uniform": (0.3, 0.6, 0.9)}
# PAR needs 4 VCs on this dragonfly (minimal 2, Valiant and UGAL-L 3); with 8 every scheme
# shares the spare VCs among its VC classes.
ROUTER = {"vcs": 8, "vc_buffer": "2KiB"}
RUN = {"warmup": "10us", "measure": "40us", "drain": "none"}


def config(routing: str, pattern: str, load: float) -> dict[str, Any]:
    return {
        "topology": TOPOLOGY,
        "routing": {"kind": routing},
        "router": ROUTER,
        "traffic": {"pattern": pattern, "load": load, "packet": "256B"},
        "run": RUN,
    }


def cell(summary: dict[str, Any]) -> str:
    """Accepted load / mean latency in microseconds / mean hops."""
    latency_us = summary["latency_ns_mean"] / 1000
    return f"{summary['accepted_load']:.3f} / {latency_us:.2f} / {summary['hops_mean']:.1f}"


def main() -> None:
    table = Table(
        title="dragonfly p=2 a=4 h=2 g=9, 8 VCs of 2 KiB\naccepted load (fraction of "
        "injection bandwidth) / mean latency (us) / mean hops",
        header_style="bold",
    )
    table.add_column("pattern")
    table.add_column("offered", justify="right")
    for routing in ROUTINGS:
        table.add_column(routing, justify="right")
    for pattern, loads in LOADS.items():
        for load in loads:
            cells = [
                cell(exanet.simulate(config(routing, pattern, load), progress=False).summary)
                for routing in ROUTINGS
            ]
            table.add_row(pattern, f"{load:.1f}", *cells)
        table.add_section()
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
