"""Where a packet-hop's instructions go: a callgrind profile of the core grouped by the source
of each instruction, or by the exanet function each instruction was inlined into (BENCHMARKS.md,
issue 25's breakdowns).

    cargo build --release -p exanet-core --example run_config
    valgrind --tool=callgrind --callgrind-out-file=cg.out \\
        target/release/examples/run_config core.json > summary.txt
    python3 scripts/callgrind_breakdown.py cg.out summary.txt

`summary.txt` is run_config's output, which gives the packet-hops. Nearly everything is inlined
into the event loop, so instructions are grouped by the file they come from; standard-library
code inlined into the loop's own body cannot be split further and forms its own line.

By function: profile with `--dump-instr=yes` and name the binary,

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        target/release/examples/run_config core.json > summary.txt
    python3 scripts/callgrind_breakdown.py --functions target/release/examples/run_config \\
        cg.out summary.txt

Each instruction's chain of inlined frames (`addr2line -i`, from the binary's line tables) is
followed from the innermost frame out to the first exanet function: library code (slice
indexing, iterators, integer helpers) counts for the exanet function that inlined it, so the
"loop's own body" above splits into the functions it came from.
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


#: A frame of exanet's own code: its file lies in the crate.
EXANET_SOURCE = "/crates/exanet-core/"
_POSITION = re.compile(r"^(0x[0-9a-fA-F]+|[+-]\d+|\*)\s+\S+\s+(\d+)")
_OBJECT = re.compile(r"^c?ob=\((\d+)\)\s*(.*)$")


def instruction_costs(profile: str, binary: str) -> Counter[int]:
    """Self instructions at each address of `binary` (its file name) in a callgrind profile made
    with `--dump-instr=yes` (positions: instruction address, then line)."""
    names: dict[str, str] = {}
    current = ""
    address = 0
    skip_next = False
    costs: Counter[int] = Counter()
    for line in profile.splitlines():
        obj = _OBJECT.match(line)
        if obj:
            if obj[2]:
                names[obj[1]] = obj[2]
            if line.startswith("ob="):
                current = names.get(obj[1], "")
            continue
        if line.startswith("calls="):
            skip_next = True  # the next cost line is the call's inclusive cost
            continue
        position = _POSITION.match(line)
        if position is None:
            continue
        at = position[1]
        if at.startswith("0x"):
            address = int(at, 16)
        elif at[0] in "+-":
            address += int(at)
        if skip_next:
            skip_next = False
        elif current.rsplit("/", 1)[-1] == binary.rsplit("/", 1)[-1]:
            costs[address] += int(position[2])
    return costs


def parse_addr2line(text: str) -> dict[int, list[tuple[str, str]]]:
    """`addr2line -a -i -f -C` output: each address's frames, innermost first, as (function,
    file:line)."""
    chains: dict[int, list[tuple[str, str]]] = {}
    frames: list[tuple[str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("0x"):
            frames = chains.setdefault(int(lines[i], 16), [])
            i += 1
        elif i + 1 < len(lines):
            frames.append((lines[i], lines[i + 1]))
            i += 2
        else:
            i += 1
    return chains


def short_name(function: str) -> str:
    """A function's path without the crate and `<impl ...>` prefixes."""
    return re.sub(r"<impl [^>]*>::|exanet_core::", "", function)


def by_function(costs: Counter[int], chains: dict[int, list[tuple[str, str]]]) -> Counter[str]:
    """Instructions per exanet function: each address's cost goes to the innermost frame of
    exanet's code in its inline chain (or to its outermost frame when it has none)."""
    counts: Counter[str] = Counter()
    for address, cost in costs.items():
        frames = chains.get(address, [])
        ours = [function for function, place in frames if EXANET_SOURCE in place]
        name = ours[0] if ours else (frames[-1][0] if frames else "?")
        counts[short_name(name)] += cost
    return counts


def main_functions(binary: str, profile_path: str, summary_path: str, top: int = 40) -> None:
    with open(summary_path, encoding="utf-8") as file:
        hops = packet_hops(file.read())
    with open(profile_path, encoding="utf-8") as file:
        costs = instruction_costs(file.read(), binary)
    if not costs:
        raise SystemExit(f"error: no instruction of {binary} in {profile_path} (--dump-instr=yes?)")
    located = subprocess.run(
        ["addr2line", "-a", "-i", "-f", "-C", "-e", binary, *(hex(a) for a in sorted(costs))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = by_function(costs, parse_addr2line(located))
    total = sum(counts.values())
    print(f"{total / hops:,.0f} instructions of the binary per packet-hop ({hops:,} packet-hops)")
    shown = counts.most_common(top)
    for name, count in shown:
        print(f"{count / hops:8,.1f}  {count / total:6.1%}  {name}")
    rest = total - sum(count for _, count in shown)
    print(f"{rest / hops:8,.1f}  {rest / total:6.1%}  ({len(counts) - len(shown)} others)")


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
    if len(sys.argv) == 5 and sys.argv[1] == "--functions":
        main_functions(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        raise SystemExit(
            "usage: callgrind_breakdown.py [--functions BINARY] CALLGRIND.out RUN_CONFIG_OUTPUT.txt"
        )
