//! Closed-loop, latency-tolerant hosts (000 ch. 5): every endpoint runs lanes, each a core that
//! executes one thread at a time and switches threads when the running one issues a network
//! operation. A thread computes for `compute_ps`, issues a request/response operation to a
//! destination of the pattern, and goes back to the end of its lane's ready queue while it has
//! fewer than `outstanding_per_thread` operations in flight; otherwise it waits for a
//! response. The run ends when every thread has completed its share of the work (operations per
//! thread, or a total dealt out over all threads), so a slower network makes the application
//! slower.
//!
//! A request arriving at its destination is answered after its class's service time (a remote
//! memory access: no lane runs it). Endpoints always take messages off the network, so
//! requests and responses cannot deadlock each other here (a protocol deadlock needs bounded
//! buffers at the hosts, which this model does not have).
//!
//! A message's token says everything about it, so that a worker that does not own the
//! requester can answer without shared state: bit 31 marks a response, bits 27-30 the class,
//! and the low 27 bits the requester's operation slot (lane, thread, outstanding index).

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::host::{Action, Host, HostCounters, HostNote, HostResults};
use super::program::MAX_JOB_TIME_PS;
use super::DestinationPattern;
use crate::config::ThreadsConfig;
use crate::engine::{entity_stream, EntityRng, Time};
use crate::error::{ConfigError, StalledRank};
use crate::memory::Footprint;
use crate::parallel::SharedArray;
use crate::stats::{ColumnData, LatencyStats, Summary, Value};
use crate::topology::Topology;

const NEVER: Time = Time::MAX;
const RESPONSE: u32 = 1 << 31;
const CLASS_SHIFT: u32 = 27;
/// Operation classes a token can name.
pub const MAX_CLASSES: usize = 16;
/// Operation slots (lanes x threads x outstanding) per endpoint a token can name.
pub const MAX_SLOTS: u64 = 1 << CLASS_SHIFT;
/// Most operations one thread may keep in flight (a slot mask of 64 bits).
pub const MAX_OUTSTANDING: u32 = 64;
/// The threads' random streams, apart from the NICs' and the routers' (keyed by endpoint).
const THREAD_STREAM_SEED: u64 = 0x7468_7265_6164_7321;
const PS_PER_NS: f64 = 1000.0;

/// One kind of operation: a request of `request_bytes` answered, `service_ps` after it has
/// arrived, by a response of `response_bytes`.
#[derive(Debug, Clone, Copy)]
struct OperationClass {
    request_bytes: u64,
    response_bytes: u64,
    service_ps: Time,
}

#[derive(Debug, Clone, Copy, Default)]
struct Thread {
    issued: u32,
    outstanding: u32,
    /// Its free operation slots (bit k: slot k free).
    free_slots: u64,
}

#[derive(Debug, Clone, Copy)]
struct Lane {
    /// When the running thread's compute ends (NEVER: the lane is idle).
    busy_until: Time,
    running: u32,
}

/// One endpoint's lanes and threads.
#[derive(Debug, Clone)]
struct Endpoint {
    lanes: Vec<Lane>,
    /// Per lane, the threads ready to compute, in order (a ring of `threads_per_lane`).
    ready: Vec<std::collections::VecDeque<u32>>,
    threads: Vec<Thread>,
    /// Issue time of each operation slot.
    issued_ps: Vec<Time>,
    rng: EntityRng,
    /// Operations completed and their latencies' sum, and threads that wait for a response
    /// now (none computing or ready).
    completed: u64,
    latency_sum_ps: u128,
    waiting: u64,
    waiting_since: Time,
}

/// What one worker's endpoints did.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct ThreadCounters {
    operations: u64,
    requests_served: u64,
    /// Thread-picoseconds spent waiting for responses.
    waiting_thread_ps: u128,
    latency: LatencyStats,
    /// (endpoint, when it finished, its operations' latency sum) of the finished endpoints.
    finished: Vec<(u32, Time, u128)>,
}

impl ThreadCounters {
    fn merge(&mut self, other: &ThreadCounters) {
        self.operations += other.operations;
        self.requests_served += other.requests_served;
        self.waiting_thread_ps += other.waiting_thread_ps;
        self.latency.merge(&other.latency);
        self.finished.extend_from_slice(&other.finished);
    }
}

