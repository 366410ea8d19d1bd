"""Where a packet-hop's instructions go: a callgrind profile of the core grouped by the source
of each instruction (BENCHMARKS.md, issue 25's breakdown).

    cargo build --release -p exanet-core --example run_config
    valgrind --tool=callgrind --callgrind-out-file=cg.out \\
        target/release/examples/run_config core.json > summary.txt
    python3 scripts/callgrind_breakdown.py cg.out summary.txt

`summary.txt` is run_config's output, which gives the packet-hops. Nearly everything is inlined
into the event loop, so instructions are grouped by the file they come from; standard-library
code inlined into the loop's own body cannot be split further and forms its own line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

#: (category, patterns in "source file:function"), first match wins.
CATEGORIES = (
    # The only sort on the hot path is the queue's, of the bucket being consumed.
    (
        "event queue: buckets and their sort",
        ("engine/queue.rs", "Scheduler", "push_bucket", "slice/sort", "quicksort", "smallsort"),
    ),
    ("router: arrival, arbitration, departure", ("network/router.rs", "route_head")),
    (
        "routing and topology queries",
        ("/routing/", "RoutingFunction", "strength_reduce", "topology/", "Topology"),
    ),
    ("NIC: injection, delivery", ("network/nic.rs",)),
    (
        "traffic generation (destinations, gaps)",
        ("workload/", "rand_distr", "rand_xoshiro", "rand_core"),
    ),
    (
        "state access: pools, packet arena, shared arrays",
        ("network/state.rs", "network/packet.rs", "parallel/shared.rs"),
    ),
    ("event dispatch (handle, settle, drive)", ("network/model.rs", "network/driver.rs")),
    ("statistics", ("stats/",)),
    ("memcpy", ("memcpy", "memmove")),
    ("malloc and free", ("malloc", "_int_free")),
    ("Vec pushes and indexing", ("vec/mod.rs", "raw_vec")),
)
OTHER = "std code of the loop's own body"
_LINE = re.compile(r"\s*([\d,]+) \([^)]*\)\s+(\S+?):(\S.*?)( \[.*\])?$")


def category(location: str) -> str:
    """The category of one `callgrind_annotate` line's "file:function"."""
    for name, patterns in CATEGORIES:
        if any(pattern in location for pattern in patterns):
            return name
    return OTHER


def breakdown(annotated: str) -> Counter[str]:
    """Instructions per category in `callgrind_annotate --threshold=100` output."""
    counts: Counter[str] = Counter()
    for line in annotated.splitlines():
        match = _LINE.match(line)
        if match is None or "PROGRAM TOTALS" in line:
            continue
        counts[category(f"{match[2]}:{match[3]}")] += int(match[1].replace(",", ""))
    return counts


def packet_hops(summary: str) -> int:
    """The packet-hops of run_config's output."""
    match = re.search(r"^packet_hops = U64\((\d+)\)", summary, re.MULTILINE)
    if match is None:
        raise SystemExit("error: no 'packet_hops = U64(...)' line in the run_config output")
    return int(match[1])


def main(profile: str, summary_path: str) -> None:
    with open(summary_path, encoding="utf-8") as file:
        hops = packet_hops(file.read())
    annotated = subprocess.run(
        ["callgrind_annotate", "--threshold=100", profile],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = breakdown(annotated)
    with open(profile, encoding="utf-8") as file:
        total = int(re.search(r"^summary: (\d+)", file.read(), re.MULTILINE)[1])
    counts[OTHER] += total - sum(counts.values())  # lines under callgrind_annotate's threshold
    print(f"{total / hops:,.0f} instructions per packet-hop ({hops:,} packet-hops)")
    for name, count in counts.most_common():
        print(f"{count / hops:8,.0f}  {count / total:6.1%}  {name}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: callgrind_breakdown.py CALLGRIND.out RUN_CONFIG_OUTPUT.txt")
    main(sys.argv[1], sys.argv[2])
