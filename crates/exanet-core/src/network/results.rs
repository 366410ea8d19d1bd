//! Turning the final state of a run into the summary and the per-endpoint and per-link tables.

use std::sync::Arc;

use super::counts::{Counts, Rows, Spread, Tally};
use super::model::Network;
use super::record::Recorder;
use super::state::{EndpointCounters, PortLink};
use crate::engine::Time;
use crate::error::ConfigError;
use crate::memory::Footprint;

use crate::stats::{ColumnData, Summary, Table, Value};
use crate::topology::{Peer, Topology};
use crate::workload::HostResults;
pub use crate::workload::JobResult;

const PS_PER_NS: f64 = 1000.0;

/// How the engine ran: the figures that depend on the machine and on the number of workers,
/// not on the simulated network.
#[derive(Debug, Clone, Copy)]
pub(super) struct EngineStats {
    pub events: u64,
    pub wall_s: f64,
    pub threads: u32,
    /// Processes of a run across processes (MPI ranks; 1 otherwise).
    pub processes: u32,
    pub windows: u64,
    /// Seconds the workers spent at barriers, all added up.
    pub barrier_wait_s: f64,
    /// Widest window the split allowed (None: one worker; reported as 0).
    pub lookahead_ps: Option<Time>,
}

/// What a finished run keeps for its tables: the counters, not the packets. Tables are built
/// only when asked for, so a summary-only run of a million endpoints never pays for them.
pub struct RunOutput {
    pub summary: Summary,
    topology: Arc<dyn Topology>,
    ports: usize,
    class_names: Vec<String>,
    nic_link: PortLink,
    window_ps: Time,
    /// This process's rows (all of them, but in a run across processes).
    rows: Rows,
    /// The host's columns of the endpoints table (closed-loop threads).
    host_endpoint_columns: Vec<(&'static str, ColumnData)>,
    /// Message-passing jobs (empty otherwise).
    pub jobs: Vec<JobResult>,
    /// When each burst started and ended (burst-synchronized sources).
    burst_starts_ps: Vec<Time>,
    burst_ends_ps: Vec<Time>,
    recorder: Option<Box<Recorder>>,
}

/// Fraction of a link's capacity over the window that `bytes` represent.
fn load(bytes: f64, link: PortLink, window_ps: Time) -> f64 {
    bytes * 1e12 / (link.bytes_per_s as f64 * window_ps as f64)
}

fn min_mean_max(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let (mut min, mut sum, mut max, mut n) = (f64::INFINITY, 0.0, f64::NEG_INFINITY, 0usize);
    for v in values {
        min = min.min(v);
        max = max.max(v);
        sum += v;
        n += 1;
    }
    if n == 0 {
        (f64::NAN, f64::NAN, f64::NAN)
    } else {
        (min, sum / n as f64, max)
    }
}

impl Network {
    /// The counters of the NICs and routers this network holds, taken out of its state
    /// (without copies: a million endpoints' counters are hundreds of megabytes);
    /// `source_queue_packets` as [`Network::account_backlog`] gives them.
    pub(super) fn take_counts(&mut self, source_queue_packets: Vec<u64>) -> Counts {
        let endpoints = self.nics.state.indices();
        let ports = self.params.ports;
        let routers = self.routers.ports.indices();
        let mut source_latency = std::mem::take(&mut self.nics.source_latency).into_vec();
        source_latency.truncate(endpoints.end);
        source_latency.drain(..endpoints.start);
        Counts {
            endpoint_ids: (endpoints.start as u32..endpoints.end as u32).collect(),
            endpoint_counters: std::mem::take(&mut self.nics.counters).into_vec(),
            source_latency: source_latency.into_iter().map(|l| l.get()).collect(),
            source_queue_packets,
            router_ids: (routers.start / ports..routers.end / ports)
                .map(|r| r as u32)
                .collect(),
            outputs: std::mem::take(&mut self.routers.ports).into_vec(),
            port_class: std::mem::take(&mut self.routers.port_class).into_vec(),
        }
    }

