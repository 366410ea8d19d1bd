//! The network as an engine model: the state of every router and NIC in flat arrays, how it is
//! built from a config, and event dispatch.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::arrays::{attachment_table, NicArrays, NicShape, RouterArrays};
use super::packet::PacketArena;
use super::parallel::Remote;
use super::rate::{PacketRate, RateWindow};
use super::record::Recorder;
use super::state::{
    BurstClock, EndpointCounters, InputPool, Nic, NicLimits, OutputPool, PortLink, PortLinks,
    RouterPort, SourceLatency, Stats, NEVER, NIC_CLASS, NO_BLOCK, NO_LINK,
};
use rustc_hash::FxHashMap;

use crate::config::{
    Arbitration, Config, Drain, LinkParams, NicConfig, Priority, Striping, TrafficConfig,
};
use crate::engine::{prefetch_line, EntityId, Model, Scheduler, Time};
use crate::error::ConfigError;
use crate::memory::Footprint;
use crate::parallel::Transport;
use crate::routing::{self, Candidates, RoutingFunction};
use crate::topology::{self, Peer, Topology};
use crate::workload::{jobs, Action, Generation, Host, Synthetic, Threads};

/// Router ports from which the event loop prefetches what events will touch: about 2 MB of
/// router state, more than a core's own caches hold. Below, the hints only cost instructions
/// (without them, 64 to 94 fewer per hop and up to 13% faster on (a), (b), (e), (g)); above, they
/// are worth 25% on (k) and 45% on (c) (BENCHMARKS.md, issue 25).
const PREFETCH_PORTS: usize = 1 << 15;

/// Router ports up to which an arriving packet prefetches the blocks of its router's busy
/// outputs, its own among them: worth 8% on (d) (9 ports); on (k) (31 ports, most outputs busy
/// at 30% load) the loop and the prefetches of outputs not taken cost 3% (BENCHMARKS.md, issue
/// 25).
const PREFETCH_BUSY_OUTPUTS_PORTS: usize = 16;

/// What travels between entities (and what an entity schedules for itself).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub enum NetEvent {
    /// To a router: a packet's head has arrived on (port, vc) and its route is computed
    /// (the event time includes the router latency).
    Arrive { port: u16, vc: u8, packet: u32 },
    /// To a router: buffer space freed downstream of its output `port`.
    Credit { port: u16, vc: u8, bytes: u32 },
    /// To a router, from itself: re-arbitrate output `port`.
    Wake { port: u16 },
    /// To a NIC: buffer space freed in its router's injection port.
    NicCredit { vc: u8, bytes: u32 },
    /// To a NIC, from itself: its injection link is free again, or its next message is due.
    NicWake,
    /// To a NIC: a packet's tail has arrived.
    Deliver { packet: u32 },
    /// To a NIC: an end-to-end acknowledgement frees one slot of the injection throttle.
    NicAck,
    /// To a NIC, from itself: its host's scheduled wake-up, with the host's tag.
    HostWake { tag: u32 },
}

/// What the endpoints run.
pub enum Workload {
    /// Open-loop or burst-synchronized sources, generated inside the NICs.
    Synthetic(Box<Synthetic>),
    /// Programs above the NICs: message-passing jobs, closed-loop threads.
    Host(Box<dyn Host>),
}

/// The validated building blocks of a network, without its (large) state.
pub struct Parts {
    /// The network; its endpoints are NIC ports.
    pub topology: Arc<dyn Topology>,
    /// The network as the workload sees it: one endpoint per node (the same as `topology`
    /// when every node has one port).
    pub nodes: Arc<dyn Topology>,
    pub routing: Box<dyn RoutingFunction>,
    pub workload: Workload,
    pub(super) class_links: Vec<PortLink>,
    pub(super) recorder: Option<Box<Recorder>>,
}

/// The statistics window [start, end): the whole run for closed workloads (bursts, hosts),
/// else the measurement window or the fixed duration.
fn measurement_window(config: &Config) -> (Time, Time) {
    let closed = !matches!(config.traffic, TrafficConfig::Synthetic { .. });
    match config.run.duration_ps {
        _ if closed => (0, NEVER),
        Some(duration) => (0, duration),
        None => (
            config.run.warmup_ps,
            config.run.warmup_ps.saturating_add(config.run.measure_ps),
        ),
    }
}

