//! The NIC: queues workload messages, cuts the head one into packets at the MTU as the
//! injection link and the router's injection buffer allow, and takes delivered packets off the
//! ejection link (reassembly, statistics, the workload's callbacks).
//!
//! Open-loop sources are generated lazily: a NIC draws its next message (destination and the
//! gap to the one after) only when its queue is empty and the message is due, and stamps it
//! with the time it was due. The draws come from the NIC's own stream in the same order as if
//! every message were created on time, so the traffic is the same; but a backlogged source
//! holds one message, not an ever-growing queue, and costs no events while it waits. Packets
//! exist only from injection to delivery.

use super::model::{NetEvent, Network};
use super::packet::{Packet, MEASURED, NO_MESSAGE, NO_PACKET, RESPONSE};
use super::state::{flow_hash, route_random, OutMessage, NEVER, NO_TOKEN};
use crate::config::Striping;
use crate::engine::{Scheduler, Time};
use crate::routing::NO_VIA;
use crate::workload::{Action, Generation};

impl Network {
    /// Packets a message of `bytes` payload is cut into (a 0-byte message is one header); a
    /// message within the MTU (every synthetic one) without a division.
    #[inline]
    pub(super) fn packets_of(&self, bytes: u64) -> u64 {
        if bytes <= self.params.mtu_bytes {
            1
        } else {
            bytes.div_ceil(self.params.mtu_bytes)
        }
    }

    /// Draws endpoint `e`'s message due at its `next_gen` and the time of the one after.
    #[inline(always)]
    fn materialize(&mut self, now: Time, e: u32) {
        let ei = e as usize;
        let source = self
            .synthetic
            .as_ref()
            .expect("only synthetic sources generate");
        // A burst's messages are all due when the burst starts; each is drawn when the one
        // before it has left.
        let due = self.nics.state[ei].next_gen;
        let rng = &mut self.nics.state[ei].rng;
        let dst = source
            .pattern
            .destination(e, self.node_topology.as_ref(), rng);
        let bytes = source.message_bytes(rng);
        self.send_message(due, now, e, dst, bytes, NO_TOKEN);
        self.advance_generation(e, due);
    }

    /// Draws the gap after the message due at `due` and records when the next one is due; a
    /// burst source's next message is due at once while its budget lasts.
    #[inline(always)]
    fn advance_generation(&mut self, e: u32, due: Time) {
        let ei = e as usize;
        let mut next = due.saturating_add(self.draw_gap(e, false));
        if let Some(Generation::Burst { .. }) = self.synthetic.as_ref().map(|s| &s.generation) {
            self.nics.limits[ei].budget -= 1;
            if self.nics.limits[ei].budget == 0 {
                next = NEVER;
            }
        }
        let next = if next < self.params.generation_end {
            next
        } else {
            NEVER
        };
        if due < self.stats.window_end && next >= self.stats.window_end {
            self.nics_owing_window = self.nics_owing_window.wrapping_sub(1);
        }
        self.nics.state[ei].next_gen = next;
    }

    /// Endpoint `e`'s gap to its next message (see `Synthetic::next_gap`); an on/off source
    /// keeps its burst's messages left in `NicLimits::budget`.
    fn draw_gap(&mut self, e: u32, first: bool) -> Time {
        let ei = e as usize;
        let source = self
            .synthetic
            .as_ref()
            .expect("only synthetic sources generate");
        let mut unused = 0;
        let burst_left = match self.nics.limits.get_mut(ei) {
            Some(limits) => &mut limits.budget,
            None => &mut unused,
        };
        source.next_gap(e, &mut self.nics.state[ei].rng, burst_left, first)
    }