    /// The injection link of a node: its ports' bandwidth together.
    fn node_link(&self) -> PortLink {
        let mut link = self.params.nic_link;
        link.bytes_per_s *= u64::from(self.params.node_ports);
        link
    }

    pub(super) fn results(
        mut self,
        end_ps: Time,
        drained: bool,
        engine: &EngineStats,
        rows: Rows,
        tally: &Tally,
    ) -> RunOutput {
        let (events, wall_s) = (engine.events, engine.wall_s);
        let planes = self.params.node_ports;
        let (burst_starts_ps, burst_ends_ps) = self
            .burst
            .take()
            .map(|b| (b.starts_ps, b.ends_ps))
            .unwrap_or_default();
        let s = &self.stats;
        let window_ps = s.window_end - s.window_start;
        let topo = self.topology.as_ref();
        let mut sum = Summary::default();
        let ns = |ps: f64| ps / PS_PER_NS;
        let network_links = tally.link_bytes.count;
        sum.set("endpoints", Value::U64(u64::from(self.params.nodes)));
        sum.set("planes", Value::U64(u64::from(planes)));
        sum.set(
            "traffic_matrix_level",
            Value::Str(
                self.recorder
                    .as_ref()
                    .map_or("off", |r| r.level_name())
                    .to_string(),
            ),
        );
        sum.set("routers", Value::U64(u64::from(topo.num_routers())));
        sum.set("network_links", Value::U64(network_links));
        sum.set(
            "average_distance_hops",
            Value::F64(crate::describe::average_endpoint_distance(
                self.node_topology.as_ref(),
            )),
        );
        let mode = if self.params.closed {
            "closed"
        } else if self.config.run.duration_ps.is_some() {
            "fixed"
        } else {
            "windowed"
        };
        sum.set("mode", Value::Str(mode.to_string()));
        sum.set("sim_time_ns", Value::F64(ns(end_ps as f64)));
        sum.set("window_ns", Value::F64(ns(window_ps as f64)));
        sum.set("drained", Value::Bool(drained));
        sum.set("packets_generated", Value::U64(s.generated));
        sum.set("packets_injected", Value::U64(s.injected));
        sum.set("packets_delivered", Value::U64(s.delivered));
        sum.set(
            "packets_in_flight_end",
            Value::U64(s.generated - s.delivered),
        );
        sum.set("packets_measured", Value::U64(s.measured_generated));
        sum.set(
            "packets_measured_delivered",
            Value::U64(s.measured_delivered),
        );
        sum.set("packets_misdelivered", Value::U64(s.misdelivered));
        // Meaningful once nothing is in flight: every packet arrived exactly once, where sent.
        sum.set(
            "delivery_checksum_ok",
            Value::Bool(s.flow_checksum == 0 && s.generated == s.delivered),
        );
        let latency_entries = [
            (
                "latency_ns_mean",
                "latency_ns_min",
                "latency_ns_p50",
                "latency_ns_p90",
                "latency_ns_p99",
                "latency_ns_max",
                &s.latency,
            ),
            (
                "network_latency_ns_mean",
                "network_latency_ns_min",
                "network_latency_ns_p50",
                "network_latency_ns_p90",
                "network_latency_ns_p99",
                "network_latency_ns_max",
                &s.network_latency,
            ),
            (
                "message_latency_ns_mean",
                "message_latency_ns_min",
                "message_latency_ns_p50",
                "message_latency_ns_p90",
                "message_latency_ns_p99",
                "message_latency_ns_max",
                if self.params.messages_are_packets {
                    &s.latency
                } else {
                    &s.message_latency
                },
            ),
        ];
        for (mean, min, p50, p90, p99, max, stats) in latency_entries {
            sum.set(mean, Value::F64(ns(stats.mean_ps())));
            sum.set(min, Value::F64(ns(stats.min_ps())));
            let [q50, q90, q99] = stats.quantiles_ps([0.50, 0.90, 0.99]);
            sum.set(p50, Value::F64(ns(q50)));
            sum.set(p90, Value::F64(ns(q90)));
            sum.set(p99, Value::F64(ns(q99)));
            sum.set(max, Value::F64(ns(stats.max_ps())));
        }
        // Over every measured packet, arrived or not (see `Stats::route_hops_sum`): the packets
        // that arrived by the end of a run stopped beyond saturation are the short routes.
        let hops_mean = if s.measured_generated == 0 {
            f64::NAN
        } else {
            s.route_hops_sum as f64 / s.measured_generated as f64
        };
        sum.set("hops_mean", Value::F64(hops_mean));
        // A node injects on all its ports: its loads are fractions of their bandwidth together.
        let nic = self.node_link();
        let injection_gbytes_per_s = nic.bytes_per_s as f64 / 1e9;
        let loads = |spread: &Spread| spread.min_mean_max(|bytes| load(bytes, nic, window_ps));
        let (offered_min, offered, offered_max) = loads(&tally.generated_bytes);
        let (accepted_min, accepted, accepted_max) = loads(&tally.received_bytes);
        let (injected_min, injected, injected_max) = loads(&tally.injected_bytes);
        sum.set(
            "injection_bandwidth_gbytes_per_s",
            Value::F64(injection_gbytes_per_s),
        );
        sum.set("offered_load", Value::F64(offered));
        sum.set("offered_load_min", Value::F64(offered_min));
        sum.set("offered_load_max", Value::F64(offered_max));
        sum.set(
            "offered_gbytes_per_s",
            Value::F64(offered * injection_gbytes_per_s),
        );
        sum.set("injected_load", Value::F64(injected));
        // The spread of what sources got into the network: adversarial patterns can starve
        // some endpoints while others near the bottleneck inject freely.
        sum.set("injected_load_min", Value::F64(injected_min));
        sum.set("injected_load_max", Value::F64(injected_max));
        sum.set("accepted_load", Value::F64(accepted));
        sum.set("accepted_load_min", Value::F64(accepted_min));
        sum.set("accepted_load_max", Value::F64(accepted_max));
        sum.set(
            "accepted_gbytes_per_s",
            Value::F64(accepted * injection_gbytes_per_s),
        );
        // Packet rate and size of the packets received in the window (000 ch. 4's packet
        // injection rate per node and average packet size, wire bytes).
        let (received_packets, received_bytes) =
            (tally.received_packets, tally.received_bytes.sum as f64);
        sum.set(
            "accepted_packets_per_ns",
            Value::F64(
                received_packets as f64
                    / tally.received_bytes.count.max(1) as f64
                    / (window_ps as f64 / 1000.0),
            ),
        );
        sum.set(
            "packet_bytes_mean",
            Value::F64(received_bytes / received_packets as f64),
        );
        let (_, util_mean, util_max) = tally
            .link_busy_ps
            .min_mean_max(|busy_ps| busy_ps / window_ps as f64);
        sum.set("link_util_mean", Value::F64(util_mean));
        sum.set("link_util_max", Value::F64(util_max));
        let in_flight_mean = s.in_flight.mean(end_ps);
        let window_latency_mean_ps = if s.window_deliveries == 0 {
            0.0
        } else {
            s.window_latency_sum_ps as f64 / s.window_deliveries as f64
        };
        let littles = s.window_deliveries as f64 / window_ps as f64 * window_latency_mean_ps;
        sum.set("in_flight_packets_mean", Value::F64(in_flight_mean));
        sum.set("littles_law_packets", Value::F64(littles));
        let littles_error = if in_flight_mean > 0.0 {
            (in_flight_mean - littles).abs() / in_flight_mean
        } else {
            0.0
        };
        sum.set("littles_law_error", Value::F64(littles_error));
        sum.set("events", Value::U64(events));
        sum.set("wall_s", Value::F64(wall_s));
        sum.set("events_per_s", Value::F64(events as f64 / wall_s.max(1e-9)));
        sum.set("packet_hops", Value::U64(s.packet_hops));
        sum.set(
            "packet_hops_per_s",
            Value::F64(s.packet_hops as f64 / wall_s.max(1e-9)),
        );
        sum.set(
            "peak_packets",
            Value::U64(self.peak_packets + self.packets.capacity() as u64),
        );
        sum.set("threads", Value::U64(u64::from(engine.threads)));
        sum.set("processes", Value::U64(u64::from(engine.processes)));
        sum.set("windows", Value::U64(engine.windows));
        sum.set(
            "events_per_window",
            Value::F64(events as f64 / engine.windows.max(1) as f64),
        );
        sum.set(
            "barrier_wait_share",
            Value::F64(
                engine.barrier_wait_s
                    / (wall_s * f64::from(engine.threads * engine.processes)).max(1e-9),
            ),
        );
        sum.set(
            "lookahead_ns",
            Value::F64(engine.lookahead_ps.map_or(0.0, |l| l as f64 / PS_PER_NS)),
        );
        let (_, link_bytes_mean, link_bytes_max) = tally.link_bytes.min_mean_max(|bytes| bytes);
        sum.set("link_bytes_mean", Value::F64(link_bytes_mean));
        sum.set("link_bytes_max", Value::F64(link_bytes_max));
        if !burst_ends_ps.is_empty() {
            let times = burst_starts_ps
                .iter()
                .zip(&burst_ends_ps)
                .map(|(s, e)| e - s);
            let (min, mean, max) = min_mean_max(times.map(|t| t as f64 / PS_PER_NS));
            sum.set("bursts", Value::U64(burst_ends_ps.len() as u64));
            sum.set("burst_time_ns_min", Value::F64(min));
            sum.set("burst_time_ns_mean", Value::F64(mean));
            sum.set("burst_time_ns_max", Value::F64(max));
            sum.set(
                "burst_throughput_packets_per_ns",
                Value::F64(s.delivered as f64 / (end_ps as f64 / PS_PER_NS)),
            );
        }
        if let (Some(&min), Some(&max)) = (
            tally.plane_injected_packets.iter().min(),
            tally.plane_injected_packets.iter().max(),
        ) {
            sum.set("plane_packets_injected_min", Value::U64(min));
            sum.set("plane_packets_injected_max", Value::U64(max));
        }
        let endpoints = self.params.nodes;
        let HostResults {
            jobs,
            endpoint_columns: host_endpoint_columns,
        } = self
            .host
            .map(|host| host.results(endpoints, &mut sum))
            .unwrap_or_default();
        let host_endpoint_columns = host_endpoint_columns
            .into_iter()
            .map(|(name, column)| (name, column.select(&rows.nodes)))
            .collect();

        RunOutput {
            summary: sum,
            class_names: self.topology.link_class_names(),
            topology: self.topology,
            ports: self.params.ports,

            nic_link: nic,
            window_ps,
            rows,
            host_endpoint_columns,
            jobs,
            burst_starts_ps,
            burst_ends_ps,
            recorder: self.recorder,
        }
    }
}

/// Each value's index among the distinct values, and the distinct values in order of first use.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> (Vec<u32>, Vec<String>) {
    let mut labels: Vec<String> = Vec::new();
    let codes = values
        .map(|v| match labels.iter().position(|l| l == v) {
            Some(i) => i as u32,
            None => {
                labels.push(v.to_string());
                (labels.len() - 1) as u32
            }
        })
        .collect();
    (codes, labels)
}

