"""Nodes with two NIC ports: a multi-plane fat-tree (004 §4.1, CODES' network planes) and a
rail-optimized one (today's AI clusters), against one plane (docs/topologies.md, "Several NIC
ports per node").

The machines, 64 nodes each, 8-port routers, 25 GB/s links:
- one plane: a 3-level fat-tree of 4 pods (one port per node);
- two planes: two disjoint copies of it, port p of every node in copy p;
- two rails: one 3-level tree of 8 pods whose pairs of leaves are scalable units, leaf p of a
  unit holding port p of each of its 4 nodes.
Each runs three workloads: a 1 MiB ping-pong between nodes in different pods (completion, us),
an alltoall of 16 KiB per pair over every node (completion, us), and uniform traffic offered at
0.9 of a node's injection bandwidth (accepted GB/s per node). Message striping sends a whole
message on each port in turn; packet striping sends each packet on the next port.

Two ports double what a node can inject (45 against 22.5 GB/s at 0.9), but only packet
striping makes one large message faster (22 against 42 us: half its packets on each port);
message striping sends it whole on one port, exactly as one plane does. The rails tree has the
same routers as the two planes together and takes more hops for traffic between rails' units,
but keeps same-rail traffic of a unit on one leaf.

Run with `python3 examples/multi_plane_fat_tree.py`; it takes about 15 s on a 2-core machine.
EXANET_EXAMPLES_QUICK=1 runs shorter windows and a smaller alltoall (example_scale.py).
"""

from __future__ import annotations

from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

ALLTOALL = sized("16KiB", "2KiB")
MEASURE = sized("20us", "2us")

DESIGNS: dict[str, tuple[dict[str, Any], str]] = {
    "1 plane": ({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4}, "message"),
    "2 planes, message striping": (
        {"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4, "planes": 2},
        "message",
    ),
    "2 planes, packet striping": (
        {"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4, "planes": 2},
        "packet",
    ),
    "2 rails, packet striping": (
        {
            "kind": "fat_tree",
            "levels": 3,
            "radix": 8,
            "pods": 8,
            "planes": 2,
            "plane_wiring": "rails",
        },
        "packet",
    ),
}


def config(topology: dict[str, Any], striping: str, traffic: dict[str, Any]) -> dict[str, Any]:
    return {
        "topology": topology,
        "routing": {"kind": "minimal"},
        "nic": {"striping": striping},
        "router": {"vc_buffer": "16KiB"},
        "traffic": traffic,
        "run": {"warmup": "2us", "measure": MEASURE},
    }


def one_message() -> dict[str, Any]:
    """A 1 MiB ping-pong between node 0 and node 63 (another pod)."""
    return {
        "kind": "jobs",
        "jobs": [{"app": "pingpong", "ranks": 2, "message": "1MiB", "map": [0, 63]}],
    }


def alltoall() -> dict[str, Any]:
    return {"kind": "jobs", "jobs": [{"app": "alltoall", "ranks": 64, "message": ALLTOALL}]}


UNIFORM = {"kind": "synthetic", "pattern": "uniform", "load": 0.9, "packet": "256B"}


def main() -> None:
    table = Table(title=f"64 nodes with NIC ports on fat-tree planes or rails, {ALLTOALL} alltoall")
    for column in (
        "design",
        "routers",
        "links",
        "1 MiB ping-pong, us",
        "alltoall, us",
        "uniform 0.9: accepted GB/s per node",
        "plane packets min/max",
    ):
        table.add_column(column, justify="left" if column == "design" else "right")
    for name, (topology, striping) in DESIGNS.items():
        message = exanet.simulate(config(topology, striping, one_message()), progress=False)
        exchange = exanet.simulate(config(topology, striping, alltoall()), progress=False)
        uniform = exanet.simulate(config(topology, striping, UNIFORM), progress=False)
        s = exchange.summary
        planes = (
            f"{s['plane_packets_injected_min']:,} / {s['plane_packets_injected_max']:,}"
            if s["planes"] > 1
            else "-"
        )
        table.add_row(
            name,
            f"{s['routers']:,}",
            f"{s['network_links']:,}",
            f"{message.summary['sim_time_ns'] / 1000:.1f}",
            f"{s['sim_time_ns'] / 1000:.1f}",
            f"{uniform.summary['accepted_gbytes_per_s']:.1f}",
            planes,
        )
    Console().print(table)


if __name__ == "__main__":
    main()
