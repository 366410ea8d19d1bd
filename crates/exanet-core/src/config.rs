//! The core's configuration, in core units (picoseconds, bytes, bytes per second). The Python
//! layer validates user input and produces exactly this shape (docs/core-interface.md).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use serde::Deserialize;

use crate::error::ConfigError;
pub use crate::topology::{Arrangement, PlaneWiring};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub seed: u64,
    pub topology: TopologyConfig,
    pub routing: RoutingConfig,
    pub router: RouterConfig,
    pub links: LinksConfig,
    pub nic: NicConfig,
    pub traffic: TrafficConfig,
    pub run: RunConfig,
    /// What to record beyond the summary and the endpoint and link tables.
    #[serde(default)]
    pub record: crate::network::RecordConfig,
    /// Workers of the parallel engine (1: sequential). Results do not depend on it.
    #[serde(default = "one_thread")]
    pub threads: u32,
    /// The part (worker) of every router for the parallel engine; empty: the default partition.
    #[serde(default)]
    pub partition: Vec<u32>,
    /// A hash of the config's JSON (key order and spacing aside), by which the processes of
    /// a run across processes check that they were all given the same config.
    #[serde(skip)]
    pub fingerprint: u64,
}

fn one_thread() -> u32 {
    1
}

fn one_port() -> u32 {
    1
}

fn separate_planes() -> PlaneWiring {
    PlaneWiring::Separate
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    Torus {
        dims: Vec<u32>,
        concentration: u32,
    },
    Mesh {
        dims: Vec<u32>,
        concentration: u32,
    },
    Midimew {
        nodes: u32,
        concentration: u32,
    },
    FatTree {
        levels: u32,
        radix: u32,
        pods: u32,
        taper: [u32; 2],
        /// NIC ports per node, and how they are wired (docs/topologies.md).
        #[serde(default = "one_port")]
        planes: u32,
        #[serde(default = "separate_planes")]
        plane_wiring: PlaneWiring,
    },
    Dragonfly {
        p: u32,
        a: u32,
        h: u32,
        g: u32,
        arrangement: Arrangement,
    },
    DragonflyRc {
        p: u32,
        rows: u32,
        cols: u32,
        local_links: u32,
        h: u32,
        g: u32,
        arrangement: Arrangement,
    },
    DragonflyPlus {
        p: u32,
        leaves: u32,
        spines: u32,
        h: u32,
        g: u32,
        arrangement: Arrangement,
    },
    SlimFly {
        q: u32,
        p: u32,
    },
    Polarfly {
        q: u32,
        p: u32,
    },
    Jellyfish {
        routers: u32,
        degree: u32,
        p: u32,
        seed: u64,
    },
    Fishnet {
        base: BaseGraph,
        p: u32,
    },
    FishnetLite {
        base: BaseGraph,
        p: u32,
    },
    ExpressMesh {
        dims: Vec<u32>,
        gap: u32,
        concentration: u32,
    },
    Custom {
        graph: CustomGraph,
        endpoints: Vec<u32>,
    },
}

impl TopologyConfig {
    /// For a network of disjoint planes: one plane's config, and the number of planes.
    pub fn single_plane(&self) -> Option<(TopologyConfig, u32)> {
        let TopologyConfig::FatTree {
            planes: count @ 2..,
            plane_wiring: PlaneWiring::Separate,
            ..
        } = *self
        else {
            return None;
        };
        let mut plane = self.clone();
        if let TopologyConfig::FatTree { planes, .. } = &mut plane {
            *planes = 1;
        }
        Some((plane, count))
    }
}

/// The diameter-2 graph a Fishnet is built from.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BaseGraph {
    Petersen,
    HoffmanSingleton,
    SlimFly { q: u32 },
    Custom { graph: CustomGraph },
}