/// What a network's state will take once allocated for the routers and NICs `held`: per
/// router port, per NIC (its state, counters and pending event), and, in a process that holds
/// part of the network, what it keeps for every entity (latency by source, the worker of each
/// router and NIC).
fn state_footprint(topology: &dyn Topology, config: &Config, held: &Held) -> Footprint {
    use std::mem::size_of;
    let ports = held.routers.len() as u64 * u64::from(topology.ports_per_router());
    let endpoints = held.endpoints.len() as u64;
    let vcs = u64::from(config.router.vcs);
    let per_port = 1 + size_of::<RouterPort>();
    // A NIC's state and counters, and its pending event in the queue (32 B).
    let per_endpoint =
        size_of::<Nic>() + size_of::<NicLimits>() + size_of::<EndpointCounters>() + 32;
    let mut need = Footprint::new();
    need.add("router ports", ports, per_port as u64)
        .add("NICs", endpoints, per_endpoint as u64)
        .add("NIC credits", endpoints, vcs * 4)
        .add(
            "latency by source",
            u64::from(topology.num_endpoints()),
            size_of::<SourceLatency>() as u64,
        );
    if held != &Held::all(topology) {
        need.add(
            "worker of every router and NIC",
            u64::from(topology.num_routers()) + u64::from(topology.num_endpoints()),
            size_of::<u32>() as u64,
        );
    }
    if config.router.packet_rate_per_s > 0 {
        need.add(
            "router packet-rate windows",
            held.routers.len() as u64,
            size_of::<RateWindow>() as u64,
        );
    }
    need
}

/// Refuses a network whose state for the routers and NICs `held` does not fit in memory.
pub(crate) fn check_fits(
    topology: &dyn Topology,
    config: &Config,
    held: &Held,
) -> Result<(), ConfigError> {
    state_footprint(topology, config, held).check(
        "topology",
        format!(
            "{}: {} routers of {} ports, {} endpoints{}",
            topology.family(),
            topology.num_routers(),
            topology.ports_per_router(),
            topology.num_endpoints(),
            if held == &Held::all(topology) {
                String::new()
            } else {
                format!(
                    ", of which this process holds {} routers and {} endpoints",
                    held.routers.len(),
                    held.endpoints.len()
                )
            }
        ),
    )
}

/// The NIC as a workload's source sees it: a node with P ports injects at P times a port's
/// bandwidth, so an offered load is a fraction of the node's.
fn node_nic(config: &Config, topology: &dyn Topology) -> NicConfig {
    let mut nic = config.nic.clone();
    nic.injection_bandwidth_bytes_per_s = nic
        .injection_bandwidth_bytes_per_s
        .saturating_mul(u64::from(topology.ports_per_node()));
    nic
}

/// Wire sizes of the packets a workload sends most: the full packet and the last one of each
/// of its messages.
fn common_packet_sizes(workload: &Workload, config: &Config) -> Vec<u32> {
    match workload {
        Workload::Synthetic(s) => s.packet_wire_bytes().to_vec(),
        Workload::Host(host) => {
            let (mtu, header) = (config.nic.mtu_bytes, config.nic.header_bytes);
            let mut sizes: Vec<u32> = host
                .common_message_bytes(mtu)
                .into_iter()
                .flat_map(|bytes| {
                    let last = bytes - bytes.saturating_sub(1) / mtu * mtu;
                    [bytes.min(mtu), last]
                })
                .map(|payload| (payload + header) as u32)
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes
        }
    }
}

