"""scripts/callgrind_breakdown.py: callgrind lines land in their categories, and the
categories add up to the lines' total."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "callgrind_breakdown.py"
spec = importlib.util.spec_from_file_location("callgrind_breakdown", SCRIPT)
breakdown_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(breakdown_module)

DRIVE = "exanet_core::network::driver::drive"
ANNOTATED = "\n".join(
    [
        "5,000 (100.0%)  PROGRAM TOTALS",
        f"1,200 (24.0%)  /src/crates/exanet-core/src/network/router.rs:{DRIVE} [run]",
        f"  900 (18.0%)  /rustc/abc/library/core/src/slice/sort/stable/quicksort.rs:{DRIVE}",
        "  700 (14.0%)  /src/crates/exanet-core/src/routing/dor.rs:dor::DimensionOrder::route",
        f"  600 (12.0%)  /rustc/abc/library/core/src/option.rs:{DRIVE}",
        f"  500 (10.0%)  /rustc/abc/library/alloc/src/vec/mod.rs:{DRIVE}",
        "  100 ( 2.0%)  ./string/memmove-vec-unaligned-erms.S:__memcpy_avx_unaligned_erms [libc]",
    ]
)


def test_lines_land_in_their_categories_and_add_up():
    counts = breakdown_module.breakdown(ANNOTATED)
    assert counts["router: arrival, arbitration, departure"] == 1200
    assert counts["event queue: buckets and their sort"] == 900
    assert counts["routing and topology queries"] == 700
    assert counts[breakdown_module.OTHER] == 600
    assert counts["Vec pushes and indexing"] == 500
    assert counts["memcpy"] == 100
    assert sum(counts.values()) == 4000  # the totals line is not counted


def test_packet_hops_come_from_the_run_config_output():
    assert breakdown_module.packet_hops("events = U64(9)\npacket_hops = U64(2363379)\n") == 2363379
    with pytest.raises(SystemExit, match="no 'packet_hops"):
        breakdown_module.packet_hops("events = U64(9)\n")
