//! The network as an engine model: state of every router and NIC in flat arrays, event dispatch,
//! and the run driver (windows, drain, watchdog, progress).

use std::time::Instant;

use super::packet::{Fifo, PacketArena};
use super::results::RunOutput;
use super::serialization_ps;
use crate::config::{Arbitration, Config, Drain, LinkParams};
use crate::engine::{
    entity_stream, prefetch_line, EntityId, EntityRng, Model, Scheduler, Step, Time,
};
use crate::error::{ConfigError, SimError};
use crate::routing::{self, Candidates, RoutingFunction};
use crate::stats::{LatencyStats, TimeAverage};
use crate::topology::{self, Peer, Topology};
use crate::workload::Synthetic;

/// Hash of a (source, destination) flow for the delivery checksum.
#[inline]
pub(super) fn flow_hash(src: u32, dst: u32) -> u64 {
    let z = (u64::from(src) << 32 | u64::from(dst)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^ (z >> 29)
}

/// "No time": an unset wake-up.
pub(super) const NEVER: Time = Time::MAX;
/// Link class code of endpoint (NIC) ports and of unconnected ports.
pub(super) const NIC_CLASS: u8 = u8::MAX;
pub(super) const NO_LINK: u8 = u8::MAX - 1;

/// What travels between entities (and what an entity schedules for itself).
#[derive(Debug, Clone, Copy)]
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
}

/// Which part of a run the simulation is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Measure,
    Drain,
    /// Fixed-duration mode.
    Run,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Warmup => "warmup",
            Phase::Measure => "measure",
            Phase::Drain => "drain",
            Phase::Run => "run",
        }
    }
}

/// What a progress callback sees.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub sim_time_ps: Time,
    /// End of the measurement window (or of the fixed duration).
    pub target_time_ps: Time,
    pub phase: Phase,
    pub events: u64,
    pub wall_s: f64,
    pub packets_in_flight: u64,
}

/// The parameters of one port's outgoing link, resolved once.
#[derive(Debug, Clone, Copy)]
pub(super) struct PortLink {
    pub latency_ps: Time,
    pub bytes_per_s: u64,
    /// Serialization times of the workload's packet sizes, (bytes, ps): spares a division per
    /// hop.
    cached: [(u32, Time); 2],
}

impl PortLink {
    fn new(latency_ps: Time, bytes_per_s: u64, packet_sizes: &[u32]) -> Self {
        let cache = |b: Option<&u32>| {
            b.map_or((0, 0), |&b| {
                (b, serialization_ps(u64::from(b), bytes_per_s))
            })
        };
        PortLink {
            latency_ps,
            bytes_per_s,
            cached: [cache(packet_sizes.first()), cache(packet_sizes.last())],
        }
    }

    #[inline]
    pub fn serialization_ps(&self, bytes: u32) -> Time {
        match self.cached.iter().find(|(b, _)| *b == bytes) {
            Some(&(_, ps)) => ps,
            None => serialization_ps(u64::from(bytes), self.bytes_per_s),
        }
    }
}

/// Counters per endpoint, over the measurement window.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct EndpointCounters {
    pub generated_packets: u64,
    pub generated_bytes: u64,
    pub injected_packets: u64,
    pub injected_bytes: u64,
    /// Time the injection link spent serializing.
    pub injected_busy_ps: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    /// Latency of measured packets sent by this endpoint.
    pub latency_sum_ps: u64,
    pub latency_count: u64,
}

/// Counters per router output link, over the measurement window.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LinkCounters {
    pub bytes: u64,
    pub packets: u64,
    pub busy_ps: u64,
}

/// One VC of one router input port: its buffer, and the routing decision for the packet at its
/// head, kept here so that arbitration reads router state only, never the packet arena.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct InputVc {
    pub queue: Fifo,
    /// Earliest time the head packet may start on its output.
    pub earliest_ps: Time,
    /// Wire bytes of the head packet.
    pub bytes: u32,
    /// VCs the head packet may take on `out_port`.
    pub vc_mask: u16,
    pub out_port: u16,
}

