//! The NIC: turns workload messages into packets (segmentation at the MTU), injects them over
//! the injection link when the router's injection buffer has credits, and takes delivered
//! packets off the ejection link (reassembly, statistics).
//!
//! Open-loop sources are generated lazily: a NIC draws its next message (destination and the
//! gap to the one after) only when its queue is empty and the message is due, and stamps it
//! with the time it was due. The draws come from the NIC's own stream in the same order as if
//! every message were created on time, so the traffic is the same; but a backlogged source
//! holds one message, not an ever-growing queue, and costs no events while it waits.

use super::model::{NetEvent, Network};
use super::packet::{Packet, NO_MESSAGE, NO_PACKET};
use super::state::{flow_hash, route_random, Message, NEVER};
use crate::engine::{Scheduler, Time};
use crate::routing::NO_VIA;

impl Network {
    /// Draws endpoint `e`'s message due at its `next_gen` and the time of the one after.
    fn materialize(&mut self, now: Time, e: u32) {
        let ei = e as usize;
        let due = self.nics[ei].next_gen;
        let dst =
            self.traffic
                .pattern
                .destination(e, self.topology.as_ref(), &mut self.nics[ei].rng);
        self.send_message(due, now, e, dst);
        self.advance_generation(e, due);
    }

    /// Draws the gap after the message due at `due` and records when the next one is due.
    fn advance_generation(&mut self, e: u32, due: Time) {
        let ei = e as usize;
        let next = due + self.traffic.next_gap(&mut self.nics[ei].rng, false);
        let next = if next < self.generation_end {
            next
        } else {
            NEVER
        };
        if due < self.stats.window_end && next >= self.stats.window_end {
            self.nics_owing_window -= 1;
        }
        self.nics[ei].next_gen = next;
    }

    /// Sets the first message time of every NIC and wakes them for it.
    pub(super) fn start_sources(&mut self, sched: &mut Scheduler<NetEvent>) {
        for e in 0..self.topology.num_endpoints() {
            let ei = e as usize;
            let first = self.traffic.next_gap(&mut self.nics[ei].rng, true);
            if first < self.generation_end {
                self.nics[ei].next_gen = first;
                if first < self.stats.window_end {
                    self.nics_owing_window += 1;
                }
                let nic = self.nic_entity(e);
                self.nics[ei].wake_at = first;
                sched.schedule(first, nic, nic, NetEvent::NicWake);
            }
        }
    }

    /// Queues one message from `src` to `dst`, created at `gen_ps` and handed to the NIC at
    /// `now`, cut into packets.
    pub(super) fn send_message(&mut self, gen_ps: Time, now: Time, src: u32, dst: u32) {
        let (dst_router, dst_port) = self.topology.endpoint_attachment(dst);
        let measured = self.in_window(gen_ps);
        let packet_count = self.traffic.packet_wire_bytes().len();
        let message = if packet_count > 1 {
            let slot = Message {
                remaining: packet_count as u32,
            };
            match self.free_messages.pop() {
                Some(m) => {
                    self.messages[m as usize] = slot;
                    m
                }
                None => {
                    self.messages.push(slot);
                    (self.messages.len() - 1) as u32
                }
            }
        } else {
            NO_MESSAGE
        };
        // The packets were in flight (waiting at the source) since they were due.
        self.stats
            .in_flight
            .add_span(gen_ps, now, packet_count as u64);
        self.stats
            .in_flight
            .set(now, self.packets_in_flight() + packet_count as u64);
        for i in 0..packet_count {
            let bytes = self.traffic.packet_wire_bytes()[i];
            let id = self.packets.alloc(Packet {
                gen_ps,
                inject_ps: 0,
                tail_ps: 0,
                next: NO_PACKET,
                src,
                dst,
                dst_router,
                message,
                bytes,
                dst_port,
                hops: 0,
                measured,
                route_via: NO_VIA,
                route_phase: 0,
                route_random: route_random(src, gen_ps, i as u32),
            });
            self.nics[src as usize].queue.push(id, &mut self.packets);
            self.stats.generated += 1;
            self.stats.flow_checksum = self.stats.flow_checksum.wrapping_add(flow_hash(src, dst));
            if measured {
                self.stats.measured_generated += 1;
                let counters = &mut self.endpoint_counters[src as usize];
                counters.generated_packets += 1;
                counters.generated_bytes += u64::from(bytes);
            }
        }
    }

    /// Settles NIC `e`: draws a due message into an empty queue, injects the head packet if the
    /// link is free and the router's injection buffer has room for it on some VC, and wakes
    /// itself when there is something to do next.
    pub(super) fn try_inject(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        if self.nics[ei].queue.is_empty() && self.nics[ei].next_gen <= now {
            self.materialize(now, e);
        }
        if !self.nics[ei].queue.is_empty() && self.nics[ei].free_at <= now {
            self.inject_head(now, e, sched);
        }
        let wake = if !self.nics[ei].queue.is_empty() {
            // Link busy: wake when it frees. Link free but no credits: a NicCredit will come.
            if self.nics[ei].free_at > now {
                self.nics[ei].free_at
            } else {
                NEVER
            }
        } else if self.nics[ei].next_gen == NEVER {
            NEVER
        } else {
            self.nics[ei].next_gen.max(self.nics[ei].free_at)
        };
        let pending = self.nics[ei].wake_at;
        if wake != NEVER && (pending == NEVER || pending < now || wake < pending) {
            self.nics[ei].wake_at = wake;
            let nic = self.nic_entity(e);
            sched.schedule(wake, nic, nic, NetEvent::NicWake);
        }
    }

