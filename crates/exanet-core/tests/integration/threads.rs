//! Closed-loop threads (`traffic.kind = "threads"`): completion times against the closed forms
//! of a lane that switches threads at each operation, and conservation of operations.

use crate::common;

use common::{run, run_ok, with};
use exanet_core::SimError;
use serde_json::{json, Value};

/// Two endpoints on a two-router ring (every message one hop), `threads` threads on one lane,
/// 40 ns of compute per operation, 16 B requests answered after 30 ns by 64 B responses.
fn pair(threads: u32, outstanding: u32, operations: u32) -> Vec<(&'static str, Value)> {
    vec![
        ("topology.dims", json!([2])),
        (
            "traffic",
            json!({"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 1,
                   "threads_per_lane": threads, "outstanding_per_thread": outstanding,
                   "compute_ps": COMPUTE_PS, "operations_per_thread": operations,
                   "operations": [{"weight": 1.0, "request_bytes": 16, "response_bytes": 64,
                                   "service_ps": SERVICE_PS}]}),
        ),
    ]
}

const COMPUTE_PS: u64 = 40_000;
const SERVICE_PS: u64 = 30_000;

/// A lone message of `payload` bytes over one hop of the test network: two NIC links (20 ns),
/// two routers (50 ns), one link (20 ns), and its serialization at 25 GB/s once (32 B header).
fn one_way_ps(payload: u64) -> u64 {
    2 * 20_000 + 2 * 50_000 + 20_000 + (payload + 32) * 40
}

fn round_trip_ps() -> u64 {
    one_way_ps(16) + SERVICE_PS + one_way_ps(64)
}

fn completion_ps(changes: &[(&str, Value)]) -> u64 {
    let out = run_ok(&with(changes));
    (out.summary.f64("completion_ns") * 1000.0).round() as u64
}

#[test]
fn one_thread_takes_operations_times_compute_plus_round_trip() {
    let ops = 25;
    assert_eq!(
        completion_ps(&pair(1, 1, ops)),
        u64::from(ops) * (COMPUTE_PS + round_trip_ps())
    );
}

#[test]
fn threads_hide_the_round_trip_until_it_exceeds_the_others_compute() {
    let (ops, r, c) = (30u64, round_trip_ps(), COMPUTE_PS);
    // R = 355.76 ns. 16 threads: the others' compute (15 x 40 ns) covers it, the lane never
    // idles and the run is all compute plus the last round trip.
    assert!(r <= 15 * c);
    assert_eq!(completion_ps(&pair(16, 1, ops as u32)), ops * 16 * c + r);
    // 4 threads: every thread waits out its round trip; the last starts 3 computes late.
    assert!(r > 3 * c);
    assert_eq!(
        completion_ps(&pair(4, 1, ops as u32)),
        ops * (c + r) + 3 * c
    );
}

#[test]
fn the_latency_bound_regime_grows_by_operations_per_thread() {
    // Longer links add the same to every round trip: completion grows by ops/thread per ps.
    let ops = 30u64;
    let base = completion_ps(&pair(4, 1, ops as u32));
    let mut longer = pair(4, 1, ops as u32);
    longer.push(("links.default.latency_ps", json!(120_000)));
    assert_eq!(completion_ps(&longer) - base, ops * 2 * 100_000);
}

#[test]
fn outstanding_operations_multiply_the_hidden_latency() {
    // One thread with 16 operations in flight behaves as 16 threads of one each.
    let ops = 30u64;
    assert_eq!(
        completion_ps(&pair(1, 16, (ops * 16) as u32)),
        ops * 16 * COMPUTE_PS + round_trip_ps()
    );
}

