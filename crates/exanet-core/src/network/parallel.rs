//! The network split across workers (docs/architecture.md §4): each worker owns the routers of one
//! part and their NICs, with its own event queue, packet arena, statistics and scratch; the
//! per-entity state arrays are shared, each worker touching only its own entities' entries. Events
//! for another worker's entities leave through an outbox (an arriving packet travels by value) and
//! are handed over at the end of each window; they are never due before the window ends, because
//! every one crosses a link (or models a notification) at least the window long.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::model::{NetEvent, Network};
use super::packet::{Packet, PacketArena};
use super::record::Recorder;
use super::state::{InputPool, OutputPool, Stats, NO_BLOCK};
use crate::engine::{EntityId, Scheduler, Time};
use crate::error::StalledRank;
use crate::parallel::Partition;
use crate::routing::Candidates;
use crate::workload::{HostCounters, HostNote};

/// An event for another worker's entity.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Crossing {
    pub time: Time,
    pub source: EntityId,
    pub target: EntityId,
    /// An `Arrive`'s packet is an index into the outbox's packets.
    pub event: NetEvent,
}

/// What one worker sends another in one window.
#[derive(Default, Serialize, Deserialize)]
pub struct Outbox {
    pub(super) events: Vec<Crossing>,
    pub(super) packets: Vec<Packet>,
    /// What this worker's host tells the other's (see [`HostNote`]).
    pub(super) notes: Vec<HostNote>,
}

/// What one process of a run across processes counted, for the others: its part of every
/// sum, and the entries of the entities it owns.
#[derive(Serialize, Deserialize)]
pub(super) struct RankShare {
    /// Seconds it spent in collective operations.
    pub waited_s: f64,
    stats: Stats,
    recorder: Option<Box<Recorder>>,
    peak_packets: u64,
    nics_owing_window: u64,
    host: Option<HostCounters>,
    /// What its host left undone (see `Host::stuck`).
    stuck_ranks: Vec<(u32, StalledRank)>,
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
    #[inline(always)]
    pub(super) fn send(
        &mut self,
        sched: &mut Scheduler<NetEvent>,
        time: Time,
        source: EntityId,
        target: EntityId,
        event: NetEvent,
    ) {
        if let Some(remote) = self.remote.as_deref() {
            let part = remote.part_of[target as usize];
            if part != remote.me {
                self.send_away(part, time, source, target, event);
                return;
            }
        }
        sched.schedule(time, source, target, event);
    }

    /// Puts `event` in the outbox for worker `part` (apart from `send`, which every event goes
    /// through, so that the common case stays small enough to inline).
    #[inline(never)]
    fn send_away(
        &mut self,
        part: u32,
        time: Time,
        source: EntityId,
        target: EntityId,
        event: NetEvent,
    ) {
        let remote = self
            .remote
            .as_deref_mut()
            .expect("only a worker of a split run sends away");
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
    }

    /// Whether this worker owns router `r` (always, in a sequential run).
    #[inline]
    pub(super) fn owns_router(&self, r: u32) -> bool {
        self.remote
            .as_ref()
            .is_none_or(|remote| remote.part_of[r as usize] == remote.me)
    }

    /// Whether this worker owns endpoint `e`'s NIC (always, in a sequential run).
    #[inline]
    pub(super) fn owns_nic(&self, e: u32) -> bool {
        self.remote
            .as_ref()
            .is_none_or(|r| r.part_of[self.nic_entity(e) as usize] == r.me)
    }

    /// Sends what the host says must travel with message `token` when its destination
    /// endpoint `dst` belongs to another worker.
    pub(super) fn ship_note(&mut self, dst: u32, token: u32) {
        let nic = self.nic_entity(dst);
        if let (Some(remote), Some(host)) = (self.remote.as_deref_mut(), self.host.as_ref()) {
            let part = remote.part_of[nic as usize];
            if part != remote.me {
                if let Some(note) = host.note_for(token) {
                    remote.outboxes[part as usize].notes.push(note);
                }
            }
        }
    }