/// The closed-loop host of `traffic.kind = "threads"`.
pub struct Threads {
    /// Shared by the workers' copies (a matrix or a permutation can be large).
    pattern: std::sync::Arc<DestinationPattern>,
    /// The pattern draws from the topology (neighbours, groups).
    topology: std::sync::Arc<dyn Topology>,
    classes: Vec<OperationClass>,
    /// Cumulative class weights (empty: one class).
    class_cumulative: Vec<f64>,
    lanes: u32,
    threads_per_lane: u32,
    outstanding: u32,
    compute_ps: Time,
    /// Every thread's share of the work is `quota` operations, one more for the first
    /// `extra` threads of the run (in endpoint, then lane, then thread order).
    quota: u32,
    extra: u64,
    endpoints: SharedArray<Endpoint>,
    counters: ThreadCounters,
}

fn error(key: &str, value: impl ToString, expected: impl Into<String>) -> ConfigError {
    ConfigError::new(
        &format!("traffic.{key}"),
        value.to_string(),
        expected.into(),
    )
}

impl Threads {
    pub fn build(
        config: &ThreadsConfig,
        topology: std::sync::Arc<dyn Topology>,
        seed: u64,
    ) -> Result<Threads, ConfigError> {
        let t = topology.as_ref();
        for (key, value) in [
            ("lanes_per_endpoint", config.lanes_per_endpoint),
            ("threads_per_lane", config.threads_per_lane),
        ] {
            if value == 0 {
                return Err(error(key, value, "at least 1"));
            }
        }
        if !(1..=MAX_OUTSTANDING).contains(&config.outstanding_per_thread) {
            return Err(error(
                "outstanding_per_thread",
                config.outstanding_per_thread,
                format!("between 1 (a thread waits for each operation) and {MAX_OUTSTANDING}"),
            ));
        }
        let slots = u64::from(config.lanes_per_endpoint)
            * u64::from(config.threads_per_lane)
            * u64::from(config.outstanding_per_thread);
        if slots >= MAX_SLOTS {
            return Err(error(
                "threads_per_lane",
                config.threads_per_lane,
                format!(
                    "lanes_per_endpoint x threads_per_lane x outstanding_per_thread below \
                     {MAX_SLOTS} (now {slots}): a message names its operation in 27 bits"
                ),
            ));
        }
        if config.operations.is_empty() || config.operations.len() > MAX_CLASSES {
            return Err(error(
                "operations",
                format!("{} classes", config.operations.len()),
                format!("between 1 and {MAX_CLASSES} operation classes"),
            ));
        }
        if let Some(bad) = config
            .operations
            .iter()
            .find(|c| !(c.weight.is_finite() && c.weight > 0.0))
        {
            return Err(error(
                "operations.weight",
                bad.weight,
                "a finite weight > 0 for every class",
            ));
        }
        let run_threads = u64::from(t.num_endpoints())
            * u64::from(config.lanes_per_endpoint)
            * u64::from(config.threads_per_lane);
        let (quota, extra) = match (config.operations_per_thread, config.operations_total) {
            (per_thread, 0) if per_thread > 0 => (per_thread, 0),
            (0, total) if total > 0 => {
                let quota = total / run_threads + u64::from(total % run_threads > 0);
                if quota > u64::from(u32::MAX) {
                    return Err(error(
                        "operations_total",
                        total,
                        format!(
                            "at most {} x the run's {run_threads} threads: a thread counts its \
                             operations in 32 bits",
                            u32::MAX
                        ),
                    ));
                }
                ((total / run_threads) as u32, total % run_threads)
            }
            (per_thread, total) => {
                return Err(error(
                    "operations_per_thread",
                    format!("{per_thread} (operations_total {total})"),
                    "exactly one of operations_per_thread and operations_total, at least 1",
                ))
            }
        };
        let most_per_thread = quota + u32::from(extra > 0);
        // A lane's compute runs one thread at a time, and each thread's operations one after
        // another wait at least their service: bounded, the 64-bit picosecond clock cannot wrap.
        let longest_service = config.operations.iter().map(|c| c.service_ps).max();
        let lane_ps = u128::from(most_per_thread)
            * (u128::from(config.threads_per_lane) * u128::from(config.compute_ps)
                + u128::from(longest_service.unwrap_or(0)));
        if lane_ps > u128::from(MAX_JOB_TIME_PS) {
            return Err(error(
                "compute",
                format!("{} ps", config.compute_ps),
                format!(
                    "operations_per_thread x (threads_per_lane x compute + the longest service) \
                     at most {MAX_JOB_TIME_PS} ps (10^6 s; now {lane_ps} ps), so that the \
                     simulated clock cannot overflow"
                ),
            ));
        }
        let endpoints = t.num_endpoints();
        if endpoints < 2 {
            return Err(error(
                "kind",
                "threads",
                "a topology of at least 2 endpoints: operations go to other endpoints",
            ));
        }
        let per_endpoint = std::mem::size_of::<Endpoint>() as u64
            + u64::from(config.lanes_per_endpoint) * 24
            + u64::from(config.lanes_per_endpoint) * u64::from(config.threads_per_lane) * 20
            + slots * 8;
        Footprint::new()
            .add("thread states", u64::from(endpoints), per_endpoint)
            .check(
                "traffic.threads_per_lane",
                format!(
                    "{} lanes of {} threads, {} outstanding each, on {endpoints} endpoints",
                    config.lanes_per_endpoint,
                    config.threads_per_lane,
                    config.outstanding_per_thread
                ),
            )?;
        let pattern = DestinationPattern::build(
            config.pattern,
            t,
            seed,
            &config.hotspot_endpoints,
            config.hotspot_fraction,
            config.matrix.as_ref(),
        )?;
        pattern.require_every_row("every endpoint's threads issue operations")?;
        let classes = config
            .operations
            .iter()
            .map(|c| OperationClass {
                request_bytes: c.request_bytes,
                response_bytes: c.response_bytes,
                service_ps: c.service_ps,
            })
            .collect();
        let class_cumulative = if config.operations.len() > 1 {
            config
                .operations
                .iter()
                .scan(0.0, |sum, c| {
                    *sum += c.weight;
                    Some(*sum)
                })
                .collect()
        } else {
            Vec::new()
        };
        let states: Vec<Endpoint> = (0..endpoints)
            .map(|e| Endpoint {
                lanes: Vec::new(),
                ready: Vec::new(),
                threads: Vec::new(),
                issued_ps: Vec::new(),
                rng: entity_stream(seed ^ THREAD_STREAM_SEED, u64::from(e)),
                completed: 0,
                latency_sum_ps: 0,
                waiting: 0,
                waiting_since: 0,
            })
            .collect();
        Ok(Threads {
            pattern: std::sync::Arc::new(pattern),
            topology,
            classes,
            class_cumulative,
            lanes: config.lanes_per_endpoint,
            threads_per_lane: config.threads_per_lane,
            outstanding: config.outstanding_per_thread,
            compute_ps: config.compute_ps,
            quota,
            extra,
            endpoints: SharedArray::new(states),
            counters: ThreadCounters::default(),
        })
    }