/// A user's router graph: links as (a, b, class index) triples.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomGraph {
    pub routers: u32,
    pub links: Vec<[u32; 3]>,
    pub class_names: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RoutingConfig {
    Dor {
        allow_unsafe: bool,
        /// How a torus hop picks its VC class (docs/routing.md).
        #[serde(default)]
        vc_rule: VcRule,
    },
    Minimal {
        #[serde(default)]
        selection: Selection,
        #[serde(default)]
        escape: Escape,
        /// Fraction of one VC buffer another way must have free beyond the first (oblivious)
        /// one before an adaptive router takes it: by default 0.5, and 0 with an escape
        /// sub-network, whose first way is the escape's dimension order (see
        /// `RoutingConfig::minimal_threshold`).
        #[serde(default)]
        threshold: Option<f64>,
    },
    Valiant {},
    UgalL {
        /// Queued bytes (a fraction of one VC buffer) added to the non-minimal way's queue:
        /// the bias toward minimal routes.
        #[serde(default)]
        threshold: f64,
    },
    /// UGAL-G: as UGAL-L, weighing each way by the queues along its whole route.
    UgalG {
        #[serde(default)]
        threshold: f64,
    },
    /// Progressive adaptive routing (dragonflies, Fishnets): UGAL-L at the source and once
    /// more after the first local hop.
    Par {
        #[serde(default)]
        threshold: f64,
    },
    /// The Fishnet-tailored adaptive scheme (001 §3.1.2).
    FishnetAdaptive {
        #[serde(default)]
        threshold: f64,
    },
    /// Source routing: each path lists the routers a packet visits, first to last; a packet
    /// from the first to the last router takes one of the paths given for that pair (by its
    /// random bits), other pairs route minimally.
    Source {
        paths: Vec<Vec<u32>>,
    },
}

impl RoutingConfig {
    /// Minimal routing's selection threshold: as given, else 0.5 without an escape
    /// sub-network (the fat-tree evidence in docs/routing.md) and 0 with one. There the first
    /// way is the escape's dimension-order port, and a bias toward it made the adaptive router
    /// route like dimension order: on 002's 32x32 torus under transpose it accepted 0.065 of an
    /// offered 0.1 with 0.5 (the dimension-order channel bound), 0.097 with 0.
    pub fn minimal_threshold(threshold: Option<f64>, escape: Escape) -> f64 {
        threshold.unwrap_or(if escape == Escape::None { 0.5 } else { 0.0 })
    }
}

/// How minimal routing picks among the ports one hop closer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The port with the most credits (local congestion).
    #[default]
    Adaptive,
    /// One port by the packet's random bits, afresh at every hop (oblivious).
    Random,
    /// One port by the destination (D-mod-k on a fat-tree: deterministic, spreads
    /// destinations over the up-ports).
    Destination,
}

/// How dimension-order routing on a torus picks the VC class of a hop (docs/routing.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VcRule {
    /// Class 0 until the packet takes the dimension's wrap-around link, class 1 from it on.
    #[default]
    Dateline,
    /// Class 1 when the destination's coordinate in the hop's dimension is greater than the
    /// current router's, else class 0: the e-cube virtual lanes of Liu et al.'s ROSS torus model.
    DigitCompare,
}

/// How minimal adaptive routing on a torus or mesh stays deadlock-free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Escape {
    /// No escape sub-network: VC i carries hop i (any topology).
    #[default]
    None,
    /// Duato: adaptive VCs plus an escape sub-network of dimension-order routing on its own
    /// VCs (two dateline classes on a torus, one on a mesh).
    Dor,
    /// Adaptive VCs plus one escape VC of dimension-order routing kept deadlock-free by bubble
    /// flow control: entering a ring needs room for two packets.
    Bubble,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    RoundRobin,
    Age,
}

