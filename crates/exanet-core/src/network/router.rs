//! The router: input buffers per (port, VC), routing of the packet at the head of each buffer,
//! output arbitration, credit-based flow control, and cut-through forwarding.

use super::model::{NetEvent, Network, Params};
use super::packet::PacketId;
use super::state::{arbitration_draw, InputVc, NEVER, NIC_CLASS, NO_BLOCK, NO_LINK};
use crate::config::{Arbitration, MAX_VCS};
use crate::engine::{Scheduler, Time};
use crate::routing::{select, vcs_in, Candidate, Candidates, RouteQuery};
use crate::topology::Peer;

/// The winner of one arbitration round: an input's request bit and the output VC.
struct Grant {
    input: usize,
    vc: u8,
}

/// What the head packet of a requesting input may do in one arbitration round of an output.
enum Eligibility {
    /// Go now, on this downstream VC.
    Ready(u8),
    /// Not before this time (its tail is still arriving).
    NotBefore(Time),
    /// No downstream VC it may take has room; `to_escape`: it should turn to the escape VCs.
    NoRoom { to_escape: bool },
}

/// Whether the head packet of request bit `input` of output `port` (held in `slot`) may go at
/// `now`, given the output's downstream `credits`: the allowed VC with the most credits if the
/// whole packet fits, escape VCs only when no other has room (into a NIC, VC 0).
#[inline(always)]
fn eligibility(
    params: &Params,
    slot: &InputVc,
    input: usize,
    port: u16,
    credits: &[u32],
    now: Time,
    ejection: bool,
) -> Eligibility {
    if slot.earliest_ps > now {
        return Eligibility::NotBefore(slot.earliest_ps);
    }
    if ejection {
        return Eligibility::Ready(0);
    }
    let fits = |mask: u32, room: u32| {
        if mask.is_power_of_two() {
            // One VC allowed (dimension order's dateline classes): nothing to rank.
            let v = mask.trailing_zeros();
            return (credits[v as usize] >= room).then_some(v);
        }
        vcs_in(mask)
            .filter(|&v| credits[v as usize] >= room)
            .max_by_key(|&v| (credits[v as usize], std::cmp::Reverse(v)))
    };
    let mask = u32::from(slot.vc_mask);
    let escape = mask & params.escape_vcs;
    let found = if escape == 0 {
        fits(mask, slot.bytes)
    } else {
        fits(mask & !escape, slot.bytes).or_else(|| {
            // The input's VC in its message class's copy of the plan.
            let in_vc = (input & ((1 << params.vc_bits) - 1)) % params.class_vcs;
            let room = match params.bubble {
                Some((bubble_vc, extra))
                    if !(in_vc == usize::from(bubble_vc)
                        && (input >> params.vc_bits) ^ 1 == usize::from(port)) =>
                {
                    slot.bytes + extra
                }
                _ => slot.bytes,
            };
            fits(escape, room)
        })
    };
    match found {
        Some(v) => Eligibility::Ready(v as u8),
        None => Eligibility::NoRoom {
            to_escape: params.escape_vcs != 0 && escape == 0,
        },
    }
}

/// The request bit of the only input that asks for an output, if exactly one does. Routers of
/// more than 64 inputs (ports x VCs: a dragonfly's 31 ports on 3 VCs) have several request
/// words, and mostly one requester too.
#[inline(always)]
fn only_request(requests: &[u64]) -> Option<usize> {
    if let [word] = requests {
        return word
            .is_power_of_two()
            .then(|| word.trailing_zeros() as usize);
    }
    let mut only = None;
    for (w, &word) in requests.iter().enumerate() {
        if word != 0 {
            if only.is_some() || !word.is_power_of_two() {
                return None;
            }
            only = Some(w * 64 + word.trailing_zeros() as usize);
        }
    }
    only
}

impl Network {
    #[inline]
    pub(super) fn port_index(&self, router: u32, port: u16) -> usize {
        router as usize * self.params.ports + usize::from(port)
    }

    /// The credits of every VC downstream of an idle output: a buffer each, or unlimited into
    /// a NIC (which sinks packets at line rate).
    #[inline]
    fn full_credit(&self, out_index: usize) -> u32 {
        match self.routers.port_class[out_index] {
            NIC_CLASS => u32::MAX,
            NO_LINK => 0,
            _ => self.params.vc_buffer_bytes,
        }
    }

