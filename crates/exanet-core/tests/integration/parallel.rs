//! The parallel engine gives exactly the sequential answer: the same summary and the same
//! tables for 1, 2, 3, 4 and 8 threads (more workers than cores is fine) and on 2 and 4
//! processes (threads standing in for MPI ranks, through the same encoded exchanges), on tori,
//! dragonflies
//! and fat trees, with oblivious and adaptive routing, windowed, fixed-duration and burst runs,
//! the injection throttle, recorded traffic matrices and message-passing jobs.

use crate::common;

use common::{run, run_ok, with};
use std::sync::atomic::{AtomicUsize, Ordering};

use exanet_core::parallel::{Loopback, Transport, TransportError};
use exanet_core::stats::{ColumnData, Summary, Table, Value as Stat};
use exanet_core::{simulate_on, Config, RunOutput, SimError};
use serde_json::{json, Value};

/// Summary keys that describe the engine (time, workers, windows), not the simulated network.
const ENGINE_KEYS: [&str; 10] = [
    "processes",
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
        out.jobs_table(),
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

/// Runs `config` on `processes` processes, stood in for by threads: every process's answer.
fn on_processes(config: &Config, processes: usize) -> Vec<Result<RunOutput, SimError>> {
    on_each_process(&vec![config.clone(); processes])
}

/// Runs process p of a run across processes on `configs[p]`: every process's answer.
fn on_each_process(configs: &[Config]) -> Vec<Result<RunOutput, SimError>> {
    let world = Loopback::world(configs.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = world
            .iter()
            .zip(configs)
            .map(|(t, config)| {
                s.spawn(move || simulate_on(config, Some(t as &dyn Transport), 1.0, &mut |_| true))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The rows of a table as text, each value exact (a float by its bits, a category by its
/// label): rows of tables whose categories were numbered apart compare alike.
fn row_texts(table: &Table) -> Vec<String> {
    let rows = table.columns.first().map_or(0, |c| c.data.len());
    (0..rows)
        .map(|row| {
            let values: Vec<String> = table
                .columns
                .iter()
                .map(|c| {
                    let value = match &c.data {
                        ColumnData::U32(v) => u64::from(v[row]),
                        ColumnData::I32(v) => v[row] as u64,
                        ColumnData::U64(v) => v[row],
                        ColumnData::F64(v) => v[row].to_bits(),
                    };
                    match &c.categories {
                        Some(labels) => format!("{}={}", c.name, labels[value as usize]),
                        None => format!("{}={value}", c.name),
                    }
                })
                .collect();
            values.join(",")
        })
        .collect()
}

/// The tables whose rows a process of a run across processes keeps for its own part only.
const PART_TABLES: [usize; 2] = [0, 1];

/// Checks one answer against the reference: the same summary, the same tables (for a process
/// of a run across processes, the endpoints and links tables hold its own part's rows only:
/// returned, for the caller to check that the parts add up to the whole).
fn check_same(workers: &str, out: RunOutput, reference: &Everything) -> Vec<Vec<String>> {
    let split_rows = out.summary.u64("processes") > 1;
    assert!(out.summary.u64("windows") > 0);
    assert!(out.summary.f64("lookahead_ns") > 0.0);
    let (summary, tables) = everything(out);
    let keys = |s: &Summary| s.entries.iter().map(|(k, _)| *k).collect::<Vec<_>>();
    assert_eq!(keys(&summary), keys(&reference.0), "{workers}");
    for ((key, value), (_, expected)) in summary.entries.iter().zip(&reference.0.entries) {
        assert!(
            same_value(value, expected),
            "{key} on {workers}: {value:?} vs {expected:?}"
        );
    }
    assert_eq!(tables.len(), reference.1.len());
    let mut parts = Vec::new();
    for (index, (table, expected)) in tables.iter().zip(&reference.1).enumerate() {
        let names = |t: &Table| t.columns.iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names(table), names(expected), "{workers}");
        if split_rows && PART_TABLES.contains(&index) {
            parts.push(row_texts(table));
            continue;
        }
        for (column, want) in table.columns.iter().zip(&expected.columns) {
            // Bitwise: an empty group's mean is NaN on every split alike.
            assert!(
                column.data.to_le_bytes() == want.data.to_le_bytes()
                    && column.categories == want.categories,
                "column {} on {workers}: {column:?} vs {want:?}",
                want.name
            );
        }
    }
    parts
}

/// Runs `changes` on 1, 2, 3, 4 and 8 threads, on 2 and 4 processes and on 2 processes of 2
/// threads, and checks every answer (every process's) is the first: the processes' rows of the
/// endpoints and links tables together are exactly its rows, each row in one process.
fn same_on_any_number_of_threads(changes: &[(&str, Value)]) -> Everything {
    let sequential = on_threads(changes, 1);
    assert_eq!(sequential.summary.u64("threads"), 1);
    let reference = everything(sequential);
    for threads in [2, 3, 4, 8] {
        let out = on_threads(changes, threads);
        assert_eq!(out.summary.u64("threads"), u64::from(threads));
        check_same(&format!("{threads} threads"), out, &reference);
    }
    for (processes, threads) in [(2, 1), (4, 1), (2, 2)] {
        let mut threaded = changes.to_vec();
        threaded.push(("threads", json!(threads)));
        let config = with(&threaded);
        let mut union = vec![Vec::new(); PART_TABLES.len()];
        for (rank, out) in on_processes(&config, processes).into_iter().enumerate() {
            let out = out.unwrap_or_else(|e| panic!("run failed: {e}"));
            assert_eq!(out.summary.u64("processes"), processes as u64);
            assert_eq!(out.summary.u64("threads"), threads);
            let workers = format!("process {rank} of {processes}, {threads} threads each");
            for (all, part) in union.iter_mut().zip(check_same(&workers, out, &reference)) {
                all.extend(part);
            }
        }
        for (index, mut rows) in PART_TABLES.into_iter().zip(union) {
            let mut expected = row_texts(&reference.1[index]);
            rows.sort();
            expected.sort();
            assert_eq!(rows, expected, "table {index} on {processes} processes");
        }
    }
    reference
}

fn same_value(a: &Stat, b: &Stat) -> bool {
    match (a, b) {
        (Stat::F64(x), Stat::F64(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

#[test]
fn more_parts_than_cores_on_a_large_torus() {
    // 1,024 routers: 2 and 3 threads run 8 parts of 128 routers, a core taking turns on
    // several (docs/parallel.md); the small networks above keep one part per thread.
    let changes = [
        ("topology.dims", json!([32, 32])),
        ("traffic.load", json!(0.2)),
        ("run.warmup_ps", json!(0)),
        ("run.measure_ps", json!(2_000_000)),
        ("run.drain", json!("none")),
    ];
    let sequential = on_threads(&changes, 1);
    assert!(sequential.summary.u64("packets_delivered") > 1000);
    let reference = everything(sequential);
    for threads in [2, 3] {
        let out = on_threads(&changes, threads);
        check_same(&format!("{threads} threads"), out, &reference);
    }
}

fn dragonfly() -> Value {
    json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"})
}

#[test]
fn torus_dor_drained_run() {
    // Up to 4 workers cut slabs across one dimension; 8 cut 2 x 2 x 2 blocks.
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology.dims", json!([4, 4, 4])),
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
fn throttled_bursts_restart_alike_however_early_a_worker_hears_of_their_end() {
    // The acknowledgements of a burst's last packets reach their sources between its end and
    // the next start (100 ns later); a worker hears of the end when its window ends, which is
    // sooner, before more of those acknowledgements, the more workers there are.
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology.dims", json!([4, 4])),
        ("nic.max_outstanding_packets", json!(8)),
        (
            "traffic",
            json!({"kind": "burst", "pattern": "shuffle", "packet_bytes": 64,
                   "packets_per_burst": 20, "bursts": 5, "restart_delay_ps": 100_000}),
        ),
    ]);
    assert_eq!(summary.u64("bursts"), 5);
    assert_eq!(summary.u64("packets_delivered"), 5 * 20 * 16);
}

/// Jobs whose ranks are scattered over every part: eager and rendezvous point-to-point
/// messages (the envelope crosses parts both ways), a collective and compute phases.
fn jobs_mix() -> Value {
    json!({"kind": "jobs", "eager_limit_bytes": 8192, "send_overhead_ps": 150_000,
           "recv_overhead_ps": 100_000, "jobs": [
        {"name": "spread", "app": "spread", "ranks": 24, "message_bytes": 20000,
         "partners": 5, "placement": {"kind": "random_endpoints"}},
        {"name": "halo", "app": "halo3d", "ranks": 27, "message_bytes": 5000, "iterations": 2,
         "compute_ps": 100_000, "placement": {"kind": "random_endpoints"}},
        {"name": "reduce", "app": "allreduce", "ranks": 16, "message_bytes": 65536,
         "placement": {"kind": "random_endpoints"}},
    ]})
}

#[test]
fn message_passing_jobs_on_a_dragonfly_with_adaptive_routing() {
    let (summary, tables) = same_on_any_number_of_threads(&[
        ("topology", dragonfly()),
        ("routing", json!({"kind": "ugal_l"})),
        ("router.vcs", json!(6)),
        ("router.vc_buffer_bytes", json!(8192)),
        ("traffic", jobs_mix()),
    ]);
    assert_eq!(summary.u64("jobs"), 3);
    let jobs = &tables[6];
    assert_eq!(jobs.columns[0].data.len(), 3);
    assert!(summary.u64("packets_delivered") > 1000);
}

#[test]
fn closed_loop_threads_on_a_dragonfly_with_adaptive_routing() {
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology", dragonfly()),
        ("routing", json!({"kind": "ugal_l"})),
        ("router.vcs", json!(4)),
        ("router.vc_buffer_bytes", json!(8192)),
        (
            "traffic",
            json!({"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 2,
                   "threads_per_lane": 6, "outstanding_per_thread": 2, "compute_ps": 3_000,
                   "operations_per_thread": 10,
                   "operations": [
                       {"weight": 2.0, "request_bytes": 16, "response_bytes": 64,
                        "service_ps": 40_000},
                       {"weight": 1.0, "request_bytes": 6000, "response_bytes": 8,
                        "service_ps": 0}]}),
        ),
    ]);
    let operations = summary.u64("operations");
    assert_eq!(operations, 72 * 2 * 6 * 10);
    assert_eq!(summary.u64("requests_served"), operations);
    assert!(summary.f64("threads_waiting_mean") > 0.0);
}

#[test]
fn message_passing_jobs_on_a_torus() {
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology.dims", json!([9, 8])),
        ("router.vc_buffer_bytes", json!(8192)),
        ("traffic", jobs_mix()),
    ]);
    assert_eq!(summary.u64("jobs"), 3);
}

#[test]
fn a_stalled_job_is_reported_alike_on_any_number_of_threads() {
    // Rank 5 waits for a message rank 0 never sends; the others exchange theirs and finish.
    let ranks = 8;
    let mut rank = Vec::new();
    let mut op = Vec::new();
    let mut peer = Vec::new();
    for r in (1..ranks).filter(|&r| r != 5) {
        rank.push(0);
        op.push("send");
        peer.push(r);
    }
    for r in 1..ranks {
        rank.push(r);
        op.push("recv");
        peer.push(0);
    }
    let n = rank.len();
    let ops = json!({"rank": rank, "op": op, "peer": peer, "bytes": vec![20000; n],
                     "tag": vec![3; n], "compute_ps": vec![0; n], "communicator": vec![0; n],
                     "request": vec![-1; n], "algorithm": vec![Value::Null; n]});
    let changes = [
        (
            "traffic",
            json!({"kind": "jobs", "eager_limit_bytes": 8192, "send_overhead_ps": 0,
                   "recv_overhead_ps": 0, "jobs": [{"name": "broken", "app": "program",
                   "ranks": ranks, "ops": ops, "placement": {"kind": "random_endpoints"}}]}),
        ),
        ("router.vc_buffer_bytes", json!(8192)),
    ];
    let stalled = |threads: u32| match run(&with(
        &[&changes[..], &[("threads", json!(threads))]].concat(),
    )) {
        Err(exanet_core::SimError::Stalled(report)) => report,
        other => panic!("expected a stall, got {:?}", other.map(|o| o.summary)),
    };
    let one = stalled(1);
    assert_eq!(one.ranks.len(), 1);
    assert_eq!(one.ranks[0].rank, 5);
    for threads in [2, 4] {
        let other = stalled(threads);
        assert_eq!(other.time_ps, one.time_ps);
        assert_eq!(other.to_string(), one.to_string());
    }
    for out in on_processes(&with(&changes), 2) {
        match out {
            Err(SimError::Stalled(other)) => assert_eq!(other.to_string(), one.to_string()),
            other => panic!("expected a stall, got {:?}", other.map(|o| o.summary)),
        }
    }
}

#[test]
fn a_deadlock_is_found_at_the_same_instant_on_any_number_of_threads() {
    let changes = [
        ("routing", json!({"kind": "dor", "allow_unsafe": true})),
        ("router.vcs", json!(1)),
        ("traffic.pattern", json!("tornado")),
        ("traffic.load", json!(1.0)),
    ];
    let stuck = |threads: u32| match run(&with(
        &[&changes[..], &[("threads", json!(threads))]].concat(),
    )) {
        Err(exanet_core::SimError::Deadlock(report)) => report,
        other => panic!("expected a deadlock, got {:?}", other.map(|o| o.summary)),
    };
    let one = stuck(1);
    assert!(!one.cycle.is_empty());
    for threads in [2, 4] {
        let other = stuck(threads);
        assert_eq!(other.time_ps, one.time_ps);
        assert_eq!(other.packets_in_network, one.packets_in_network);
        assert_eq!(other.stuck_channels, one.stuck_channels);
    }
    for out in on_processes(&with(&changes), 3) {
        match out {
            Err(SimError::Deadlock(other)) => {
                assert_eq!(other.time_ps, one.time_ps);
                assert_eq!(other.packets_in_network, one.packets_in_network);
                assert_eq!(other.stuck_channels, one.stuck_channels);
                assert_eq!(other.cycle, one.cycle);
            }
            other => panic!("expected a deadlock, got {:?}", other.map(|o| o.summary)),
        }
    }
}

#[test]
fn thread_counts_the_engine_cannot_use_are_refused_by_key() {
    let too_many = with(&[("topology.dims", json!([4, 4])), ("threads", json!(17))]);
    let error = run(&too_many).err().expect("more workers than routers");
    assert!(error.to_string().contains("threads"), "{error}");
    let refused_key = |changes: &[(&str, Value)]| {
        on_processes(&with(changes), 2)
            .into_iter()
            .map(|out| match out {
                Err(SimError::Config(e)) => e.key,
                other => panic!("expected a refusal, got {:?}", other.map(|o| o.summary)),
            })
            .collect::<Vec<_>>()
    };
    let ugal_g = [
        ("topology", dragonfly()),
        ("routing", json!({"kind": "ugal_g"})),
        ("router.vcs", json!(6)),
    ];
    assert_eq!(refused_key(&ugal_g), ["routing.kind", "routing.kind"]);
    // 2 processes of 9 threads: 18 workers for 16 routers.
    let small = [("topology.dims", json!([4, 4])), ("threads", json!(9))];
    assert_eq!(refused_key(&small), ["threads", "threads"]);
    let none = with(&[("threads", json!(0))]);
    assert!(run(&none)
        .err()
        .expect("no workers")
        .to_string()
        .contains("threads"));
}

#[test]
fn processes_given_different_configs_all_refuse_to_run() {
    let configs = [with(&[]), with(&[]), with(&[("seed", json!(2))])];
    let errors: Vec<String> = on_each_process(&configs)
        .into_iter()
        .map(|out| match out {
            Err(SimError::Transport(e)) => e.to_string(),
            other => panic!("expected a refusal, got {:?}", other.map(|o| o.summary)),
        })
        .collect();
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
    assert!(
        errors[0].contains("process 2 was given another config than process 0"),
        "{}",
        errors[0]
    );
}

/// What the stand-in for the other process does once `good_calls` collectives went well.
enum Fault {
    /// The collective fails (MPI reports an error).
    Lost,
    /// The other process sends bytes this one cannot decode (another exanet build).
    Garbage,
}

/// Process 0 of two, whose partner answers every collective as this process would (so the
/// run gets going), then fails.
struct Twin {
    good_calls: AtomicUsize,
    fault: Fault,
}

impl Twin {
    fn answer(&self, mine: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        if self.good_calls.fetch_sub(1, Ordering::Relaxed) > 0 {
            return Ok(mine);
        }
        match self.fault {
            Fault::Lost => Err(TransportError(
                "MPI alltoall failed: the link went down".into(),
            )),
            Fault::Garbage => Ok(vec![mine[0].clone(), vec![0xff; 3]]),
        }
    }
}

impl Transport for Twin {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        2
    }

    fn alltoall(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        self.answer(outgoing)
    }

    fn allgather(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        self.answer(vec![mine.clone(), mine])
    }
}

#[test]
fn a_failed_exchange_between_processes_ends_the_run_with_its_reason() {
    let config = with(&[]);
    // The config check and the first window's report go well; the first exchange fails.
    let fails_with = |fault: Fault| {
        let twin = Twin {
            good_calls: AtomicUsize::new(2),
            fault,
        };
        match simulate_on(&config, Some(&twin), 1.0, &mut |_| true) {
            Err(SimError::Transport(e)) => e.to_string(),
            other => panic!(
                "expected a transport error, got {:?}",
                other.map(|o| o.summary)
            ),
        }
    };
    let lost = fails_with(Fault::Lost);
    assert!(
        lost.starts_with("the processes of the run could not go on together: MPI alltoall failed"),
        "{lost}"
    );
    let garbage = fails_with(Fault::Garbage);
    assert!(
        garbage.contains("process 1 sent state this process cannot decode")
            && garbage.contains("the same exanet build"),
        "{garbage}"
    );
}

/// A 3-level fat-tree of radix 8 (128 nodes), with `planes` NIC ports per node.
fn fat_tree_planes(planes: u32, wiring: &str) -> Value {
    json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 8, "taper": [1, 1],
           "planes": planes, "plane_wiring": wiring})
}

#[test]
fn multi_plane_fat_tree_with_packet_striping() {
    let (summary, _) = same_on_any_number_of_threads(&[
        ("topology", fat_tree_planes(2, "separate")),
        ("routing", json!({"kind": "minimal"})),
        ("nic.striping", json!("packet")),
        ("traffic.packet_bytes", json!(9000)),
        ("traffic.load", json!(0.5)),
        ("router.vc_buffer_bytes", json!(8192)),
    ]);
    assert_eq!(summary.u64("planes"), 2);
    assert_eq!(summary.u64("endpoints"), 128);
}

#[test]
fn message_passing_jobs_on_a_rail_optimized_fat_tree() {
    let (summary, _) = same_on_any_number_of_threads(&[
        // Radix 12: 8 pods of 6 leaves, 3 units of 2 rails each, 144 nodes.
        (
            "topology",
            json!({"kind": "fat_tree", "levels": 3, "radix": 12, "pods": 8, "taper": [1, 1],
                   "planes": 2, "plane_wiring": "rails"}),
        ),
        ("routing", json!({"kind": "minimal"})),
        ("router.vc_buffer_bytes", json!(8192)),
        ("traffic", jobs_mix()),
    ]);
    assert_eq!(summary.u64("jobs"), 3);
    assert_eq!(summary.u64("endpoints"), 144);
}

#[test]
fn a_partition_that_splits_a_nodes_ports_is_refused() {
    // Plane 0 on worker 0, plane 1 on worker 1: every node's two ports would be apart.
    let tree = fat_tree_planes(2, "separate");
    let routers = 80;
    let partition: Vec<u32> = (0..2 * routers).map(|r| r / routers).collect();
    let config = with(&[
        ("topology", tree),
        ("routing", json!({"kind": "minimal"})),
        ("threads", json!(2)),
        ("partition", json!(partition)),
    ]);
    let Err(SimError::Config(error)) = run(&config) else {
        panic!("a run with every node split between workers")
    };
    assert_eq!(error.key, "partition");
    assert!(
        error.expected.contains("2 NIC ports on one worker"),
        "{}",
        error.expected
    );
}
