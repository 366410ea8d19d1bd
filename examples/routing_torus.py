"""Compare dimension-order and minimal adaptive routing on an 8x8 torus (docs/routing.md).

- dor: dimension order with dateline VC classes (3 VCs);
- minimal, escape = "dor": minimal adaptive on VCs 2-3, Duato's escape sub-network of
  dimension-order routing on VCs 0-1 (4 VCs);
- minimal, escape = "bubble": minimal adaptive on VCs 1-2, one escape VC under bubble flow
  control (3 VCs).

Under tornado traffic (every endpoint sends to (x+3, y+3)) every route runs in the + direction
of both rings, and no routing can accept more than 1/3 of the injection bandwidth; under
uniform traffic the schemes agree below saturation.

Run with `python3 examples/routing_torus.py`; it takes about 6 s on a 2-core machine.
EXANET_EXAMPLES_QUICK=1 measures 2 us instead of 40 us (about 2 s; example_scale.py).
"""

from __future__ import annotations

from functools import partial

from compare_routing import network_config, print_comparison

TOPOLOGY = {"kind": "torus", "dims": [8, 8]}
ROUTINGS = {  # column name: (routing table, router.vcs)
    "dor (3 VCs)": ({"kind": "dor"}, 3),
    "escape dor (4 VCs)": ({"kind": "minimal", "escape": "dor"}, 4),
    "escape bubble (3 VCs)": ({"kind": "minimal", "escape": "bubble"}, 3),
}
LOADS = {"tornado": (0.2, 0.3, 0.6), "uniform": (0.3, 0.6, 0.9)}


def main() -> None:
    columns = {
        name: partial(network_config, TOPOLOGY, routing, {"vcs": vcs, "vc_buffer": "4KiB"})
        for name, (routing, vcs) in ROUTINGS.items()
    }
    print_comparison("8x8 torus, 4 KiB VC buffers", columns, LOADS)


if __name__ == "__main__":
    main()