    /// Sends the head packet of NIC `e` if its router's injection buffer has room on some VC.
    fn inject_head(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        let bytes = self.packets[self.nics[ei].queue.head].bytes;
        let credits = &mut self.nic_credits[ei * self.vcs..(ei + 1) * self.vcs];
        let Some(vc) = (0..self.vcs)
            .filter(|&v| credits[v] >= bytes)
            .max_by_key(|&v| (credits[v], std::cmp::Reverse(v)))
        else {
            return;
        };
        credits[vc] -= bytes;
        let id = self.nics[ei].queue.pop(&self.packets);
        let ser = self.nic_link.serialization_ps(bytes);
        let tail_out = now + ser;
        self.nics[ei].free_at = tail_out;
        let packet = &mut self.packets[id];
        packet.inject_ps = now;
        packet.tail_ps = tail_out + self.nic_link.latency_ps;
        self.stats.injected += 1;
        self.stats.packet_hops += 1;
        self.stats.progress_until = self.stats.progress_until.max(tail_out);
        if self.in_window(now) {
            let counters = &mut self.endpoint_counters[ei];
            counters.injected_packets += 1;
            counters.injected_bytes += u64::from(bytes);
            counters.injected_busy_ps += ser;
        }
        let (router, port) = self.topology.endpoint_attachment(e);
        sched.schedule(
            now + self.nic_link.latency_ps + self.router_latency_ps,
            self.nic_entity(e),
            router,
            NetEvent::Arrive {
                port,
                vc: vc as u8,
                packet: id,
            },
        );
    }

    /// At the end of a run, counts the messages that were due before `end` but never drawn
    /// (a backlogged source): they were generated, and wait at their source. Returns, per
    /// endpoint, the packets waiting at the source.
    pub(super) fn account_backlog(&mut self, end: Time) -> Vec<u64> {
        let packets_per_message = self.traffic.packet_wire_bytes().len() as u64;
        let message_bytes: u64 = self
            .traffic
            .packet_wire_bytes()
            .iter()
            .map(|&b| u64::from(b))
            .sum();
        let mut waiting = Vec::with_capacity(self.nics.len());
        for e in 0..self.topology.num_endpoints() {
            let ei = e as usize;
            let mut backlog = u64::from(self.nics[ei].queue.len(&self.packets));
            while self.nics[ei].next_gen < end {
                let due = self.nics[ei].next_gen;
                // Same draws as if the message were sent, so the stream stays the same.
                self.traffic
                    .pattern
                    .destination(e, self.topology.as_ref(), &mut self.nics[ei].rng);
                backlog += packets_per_message;
                self.stats.generated += packets_per_message;
                self.stats.in_flight.add_span(due, end, packets_per_message);
                if self.in_window(due) {
                    self.stats.measured_generated += packets_per_message;
                    let counters = &mut self.endpoint_counters[ei];
                    counters.generated_packets += packets_per_message;
                    counters.generated_bytes += message_bytes;
                }
                self.advance_generation(e, due);
            }
            waiting.push(backlog);
        }
        waiting
    }

    /// A packet's tail reached its destination NIC.
    pub(super) fn deliver(&mut self, now: Time, e: u32, id: u32) {
        let packet = self.packets[id];
        self.packets.release(id);
        self.stats.in_flight.set(now, self.packets_in_flight() - 1);
        self.stats.delivered += 1;
        self.stats.flow_checksum = self
            .stats
            .flow_checksum
            .wrapping_sub(flow_hash(packet.src, e));
        if packet.dst != e {
            self.stats.misdelivered += 1;
        }
        let latency = now - packet.gen_ps;
        if self.in_window(now) {
            self.stats.window_deliveries += 1;
            self.stats.window_latency_sum_ps += u128::from(latency);
            let counters = &mut self.endpoint_counters[e as usize];
            counters.received_packets += 1;
            counters.received_bytes += u64::from(packet.bytes);
        }
        let message_done = if packet.message == NO_MESSAGE {
            true
        } else {
            let slot = &mut self.messages[packet.message as usize];
            slot.remaining -= 1;
            if slot.remaining == 0 {
                self.free_messages.push(packet.message);
            }
            slot.remaining == 0
        };
        if packet.measured {
            self.stats.measured_delivered += 1;
            self.stats.latency.record(latency);
            self.stats.network_latency.record(now - packet.inject_ps);
            self.stats.hops_sum += u64::from(packet.hops);
            let counters = &mut self.endpoint_counters[packet.src as usize];
            counters.latency_sum_ps += latency;
            counters.latency_count += 1;
            if message_done {
                self.stats.message_latency.record(latency);
            }
        }
    }
}