/// Which message class wins an output when both compete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Arbitration ignores the class.
    #[default]
    None,
    /// Responses before requests, strictly, at every output and ejection port.
    Responses,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    pub vcs: u32,
    pub vc_buffer_bytes: u64,
    /// Head arrival to the earliest departure: the input side (route, allocate, cross).
    pub latency_ps: u64,
    /// Grant to the head's departure onto the output link: the output side; it delays the
    /// packet, not the link (Merlin's hr_router output_latency).
    #[serde(default)]
    pub output_latency_ps: u64,
    pub arbitration: Arbitration,
    /// In-transit-priority restriction (002): the probability, per arbitration, that an
    /// injected packet may win an output only when no in-transit packet competes for it.
    pub in_transit_priority: f64,
    /// Packets a router may forward per second over all its outputs, ejection included,
    /// enforced per window of `packet_rate_window_ps` (0: no limit; 000 §2.3's switch rates).
    #[serde(default)]
    pub packet_rate_per_s: u64,
    #[serde(default)]
    pub packet_rate_window_ps: u64,
    /// Message classes that get VCs of their own (1: all share; 2: requests take the lower
    /// half of the VCs, responses the upper half).
    #[serde(default = "one")]
    pub message_classes: u32,
    #[serde(default)]
    pub priority: Priority,
}

impl RouterConfig {
    /// VCs of one message class: what the routing plans its VC classes in (the message
    /// classes are disjoint copies of that plan, so a plan free of deadlock stays so).
    pub fn class_vcs(&self) -> u32 {
        self.vcs / self.message_classes.max(1)
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub latency_ps: u64,
    pub bandwidth_bytes_per_s: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinksConfig {
    pub default: LinkParams,
    #[serde(default)]
    pub classes: BTreeMap<String, LinkParams>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicConfig {
    pub injection_bandwidth_bytes_per_s: u64,
    pub injection_latency_ps: u64,
    pub mtu_bytes: u64,
    pub header_bytes: u64,
    /// Injection throttle: packets a NIC may have in the network at once (0: no limit).
    #[serde(default)]
    pub max_outstanding_packets: u32,
    /// Injection-limited NIC (000 §3.5): a queued message may leave only this long after it
    /// was queued.
    #[serde(default)]
    pub eligibility_delay_ps: u64,
    /// Injection-limited NIC: wire bytes the NIC may start sending within each window of
    /// `injection_cap_window_ps` (windows aligned at time 0; 0: no cap).
    #[serde(default)]
    pub injection_cap_bytes: u64,
    #[serde(default)]
    pub injection_cap_window_ps: u64,
    /// Packets a NIC may start per second, enforced per window of `injection_cap_window_ps`
    /// (0: no limit; 000 §2.3's NIC rates).
    #[serde(default)]
    pub packet_rate_per_s: u64,
    /// Router input VCs a NIC's packets may enter, VCs 0 to n - 1 (0: every VC). 1 models a
    /// router with one injection queue per NIC.
    #[serde(default)]
    pub injection_vcs: u32,
    /// How a node with several NIC ports spreads its messages over them.
    #[serde(default)]
    pub striping: Striping,
}

/// How a node with several NIC ports (a multi-plane or rail-optimized network) spreads its
/// messages: whole messages round-robin over the ports, or each message's packets round-robin
/// (packet i on port i mod P). A port sends to the same port of the destination node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Striping {
    #[default]
    Message,
    Packet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    Uniform,
    Transpose,
    Shuffle,
    BitReverse,
    BitComplement,
    Tornado,
    Neighbor,
    RandomPermutation,
    Hotspot,
    GroupShift,
    /// Destinations drawn from the rows of a traffic matrix.
    Matrix,
}

/// What the fixed points of a permutation pattern (transpose's diagonal, shuffle's 0 and
/// N - 1) do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixedPoints {
    /// Send to themselves, through their router.
    #[default]
    Send,
    /// Stay silent, as in Izu et al. (002).
    Silent,
}

/// Message sizes of synthetic and burst traffic: one size, or a mix drawn per message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum PacketSizes {
    One(u64),
    Mix(Vec<SizeShare>),
}

/// One size of a mix and its relative weight (weights need not sum to 1).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeShare {
    pub bytes: u64,
    pub weight: f64,
}

impl PacketSizes {
    pub fn shares(&self) -> Vec<SizeShare> {
        match self {
            PacketSizes::One(bytes) => vec![SizeShare {
                bytes: *bytes,
                weight: 1.0,
            }],
            PacketSizes::Mix(mix) => mix.clone(),
        }
    }
}

