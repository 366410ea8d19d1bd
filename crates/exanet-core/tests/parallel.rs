//! The parallel engine gives exactly the sequential answer: the same summary and the same
//! tables for 1, 2, 3, 4 and 8 workers (more workers than cores is fine), on tori, dragonflies
//! and fat trees, with oblivious and adaptive routing, windowed, fixed-duration and burst runs,
//! the injection throttle and recorded traffic matrices.

mod common;

use common::{run, run_ok, with};
use exanet_core::stats::{Summary, Table};
use exanet_core::RunOutput;
use serde_json::{json, Value};

/// Summary keys that describe the engine (time, workers, windows), not the simulated network.
const ENGINE_KEYS: [&str; 9] = [
    "wall_s",
    "events_per_s",
    "packet_hops_per_s",
    "threads",
    "windows",
    "events_per_window",
    "barrier_wait_share",
    "lookahead_ns",
    "peak_packets",
];

type Everything = (Summary, Vec<Table>);

fn everything(out: RunOutput) -> Everything {
    let tables = vec![
        out.endpoints(),
        out.links(),
        out.bursts(),
        out.traffic_matrix(),
        out.injection_series(),
        out.packet_sizes(),
    ];
    let mut summary = out.summary;
    summary.entries.retain(|(k, _)| !ENGINE_KEYS.contains(k));
    (summary, tables)
}

fn on_threads(changes: &[(&str, Value)], threads: u32) -> RunOutput {
    let mut changes = changes.to_vec();
    changes.push(("threads", json!(threads)));
    run_ok(&with(&changes))
}

/// Runs `changes` on 1, 2, 3, 4 and 8 workers and checks every answer is the first.
fn same_on_any_number_of_threads(changes: &[(&str, Value)]) -> Everything {
    let sequential = on_threads(changes, 1);
    assert_eq!(sequential.summary.u64("threads"), 1);
    let reference = everything(sequential);
    for threads in [2, 3, 4, 8] {
        let out = on_threads(changes, threads);
        assert_eq!(out.summary.u64("threads"), u64::from(threads));
        assert!(out.summary.u64("windows") > 0);
        assert!(out.summary.f64("lookahead_ns") > 0.0);
        let (summary, tables) = everything(out);
        for ((key, value), (_, expected)) in summary.entries.iter().zip(&reference.0.entries) {
            assert_eq!(value, expected, "{key} on {threads} threads");
        }
        for (table, expected) in tables.iter().zip(&reference.1) {
            for (column, want) in table.columns.iter().zip(&expected.columns) {
                assert_eq!(column, want, "column {} on {threads} threads", want.name);
            }
        }
        assert_eq!((summary, tables), reference, "{threads} threads");
    }
    reference
}

fn dragonfly() -> Value {
    json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"})
}

#[test]
fn torus_dor_drained_run() {
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology.dims", json!([8, 8])),
        ("traffic.load", json!(0.4)),
    ]);
    assert!(summary.u64("packets_measured_delivered") > 1000);
    assert_eq!(
        summary.u64("packets_measured_delivered"),
        summary.u64("packets_measured")
    );
}

#[test]
fn torus_adaptive_with_escape_at_saturation() {
    same_on_any_number_of_threads(&[
        ("topology.dims", json!([8, 4])),
        (
            "routing",
            json!({"kind": "minimal", "selection": "adaptive", "escape": "dor"}),
        ),
        ("router.vcs", json!(3)),
        ("router.in_transit_priority", json!(0.5)),
        ("traffic.pattern", json!("tornado")),
        ("traffic.load", json!(0.9)),
        ("run.drain", json!("none")),
    ]);
}

#[test]
fn dragonfly_ugal_fixed_duration_with_throttle_and_records() {
    let (summary, tables) = same_on_any_number_of_threads(&[
        ("topology", dragonfly()),
        ("routing", json!({"kind": "ugal_l"})),
        ("router.vcs", json!(6)),
        ("router.vc_buffer_bytes", json!(8192)),
        ("traffic.pattern", json!("uniform")),
        ("traffic.load", json!(0.6)),
        ("traffic.packet_bytes", json!(8192)),
        ("nic.max_outstanding_packets", json!(8)),
        ("run.duration_ps", json!(6_000_000)),
        (
            "record",
            json!({"traffic_matrix": "routers", "injection_bin_ps": 500_000,
                          "packet_sizes": true}),
        ),
    ]);
    assert!(summary.u64("packets_delivered") > 1000);
    assert!(!tables[3].columns.is_empty());
}

#[test]
fn fat_tree_bursts() {
    let (summary, _) = same_on_any_number_of_threads(&[
        (
            "topology",
            json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}),
        ),
        ("routing", json!({"kind": "minimal"})),
        ("router.vcs", json!(4)),
        (
            "traffic",
            json!({"kind": "burst", "pattern": "uniform", "packet_bytes": 256,
                   "packets_per_burst": 50, "bursts": 3, "restart_delay_ps": 40_000}),
        ),
    ]);
    assert_eq!(summary.u64("bursts"), 3);
}

#[test]
fn a_deadlock_is_found_at_the_same_instant_on_any_number_of_threads() {
    let stuck = |threads: u32| {
        let config = with(&[
            ("routing", json!({"kind": "dor", "allow_unsafe": true})),
            ("router.vcs", json!(1)),
            ("traffic.pattern", json!("tornado")),
            ("traffic.load", json!(1.0)),
            ("threads", json!(threads)),
        ]);
        match run(&config) {
            Err(exanet_core::SimError::Deadlock(report)) => report,
            other => panic!("expected a deadlock, got {:?}", other.map(|o| o.summary)),
        }
    };
    let one = stuck(1);
    assert!(!one.cycle.is_empty());
    for threads in [2, 4] {
        let other = stuck(threads);
        assert_eq!(other.time_ps, one.time_ps);
        assert_eq!(other.packets_in_network, one.packets_in_network);
        assert_eq!(other.stuck_channels, one.stuck_channels);
    }
}

#[test]
fn thread_counts_the_engine_cannot_use_are_refused_by_key() {
    let too_many = with(&[("topology.dims", json!([4, 4])), ("threads", json!(17))]);
    let error = run(&too_many).err().expect("more workers than routers");
    assert!(error.to_string().contains("threads"), "{error}");
    let none = with(&[("threads", json!(0))]);
    assert!(run(&none)
        .err()
        .expect("no workers")
        .to_string()
        .contains("threads"));
}