/// A NIC's state, in one cache line.
#[derive(Debug, Clone)]
pub(super) struct Nic {
    /// Packets waiting to be injected (at most one message: sources are drawn lazily).
    pub queue: Fifo,
    /// When the injection link is free.
    pub free_at: Time,
    pub wake_at: Time,
    /// When the next message is due (NEVER: no more messages).
    pub next_gen: Time,
    pub rng: EntityRng,
}

/// One router output port: when its link is free, its pending wake-up, its round-robin
/// pointer, and what it carried in the window.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutputPort {
    pub free_at: Time,
    pub wake_at: Time,
    pub counters: LinkCounters,
    /// Request bit the next round-robin search starts from.
    pub rr: u32,
}

/// A multi-packet message being reassembled: packets still to arrive.
#[derive(Debug, Clone, Copy)]
pub(super) struct Message {
    pub remaining: u32,
}

/// Network-wide statistics.
pub(super) struct Stats {
    pub window_start: Time,
    pub window_end: Time,
    pub latency: LatencyStats,
    pub network_latency: LatencyStats,
    pub message_latency: LatencyStats,
    pub hops_sum: u64,
    pub measured_generated: u64,
    pub measured_delivered: u64,
    pub generated: u64,
    pub injected: u64,
    pub delivered: u64,
    pub misdelivered: u64,
    /// Sum of a hash of (source, destination) over generated packets minus the same over
    /// delivered ones: zero when every packet arrived exactly once where it was sent.
    pub flow_checksum: u64,
    /// Deliveries inside the window and their latency, for Little's law.
    pub window_deliveries: u64,
    pub window_latency_sum_ps: u128,
    pub in_flight: TimeAverage,
    pub packet_hops: u64,
    /// Time until which some link is known to be busy: the watchdog's notion of progress.
    pub progress_until: Time,
}

/// The validated building blocks of a network, without its (large) state.
pub struct Parts {
    pub topology: Box<dyn Topology>,
    pub routing: Box<dyn RoutingFunction>,
    pub traffic: Synthetic,
    pub(super) class_links: Vec<PortLink>,
}

