//! The network split across workers (DESIGN §3): each worker owns the routers of one part and
//! their NICs, with its own event queue, packet arena, statistics and scratch; the per-entity
//! state arrays are shared, each worker touching only its own entities' entries. Events for
//! another worker's entities leave through an outbox (an arriving packet travels by value) and
//! are handed over at the end of each window; they are never due before the window ends,
//! because every one crosses a link (or models a notification) at least the window long.

use std::sync::Arc;

use super::model::{NetEvent, Network};
use super::packet::{Packet, PacketArena};
use super::state::{InputPool, Stats};
use crate::engine::{EntityId, Scheduler, Time};
use crate::parallel::Partition;
use crate::routing::Candidates;
use crate::workload::mpi::Envelope;

/// An event for another worker's entity.
#[derive(Debug, Clone, Copy)]
pub(super) struct Crossing {
    pub time: Time,
    pub source: EntityId,
    pub target: EntityId,
    /// An `Arrive`'s packet is an index into the outbox's packets.
    pub event: NetEvent,
}

/// What one worker sends another in one window.
#[derive(Default)]
pub struct Outbox {
    pub(super) events: Vec<Crossing>,
    pub(super) packets: Vec<Packet>,
    /// Envelopes of the messages sent to the other worker's hosts (by token): they arrive
    /// before the messages' packets, which cross a link at least the window long.
    pub(super) envelopes: Vec<(u32, Envelope)>,
    /// Tokens the other worker numbered and this one is done with.
    pub(super) released: Vec<u32>,
}

/// A worker's view of the partition and its outboxes.
pub(super) struct Remote {
    /// The worker of every entity (routers, then NICs).
    part_of: Arc<[u32]>,
    me: u32,
    outboxes: Vec<Outbox>,
}

impl Network {
    /// Schedules `event` for `target`: in this worker's queue, or in the outbox of the worker
    /// that owns `target`.
    #[inline]
    pub(super) fn send(
        &mut self,
        sched: &mut Scheduler<NetEvent>,
        time: Time,
        source: EntityId,
        target: EntityId,
        event: NetEvent,
    ) {
        if let Some(remote) = self.remote.as_deref_mut() {
            let part = remote.part_of[target as usize];
            if part != remote.me {
                let outbox = &mut remote.outboxes[part as usize];
                let event = match event {
                    NetEvent::Arrive { port, vc, packet } => {
                        outbox.packets.push(self.packets[packet]);
                        self.packets.release(packet);
                        NetEvent::Arrive {
                            port,
                            vc,
                            packet: (outbox.packets.len() - 1) as u32,
                        }
                    }
                    other => other,
                };
                outbox.events.push(Crossing {
                    time,
                    source,
                    target,
                    event,
                });
                return;
            }
        }
        sched.schedule(time, source, target, event);
    }

    /// Whether this worker owns endpoint `e`'s NIC (always, in a sequential run).
    #[inline]
    pub(super) fn owns_nic(&self, e: u32) -> bool {
        self.remote
            .as_ref()
            .is_none_or(|r| r.part_of[self.nic_entity(e) as usize] == r.me)
    }

    /// Sends a copy of message `token`'s envelope with it when its destination endpoint `dst`
    /// belongs to another worker.
    pub(super) fn ship_envelope(&mut self, dst: u32, token: u32) {
        let nic = self.nic_entity(dst);
        if let (Some(remote), Some(mpi)) = (self.remote.as_deref_mut(), self.mpi.as_ref()) {
            let part = remote.part_of[nic as usize];
            if part != remote.me {
                remote.outboxes[part as usize]
                    .envelopes
                    .push((token, mpi.envelope(token)));
            }
        }
    }

    /// Takes the outboxes filled in this window (one per worker).
    pub(super) fn take_outboxes(&mut self) -> Vec<Outbox> {
        match self.remote.as_deref_mut() {
            Some(remote) => {
                if let Some(mpi) = self.mpi.as_mut() {
                    for token in mpi.take_released() {
                        let part = mpi.numbered_by(token) as usize;
                        remote.outboxes[part].released.push(token);
                    }
                }
                let parts = remote.outboxes.len();
                std::mem::replace(
                    &mut remote.outboxes,
                    (0..parts).map(|_| Outbox::default()).collect(),
                )
            }
            None => Vec::new(),
        }
    }

    /// Queues the events another worker sent this one.
    pub(super) fn receive(&mut self, outbox: Outbox, sched: &mut Scheduler<NetEvent>) {
        if let Some(mpi) = self.mpi.as_mut() {
            for (token, envelope) in outbox.envelopes {
                mpi.accept(token, envelope);
            }
            for token in outbox.released {
                mpi.release(token);
            }
        }
        for c in outbox.events {
            let event = match c.event {
                NetEvent::Arrive { port, vc, packet } => NetEvent::Arrive {
                    port,
                    vc,
                    packet: self.packets.alloc(outbox.packets[packet as usize]),
                },
                other => other,
            };
            sched.schedule(c.time, c.source, c.target, event);
        }
    }