    /// Credits of VC `vc` downstream of output `out_index`.
    #[inline(always)]
    pub(super) fn credit(&self, out_index: usize, vc: usize) -> u32 {
        match self.routers.ports[out_index].output_block {
            NO_BLOCK => self.full_credit(out_index),
            block => self.output_pool.credit(block, vc),
        }
    }

    /// The block of output `out_index`, taken if it is idle.
    #[inline(always)]
    fn output_block(&mut self, out_index: usize) -> u32 {
        let block = self.routers.ports[out_index].output_block;
        if block != NO_BLOCK {
            return block;
        }
        let full = self.full_credit(out_index);
        let entry = &mut self.routers.ports[out_index];
        entry.output_block = self.output_pool.take(full, entry.rr);
        entry.output_block
    }

    /// Gives output `out_index`'s block back if the output is idle at `now`: link free, every
    /// credit back, no request, no wake-up still to come.
    fn release_if_idle(&mut self, now: Time, out_index: usize) {
        let block = self.routers.ports[out_index].output_block;
        if block == NO_BLOCK {
            return;
        }
        let (free_at, wake_at) = (
            self.output_pool.free_at(block),
            self.output_pool.wake_at(block),
        );
        let full = self.full_credit(out_index);
        if free_at <= now
            && (wake_at == NEVER || wake_at < now)
            && self.output_pool.credits(block).iter().all(|&c| c == full)
            && !self.output_pool.has_requests(block)
        {
            self.output_pool.give_back(block);
            self.routers.ports[out_index].output_block = NO_BLOCK;
        }
    }

    /// Input VC `vc` of router port `in_index` (its port must hold packets).
    #[inline]
    fn input(&self, in_index: usize, vc: usize) -> &InputVc {
        self.inputs.vc(self.routers.ports[in_index].input_block, vc)
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
        let in_index = self.port_index(router, port);
        let entry = &mut self.routers.ports[in_index];
        if entry.input_block == NO_BLOCK {
            entry.input_block = self.inputs.take();
        }
        let block = entry.input_block;
        let slot = self.inputs.vc_mut(block, usize::from(vc));
        if slot.queue.push(id, &mut self.packets) {
            self.route_head(now, router, port, vc, false);
        }
    }

    pub(super) fn credit_arrives(&mut self, now: Time, router: u32, port: u16, vc: u8, bytes: u32) {
        let index = self.port_index(router, port);
        let block = self.routers.ports[index].output_block;
        let credit = self.output_pool.credit_mut(block, usize::from(vc));
        *credit += bytes;
        let back = *credit == self.params.vc_buffer_bytes;
        if self.output_pool.has_requests(block) {
            self.mark_dirty(port);
        } else if back {
            self.release_if_idle(now, index);
        }
    }