    fn all_free_slots(&self) -> u64 {
        if self.outstanding == 64 {
            u64::MAX
        } else {
            (1u64 << self.outstanding) - 1
        }
    }

    fn threads_per_endpoint(&self) -> u64 {
        u64::from(self.lanes) * u64::from(self.threads_per_lane)
    }

    /// Operations thread `thread` of endpoint `e` completes.
    fn thread_quota(&self, e: u32, thread: u32) -> u32 {
        let run_index = u64::from(e) * self.threads_per_endpoint() + u64::from(thread);
        self.quota + u32::from(run_index < self.extra)
    }

    /// Operations endpoint `e`'s threads complete.
    fn endpoint_quota(&self, e: u32) -> u64 {
        let per_endpoint = self.threads_per_endpoint();
        let first = u64::from(e) * per_endpoint;
        per_endpoint * u64::from(self.quota) + self.extra.saturating_sub(first).min(per_endpoint)
    }

    fn total_operations(&self) -> u64 {
        self.endpoints.held().len() as u64 * self.threads_per_endpoint() * u64::from(self.quota)
            + self.extra
    }

    /// Starts the next ready thread of lane `lane` of endpoint `e` at `now`, if the lane is idle.
    fn dispatch(&mut self, now: Time, e: u32, lane: u32, out: &mut Vec<Action>) {
        let compute_ps = self.compute_ps;
        let ep = &mut self.endpoints[e as usize];
        let l = &mut ep.lanes[lane as usize];
        if l.busy_until != NEVER {
            return;
        }
        if let Some(thread) = ep.ready[lane as usize].pop_front() {
            l.running = thread;
            l.busy_until = now + compute_ps;
            out.push(Action::Wake {
                at: l.busy_until,
                endpoint: e,
                tag: lane,
            });
        }
    }