    /// Starts the workload: every synthetic source's first message time (and a wake for it),
    /// or every rank's first wake-up.
    pub(super) fn start_sources(&mut self, sched: &mut Scheduler<NetEvent>) {
        if let Some(mut host) = self.host.take() {
            let mut actions = std::mem::take(&mut self.actions);
            host.start(&|e| self.owns_nic(e), &mut actions);
            self.host = Some(host);
            self.actions = actions;
            self.apply_actions(0, sched);
            return;
        }
        let budget = self.burst.as_ref().map(|b| b.packets_per_burst);
        for e in 0..self.params.nodes {
            let source = self.synthetic.as_ref().expect("a workload");
            if !self.owns_nic(e) || source.silent(e) {
                continue;
            }
            let ei = e as usize;
            if let Some(budget) = budget {
                self.nics.limits[ei].budget = budget;
            }
            let first = self.draw_gap(e, true);
            if first < self.params.generation_end {
                self.nics.state[ei].next_gen = first;
                if first < self.stats.window_end {
                    self.nics_owing_window += 1;
                }
                let nic = self.nic_entity(e);
                self.nics.state[ei].wake_at = first;
                sched.schedule(first, nic, nic, NetEvent::NicWake);
            }
        }
    }

    /// Carries out what the host asked for.
    pub(super) fn apply_actions(&mut self, now: Time, sched: &mut Scheduler<NetEvent>) {
        let mut actions = std::mem::take(&mut self.actions);
        for action in actions.drain(..) {
            match action {
                Action::Send {
                    ready_ps,
                    src,
                    dst,
                    bytes,
                    token,
                } => {
                    self.ship_note(dst, token);
                    self.send_message(ready_ps, now, src, dst, bytes, token);
                    if self.params.node_ports > 1 {
                        self.wake_node_ports(now, src, None, sched);
                    }
                }
                Action::Wake { at, endpoint, tag } => {
                    let nic = self.nic_entity(endpoint);
                    sched.schedule(at, nic, nic, NetEvent::HostWake { tag });
                }
            }
        }
        self.actions = actions;
    }

    /// Queues one message of `bytes` payload from node `src` to node `dst`, created (or ready)
    /// at `gen_ps` and handed to the NIC at `now`: on one port, or striped over the node's
    /// ports (see [`Striping`]).
    pub(super) fn send_message(
        &mut self,
        gen_ps: Time,
        now: Time,
        src: u32,
        dst: u32,
        bytes: u64,
        token: u32,
    ) {
        let packets = self.packets_of(bytes);
        let hosted = token != NO_TOKEN;
        let message = if hosted {
            token
        } else if packets > 1 {
            let nic = &mut self.nics.state[src as usize];
            nic.messages_started = nic.messages_started.wrapping_add(1);
            nic.messages_started
        } else {
            NO_MESSAGE
        };
        let class = match &self.host {
            Some(host) if hosted => host.message_class(token),
            _ => 0,
        };
        let whole = OutMessage {
            gen_ps,
            bytes,
            dst,
            message,
            packets: packets as u32,
            class,
            hosted,
        };
        if self.params.node_ports == 1 {
            self.queue_part(now, src, whole, packets);
        } else {
            self.stripe(now, src, whole);
        }
    }

    /// Queues node `src`'s message `whole` on its ports as `nic.striping` says: packet i on
    /// the node's port (first + i) mod P, so part j holds packets j, j + P, ...; or all of it
    /// on the next port.
    #[cold]
    #[inline(never)]
    fn stripe(&mut self, now: Time, src: u32, whole: OutMessage) {
        let (ports, nodes) = (u64::from(self.params.node_ports), self.params.nodes);
        let packets = u64::from(whole.packets);
        let turn = &mut self.nics.port_turn[src as usize];
        let first = u64::from(*turn);
        let (parts, advance) = match self.params.striping {
            Striping::Message => (1, 1),
            Striping::Packet => (packets.min(ports), packets),
        };
        *turn = ((first + advance) % ports) as u32;
        if whole.hosted && parts > 1 {
            self.parts_sending
                .insert((src, whole.message), (parts as u32, 0));
        }
        let last_payload = whole.bytes - (packets - 1) * self.params.mtu_bytes;
        for j in 0..parts {
            let port = ((first + j) % ports) as u32;
            let count = (packets - j).div_ceil(ports);
            let bytes = if parts == 1 {
                whole.bytes
            } else {
                let holds_last = (packets - 1) % ports == j;
                count * self.params.mtu_bytes
                    - u64::from(holds_last) * (self.params.mtu_bytes - last_payload)
            };
            let part = OutMessage {
                bytes,
                dst: port * nodes + whole.dst,
                ..whole
            };
            self.queue_part(now, port * nodes + src, part, self.packets_of(bytes));
        }
    }