/// Bytes of one row of the endpoints or links table: about 16 columns of 8 bytes, built once in
/// the core and once more as Python columns.
const TABLE_ROW_BYTES: u64 = 2 * 16 * 8;

impl RunOutput {
    /// Refuses to build table `name` when its rows would not fit in memory (the links table of
    /// a network of 10^7 routers has 10^8 rows and more: a run's summary fits where its tables
    /// do not).
    pub fn check_table_fits(&self, name: &str) -> Result<(), ConfigError> {
        let rows = match name {
            "endpoints" => self.rows.nodes.len(),
            "links" => {
                self.rows.outputs.len()
                    + self
                        .rows
                        .ports
                        .as_ref()
                        .map_or(self.rows.nodes.len(), |(ids, _)| ids.len())
            }
            _ => return Ok(()),
        } as u64;
        let mut need = Footprint::new();
        need.add("table rows", rows, TABLE_ROW_BYTES);
        need.check("table", format!("{name}: {rows} rows"))
    }

    /// One row per job: completion, volume, communication rate and slowdowns.
    pub fn jobs_table(&self) -> Table {
        let j = &self.jobs;
        let ns = |ps: Time| ps as f64 / PS_PER_NS;
        let opt_ns = |ps: Option<Time>| ps.map_or(f64::NAN, ns);
        // An ideal run of a job without compute or overheads takes no time: no slowdown.
        let slowdown = |base: Option<Time>, job: &JobResult| match base {
            Some(b) if b > 0 => job.completion_ps() as f64 / b as f64,
            _ => f64::NAN,
        };
        let names: Vec<String> = j.iter().map(|x| x.name.clone()).collect();
        let (app_codes, apps) = distinct(j.iter().map(|x| x.app.as_str()));
        let (algorithm_codes, algorithms) = distinct(j.iter().map(|x| x.algorithms.as_str()));
        let mut t = Table::default();
        t.push("job", ColumnData::U32((0..j.len() as u32).collect()));
        t.push_categorical("name", (0..j.len() as u32).collect(), names);
        t.push_categorical("app", app_codes, apps);
        t.push(
            "ranks",
            ColumnData::U32(j.iter().map(|x| x.ranks).collect()),
        );
        t.push(
            "start_ns",
            ColumnData::F64(j.iter().map(|x| ns(x.start_ps)).collect()),
        );
        t.push(
            "end_ns",
            ColumnData::F64(j.iter().map(|x| ns(x.end_ps)).collect()),
        );
        t.push(
            "completion_ns",
            ColumnData::F64(j.iter().map(|x| ns(x.completion_ps())).collect()),
        );
        t.push(
            "bytes_sent",
            ColumnData::U64(j.iter().map(|x| x.bytes_sent).collect()),
        );
        t.push(
            "messages_sent",
            ColumnData::U64(j.iter().map(|x| x.messages_sent).collect()),
        );
        t.push(
            "communication_rate_gbytes_per_s",
            ColumnData::F64(
                j.iter()
                    .map(|x| x.communication_rate_gbytes_per_s())
                    .collect(),
            ),
        );
        t.push_categorical("algorithms", algorithm_codes, algorithms);
        t.push(
            "ideal_completion_ns",
            ColumnData::F64(j.iter().map(|x| opt_ns(x.ideal_ps)).collect()),
        );
        t.push(
            "slowdown_vs_ideal",
            ColumnData::F64(j.iter().map(|x| slowdown(x.ideal_ps, x)).collect()),
        );
        t.push(
            "alone_completion_ns",
            ColumnData::F64(j.iter().map(|x| opt_ns(x.alone_ps)).collect()),
        );
        t.push(
            "slowdown_vs_alone",
            ColumnData::F64(j.iter().map(|x| slowdown(x.alone_ps, x)).collect()),
        );
        t
    }

