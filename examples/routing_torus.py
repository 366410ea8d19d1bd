"""Compare dimension-order and minimal adaptive routing on an 8x8 torus (docs/routing.md).

- dor: dimension order with dateline VC classes (3 VCs);
- minimal, escape = "dor": minimal adaptive on VCs 2-3, Duato's escape sub-network of
  dimension-order routing on VCs 0-1 (4 VCs);
- minimal, escape = "bubble": minimal adaptive on VCs 1-2, one escape VC under bubble flow
  control (3 VCs).

Under tornado traffic (every endpoint sends to (x+3, y+3)) every route runs in the + direction
of both rings, and no routing can accept more than 1/3 of the injection bandwidth; under
uniform traffic the schemes agree below saturation.

Run with `python3 examples/routing_torus.py`; it takes a few seconds.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

import exanet

TOPOLOGY = {"kind": "torus", "dims": [8, 8]}
ROUTINGS = {  # column name: (routing table, router.vcs)
    "dor (3 VCs)": ({"kind": "dor"}, 3),
    "escape dor (4 VCs)": ({"kind": "minimal", "escape": "dor"}, 4),
    "escape bubble (3 VCs)": ({"kind": "minimal", "escape": "bubble"}, 3),
}
LOADS = {"tornado": (0.2, 0.3, 0.6), "uniform": (0.3, 0.6, 0.9)}
RUN = {"warmup": "10us", "measure": "40us", "drain": "none"}


def config(routing: dict[str, Any], vcs: int, pattern: str, load: float) -> dict[str, Any]:
    return {
        "topology": TOPOLOGY,
        "routing": routing,
        "router": {"vcs": vcs, "vc_buffer": "4KiB"},
        "traffic": {"pattern": pattern, "load": load, "packet": "256B"},
        "run": RUN,
    }


def cell(summary: dict[str, Any]) -> str:
    """Accepted load / mean latency in microseconds."""
    return f"{summary['accepted_load']:.3f} / {summary['latency_ns_mean'] / 1000:.2f}"


def main() -> None:
    table = Table(
        title="8x8 torus, 4 KiB VC buffers\naccepted load (fraction of injection bandwidth) "
        "/ mean latency (us)",
        header_style="bold",
    )
    table.add_column("pattern")
    table.add_column("offered", justify="right")
    for name in ROUTINGS:
        table.add_column(name, justify="right")
    for pattern, loads in LOADS.items():
        for load in loads:
            cells = [
                cell(exanet.simulate(config(routing, vcs, pattern, load), progress=False).summary)
                for routing, vcs in ROUTINGS.values()
            ]
            table.add_row(pattern, f"{load:.1f}", *cells)
        table.add_section()
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