    /// Queues `message` (a whole message or a port's share of one, `packet_count` packets) at
    /// NIC port `src`.
    #[inline(always)]
    fn queue_part(&mut self, now: Time, src: u32, message: OutMessage, packet_count: u64) {
        let OutMessage {
            gen_ps, bytes, dst, ..
        } = message;
        let measured = self.in_window(gen_ps);
        // The packets were in flight (waiting at the source) since they were due; a host's
        // message handed over before it is ready (a response after its service time, a send
        // after its CPU overhead) is in flight from then, as its latency counts.
        self.stats.in_flight.add_span(gen_ps, now, packet_count);
        self.stats
            .in_flight
            .change(now.max(gen_ps), packet_count as i64);
        self.stats.generated += packet_count;
        self.stats.flow_checksum = self
            .stats
            .flow_checksum
            .wrapping_add(flow_hash(src, dst).wrapping_mul(packet_count));
        if measured {
            self.stats.measured_generated += packet_count;
            self.add_measured_routes(src, dst, packet_count);
            let counters = &mut self.nics.counters[src as usize];
            counters.generated_packets += packet_count;
            counters.generated_bytes += bytes + packet_count * self.params.header_bytes;
        }
        self.nics.state[src as usize].queue.push_back(message);
    }

    /// Counts `packets` measured packets from endpoint `src` to `dst` at their minimal route
    /// (see `Stats::route_hops_sum`).
    fn add_measured_routes(&mut self, src: u32, dst: u32, packets: u64) {
        let (from, _) = self.attachment(src);
        let (to, _) = self.attachment(dst);
        let hops = u64::from(self.routing.hops(from, to)) * packets;
        self.stats.route_hops_sum = self.stats.route_hops_sum.wrapping_add(hops);
    }

    /// Wire bytes of the next packet of NIC `e`'s head message.
    fn head_packet_wire_bytes(&self, e: u32) -> u64 {
        let nic = &self.nics.state[e as usize];
        let head = nic.queue.front().expect("a message is queued");
        let cut = u64::from(nic.cut_packets) * self.params.mtu_bytes;
        (head.bytes - cut).min(self.params.mtu_bytes) + self.params.header_bytes
    }

    /// When NIC `e`'s injection cap and packet-rate limit let its next packet start (`now` if
    /// it may start now): the bytes started in the current window plus this packet must fit
    /// the cap, or the packet waits for the next window; likewise for the packet count.
    fn cap_allows_at(&mut self, now: Time, e: u32) -> Time {
        let rate_at = match self.params.nic_packet_rate {
            Some(rate) => self.nics.limits[e as usize].rate.allows_at(now, rate),
            None => now,
        };
        if self.params.injection_cap_bytes == 0 || rate_at > now {
            return rate_at;
        }
        let window = now / self.params.injection_cap_window_ps;
        let bytes = self.head_packet_wire_bytes(e);
        let limits = &mut self.nics.limits[e as usize];
        if limits.cap_window != window {
            limits.cap_window = window;
            limits.cap_used_bytes = 0;
        }
        if limits.cap_used_bytes + bytes <= self.params.injection_cap_bytes {
            now
        } else {
            (window + 1) * self.params.injection_cap_window_ps
        }
    }