impl Parts {
    /// Checks every combination the config makes (topology, routing, VCs, traffic pattern,
    /// link classes) and builds the parts.
    pub fn build(config: &Config) -> Result<Parts, ConfigError> {
        let topology: Arc<dyn Topology> = Arc::from(topology::build(&config.topology)?);
        let nodes = topology::Nodes::of(Arc::clone(&topology));
        let t = topology.as_ref();
        let (window_start, window_end) = measurement_window(config);
        let recorder = Recorder::build(&config.record, nodes.as_ref(), window_start, window_end)?
            .map(Box::new);
        let routing =
            routing::build_for_classes(&config.routing, topology.as_ref(), &config.router)?;
        let workload = match &config.traffic {
            TrafficConfig::Jobs(jobs) => {
                Workload::Host(Box::new(jobs::build(jobs, nodes.as_ref(), config.seed)?))
            }
            TrafficConfig::Threads(threads) => Workload::Host(Box::new(Threads::build(
                threads,
                Arc::clone(&nodes),
                config.seed,
            )?)),
            traffic => Workload::Synthetic(Box::new(
                Synthetic::build(traffic, &node_nic(config, t), nodes.as_ref(), config.seed)?
                    .expect("a synthetic or burst config"),
            )),
        };
        let packet_sizes = common_packet_sizes(&workload, config);
        let largest_packet = packet_sizes.iter().copied().max().unwrap_or(0);
        if routing.bubble_vc().is_some()
            && 2 * u64::from(largest_packet) > config.router.vc_buffer_bytes
        {
            return Err(ConfigError::new(
                "router.vc_buffer",
                format!("{}B", config.router.vc_buffer_bytes),
                format!(
                    "at least two of the largest packet, {} B, under bubble flow control: a \
                     packet enters a ring's escape VC only while room for another stays free",
                    2 * largest_packet
                ),
            ));
        }
        if u64::from(largest_packet) > config.router.vc_buffer_bytes {
            return Err(ConfigError::new(
                "router.vc_buffer",
                format!("{}B", config.router.vc_buffer_bytes),
                format!(
                    "at least the largest packet, {largest_packet} B (payload up to nic.mtu plus \
                     nic.header): virtual cut-through admits only whole packets into a buffer; \
                     raise router.vc_buffer or lower nic.mtu"
                ),
            ));
        }
        let cap = config.nic.injection_cap_bytes;
        if cap > 0 && cap < u64::from(largest_packet) {
            return Err(ConfigError::new(
                "nic.injection_cap",
                format!(
                    "{cap} B per {} ns window",
                    config.nic.injection_cap_window_ps as f64 / 1000.0
                ),
                format!(
                    "room for the largest packet, {largest_packet} B, in one window: raise \
                     nic.injection_cap or nic.injection_cap_window, or lower nic.mtu"
                ),
            ));
        }
        if config.threads == 0 {
            return Err(ConfigError::new(
                "threads",
                "0",
                "at least 1 (1 runs sequentially)",
            ));
        }
        if config.threads > topology.num_routers() {
            return Err(ConfigError::new(
                "threads",
                config.threads.to_string(),
                format!(
                    "between 1 and the number of routers, {}: a worker simulates whole routers",
                    topology.num_routers()
                ),
            ));
        }
        if config.threads > 1 && routing.global_view() {
            return Err(ConfigError::new(
                "threads",
                config.threads.to_string(),
                "1 with UGAL-G: its source reads queues anywhere in the network, which a \
                 split network cannot show it at the same instant (UGAL-L runs on any number)",
            ));
        }
        let class_names = topology.link_class_names();
        if let Some(name) = config
            .links
            .classes
            .keys()
            .find(|k| !class_names.contains(k))
        {
            return Err(ConfigError::new(
                &format!("links.{name}"),
                format!("[links.{name}]"),
                format!(
                    "a link class of this topology: {} (or the defaults in [links])",
                    class_names.join(", ")
                ),
            ));
        }
        let class_links = class_names
            .iter()
            .map(|name| {
                let params: &LinkParams = config
                    .links
                    .classes
                    .get(name)
                    .unwrap_or(&config.links.default);
                PortLink::new(
                    params.latency_ps,
                    params.bandwidth_bytes_per_s,
                    &packet_sizes,
                )
            })
            .collect();
        let routers = topology.num_routers() as usize;
        let endpoints = topology.num_endpoints() as usize;
        if routers + endpoints > EntityId::MAX as usize {
            return Err(ConfigError::new(
                "topology",
                format!("{routers} routers + {endpoints} endpoints"),
                "fewer than 2^32 routers and endpoints in all",
            ));
        }
        Ok(Parts {
            topology,
            nodes,
            routing,
            workload,
            class_links,
            recorder,
        })
    }
}

/// The routers and NICs whose state a network holds: runs of router and endpoint numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Held {
    pub(super) routers: Range<usize>,
    pub(super) endpoints: Range<usize>,
}

impl Held {
    /// Every router and NIC of `topology`.
    pub(crate) fn all(topology: &dyn Topology) -> Held {
        Held {
            routers: 0..topology.num_routers() as usize,
            endpoints: 0..topology.num_endpoints() as usize,
        }
    }
}

/// Every port of `routers`, router by router.
fn router_ports(
    topology: &dyn Topology,
    routers: Range<usize>,
) -> impl Iterator<Item = (u32, u16)> {
    let ports = topology.ports_per_router();
    routers.flat_map(move |r| (0..ports).map(move |p| (r as u32, p)))
}

/// What each port of `routers` is wired to, router by router.
pub(super) fn port_peers(topology: &dyn Topology, routers: Range<usize>) -> Vec<Peer> {
    router_ports(topology, routers)
        .map(|(r, p)| topology.peer(r, p))
        .collect()
}