/// A traffic matrix in sparse form: entry i says `src[i]` sends to `dst[i]` with relative
/// weight `weight[i]` (bytes, packets or any unit: only proportions matter).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficMatrix {
    /// Side of a dense matrix, which must be the number of endpoints (None for a sparse one,
    /// whose ids need only be endpoints).
    #[serde(default)]
    pub endpoints: Option<u32>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub weight: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Process {
    Bernoulli,
    Poisson,
    /// Two-state Markov on/off: geometric bursts of `burst_length` messages on average, sent
    /// back to back, and geometric idle periods whose mean gives the load.
    OnOff,
    /// On/off with Pareto-distributed bursts and idle periods of shape `pareto_alpha`: the
    /// aggregate of many such sources is self-similar, Hurst H = (3 - alpha) / 2.
    ParetoOnOff,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficConfig {
    Synthetic {
        pattern: Pattern,
        process: Process,
        load: f64,
        /// Mean messages per on-period of an on/off process.
        #[serde(default)]
        burst_length: Option<f64>,
        /// Shape of the Pareto on and off periods of `pareto_on_off`, in (1, 2).
        #[serde(default)]
        pareto_alpha: Option<f64>,
        packet_bytes: PacketSizes,
        #[serde(default)]
        hotspot_endpoints: Vec<u32>,
        #[serde(default)]
        hotspot_fraction: f64,
        #[serde(default)]
        matrix: Option<TrafficMatrix>,
        #[serde(default)]
        fixed_points: FixedPoints,
    },
    /// Burst-synchronized sources (002): every endpoint sends `packets_per_burst` packets as
    /// fast as the network accepts them; a burst ends when all have arrived, and the next
    /// starts `restart_delay_ps` later (the news of the end reaching every endpoint), until
    /// `bursts` have run.
    Burst {
        pattern: Pattern,
        packet_bytes: PacketSizes,
        packets_per_burst: u32,
        bursts: u32,
        #[serde(default = "default_restart_delay_ps")]
        restart_delay_ps: u64,
        #[serde(default)]
        hotspot_endpoints: Vec<u32>,
        #[serde(default)]
        hotspot_fraction: f64,
        #[serde(default)]
        matrix: Option<TrafficMatrix>,
        #[serde(default)]
        fixed_points: FixedPoints,
    },
    /// Message-passing jobs sharing the machine.
    Jobs(JobsConfig),
    /// Closed-loop, latency-tolerant threads issuing request/response operations (000 ch. 5).
    Threads(ThreadsConfig),
}

/// `traffic.kind = "threads"`: see [`crate::workload::Threads`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadsConfig {
    pub pattern: Pattern,
    #[serde(default)]
    pub hotspot_endpoints: Vec<u32>,
    #[serde(default)]
    pub hotspot_fraction: f64,
    #[serde(default)]
    pub matrix: Option<TrafficMatrix>,
    pub lanes_per_endpoint: u32,
    pub threads_per_lane: u32,
    /// Operations a thread may have in flight before it waits (intra-thread parallelism).
    pub outstanding_per_thread: u32,
    /// Compute time before each operation.
    pub compute_ps: u64,
    /// The work: operations per thread, or in all, dealt out evenly over every thread of the
    /// run (the first threads one more); exactly one of them is given (0: not given).
    #[serde(default)]
    pub operations_per_thread: u32,
    #[serde(default)]
    pub operations_total: u64,
    pub operations: Vec<OperationClassConfig>,
}