    /// Settles NIC `e`: draws a due message into an empty queue, injects the next packet if
    /// the link is free, the message is eligible (queued at least the eligibility delay), the
    /// injection cap and the throttle allow and the router's injection buffer has room for it
    /// on some VC, and wakes itself when there is something to do next.
    pub(super) fn try_inject(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        if self.params.node_ports > 1 {
            self.draw_for_node(now, e, false, sched);
        } else if self.nics.state[ei].queue.is_empty() {
            if self.nics.state[ei].next_gen > now {
                // Nothing to send (a credit came back, a packet arrived): only the wake-up for
                // the next message.
                self.wake_nic(now, e, self.idle_wake(ei), sched);
                return;
            }
            self.materialize(now, e);
        }
        let nic = &self.nics.state[ei];
        let throttled = self.params.max_outstanding != 0
            && self.nics.limits[ei].outstanding >= self.params.max_outstanding;
        let eligible_at = nic
            .queue
            .front()
            .map_or(NEVER, |m| m.gen_ps + self.params.eligibility_delay_ps);
        let mut blocked_until = nic.free_at.max(eligible_at);
        if blocked_until <= now {
            blocked_until = self.cap_allows_at(now, e);
            if blocked_until <= now && !throttled {
                self.inject_head(now, e, sched);
                blocked_until = NEVER;
            }
        }
        if self.params.node_ports > 1 && self.nics.state[ei].queue.is_empty() {
            // The port its node's next message takes may have just become idle.
            self.draw_for_node(now, e, true, sched);
        }
        let nic = &self.nics.state[ei];
        let wake = match nic.queue.front() {
            // Link busy, message not yet eligible or cap reached: wake then. Otherwise a
            // NicCredit or a NicAck will come.
            Some(m) => {
                let eligible_at = m.gen_ps + self.params.eligibility_delay_ps;
                if blocked_until != NEVER && blocked_until > now {
                    blocked_until
                } else if nic.free_at > now || eligible_at > now {
                    nic.free_at.max(eligible_at)
                } else {
                    NEVER
                }
            }
            // A node with several ports wakes for its source in `draw_for_node`.
            None if self.params.node_ports > 1 => NEVER,
            None => self.idle_wake(ei),
        };
        self.wake_nic(now, e, wake, sched);
    }

    /// When one-port NIC `ei` with no message queued wakes: when its next message is due and
    /// its link is free (never, if no message is to come).
    #[inline]
    fn idle_wake(&self, ei: usize) -> Time {
        let nic = &self.nics.state[ei];
        if nic.next_gen == NEVER {
            NEVER
        } else {
            nic.next_gen.max(nic.free_at)
        }
    }

    /// Makes sure NIC port `e` wakes at `at` (NEVER: no need), unless a wake no later than
    /// that is pending.
    fn wake_nic(&mut self, now: Time, e: u32, at: Time, sched: &mut Scheduler<NetEvent>) {
        let pending = self.nics.state[e as usize].wake_at;
        if at != NEVER && (pending == NEVER || pending < now || at < pending) {
            self.nics.state[e as usize].wake_at = at;
            let nic = self.nic_entity(e);
            sched.schedule(at, nic, nic, NetEvent::NicWake);
        }
    }

    /// The node of NIC port `e` with several ports draws its due messages (its source is kept
    /// at its first port) while the port its next packet takes is idle, wakes the ports that
    /// got a share (`e` too when `wake_self`: it has settled already), and wakes its first
    /// port when the next message is due. A due message whose port is busy is drawn when that
    /// port's queue empties. Out of line: one-port NICs never come here.
    #[cold]
    #[inline(never)]
    fn draw_for_node(
        &mut self,
        now: Time,
        e: u32,
        wake_self: bool,
        sched: &mut Scheduler<NetEvent>,
    ) {
        if self.synthetic.is_none() {
            return;
        }
        let node = e % self.params.nodes;
        let turn_idle = |net: &Network| {
            let port = net.nics.port_turn[node as usize] * net.params.nodes + node;
            net.nics.state[port as usize].queue.is_empty()
        };
        while self.nics.state[node as usize].next_gen <= now && turn_idle(self) {
            self.materialize(now, node);
            self.wake_node_ports(now, node, (!wake_self).then_some(e), sched);
        }
        let next = self.nics.state[node as usize].next_gen;
        if next > now && turn_idle(self) {
            self.wake_nic(now, node, next, sched);
        }
    }