/// The link class of each port of `routers` (an index into the classes' links, NIC_CLASS or
/// NO_LINK), router by router.
pub(super) fn port_classes(topology: &dyn Topology, routers: Range<usize>) -> Vec<u8> {
    router_ports(topology, routers)
        .map(|(r, p)| match topology.peer(r, p) {
            Peer::Router { .. } => topology.link_class(r, p) as u8,
            Peer::Endpoint(_) => NIC_CLASS,
            Peer::Unconnected => NO_LINK,
        })
        .collect()
}

/// What every worker of a run reads and none changes: the config's parameters in the
/// form the hot path wants them (one copy per worker, listed once).
#[derive(Clone, Copy)]
pub(super) struct Params {
    /// Nodes (the endpoints the workload addresses), NIC ports per node, and how a node
    /// spreads its messages over them.
    pub(super) nodes: u32,
    pub(super) node_ports: u32,
    pub(super) striping: Striping,
    pub(super) mtu_bytes: u64,
    /// Router input VCs a NIC's packets may enter (the first this many of their message
    /// class's VCs).
    pub(super) injection_vcs: usize,
    /// VCs per message class (`router.message_classes`; with one class, every VC), and the
    /// first VC of responses (0 when they share the VCs with requests).
    pub(super) class_vcs: usize,
    pub(super) response_vc_offset: usize,
    /// `router.priority = "responses"`: responses win arbitration over requests.
    pub(super) responses_first: bool,
    pub(super) header_bytes: u64,
    /// The injection throttle (0: none).
    pub(super) max_outstanding: u32,
    /// The injection-limited NIC (000 §3.5): how long a message waits before it may leave,
    /// and the wire bytes allowed per window (0: no cap).
    pub(super) eligibility_delay_ps: Time,
    pub(super) injection_cap_bytes: u64,
    pub(super) injection_cap_window_ps: Time,
    /// Packet-rate limits (`nic.packet_rate`, `router.packet_rate`).
    pub(super) nic_packet_rate: Option<PacketRate>,
    pub(super) router_packet_rate: Option<PacketRate>,
    /// Closed workloads (bursts, hosts) run until they finish; the window is the whole run.
    pub(super) closed: bool,
    /// Routers: entity ids below this are routers, the NICs follow.
    pub(super) routers: u32,
    pub(super) ports: usize,
    pub(super) vcs: usize,
    /// An output's request bit set has one bit per input (port, VC) at port << vc_bits | vc, so
    /// that arbitration splits a bit index with a shift; `request_words` u64 words hold it.
    pub(super) vc_bits: u32,
    pub(super) request_words: usize,
    pub(super) router_latency_ps: Time,
    /// Grant to departure onto the output link (`router.output_latency`).
    pub(super) router_output_latency_ps: Time,
    pub(super) arbitration: Arbitration,
    /// Probability that an arbitration applies the in-transit-priority restriction.
    pub(super) in_transit_priority: f64,
    pub(super) nic_link: PortLink,
    /// Whether the event loop prefetches what events will touch (`Model::prefetch`): worth it
    /// only when the router state outgrows the caches.
    pub(super) prefetch: bool,
    /// Whether an arriving packet's prefetch hint also loads its router's busy output blocks.
    pub(super) prefetch_busy_outputs: bool,
    /// Generation stops at this time.
    pub(super) generation_end: Time,
    /// Bytes of one VC buffer (router-to-router), for weighing candidates.
    pub(super) vc_buffer_bytes: u32,
    /// The routing's escape VCs (bit set; 0: none).
    pub(super) escape_vcs: u32,
    /// The routing's selection threshold in bytes (see `routing::select`).
    pub(super) threshold_bytes: u32,
    /// UGAL-G: the source reads the queues along whole routes.
    pub(super) global_view: bool,
    /// Every route the routing takes is minimal (`RoutingFunction::minimal_routes`).
    pub(super) minimal_routes: bool,
    /// Every message is one packet (synthetic sources whose messages fit in the MTU): a
    /// message's latency is its packet's, so the message latencies are the packet latencies,
    /// not recorded a second time.
    pub(super) messages_are_packets: bool,
    /// Under bubble flow control, the escape VC and the room a packet entering its ring must
    /// leave (the largest packet).
    pub(super) bubble: Option<(u8, u32)>,
}

