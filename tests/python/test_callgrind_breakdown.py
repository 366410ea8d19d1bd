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


# A `--dump-instr=yes` profile: the binary's name is first given on a cob= line (callgrind names
# an object where it first appears), a call's inclusive cost follows its calls= line, positions
# are compressed relative to the one before, and libc's instructions are another object's.
PROFILE = """\
version: 1
positions: instr line
events: Ir
ob=(1) /lib/libc.so.6
fl=(1) memcpy.S
fn=(1) memcpy
0x5000 10 7
cob=(2) /tmp/run_config
ob=(2)
fl=(2) router.rs
fn=(2) drive
0x1000 40 5
+4 41 3
calls=1 0x5000 10
+2 42 100
+2 * 11
-8 * 2
ob=(1)
fn=(1)
+16 10 9
"""


def test_instruction_costs_are_self_costs_of_the_binary_by_address():
    costs = breakdown_module.instruction_costs(PROFILE, "target/release/examples/run_config")
    # 0x1000 twice (5, then 2 after -8 from 0x1008), 0x1004, 0x1008 after the call's line;
    # neither the call's inclusive 100 nor libc's instructions.
    assert costs == {0x1000: 7, 0x1004: 3, 0x1008: 11}


# `addr2line -a -i -f -C` output: per address, its frames innermost first.
LOCATED = """\
0x0000000000001000
core::slice::index::get_unchecked
/rustc/abc/library/core/src/slice/index.rs:200
exanet_core::network::router::<impl exanet_core::network::model::Network>::grant
/work/crates/exanet-core/src/network/router.rs:600
exanet_core::network::driver::<impl exanet_core::network::model::Network>::drive
/work/crates/exanet-core/src/network/driver.rs:300
0x0000000000001004
exanet_core::network::router::<impl exanet_core::network::model::Network>::grant
/work/crates/exanet-core/src/network/router.rs:610
0x0000000000001008
hdrhistogram::Histogram<T>::record_n_inner
/cargo/hdrhistogram-7.6.0/src/lib.rs:887
"""


def test_library_code_counts_for_the_exanet_function_that_inlined_it():
    chains = breakdown_module.parse_addr2line(LOCATED)
    assert [function for function, _ in chains[0x1000]] == [
        "core::slice::index::get_unchecked",
        "exanet_core::network::router::<impl exanet_core::network::model::Network>::grant",
        "exanet_core::network::driver::<impl exanet_core::network::model::Network>::drive",
    ]
    counts = breakdown_module.by_function({0x1000: 7, 0x1004: 3, 0x1008: 11, 0x2000: 1}, chains)
    assert counts == {
        "network::router::grant": 10,
        "hdrhistogram::Histogram<T>::record_n_inner": 11,
        "?": 1,
    }