    pub(super) fn output_wakes(&mut self, now: Time, router: u32, port: u16) {
        let index = self.port_index(router, port);
        let block = self.routers.ports[index].output_block;
        if block == NO_BLOCK {
            return;
        }
        let wake_at = self.output_pool.wake_at_mut(block);
        if *wake_at == now {
            *wake_at = NEVER;
        }
        if self.output_pool.has_requests(block) {
            self.mark_dirty(port);
        } else {
            self.release_if_idle(now, index);
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

    /// Routes the packet now at the head of (port, vc) and files its request with the output;
    /// `escape` keeps only the way that offers the escape VCs (a blocked adaptive packet).
    fn route_head(&mut self, now: Time, router: u32, port: u16, vc: u8, escape: bool) {
        let in_index = self.port_index(router, port);
        let block = self.routers.ports[in_index].input_block;
        let head = self.inputs.vc(block, usize::from(vc)).queue.head;
        let packet = &self.packets[head];
        let (bytes, tail_ps) = (packet.bytes, packet.tail_ps);
        // A message class routes on its own copy of the plan's VCs.
        let class_offset = usize::from(packet.class()) * self.params.response_vc_offset;
        let query = RouteQuery {
            router,
            in_port: port,
            in_vc: vc - class_offset as u8,
            injected: self.routers.port_class[in_index] == NIC_CLASS,
            dst_router: packet.dst_router,
            // Routings read it at the destination router (UGAL-G follows whole routes there).
            dst_port: if router == packet.dst_router || self.params.global_view {
                self.attachment(packet.dst).1
            } else {
                0
            },
            dst: packet.dst,
            state: packet.route(),
            random: packet.route_random,
        };
        self.candidates.clear();
        self.routing.route(&query, &mut self.candidates);
        if class_offset != 0 {
            self.candidates.shift_vcs(class_offset as u32);
        }
        let base = router as usize * self.params.ports;
        let escape_vcs = self.params.escape_vcs;
        let candidates = self.candidates.as_slice();
        let chosen = if escape {
            *candidates
                .iter()
                .find(|c| c.vc_mask & escape_vcs != 0)
                .expect("an escape routing always offers its escape way")
        } else if self.params.global_view && candidates.iter().any(|c| c.hops != candidates[0].hops)
        {
            let best = (0..candidates.len())
                .min_by_key(|&i| self.route_cost(router, &query, &candidates[i], bytes))
                .unwrap_or(0);
            candidates[best]
        } else {
            // Escape VCs are a last resort, not a reason to prefer a way.
            let credits = |p: u16, v: u32| {
                if escape_vcs & (1 << v) != 0 {
                    0
                } else {
                    self.credit(base + usize::from(p), v as usize)
                }
            };
            let queued = |c: &Candidate| {
                let vcs = if query.injected { c.vc_mask } else { u32::MAX };
                self.queued_bytes(router, c.port, vcs)
            };
            candidates[select(candidates, self.params.threshold_bytes, credits, queued)]
        };
        // The packet leaves on the chosen way, so its state changes now.
        self.packets[head].set_route(chosen.next);
        let out_index = base + usize::from(chosen.port);
        // Cut-through: the tail may not leave before it has arrived, which can bind only while
        // the tail is still arriving and only when the output link is the faster one.
        let earliest = if tail_ps > now {
            let out_ser = self.port_link(out_index).serialization_ps(bytes);
            now.max(tail_ps.saturating_sub(out_ser))
        } else {
            now
        };
        let slot = self.inputs.vc_mut(block, usize::from(vc));
        slot.out_port = chosen.port;
        // At most 16 VCs (config): the mask fits.
        slot.vc_mask = chosen.vc_mask as u16;
        slot.bytes = bytes;
        slot.earliest_ps = earliest;
        let request = usize::from(port) << self.params.vc_bits | usize::from(vc);
        let block = self.output_block(out_index);
        self.output_pool.requests_mut(block)[request / 64] |= 1 << (request % 64);
        self.mark_dirty(chosen.port);
    }

    /// The bytes queued at output `port` of `router` for the VCs of `vc_mask`: the head
    /// packets waiting for the output on one of them and the bytes in their downstream
    /// buffers (their credit deficit). Adaptive choices between ways of different lengths
    /// weigh this, as UGAL-L is defined (Jiang et al.'s VC_H form: the queue of the VCs the way
    /// would take, so that minimal and non-minimal traffic on one port are told apart): credits
    /// alone saturate at one buffer, so a router whose global link is the bottleneck would see
    /// it no busier than a merely full local link and keep its own endpoints on it.
    fn queued_bytes(&self, r: u32, port: u16, vc_mask: u32) -> u64 {
        let out_index = self.port_index(r, port);
        let block = self.routers.ports[out_index].output_block;
        let buffer = self.params.vc_buffer_bytes;
        let mut held = 0u64;
        for v in vcs_in(vc_mask).filter(|&v| (v as usize) < self.params.vcs) {
            let free = match block {
                NO_BLOCK => self.full_credit(out_index),
                block => self.output_pool.credit(block, v as usize),
            };
            held += u64::from(buffer - free.min(buffer));
        }
        if block == NO_BLOCK {
            return held;
        }
        // The inputs whose head packets ask for the output, by their request bits.
        let inputs = r as usize * self.params.ports;
        let in_vcs = (1 << self.params.vc_bits) - 1;
        let mut waiting = 0u64;
        for (w, &word) in self.output_pool.requests(block).iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let input = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let slot = self.input(inputs + (input >> self.params.vc_bits), input & in_vcs);
                if u32::from(slot.vc_mask) & vc_mask != 0 {
                    waiting += u64::from(slot.bytes);
                }
            }
        }
        waiting + held
    }

