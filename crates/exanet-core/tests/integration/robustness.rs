//! Issue 17's regression cases: inputs that once panicked, aborted on an allocation or hung
//! are refused with a ConfigError naming the key, before anything large is allocated, and
//! `describe` (what `exanet validate` runs) refuses whatever a run would refuse.

use crate::common;

use common::{base, set, with};
use exanet_core::{describe, Config, ConfigError};
use serde_json::{json, Value};

fn refused(config: &Config) -> ConfigError {
    match describe(config) {
        Err(error) => error,
        Ok(d) => panic!("accepted: {d:?}"),
    }
}

fn jobs(job: Value) -> Config {
    with(&[(
        "traffic",
        json!({"kind": "jobs", "jobs": [job], "eager_limit_bytes": 8192,
               "send_overhead_ps": 0, "recv_overhead_ps": 0}),
    )])
}

#[test]
fn a_billion_router_torus_is_refused_with_its_memory_estimate_before_allocating() {
    let config = with(&[(
        "topology",
        json!({"kind": "torus", "dims": [1000, 1000, 1000], "concentration": 1}),
    )]);
    let error = refused(&config);
    assert_eq!(error.key, "topology");
    assert!(
        error.value.contains("1000000000 routers of 7 ports"),
        "{}",
        error.value
    );
    assert!(
        error.expected.contains("this needs ~"),
        "{}",
        error.expected
    );
    assert!(
        error.expected.contains("router ports"),
        "{}",
        error.expected
    );
}

#[test]
fn one_picosecond_injection_bins_are_refused_with_their_estimate() {
    let config = with(&[(
        "record",
        json!({"traffic_matrix": "off", "injection_bin_ps": 1, "packet_sizes": false}),
    )]);
    let error = refused(&config);
    assert_eq!(error.key, "record.injection_bin");
    // 64 endpoints x a 10 us window of 1 ps bins.
    assert!(
        error.value.contains("10000000 bins of 64 endpoints"),
        "{}",
        error.value
    );
}

#[test]
fn describe_runs_the_checks_a_run_makes() {
    // A torus has no groups: a run refused this, validate did not.
    let config = with(&[(
        "record",
        json!({"traffic_matrix": "groups", "injection_bin_ps": 0, "packet_sizes": false}),
    )]);
    assert_eq!(refused(&config).key, "record.traffic_matrix");
    // More workers than routers.
    let mut raw = base();
    set(&mut raw, "topology.dims", json!([4, 4]));
    raw["threads"] = json!(1000);
    let error = refused(&Config::from_json(&raw.to_string()).unwrap());
    assert_eq!(error.key, "threads");
    assert!(error.expected.contains("16"), "{}", error.expected);
}

#[test]
fn a_spread_job_with_a_billion_partners_is_refused_at_once() {
    let error = refused(&jobs(json!({
        "name": "s", "app": "spread", "ranks": 16, "message_bytes": 1024,
        "partners": 1_000_000_000u32, "placement": {"kind": "linear"}
    })));
    assert_eq!(error.key, "traffic.jobs[0].partners");
    assert!(
        error.expected.contains("ranks - 1 = 15"),
        "{}",
        error.expected
    );
}

#[test]
fn a_program_too_large_for_memory_is_refused_before_it_is_generated() {
    let error = refused(&jobs(json!({
        "name": "a", "app": "allreduce", "ranks": 64, "message_bytes": 8,
        "iterations": 4_000_000_000u32, "placement": {"kind": "linear"}
    })));
    assert_eq!(error.key, "traffic.jobs[0].iterations");
    assert!(error.expected.contains("operations"), "{}", error.expected);
}

#[test]
fn placement_is_checked_before_the_program_is_generated() {
    // 10^7 ranks on 64 endpoints: the placement error comes first, not the program's size.
    let error = refused(&jobs(json!({
        "name": "big", "app": "allreduce", "ranks": 10_000_000, "message_bytes": 8,
        "iterations": 1_000_000, "placement": {"kind": "linear"}
    })));
    assert_eq!(error.key, "traffic.jobs[0].placement");
}

#[test]
fn sizes_that_overflow_u64_are_refused_not_wrapped() {
    let mut raw = base();
    set(&mut raw, "nic.header_bytes", json!(u64::MAX));
    let error = Config::from_json(&raw.to_string()).unwrap_err();
    assert_eq!(error.key, "nic.header");
}

#[test]
fn an_out_of_range_number_in_the_core_json_names_its_key() {
    let mut raw = base();
    set(&mut raw, "router.vcs", json!(1u64 << 40));
    let error = Config::from_json(&raw.to_string()).unwrap_err();
    assert_eq!(error.key, "router.vcs");
    assert!(error.expected.contains("u32"), "{}", error.expected);
    assert!(!error.expected.contains("line 1"), "{}", error.expected);
    let mut raw = base();
    set(&mut raw, "topology.dims", json!([8, -1]));
    let error = Config::from_json(&raw.to_string()).unwrap_err();
    // Inside a table tagged by its kind, serde knows the table but not the field.
    assert_eq!(error.key, "topology");
    assert!(error.expected.contains("-1"), "{}", error.expected);
}

#[test]
fn compute_phases_beyond_the_end_of_time_are_refused_instead_of_wrapping() {
    // Two compute phases of 2^63 ps each: the second ended past u64::MAX picoseconds and
    // wrapped around, finishing the job at 2^63 ps.
    let half = 1u64 << 63;
    let ops = json!({"rank": [0, 0, 1], "op": ["compute", "compute", "compute"],
                     "peer": [-1, -1, -1], "bytes": [0, 0, 0], "tag": [0, 0, 0],
                     "compute_ps": [half, half, 1000], "communicator": [0, 0, 0],
                     "request": [-1, -1, -1], "algorithm": [null, null, null]});
    let job = json!({"name": "long", "app": "program", "ranks": 2, "ops": ops,
                     "placement": {"kind": "linear"}});
    let config = with(&[
        (
            "traffic",
            json!({"kind": "jobs", "jobs": [job], "eager_limit_bytes": 8192,
                   "send_overhead_ps": 0, "recv_overhead_ps": 0}),
        ),
        ("router.vc_buffer_bytes", json!(65536)),
    ]);
    let error = refused(&config);
    assert_eq!(error.key, "traffic.jobs[0].ops");
    assert!(error.value.contains("rank 0"), "{}", error.value);
}

#[test]
fn table_driven_routing_is_bounded_by_memory_not_by_a_router_count() {
    // 001's 100k-node dragonfly: 8,814 routers, once refused for more than 8,192.
    let config = with(&[
        (
            "topology",
            json!({"kind": "dragonfly", "p": 13, "a": 26, "h": 13, "g": 339,
                   "arrangement": "absolute"}),
        ),
        ("routing", json!({"kind": "ugal_l", "threshold": 0.0})),
        ("router.vcs", json!(3)),
    ]);
    let description = describe(&config).expect("001's dragonfly is accepted");
    assert_eq!(description.routers, 8_814);
    assert_eq!(description.endpoints, 114_582);
}