/// One class of request/response operation, drawn by relative weight.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationClassConfig {
    pub weight: f64,
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Time from the request's arrival to the response being ready to leave.
    pub service_ps: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsConfig {
    pub jobs: Vec<JobConfig>,
    /// Of the jobs without an eager limit of their own.
    pub eager_limit_bytes: u64,
    pub send_overhead_ps: u64,
    pub recv_overhead_ps: u64,
    /// Also run every job alone on the machine (same placement) for its slowdown.
    #[serde(default)]
    pub alone: bool,
    /// Where collectives with algorithm "auto" change algorithm.
    #[serde(default)]
    pub collective_thresholds: crate::workload::collectives::Thresholds,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobConfig {
    pub name: String,
    pub app: crate::workload::App,
    pub ranks: u32,
    #[serde(default)]
    pub message_bytes: u64,
    #[serde(default = "one")]
    pub iterations: u32,
    #[serde(default)]
    pub compute_ps: u64,
    #[serde(default)]
    pub algorithm: Option<crate::workload::Algorithm>,
    #[serde(default)]
    pub grid: Vec<u32>,
    #[serde(default)]
    pub partners: u32,
    /// Explicit operations (app "program").
    #[serde(default)]
    pub ops: Option<crate::workload::OpColumns>,
    pub placement: Placement,
    #[serde(default)]
    pub start_ps: u64,
    /// The job's own eager limit (the protocol its trace's producer assumed).
    #[serde(default)]
    pub eager_limit_bytes: Option<u64>,
}

fn one() -> u32 {
    1
}

/// Which endpoints a job's ranks run on (rank i on the i-th endpoint chosen).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Placement {
    /// The lowest-numbered free endpoints, in order.
    Linear,
    /// Free endpoints drawn at random.
    RandomEndpoints,
    /// Routers drawn at random, each filled with ranks before the next.
    RandomRouters,
    /// Groups (dragonfly groups, Slim Fly racks, fat-tree pods, ...) drawn at random, each
    /// filled before the next.
    RandomGroups,
    /// Explicit: rank i on `endpoints[i]`.
    Map { endpoints: Vec<u32> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Drain {
    Measured,
    All,
    None,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub warmup_ps: u64,
    pub measure_ps: u64,
    pub drain: Drain,
    pub drain_limit_ps: Option<u64>,
    pub duration_ps: Option<u64>,
    pub deadlock_timeout_ps: Option<u64>,
}

/// Default time from a burst's end to the next burst's start: 100 ns, about a barrier's
/// notification across a large machine.
fn default_restart_delay_ps() -> u64 {
    100_000
}

/// Why a link latency must be positive.
const LINK_LATENCY_EXPECTED: &str = "a latency > 0, e.g. \"20ns\": every event crossing a link \
     arrives no earlier than the link's latency, the lookahead that lets entities be simulated \
     in parallel";

/// The most virtual channels a router may have (`router.vcs`).
pub const MAX_VCS: usize = 16;

/// Largest packet (payload + header) a link may carry: keeps serialization arithmetic in u64.
pub const MAX_PACKET_BYTES: u64 = 16 << 20;

impl Config {
    /// Parses the core JSON; a structural mistake becomes a [`ConfigError`] on the key where
    /// it is (in core-JSON spelling, e.g. `router.vcs`), or on "config" for text that is not
    /// JSON at all.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let mut config: Config =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
                let key = e.path().to_string();
                let inner = e.into_inner();
                // serde_json's message ends with " at line L column C": of the core JSON,
                // which the user never wrote.
                let message = inner.to_string();
                let message = message
                    .rsplit_once(" at line ")
                    .map_or(message.as_str(), |(head, _)| head);
                if key == "." {
                    ConfigError::new(
                        "config",
                        "(core JSON)",
                        format!("a core configuration: {message}"),
                    )
                } else {
                    ConfigError::new(&key, "(core JSON)", format!("a valid value: {message}"))
                }
            })?;
        deserializer.end().map_err(|e| {
            ConfigError::new("config", "(core JSON)", format!("one JSON document: {e}"))
        })?;
        config.check_ranges()?;
        // serde_json's maps keep their keys sorted, so the text written back is canonical.
        let canonical: serde_json::Value = serde_json::from_str(text).expect("parsed above");
        let mut hasher = rustc_hash::FxHasher::default();
        canonical.to_string().hash(&mut hasher);
        config.fingerprint = hasher.finish();
        Ok(config)
    }

    /// Range checks that do not need the topology. Combination checks live with the parts
    /// they concern (topology, routing, workload builders).
    fn check_ranges(&self) -> Result<(), ConfigError> {
        let r = &self.router;
        if !(1..=MAX_VCS as u32).contains(&r.vcs) {
            return Err(ConfigError::new(
                "router.vcs",
                r.vcs.to_string(),
                "between 1 and 16 virtual channels",
            ));
        }
        let links = std::iter::once(("links", &self.links.default))
            .chain(self.links.classes.iter().map(|(k, v)| (k.as_str(), v)));
        for (name, params) in links {
            let key = |field: &str| {
                if name == "links" {
                    format!("links.{field}")
                } else {
                    format!("links.{name}.{field}")
                }
            };
            if params.bandwidth_bytes_per_s == 0 {
                return Err(ConfigError::new(
                    &key("bandwidth"),
                    "0",
                    "a bandwidth > 0, e.g. \"25GB/s\"",
                ));
            }
            if params.latency_ps == 0 {
                return Err(ConfigError::new(
                    &key("latency"),
                    "0ns",
                    LINK_LATENCY_EXPECTED,
                ));
            }
        }
        let nic = &self.nic;
        if nic.injection_latency_ps == 0 {
            return Err(ConfigError::new(
                "nic.injection_latency",
                "0ns",
                LINK_LATENCY_EXPECTED,
            ));
        }
        if nic.injection_bandwidth_bytes_per_s == 0 {
            return Err(ConfigError::new(
                "nic.injection_bandwidth",
                "0",
                "a bandwidth > 0, e.g. \"25GB/s\"",
            ));
        }
        if nic.header_bytes >= MAX_PACKET_BYTES {
            return Err(ConfigError::new(
                "nic.header",
                format!("{}B", nic.header_bytes),
                format!("less than {MAX_PACKET_BYTES} bytes, the largest packet"),
            ));
        }
        if nic.mtu_bytes == 0 || nic.mtu_bytes.saturating_add(nic.header_bytes) > MAX_PACKET_BYTES {
            return Err(ConfigError::new(
                "nic.mtu",
                format!("{}B", nic.mtu_bytes),
                format!(
                    "1 byte to {} bytes of payload per packet (header included)",
                    MAX_PACKET_BYTES
                ),
            ));
        }
        if !(1..=2).contains(&r.message_classes) || r.vcs % r.message_classes != 0 {
            return Err(ConfigError::new(
                "router.message_classes",
                r.message_classes.to_string(),
                format!(
                    "1 (every message shares the VCs) or 2 (requests and responses on VCs of \
                     their own), dividing router.vcs ({}) evenly",
                    r.vcs
                ),
            ));
        }
        if nic.injection_vcs > r.vcs / r.message_classes {
            return Err(ConfigError::new(
                "nic.injection_vcs",
                nic.injection_vcs.to_string(),
                if r.message_classes > 1 {
                    format!(
                        "1 to the VCs of one message class, router.vcs / \
                         router.message_classes ({}), or none for every VC",
                        r.class_vcs()
                    )
                } else {
                    format!(
                        "1 to router.vcs ({}) router input VCs, or none for every VC",
                        r.vcs
                    )
                },
            ));
        }
        if r.vc_buffer_bytes == 0 || r.vc_buffer_bytes > u64::from(u32::MAX) {
            return Err(ConfigError::new(
                "router.vc_buffer",
                format!("{}B", r.vc_buffer_bytes),
                "between 1 byte and 4 GiB per VC",
            ));
        }
        if !(0.0..=1.0).contains(&r.in_transit_priority) {
            return Err(ConfigError::new(
                "router.in_transit_priority",
                r.in_transit_priority.to_string(),
                "a probability between 0 (off) and 1 (in-transit packets always first)",
            ));
        }
        let (load, sizes, hotspot_fraction) = match &self.traffic {
            TrafficConfig::Synthetic {
                load,
                packet_bytes,
                hotspot_fraction,
                ..
            } => (*load, packet_bytes.shares(), *hotspot_fraction),
            TrafficConfig::Burst {
                packet_bytes,
                hotspot_fraction,
                packets_per_burst,
                bursts,
                restart_delay_ps,
                ..
            } => {
                if *restart_delay_ps == 0 {
                    return Err(ConfigError::new(
                        "traffic.restart_delay",
                        "0ns",
                        "a time > 0, e.g. \"100ns\": the news that a burst ended takes time to \
                         reach every endpoint, and that time is what lets the endpoints be \
                         simulated in parallel",
                    ));
                }
                let sizes = packet_bytes.shares();
                if let Some(share) = sizes.iter().find(|s| s.bytes > nic.mtu_bytes) {
                    return Err(ConfigError::new(
                        "traffic.packet",
                        format!("{}B", share.bytes),
                        format!(
                            "at most nic.mtu ({} B): a burst's budget counts single-packet \
                             messages",
                            nic.mtu_bytes
                        ),
                    ));
                }
                if *packets_per_burst == 0 || *bursts == 0 {
                    let (key, value) = if *bursts == 0 {
                        ("traffic.bursts", *bursts)
                    } else {
                        ("traffic.packets_per_burst", *packets_per_burst)
                    };
                    return Err(ConfigError::new(key, value.to_string(), "at least 1"));
                }
                (1.0, sizes, *hotspot_fraction)
            }
            TrafficConfig::Jobs(_) | TrafficConfig::Threads(_) => (1.0, Vec::new(), 0.0),
        };
        if !(load > 0.0 && load <= 1.0) {
            return Err(ConfigError::new(
                "traffic.load",
                load.to_string(),
                "a fraction of the injection bandwidth, 0 < load <= 1",
            ));
        }
        if matches!(
            self.traffic,
            TrafficConfig::Synthetic { .. } | TrafficConfig::Burst { .. }
        ) && sizes.is_empty()
        {
            return Err(ConfigError::new(
                "traffic.packet",
                "{}",
                "one size, or a mix of at least one size with its weight",
            ));
        }
        for share in &sizes {
            if share.bytes == 0 {
                return Err(ConfigError::new("traffic.packet", "0B", "at least 1 byte"));
            }
            if !(share.weight.is_finite() && share.weight > 0.0) {
                return Err(ConfigError::new(
                    "traffic.packet",
                    format!("{}B = {}", share.bytes, share.weight),
                    "a weight > 0 for every size of the mix",
                ));
            }
        }
        for (key, rate) in [
            ("nic.packet_rate", nic.packet_rate_per_s),
            ("router.packet_rate", self.router.packet_rate_per_s),
        ] {
            if rate > crate::network::MAX_PACKET_RATE_PER_S {
                return Err(ConfigError::new(
                    key,
                    format!("{rate} packets/s"),
                    "at most 1e15 packets per second (1000 Tpps, one per femtosecond)",
                ));
            }
        }
        if nic.packet_rate_per_s > 0 && nic.injection_cap_window_ps == 0 {
            return Err(ConfigError::new(
                "nic.injection_cap_window",
                "0ns",
                "a window > 0 for nic.packet_rate, e.g. \"50ns\"",
            ));
        }
        if self.router.packet_rate_per_s > 0 && self.router.packet_rate_window_ps == 0 {
            return Err(ConfigError::new(
                "router.packet_rate_window",
                "0ns",
                "a window > 0 for router.packet_rate, e.g. \"50ns\"",
            ));
        }
        if nic.injection_cap_bytes > 0 && nic.injection_cap_window_ps == 0 {
            return Err(ConfigError::new(
                "nic.injection_cap_window",
                "0ns",
                "a window > 0, e.g. \"50ns\" (100 cycles at 2 GHz, as in Su's UpDown study)",
            ));
        }
        if !(0.0..=1.0).contains(&hotspot_fraction) {
            return Err(ConfigError::new(
                "traffic.hotspot_fraction",
                hotspot_fraction.to_string(),
                "a fraction between 0 and 1",
            ));
        }
        let run = &self.run;
        match run.duration_ps {
            Some(0) => {
                return Err(ConfigError::new("run.duration", "0", "a duration > 0"));
            }
            None if run.measure_ps == 0 => {
                return Err(ConfigError::new("run.measure", "0", "a window > 0"));
            }
            _ => {}
        }
        Ok(())
    }
}