    /// The recorded traffic matrix: one row per non-zero (src, dst) cell, at the level in the
    /// summary's `traffic_matrix_level` (empty when nothing was recorded).
    pub fn traffic_matrix(&self) -> Table {
        self.recorded(Recorder::matrix_table)
    }

    /// Every endpoint's injected bytes and packets per `record.injection_bin`.
    pub fn injection_series(&self) -> Table {
        self.recorded(|r| r.series_table(self.window_ps))
    }

    /// Packets delivered in the window, by wire size.
    pub fn packet_sizes(&self) -> Table {
        self.recorded(Recorder::sizes_table)
    }

    fn recorded(&self, table: impl Fn(&Recorder) -> Table) -> Table {
        match &self.recorder {
            Some(r) => table(r),
            None => table(&Recorder::default()),
        }
    }

    /// One row per burst: when it started and ended.
    pub fn bursts(&self) -> Table {
        let (starts, ends) = (&self.burst_starts_ps, &self.burst_ends_ps);
        let ns = |ps: Time| ps as f64 / PS_PER_NS;
        let mut t = Table::default();
        t.push("burst", ColumnData::U32((0..ends.len() as u32).collect()));
        t.push(
            "start_ns",
            ColumnData::F64(starts.iter().take(ends.len()).map(|&p| ns(p)).collect()),
        );
        t.push(
            "end_ns",
            ColumnData::F64(ends.iter().map(|&p| ns(p)).collect()),
        );
        t.push(
            "time_ns",
            ColumnData::F64(ends.iter().zip(starts).map(|(&e, &s)| ns(e - s)).collect()),
        );
        t
    }