pub struct Network {
    /// The parameters every worker reads (a copy each).
    pub(super) params: Params,
    pub(super) config: Arc<Config>,
    /// The network: its endpoints are NIC ports (port p of node n is endpoint p * nodes + n).
    pub(super) topology: Arc<dyn Topology>,
    /// The network as the workload sees it, one endpoint per node (see [`Parts::nodes`]).
    pub(super) node_topology: Arc<dyn Topology>,
    /// Hosts' messages striped over several ports: (source node, token) to the parts still
    /// being sent and the latest tail among those sent.
    pub(super) parts_sending: FxHashMap<(u32, u32), (u32, Time)>,
    pub(super) routing: Arc<dyn RoutingFunction>,
    /// The open-loop or burst source (None under message-passing jobs).
    pub(super) synthetic: Option<Arc<Synthetic>>,
    pub(super) burst: Option<BurstClock>,
    /// The programs above the NICs (None under synthetic traffic).
    pub(super) host: Option<Box<dyn Host>>,
    /// Scratch: what the host asked for.
    pub(super) actions: Vec<Action>,
    /// The link parameters of each link class, and the NIC link's.
    pub(super) links: PortLinks,
    /// Every endpoint's (router, port), on small networks (see `arrays::attachment_table`).
    pub(super) attachments: Arc<[(u32, u16)]>,
    /// The state of the routers and NICs this network holds (the workers of a parallel run
    /// share them, see `arrays`), and each worker's own pools of the ports in use: input
    /// VCs by port block, outputs [* vcs + vc | * request_words + word].
    pub(super) routers: RouterArrays,
    pub(super) nics: NicArrays,
    pub(super) inputs: InputPool,
    pub(super) output_pool: OutputPool,
    /// NICs whose next message is due before the end of the measurement window (a worker's
    /// share, in wrapping arithmetic: the workers' shares add up to the count).
    pub(super) nics_owing_window: u64,
    pub(super) packets: PacketArena,
    /// Messages being reassembled at this worker's NICs: packets still to come, by (source,
    /// destination, message); a fast hash, as it is looked up per packet and never iterated.
    pub(super) reassembly: FxHashMap<(u32, u32, u32), u32>,
    pub(super) stats: Stats,
    /// Traffic matrix, injection time series and packet sizes, when asked for.
    pub(super) recorder: Option<Box<Recorder>>,
    // Scratch for the router being settled.
    pub(super) dirty_outputs: Vec<u16>,
    pub(super) is_dirty: Vec<bool>,
    pub(super) candidates: Candidates,
    /// Scratch: inputs found blocked on adaptive VCs during one arbitration.
    pub(super) blocked: Vec<usize>,
    /// In a parallel run, the partition and the outboxes to the other workers.
    pub(super) remote: Option<Box<Remote>>,
    /// Peak live packets of the workers of a finished parallel run, added up.
    pub(super) peak_packets: u64,
}

impl Network {
    /// Builds the network a config describes, holding the state of all its entities, or says
    /// why it cannot be built.
    pub fn new(config: &Config) -> Result<Network, ConfigError> {
        Self::on(config, None)
    }

    /// Builds the network as this process of `transport` runs it: in a run across several
    /// processes, it holds the state of its own part's routers and NICs only (the smallest
    /// runs of router and endpoint numbers that hold them), so that memory divides by the
    /// processes; alone, all of it.
    pub fn on(config: &Config, transport: Option<&dyn Transport>) -> Result<Network, ConfigError> {
        let mut network = Self::unallocated(config)?;
        let held = match transport {
            Some(t) if t.size() > 1 => network.held_by(t.rank() as u32, t.size() as u32),
            _ => Held::all(network.topology.as_ref()),
        };
        check_fits(network.topology.as_ref(), config, &held)?;
        network.allocate_state(&held);
        Ok(network)
    }