    /// The worker of every entity under `partition` (a NIC goes with its router).
    pub(super) fn entity_parts(&self, partition: &Partition) -> Arc<[u32]> {
        let endpoints = self.topology.num_endpoints();
        partition
            .part_of
            .iter()
            .copied()
            .chain((0..endpoints).map(|e| {
                let (router, _) = self.topology.endpoint_attachment(e);
                partition.part_of[router as usize]
            }))
            .collect()
    }

    /// One worker per part: views of this network's per-entity arrays, and state of its own
    /// for everything else.
    ///
    /// # Safety
    /// The workers must not outlive `self`, and each must handle only the events of the
    /// entities `part_of` gives it (which `send` and `owns_nic` ensure), so that no entry of
    /// a shared array is touched by two workers between two synchronizations.
    pub(super) unsafe fn workers(&self, part_of: &Arc<[u32]>, parts: u32) -> Vec<Network> {
        (0..parts)
            .map(|me| Network {
                config: Arc::clone(&self.config),
                topology: Arc::clone(&self.topology),
                routing: Arc::clone(&self.routing),
                synthetic: self.synthetic.clone(),
                burst: self.burst.clone(),
                // SAFETY: as for the network's arrays; ranks go with their endpoints' NICs.
                mpi: self.mpi.as_ref().map(|m| Box::new(m.worker(me, parts))),
                actions: Vec::new(),
                mtu_bytes: self.mtu_bytes,
                header_bytes: self.header_bytes,
                max_outstanding: self.max_outstanding,
                eligibility_delay_ps: self.eligibility_delay_ps,
                injection_cap_bytes: self.injection_cap_bytes,
                injection_cap_window_ps: self.injection_cap_window_ps,
                closed: self.closed,
                routers: self.routers,
                ports: self.ports,
                vcs: self.vcs,
                vc_bits: self.vc_bits,
                request_words: self.request_words,
                router_latency_ps: self.router_latency_ps,
                arbitration: self.arbitration,
                in_transit_priority: self.in_transit_priority,
                class_links: self.class_links.clone(),
                nic_link: self.nic_link,
                port_class: self.port_class.view(),
                input_blocks: self.input_blocks.view(),
                inputs: InputPool::new(self.vcs),
                credits: self.credits.view(),
                outputs: self.outputs.view(),
                requests: self.requests.view(),
                nics: self.nics.view(),
                nic_limits: self.nic_limits.view(),
                nic_credits: self.nic_credits.view(),
                nics_owing_window: 0,
                endpoint_counters: self.endpoint_counters.view(),
                source_latency: self.source_latency.view(),
                packets: PacketArena::default(),
                reassembly: Default::default(),
                generation_end: self.generation_end,
                stats: Stats::new(self.stats.window_start, self.stats.window_end),
                recorder: self.recorder.clone(),
                dirty_outputs: Vec::with_capacity(self.ports),
                is_dirty: vec![false; self.ports],
                candidates: Candidates::new(),
                vc_buffer_bytes: self.vc_buffer_bytes,
                escape_vcs: self.escape_vcs,
                threshold_bytes: self.threshold_bytes,
                global_view: self.global_view,
                bubble: self.bubble,
                blocked: Vec::new(),
                peak_packets: 0,
                remote: Some(Box::new(Remote {
                    part_of: Arc::clone(part_of),
                    me,
                    outboxes: (0..parts).map(|_| Outbox::default()).collect(),
                })),
            })
            .collect()
    }

    /// Adds a finished worker's statistics and records to this network's.
    pub(super) fn absorb(&mut self, worker: &Network) {
        self.stats.merge(&worker.stats);
        self.nics_owing_window = self
            .nics_owing_window
            .wrapping_add(worker.nics_owing_window);
        if let (Some(mine), Some(theirs)) = (self.recorder.as_mut(), worker.recorder.as_ref()) {
            mine.merge(theirs);
        }
        if let (Some(mine), Some(theirs)) = (self.mpi.as_mut(), worker.mpi.as_ref()) {
            mine.absorb(theirs);
        }
        if let (Some(mine), Some(theirs)) = (self.burst.as_mut(), worker.burst.as_ref()) {
            mine.starts_ps.clone_from(&theirs.starts_ps);
            mine.ends_ps.clone_from(&theirs.ends_ps);
        }
        self.peak_packets += worker.packets.capacity() as u64;
    }
}
