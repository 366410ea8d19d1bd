//! Message-passing jobs, collectives, burst-synchronized sources and congestion control,
//! against analytic values and each other.

use crate::common;

use common::{column_f64, run, run_ok, with};
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
    column_f64(&out.jobs_table(), column)
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

/// Issue 17: with `header_bytes = 0` a request-to-send and a clear-to-send are packets of 0
/// bytes; they once made the router touch an output block it had already given back.
#[test]
fn bare_zero_byte_control_packets_cross_the_network_in_analytic_time() {
    let mut pp = job("pingpong", 2, 65536);
    pp["iterations"] = json!(2);
    let out = run_ok(&jobs(json!([pp]), &[("nic.header_bytes", json!(0))]));
    // 16 packets of 4096 B after an RTS and a CTS of 0 bytes, each one hop.
    let rendezvous = 2 * one_way_ps(1, 1, 0) + one_way_ps(1, 16, 4096);
    assert_eq!(
        f64s(&out, "completion_ns")[0],
        (2 * 2 * rendezvous) as f64 / 1000.0
    );
    // The case: a ring allreduce of 1 MiB (rendezvous) on a 2-level fat-tree.
    let fat_tree = json!({"kind": "fat_tree", "levels": 2, "radix": 16, "pods": 16,
                          "taper": [1, 1]});
    let mut j = job("allreduce", 16, 1 << 20);
    j["algorithm"] = json!("ring");
    let minimal = json!({"kind": "minimal", "selection": "adaptive", "escape": "none",
                         "threshold": 0.5});
    let out = run_ok(&jobs(
        json!([j]),
        &[
            ("topology", fat_tree),
            ("routing", minimal),
            ("nic.header_bytes", json!(0)),
        ],
    ));
    assert_eq!(
        out.summary.get("delivery_checksum_ok"),
        Some(&exanet_core::stats::Value::Bool(true))
    );
    assert!(f64s(&out, "completion_ns")[0] > 0.0);
}

#[test]
fn every_collective_algorithm_moves_its_theoretical_messages_and_bytes() {
    let log2 = |n: u64| 63 - n.leading_zeros() as u64;
    // (app, algorithm, ranks, bytes, messages, bytes moved)
    let s = 1600u64;
    let b = 100u64;
    let popcounts: u64 = (0..16u64).map(|i| u64::from(i.count_ones())).sum();
    let cases: Vec<(&str, &str, u64, u64, u64, u64)> = vec![
        (
            "allreduce",
            "recursive_doubling",
            16,
            s,
            16 * log2(16),
            16 * log2(16) * s,
        ),
        // non-power-of-two: 4 folded ranks send in and get the result back
        (
            "allreduce",
            "recursive_doubling",
            12,
            s,
            8 * 3 + 4 + 4,
            (8 * 3 + 8) * s,
        ),
        ("allreduce", "ring", 16, s, 2 * 16 * 15, 2 * 15 * s),
        (
            "allreduce",
            "rabenseifner",
            16,
            s,
            16 * 2 * log2(16),
            16 * 2 * s * 15 / 16,
        ),
        ("bcast", "binomial", 16, s, 15, 15 * s),
        ("reduce", "binomial", 13, s, 12, 12 * s),
        ("allgather", "ring", 16, b, 16 * 15, 16 * 15 * b),
        (
            "allgather",
            "recursive_doubling",
            16,
            b,
            16 * log2(16),
            16 * 15 * b,
        ),
        ("alltoall", "pairwise", 16, b, 16 * 15, 16 * 15 * b),
        (
            "alltoall",
            "bruck",
            16,
            b,
            16 * log2(16),
            16 * popcounts * b,
        ),
        ("barrier", "dissemination", 12, 0, 12 * 4, 0),
    ];
    for (app, algorithm, ranks, bytes, messages, volume) in cases {
        let mut j = job(app, ranks as u32, bytes);
        j["algorithm"] = json!(algorithm);
        j["iterations"] = json!(2);
        let out = run_ok(&jobs(json!([j]), &[]));
        let what = format!("{app} {algorithm} on {ranks} ranks");
        assert_eq!(out.summary.u64("messages_sent"), 2 * messages, "{what}");
        assert_eq!(out.summary.u64("bytes_sent"), 2 * volume, "{what}");
        assert_eq!(
            out.summary.u64("packets_generated"),
            out.summary.u64("packets_delivered"),
            "{what}"
        );
    }
}