    /// Wakes now the ports of `node` that hold messages (but `settling`, which is about to
    /// look at its own): a message striped there may be the first.
    fn wake_node_ports(
        &mut self,
        now: Time,
        node: u32,
        settling: Option<u32>,
        sched: &mut Scheduler<NetEvent>,
    ) {
        for p in 0..self.params.node_ports {
            let port = p * self.params.nodes + node;
            if Some(port) != settling && !self.nics.state[port as usize].queue.is_empty() {
                self.wake_nic(now, port, now, sched);
            }
        }
    }

    /// The node a NIC port belongs to.
    #[inline]
    pub(super) fn node_of(&self, port: u32) -> u32 {
        if self.params.node_ports == 1 {
            port
        } else {
            port % self.params.nodes
        }
    }

    /// Sends the next packet of NIC `e`'s head message if its router's injection buffer has
    /// room for it on some VC it may enter.
    fn inject_head(&mut self, now: Time, e: u32, sched: &mut Scheduler<NetEvent>) {
        let ei = e as usize;
        let head = *self.nics.state[ei]
            .queue
            .front()
            .expect("a message is queued");
        let index = self.nics.state[ei].cut_packets;
        let cut = u64::from(index) * self.params.mtu_bytes;
        let payload = (head.bytes - cut).min(self.params.mtu_bytes);
        let bytes = (payload + self.params.header_bytes) as u32;
        // A message class enters its own VCs (the lower ones when there is one class).
        let class_first_vc = usize::from(head.class) * self.params.response_vc_offset;
        let first = ei * self.params.vcs + class_first_vc;
        let credits = &mut self.nics.credits[first..first + self.params.injection_vcs];
        // The VC with the most credits of those the packet fits in, the lowest on ties.
        let mut chosen: Option<usize> = None;
        for (v, &credit) in credits.iter().enumerate() {
            if credit >= bytes && chosen.is_none_or(|c| credit > credits[c]) {
                chosen = Some(v);
            }
        }
        let Some(class_vc) = chosen else {
            return;
        };
        credits[class_vc] -= bytes;
        let vc = class_first_vc + class_vc;
        let ser = self.params.nic_link.serialization_ps(bytes);
        let tail_out = now + ser;
        let (dst_router, _) = self.attachment(head.dst);
        let id = self.packets.alloc(Packet {
            gen_ps: head.gen_ps,
            inject_ps: now,
            tail_ps: tail_out + self.params.nic_link.latency_ps,
            next: NO_PACKET,
            src: e,
            dst: head.dst,
            dst_router,
            message: head.message,
            message_packets: head.packets,
            bytes,
            hops: 0,
            flags: u8::from(self.in_window(head.gen_ps)) * MEASURED + head.class * RESPONSE,
            route_via: NO_VIA,
            route_phase: 0,
            route_random: route_random(e, head.gen_ps, index),
        });
        if self.params.injection_cap_bytes != 0 {
            self.nics.limits[ei].cap_used_bytes += u64::from(bytes);
        }
        if self.params.nic_packet_rate.is_some() {
            self.nics.limits[ei].rate.take();
        }
        if self.params.max_outstanding != 0 {
            self.nics.limits[ei].outstanding += 1;
        }
        let nic = &mut self.nics.state[ei];
        nic.free_at = tail_out;
        // The last packet: what is left of the message fits (one header for a 0-byte one).
        if head.bytes - cut <= self.params.mtu_bytes {
            nic.queue.pop_front();
            nic.cut_packets = 0;
            if head.hosted {
                self.part_sent(now, e, head.message, tail_out, sched);
            }
        } else {
            nic.cut_packets += 1;
        }
        self.stats.injected += 1;
        self.stats.packet_hops += 1;
        self.stats.progress_until = self.stats.progress_until.max(tail_out);
        if self.in_window(now) {
            let (src, dst) = (self.node_of(e), self.node_of(head.dst));
            if let Some(recorder) = self.recorder.as_mut() {
                recorder.injected(now, src, dst, bytes);
            }
            let counters = &mut self.nics.counters[ei];
            counters.injected_packets += 1;
            counters.injected_bytes += u64::from(bytes);
            counters.injected_busy_ps += ser;
        }
        let (router, port) = self.attachment(e);
        sched.schedule(
            now + self.params.nic_link.latency_ps + self.params.router_latency_ps,
            self.nic_entity(e),
            router,
            NetEvent::Arrive {
                port,
                vc: vc as u8,
                packet: id,
            },
        );
    }

