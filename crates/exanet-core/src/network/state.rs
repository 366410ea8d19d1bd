//! The state of routers, NICs and links, and the network-wide statistics.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::packet::Fifo;
use super::rate::RateWindow;
use super::serialization_ps;
use crate::engine::{EntityRng, Time};
use crate::stats::{LatencyStats, TimeAverage};

/// Hash of a (source, destination) flow for the delivery checksum.
#[inline]
pub(super) fn flow_hash(src: u32, dst: u32) -> u64 {
    let z = (u64::from(src) << 32 | u64::from(dst)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^ (z >> 29)
}

/// A packet's routing random bits: a hash of its identity (source, creation time, index in its
/// message), so they do not depend on event order or on how entities are partitioned.
#[inline]
pub(super) fn route_random(src: u32, gen_ps: u64, index: u32) -> u32 {
    let z =
        (gen_ps ^ (u64::from(src) << 40) ^ u64::from(index)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z >> 32) as u32
}

/// A uniform draw in [0, 1) from an arbitration's identity (router, output, time).
#[inline]
pub(super) fn arbitration_draw(router: u32, port: u16, now: u64) -> f64 {
    let z = (now ^ (u64::from(router) << 40) ^ (u64::from(port) << 24))
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let z = (z ^ (z >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    ((z ^ (z >> 29)) >> 11) as f64 / (1u64 << 53) as f64
}

/// "No time": an unset wake-up.
pub(super) const NEVER: Time = Time::MAX;
/// Link class code of endpoint (NIC) ports and of unconnected ports.
pub(super) const NIC_CLASS: u8 = u8::MAX;
pub(super) const NO_LINK: u8 = u8::MAX - 1;

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
    pub fn new(latency_ps: Time, bytes_per_s: u64, packet_sizes: &[u32]) -> Self {
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

/// The outgoing links of every port class, NIC links among them, in a table indexed by the
/// class code itself: a hop reads its link with one load, not a branch on whether the port
/// leads to a NIC (taken as often as not on a router's way to the ejection port).
#[derive(Debug, Clone)]
pub(super) struct PortLinks {
    by_code: Box<[PortLink; 256]>,
    classes: usize,
}

impl PortLinks {
    /// The links of the topology's classes (codes from 0) and the NIC link (`NIC_CLASS`).
    pub fn new(classes: &[PortLink], nic: PortLink) -> Self {
        assert!(
            classes.len() < usize::from(NO_LINK),
            "a topology has fewer link classes than the codes of unconnected and NIC ports"
        );
        // Codes of no class (unconnected ports among them) are never read for a packet.
        let mut by_code = Box::new([PortLink::new(0, 1, &[]); 256]);
        by_code[..classes.len()].copy_from_slice(classes);
        by_code[usize::from(NIC_CLASS)] = nic;
        PortLinks {
            by_code,
            classes: classes.len(),
        }
    }

    /// The link of ports with class code `code`.
    #[inline(always)]
    pub fn of(&self, code: u8) -> &PortLink {
        &self.by_code[usize::from(code)]
    }

    /// The links of the topology's classes and the NIC link.
    pub fn all(&self) -> impl Iterator<Item = &PortLink> {
        self.by_code[..self.classes]
            .iter()
            .chain(std::iter::once(self.of(NIC_CLASS)))
    }
}

/// Counters per endpoint, over the measurement window.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(super) struct EndpointCounters {
    pub generated_packets: u64,
    pub generated_bytes: u64,
    pub injected_packets: u64,
    pub injected_bytes: u64,
    /// Time the injection link spent serializing.
    pub injected_busy_ps: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
}

impl EndpointCounters {
    /// Adds another's counts (a node's ports into the node).
    pub fn add(&mut self, other: &EndpointCounters) {
        self.generated_packets += other.generated_packets;
        self.generated_bytes += other.generated_bytes;
        self.injected_packets += other.injected_packets;
        self.injected_bytes += other.injected_bytes;
        self.injected_busy_ps += other.injected_busy_ps;
        self.received_packets += other.received_packets;
        self.received_bytes += other.received_bytes;
    }
}

/// Latency of the measured packets one endpoint sent. Recorded where they arrive, which may be
/// another worker's NIC: atomic sums are exact in any order, and a delivery is rare next to the
/// hops that led to it.
#[derive(Debug, Default)]
pub(super) struct SourceLatency {
    sum_ps: AtomicU64,
    count: AtomicU64,
}

impl SourceLatency {
    #[inline]
    pub fn record(&self, latency_ps: u64) {
        self.sum_ps.fetch_add(latency_ps, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// `record` by the only worker of a run: no other thread touches the sums, so plain
    /// additions do (a locked addition costs tens of cycles per delivery).
    #[inline]
    pub fn record_alone(&mut self, latency_ps: u64) {
        *self.sum_ps.get_mut() += latency_ps;
        *self.count.get_mut() += 1;
    }

    /// (sum, count).
    pub fn get(&self) -> (u64, u64) {
        (
            self.sum_ps.load(Ordering::Relaxed),
            self.count.load(Ordering::Relaxed),
        )
    }
}

/// Counters per router output link, over the measurement window. Packed to 4-byte alignment
/// beside the output's round-robin pointer, so that an output port takes 24 bytes, not 32; a
/// link cannot carry 2^32 packets in a window a packet-level run simulates (4 s at 1 G
/// packets/s).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[repr(C, packed(4))]
pub(super) struct LinkCounters {
    pub bytes: u64,
    pub busy_ps: u64,
    pub packets: u32,
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

/// Block of a port that holds no packet.
pub(super) const NO_BLOCK: u32 = u32::MAX;

/// The name of a pool's block that starts at entry `first` of the pool: the entry itself, so
/// that reaching a block's field adds to its name and multiplies nothing. A pool holds the
/// ports in use of one worker, far fewer than 2^32 entries (32 GiB of output words).
fn block_name(first: usize) -> u32 {
    u32::try_from(first)
        .ok()
        .filter(|&name| name != NO_BLOCK)
        .expect("a pool of fewer than 2^32 entries")
}

/// The input VCs of the router ports that hold packets: a block of one entry per VC for each
/// such port, taken when its first packet arrives and given back when its last one leaves. An
/// empty VC has no state worth keeping, so a network under light load keeps a few blocks instead
/// of a buffer for every VC of every port. Each worker has its own pool; a port's block is in
/// the pool of the worker that owns the port.
#[derive(Debug, Default)]
pub(super) struct InputPool {
    vcs: usize,
    slots: Vec<InputVc>,
    free: Vec<u32>,
}

impl InputPool {
    pub fn new(vcs: usize) -> Self {
        InputPool {
            vcs,
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// A block of empty VCs, named by its first slot (an access adds, never multiplies).
    #[inline]
    pub fn take(&mut self) -> u32 {
        match self.free.pop() {
            Some(block) => block,
            None => {
                let block = block_name(self.slots.len());
                let capacity = self.slots.capacity();
                self.slots
                    .extend(std::iter::repeat_n(InputVc::default(), self.vcs));
                if self.slots.capacity() != capacity {
                    crate::engine::advise_huge_pages(&self.slots);
                }
                block
            }
        }
    }

    /// Gives `block` back if all its VCs are empty; returns whether it did.
    #[inline]
    pub fn give_back_if_empty(&mut self, block: u32) -> bool {
        let empty = self.vcs(block).iter().all(|v| v.queue.is_empty());
        if empty {
            self.free.push(block);
        }
        empty
    }

    #[inline]
    pub fn vcs(&self, block: u32) -> &[InputVc] {
        let at = block as usize;
        &self.slots[at..at + self.vcs]
    }

    #[inline]
    pub fn vc(&self, block: u32, vc: usize) -> &InputVc {
        &self.slots[block as usize + vc]
    }

    #[inline]
    pub fn vc_mut(&mut self, block: u32, vc: usize) -> &mut InputVc {
        &mut self.slots[block as usize + vc]
    }
}

/// A message waiting at its source NIC.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutMessage {
    /// When it was created; it may not leave before.
    pub gen_ps: Time,
    /// Payload bytes (of this port's share, when a message is striped over a node's ports).
    pub bytes: u64,
    /// The destination NIC port.
    pub dst: u32,
    /// The name its packets carry for reassembly: the host's token, else the source node's
    /// message number (NO_MESSAGE for a one-packet message).
    pub message: u32,
    /// Packets of the whole message, over every port it is striped on.
    pub packets: u32,
    /// Its message class (see [`super::packet::Packet::class`]).
    pub class: u8,
    /// Whether `message` is a host's token.
    pub hosted: bool,
}

const _: () = assert!(std::mem::size_of::<OutMessage>() == 32);

/// Messages waiting at a NIC, oldest first: the oldest inline (a synthetic source never holds
/// more), the others in a deque allocated only when a second one waits. Saves an endpoint the
/// deque's smallest allocation (four messages and the allocator's header).
#[derive(Debug, Clone, Default)]
pub(super) struct MessageQueue {
    head: Option<OutMessage>,
    rest: VecDeque<OutMessage>,
}

impl MessageQueue {
    #[inline]
    pub fn front(&self) -> Option<&OutMessage> {
        self.head.as_ref()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    #[inline]
    pub fn push_back(&mut self, message: OutMessage) {
        if self.head.is_none() {
            self.head = Some(message);
        } else {
            self.rest.push_back(message);
        }
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<OutMessage> {
        let head = self.head.take();
        self.head = self.rest.pop_front();
        head
    }

    pub fn iter(&self) -> impl Iterator<Item = &OutMessage> {
        self.head.iter().chain(&self.rest)
    }
}

/// `token` of a message the workload does not follow.
pub(super) const NO_TOKEN: u32 = u32::MAX;

/// A NIC's state for the features that need it (throttle, bursts, injection cap), kept apart
/// so that runs without them do not carry it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NicLimits {
    /// Packets in the network not yet acknowledged (the injection throttle).
    pub outstanding: u32,
    /// Messages left in the current burst (burst traffic) or on-period (an on/off source).
    pub budget: u32,
    /// The injection cap's current window (its index) and the wire bytes started in it.
    pub cap_window: u64,
    pub cap_used_bytes: u64,
    /// The packet-rate limit's current window and the packets started in it.
    pub rate: RateWindow,
}

/// A NIC's state.
#[derive(Debug, Clone)]
pub(super) struct Nic {
    /// Messages waiting to be injected (a synthetic source holds at most one: it is drawn
    /// lazily); the head one may be partly cut into packets.
    pub queue: MessageQueue,
    /// Packets of the head message already sent (each of a full MTU, the last excepted): a
    /// count, not bytes, so that cutting a packet multiplies where it divided.
    pub cut_packets: u32,
    /// Multi-packet messages queued by this node (kept at its first port): the last one's
    /// number names its packets for reassembly at the destination.
    pub messages_started: u32,
    /// When the injection link is free.
    pub free_at: Time,
    pub wake_at: Time,
    /// When the next message is due (NEVER: no more messages).
    pub next_gen: Time,
    pub rng: EntityRng,
}

/// What a router port keeps for the whole run, side by side so that a hop reads one line per
/// port it uses (its input's block, its output's block and pointer), not one per field: what
/// its output carried in the window, its output's round-robin pointer, and where the rest of
/// its state is while it is in use (an [`InputPool`] block while its input holds packets, an
/// [`OutputPool`] block while its output is busy).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[repr(C, align(32))]
pub(super) struct RouterPort {
    pub counters: LinkCounters,
    /// Request bit the next round-robin search of its output starts from.
    pub rr: u32,
    /// Its input's block of VCs in the owning worker's input pool (NO_BLOCK: no packet).
    pub input_block: u32,
    /// Its output's block in the owning worker's output pool (NO_BLOCK: the output is idle,
    /// in its starting state).
    pub output_block: u32,
}

/// Two ports to a cache line, never one across two.
const _: () = assert!(std::mem::size_of::<RouterPort>() == 32);

impl Default for RouterPort {
    fn default() -> Self {
        RouterPort {
            counters: LinkCounters::default(),
            rr: 0,
            input_block: NO_BLOCK,
            output_block: NO_BLOCK,
        }
    }
}

/// The router outputs in use: for each, a block with when its link is free and its pending
/// wake-up, the credits of the VCs downstream, each VC's round-robin pointer and the requests
/// of the inputs that want it. An
/// output whose link is free, whose credits are all back, with no request and no wake-up
/// pending holds no block: its state is then the one it started with. Like the input pool, it
/// keeps a few blocks under light load instead of this state for every port; each worker has
/// its own. A block's fields lie side by side (40 bytes with 2 VCs and up to 32 inputs'
/// requests), so using an output touches one cache line of the pool, not one per field.
#[derive(Debug, Default)]
pub(super) struct OutputPool {
    vcs: usize,
    /// Words of a block: link free time, wake-up, the credits and the VCs' round-robin
    /// pointers (two per word each), the requests.
    stride: usize,
    credit_words: usize,
    /// Where a block's round-robin pointers and requests start: fixed for the run, so that an
    /// access (a block is named by its first word) is one addition and one bounds check.
    turns_at: usize,
    requests_at: usize,
    request_words: usize,
    words: Vec<u64>,
    free: Vec<u32>,
}

/// Word of a block holding when its link is free.
const FREE_AT: usize = 0;
/// Word of a block holding its pending wake-up.
const WAKE_AT: usize = 1;
/// First word of a block's credits.
const CREDITS: usize = 2;

impl OutputPool {
    pub fn new(vcs: usize, request_words: usize) -> Self {
        let credit_words = vcs.div_ceil(2);
        OutputPool {
            vcs,
            stride: CREDITS + 2 * credit_words + request_words,
            credit_words,
            turns_at: CREDITS + credit_words,
            requests_at: CREDITS + 2 * credit_words,
            request_words,
            ..OutputPool::default()
        }
    }

    /// A block's first word: its name.
    #[inline(always)]
    fn at(&self, block: u32) -> usize {
        block as usize
    }

    /// A block in the starting state: link free, no wake-up, `full` credits on every VC, every
    /// VC's round-robin pointer at `turn`, no request.
    #[inline]
    pub fn take(&mut self, full: u32, turn: u32) -> u32 {
        let block = match self.free.pop() {
            // A block comes back only without requests.
            Some(block) => block,
            None => {
                let block = block_name(self.words.len());
                self.words.resize(self.words.len() + self.stride, 0);
                block
            }
        };
        let at = self.at(block);
        self.words[at + FREE_AT] = 0;
        self.words[at + WAKE_AT] = NEVER;
        self.credits_mut(block).fill(full);
        self.turns_mut(block).fill(turn);
        block
    }

    #[inline]
    pub fn give_back(&mut self, block: u32) {
        self.free.push(block);
    }

    /// Starts loading `block`.
    #[inline(always)]
    pub fn prefetch(&self, block: u32) {
        crate::engine::prefetch_line(&self.words[self.at(block)]);
    }

    #[inline(always)]
    pub fn free_at(&self, block: u32) -> Time {
        self.words[self.at(block) + FREE_AT]
    }

    #[inline(always)]
    pub fn wake_at(&self, block: u32) -> Time {
        self.words[self.at(block) + WAKE_AT]
    }

    #[inline(always)]
    pub fn wake_at_mut(&mut self, block: u32) -> &mut Time {
        let at = self.at(block);
        &mut self.words[at + WAKE_AT]
    }

    /// The credits of VC `vc` downstream.
    #[inline(always)]
    pub fn credit(&self, block: u32, vc: usize) -> u32 {
        *self.vc_entry(self.at(block) + CREDITS, vc)
    }

    #[inline(always)]
    pub fn credit_mut(&mut self, block: u32, vc: usize) -> &mut u32 {
        self.vc_entry_mut(self.at(block) + CREDITS, vc)
    }

    #[inline(always)]
    pub fn credits(&self, block: u32) -> &[u32] {
        self.per_vc(self.at(block) + CREDITS)
    }

    #[inline(always)]
    fn credits_mut(&mut self, block: u32) -> &mut [u32] {
        self.per_vc_mut(self.at(block) + CREDITS)
    }

    /// Each VC's round-robin pointer: the input request bit its next search starts from.
    #[inline(always)]
    pub fn turns(&self, block: u32) -> &[u32] {
        self.per_vc(self.at(block) + self.turns_at)
    }

    #[inline(always)]
    fn turns_mut(&mut self, block: u32) -> &mut [u32] {
        self.per_vc_mut(self.at(block) + self.turns_at)
    }

    /// VC `vc`'s u32 of those packed from word `at`: one bounds check, of its word (a VC past
    /// the block's count would read a neighbouring field of the pool, never outside it).
    #[inline(always)]
    fn vc_entry(&self, at: usize, vc: usize) -> &u32 {
        debug_assert!(vc < self.vcs);
        let word: *const u64 = &self.words[at + vc / 2];
        // SAFETY: a u64 holds two u32s (u64 is aligned for u32, and every bit pattern is a u32),
        // in memory order as `per_vc` lays them out; the reference borrows `self.words`.
        unsafe { &*word.cast::<u32>().add(vc % 2) }
    }

    #[inline(always)]
    fn vc_entry_mut(&mut self, at: usize, vc: usize) -> &mut u32 {
        debug_assert!(vc < self.vcs);
        let word: *mut u64 = &mut self.words[at + vc / 2];
        // SAFETY: as in `vc_entry`, borrowing `self.words` mutably.
        unsafe { &mut *word.cast::<u32>().add(vc % 2) }
    }

    /// The `vcs` u32s packed from word `at`.
    #[inline(always)]
    fn per_vc(&self, at: usize) -> &[u32] {
        let words = &self.words[at..at + self.credit_words];
        // SAFETY: the words hold `vcs` u32s (u64 is aligned for u32, and every bit pattern is
        // a u32); the slice borrows `self.words` as `words` did.
        unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u32>(), self.vcs) }
    }

    #[inline(always)]
    fn per_vc_mut(&mut self, at: usize) -> &mut [u32] {
        let vcs = self.vcs;
        let words = &mut self.words[at..at + self.credit_words];
        // SAFETY: as in `per_vc`, borrowing `self.words` mutably.
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u32>(), vcs) }
    }

    #[inline(always)]
    pub fn requests(&self, block: u32) -> &[u64] {
        let at = self.at(block);
        &self.words[at + self.requests_at..at + self.stride]
    }

    #[inline(always)]
    pub fn requests_mut(&mut self, block: u32) -> &mut [u64] {
        let at = self.at(block);
        &mut self.words[at + self.requests_at..at + self.stride]
    }

    /// A grant to request bit `input` on VC `vc`: its request is served, the link is busy until
    /// `free_at`, and the VC's round-robin search starts from `next` (one block offset for the
    /// three writes of every hop).
    #[inline(always)]
    pub fn record_grant(&mut self, block: u32, input: usize, vc: usize, free_at: Time, next: u32) {
        let at = self.at(block);
        self.words[at + self.requests_at + input / 64] &= !(1 << (input % 64));
        self.words[at + FREE_AT] = free_at;
        *self.vc_entry_mut(at + self.turns_at, vc) = next;
    }

    /// Whether any input asks for the output of `block`.
    #[inline(always)]
    pub fn has_requests(&self, block: u32) -> bool {
        if self.request_words == 1 {
            // Up to 64 inputs (ports x VCs), most networks: one word, one load.
            self.words[self.at(block) + self.requests_at] != 0
        } else {
            self.requests(block).iter().any(|&w| w != 0)
        }
    }
}

/// Burst-synchronized sources: the budget per burst, how long the news that a burst ended
/// takes to start the next, and when each burst started and ended.
#[derive(Debug, Clone)]
pub(super) struct BurstClock {
    pub packets_per_burst: u32,
    pub bursts: u32,
    pub restart_delay_ps: Time,
    /// Packets of the current burst delivered (at this worker's NICs), and the last delivery.
    pub delivered: u64,
    pub last_delivery_ps: Time,
    pub starts_ps: Vec<Time>,
    pub ends_ps: Vec<Time>,
}

/// Network-wide statistics.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Stats {
    pub window_start: Time,
    pub window_end: Time,
    pub latency: LatencyStats,
    pub network_latency: LatencyStats,
    pub message_latency: LatencyStats,
    /// Over measured packets: the router-to-router hops of those that arrived, the routing's
    /// minimal hops (`RoutingFunction::hops`) of the others. A packet adds its minimal route
    /// when generated and the difference to the hops it took when it arrives. Wrapping
    /// arithmetic: a worker's share can be negative.
    pub route_hops_sum: u64,
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

impl Stats {
    pub fn new(window_start: Time, window_end: Time) -> Stats {
        Stats {
            window_start,
            window_end,
            latency: LatencyStats::default(),
            network_latency: LatencyStats::default(),
            message_latency: LatencyStats::default(),
            route_hops_sum: 0,
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
        }
    }

    /// Adds another worker's statistics. Counters a worker keeps in part (packets generated
    /// at its NICs, delivered at others) are sums in wrapping arithmetic, exact once added up.
    pub fn merge(&mut self, other: &Stats) {
        self.latency.merge(&other.latency);
        self.network_latency.merge(&other.network_latency);
        self.message_latency.merge(&other.message_latency);
        self.route_hops_sum = self.route_hops_sum.wrapping_add(other.route_hops_sum);
        self.measured_generated = self
            .measured_generated
            .wrapping_add(other.measured_generated);
        self.measured_delivered = self
            .measured_delivered
            .wrapping_add(other.measured_delivered);
        self.generated = self.generated.wrapping_add(other.generated);
        self.injected = self.injected.wrapping_add(other.injected);
        self.delivered = self.delivered.wrapping_add(other.delivered);
        self.misdelivered += other.misdelivered;
        self.flow_checksum = self.flow_checksum.wrapping_add(other.flow_checksum);
        self.window_deliveries += other.window_deliveries;
        self.window_latency_sum_ps += other.window_latency_sum_ps;
        self.in_flight.merge(&other.in_flight);
        self.packet_hops += other.packet_hops;
        self.progress_until = self.progress_until.max(other.progress_until);
    }
}

#[cfg(test)]
mod pool_tests {
    use super::*;

    #[test]
    fn a_port_reads_its_link_by_its_class_code_and_nic_ports_read_the_nic_link() {
        let (local, global) = (PortLink::new(10, 100, &[]), PortLink::new(20, 200, &[]));
        let nic = PortLink::new(30, 300, &[]);
        let links = PortLinks::new(&[local, global], nic);
        let latencies = |codes: &[u8]| {
            codes
                .iter()
                .map(|&c| links.of(c).latency_ps)
                .collect::<Vec<_>>()
        };
        assert_eq!(latencies(&[0, 1, NIC_CLASS]), [10, 20, 30]);
        let all: Vec<_> = links.all().map(|l| (l.latency_ps, l.bytes_per_s)).collect();
        assert_eq!(all, [(10, 100), (20, 200), (30, 300)]);
    }

    #[test]
    fn an_output_block_is_reused_in_its_starting_state_for_an_output_of_any_kind() {
        let mut pool = OutputPool::new(2, 1);
        let a = pool.take(2048, 0);
        *pool.credit_mut(a, 1) -= 300;
        pool.record_grant(a, 0, 1, 7, 6);
        *pool.wake_at_mut(a) = 9;
        pool.requests_mut(a)[0] = 0;
        let b = pool.take(2048, 0);
        assert_ne!(a, b);
        pool.give_back(a);
        // An ejection output takes it next: unlimited credits, link free, no wake-up.
        let c = pool.take(u32::MAX, 3);
        assert_eq!(c, a);
        assert_eq!(pool.credits(c), [u32::MAX, u32::MAX]);
        assert_eq!(pool.turns(c), [3, 3]);
        assert_eq!((pool.free_at(c), pool.wake_at(c)), (0, NEVER));
        assert_eq!(pool.requests(c), [0]);
        assert_eq!(pool.credit(b, 1), 2048);
        // Fields of neighbouring blocks stay apart (3 VCs: credits span two words).
        let mut pool = OutputPool::new(3, 2);
        let (a, b) = (pool.take(10, 1), pool.take(20, 2));
        pool.requests_mut(a)[1] = u64::MAX;
        *pool.credit_mut(a, 2) = 11;
        pool.turns_mut(a)[2] = 9;
        pool.record_grant(b, 0, 0, 5, 2);
        assert_eq!(pool.credits(a), [10, 10, 11]);
        assert_eq!(
            (pool.turns(a), pool.turns(b)),
            (&[1, 1, 9][..], &[2, 2, 2][..])
        );
        assert_eq!(pool.requests(a), [0, u64::MAX]);
        assert_eq!(
            (pool.credits(b), pool.requests(b)),
            (&[20, 20, 20][..], &[0, 0][..])
        );
        assert_eq!(
            (pool.free_at(a), pool.free_at(b), pool.wake_at(b)),
            (0, 5, NEVER)
        );
    }

    #[test]
    fn an_input_block_goes_back_only_when_every_vc_is_empty() {
        let mut arena = crate::network::packet::PacketArena::default();
        // SAFETY: a packet is integers and a bool, all valid as zero.
        let id = arena.alloc(unsafe { std::mem::zeroed() });
        let mut pool = InputPool::new(2);
        let block = pool.take();
        pool.vc_mut(block, 1).queue.push(id, &mut arena);
        assert!(!pool.give_back_if_empty(block));
        pool.vc_mut(block, 1).queue.pop(&arena);
        assert!(pool.give_back_if_empty(block));
        assert_eq!(pool.take(), block);
    }
}