#[test]
fn ring_allreduce_takes_two_n_minus_one_steps_of_alpha_plus_a_chunk() {
    // 8 ranks on one ring of the torus (every neighbour one hop away), 256 KiB: each step
    // moves S/N = 32 KiB (8 packets) to the next rank.
    let (n, s) = (8u64, 262_144u64);
    let mut j = job("allreduce", n as u32, s);
    j["algorithm"] = json!("ring");
    // Eager messages: the formula's alpha is one message's latency.
    let out = run_ok(&jobs(
        json!([j]),
        &[("traffic.eager_limit_bytes", json!(1 << 20))],
    ));
    let alpha_ps = one_way_ps(1, 1, 32) as f64; // a bare header, one hop
    let chunk_ps = (s / n) as f64 / 25e9 * 1e12;
    let expected_ns = 2.0 * (n - 1) as f64 * (alpha_ps + chunk_ps) / 1000.0;
    let measured_ns = f64s(&out, "completion_ns")[0];
    println!("ring allreduce: {measured_ns:.1} ns, 2(N-1)(a + S/NB) = {expected_ns:.1} ns");
    assert!((measured_ns / expected_ns - 1.0).abs() < 0.01);
}

#[test]
fn the_core_runs_program_gathers_and_scatters_and_refuses_a_root_outside_the_communicator() {
    // Every rank of 4 calls `op` with root `root`, 100 B.
    let program = |op: &str, root: i32, algorithm: &str| {
        let ops = json!({"rank": [0, 1, 2, 3], "op": vec![op; 4], "peer": vec![root; 4],
                         "bytes": vec![100; 4], "tag": vec![0; 4], "compute_ps": vec![0; 4],
                         "communicator": vec![0; 4], "request": vec![-1; 4],
                         "algorithm": vec![algorithm; 4]});
        json!([{"name": "c", "app": "program", "ranks": 4, "ops": ops,
                "placement": {"kind": "linear"}}])
    };
    // Linear: 3 blocks straight to the root; binomial: relative ranks 1, 2, 3 get subtrees of
    // 1, 2 and 1 blocks.
    for (op, algorithm, volume) in [("gather", "linear", 300), ("scatter", "binomial", 400)] {
        let out = run_ok(&jobs(program(op, 3, algorithm), &[]));
        assert_eq!(out.summary.u64("messages_sent"), 3, "{op}");
        assert_eq!(out.summary.u64("bytes_sent"), volume, "{op}");
    }
    match run(&jobs(program("gather", 4, "binomial"), &[])) {
        Err(SimError::Config(e)) => {
            let text = e.to_string();
            assert!(
                text.contains("root 4 is not a rank of the communicator (0..4)"),
                "{text}"
            );
        }
        other => panic!(
            "expected a config error, got {:?}",
            other.map(|o| o.summary)
        ),
    }
}

#[test]
fn a_receive_without_a_send_is_reported_with_its_rank_and_operation() {
    let ops = json!({"rank": [0, 1, 1], "op": ["compute", "recv", "compute"],
                     "peer": [-1, 0, -1], "bytes": [0, 64, 0], "tag": [0, 7, 0],
                     "compute_ps": [1000, 0, 1000], "communicator": [0, 0, 0],
                     "request": [-1, -1, -1], "algorithm": [null, null, null]});
    let program = json!([{"name": "broken", "app": "program", "ranks": 2, "ops": ops,
                          "placement": {"kind": "linear"}}]);
    match run(&jobs(program, &[])) {
        Err(SimError::Stalled(report)) => {
            let text = report.to_string();
            println!("{text}");
            assert_eq!(report.ranks.len(), 1);
            assert_eq!(report.ranks[0].rank, 1);
            assert_eq!(report.ranks[0].operation, 0);
            assert!(text.contains("job broken rank 1 at operation 0"));
            assert!(text.contains("a message from rank 0 with tag 7"));
        }
        other => panic!("expected a stall, got {:?}", other.map(|o| o.summary)),
    }
}

#[test]
fn identical_jobs_on_symmetric_halves_of_a_fat_tree_finish_together() {
    let fat_tree = json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4,
                          "taper": [1, 1]});
    let mut a = job("alltoall", 8, 8192);
    a["name"] = json!("a");
    let mut b = a.clone();
    b["name"] = json!("b");
    let out = run_ok(&jobs(
        json!([a, b]),
        &[
            ("topology", fat_tree),
            (
                "routing",
                json!({"kind": "minimal", "selection": "destination",
                               "escape": "none", "threshold": 0.5}),
            ),
            ("router.vcs", json!(4)),
        ],
    ));
    let t = f64s(&out, "completion_ns");
    println!("halves: {t:?}");
    assert!((t[0] / t[1] - 1.0).abs() < 0.01);
}