    /// A host's message (or this port's share of it) has left port `e`, its last tail at
    /// `tail_ps`: the host hears of it when every share has left.
    fn part_sent(
        &mut self,
        now: Time,
        e: u32,
        token: u32,
        tail_ps: Time,
        sched: &mut Scheduler<NetEvent>,
    ) {
        let mut tail_ps = tail_ps;
        if self.params.node_ports > 1 {
            let key = (e % self.params.nodes, token);
            if let Some((left, latest)) = self.parts_sending.get_mut(&key) {
                *left -= 1;
                *latest = (*latest).max(tail_ps);
                if *left > 0 {
                    return;
                }
                tail_ps = *latest;
                self.parts_sending.remove(&key);
            }
        }
        if let Some(host) = self.host.as_mut() {
            host.sent(now, token, tail_ps, &mut self.actions);
            self.apply_actions(now, sched);
        }
    }

    /// At the end of a run, counts the messages that were due before `end` but never drawn
    /// (a backlogged source): they were generated, and wait at their source. Returns, per
    /// endpoint this network holds, the packets waiting at the source (0 at the endpoints of
    /// other workers).
    pub(super) fn account_backlog(&mut self, end: Time) -> Vec<u64> {
        let held = self.nics.state.indices();
        let mut waiting = Vec::with_capacity(held.len());
        for e in held.start as u32..held.end as u32 {
            if !self.owns_nic(e) {
                waiting.push(0);
                continue;
            }
            let ei = e as usize;
            let nic = &self.nics.state[ei];
            let mut backlog: u64 = nic
                .queue
                .iter()
                .map(|m| self.packets_of(m.bytes))
                .sum::<u64>()
                - u64::from(nic.cut_packets);
            while self.nics.state[ei].next_gen < end {
                let due = self.nics.state[ei].next_gen;
                let source = self
                    .synthetic
                    .as_ref()
                    .expect("only synthetic sources generate");
                // Same draws as if the message were sent, so the stream stays the same.
                let rng = &mut self.nics.state[ei].rng;
                let dst = source
                    .pattern
                    .destination(e, self.node_topology.as_ref(), rng);
                let message_bytes = source.message_bytes(rng);
                let packets = self.packets_of(message_bytes);
                backlog += packets;
                self.stats.generated += packets;
                self.stats.in_flight.add_span(due, end, packets);
                if self.in_window(due) {
                    self.stats.measured_generated += packets;
                    self.add_measured_routes(e, dst, packets);
                    let counters = &mut self.nics.counters[ei];
                    counters.generated_packets += packets;
                    counters.generated_bytes += message_bytes + packets * self.params.header_bytes;
                }
                self.advance_generation(e, due);
            }
            waiting.push(backlog);
        }
        waiting
    }