    /// Endpoint `e` completed its work at `now`, its operations' latencies summing to
    /// `latency_sum_ps`.
    fn finish_endpoint(&mut self, e: u32, now: Time, latency_sum_ps: u128) {
        self.counters.finished.push((e, now, latency_sum_ps));
    }

    /// Changes endpoint `e`'s count of waiting threads by `delta` at `now`.
    fn set_waiting(&mut self, now: Time, e: u32, delta: i64) {
        let ep = &mut self.endpoints[e as usize];
        self.counters.waiting_thread_ps +=
            u128::from(ep.waiting) * u128::from(now - ep.waiting_since);
        ep.waiting = ep.waiting.wrapping_add_signed(delta);
        ep.waiting_since = now;
    }

    /// The class of the next operation.
    fn draw_class(class_cumulative: &[f64], rng: &mut EntityRng) -> usize {
        match class_cumulative.last() {
            None => 0,
            Some(&total) => {
                let x = rng.random::<f64>() * total;
                class_cumulative
                    .iter()
                    .position(|&c| x < c)
                    .unwrap_or(class_cumulative.len() - 1)
            }
        }
    }
}

impl Host for Threads {
    fn start(&mut self, owns: &dyn Fn(u32) -> bool, out: &mut Vec<Action>) {
        let threads = (self.lanes * self.threads_per_lane) as usize;
        let slots = threads * self.outstanding as usize;
        let all_free = self.all_free_slots();
        for e in 0..self.endpoints.held().len() as u32 {
            if !owns(e) {
                continue;
            }
            if self.endpoint_quota(e) == 0 {
                // A total smaller than the threads leaves the last endpoints no work.
                self.finish_endpoint(e, 0, 0);
                continue;
            }
            let quotas: Vec<u32> = (0..threads as u32)
                .map(|thread| self.thread_quota(e, thread))
                .collect();
            let ep = &mut self.endpoints[e as usize];
            ep.lanes = vec![
                Lane {
                    busy_until: NEVER,
                    running: 0,
                };
                self.lanes as usize
            ];
            ep.ready = (0..self.lanes)
                .map(|lane| {
                    let first = lane * self.threads_per_lane;
                    (first..first + self.threads_per_lane)
                        .filter(|&thread| quotas[thread as usize] > 0)
                        .collect()
                })
                .collect();
            ep.threads = vec![
                Thread {
                    free_slots: all_free,
                    ..Thread::default()
                };
                threads
            ];
            ep.issued_ps = vec![0; slots];
            for lane in 0..self.lanes {
                self.dispatch(0, e, lane, out);
            }
        }
    }

