//! The per-router and per-NIC state arrays: allocated for the routers and NICs a network holds
//! (all of them, or one process's part of a run across processes, see [`Held`]), and shared by
//! the workers of a parallel run through views, each worker touching only its own entities'
//! entries (see `parallel`).

use super::model::{port_classes, port_peers, Held};
use super::rate::RateWindow;
use super::state::{EndpointCounters, Nic, NicLimits, RouterPort, SourceLatency, NEVER};
use crate::engine::{entity_stream, huge_page_vec};
use crate::parallel::SharedArray;
use crate::topology::{Peer, Topology};
use std::sync::Arc;

/// Networks of at most this many router ports (a table of 256 KiB) keep what every port is
/// wired to in a table: a departure reads it twice (the credit's way back, the packet's way
/// on), and a load costs a few instructions where the topology's virtual call costs some forty.
/// Larger networks ask the topology: the table would add 8 bytes per port to their memory per
/// endpoint (2% on the 16,512-endpoint dragonfly benchmark) and a cache miss to each lookup,
/// where a torus computes its neighbours from nothing. The same limit decides whether a network
/// keeps where every endpoint hangs (`attachment_table`).
const PEER_TABLE_MAX_PORTS: usize = 1 << 15;
const _: () = assert!(std::mem::size_of::<Peer>() == 8);

/// Where every endpoint hangs (its router and the router's port), on networks small enough for
/// the table of what ports are wired to (`PEER_TABLE_MAX_PORTS`); empty on larger ones. A
/// packet asks it several times (its destination router when injected, the port it leaves its
/// last router by, the NIC's own router, the minimal route's ends), each time a virtual call of
/// some thirty instructions through the topology. Indexed by endpoint, for all of them: every
/// process may route toward any.
pub(super) fn attachment_table(topology: &dyn Topology) -> Arc<[(u32, u16)]> {
    let ports = topology.num_routers() as usize * usize::from(topology.ports_per_router());
    if ports > PEER_TABLE_MAX_PORTS {
        return Arc::from([]);
    }
    (0..topology.num_endpoints())
        .map(|e| topology.endpoint_attachment(e))
        .collect()
}

/// Router state, indexed by router * ports + port (the router ports of the routers held).
#[derive(Default)]
pub(super) struct RouterArrays {
    /// Link class of each port: an index into the classes' links, NIC_CLASS or NO_LINK.
    pub(super) port_class: SharedArray<u8>,
    /// What each port is wired to, on networks of at most `PEER_TABLE_MAX_PORTS` ports (empty on
    /// larger ones: see `Network::peer`).
    pub(super) peers: SharedArray<Peer>,
    pub(super) ports: SharedArray<RouterPort>,
    /// Each router's use of its packet-rate limit, by router (empty without
    /// `router.packet_rate`).
    pub(super) rate_windows: SharedArray<RateWindow>,
}

impl RouterArrays {
    /// The state of routers `held.routers` of `topology`, `ports` each.
    pub(super) fn new(topology: &dyn Topology, held: &Held, packet_rate: bool) -> Self {
        let routers = held.routers.clone();
        let ports = usize::from(topology.ports_per_router());
        let first = routers.start * ports;
        let len = routers.len() * ports;
        RouterArrays {
            port_class: SharedArray::starting_at(first, port_classes(topology, routers.clone())),
            peers: if len <= PEER_TABLE_MAX_PORTS {
                SharedArray::starting_at(first, port_peers(topology, routers.clone()))
            } else {
                SharedArray::default()
            },
            ports: SharedArray::starting_at(first, huge_page_vec(RouterPort::default(), len)),
            rate_windows: if packet_rate {
                SharedArray::starting_at(routers.start, vec![RateWindow::default(); routers.len()])
            } else {
                SharedArray::default()
            },
        }
    }

    /// Views of the same entries.
    ///
    /// # Safety
    /// As for [`SharedArray::view`].
    pub(super) unsafe fn view(&self) -> Self {
        RouterArrays {
            port_class: self.port_class.view(),
            peers: self.peers.view(),
            ports: self.ports.view(),
            rate_windows: self.rate_windows.view(),
        }
    }
}

/// NIC state, indexed by endpoint (a NIC port) [* vcs + vc for the credits].
#[derive(Default)]
pub(super) struct NicArrays {
    pub(super) state: SharedArray<Nic>,
    /// Per-NIC throttle, burst and cap state (empty when no feature needs it).
    pub(super) limits: SharedArray<NicLimits>,
    /// Credits of each NIC's VCs in its router's injection port.
    pub(super) credits: SharedArray<u32>,
    pub(super) counters: SharedArray<EndpointCounters>,
    /// Latency of the measured packets each endpoint sent, recorded where they arrive: for
    /// every endpoint of the network, since a NIC receives from any source.
    pub(super) source_latency: SharedArray<SourceLatency>,
    /// Each node's next port in turn, by node, with several ports per node (empty with one).
    pub(super) port_turn: SharedArray<u32>,
}

/// What sizes the NICs' state besides the NICs held.
pub(super) struct NicShape {
    pub(super) vcs: usize,
    pub(super) vc_buffer_bytes: u32,
    /// Whether a feature needs the per-NIC limits.
    pub(super) limits: bool,
    /// Seed of the NICs' random streams, and the entity id of NIC 0 (routers come first).
    pub(super) seed: u64,
    pub(super) first_nic: usize,
    /// Endpoints of the whole network, nodes, and NIC ports per node.
    pub(super) all_endpoints: usize,
    pub(super) nodes: usize,
    pub(super) node_ports: u32,
}

impl NicArrays {
    /// The state of NICs `held.endpoints`.
    pub(super) fn new(held: &Held, shape: &NicShape) -> Self {
        let endpoints = held.endpoints.clone();
        let first = endpoints.start;
        NicArrays {
            state: SharedArray::starting_at(
                first,
                endpoints
                    .clone()
                    .map(|e| Nic {
                        queue: Default::default(),
                        cut_packets: 0,
                        messages_started: 0,
                        free_at: 0,
                        wake_at: NEVER,
                        next_gen: NEVER,
                        rng: entity_stream(shape.seed, (shape.first_nic + e) as u64),
                    })
                    .collect(),
            ),
            limits: if shape.limits {
                SharedArray::starting_at(first, vec![NicLimits::default(); endpoints.len()])
            } else {
                SharedArray::default()
            },
            credits: SharedArray::starting_at(
                first * shape.vcs,
                huge_page_vec(shape.vc_buffer_bytes, endpoints.len() * shape.vcs),
            ),
            counters: SharedArray::starting_at(
                first,
                huge_page_vec(EndpointCounters::default(), endpoints.len()),
            ),
            source_latency: (0..shape.all_endpoints)
                .map(|_| SourceLatency::default())
                .collect::<Vec<_>>()
                .into(),
            port_turn: if shape.node_ports > 1 {
                vec![0; shape.nodes].into()
            } else {
                SharedArray::default()
            },
        }
    }

    /// Views of the same entries.
    ///
    /// # Safety
    /// As for [`SharedArray::view`].
    pub(super) unsafe fn view(&self) -> Self {
        NicArrays {
            state: self.state.view(),
            limits: self.limits.view(),
            credits: self.credits.view(),
            counters: self.counters.view(),
            source_latency: self.source_latency.view(),
            port_turn: self.port_turn.view(),
        }
    }
}