    /// Takes the outboxes filled in this window (one per worker).
    pub(super) fn take_outboxes(&mut self) -> Vec<Outbox> {
        match self.remote.as_deref_mut() {
            Some(remote) => {
                if let Some(host) = self.host.as_mut() {
                    for (part, note) in host.take_notes() {
                        remote.outboxes[part as usize].notes.push(note);
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
        if let Some(host) = self.host.as_mut() {
            for note in outbox.notes {
                host.accept(note);
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

    /// The workers `mine` of a split into `parts` (one per part): views of this network's
    /// per-entity arrays, and state of their own for everything else.
    ///
    /// # Safety
    /// The workers must not outlive `self`, and each must handle only the events of the
    /// entities `part_of` gives it (which `send` and `owns_nic` ensure), so that no entry of
    /// a shared array is touched by two workers between two synchronizations.
    pub(super) unsafe fn workers(
        &self,
        part_of: &Arc<[u32]>,
        parts: u32,
        mine: Range<u32>,
    ) -> Vec<Network> {
        mine.map(|me| Network {
            config: Arc::clone(&self.config),
            topology: Arc::clone(&self.topology),
            node_topology: Arc::clone(&self.node_topology),
            params: self.params,
            parts_sending: Default::default(),
            routing: Arc::clone(&self.routing),
            synthetic: self.synthetic.clone(),
            burst: self.burst.clone(),
            // SAFETY: as for the network's arrays; hosts go with their endpoints' NICs.
            host: self.host.as_ref().map(|h| h.worker(me, parts)),
            actions: Vec::new(),
            links: self.links.clone(),
            attachments: Arc::clone(&self.attachments),
            routers: self.routers.view(),
            nics: self.nics.view(),
            inputs: InputPool::new(self.params.vcs),
            output_pool: OutputPool::new(self.params.vcs, self.params.request_words),
            nics_owing_window: 0,
            packets: PacketArena::default(),
            reassembly: Default::default(),
            stats: Stats::new(self.stats.window_start, self.stats.window_end),
            recorder: self.recorder.clone(),
            dirty_outputs: Vec::with_capacity(self.params.ports),
            is_dirty: vec![false; self.params.ports],
            candidates: Candidates::new(),
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

    /// What this worker (the one of this process) counted, for the other processes.
    pub(super) fn share(&self, waited_s: f64) -> RankShare {
        RankShare {
            waited_s,
            stats: self.stats.clone(),
            recorder: self.recorder.clone(),
            peak_packets: self.peak_packets + self.packets.capacity() as u64,
            nics_owing_window: self.nics_owing_window,
            host: self.host.as_ref().map(|h| h.counters()),
            stuck_ranks: self
                .host
                .as_ref()
                .map_or_else(Vec::new, |h| h.stuck(&|e| self.owns_nic(e))),
        }
    }

    /// The latencies this worker recorded for other workers' sources, one list per worker:
    /// (source, sum, count).
    pub(super) fn latency_for_others(&self) -> Vec<Vec<(u32, u64, u64)>> {
        let remote = self.remote.as_deref().expect("a worker of a split run");
        let mut outboxes = vec![Vec::new(); remote.outboxes.len()];
        for (e, latency) in self.nics.source_latency.held().iter().enumerate() {
            let (sum, count) = latency.get();
            let part = remote.part_of[self.nic_entity(e as u32) as usize];
            if count > 0 && part != remote.me {
                outboxes[part as usize].push((e as u32, sum, count));
            }
        }
        outboxes
    }

    /// Adds what a process counted (see [`Network::share`]) to this network's statistics;
    /// returns its ranks that did not finish.
    pub(super) fn absorb_share(&mut self, share: &mut RankShare) -> Vec<(u32, StalledRank)> {
        self.stats.merge(&share.stats);
        if let (Some(mine), Some(theirs)) = (self.recorder.as_mut(), share.recorder.as_ref()) {
            mine.merge(theirs);
        }
        self.peak_packets += share.peak_packets;
        self.nics_owing_window = self.nics_owing_window.wrapping_add(share.nics_owing_window);
        if let (Some(host), Some(theirs)) = (self.host.as_mut(), share.host.as_ref()) {
            host.absorb(theirs);
        }
        std::mem::take(&mut share.stuck_ranks)
    }

    /// (index, bytes) of the credits of this worker's router ports, for the other processes: a
    /// deadlock report names the credits upstream of a stuck channel, which another may hold.
    /// Only outputs in use can be short of credits.
    pub(super) fn own_credits(&self) -> Vec<(u32, u32)> {
        let ports = self.params.ports;
        self.routers
            .ports
            .indices()
            .step_by(ports)
            .filter(|&i| self.owns_router((i / ports) as u32))
            .flat_map(|at| at..at + ports)
            .filter(|&i| self.routers.ports[i].output_block != NO_BLOCK)
            .flat_map(|i| {
                let credits = self.output_pool.credits(self.routers.ports[i].output_block);
                (0..self.params.vcs).map(move |v| ((i * self.params.vcs + v) as u32, credits[v]))
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
        if let (Some(mine), Some(theirs)) = (self.host.as_mut(), worker.host.as_ref()) {
            mine.absorb(&theirs.counters());
        }
        if let (Some(mine), Some(theirs)) = (self.burst.as_mut(), worker.burst.as_ref()) {
            mine.starts_ps.clone_from(&theirs.starts_ps);
            mine.ends_ps.clone_from(&theirs.ends_ps);
        }
        self.peak_packets += worker.packets.capacity() as u64;
    }
}