impl Parts {
    /// Checks every combination the config makes (topology, routing, VCs, traffic pattern,
    /// link classes) and builds the parts.
    pub fn build(config: &Config) -> Result<Parts, ConfigError> {
        let topology = topology::build(&config.topology)?;
        let routing = routing::build(&config.routing, topology.as_ref(), config.router.vcs)?;
        let traffic =
            Synthetic::build(&config.traffic, &config.nic, topology.as_ref(), config.seed)?;
        let largest_packet = traffic
            .packet_wire_bytes()
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        if u64::from(largest_packet) > config.router.vc_buffer_bytes {
            return Err(ConfigError::new(
                "router.vc_buffer",
                format!("{}B", config.router.vc_buffer_bytes),
                format!(
                    "at least the largest packet, {largest_packet} B (payload up to nic.mtu plus \
                     nic.header): virtual cut-through admits only whole packets into a buffer"
                ),
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
                    traffic.packet_wire_bytes(),
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
            routing,
            traffic,
            class_links,
        })
    }
}

pub struct Network {
    pub(super) config: Config,
    pub(super) topology: Box<dyn Topology>,
    pub(super) routing: Box<dyn RoutingFunction>,
    pub(super) traffic: Synthetic,
    /// Routers: entity ids below this are routers, the NICs follow.
    pub(super) routers: u32,
    pub(super) ports: usize,
    pub(super) vcs: usize,
    /// An output's request bit set has one bit per input (port, VC) at port << vc_bits | vc, so
    /// that arbitration splits a bit index with a shift; `request_words` u64 words hold it.
    pub(super) vc_bits: u32,
    pub(super) request_words: usize,
    pub(super) router_latency_ps: Time,
    pub(super) arbitration: Arbitration,
    pub(super) in_transit_priority: bool,
    pub(super) class_links: Vec<PortLink>,
    pub(super) nic_link: PortLink,
    /// Link class of each (router, port): an index into `class_links`, NIC_CLASS or NO_LINK.
    pub(super) port_class: Vec<u8>,
    // Router state, indexed by (router * ports + port) [* vcs + vc | * request_words + word].
    pub(super) input_vcs: Vec<InputVc>,
    pub(super) credits: Vec<u32>,
    pub(super) outputs: Vec<OutputPort>,
    pub(super) requests: Vec<u64>,
    // NIC state, indexed by endpoint [* vcs + vc].
    pub(super) nics: Vec<Nic>,
    pub(super) nic_credits: Vec<u32>,
    /// NICs whose next message is due before the end of the measurement window.
    pub(super) nics_owing_window: u64,
    pub(super) endpoint_counters: Vec<EndpointCounters>,
    pub(super) packets: PacketArena,
    pub(super) messages: Vec<Message>,
    pub(super) free_messages: Vec<u32>,
    /// Generation stops at this time.
    pub(super) generation_end: Time,
    pub(super) stats: Stats,
    // Scratch for the router being settled.
    pub(super) dirty_outputs: Vec<u16>,
    pub(super) is_dirty: Vec<bool>,
    pub(super) candidates: Candidates,
}

impl Network {
    /// Builds the network a config describes, or says why it cannot be built.
    pub fn new(config: &Config) -> Result<Network, ConfigError> {
        let Parts {
            topology,
            routing,
            traffic,
            class_links,
        } = Parts::build(config)?;
        let vcs = config.router.vcs as usize;
        let nic_link = PortLink::new(
            config.nic.injection_latency_ps,
            config.nic.injection_bandwidth_bytes_per_s,
            traffic.packet_wire_bytes(),
        );
        let routers = topology.num_routers() as usize;
        let endpoints = topology.num_endpoints() as usize;
        let ports = usize::from(topology.ports_per_router());
        let vc_bits = vcs.next_power_of_two().trailing_zeros();
        let request_words = (ports << vc_bits).div_ceil(64);
        let mut port_class = Vec::with_capacity(routers * ports);
        let mut credits = Vec::with_capacity(routers * ports * vcs);
        let vc_buffer = config.router.vc_buffer_bytes as u32;
        for r in 0..routers as u32 {
            for p in 0..ports as u16 {
                let (class, credit) = match topology.peer(r, p) {
                    Peer::Router { .. } => (topology.link_class(r, p) as u8, vc_buffer),
                    // NICs sink packets at line rate: ejection never waits for credits.
                    Peer::Endpoint(_) => (NIC_CLASS, u32::MAX),
                    Peer::Unconnected => (NO_LINK, 0),
                };
                port_class.push(class);
                credits.extend(std::iter::repeat_n(credit, vcs));
            }
        }
        let nics = (0..endpoints)
            .map(|e| Nic {
                queue: Fifo::default(),
                free_at: 0,
                wake_at: NEVER,
                next_gen: NEVER,
                rng: entity_stream(config.seed, (routers + e) as u64),
            })
            .collect();
        let (window_start, window_end) = match config.run.duration_ps {
            Some(duration) => (0, duration),
            None => (
                config.run.warmup_ps,
                config.run.warmup_ps + config.run.measure_ps,
            ),
        };
        let generation_end = match (config.run.duration_ps, config.run.drain) {
            (Some(duration), _) => duration,
            (None, Drain::Measured) => NEVER,
            (None, Drain::All | Drain::None) => window_end,
        };
        Ok(Network {
            config: config.clone(),
            routing,
            traffic,
            routers: routers as u32,
            ports,
            vcs,
            vc_bits,
            request_words,
            router_latency_ps: config.router.latency_ps,
            arbitration: config.router.arbitration,
            in_transit_priority: config.router.in_transit_priority,
            class_links,
            nic_link,
            port_class,
            input_vcs: vec![InputVc::default(); routers * ports * vcs],
            credits,
            outputs: vec![
                OutputPort {
                    free_at: 0,
                    wake_at: NEVER,
                    counters: LinkCounters::default(),
                    rr: 0,
                };
                routers * ports
            ],
            requests: vec![0; routers * ports * request_words],
            nics,
            nic_credits: vec![vc_buffer; endpoints * vcs],
            nics_owing_window: 0,
            endpoint_counters: vec![EndpointCounters::default(); endpoints],
            packets: PacketArena::default(),
            messages: Vec::new(),
            free_messages: Vec::new(),
            generation_end,
            stats: Stats {
                window_start,
                window_end,
                latency: LatencyStats::default(),
                network_latency: LatencyStats::default(),
                message_latency: LatencyStats::default(),
                hops_sum: 0,
                measured_generated: 0,
                measured_delivered: 0,
                generated: 0,
                injected: 0,
                delivered: 0,
                misdelivered: 0,
                flow_checksum: 0,
                window_deliveries: 0,
                window_latency_sum_ps: 0,
                in_flight: TimeAverage::new(window_start, window_end),
                packet_hops: 0,
                progress_until: 0,
            },
            dirty_outputs: Vec::with_capacity(ports),
            is_dirty: vec![false; ports],
            candidates: Candidates::new(),
            topology,
        })
    }

