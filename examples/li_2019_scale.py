"""001's systems at their own scale: the 100k-node Dragonfly, Slim Fly, 3- and 4-level fat-trees,
Fishnet and Fishnet-lite of Li et al. (2019), each under minimal routing, UGAL-L and (on the
Fishnets) the Fishnet-tailored adaptive scheme, with uniform random traffic at 30% load.

Each network runs with the fewest VCs its scheme accepts (the core refuses fewer, naming
router.vcs), 1 us of warm-up and 2 us measured, on one thread. BENCHMARKS.md records the
figures: a run of one of these 100k-endpoint systems takes 1 to 1.5 minutes and 300-450 MB on a
2-core machine (measured for the Dragonfly, Slim Fly and FT3), so the whole table takes about
20 minutes. The 4-level fat-tree runs minimal routing only: UGAL-L needs more VCs than 8.

Run with `python3 examples/li_2019_scale.py`. EXANET_EXAMPLES_QUICK=1 runs small members of
the same families for 0.5 us instead (a few seconds; example_scale.py).
"""

from __future__ import annotations

import time
from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

SYSTEMS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = sized(
    {
        "Dragonfly p13 a26 h13": (
            {"kind": "dragonfly", "p": 13, "a": 26, "h": 13},
            ("minimal", "ugal_l"),
        ),
        "Slim Fly q53 p18": ({"kind": "slim_fly", "q": 53, "p": 18}, ("minimal", "ugal_l")),
        "FT3 radix 74": (
            {"kind": "fat_tree", "levels": 3, "radix": 74, "pods": 74},
            ("minimal", "ugal_l"),
        ),
        "FT4 radix 30": ({"kind": "fat_tree", "levels": 4, "radix": 30, "pods": 30}, ("minimal",)),
        "Fishnet on MMS q7 p10": (
            {"kind": "fishnet", "base": {"kind": "slim_fly", "q": 7}, "p": 10},
            ("minimal", "ugal_l", "fishnet_adaptive"),
        ),
        "Fishnet-lite on MMS q7 p10": (
            {"kind": "fishnet_lite", "base": {"kind": "slim_fly", "q": 7}, "p": 10},
            ("minimal", "ugal_l", "fishnet_adaptive"),
        ),
    },
    {
        "Dragonfly p2 a4 h2": (
            {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
            ("minimal", "ugal_l"),
        ),
        "Slim Fly q5 p3": ({"kind": "slim_fly", "q": 5, "p": 3}, ("minimal", "ugal_l")),
        "FT3 radix 4": (
            {"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4},
            ("minimal", "ugal_l"),
        ),
        "FT4 radix 4": ({"kind": "fat_tree", "levels": 4, "radix": 4, "pods": 4}, ("minimal",)),
        "Fishnet on Petersen p2": (
            {"kind": "fishnet", "base": {"kind": "petersen"}, "p": 2},
            ("minimal", "ugal_l", "fishnet_adaptive"),
        ),
        "Fishnet-lite on Petersen p2": (
            {"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 2},
            ("minimal", "ugal_l", "fishnet_adaptive"),
        ),
    },
)
RUN = sized(
    {"warmup": "1us", "measure": "2us", "drain": "none"},
    {"warmup": "0.2us", "measure": "0.3us", "drain": "none"},
)
MOST_VCS = 8


def fewest_vcs_config(topology: dict[str, Any], scheme: str) -> dict[str, Any]:
    """The config with the fewest VCs `scheme` accepts on `topology` (at most MOST_VCS)."""
    for vcs in range(2, MOST_VCS + 1):
        config = {
            "topology": topology,
            "routing": {"kind": scheme},
            "router": {"vcs": vcs},
            "traffic": {"pattern": "uniform", "load": 0.3},
            "run": RUN,
        }
        try:
            exanet.validate(config)
        except exanet.ConfigError as error:
            if error.key == "router.vcs":
                continue
            raise
        return config
    raise SystemExit(f"error: {scheme} needs more than {MOST_VCS} VCs on {topology}")


def main() -> None:
    table = Table(title=sized("001's systems at 100k nodes", "001's systems, small members"))
    for column in (
        "system",
        "routing",
        "VCs",
        "endpoints",
        "routers",
        "accepted",
        "latency ns",
        "hops",
        "wall s",
    ):
        table.add_column(column, justify="left" if column in ("system", "routing") else "right")
    for name, (topology, schemes) in SYSTEMS.items():
        for scheme in schemes:
            config = fewest_vcs_config(topology, scheme)
            started = time.perf_counter()
            summary = exanet.simulate(config).summary
            table.add_row(
                name,
                scheme,
                str(config["router"]["vcs"]),
                f"{summary['endpoints']:,}",
                f"{summary['routers']:,}",
                f"{summary['accepted_load']:.3f}",
                f"{summary['latency_ns_mean']:.0f}",
                f"{summary['hops_mean']:.2f}",
                f"{time.perf_counter() - started:.1f}",
            )
    Console().print(table)


if __name__ == "__main__":
    main()
