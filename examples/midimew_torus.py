"""A 32x32 torus against a 1024-node midimew (002 §2.1): the same 1024 routers of degree 4, the
torus wired as a grid, the midimew as the circulant C_1024(23, 22) (router i linked to i +- 23
and i +- 22). Both run 002's routing: minimal adaptive on two VCs plus one escape VC under bubble
flow control (dimension order on the torus, the routing record on the midimew), 4 KiB VC
buffers, uniform destinations, 256 B packets.

The table gives each network's diameter and exact mean distance (`exanet.validate`), its
zero-load latency, and its saturation load under uniform traffic (exanet.sweep.saturation: the
highest offered load, a fraction of the injection bandwidth, that the network accepts without its
latency running away). The midimew's shorter routes (diameter 23 against 32, mean 15.09 hops
against 16.02) carry the same traffic over fewer links, so it saturates later.

Run with `python3 examples/midimew_torus.py` (about 3 minutes on a 2-core machine);
EXANET_EXAMPLES_QUICK=1 compares an 8x8 torus with a 64-node midimew over a shorter window
(a few seconds; example_scale.py).
"""

from __future__ import annotations

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet
from exanet.sweep.saturation import saturation

SIDE = sized(32, 8)
TOLERANCE = sized(0.02, 0.05)
WINDOW = sized({"warmup": "3us", "measure": "6us"}, {"warmup": "1us", "measure": "3us"})


def config(topology: dict) -> dict:
    return {
        "seed": 1,
        "topology": topology,
        "routing": {"kind": "minimal", "escape": "bubble"},
        "router": {"vcs": 3, "vc_buffer": "4KiB", "latency": "50ns"},
        "links": {"latency": "20ns", "bandwidth": "25GB/s"},
        "traffic": {"pattern": "uniform", "packet": "256B", "load": 0.1},
        "run": {**WINDOW, "drain": "none"},
    }


def main() -> None:
    nodes = SIDE * SIDE
    networks = {
        f"{SIDE}x{SIDE} torus": {"kind": "torus", "dims": [SIDE, SIDE]},
        f"midimew of {nodes}": {"kind": "midimew", "nodes": nodes},
    }
    table = Table(
        title=f"{SIDE}x{SIDE} torus vs midimew of {nodes} nodes "
        "(minimal adaptive, bubble escape, uniform, 256 B)",
        header_style="bold",
    )
    for column in (
        "network",
        "diameter (hops)",
        "mean distance (hops)",
        "zero-load latency (ns)",
        "saturation load",
    ):
        table.add_column(column, justify="left" if column == "network" else "right")
    for name, topology in networks.items():
        info = exanet.validate(config(topology))
        found = saturation(config(topology), tolerance=TOLERANCE)
        table.add_row(
            name,
            str(info["diameter_hops"]),
            f"{info['average_distance_hops']:.3f}",
            f"{found.zero_load_latency_ns:.0f}",
            f"{found.load:.3f}",
        )
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