/// Burst-synchronized uniform traffic on the base 8x8 torus (DOR, 2 VCs of 2 KiB), with IPR
/// probability `ipr`.
fn bursts(ipr: f64, extra: &[(&str, Value)]) -> RunOutput {
    let mut changes = vec![
        (
            "traffic",
            json!({"kind": "burst", "pattern": "uniform", "packet_bytes": 256,
                   "packets_per_burst": 200, "bursts": 3}),
        ),
        ("router.in_transit_priority", json!(ipr)),
    ];
    changes.extend(extra.iter().cloned());
    run_ok(&with(&changes))
}

#[test]
fn every_endpoint_injects_its_budget_in_every_burst() {
    let out = bursts(0.0, &[]);
    let endpoints = out.endpoints();
    let injected = endpoints
        .columns
        .iter()
        .find(|c| c.name == "packets_injected")
        .unwrap();
    let ColumnData::U64(injected) = &injected.data else {
        panic!()
    };
    assert!(injected.iter().all(|&p| p == 3 * 200));
    assert_eq!(out.summary.u64("bursts"), 3);
    assert_eq!(out.summary.u64("packets_delivered"), 64 * 600);
    let table = out.bursts();
    let ColumnData::F64(times) = &table
        .columns
        .iter()
        .find(|c| c.name == "time_ns")
        .unwrap()
        .data
    else {
        panic!()
    };
    // The bursts and the restart delays between them (100 ns by default) tile the run, and
    // throughput is the workload over the completion time.
    let total: f64 = times.iter().sum::<f64>() + 2.0 * 100.0;
    assert!((total - out.summary.f64("sim_time_ns")).abs() < 1e-6);
    let throughput = out.summary.f64("burst_throughput_packets_per_ns");
    assert!((throughput * total - 64.0 * 600.0).abs() < 1e-6);
}

#[test]
fn in_transit_priority_finishes_bursts_sooner_under_uniform_traffic() {
    // 002 §3.3: with burst-synchronized sources, IPR shortens the time to deliver the bursts
    // (and no endpoint starves: every burst completes). Checked on the DOR torus; with
    // bubble-adaptive routing at this reduced size the sign reverses (docs/workloads.md).
    let off = bursts(0.0, &[]);
    let on = bursts(1.0, &[]);
    let (t_off, t_on) = (
        off.summary.f64("sim_time_ns"),
        on.summary.f64("sim_time_ns"),
    );
    println!("3 bursts of 200 packets, uniform: IPR off {t_off:.0} ns, on {t_on:.0} ns");
    assert_eq!(on.summary.u64("bursts"), 3);
    assert!(t_on < t_off);
}

#[test]
fn the_injection_throttle_caps_packets_in_flight_per_endpoint() {
    let free = bursts(0.0, &[]);
    let capped = bursts(0.0, &[("nic.max_outstanding_packets", json!(2))]);
    // At most 2 packets per endpoint in the network: far fewer live packets at once.
    assert!(capped.summary.u64("peak_packets") <= 64 * 2 + 64);
    assert!(free.summary.u64("peak_packets") > capped.summary.u64("peak_packets"));
    assert_eq!(capped.summary.u64("packets_delivered"), 64 * 600);
}

#[test]
fn jobs_are_deterministic_for_a_seed() {
    let mix = json!([
        {"name": "spread", "app": "spread", "ranks": 24, "message_bytes": 20000,
         "partners": 5, "placement": {"kind": "random_endpoints"}},
        {"name": "halo", "app": "halo3d", "ranks": 27, "message_bytes": 5000, "iterations": 2,
         "compute_ps": 100000, "placement": {"kind": "random_routers"}},
    ]);
    let a = run_ok(&jobs(mix.clone(), &[]));
    let b = run_ok(&jobs(mix.clone(), &[]));
    let c = run_ok(&jobs(mix, &[("seed", json!(2))]));
    assert_eq!(f64s(&a, "completion_ns"), f64s(&b, "completion_ns"));
    assert_eq!(a.summary.u64("events"), b.summary.u64("events"));
    assert_ne!(f64s(&a, "completion_ns"), f64s(&c, "completion_ns"));
}

#[test]
fn littles_law_holds_exactly_over_jobs_with_cpu_overheads() {
    // A send handed to the NIC before its CPU overhead has passed counts in flight from then,
    // as its latency does (it used to count from the hand-over, and L came out too large).
    let out = run_ok(&jobs(
        json!([job("alltoall", 16, 20_000)]),
        &[
            ("topology.dims", json!([4, 4])),
            ("traffic.send_overhead_ps", json!(300_000)),
            ("traffic.recv_overhead_ps", json!(100_000)),
        ],
    ));
    assert!(out.summary.f64("littles_law_error") < 1e-9);
}
