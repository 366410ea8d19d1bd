"""Fine-grained traffic and the injection-limited NIC, in the style of Su's UpDown study
(docs/workloads.md, "Fine-grained traffic and the injection-limited NIC").

Sixteen nodes on a 2-level fat-tree of 8 TB/s links (100 ns links and 83 ns routers: about
000's 183 ns per link and switch) and 16 TB/s NIC ports exchange small packets drawn from the
UpDown mix: 16 B (DRAM acknowledgements), 32 B (the smallest lane-to-lane messages) and 80 B
(the largest DRAM packets), headers included (nic.header = 0). Every node offers 4 TB/s,
uniformly random destinations, Poisson arrivals: about 116 G packets per second per node,
within the thesis's 50-250 Gpps. The link speeds make every packet's serialization a whole
number of picoseconds (16 B at 16 TB/s is 1 ps), the engine's time step.

First table: the NIC's injection cap swept from none down to 1 TB/s per node in 50 ns windows
(000 §5.3: 100 cycles at 2 GHz). Above the offered rate the cap costs nothing; below it the
accepted rate is the cap less what packets cannot fill at the end of a window, and the sources
queue without bound (the latency column grows with the run).

Second table: the eligibility delay (000 §3.5, a message may leave only this long after it was
queued) adds exactly itself to every packet's latency; the network's part does not change.

Run with `python3 examples/updown_injection.py`; it takes about 3 minutes on a 2-core machine
(ten runs of about 17 s). EXANET_EXAMPLES_QUICK=1 offers 0.5 TB/s, runs two caps and two
delays over 0.5 us (about 5 s; example_scale.py).
"""

from __future__ import annotations

from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

OFFERED_TB_PER_S = sized(4.0, 0.5)
NIC_TB_PER_S = 16.0
BASE: dict[str, Any] = {
    "topology": {"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 4},
    "links": {"bandwidth": "8TB/s", "latency": "100ns"},
    "router": {"vcs": 4, "latency": "83ns", "vc_buffer": "4MiB"},
    "nic": {"injection_bandwidth": f"{NIC_TB_PER_S:g}TB/s", "header": "0B"},
    "traffic": {
        "pattern": "uniform",
        "process": "poisson",
        "load": OFFERED_TB_PER_S / NIC_TB_PER_S,
        "packet": {"16B": 0.45, "32B": 0.35, "80B": 0.2},
    },
    "run": sized({"warmup": "1.5us", "measure": "1us"}, {"warmup": "0.3us", "measure": "0.2us"}),
}
CAPS_TB_PER_S = sized((None, 9.0, 6.0, 4.5, 3.0, 2.0, 1.0), (None, 0.4))
DELAYS = sized(("0ns", "500ns", "2us"), ("0ns", "500ns"))


def with_nic(**nic: Any) -> dict[str, Any]:
    return {**BASE, "nic": {**BASE["nic"], **nic}}


def main() -> None:
    console = Console(width=120)
    caps = Table(
        title=f"16 UpDown nodes offering {OFFERED_TB_PER_S:g} TB/s each (16/32/80 B packets): "
        "injection cap per node, 50 ns windows",
        header_style="bold",
    )
    for name in ("cap TB/s", "accepted TB/s", "G packets/s", "latency ns", "network ns", "p99 ns"):
        caps.add_column(name, justify="right")
    for cap in CAPS_TB_PER_S:
        nic = {} if cap is None else {"injection_cap": f"{cap:g}TB/s"}
        s = exanet.simulate(with_nic(**nic), progress=False).summary
        caps.add_row(
            "none" if cap is None else f"{cap:g}",
            f"{s['accepted_gbytes_per_s'] / 1000:.2f}",
            f"{s['accepted_packets_per_ns']:.0f}",
            f"{s['latency_ns_mean']:,.0f}",
            f"{s['network_latency_ns_mean']:,.0f}",
            f"{s['latency_ns_p99']:,.0f}",
        )
    console.print(caps)
    delays = Table(title="eligibility delay (no cap)", header_style="bold")
    for name in ("delay", "latency ns", "network ns", "latency - delay"):
        delays.add_column(name, justify="right")
    for delay in DELAYS:
        s = exanet.simulate(with_nic(eligibility_delay=delay), progress=False).summary
        delay_ns = exanet.units.parse_time_ps(delay) / 1000
        delays.add_row(
            delay,
            f"{s['latency_ns_mean']:,.1f}",
            f"{s['network_latency_ns_mean']:,.1f}",
            f"{s['latency_ns_mean'] - delay_ns:,.1f}",
        )
    console.print(delays)


if __name__ == "__main__":
    main()