    pub fn topology(&self) -> &dyn Topology {
        self.topology.as_ref()
    }

    #[inline]
    pub(super) fn num_routers(&self) -> u32 {
        self.routers
    }

    /// Entity id of endpoint `e`'s NIC (routers come first).
    #[inline]
    pub(super) fn nic_entity(&self, endpoint: u32) -> EntityId {
        self.num_routers() + endpoint
    }

    /// The link leaving (router, port): its class's parameters, or the NIC link's.
    #[inline]
    pub(super) fn port_link(&self, port_index: usize) -> PortLink {
        match self.port_class[port_index] {
            NIC_CLASS => self.nic_link,
            class => self.class_links[usize::from(class)],
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

    /// Largest one-hop time (router latency + link latency + serialization of the largest
    /// packet on the slowest link): the scale of the automatic deadlock timeout.
    fn largest_hop_ps(&self) -> Time {
        let largest_packet = self.config.nic.mtu_bytes + self.config.nic.header_bytes;
        self.class_links
            .iter()
            .chain(std::iter::once(&self.nic_link))
            .map(|l| l.latency_ps + serialization_ps(largest_packet, l.bytes_per_s))
            .max()
            .unwrap_or(0)
            + self.router_latency_ps
    }

    /// Runs the simulation to its end. `progress` is called about every `interval_s` seconds of
    /// wall time; returning false stops the run with [`SimError::Interrupted`].
    pub fn run(
        mut self,
        interval_s: f64,
        progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<RunOutput, SimError> {
        let wall_start = Instant::now();
        let run = self.config.run.clone();
        let mut sched: Scheduler<NetEvent> = Scheduler::new();
        self.start_sources(&mut sched);
        let window_end = self.stats.window_end;
        let stop_at = match run.duration_ps {
            Some(duration) => duration,
            None if run.drain == Drain::None => window_end,
            None => window_end.saturating_add(
                run.drain_limit_ps
                    .unwrap_or(20 * (run.warmup_ps + run.measure_ps)),
            ),
        };
        let deadlock_timeout = run
            .deadlock_timeout_ps
            .unwrap_or_else(|| (1000 * self.largest_hop_ps()).max(1_000_000));
        let waits_for_measured = run.duration_ps.is_none() && run.drain == Drain::Measured;
        let mut last_report = Instant::now();
        let mut steps: u64 = 0;
        // Why the loop ended: the queue ran empty, every measured packet arrived, or the clock
        // reached `stop_at`.
        let (end, idle, all_measured_arrived) = loop {
            let Some(next) = sched.next_time() else {
                break (sched.now(), true, false);
            };
            if next >= stop_at {
                break (stop_at, false, false);
            }
            if let Step::Ran { time, .. } = sched.step(&mut self) {
                let in_network = self.stats.injected - self.stats.delivered;
                if in_network > 0
                    && time > self.stats.progress_until.saturating_add(deadlock_timeout)
                {
                    return Err(SimError::Deadlock(Box::new(self.deadlock_report(time))));
                }
                if waits_for_measured
                    && time >= window_end
                    && self.nics_owing_window == 0
                    && self.stats.measured_delivered == self.stats.measured_generated
                {
                    break (time, false, true);
                }
            }
            steps += 1;
            if steps % 4096 == 0 && last_report.elapsed().as_secs_f64() >= interval_s {
                last_report = Instant::now();
                let now = sched.now();
                let report = Progress {
                    sim_time_ps: now,
                    target_time_ps: window_end,
                    phase: self.phase(now),
                    events: sched.events(),
                    wall_s: wall_start.elapsed().as_secs_f64(),
                    packets_in_flight: self.packets_in_flight(),
                };
                if !progress(&report) {
                    return Err(SimError::Interrupted);
                }
            }
        };
        if idle && self.stats.injected > self.stats.delivered {
            return Err(SimError::Deadlock(Box::new(self.deadlock_report(end))));
        }
        let drained = match (run.duration_ps, run.drain) {
            (None, Drain::Measured) => all_measured_arrived || idle,
            (None, Drain::None) => false,
            _ => self.packets_in_flight() == 0,
        };
        let source_queue_packets = self.account_backlog(end);
        let wall_s = wall_start.elapsed().as_secs_f64();
        Ok(self.results(end, drained, sched.events(), wall_s, source_queue_packets))
    }

    fn phase(&self, now: Time) -> Phase {
        if self.config.run.duration_ps.is_some() {
            Phase::Run
        } else if now < self.stats.window_start {
            Phase::Warmup
        } else if now < self.stats.window_end {
            Phase::Measure
        } else {
            Phase::Drain
        }
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
        _sched: &mut Scheduler<NetEvent>,
    ) {
        match event {
            NetEvent::Arrive { port, vc, packet } => {
                self.packet_arrives(now, target, port, vc, packet)
            }
            NetEvent::Credit { port, vc, bytes } => self.credit_arrives(target, port, vc, bytes),
            NetEvent::Wake { port } => self.output_wakes(now, target, port),
            NetEvent::NicCredit { vc, bytes } => {
                let e = (target - self.num_routers()) as usize;
                self.nic_credits[e * self.vcs + usize::from(vc)] += bytes;
            }
            NetEvent::NicWake => {
                let e = (target - self.num_routers()) as usize;
                if self.nics[e].wake_at == now {
                    self.nics[e].wake_at = NEVER;
                }
            }
            NetEvent::Deliver { packet } => self.deliver(now, target - self.num_routers(), packet),
        }
    }

    #[inline]
    fn prefetch(&self, target: EntityId, event: &NetEvent) {
        match *event {
            NetEvent::Arrive { port, vc, packet } => {
                self.packets.prefetch(packet);
                let router = target as usize * self.ports;
                prefetch_line(
                    &self.input_vcs[(router + usize::from(port)) * self.vcs + usize::from(vc)],
                );
                prefetch_line(&self.credits[router * self.vcs]);
                prefetch_line(&self.requests[router * self.request_words]);
                prefetch_line(&self.port_class[router]);
            }
            NetEvent::Deliver { packet } => {
                self.packets.prefetch(packet);
                prefetch_line(&self.nics[(target - self.num_routers()) as usize]);
            }
            NetEvent::Credit { port, .. } | NetEvent::Wake { port } => {
                let index = target as usize * self.ports + usize::from(port);
                prefetch_line(&self.outputs[index]);
                prefetch_line(&self.credits[index * self.vcs]);
                prefetch_line(&self.requests[index * self.request_words]);
            }
            NetEvent::NicCredit { .. } | NetEvent::NicWake => {
                prefetch_line(&self.nics[(target - self.num_routers()) as usize]);
            }
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
