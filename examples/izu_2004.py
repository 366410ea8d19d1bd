"""Izu, Miguel-Alonso and Gregorio, "Traffic sources and their influence on the evaluation of
interconnection network performance" (2004), Tables 1 and 2, at full size (docs/validation.md,
"Izu et al. 2004 (002) at full size").

The network in exanet's units, 1 cycle = 1 ns and 1 phit = 1 B (exanet.validation.IZU_NETWORK):
a 32x32 torus, minimal adaptive routing on 2 VCs with a dimension-order escape VC under bubble
flow control (3 VCs), VC buffers of 8 packets (128 phits), packets of 16 phits with no separate
header, links and NIC links of 1 phit per cycle and 1 cycle, routers of 1 cycle. Adaptive
selection takes the freest way with no bias toward dimension order (routing.threshold defaults
to 0 with an escape sub-network; 002 describes no bias, and half a buffer of it lowered TR's
throughput by a third). A load in
phits/cycle/node is then exanet's load (a fraction of the injection bandwidth). The fixed points
of transpose and shuffle stay silent, as the paper's do.

- Table 1: Bernoulli sources at applied load 1 (beyond saturation), 100,000 cycles of warm-up
  and 100,000 measured; each node's injection rate (`injected_load` of the endpoints table):
  the largest and smallest over the nodes that send, and the mean over all nodes.
- Table 2: 5 bursts of BURST_PACKETS packets per node, each burst starting when the previous
  one has been delivered; the whole workload over the completion time, per node.

Run with `python3 examples/izu_2004.py`; it takes 10 minutes of CPU time (12 minutes of wall
time on a 2-core machine), most of it in the bursts.
EXANET_EXAMPLES_QUICK=1 runs an 8x8 torus for 2,000 + 2,000 cycles and bursts of 20 packets
(seconds; example_scale.py).
"""

from __future__ import annotations

import copy
from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet
from exanet.validation import IZU_NETWORK, IZU_PATTERNS

DIMS = sized([32, 32], [8, 8])
WINDOW = sized("100us", "2us")  # warm-up and measurement: 100,000 cycles each at full size
BURST_PACKETS = sized(1000, 20)
PHITS_PER_PACKET = 16
#: Table 1 of the paper, beyond saturation: (max, min, avg) injection in phits/cycle/node.
PAPER_TABLE1 = {
    ("UN", 0): (0.219, 0.194, 0.205),
    ("UN", 1): (0.267, 0.217, 0.243),
    ("TR", 0): (0.559, 0.013, 0.132),
    ("TR", 1): (0.716, 0.000, 0.098),
    ("SH", 0): (0.973, 0.002, 0.125),
    ("SH", 1): (0.974, 0.000, 0.119),
}
#: Table 2 of the paper: throughput over 5 bursts of 1K packets, phits/cycle/node.
PAPER_TABLE2 = {
    ("UN", 0): 0.192,
    ("UN", 1): 0.220,
    ("TR", 0): 0.087,
    ("TR", 1): 0.123,
    ("SH", 0): 0.055,
    ("SH", 1): 0.060,
}


def network(ipr: int) -> dict[str, Any]:
    """002's network on DIMS, the in-transit-priority restriction on (1) or off (0)."""
    config = copy.deepcopy(IZU_NETWORK)
    config["topology"]["dims"] = DIMS
    config["router"]["in_transit_priority"] = float(ipr)
    return config


def table1_row(pattern: str, ipr: int) -> tuple[float, float, float]:
    """(max, min, avg) injection rate in phits/cycle/node beyond saturation."""
    config = network(ipr)
    config["traffic"] = {
        "pattern": IZU_PATTERNS[pattern],
        "process": "bernoulli",
        "load": 1.0,
        "packet": f"{PHITS_PER_PACKET}B",
        "fixed_points": "silent",
    }
    config["run"] = {"warmup": WINDOW, "measure": WINDOW, "drain": "none"}
    endpoints = exanet.simulate(config, progress=False).endpoints
    senders = endpoints.loc[endpoints["offered_load"] > 0, "injected_load"]
    return senders.max(), senders.min(), endpoints["injected_load"].mean()


def table2_cell(pattern: str, ipr: int) -> float:
    """Throughput over 5 bursts in phits/cycle/node."""
    config = network(ipr)
    config["traffic"] = {
        "kind": "burst",
        "pattern": IZU_PATTERNS[pattern],
        "packet": f"{PHITS_PER_PACKET}B",
        "packets_per_burst": BURST_PACKETS,
        "bursts": 5,
        "restart_delay": "1ns",
        "fixed_points": "silent",
    }
    summary = exanet.simulate(config, progress=False).summary
    return summary["burst_throughput_packets_per_ns"] * PHITS_PER_PACKET / summary["endpoints"]


def versus(exanet_value: float, paper: float) -> str:
    """`exanet (paper)`, three decimals."""
    return f"{exanet_value:.3f} ({paper:.3f})"


def main() -> None:
    size = "x".join(map(str, DIMS))
    table1 = Table(
        title=f"Table 1, {size} torus, applied load 1: injection in phits/cycle/node, "
        "exanet (paper)",
        header_style="bold",
    )
    table2 = Table(
        title=f"Table 2, {size} torus, 5 bursts of {BURST_PACKETS} packets: throughput in "
        "phits/cycle/node, exanet (paper)",
        header_style="bold",
    )
    for table, columns in ((table1, ("max", "min", "avg")), (table2, ("throughput",))):
        table.add_column("pattern")
        table.add_column("IPR")
        for column in columns:
            table.add_column(column, justify="right")
    for pattern, ipr in PAPER_TABLE1:
        measured = table1_row(pattern, ipr)
        cells = [versus(m, p) for m, p in zip(measured, PAPER_TABLE1[pattern, ipr], strict=True)]
        table1.add_row(pattern, "on" if ipr else "off", *cells)
    for pattern, ipr in PAPER_TABLE2:
        cell = versus(table2_cell(pattern, ipr), PAPER_TABLE2[pattern, ipr])
        table2.add_row(pattern, "on" if ipr else "off", cell)
    console = Console(width=120)
    console.print(table1)
    console.print(table2)


if __name__ == "__main__":
    main()
