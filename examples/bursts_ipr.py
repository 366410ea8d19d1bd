"""Burst-synchronized sources and the in-transit-priority restriction (IPR), in the style of
Izu, Miguel-Alonso and Gregorio (docs/workloads.md).

Every endpoint of an 8x8 torus (dimension-order routing, 2 VCs of 2 KiB) sends 1,000 packets of
256 B as fast as the network takes them; a burst ends when every packet has arrived and the next
one starts at once; 5 bursts. The figure of merit is the time a burst takes (equivalently the
throughput: all packets delivered over the completion time), for four destination patterns:

- IPR off: injected and in-transit packets compete alike for a router's outputs;
- IPR on (router.in_transit_priority = 1): a newly injected packet wins an output only when no
  packet already in the network competes for it;
- throttle: no IPR, but each NIC keeps at most THROTTLE packets in the network
  (nic.max_outstanding_packets; a slot frees when the acknowledgement of a delivered packet
  reaches its source, one NIC-link latency after delivery).

Transpose and shuffle are permutations, so every burst takes the same time; uniform and tornado
draw fresh destinations per packet. This reduced torus does not reproduce the paper's 32x32
adaptive router; the sign of IPR's effect depends on the pattern here.

Run with `python3 examples/bursts_ipr.py`; it takes about 8 s on a 2-core machine.
EXANET_EXAMPLES_QUICK=1 runs 2 bursts of 50 packets instead (about 2 s; example_scale.py).
"""

from __future__ import annotations

from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

TOPOLOGY = {"kind": "torus", "dims": [8, 8]}
PATTERNS = ("uniform", "transpose", "shuffle", "tornado")
BURST = {
    "kind": "burst",
    "packet": "256B",
    "packets_per_burst": sized(1000, 50),
    "bursts": sized(5, 2),
}
THROTTLE = 16
COLUMNS = {  # column name: (router.in_transit_priority, nic.max_outstanding_packets)
    "IPR off": (0.0, 0),
    "IPR on": (1.0, 0),
    f"throttle {THROTTLE}": (0.0, THROTTLE),
}


def burst_config(pattern: str, ipr: float, outstanding: int) -> dict[str, Any]:
    """The burst workload under `pattern` with IPR probability `ipr` and the NIC throttle."""
    return {
        "topology": TOPOLOGY,
        "routing": {"kind": "dor"},
        "router": {"vcs": 2, "in_transit_priority": ipr},
        "nic": {"max_outstanding_packets": outstanding},
        "traffic": {**BURST, "pattern": pattern},
    }


def cell(summary: dict[str, Any]) -> str:
    """Mean time per burst (min-max) in microseconds / throughput in packets per ns."""
    mean, low, high = (summary[f"burst_time_ns_{k}"] / 1000 for k in ("mean", "min", "max"))
    spread = f" ({low:.1f}-{high:.1f})" if high - low >= 0.05 else ""
    return f"{mean:.1f}{spread} / {summary['burst_throughput_packets_per_ns']:.3f}"


def main() -> None:
    table = Table(
        title=f"8x8 torus, DOR: {BURST['bursts']} bursts of {BURST['packets_per_burst']} packets "
        f"of {BURST['packet']} per endpoint\nmean time per burst in us (min-max) / throughput "
        "(packets delivered per ns, whole network)",
        header_style="bold",
    )
    table.add_column("pattern")
    for name in COLUMNS:
        table.add_column(name, justify="right")
    table.add_column("on / off", justify="right")
    for pattern in PATTERNS:
        summaries = [
            exanet.simulate(burst_config(pattern, ipr, outstanding), progress=False).summary
            for ipr, outstanding in COLUMNS.values()
        ]
        ratio = summaries[1]["burst_time_ns_mean"] / summaries[0]["burst_time_ns_mean"]
        table.add_row(pattern, *(cell(s) for s in summaries), f"{ratio:.2f}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
