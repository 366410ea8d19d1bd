//! The router: input buffers per (port, VC), routing of the packet at the head of each buffer,
//! output arbitration, credit-based flow control, and cut-through forwarding.

use super::model::{NetEvent, Network, NEVER, NIC_CLASS};
use super::packet::PacketId;
use super::serialization_ps;
use crate::config::Arbitration;
use crate::engine::{Scheduler, Time};
use crate::routing::{select_most_credits, vcs_in, RouteQuery};
use crate::topology::Peer;

/// The winner of one arbitration round.
struct Grant {
    input: usize,
    vc: u8,
}

impl Network {
    #[inline]
    fn port_index(&self, router: u32, port: u16) -> usize {
        router as usize * self.ports + usize::from(port)
    }

    /// A packet's head reached (port, vc) and its route computation is done.
    pub(super) fn packet_arrives(
        &mut self,
        now: Time,
        router: u32,
        port: u16,
        vc: u8,
        id: PacketId,
    ) {
        let queue = self.port_index(router, port) * self.vcs + usize::from(vc);
        if self.input_queues[queue].push(id, &mut self.packets) {
            self.route_head(now, router, port, vc);
        }
    }

    pub(super) fn credit_arrives(&mut self, router: u32, port: u16, vc: u8, bytes: u32) {
        let index = self.port_index(router, port);
        self.credits[index * self.vcs + usize::from(vc)] += bytes;
        self.mark_dirty_if_requested(index, port);
    }

    pub(super) fn output_wakes(&mut self, now: Time, router: u32, port: u16) {
        let index = self.port_index(router, port);
        if self.output_wake_at[index] == now {
            self.output_wake_at[index] = NEVER;
        }
        self.mark_dirty_if_requested(index, port);
    }

    fn mark_dirty_if_requested(&mut self, index: usize, port: u16) {
        let words = &self.requests[index * self.request_words..(index + 1) * self.request_words];
        if words.iter().any(|&w| w != 0) {
            self.mark_dirty(port);
        }
    }

    #[inline]
    fn mark_dirty(&mut self, port: u16) {
        let p = usize::from(port);
        if !self.is_dirty[p] {
            self.is_dirty[p] = true;
            self.dirty_outputs.push(port);
        }
    }

    /// Routes the packet now at the head of (port, vc) and files its request with the output.
    fn route_head(&mut self, now: Time, router: u32, port: u16, vc: u8) {
        let in_index = self.port_index(router, port);
        let id = self.input_queues[in_index * self.vcs + usize::from(vc)].head;
        let packet = &self.packets[id];
        let query = RouteQuery {
            router,
            in_port: port,
            in_vc: vc,
            injected: self.port_class[in_index] == NIC_CLASS,
            dst_router: packet.dst_router,
            dst_port: packet.dst_port,
        };
        self.candidates.clear();
        self.routing.route(&query, &mut self.candidates);
        let base = router as usize * self.ports;
        let vcs = self.vcs;
        let credits = &self.credits;
        let chosen =
            self.candidates.as_slice()[select_most_credits(self.candidates.as_slice(), |p, v| {
                credits[(base + usize::from(p)) * vcs + v as usize]
            })];
        let out_index = base + usize::from(chosen.port);
        // Cut-through: the tail may not leave before it has arrived, which matters only when
        // the output link is faster than the input link.
        let out_ser = serialization_ps(
            u64::from(packet.bytes),
            self.port_link(out_index).bytes_per_s,
        );
        let earliest = now.max(packet.tail_ps.saturating_sub(out_ser));
        let packet = &mut self.packets[id];
        packet.out_port = chosen.port;
        packet.vc_mask = chosen.vc_mask;
        packet.earliest_ps = earliest;
        let input = usize::from(port) * self.vcs + usize::from(vc);
        self.requests[out_index * self.request_words + input / 64] |= 1 << (input % 64);
        self.mark_dirty(chosen.port);
    }

    /// Arbitrates every output touched since the last settle of this router.
    pub(super) fn allocate_dirty_outputs(
        &mut self,
        now: Time,
        router: u32,
        sched: &mut Scheduler<NetEvent>,
    ) {
        while let Some(port) = self.dirty_outputs.pop() {
            self.is_dirty[usize::from(port)] = false;
            self.allocate(now, router, port, sched);
        }
    }

    /// Schedules a re-arbitration of (router, port) at `at` unless one is due no later.
    fn ensure_wake(
        &mut self,
        now: Time,
        router: u32,
        port: u16,
        at: Time,
        sched: &mut Scheduler<NetEvent>,
    ) {
        let index = self.port_index(router, port);
        let pending = self.output_wake_at[index];
        if pending == NEVER || pending < now || at < pending {
            self.output_wake_at[index] = at;
            sched.schedule(at, router, router, NetEvent::Wake { port });
        }
    }