    /// UGAL-G's cost of a way: the bytes queued at every output along the route it leads to,
    /// on the VCs the route takes there (followed through each router's first way, see
    /// `queued_bytes`); plus the packet's own
    /// serialization at every hop, plus the routing threshold on ways longer than the
    /// shortest; in bytes, i.e. time at link rate.
    fn route_cost(&self, router: u32, query: &RouteQuery, way: &Candidate, bytes: u32) -> u64 {
        let shortest = self.candidates.as_slice().iter().map(|c| c.hops).min();
        let mut cost = if Some(way.hops) > shortest {
            u64::from(self.params.threshold_bytes)
        } else {
            0
        };
        let (mut r, mut step) = (router, *way);
        let mut next = Candidates::new();
        // A route is far shorter than this; the bound only guards against a routing bug.
        for _ in 0..u8::MAX {
            cost += u64::from(bytes);
            let index = self.port_index(r, step.port);
            let Peer::Router { router: down, port } = self.peer(index, r, step.port) else {
                break;
            };
            cost += self.queued_bytes(r, step.port, step.vc_mask);
            next.clear();
            self.routing.route(
                &RouteQuery {
                    router: down,
                    in_port: port,
                    in_vc: step.vc_mask.trailing_zeros() as u8,
                    injected: false,
                    state: step.next,
                    ..*query
                },
                &mut next,
            );
            (r, step) = (down, next.as_slice()[0]);
        }
        cost
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
        let block = self.output_block(index);
        let wake_at = self.output_pool.wake_at_mut(block);
        let pending = *wake_at;
        if pending == NEVER || pending < now || at < pending {
            *wake_at = at;
            sched.schedule(at, router, router, NetEvent::Wake { port });
        }
    }