#[test]
fn every_request_is_answered_once() {
    let out = run_ok(&with(&[
        ("router.vc_buffer_bytes", json!(8192)),
        (
            "traffic",
            json!({"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 2,
               "threads_per_lane": 8, "outstanding_per_thread": 2, "compute_ps": 5_000,
               "operations_per_thread": 12,
               "operations": [
                   {"weight": 3.0, "request_bytes": 16, "response_bytes": 64, "service_ps": 20_000},
                   {"weight": 1.0, "request_bytes": 5000, "response_bytes": 0, "service_ps": 0}]}),
        ),
    ]));
    let s = &out.summary;
    let operations = 64 * 2 * 8 * 12;
    assert_eq!(s.u64("operations"), operations);
    assert_eq!(s.u64("requests_served"), operations);
    // 5000 B requests are two packets at the 4096 B MTU; the network delivered all it took.
    assert_eq!(s.u64("packets_delivered"), s.u64("packets_injected"));
    assert!(s.u64("packets_delivered") > 2 * operations);
    assert!(s.f64("operation_latency_ns_p50") <= s.f64("operation_latency_ns_p99"));
    assert!(s.f64("lane_busy_fraction") > 0.0 && s.f64("lane_busy_fraction") <= 1.0);
}

#[test]
fn bad_thread_configs_name_the_key() {
    let mut bad = pair(1, 1, 1);
    bad[1].1["outstanding_per_thread"] = json!(65);
    match run(&with(&bad)) {
        Err(SimError::Config(e)) => {
            assert_eq!(e.key, "traffic.outstanding_per_thread");
            assert!(e.expected.contains("64"), "{e}");
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
    let mut bad = pair(1, 1, 1);
    bad[1].1["compute_ps"] = json!(1u64 << 40);
    bad[1].1["threads_per_lane"] = json!(1 << 20);
    match run(&with(&bad)) {
        Err(SimError::Config(e)) => assert_eq!(e.key, "traffic.compute"),
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
    let mut bad = pair(1, 1, 1);
    bad[1].1["operations"] = json!([]);
    assert!(matches!(run(&with(&bad)), Err(SimError::Config(e)) if e.key == "traffic.operations"));
}

#[test]
fn a_saturating_load_of_operations_completes_every_one() {
    // 64 threads with 8 operations each in flight and no compute: far more than the 8x8
    // torus carries, on a dateline DOR that stays deadlock-free with requests and responses
    // sharing its VCs (endpoints always take messages off the network).
    let out = run_ok(&with(&[(
        "traffic",
        json!({"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 1,
               "threads_per_lane": 64, "outstanding_per_thread": 8, "compute_ps": 0,
               "operations_per_thread": 4,
               "operations": [{"weight": 1.0, "request_bytes": 256, "response_bytes": 1024,
                               "service_ps": 0}]}),
    )]));
    let s = &out.summary;
    assert_eq!(s.u64("operations"), 64 * 64 * 4);
    assert_eq!(s.u64("requests_served"), 64 * 64 * 4);
    assert_eq!(s.u64("packets_delivered"), 2 * 64 * 64 * 4);
    // The lanes idle: the network, not compute, sets the pace.
    assert_eq!(s.f64("lane_busy_fraction"), 0.0);
    assert!(s.f64("operation_latency_ns_mean") > 10.0 * 500.0);
}

#[test]
fn a_matrix_row_without_a_destination_is_refused_not_a_panic() {
    let mut traffic = pair(1, 1, 1);
    traffic[1].1["pattern"] = json!("matrix");
    traffic[1].1["matrix"] = json!({"endpoints": 2, "src": [0], "dst": [1], "weight": [1.0]});
    match run(&with(&traffic)) {
        Err(SimError::Config(e)) => {
            assert_eq!(e.key, "traffic.matrix");
            assert!(e.value.contains("row 1"), "{e}");
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn responses_first_finishes_a_saturated_run_sooner_and_changes_nothing_without_responses() {
    let saturating = |priority: &str| {
        with(&[
            ("topology.dims", json!([4, 4])),
            ("router.vcs", json!(4)),
            ("router.priority", json!(priority)),
            (
                "traffic",
                json!({"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 1,
                       "threads_per_lane": 64, "outstanding_per_thread": 8, "compute_ps": 0,
                       "operations_per_thread": 10,
                       "operations": [{"weight": 1.0, "request_bytes": 256,
                                       "response_bytes": 1024, "service_ps": 0}]}),
            ),
        ])
    };
    let shared = run_ok(&saturating("none")).summary;
    let first = run_ok(&saturating("responses")).summary;
    assert_eq!(first.u64("operations"), shared.u64("operations"));
    // Responses no longer queue behind requests: operations complete sooner.
    assert!(first.f64("completion_ns") < 0.99 * shared.f64("completion_ns"));
    assert!(first.f64("operation_latency_ns_mean") < shared.f64("operation_latency_ns_mean"));
    // Open-loop traffic has no responses: the priority leaves every number as it was.
    let open = |priority: &str| run_ok(&with(&[("router.priority", json!(priority))])).summary;
    let (none, responses) = (open("none"), open("responses"));
    for key in [
        "accepted_load",
        "latency_ns_mean",
        "latency_ns_p99",
        "packets_delivered",
    ] {
        assert_eq!(none.f64(key), responses.f64(key), "{key}");
    }
}

#[test]
fn message_classes_split_the_vcs_and_each_class_is_proved_deadlock_free() {
    let split = |vcs: u32| {
        with(&[
            ("router.vcs", json!(vcs)),
            ("router.message_classes", json!(2)),
        ])
    };
    let check = exanet_core::check_routing(&split(4), None, 1).unwrap();
    assert!(check.acyclic);
    // Dimension order on a torus needs two VCs per class: 2 VCs split in two are too few.
    match run(&split(2)) {
        Err(SimError::Config(e)) => {
            assert_eq!((e.key.as_str(), e.value.as_str()), ("router.vcs", "2"));
            assert!(e.expected.contains("2 message classes"), "{e}");
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
    let mut uneven = common::base();
    common::set(&mut uneven, "router.vcs", json!(3));
    common::set(&mut uneven, "router.message_classes", json!(2));
    let e = exanet_core::Config::from_json(&uneven.to_string()).unwrap_err();
    assert_eq!(e.key, "router.message_classes");
}

#[test]
fn a_total_of_operations_is_dealt_out_over_every_thread() {
    // Two endpoints of one thread: a total of 2 N is N per thread, the same run.
    let ops = 25u32;
    let mut total = pair(1, 1, 0);
    total[1].1["operations_total"] = json!(2 * ops);
    assert_eq!(completion_ps(&total), completion_ps(&pair(1, 1, ops)));
    // 1,000 over 6 threads: 4 threads do 167, 2 do 166; endpoint 0 holds threads 0-2.
    let mut uneven = pair(3, 1, 0);
    uneven[1].1["operations_total"] = json!(1000);
    let out = run_ok(&with(&uneven));
    assert_eq!(out.summary.u64("operations"), 1000);
    let completion = common::column_f64(&out.endpoints(), "completion_ns");
    let per_us = common::column_f64(&out.endpoints(), "operations_per_us");
    let operations: Vec<f64> = completion
        .iter()
        .zip(&per_us)
        .map(|(t, r)| (t / 1000.0 * r).round())
        .collect();
    assert_eq!(operations, [501.0, 499.0]);
    // Fewer operations than threads: the last endpoint has none and finishes at once.
    let mut few = pair(3, 1, 0);
    few[1].1["operations_total"] = json!(2);
    let out = run_ok(&with(&few));
    assert_eq!(out.summary.u64("operations"), 2);
    assert_eq!(
        common::column_f64(&out.endpoints(), "completion_ns")[1],
        0.0
    );
    // Neither or both: refused by key.
    for (per_thread, total) in [(0, 0), (3, 6)] {
        let mut bad = pair(1, 1, per_thread);
        bad[1].1["operations_total"] = json!(total);
        match run(&with(&bad)) {
            Err(SimError::Config(e)) => assert_eq!(e.key, "traffic.operations_per_thread"),
            other => panic!("expected a config error, got {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn littles_law_holds_exactly_over_a_closed_run_with_service_times() {
    // A response is handed to the NIC when its request arrives but may leave only after the
    // service time: it counts in flight from then, as its latency does.
    let mut changes = pair(8, 2, 20);
    changes.push(("topology.dims", json!([4, 4])));
    changes[1].1["operations"][0]["service_ps"] = json!(250_000);
    let s = run_ok(&with(&changes)).summary;
    assert!(
        s.f64("littles_law_error") < 1e-9,
        "L = {} packets, lambda W = {}",
        s.f64("in_flight_packets_mean"),
        s.f64("littles_law_packets")
    );
}