    /// The network without its per-router and per-NIC state (see [`Network::allocate_state`]).
    fn unallocated(config: &Config) -> Result<Network, ConfigError> {
        let Parts {
            topology,
            nodes: node_topology,
            routing,
            workload,
            class_links,
            recorder,
        } = Parts::build(config)?;
        let packet_sizes = common_packet_sizes(&workload, config);
        let largest_packet = packet_sizes.iter().copied().max().unwrap_or(0);
        let (synthetic, host) = match workload {
            Workload::Synthetic(s) => (Some(Arc::new(*s)), None),
            Workload::Host(h) => (None, Some(h)),
        };
        let burst = match (synthetic.as_ref().map(|s| &s.generation), &config.traffic) {
            (
                Some(&Generation::Burst {
                    packets_per_burst,
                    bursts,
                }),
                &TrafficConfig::Burst {
                    restart_delay_ps, ..
                },
            ) => Some(BurstClock {
                packets_per_burst,
                bursts,
                restart_delay_ps,
                delivered: 0,
                last_delivery_ps: 0,
                starts_ps: vec![0],
                ends_ps: Vec::new(),
            }),
            _ => None,
        };
        let closed = burst.is_some() || host.is_some();
        let vcs = config.router.vcs as usize;
        let class_vcs = config.router.class_vcs() as usize;
        // The routing's escape VCs in every message class's copy of its plan.
        let routing_escape_vcs = (0..config.router.message_classes).fold(0, |all, c| {
            all | routing.escape_vcs() << (c as usize * class_vcs)
        });
        let routing_bubble_vc = routing.bubble_vc();
        let routing_global_view = routing.global_view();
        let threshold_bytes = (routing.threshold() * config.router.vc_buffer_bytes as f64)
            .min(f64::from(u32::MAX)) as u32;
        let nic_link = PortLink::new(
            config.nic.injection_latency_ps,
            config.nic.injection_bandwidth_bytes_per_s,
            &packet_sizes,
        );
        let routers = topology.num_routers() as usize;
        let ports = usize::from(topology.ports_per_router());
        let vc_bits = vcs.next_power_of_two().trailing_zeros();
        let request_words = (ports << vc_bits).div_ceil(64);
        let nic_packet_rate = PacketRate::new(
            config.nic.packet_rate_per_s,
            config.nic.injection_cap_window_ps,
        );
        let router_packet_rate = PacketRate::new(
            config.router.packet_rate_per_s,
            config.router.packet_rate_window_ps,
        );
        let (window_start, window_end) = measurement_window(config);
        let generation_end = match (config.run.duration_ps, config.run.drain) {
            _ if closed => NEVER,
            (Some(duration), _) => duration,
            (None, Drain::Measured) => NEVER,
            (None, Drain::All | Drain::None) => window_end,
        };
        let node_ports = topology.ports_per_node();
        Ok(Network {
            params: Params {
                nodes: node_topology.num_endpoints(),
                node_ports,
                striping: config.nic.striping,
                mtu_bytes: config.nic.mtu_bytes,
                injection_vcs: match config.nic.injection_vcs {
                    0 => class_vcs,
                    n => n as usize,
                },
                class_vcs,
                response_vc_offset: if config.router.message_classes > 1 {
                    class_vcs
                } else {
                    0
                },
                responses_first: config.router.priority == Priority::Responses,
                header_bytes: config.nic.header_bytes,
                max_outstanding: config.nic.max_outstanding_packets,
                eligibility_delay_ps: config.nic.eligibility_delay_ps,
                injection_cap_bytes: config.nic.injection_cap_bytes,
                injection_cap_window_ps: config.nic.injection_cap_window_ps,
                nic_packet_rate,
                router_packet_rate,
                closed,
                routers: routers as u32,
                ports,
                vcs,
                vc_bits,
                request_words,
                router_latency_ps: config.router.latency_ps,
                router_output_latency_ps: config.router.output_latency_ps,
                arbitration: config.router.arbitration,
                in_transit_priority: config.router.in_transit_priority,
                nic_link,
                prefetch: routers * ports >= PREFETCH_PORTS,
                prefetch_busy_outputs: ports <= PREFETCH_BUSY_OUTPUTS_PORTS,
                generation_end,
                vc_buffer_bytes: config.router.vc_buffer_bytes as u32,
                escape_vcs: routing_escape_vcs,
                threshold_bytes,
                global_view: routing_global_view,
                minimal_routes: routing.minimal_routes(),
                messages_are_packets: host.is_none()
                    && synthetic
                        .as_ref()
                        .is_some_and(|s| s.largest_message_bytes() <= config.nic.mtu_bytes),
                bubble: routing_bubble_vc.map(|vc| (vc, largest_packet)),
            },
            config: Arc::new(config.clone()),
            node_topology,
            parts_sending: FxHashMap::default(),
            routing: Arc::from(routing),
            synthetic,
            burst,
            host,
            actions: Vec::new(),
            recorder,
            links: PortLinks::new(&class_links, nic_link),
            attachments: attachment_table(topology.as_ref()),
            routers: RouterArrays::default(),
            nics: NicArrays::default(),
            inputs: InputPool::new(vcs),
            output_pool: OutputPool::new(vcs, request_words),
            nics_owing_window: 0,
            packets: PacketArena::default(),
            reassembly: FxHashMap::default(),
            stats: Stats::new(window_start, window_end),
            dirty_outputs: Vec::with_capacity(ports),
            is_dirty: vec![false; ports],
            candidates: Candidates::new(),
            blocked: Vec::new(),
            remote: None,
            peak_packets: 0,
            topology,
        })
    }