    /// One arbitration round of output `port`: among the input VCs whose head packet asks for it,
    /// is ready, and has downstream credits on an allowed VC, grant one (round-robin, or oldest
    /// first; in-transit packets first under in-transit priority).
    ///
    /// Round-robin allocates in two stages, as a separable allocator does: each downstream VC
    /// picks among its own requesters from its own pointer, then the output picks among those
    /// winners from its pointer. One pointer for both stages is unfair: the grants of a busy VC
    /// move it past the inputs that wait for a scarce one, so the next time that VC has room
    /// the search wraps to the lowest-numbered of them, which wins every time (under the
    /// dragonfly's group shift the second endpoint of a router injected 0.29 of its bandwidth,
    /// the first 0.60).
    fn allocate(&mut self, now: Time, router: u32, port: u16, sched: &mut Scheduler<NetEvent>) {
        let out_index = self.port_index(router, port);
        let block = self.routers.ports[out_index].output_block;
        if block == NO_BLOCK || !self.output_pool.has_requests(block) {
            return;
        }
        let free_at = self.output_pool.free_at(block);
        if free_at > now {
            self.ensure_wake(now, router, port, free_at, sched);
            return;
        }
        if let Some(rate) = self.params.router_packet_rate {
            let open_at = self.routers.rate_windows[router as usize].allows_at(now, rate);
            if open_at > now {
                self.ensure_wake(now, router, port, open_at, sched);
                return;
            }
        }
        let ejection = self.routers.port_class[out_index] == NIC_CLASS;
        let requests = self.output_pool.requests(block);
        let router_ports = router as usize * self.params.ports;
        let vc_mask = (1 << self.params.vc_bits) - 1;
        if let Some(input) = only_request(requests) {
            // The only requester wins if it is eligible: nothing to rank, no scan to set up.
            let slot = self.input(
                router_ports + (input >> self.params.vc_bits),
                input & vc_mask,
            );
            let credits = self.output_pool.credits(block);
            match eligibility(&self.params, slot, input, port, credits, now, ejection) {
                Eligibility::Ready(vc) => self.grant(now, router, port, Grant { input, vc }, sched),
                Eligibility::NotBefore(at) => self.ensure_wake(now, router, port, at, sched),
                Eligibility::NoRoom { to_escape: true } => {
                    self.turn_to_escape(now, router, block, input)
                }
                Eligibility::NoRoom { to_escape: false } => {}
            }
            return;
        }
        let inputs = self.params.ports << self.params.vc_bits;
        let start = self.routers.ports[out_index].rr as usize;
        debug_assert!(start < inputs);
        let oldest_first = self.params.arbitration == Arbitration::Age;
        // With one VC (or into a NIC) under plain round-robin the two stages are one: the first
        // eligible input wins. IPR: with probability P, in-transit packets go first (a draw
        // from the arbitration's identity, so it does not depend on event order).
        let ipr = self.params.in_transit_priority >= 1.0
            || (self.params.in_transit_priority > 0.0
                && arbitration_draw(router, port, now) < self.params.in_transit_priority);
        let first_eligible_wins = !oldest_first
            && !ipr
            && !self.params.responses_first
            && (ejection || self.params.vcs == 1);
        let credits = self.output_pool.credits(block);
        let turns = self.output_pool.turns(block);
        // An input's round-robin rank after `turn` (inputs at or after it first), behind every
        // response if it is a request under `router.priority = "responses"` (`deferred`, bit
        // 31), and behind every in-transit one if it is `injected` (IPR, bit 30).
        let rank = |input: usize, turn: usize, deferred: u32| {
            let after = if input >= turn {
                input - turn
            } else {
                input + inputs - turn
            };
            after as u32 | deferred << 30
        };
        let mut best: Option<(Grant, (u32, Time))> = None;
        // Each VC's best rank so far and its input, valid for the VCs in `vcs_won`.
        let mut vc_best = [(0u32, 0u32); MAX_VCS];
        let mut vcs_won = 0u32;
        let mut next_ready = NEVER;
        let words = self.params.request_words;
        // From the pointer's word round to it again (its lower bits last).
        'scan: for step in 0..words + 1 {
            // (start / 64 + step) mod words, without a division
            let w = start / 64 + step;
            let w = if w >= words { w - words } else { w };
            let mut bits = requests[w];
            if step == 0 {
                bits &= !0u64 << (start % 64);
            } else if step == words {
                bits &= (1u64 << (start % 64)).wrapping_sub(1);
            }
            while bits != 0 {
                let input = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let in_index = router_ports + (input >> self.params.vc_bits);
                let slot = self.input(in_index, input & vc_mask);
                let vc = match eligibility(&self.params, slot, input, port, credits, now, ejection)
                {
                    Eligibility::Ready(vc) => vc,
                    Eligibility::NotBefore(at) => {
                        next_ready = next_ready.min(at);
                        continue;
                    }
                    Eligibility::NoRoom { to_escape } => {
                        if to_escape {
                            self.blocked.push(input);
                        }
                        continue;
                    }
                };
                if first_eligible_wins {
                    best = Some((Grant { input, vc }, (0, 0)));
                    break 'scan;
                }
                let injected = ipr && self.routers.port_class[in_index] == NIC_CLASS;
                let request =
                    self.params.responses_first && self.packets[slot.queue.head].class() == 0;
                let deferred = u32::from(request) << 1 | u32::from(injected);
                if oldest_first {
                    let key = (deferred, self.packets[slot.queue.head].gen_ps);
                    if best.as_ref().is_none_or(|(_, k)| key < *k) {
                        best = Some((Grant { input, vc }, key));
                    }
                } else {
                    let v = usize::from(vc);
                    let key = rank(input, turns[v] as usize, deferred);
                    if vcs_won & (1 << v) == 0 || key < vc_best[v].0 {
                        vc_best[v] = (key, input as u32);
                        vcs_won |= 1 << v;
                    }
                }
            }
        }
        if !oldest_first && !first_eligible_wins {
            let mut best_rank = u32::MAX;
            for vc in vcs_in(vcs_won) {
                let (vc_rank, input) = vc_best[vc as usize];
                let input = input as usize;
                let key = rank(input, start, vc_rank >> 30);
                if key < best_rank {
                    best_rank = key;
                    best = Some((
                        Grant {
                            input,
                            vc: vc as u8,
                        },
                        (0, 0),
                    ));
                }
            }
        }
        match best {
            Some((grant, _)) => self.grant(now, router, port, grant, sched),
            None if next_ready != NEVER => self.ensure_wake(now, router, port, next_ready, sched),
            None => {}
        }
        while let Some(input) = self.blocked.pop() {
            self.turn_to_escape(now, router, block, input);
        }
    }

    /// The head packet of request bit `input` of the output of `block`, blocked on adaptive
    /// VCs, resorts to the escape sub-network (Duato): it withdraws its request and is routed
    /// again on the escape way.
    fn turn_to_escape(&mut self, now: Time, router: u32, block: u32, input: usize) {
        self.output_pool.requests_mut(block)[input / 64] &= !(1 << (input % 64));
        let (in_port, in_vc) = (
            (input >> self.params.vc_bits) as u16,
            (input & ((1 << self.params.vc_bits) - 1)) as u8,
        );
        self.route_head(now, router, in_port, in_vc, true);
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
            (grant.input >> self.params.vc_bits) as u16,
            (grant.input & ((1 << self.params.vc_bits) - 1)) as u8,
        );
        let in_index = self.port_index(router, in_port);
        let block = self.routers.ports[in_index].input_block;
        let slot = self.inputs.vc_mut(block, usize::from(in_vc));
        let id = slot.queue.pop(&self.packets);
        let bytes = slot.bytes;
        let more = !slot.queue.is_empty();
        if self.params.router_packet_rate.is_some() {
            self.routers.rate_windows[router as usize].take();
        }
        let out_block = self.routers.ports[out_index].output_block;
        let out_link = self.port_link(out_index);
        let (ser, out_latency) = (out_link.serialization_ps(bytes), out_link.latency_ps);
        let tail_out = now + ser;
        let in_window = self.in_window(now);
        let next = grant.input + 1;
        let next = if next == self.params.ports << self.params.vc_bits {
            0
        } else {
            next as u32
        };
        self.output_pool.record_grant(
            out_block,
            grant.input,
            usize::from(grant.vc),
            tail_out,
            next,
        );
        let output = &mut self.routers.ports[out_index];
        output.rr = next;
        if in_window {
            output.counters.bytes += u64::from(bytes);
            output.counters.packets += 1;
            output.counters.busy_ps += ser;
        }
        self.stats.progress_until = self.stats.progress_until.max(tail_out);
        self.stats.packet_hops += 1;

        // The buffer space is free once the tail has left; the credit then crosses the link.
        // A bare packet of 0 bytes (no header, no payload) took no credit and returns none:
        // its output may already be idle and have given its pool block back.
        let in_latency = self.port_link(in_index).latency_ps;
        match self.peer(in_index, router, in_port) {
            _ if bytes == 0 => {}
            Peer::Router {
                router: up,
                port: up_port,
            } => self.send(
                sched,
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

        match self.peer(out_index, router, port) {
            Peer::Router {
                router: down,
                port: down_port,
            } => {
                *self
                    .output_pool
                    .credit_mut(out_block, usize::from(grant.vc)) -= bytes;
                let packet = &mut self.packets[id];
                packet.tail_ps = tail_out + self.params.router_output_latency_ps + out_latency;
                packet.hops += 1;
                self.send(
                    sched,
                    now + self.params.router_output_latency_ps
                        + out_latency
                        + self.params.router_latency_ps,
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
                tail_out + self.params.router_output_latency_ps + out_latency,
                router,
                self.nic_entity(e),
                NetEvent::Deliver { packet: id },
            ),
            Peer::Unconnected => unreachable!("routing never selects an unconnected port"),
        }

        if more {
            self.route_head(now, router, in_port, in_vc, false);
        } else if self.inputs.give_back_if_empty(block) {
            self.routers.ports[in_index].input_block = NO_BLOCK;
        }
        if self.output_pool.has_requests(out_block) {
            self.ensure_wake(now, router, port, tail_out, sched);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::only_request;

    #[test]
    fn the_only_request_is_found_in_any_word_and_only_when_alone() {
        assert_eq!(only_request(&[0b1000]), Some(3));
        assert_eq!(only_request(&[0, 1 << 59]), Some(64 + 59));
        assert_eq!(only_request(&[0, 0, 1]), Some(128));
        // Two requesters: in one word, or one in each of two.
        assert_eq!(only_request(&[0b1010]), None);
        assert_eq!(only_request(&[1 << 63, 1]), None);
        assert_eq!(only_request(&[0, 0]), None);
    }
}
