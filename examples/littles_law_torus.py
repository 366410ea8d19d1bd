"""Little's law on large tori, in the style of Liu, Carothers et al.'s ROSS torus study (their
Tables 1 and 2): k-ary n-cubes with dimension-order (e-cube) routing on two virtual channels,
Poisson sources with uniform destinations, at light load.

Little's law holds in steady state, so each run warms up for WARMUP (a few times the latency)
and measures over the next MEASURE. The table gives, over that window, the packets in the
network on average (L), the rate at which packets leave it (lambda, per ns), the latency
Little's law implies, L / lambda, and the mean latency of the packets delivered in the window
that the simulator measured; "apart" is the core's `littles_law_error`. Every run also reports
the simulator's speed (events and packet-hops per second).

Run with `python3 examples/littles_law_torus.py [SIZE ...] [--load F] [--warmup T]
[--measure T] [--threads N]` where SIZE is e.g. 8x8x8 or 32x32x32x32 (default: 16x16x16 and
8x8x8x8x8, about 12 s together on a 2-core machine). The million-endpoint 32x32x32x32 needs
about 2.2 GB and more than 10 minutes on one thread (it had not finished after 10 minutes of CPU
on a busy 2-core machine); 003's 16x16x16x16x16x16 (16.8 million endpoints) needs about 29 GB
(BENCHMARKS.md). EXANET_EXAMPLES_QUICK=1 runs 8x8x8 alone (about 2 s; example_scale.py).
"""

from __future__ import annotations

import argparse
import resource

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

DEFAULT_SIZES = sized(("16x16x16", "8x8x8x8x8"), ("8x8x8",))


def torus_config(dims: list[int], load: float, warmup: str, measure: str, threads: int) -> dict:
    return {
        "topology": {"kind": "torus", "dims": dims},
        "routing": {"kind": "dor"},
        "router": {"vcs": 2},
        "traffic": {"pattern": "uniform", "process": "poisson", "load": load},
        "run": {"warmup": warmup, "measure": measure, "drain": "none"},
        "threads": threads,
    }


def main(sizes: list[str], load: float, warmup: str, measure: str, threads: int) -> None:
    table = Table(
        title=f"Little's law on tori: DOR, 2 VCs, Poisson uniform at {load:.1%} load, "
        f"{warmup} warm-up, {measure} measured, {threads} thread(s)",
        header_style="bold",
    )
    for name in (
        "torus",
        "endpoints",
        "L packets",
        "lambda /ns",
        "latency ns",
        "L/lambda ns",
        "apart",
        "events/s",
        "packet-hops/s",
        "wall s",
    ):
        table.add_column(name, justify="right")
    for size in sizes:
        dims = [int(k) for k in size.split("x")]
        s = exanet.simulate(
            torus_config(dims, load, warmup, measure, threads), progress=False
        ).summary
        # Packets delivered in the window, per ns, all endpoints together.
        arrival_per_ns = s["accepted_packets_per_ns"] * s["endpoints"]
        in_flight = s["in_flight_packets_mean"]
        table.add_row(
            size,
            f"{s['endpoints']:,}",
            f"{in_flight:,.1f}",
            f"{arrival_per_ns:,.2f}",
            # The mean latency of the packets delivered in the window, as the core measured it.
            f"{s['littles_law_packets'] / arrival_per_ns:,.1f}",
            f"{in_flight / arrival_per_ns:,.1f}",
            f"{s['littles_law_error']:.2%}",
            f"{s['events_per_s'] / 1e6:.2f} M",
            f"{s['packet_hops_per_s'] / 1e6:.2f} M",
            f"{s['wall_s']:,.0f}",
        )
    Console(width=140).print(table)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the process: {peak_mib:,.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", default=list(DEFAULT_SIZES))
    parser.add_argument("--load", type=float, default=0.05)
    parser.add_argument("--warmup", default="5us")
    parser.add_argument("--measure", default="3us")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    main(args.sizes, args.load, args.warmup, args.measure, args.threads)