    /// Allocates the state of the routers and NICs `held` names (see `arrays`).
    fn allocate_state(&mut self, held: &Held) {
        let topology = self.topology.as_ref();
        self.routers = RouterArrays::new(topology, held, self.params.router_packet_rate.is_some());
        let limits = self.config.nic.max_outstanding_packets > 0
            || self.config.nic.injection_cap_bytes > 0
            || self.params.nic_packet_rate.is_some()
            || self.burst.is_some()
            || self.synthetic.as_ref().is_some_and(|s| s.keeps_burst());
        let shape = NicShape {
            vcs: self.params.vcs,
            vc_buffer_bytes: self.params.vc_buffer_bytes,
            limits,
            seed: self.config.seed,
            first_nic: self.params.routers as usize,
            all_endpoints: topology.num_endpoints() as usize,
            nodes: self.params.nodes as usize,
            node_ports: self.params.node_ports,
        };
        self.nics = NicArrays::new(held, &shape);
    }

    /// Frees the state of the routers and NICs (a process of a run across processes, once it
    /// has shared its counts).
    pub(super) fn release_state(&mut self) {
        self.routers = RouterArrays::default();
        self.nics = NicArrays::default();
    }

    /// The routers and NICs this process holds in a run across `processes` processes, of
    /// which it is `me`, each running `config.threads` workers: all of them when the network
    /// cannot be split (the run then says why).
    fn held_by(&self, me: u32, processes: u32) -> Held {
        let topology = self.topology.as_ref();
        let threads = self.config.threads.max(1);
        let Ok((split, _)) = self.split(processes * threads) else {
            return Held::all(topology);
        };
        let hull = |numbers: &mut dyn Iterator<Item = usize>| {
            let (lo, hi) = numbers.fold((usize::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n + 1)));
            lo.min(hi)..hi
        };
        let mine = |r: u32| split.part_of[r as usize] / threads == me;
        Held {
            routers: hull(
                &mut (0..topology.num_routers())
                    .filter(|&r| mine(r))
                    .map(|r| r as usize),
            ),
            endpoints: hull(
                &mut (0..topology.num_endpoints())
                    .filter(|&e| mine(topology.endpoint_attachment(e).0))
                    .map(|e| e as usize),
            ),
        }
    }

    pub fn topology(&self) -> &dyn Topology {
        self.topology.as_ref()
    }

    #[inline]
    pub(super) fn num_routers(&self) -> u32 {
        self.params.routers
    }

    /// Entity id of endpoint `e`'s NIC (routers come first).
    #[inline]
    pub(super) fn nic_entity(&self, endpoint: u32) -> EntityId {
        self.num_routers() + endpoint
    }

    /// The link leaving (router, port): its class's parameters, or the NIC link's.
    #[inline]
    pub(super) fn port_link(&self, port_index: usize) -> &PortLink {
        self.links.of(self.routers.port_class[port_index])
    }

    /// The router endpoint `endpoint` hangs on, and its port there: from the table where the
    /// network keeps one, else from the topology.
    #[inline(always)]
    pub(super) fn attachment(&self, endpoint: u32) -> (u32, u16) {
        match self.attachments.get(endpoint as usize) {
            Some(&at) => at,
            None => self.topology.endpoint_attachment(endpoint),
        }
    }

    /// What port `port` of `router` (router port `index`) is wired to: from the table where the
    /// network keeps one, else from the topology.
    #[inline(always)]
    pub(super) fn peer(&self, index: usize, router: u32, port: u16) -> Peer {
        match self.routers.peers.get(index) {
            Some(&peer) => peer,
            None => self.topology.peer(router, port),
        }
    }

    #[inline]
    pub(super) fn in_window(&self, t: Time) -> bool {
        t >= self.stats.window_start && t < self.stats.window_end
    }

    /// Packets generated and not yet delivered.
    pub(super) fn packets_in_flight(&self) -> u64 {
        self.stats.generated - self.stats.delivered
    }
}

impl Model for Network {
    type Payload = NetEvent;