    /// One arbitration round of output `port`: among the input VCs whose head packet asks for it,
    /// is ready, and has downstream credits on an allowed VC, grant one (round-robin from the
    /// last winner, or oldest first; in-transit packets first under in-transit priority).
    fn allocate(&mut self, now: Time, router: u32, port: u16, sched: &mut Scheduler<NetEvent>) {
        let out_index = self.port_index(router, port);
        let words_at = out_index * self.request_words;
        if self.requests[words_at..words_at + self.request_words]
            .iter()
            .all(|&w| w == 0)
        {
            return;
        }
        if self.output_free_at[out_index] > now {
            let free_at = self.output_free_at[out_index];
            self.ensure_wake(now, router, port, free_at, sched);
            return;
        }
        let ejection = self.port_class[out_index] == NIC_CLASS;
        let inputs = self.ports * self.vcs;
        let start = usize::from(self.output_rr[out_index]) % inputs;
        let oldest_first = self.arbitration == Arbitration::Age;
        let mut best: Option<(Grant, (bool, Time))> = None;
        let mut next_ready = NEVER;
        let words = self.request_words;
        'scan: for step in 0..=words {
            let w = (start / 64 + step) % words;
            let mut bits = self.requests[words_at + w];
            if step == 0 {
                bits &= !0u64 << (start % 64);
            } else if step == words {
                bits &= (1u64 << (start % 64)).wrapping_sub(1);
            }
            while bits != 0 {
                let input = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (in_port, in_vc) = (input / self.vcs, input % self.vcs);
                let in_index = router as usize * self.ports + in_port;
                let id = self.input_queues[in_index * self.vcs + in_vc].head;
                let packet = &self.packets[id];
                if packet.earliest_ps > now {
                    next_ready = next_ready.min(packet.earliest_ps);
                    continue;
                }
                let vc = if ejection {
                    0
                } else {
                    // The allowed VC with the most credits, if the whole packet fits.
                    let credits = &self.credits[out_index * self.vcs..(out_index + 1) * self.vcs];
                    match vcs_in(packet.vc_mask)
                        .filter(|&v| credits[v as usize] >= packet.bytes)
                        .max_by_key(|&v| (credits[v as usize], std::cmp::Reverse(v)))
                    {
                        Some(v) => v as u8,
                        None => continue,
                    }
                };
                let injected = self.in_transit_priority && self.port_class[in_index] == NIC_CLASS;
                let key = (injected, if oldest_first { packet.gen_ps } else { 0 });
                if best.as_ref().is_none_or(|(_, k)| key < *k) {
                    best = Some((Grant { input, vc }, key));
                    if !oldest_first && !self.in_transit_priority {
                        break 'scan;
                    }
                }
            }
        }
        match best {
            Some((grant, _)) => self.grant(now, router, port, grant, sched),
            None if next_ready != NEVER => self.ensure_wake(now, router, port, next_ready, sched),
            None => {}
        }
    }

    /// Sends the head packet of the granted input VC out of `port`.
    fn grant(
        &mut self,
        now: Time,
        router: u32,
        port: u16,
        grant: Grant,
        sched: &mut Scheduler<NetEvent>,
    ) {
        let out_index = self.port_index(router, port);
        let (in_port, in_vc) = (
            (grant.input / self.vcs) as u16,
            (grant.input % self.vcs) as u8,
        );
        let in_index = self.port_index(router, in_port);
        let id = self.input_queues[in_index * self.vcs + usize::from(in_vc)].pop(&self.packets);
        self.requests[out_index * self.request_words + grant.input / 64] &=
            !(1 << (grant.input % 64));
        let inputs = self.ports * self.vcs;
        self.output_rr[out_index] = ((grant.input + 1) % inputs) as u16;

        let bytes = self.packets[id].bytes;
        let out_link = self.port_link(out_index);
        let ser = serialization_ps(u64::from(bytes), out_link.bytes_per_s);
        let tail_out = now + ser;
        self.output_free_at[out_index] = tail_out;
        self.stats.progress_until = self.stats.progress_until.max(tail_out);
        self.stats.packet_hops += 1;
        if self.in_window(now) {
            let counters = &mut self.link_counters[out_index];
            counters.bytes += u64::from(bytes);
            counters.packets += 1;
            counters.busy_ps += ser;
        }

        // The buffer space is free once the tail has left; the credit then crosses the link.
        let in_latency = self.port_link(in_index).latency_ps;
        match self.topology.peer(router, in_port) {
            Peer::Router {
                router: up,
                port: up_port,
            } => sched.schedule(
                tail_out + in_latency,
                router,
                up,
                NetEvent::Credit {
                    port: up_port,
                    vc: in_vc,
                    bytes,
                },
            ),
            Peer::Endpoint(e) => sched.schedule(
                tail_out + in_latency,
                router,
                self.nic_entity(e),
                NetEvent::NicCredit { vc: in_vc, bytes },
            ),
            Peer::Unconnected => unreachable!("packets arrive only on connected ports"),
        }

        match self.topology.peer(router, port) {
            Peer::Router {
                router: down,
                port: down_port,
            } => {
                self.credits[out_index * self.vcs + usize::from(grant.vc)] -= bytes;
                let packet = &mut self.packets[id];
                packet.tail_ps = tail_out + out_link.latency_ps;
                packet.hops += 1;
                sched.schedule(
                    now + out_link.latency_ps + self.router_latency_ps,
                    router,
                    down,
                    NetEvent::Arrive {
                        port: down_port,
                        vc: grant.vc,
                        packet: id,
                    },
                );
            }
            Peer::Endpoint(e) => sched.schedule(
                tail_out + out_link.latency_ps,
                router,
                self.nic_entity(e),
                NetEvent::Deliver { packet: id },
            ),
            Peer::Unconnected => unreachable!("routing never selects an unconnected port"),
        }

        if !self.input_queues[in_index * self.vcs + usize::from(in_vc)].is_empty() {
            self.route_head(now, router, in_port, in_vc);
        }
        self.ensure_wake_if_requested(now, router, port, tail_out, sched);
    }

    fn ensure_wake_if_requested(
        &mut self,
        now: Time,
        router: u32,
        port: u16,
        at: Time,
        sched: &mut Scheduler<NetEvent>,
    ) {
        let index = self.port_index(router, port);
        let words = &self.requests[index * self.request_words..(index + 1) * self.request_words];
        if words.iter().any(|&w| w != 0) {
            self.ensure_wake(now, router, port, at, sched);
        }
    }
}