    /// One row per endpoint (of this process's part, in a run across processes): what it
    /// offered, injected and received in the window.
    pub fn endpoints(&self) -> Table {
        let topo = self.topology.as_ref();
        let rows = &self.rows;
        let c = &rows.node_counters;
        let nic = self.nic_link;
        let w = self.window_ps;
        let u64s = |f: fn(&EndpointCounters) -> u64| ColumnData::U64(c.iter().map(f).collect());
        let loads = |f: fn(&EndpointCounters) -> u64| {
            ColumnData::F64(c.iter().map(|x| load(f(x) as f64, nic, w)).collect())
        };
        let mut t = Table::default();
        t.push("endpoint", ColumnData::U32(rows.nodes.clone()));
        t.push(
            "router",
            ColumnData::U32(
                rows.nodes
                    .iter()
                    .map(|&e| topo.endpoint_attachment(e).0)
                    .collect(),
            ),
        );
        if let Some(torus) = topo.coordinates() {
            for (d, name) in ["coord0", "coord1", "coord2", "coord3", "coord4", "coord5"]
                .iter()
                .enumerate()
                .take(torus.dims().len())
            {
                let coords = rows
                    .nodes
                    .iter()
                    .map(|&e| torus.coord(topo.endpoint_attachment(e).0, d));
                t.push(name, ColumnData::U32(coords.collect()));
            }
        }
        t.push("packets_generated", u64s(|x| x.generated_packets));
        t.push("packets_injected", u64s(|x| x.injected_packets));
        t.push("packets_received", u64s(|x| x.received_packets));
        t.push("bytes_generated", u64s(|x| x.generated_bytes));
        t.push("bytes_injected", u64s(|x| x.injected_bytes));
        t.push("bytes_received", u64s(|x| x.received_bytes));
        t.push("offered_load", loads(|x| x.generated_bytes));
        t.push("injected_load", loads(|x| x.injected_bytes));
        t.push("accepted_load", loads(|x| x.received_bytes));
        let gbytes = nic.bytes_per_s as f64 / 1e9;
        t.push(
            "accepted_gbytes_per_s",
            ColumnData::F64(
                c.iter()
                    .map(|x| load(x.received_bytes as f64, nic, w) * gbytes)
                    .collect(),
            ),
        );
        t.push(
            "latency_ns_mean",
            ColumnData::F64(
                rows.source_latency
                    .iter()
                    .map(|&latency| match latency {
                        (_, 0) => f64::NAN,
                        (sum_ps, count) => sum_ps as f64 / count as f64 / PS_PER_NS,
                    })
                    .collect(),
            ),
        );
        t.push(
            "source_queue_packets",
            ColumnData::U64(rows.source_queue_packets.clone()),
        );
        for (name, data) in &self.host_endpoint_columns {
            t.push(name, data.clone());
        }
        t
    }