    #[inline]
    fn handle(
        &mut self,
        now: Time,
        target: EntityId,
        event: NetEvent,
        sched: &mut Scheduler<NetEvent>,
    ) {
        match event {
            NetEvent::Arrive { port, vc, packet } => {
                self.packet_arrives(now, target, port, vc, packet)
            }
            NetEvent::Credit { port, vc, bytes } => {
                self.credit_arrives(now, target, port, vc, bytes)
            }
            NetEvent::Wake { port } => self.output_wakes(now, target, port),
            NetEvent::NicCredit { vc, bytes } => {
                let e = (target - self.num_routers()) as usize;
                self.nics.credits[e * self.params.vcs + usize::from(vc)] += bytes;
            }
            NetEvent::NicWake => {
                let e = (target - self.num_routers()) as usize;
                if self.nics.state[e].wake_at == now {
                    self.nics.state[e].wake_at = NEVER;
                }
            }
            NetEvent::Deliver { packet } => {
                self.deliver(now, target - self.num_routers(), packet, sched)
            }
            NetEvent::NicAck => {
                let e = (target - self.num_routers()) as usize;
                self.nics.limits[e].outstanding -= 1;
            }
            NetEvent::HostWake { tag } => {
                let e = target - self.num_routers();
                if let Some(host) = self.host.as_mut() {
                    host.wake(now, e, tag, &mut self.actions);
                    self.apply_actions(now, sched);
                }
            }
        }
    }

    #[inline]
    fn prefetch(&self, target: EntityId, event: &NetEvent) {
        match *event {
            NetEvent::Arrive { packet, .. } => {
                self.packets.prefetch(packet);
                let router = target as usize * self.params.ports;
                // The packet leaves on one of the router's outputs, not known before routing:
                // every line of the router's port entries (a few; its input's entry among them),
                // and of its port classes, which may straddle two lines.
                let ports = &self.routers.ports[router..router + self.params.ports];
                for line in ports.chunks(64 / std::mem::size_of::<RouterPort>()) {
                    prefetch_line(&line[0]);
                }
                prefetch_line(&self.routers.port_class[router]);
                prefetch_line(&self.routers.port_class[router + self.params.ports - 1]);
            }
            NetEvent::Deliver { packet } => {
                self.packets.prefetch(packet);
                prefetch_line(&self.nics.state[(target - self.num_routers()) as usize]);
            }
            NetEvent::Credit { port, .. } | NetEvent::Wake { port } => {
                let index = target as usize * self.params.ports + usize::from(port);
                prefetch_line(&self.routers.ports[index]);
                // Its link class: whether its credits are all back (`full_credit`).
                prefetch_line(&self.routers.port_class[index]);
            }
            NetEvent::NicCredit { .. } | NetEvent::NicWake => {
                // The NIC injects (or counts its credits back) in its injection port's credits.
                let e = (target - self.num_routers()) as usize;
                prefetch_line(&self.nics.state[e]);
                prefetch_line(&self.nics.credits[e * self.params.vcs]);
            }
            NetEvent::NicAck | NetEvent::HostWake { .. } => {
                prefetch_line(&self.nics.state[(target - self.num_routers()) as usize]);
            }
        }
    }

    #[inline]
    fn prefetch_near(&self, target: EntityId, event: &NetEvent) {
        match *event {
            NetEvent::Arrive { port, vc, .. } => {
                let router = target as usize * self.params.ports;
                let ports = &self.routers.ports[router..router + self.params.ports];
                let block = ports[usize::from(port)].input_block;
                if block != NO_BLOCK {
                    prefetch_line(self.inputs.vc(block, usize::from(vc)));
                }
                // The packet's output is known only after routing: the blocks of the router's
                // busy outputs (an output keeps its block until its credits are back), where
                // routers have few ports.
                if self.params.prefetch_busy_outputs {
                    for port in ports.iter().filter(|p| p.output_block != NO_BLOCK) {
                        self.output_pool.prefetch(port.output_block);
                    }
                }
            }
            NetEvent::Credit { port, .. } | NetEvent::Wake { port } => {
                let block = self.routers.ports
                    [target as usize * self.params.ports + usize::from(port)]
                .output_block;
                if block != NO_BLOCK {
                    self.output_pool.prefetch(block);
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn settle(&mut self, now: Time, target: EntityId, sched: &mut Scheduler<NetEvent>) {
        if target < self.num_routers() {
            self.allocate_dirty_outputs(now, target, sched);
        } else {
            self.try_inject(now, target - self.num_routers(), sched);
        }
    }
}