    /// A packet's tail reached its destination NIC.
    pub(super) fn deliver(&mut self, now: Time, e: u32, id: u32, sched: &mut Scheduler<NetEvent>) {
        let packet = self.packets[id];
        self.packets.release(id);
        self.stats.in_flight.change(now, -1);
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
            if let Some(recorder) = self.recorder.as_mut() {
                recorder.delivered(packet.bytes);
            }
            let counters = &mut self.nics.counters[e as usize];
            counters.received_packets += 1;
            counters.received_bytes += u64::from(packet.bytes);
        }
        if self.params.max_outstanding != 0 {
            // The end-to-end acknowledgement that frees a throttle slot at the source.
            let source = self.nic_entity(packet.src);
            self.send(
                sched,
                now + self.params.nic_link.latency_ps,
                self.nic_entity(e),
                source,
                NetEvent::NicAck,
            );
        }
        let message_done = packet.message_packets == 1
            || match self
                .host
                .as_mut()
                .and_then(|h| h.packet_arrived(packet.message, packet.message_packets))
            {
                Some(done) => done,
                None => {
                    // A host's tokens are unique per (source, destination), not per source;
                    // a message striped over ports is put together at its node.
                    let key = (self.node_of(packet.src), self.node_of(e), packet.message);
                    let remaining = self.reassembly.entry(key).or_insert(packet.message_packets);
                    *remaining -= 1;
                    let done = *remaining == 0;
                    if done {
                        self.reassembly.remove(&key);
                    }
                    done
                }
            };
        let token = if self.host.is_some() {
            packet.message
        } else {
            NO_TOKEN
        };
        if packet.measured() {
            self.stats.measured_delivered += 1;
            self.stats.latency.record(latency);
            self.stats.network_latency.record(now - packet.inject_ps);
            // Counted at its minimal route when generated: now the hops it took instead (the
            // same under a minimal scheme, which spares the distance).
            let minimal = || {
                let (from, _) = self.attachment(packet.src);
                self.routing.hops(from, packet.dst_router)
            };
            if self.params.minimal_routes {
                debug_assert_eq!(u32::from(packet.hops), minimal(), "a minimal route");
            } else {
                self.stats.route_hops_sum = self
                    .stats
                    .route_hops_sum
                    .wrapping_add(u64::from(packet.hops))
                    .wrapping_sub(u64::from(minimal()));
            }
            let source = &mut self.nics.source_latency[packet.src as usize];
            if self.remote.is_none() {
                source.record_alone(latency);
            } else {
                source.record(latency);
            }
            if message_done && !self.params.messages_are_packets {
                self.stats.message_latency.record(latency);
            }
        }
        if message_done && token != NO_TOKEN {
            let (src, dst) = (self.node_of(packet.src), self.node_of(e));
            if let Some(host) = self.host.as_mut() {
                host.arrived(now, src, dst, token, &mut self.actions);
                self.apply_actions(now, sched);
            }
        }
        if let Some(burst) = self.burst.as_mut() {
            burst.delivered += 1;
            burst.last_delivery_ps = now;
        }
    }

    /// Starts the next burst at this worker's NICs at `at` (the run driver calls it once the
    /// burst before has ended everywhere, at the end of a window: how long before `at` depends
    /// on the split).
    pub(super) fn restart_burst(&mut self, at: Time, sched: &mut Scheduler<NetEvent>) {
        let burst = self.burst.as_mut().expect("burst mode");
        burst.delivered = 0;
        let budget = burst.packets_per_burst;
        for e in 0..self.params.nodes {
            let silent = self.synthetic.as_ref().is_some_and(|s| s.silent(e));
            if !self.owns_nic(e) || silent {
                continue;
            }
            self.nics.limits[e as usize].budget = budget;
            self.nics.state[e as usize].next_gen = at;
            self.nics_owing_window = self.nics_owing_window.wrapping_add(1);
            // The wake is the NIC's pending one: an acknowledgement or credit it handles
            // before `at` finds its next message due at `at` and already a wake for it, so it
            // schedules none, whether the restart was set before it or after.
            self.nics.state[e as usize].wake_at = at;
            let nic = self.nic_entity(e);
            sched.schedule(at, nic, nic, NetEvent::NicWake);
        }
    }
}
