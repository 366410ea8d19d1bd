"""Latency and injection-bandwidth tolerance of latency-tolerant threads, as in Su's UpDown
study (000 ch. 5; docs/workloads.md, "Closed-loop threads").

Each endpoint is a node's lanes (2 GHz, one instruction per cycle); a lane runs T hardware
threads and switches thread whenever the running one issues a network operation. A thread
computes InstPerPacket instructions, issues a request (16 B) to a uniformly random node and is
answered by a response (32 B); with intra-thread parallelism K it may have K operations in
flight before it waits. The thesis's applications are given by their measured instructions
per packet and active threads (Table 5.2): TC has no intra-thread parallelism (K = 1); PR and
BFS overlap the accesses of their map phase (K = 4 here, the thesis's "roughly 4x").

First table (000 Table 5.3, Fig. 5.2): the operations' round-trip latency is swept from 125 to
32,000 cycles by the NIC links' latency (routers and links are 1 ns); the slowdown is the
completion time over the one at 1,000 cycles, and the tolerated latency is the largest of the
sweep with a slowdown below 1.2. The closed form beside it is that of a lane that never idles
while R <= (T K - 1) c and otherwise runs each thread's operations back to back:
time = max(N T c + R, N (c + R) / K + (T - 1) c) for N operations per thread.

Second table (Fig. 5.4): relative performance against a per-node injection cap from 0.5 to 9
TB/s, in windows of 100 cycles. A node has 2,048 lanes; each endpoint here simulates 32 of them
under 32/2048 of the node's cap and link speed, which changes no rate per lane.

Run with `python3 examples/updown_latency_tolerance.py` (about a minute on a 2-core machine);
EXANET_EXAMPLES_QUICK=1 runs a few points in seconds (example_scale.py).
"""

from __future__ import annotations

from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

CLOCK_HZ = 2e9
NODES = 16
LANES_PER_NODE = 2048
LANES_SIMULATED = sized(32, 4)
#: (name, instructions per packet, active threads per lane, outstanding per thread), 000 Table 5.2,
#: and the thesis's tolerated latency: multi-thread analysis, experiment (Table 5.3).
APPS = [
    ("TC-128t", 74.1, 123, 1, 9_114, 8_000),
    ("TC-255t", 72.7, 242, 1, 17_593, 16_000),
    ("PR-64t", 16.5, 67, 4, 1_106, 4_000),
    ("PR-128t", 16.5, 110, 4, 1_815, 8_000),
    ("BFS-128t", 22.7, 124, 4, 2_815, 8_000),
    ("BFS-255t", 24.6, 239, 4, 5_879, 8_000),
]
LATENCIES_CYCLES = sized(
    (125, 250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000), (1_000, 8_000, 16_000)
)
BASELINE_CYCLES = 1_000
OPERATIONS_PER_THREAD = sized(40, 4)
REQUEST_BYTES, RESPONSE_BYTES = 16, 32
#: Fig. 5.4's applications (the thread counts with the most parallelism) and caps.
BANDWIDTH_APPS = ["TC-255t", "PR-128t", "BFS-255t"]
CAPS_TB_PER_S = sized((None, 9.0, 8.0, 6.0, 4.0, 3.0, 2.0, 1.0, 0.5), (None, 1.0))
BANDWIDTH_OPERATIONS_PER_THREAD = sized(3, 1)
#: The fixed part of a round trip: four 1 ns routers/links legs and serialization, in ps,
#: measured by the first run and taken off the NIC latency so the sweep hits its targets.
FIXED_ROUND_TRIP_PS = 8_000


def ps_of_cycles(cycles: float) -> int:
    return round(cycles * 1e12 / CLOCK_HZ)