    fn wake(&mut self, now: Time, e: u32, lane: u32, out: &mut Vec<Action>) {
        let outstanding = self.outstanding;
        let l = &self.endpoints[e as usize].lanes[lane as usize];
        if l.busy_until != now {
            return;
        }
        let thread = l.running;
        let per_thread = self.thread_quota(e, thread);
        let ep = &mut self.endpoints[e as usize];
        ep.lanes[lane as usize].busy_until = NEVER;
        let class = Self::draw_class(&self.class_cumulative, &mut ep.rng);
        let dst = self
            .pattern
            .destination(e, self.topology.as_ref(), &mut ep.rng);
        let t = &mut ep.threads[thread as usize];
        let k = t.free_slots.trailing_zeros();
        t.free_slots &= !(1u64 << k);
        t.issued += 1;
        t.outstanding += 1;
        let slot = thread * outstanding + k;
        ep.issued_ps[slot as usize] = now;
        let goes_on = t.issued < per_thread && t.outstanding < outstanding;
        if goes_on {
            ep.ready[lane as usize].push_back(thread);
        }
        out.push(Action::Send {
            ready_ps: now,
            src: e,
            dst,
            bytes: self.classes[class].request_bytes,
            token: (class as u32) << CLASS_SHIFT | slot,
        });
        if !goes_on {
            self.set_waiting(now, e, 1);
        }
        self.dispatch(now, e, lane, out);
    }

    fn sent(&mut self, _now: Time, _token: u32, _tail_ps: Time, _out: &mut Vec<Action>) {}

    fn packet_arrived(&mut self, _token: u32, _packets: u32) -> Option<bool> {
        None
    }

    fn arrived(&mut self, now: Time, src: u32, dst: u32, token: u32, out: &mut Vec<Action>) {
        let class = ((token & !RESPONSE) >> CLASS_SHIFT) as usize;
        if token & RESPONSE == 0 {
            let c = self.classes[class];
            self.counters.requests_served += 1;
            out.push(Action::Send {
                ready_ps: now + c.service_ps,
                src: dst,
                dst: src,
                bytes: c.response_bytes,
                token: token | RESPONSE,
            });
            return;
        }
        let slot = token & (MAX_SLOTS as u32 - 1);
        let (thread, k) = (slot / self.outstanding, slot % self.outstanding);
        let lane = thread / self.threads_per_lane;
        let outstanding = self.outstanding;
        let per_thread = self.thread_quota(dst, thread);
        let per_endpoint = self.endpoint_quota(dst);
        let ep = &mut self.endpoints[dst as usize];
        let latency = now - ep.issued_ps[slot as usize];
        self.counters.latency.record(latency);
        ep.latency_sum_ps += u128::from(latency);
        self.counters.operations += 1;
        ep.completed += 1;
        let t = &mut ep.threads[thread as usize];
        let was_waiting = t.outstanding == outstanding || t.issued == per_thread;
        t.outstanding -= 1;
        t.free_slots |= 1u64 << k;
        let resumes = t.issued < per_thread;
        let thread_done = t.issued == per_thread && t.outstanding == 0;
        if was_waiting && resumes {
            ep.ready[lane as usize].push_back(thread);
        }
        let endpoint_done = ep.completed == per_endpoint;
        let latency_sum_ps = ep.latency_sum_ps;
        if was_waiting && (resumes || thread_done) {
            self.set_waiting(now, dst, -1);
        }
        if endpoint_done {
            self.finish_endpoint(dst, now, latency_sum_ps);
        }
        self.dispatch(now, dst, lane, out);
    }

    fn message_class(&self, token: u32) -> u8 {
        u8::from(token & RESPONSE != 0)
    }

    fn common_message_bytes(&self, _mtu_bytes: u64) -> Vec<u64> {
        self.classes
            .iter()
            .flat_map(|c| [c.request_bytes, c.response_bytes])
            .collect()
    }

    fn note_for(&self, _token: u32) -> Option<HostNote> {
        None
    }

    fn take_notes(&mut self) -> Vec<(u32, HostNote)> {
        Vec::new()
    }

    fn accept(&mut self, _note: HostNote) {}

    unsafe fn worker(&self, _me: u32, _parts: u32) -> Box<dyn Host> {
        Box::new(Threads {
            pattern: std::sync::Arc::clone(&self.pattern),
            topology: std::sync::Arc::clone(&self.topology),
            classes: self.classes.clone(),
            class_cumulative: self.class_cumulative.clone(),
            lanes: self.lanes,
            threads_per_lane: self.threads_per_lane,
            outstanding: self.outstanding,
            compute_ps: self.compute_ps,
            quota: self.quota,
            extra: self.extra,
            // SAFETY: each worker touches only the endpoints it owns (the caller's promise).
            endpoints: self.endpoints.view(),
            counters: ThreadCounters::default(),
        })
    }

