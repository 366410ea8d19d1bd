"""Compare dimension-order and minimal adaptive routing on an 8x8 torus (docs/routing.md).

- dor: dimension order with dateline VC classes (3 VCs);
- minimal, escape = "dor": minimal adaptive on VCs 2-3, Duato's escape sub-network of
  dimension-order routing on VCs 0-1 (4 VCs);
- minimal, escape = "bubble": minimal adaptive on VCs 1-2, one escape VC under bubble flow
  control (3 VCs).

Under tornado traffic (every endpoint sends to (x+3, y+3)) every route runs in the + direction
of both rings, and no routing can accept more than 1/3 of the injection bandwidth; under
uniform traffic the schemes agree below saturation.

A second table compares DOR's two VC rules on the same routes (routing.vc_rule): dateline
(class 0 until the wrap-around link, class 1 from it on) and digit_compare (class 1 when the
destination's coordinate in the hop's dimension is greater than the current router's: the
e-cube lanes of Liu et al.'s ROSS torus model), with 2 VCs (one per class, their model's VL0
and VL1) and 3 (class 0 gets VCs 0-1, class 1 VC 2).

Run with `python3 examples/routing_torus.py`; it takes about 12 s on a 2-core machine.
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
VC_RULES = {  # column name: (vc_rule, router.vcs)
    f"{rule} ({vcs} VCs)": (rule, vcs) for vcs in (2, 3) for rule in ("dateline", "digit_compare")
}
VC_RULE_LOADS = {"tornado": (0.2, 0.3), "uniform": (0.6, 0.8, 1.0)}


def main() -> None:
    columns = {
        name: partial(network_config, TOPOLOGY, routing, {"vcs": vcs, "vc_buffer": "4KiB"})
        for name, (routing, vcs) in ROUTINGS.items()
    }
    print_comparison("8x8 torus, 4 KiB VC buffers", columns, LOADS)
    lanes = {
        name: partial(
            network_config,
            TOPOLOGY,
            {"kind": "dor", "vc_rule": rule},
            {"vcs": vcs, "vc_buffer": "4KiB"},
        )
        for name, (rule, vcs) in VC_RULES.items()
    }
    print_comparison("8x8 torus, DOR, dateline vs digit_compare VC rules", lanes, VC_RULE_LOADS)


if __name__ == "__main__":
    main()