def config(
    app: tuple[Any, ...], lanes: int, operations: int, round_trip_ps: int, cap: float | None
) -> dict[str, Any]:
    _, instructions, threads, outstanding, *_ = app
    scale = lanes / LANES_PER_NODE
    nic: dict[str, Any] = {
        "injection_bandwidth": f"{16 * scale:g}TB/s",
        "injection_latency": f"{max(round_trip_ps - FIXED_ROUND_TRIP_PS, 0) // 4}ps",
        "header": "0B",
    }
    if cap is not None:
        nic["injection_cap"] = f"{cap * scale:g}TB/s"
        nic["injection_cap_window"] = "50ns"
    return {
        "topology": {"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 4},
        "links": {"bandwidth": f"{32 * scale:g}TB/s", "latency": "1ns"},
        "router": {"vcs": 2, "latency": "1ns", "vc_buffer": "64KiB"},
        "nic": nic,
        "traffic": {
            "kind": "threads",
            "pattern": "uniform",
            "lanes_per_endpoint": lanes,
            "threads_per_lane": threads,
            "outstanding_per_thread": outstanding,
            "instructions": instructions,
            "clock": "2GHz",
            "operations_per_thread": operations,
            "operations": [{"request": f"{REQUEST_BYTES}B", "response": f"{RESPONSE_BYTES}B"}],
        },
    }


def closed_form_ps(app: tuple[Any, ...], operations: int, round_trip_ps: float) -> float:
    _, instructions, threads, outstanding, *_ = app
    c = instructions * 1e12 / CLOCK_HZ
    return max(
        operations * threads * c + round_trip_ps,
        operations * (c + round_trip_ps) / outstanding + (threads - 1) * c,
    )


def tolerated(slowdowns: dict[int, float]) -> int:
    """The largest latency of the sweep whose slowdown stays below 1.2 (and all below it)."""
    best = 0
    for cycles in sorted(slowdowns):
        if slowdowns[cycles] >= 1.2:
            break
        best = cycles
    return best


def latency_table(console: Console) -> None:
    table = Table(title="Latency tolerance: slowdown vs the 1,000-cycle round trip")
    for column in ["app", *[f"{c:,}" for c in LATENCIES_CYCLES]]:
        table.add_column(column, justify="right")
    for column in ["tolerated", "closed form", "000 analysis", "000 experiment"]:
        table.add_column(column, justify="right")
    for app in APPS:
        times: dict[int, float] = {}
        predicted: dict[int, float] = {}
        for cycles in LATENCIES_CYCLES:
            cfg = config(app, 1, OPERATIONS_PER_THREAD, ps_of_cycles(cycles), None)
            summary = exanet.simulate(cfg, progress=False).summary
            times[cycles] = summary["completion_ns"]
            round_trip_ps = summary["operation_latency_ns_mean"] * 1000
            predicted[cycles] = closed_form_ps(app, OPERATIONS_PER_THREAD, round_trip_ps)
        slowdown = {c: t / times[BASELINE_CYCLES] for c, t in times.items()}
        model = {c: p / predicted[BASELINE_CYCLES] for c, p in predicted.items()}
        table.add_row(
            app[0],
            *[f"{slowdown[c]:.2f}" for c in LATENCIES_CYCLES],
            f"{tolerated(slowdown):,}",
            f"{tolerated(model):,}",
            f"{app[4]:,}",
            f"{app[5]:,}",
        )
    console.print(table)


def bandwidth_table(console: Console) -> None:
    table = Table(title="Relative performance vs injection cap per node (TB/s)")
    table.add_column("app")
    for cap in CAPS_TB_PER_S:
        table.add_column("none" if cap is None else f"{cap:g}", justify="right")
    table.add_column("demand TB/s", justify="right")
    round_trip_ps = ps_of_cycles(BASELINE_CYCLES)
    for app in [a for a in APPS if a[0] in BANDWIDTH_APPS]:
        times = {
            cap: exanet.simulate(
                config(app, LANES_SIMULATED, BANDWIDTH_OPERATIONS_PER_THREAD, round_trip_ps, cap)
            ).summary["completion_ns"]
            for cap in CAPS_TB_PER_S
        }
        demand = LANES_PER_NODE * CLOCK_HZ / app[1] * (REQUEST_BYTES + RESPONSE_BYTES) / 1e12
        table.add_row(
            app[0],
            *[f"{times[None] / times[cap]:.2f}" for cap in CAPS_TB_PER_S],
            f"{demand:.1f}",
        )
    console.print(table)


def main() -> None:
    console = Console(width=200)
    latency_table(console)
    bandwidth_table(console)


if __name__ == "__main__":
    main()
