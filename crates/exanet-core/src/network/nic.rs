//! The NIC: turns workload messages into packets (segmentation at the MTU), injects them over
//! the injection link when the router's injection buffer has credits, and takes delivered
//! packets off the ejection link (reassembly, statistics).

use super::model::{flow_hash, Message, NetEvent, Network, NEVER};
use super::packet::{Packet, NO_MESSAGE, NO_PACKET};
use super::serialization_ps;
use crate::engine::{Scheduler, Time};

impl Network {
    /// The workload's next message at endpoint `e`: segment, queue, and schedule the one after.
    pub(super) fn generate(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        let dst =
            self.traffic
                .pattern
                .destination(e, self.topology.as_ref(), &mut self.nic_rngs[ei]);
        self.send_message(now, e, dst);
        let next = now + self.traffic.next_gap(&mut self.nic_rngs[ei], false);
        if next < self.generation_end {
            let nic = self.nic_entity(e);
            sched.schedule(next, nic, nic, NetEvent::Generate);
        }
    }

    /// Queues one message from `src` to `dst` at `src`'s NIC, cut into packets.
    pub(super) fn send_message(&mut self, now: Time, src: u32, dst: u32) {
        let (dst_router, dst_port) = self.topology.endpoint_attachment(dst);
        let measured = self.in_window(now);
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
        self.stats
            .in_flight
            .set(now, self.packets_in_flight() + packet_count as u64);
        for i in 0..packet_count {
            let bytes = self.traffic.packet_wire_bytes()[i];
            let id = self.packets.alloc(Packet {
                gen_ps: now,
                inject_ps: 0,
                tail_ps: 0,
                earliest_ps: 0,
                next: NO_PACKET,
                src,
                dst,
                dst_router,
                message,
                bytes,
                vc_mask: 0,
                out_port: 0,
                dst_port,
                hops: 0,
                measured,
            });
            self.nic_queues[src as usize].push(id, &mut self.packets);
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

    /// Injects the packet at the head of the NIC's queue if the link is free and the router's
    /// injection buffer has room for it on some VC.
    pub(super) fn try_inject(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        let queue = self.nic_queues[ei];
        if queue.is_empty() {
            return;
        }
        let nic = self.nic_entity(e);
        if self.nic_free_at[ei] > now {
            if self.nic_wake_at[ei] == NEVER || self.nic_wake_at[ei] < now {
                self.nic_wake_at[ei] = self.nic_free_at[ei];
                sched.schedule(self.nic_free_at[ei], nic, nic, NetEvent::NicWake);
            }
            return;
        }
        let bytes = self.packets[queue.head].bytes;
        let credits = &mut self.nic_credits[ei * self.vcs..(ei + 1) * self.vcs];
        let Some(vc) = (0..self.vcs)
            .filter(|&v| credits[v] >= bytes)
            .max_by_key(|&v| (credits[v], std::cmp::Reverse(v)))
        else {
            return; // a NicCredit event will bring us back
        };
        credits[vc] -= bytes;
        let id = self.nic_queues[ei].pop(&self.packets);
        let ser = serialization_ps(u64::from(bytes), self.nic_link.bytes_per_s);
        let tail_out = now + ser;
        self.nic_free_at[ei] = tail_out;
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
            nic,
            router,
            NetEvent::Arrive {
                port,
                vc: vc as u8,
                packet: id,
            },
        );
        if !self.nic_queues[ei].is_empty() {
            self.nic_wake_at[ei] = tail_out;
            sched.schedule(tail_out, nic, nic, NetEvent::NicWake);
        }
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
