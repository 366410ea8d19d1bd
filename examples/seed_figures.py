"""Three figures of the papers exanet reproduces, drawn to PNG files in an output folder
(first argument, default seed_figures/):

1. radix_vs_size.png, Li et al. (2019) Fig. 2: the router radix each family needs to reach a
   system size, from networks built by the core's structure builder (fat-trees of 3 and 4
   levels, the balanced dragonfly, Slim Fly, Fishnet and Fishnet-lite) up to 10^6 endpoints
   and radix 128. The table printed gives the radix needed at 10^3 ... 10^6 endpoints: the
   dragonfly reaches 100k endpoints with 51 ports, as the paper says.
2. performance_per_dollar.png, Bhatele et al. (2019) Fig. 9: iso-N, iso-NR and iso-NL designs
   of 288 nodes from 12-port routers (`iso.iso_designs`, the best design per family), each
   simulated under uniform traffic offered at the full injection bandwidth. The communication
   rate is the delivered bandwidth of the whole system (accepted GB/s per endpoint x
   endpoints), divided by the design's cost (in optical-cable prices) and drawn at its
   balance.
3. injection_torus.png and injection_dragonfly.png, Izu et al. (2004) Figs. 3-4: packets
   injected per node of an 8x8 torus under transpose beyond saturation (the nodes near the
   diagonal inject more), and per group of a dragonfly under uniform traffic at 90% load.

Run with `python3 examples/seed_figures.py [OUT]`; it takes about 1 minute on a 2-core machine
(most of it building the million-endpoint networks and the eleven design runs).
EXANET_EXAMPLES_QUICK=1 stops at 10^4 endpoints, runs the iso-N designs only, a 4x4 torus
and shorter windows (about 10 s; example_scale.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet
from exanet import iso, plots
from exanet.radix import radix_needed, radix_scaling

MAX_ENDPOINTS = sized(10**6, 10**4)
SIZES = sized([10**3, 10**4, 10**5, 10**6], [10**3, 10**4])
RUN: dict[str, Any] = {
    "run": sized({"warmup": "1us", "measure": "2us"}, {"warmup": "300ns", "measure": "300ns"})
}
NODES = 288
CONSTRAINTS = sized(
    {
        "N": {"nodes": NODES},
        "NR": {"nodes": NODES, "routers": 72},
        "NL": {"nodes": NODES, "links": 600},
    },
    {"N": {"nodes": NODES}},
)
TORUS = {"kind": "torus", "dims": sized([8, 8], [4, 4])}
DRAGONFLY = {"kind": "dragonfly", "a": 4, "h": 2}


def radix_figure(out: Path, console: Console) -> None:
    scaling = radix_scaling(max_endpoints=MAX_ENDPOINTS)
    needed = radix_needed(scaling, SIZES).pivot(
        index="series", columns="endpoints", values="radix_needed"
    )
    table = Table("series", *(f"{n:,} endpoints" for n in SIZES), title="radix needed")
    for series, row in needed.iterrows():
        table.add_row(series, *("-" if pd.isna(v) else f"{v:.0f}" for v in row))
    console.print(table)
    plots.save(plots.radix_vs_size(scaling), out / "radix_vs_size", formats=("png",))


def performance_figure(out: Path, console: Console) -> None:
    found = [
        design
        for constraint, targets in CONSTRAINTS.items()
        for design in iso.iso_designs(12, constraint, top=1, **targets)
    ]
    designs = iso.designs_frame(found)
    rows = []
    for d in designs.itertuples():
        # the VCs minimal routing needs: 4 on a row-column dragonfly, one per hop on an express
        # mesh
        vcs = max(4, d.diameter)
        config = RUN | {"topology": d.topology, "router": {"vcs": vcs}, "traffic": {"load": 1.0}}
        s = exanet.simulate(config, progress=False).summary
        rate = s["accepted_gbytes_per_s"] * s["endpoints"]
        rows.append({"design": d.design, "communication_rate_gbytes_per_s": rate})
    runs = pd.DataFrame(rows)
    table = Table("design", "balance", "cost", "GB/s", "GB/s per cost", title="per dollar")
    for d, r in zip(designs.itertuples(), runs.itertuples(), strict=True):
        rate = r.communication_rate_gbytes_per_s
        table.add_row(
            d.design, f"{d.balance:.2f}", f"{d.cost:,.0f}", f"{rate:,.0f}", f"{rate / d.cost:.3f}"
        )
    console.print(table)
    fig = plots.performance_per_dollar(runs, designs)
    plots.save(fig, out / "performance_per_dollar", formats=("png",))


def injection_figures(out: Path) -> None:
    torus = RUN | {"topology": TORUS, "traffic": {"pattern": "transpose", "load": 0.6}}
    endpoints = exanet.simulate(torus, progress=False).endpoints
    plots.save(plots.injected_packets_map(endpoints), out / "injection_torus", formats=("png",))
    dragonfly = RUN | {"topology": DRAGONFLY, "traffic": {"load": 0.9}}
    endpoints = exanet.simulate(dragonfly, progress=False).endpoints
    groups = exanet.topology(**DRAGONFLY).router_graph().groups
    fig = plots.injected_packets_map(endpoints, groups=groups)
    plots.save(fig, out / "injection_dragonfly", formats=("png",))


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "seed_figures")
    console = Console(width=120)
    console.print("seed figures: radix vs size, performance per dollar, injection maps")
    radix_figure(out, console)
    performance_figure(out, console)
    injection_figures(out)
    console.print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.png')))} in {out}")


if __name__ == "__main__":
    main()
