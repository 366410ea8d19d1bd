"""Compare routing schemes on a small all-to-all dragonfly (docs/routing.md).

Runs minimal, Valiant, UGAL-L and PAR on a dragonfly of 9 groups (p=2, a=4, h=2: 72
endpoints, one global link between each pair of groups) under two traffic patterns:

- group_shift: every endpoint sends to a random endpoint of the next group, so minimal routing
  puts the 8 endpoints of a group on the one global link to the next group;
- uniform: minimal routing suits it, and Valiant pays for its longer routes.

Run with `python3 examples/routing_dragonfly.py`; it takes about 9 s on a 2-core machine.
EXANET_EXAMPLES_QUICK=1 measures 2 us instead of 40 us (about 2 s; example_scale.py).
"""

from __future__ import annotations

from functools import partial

from compare_routing import network_config, print_comparison

TOPOLOGY = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9}
ROUTINGS = ("minimal", "valiant", "ugal_l", "par")
LOADS = {"group_shift": (0.2, 0.4, 0.6), "uniform": (0.3, 0.6, 0.9)}
# PAR needs 4 VCs on this dragonfly (minimal 2, Valiant and UGAL-L 3); with 8 every scheme
# shares the spare VCs among its VC classes.
ROUTER = {"vcs": 8, "vc_buffer": "2KiB"}


def main() -> None:
    columns = {kind: partial(network_config, TOPOLOGY, {"kind": kind}, ROUTER) for kind in ROUTINGS}
    print_comparison("dragonfly p=2 a=4 h=2 g=9, 8 VCs of 2 KiB", columns, LOADS)


if __name__ == "__main__":
    main()