    fn counters(&self) -> HostCounters {
        HostCounters::Threads(Box::new(self.counters.clone()))
    }

    fn absorb(&mut self, counters: &HostCounters) {
        if let HostCounters::Threads(theirs) = counters {
            self.counters.merge(theirs);
        }
    }

    fn finished(&self) -> bool {
        self.counters.operations == self.total_operations()
    }

    fn stuck(&self, owns: &dyn Fn(u32) -> bool) -> Vec<(u32, StalledRank)> {
        (0..self.endpoints.held().len() as u32)
            .filter(|&e| owns(e))
            .filter_map(|e| {
                let per_endpoint = self.endpoint_quota(e);
                let ep = &self.endpoints[e as usize];
                (ep.completed < per_endpoint).then(|| {
                    let in_flight: u32 = ep.threads.iter().map(|t| t.outstanding).sum();
                    (
                        e,
                        StalledRank {
                            job: "threads".into(),
                            rank: e,
                            operation: ep.completed as u32,
                            waiting_for: format!(
                                "{in_flight} operations in flight, {} of {per_endpoint} completed",
                                ep.completed
                            ),
                        },
                    )
                })
            })
            .collect()
    }

    fn results(self: Box<Self>, endpoints: u32, summary: &mut Summary) -> HostResults {
        let c = &self.counters;
        let ns = |ps: f64| ps / PS_PER_NS;
        let lanes = f64::from(self.lanes) * f64::from(endpoints);
        // Every endpoint's completion, from the finished endpoints' records.
        let done = c.finished.iter().map(|&(_, done_ps, _)| done_ps);
        let done_max = done.clone().max().unwrap_or(0);
        let completion_ps = done_max.max(1) as f64;
        summary.set("operations", Value::U64(c.operations));
        summary.set("requests_served", Value::U64(c.requests_served));
        summary.set("completion_ns", Value::F64(ns(done_max as f64)));
        summary.set(
            "endpoint_completion_ns_min",
            Value::F64(ns(done.clone().min().unwrap_or(0) as f64)),
        );
        let done_sum: u128 = done.map(u128::from).sum();
        summary.set(
            "endpoint_completion_ns_mean",
            Value::F64(ns(done_sum as f64 / c.finished.len().max(1) as f64)),
        );
        summary.set(
            "operations_per_us_per_endpoint",
            Value::F64(c.operations as f64 / f64::from(endpoints) / (completion_ps / 1e6)),
        );
        summary.set(
            "lane_busy_fraction",
            Value::F64(c.operations as f64 * self.compute_ps as f64 / (lanes * completion_ps)),
        );
        summary.set(
            "threads_waiting_mean",
            Value::F64(c.waiting_thread_ps as f64 / (lanes * completion_ps)),
        );
        summary.set(
            "operation_latency_ns_mean",
            Value::F64(ns(c.latency.mean_ps())),
        );
        let [p50, p99] = c.latency.quantiles_ps([0.5, 0.99]);
        summary.set("operation_latency_ns_p50", Value::F64(ns(p50)));
        summary.set("operation_latency_ns_p99", Value::F64(ns(p99)));
        summary.set(
            "operation_latency_ns_max",
            Value::F64(ns(c.latency.max_ps())),
        );
        let n = endpoints as usize;
        let (mut completion_ns, mut latency_ns) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        let mut ops_per_us = vec![f64::NAN; n];
        for &(e, done_ps, latency_sum_ps) in &c.finished {
            let operations = self.endpoint_quota(e) as f64;
            completion_ns[e as usize] = ns(done_ps as f64);
            if operations > 0.0 {
                latency_ns[e as usize] = ns(latency_sum_ps as f64 / operations);
                ops_per_us[e as usize] = operations / (done_ps as f64 / 1e6);
            }
        }
        HostResults {
            jobs: Vec::new(),
            endpoint_columns: vec![
                ("completion_ns", ColumnData::F64(completion_ns)),
                ("operations_per_us", ColumnData::F64(ops_per_us)),
                ("operation_latency_ns_mean", ColumnData::F64(latency_ns)),
            ],
        }
    }
}