    /// One row per unidirectional link (of this process's part, in a run across processes):
    /// router-to-router, router-to-NIC (ejection) and NIC-to-router (injection), with the
    /// traffic it carried in the window.
    pub fn links(&self) -> Table {
        let topo = self.topology.as_ref();
        let nic_class = self.class_names.len() as u32;
        let (mut kind, mut class, mut router, mut port, mut port_name) =
            (vec![], vec![], vec![], vec![], vec![]);
        let (mut peer_router, mut peer_port, mut endpoint) = (vec![], vec![], vec![]);
        let (mut bytes, mut packets, mut busy_ns, mut util) = (vec![], vec![], vec![], vec![]);
        let mut port_names: Vec<String> = Vec::new();
        let mut name_code = |r: u32, p: u16| {
            let name = topo.port_name(r, p);
            match port_names.iter().position(|n| *n == name) {
                Some(i) => i as u32,
                None => {
                    port_names.push(name);
                    (port_names.len() - 1) as u32
                }
            }
        };
        let w = self.window_ps as f64;
        let rows = &self.rows;
        for (index, output) in rows.outputs.iter().enumerate() {
            let counters = &output.counters;
            let r = rows.routers[index / self.ports];
            let p = (index % self.ports) as u16;
            let (k, cl, pr, pp, ep) = match topo.peer(r, p) {
                Peer::Router {
                    router: pr,
                    port: pp,
                } => (
                    0,
                    u32::from(rows.port_class[index]),
                    pr as i32,
                    i32::from(pp),
                    -1,
                ),
                Peer::Endpoint(e) => (2, nic_class, -1, -1, e as i32),
                Peer::Unconnected => continue,
            };
            kind.push(k);
            class.push(cl);
            router.push(r as i32);
            port.push(i32::from(p));
            port_name.push(name_code(r, p));
            peer_router.push(pr);
            peer_port.push(pp);
            endpoint.push(ep);
            bytes.push(counters.bytes);
            packets.push(u64::from(counters.packets));
            busy_ns.push(counters.busy_ps as f64 / PS_PER_NS);
            util.push(counters.busy_ps as f64 / w);
        }
        let (ports, port_counters) = rows
            .ports
            .as_ref()
            .map_or((&rows.nodes, &rows.node_counters), |(ids, c)| (ids, c));
        for (&e, counters) in ports.iter().zip(port_counters) {
            let (r, p) = topo.endpoint_attachment(e);
            kind.push(1);
            class.push(nic_class);
            router.push(-1);
            port.push(-1);
            port_name.push(name_code(r, p));
            peer_router.push(r as i32);
            peer_port.push(i32::from(p));
            endpoint.push(e as i32);
            bytes.push(counters.injected_bytes);
            packets.push(counters.injected_packets);
            busy_ns.push(counters.injected_busy_ps as f64 / PS_PER_NS);
            util.push(counters.injected_busy_ps as f64 / w);
        }
        let mut classes = self.class_names.clone();
        classes.push("nic".to_string());
        let kinds = ["network", "injection", "ejection"]
            .map(String::from)
            .to_vec();
        let mut t = Table::default();
        t.push_categorical("kind", kind, kinds);
        t.push_categorical("class", class, classes);
        t.push("router", ColumnData::I32(router));
        t.push("port", ColumnData::I32(port));
        t.push_categorical("port_name", port_name, port_names);
        t.push("peer_router", ColumnData::I32(peer_router));
        t.push("peer_port", ColumnData::I32(peer_port));
        t.push("endpoint", ColumnData::I32(endpoint));
        t.push("bytes", ColumnData::U64(bytes));
        t.push("packets", ColumnData::U64(packets));
        t.push("busy_ns", ColumnData::F64(busy_ns));
        t.push("util", ColumnData::F64(util));
        t
    }
}
