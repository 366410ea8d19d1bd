//! Message-passing jobs, collectives, burst-synchronized sources and congestion control,
//! against analytic values and each other.

mod common;

use common::{run, run_ok, with};
use exanet_core::stats::ColumnData;
use exanet_core::{RunOutput, SimError};
use serde_json::{json, Value};

/// A jobs workload with the given jobs (each a JSON object; placement linear unless given).
fn jobs(jobs: Value, extra: &[(&str, Value)]) -> exanet_core::Config {
    let mut changes = vec![
        (
            "traffic",
            json!({"kind": "jobs", "jobs": jobs, "eager_limit_bytes": 8192,
                   "send_overhead_ps": 0, "recv_overhead_ps": 0}),
        ),
        ("router.vc_buffer_bytes", json!(65536)),
    ];
    changes.extend(extra.iter().cloned());
    with(&changes)
}

fn job(app: &str, ranks: u32, message: u64) -> Value {
    json!({"name": format!("{app}{ranks}"), "app": app, "ranks": ranks, "message_bytes": message,
           "placement": {"kind": "linear"}})
}

fn f64s(out: &RunOutput, column: &str) -> Vec<f64> {
    let table = out.jobs_table();
    match &table
        .columns
        .iter()
        .find(|c| c.name == column)
        .unwrap()
        .data
    {
        ColumnData::F64(v) => v.clone(),
        ColumnData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("{column}: {other:?}"),
    }
}

/// One-way time of a message of `packets` full packets of `wire` bytes over `hops` router hops
/// of the base torus (20 ns NIC and link latencies, 50 ns routers, 25 GB/s everywhere): the
/// packets follow each other at the link rate, serialization paid once per packet.
fn one_way_ps(hops: u64, packets: u64, wire: u64) -> u64 {
    let ser = wire * 1000 / 25; // ps at 25 GB/s
    2 * 20_000 + (hops + 1) * 50_000 + hops * 20_000 + packets * ser
}

#[test]
fn ping_pong_time_is_analytic_for_eager_and_rendezvous() {
    let (send_o, recv_o) = (300_000u64, 200_000u64);
    let overheads = [
        ("traffic.send_overhead_ps", json!(send_o)),
        ("traffic.recv_overhead_ps", json!(recv_o)),
    ];
    // Eager: 4000 B is one packet of 4032 B; ranks 0 and 1 are one hop apart.
    let mut pp = job("pingpong", 2, 4000);
    pp["iterations"] = json!(3);
    let out = run_ok(&jobs(json!([pp]), &overheads));
    let eager = send_o + one_way_ps(1, 1, 4032) + recv_o;
    assert_eq!(
        f64s(&out, "completion_ns")[0],
        (3 * 2 * eager) as f64 / 1000.0
    );
    // Rendezvous: 64 KiB is 16 packets of 4128 B, after a request-to-send and a clear-to-send
    // of one bare header (32 B) each.
    let mut pp = job("pingpong", 2, 65536);
    pp["iterations"] = json!(2);
    let out = run_ok(&jobs(json!([pp]), &overheads));
    let rendezvous = send_o + 2 * one_way_ps(1, 1, 32) + one_way_ps(1, 16, 4128) + recv_o;
    assert_eq!(
        f64s(&out, "completion_ns")[0],
        (2 * 2 * rendezvous) as f64 / 1000.0
    );
    // The ideal network keeps only the overheads.
    assert_eq!(
        f64s(&out, "ideal_completion_ns")[0],
        (2 * 2 * (send_o + recv_o)) as f64 / 1000.0
    );
    assert_eq!(
        out.summary.get("delivery_checksum_ok"),
        Some(&exanet_core::stats::Value::Bool(true))
    );
}
