"""A whole injection timeline projected to a larger system, as Su's UpDown thesis does from 32
and 64 nodes to 16,384 (seed 000 §6.1.3; docs/analysis.md, "A whole timeline projected").

Two runs are recorded with `[record] injection_bin = "100ns"`: a 4x8 and an 8x8 torus
(dimension-order routing, 2 VCs) under burst-synchronized uniform traffic, every endpoint
sending the same 200 packets of 256 B per burst, 3 bursts 1 us apart (weak scaling: the work
per node is fixed). Each run's mean-endpoint timeline (bytes per 100 ns bin) goes to
`exanet.analysis.project_timeline`: the duration and the mean bandwidth are fitted in log-log
space over the two sizes and extrapolated to 16,384 nodes, and the 64-node timeline is
stretched and scaled to them (the thesis's method). Under an injection cap per node,
Algorithm 1 spills every bin's excess into the next bins; the capped timeline's length is the
injection time and eq. 6.7 the execution time.

The table gives the measured and projected durations and bandwidths, then the execution time
and slowdown under each cap. The last lines run the same projection from the recorded run
directories with the command `exanet project`.

Run with `python3 examples/timeline_projection.py`; it takes about 10 s on a 2-core machine and
writes the runs under ./timeline_projection_runs. EXANET_EXAMPLES_QUICK=1 sends 2 bursts of 50
packets (about 8 s; example_scale.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet
from exanet.analysis import injection_timeline_bytes, project_timeline

BIN_NS = 100.0
TARGET_NODES = 16_384
CAPS_GBYTES_PER_S = sized((20.0, 10.0, 5.0, 2.0, 1.0), (10.0, 2.0))
TORI = ([4, 8], [8, 8])
OUT = Path("timeline_projection_runs")


def config(dims: list[int]) -> dict[str, Any]:
    return {
        "topology": {"kind": "torus", "dims": dims},
        "router": {"vcs": 2},
        "traffic": {
            "kind": "burst",
            "pattern": "uniform",
            "packet": "256B",
            "packets_per_burst": sized(200, 50),
            "bursts": sized(3, 2),
            "restart_delay": "1us",
        },
        "record": {"injection_bin": f"{BIN_NS:g}ns"},
    }


def main() -> None:
    console = Console(width=120)
    timelines = {}
    directories = []
    for dims in TORI:
        result = exanet.simulate(config(dims), progress=False)
        directories.append(result.write(OUT / "x".join(map(str, dims))))
        series = result.injection_series
        end_ns = series["bin_start_ns"].min() + result.summary["window_ns"]
        timelines[result.summary["endpoints"]] = injection_timeline_bytes(
            series, BIN_NS, end_ns=end_ns
        )
    uncapped = project_timeline(timelines, BIN_NS, TARGET_NODES)
    sizes = Table(
        title=f"burst timelines per node, {BIN_NS:g} ns bins, projected to {TARGET_NODES:,} nodes",
        header_style="bold",
    )
    for name in ("nodes", "", "duration us", "mean GB/s", "peak GB/s"):
        sizes.add_column(name, justify="right")
    for nodes, timeline in timelines.items():
        rate = timeline / BIN_NS
        sizes.add_row(
            f"{nodes:,}",
            "measured",
            f"{len(rate) * BIN_NS / 1000:.1f}",
            f"{rate.mean():.2f}",
            f"{rate.max():.2f}",
        )
    rate = uncapped.timeline["injection_gbytes_per_s"]
    sizes.add_row(
        f"{TARGET_NODES:,}",
        "projected",
        f"{uncapped.program_time_ns / 1000:.1f}",
        f"{rate.mean():.2f}",
        f"{rate.max():.2f}",
    )
    console.print(sizes)
    console.print(
        f"fits: duration ~ n^{uncapped.duration_fit.slope:.3f}, mean bandwidth ~ "
        f"n^{uncapped.bandwidth_fits['slope'].iloc[0]:.3f}"
    )
    caps = Table(
        title=f"{TARGET_NODES:,} nodes under an injection cap per node", header_style="bold"
    )
    for name in ("cap GB/s", "injection us", "execution us", "slowdown"):
        caps.add_column(name, justify="right")
    for cap in CAPS_GBYTES_PER_S:
        projection = project_timeline(timelines, BIN_NS, TARGET_NODES, cap)
        caps.add_row(
            f"{cap:g}",
            f"{projection.injection_time_ns / 1000:.1f}",
            f"{projection.execution_time_ns / 1000:.1f}",
            f"{projection.slowdown:.3f}",
        )
    console.print(caps)
    cap = f"{CAPS_GBYTES_PER_S[-1]:g}GB/s"
    command = ["project", *map(str, directories), "--nodes", str(TARGET_NODES), "--cap", cap]
    console.print(f"$ exanet {' '.join(command)}")
    subprocess.run([sys.executable, "-m", "exanet", *command], check=True)


if __name__ == "__main__":
    main()
