//! The event queue: a calendar (timing wheel) of 64 ps buckets over a 262 ns horizon, with a
//! binary heap for events beyond it. Almost every event a network schedules lands a few
//! nanoseconds to a few hundred nanoseconds ahead, so scheduling is a push onto a bucket and
//! only the bucket being consumed is ever sorted.
//!
//! Order: (time, spread target, source), and among events with equal keys (all from the same
//! source) the order in which that source scheduled them: the source sequence number of the
//! ordering (docs/architecture.md §3) is kept implicitly, by stable sorting and
//! first-in-first-out overflow. Nothing depends on the order in which different sources' events
//! were inserted, so the order does not depend on how entities are split across workers.
//!
//! The targets of one time come in the order of a fixed permutation of their numbers (`spread`),
//! not in number order: the model needs each target's events together and in source order, and
//! the order of different targets at one time only among the entities of one worker (which keep
//! their relative order on any split, see docs/architecture.md §3). Spread numbers make the
//! bucket's sort a counting sort on their leading bits, which leaves runs of a few entries to
//! order by comparison.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{EntityId, Model, Time};

/// log2 of the bucket width in picoseconds.
const BUCKET_SHIFT: u32 = 6;
const BUCKETS: usize = 4096;
const HORIZON_PS: Time = (BUCKETS as Time) << BUCKET_SHIFT;
/// Entries per chunk. Buckets are chains of equal-sized chunks from one pool, so memory follows
/// the pending events (not the densest bucket ever seen, times the number of buckets) and the
/// allocator never fragments.
const CHUNK: usize = 64;
/// "No chunk".
const NO_CHUNK: u32 = u32::MAX;
/// How many events ahead of delivery the model is asked to prefetch, and to prefetch through
/// what that loaded.
const PREFETCH_AHEAD: usize = 6;
const PREFETCH_NEAR: usize = 3;

/// One scheduled event (24 bytes with an 8-byte payload).
#[derive(Clone, Copy)]
struct Entry<P> {
    time: Time,
    /// spread(target) << 32 | source: with `time`, the ordering key.
    target_source: u64,
    payload: P,
}

impl<P> Entry<P> {
    /// The ordering key (time, spread target, source) as one integer, which compares in one step
    /// (a tuple compares field by field: 2 % of every hop's instructions went to it in the
    /// bucket sort).
    #[inline]
    fn key(&self) -> u128 {
        u128::from(self.time) << 64 | u128::from(self.target_source)
    }

    #[inline]
    fn spread_target(&self) -> u32 {
        (self.target_source >> 32) as u32
    }

    #[inline]
    fn target(&self) -> EntityId {
        unspread(self.spread_target())
    }

    /// The leading `bits` bits of the spread target: the bin of the bucket's counting sort.
    #[inline]
    fn bin(&self, bits: u32) -> usize {
        (self.target_source >> (64 - bits)) as usize
    }
}

/// A bijection of entity numbers whose leading bits are spread evenly over any range of
/// numbers: multiplication by an odd constant (the golden ratio's, as in Fibonacci hashing).
const SPREAD: u32 = 0x9E37_79B1;
/// SPREAD's inverse modulo 2^32.
const UNSPREAD: u32 = 0x0E8B_2F51;
const _: () = assert!(SPREAD.wrapping_mul(UNSPREAD) == 1);

#[inline]
fn spread(target: EntityId) -> u32 {
    target.wrapping_mul(SPREAD)
}

#[inline]
fn unspread(spread: u32) -> EntityId {
    spread.wrapping_mul(UNSPREAD)
}

/// Buckets of fewer entries are sorted by comparison alone.
const COUNTING_SORT_MIN: usize = 16;

/// A piece of a bucket: up to CHUNK entries in insertion order, and the next piece.
struct Chunk<P> {
    entries: Vec<Entry<P>>,
    next: u32,
}

/// An event beyond the horizon; `order` (insertion order) keeps equal keys first-in-first-out.
struct Later<P> {
    entry: Entry<P>,
    order: u64,
}

impl<P> Later<P> {
    fn rank(&self) -> Reverse<(u128, u64)> {
        Reverse((self.entry.key(), self.order))
    }
}

impl<P> PartialEq for Later<P> {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}
impl<P> Eq for Later<P> {}
impl<P> PartialOrd for Later<P> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<P> Ord for Later<P> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

/// What one call of [`Scheduler::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Delivered the events of one (time, target) pair.
    Ran { time: Time, target: EntityId },
    /// The queue is empty (or holds nothing before the limit).
    Idle,
}

/// The event queue. Payloads are plain values (`Copy`), moved as the bucket is sorted.
pub struct Scheduler<P: Copy> {
    /// The bucket being consumed, in key order from `cursor` on.
    current: Vec<Entry<P>>,
    cursor: usize,
    /// Scratch of `sort_current`: its bins' bounds, the bins of several entries, and the
    /// entries in bin order.
    bin_ends: Vec<u32>,
    crowded: Vec<u32>,
    sorted: Vec<Entry<P>>,
    /// Start time of the current bucket; every wheel event lies in [start, start + horizon).
    current_start: Time,
    /// First and last chunk of each bucket's chain.
    bucket_first: Vec<u32>,
    bucket_last: Vec<u32>,
    chunks: Vec<Chunk<P>>,
    free_chunks: Vec<u32>,
    /// One bit per non-empty bucket.
    occupied: Vec<u64>,
    in_wheel: usize,
    overflow: BinaryHeap<Later<P>>,
    overflow_order: u64,
    now: Time,
    /// Events delivered from the buckets before `current` (those of `current` are `cursor`).
    events_before_current: u64,
    /// Whether delivery calls the model's prefetch hints.
    prefetch: bool,
}

#[inline]
fn bucket_of(time: Time) -> usize {
    ((time >> BUCKET_SHIFT) as usize) & (BUCKETS - 1)
}

impl<P: Copy> Default for Scheduler<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Copy> Scheduler<P> {
    pub fn new() -> Self {
        Self::with_prefetch(true)
    }

    /// A queue that calls the model's prefetch hints ([`Model::prefetch`]) a few events ahead
    /// of delivery, or never: a model whose state fits the caches gains nothing from them.
    pub fn with_prefetch(prefetch: bool) -> Self {
        Scheduler {
            current: Vec::new(),
            cursor: 0,
            bin_ends: Vec::new(),
            crowded: Vec::new(),
            sorted: Vec::new(),
            current_start: 0,
            bucket_first: vec![NO_CHUNK; BUCKETS],
            bucket_last: vec![NO_CHUNK; BUCKETS],
            chunks: Vec::new(),
            free_chunks: Vec::new(),
            occupied: vec![0; BUCKETS / 64],
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            overflow_order: 0,
            now: 0,
            events_before_current: 0,
            prefetch,
        }
    }

    /// Schedules `payload` for `target` at `time` (never in the past), sent by `source`.
    /// Inlined into every caller: almost every event goes onto a wheel bucket that has room,
    /// and a call with its register saves cost a third of that push (BENCHMARKS.md, issue 25).
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, source: EntityId, target: EntityId, payload: P) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let entry = Entry {
            time,
            target_source: u64::from(spread(target)) << 32 | u64::from(source),
            payload,
        };
        let offset = time - self.current_start;
        if ((1 << BUCKET_SHIFT)..HORIZON_PS).contains(&offset) {
            self.push_bucket(entry);
        } else {
            self.schedule_off_wheel(entry);
        }
    }

    /// An event for the bucket being consumed or beyond the horizon: rare, kept out of line.
    #[cold]
    #[inline(never)]
    fn schedule_off_wheel(&mut self, entry: Entry<P>) {
        if entry.time - self.current_start < (1 << BUCKET_SHIFT) {
            // Into the bucket being consumed: after every entry with a key not above its own.
            let key = entry.key();
            let at = self.cursor + self.current[self.cursor..].partition_point(|e| e.key() <= key);
            self.current.insert(at, entry);
        } else {
            self.overflow.push(Later {
                entry,
                order: self.overflow_order,
            });
            self.overflow_order += 1;
        }
    }

    #[inline(always)]
    fn push_bucket(&mut self, entry: Entry<P>) {
        let b = bucket_of(entry.time);
        let last = self.bucket_last[b];
        match self.chunks.get_mut(last as usize) {
            Some(chunk) if chunk.entries.len() < CHUNK => chunk.entries.push(entry),
            _ => self.push_new_chunk(b, entry),
        }
        self.in_wheel += 1;
    }

    /// Starts a chunk for bucket `b` (marking it occupied if it was empty) with `entry`.
    #[inline(never)]
    fn push_new_chunk(&mut self, b: usize, entry: Entry<P>) {
        let last = self.bucket_last[b];
        let fresh = self.new_chunk();
        if last == NO_CHUNK {
            self.bucket_first[b] = fresh;
            self.occupied[b / 64] |= 1 << (b % 64);
        } else {
            self.chunks[last as usize].next = fresh;
        }
        self.bucket_last[b] = fresh;
        self.chunks[fresh as usize].entries.push(entry);
    }

    fn new_chunk(&mut self) -> u32 {
        match self.free_chunks.pop() {
            Some(c) => {
                self.chunks[c as usize].next = NO_CHUNK;
                c
            }
            None => {
                self.chunks.push(Chunk {
                    entries: Vec::with_capacity(CHUNK),
                    next: NO_CHUNK,
                });
                (self.chunks.len() - 1) as u32
            }
        }
    }

    /// Moves bucket `b`'s entries, in insertion order, into `current`.
    fn take_bucket(&mut self, b: usize) {
        self.events_before_current += self.cursor as u64;
        self.current.clear();
        self.cursor = 0;
        let mut chunk = self.bucket_first[b];
        while chunk != NO_CHUNK {
            let piece = &mut self.chunks[chunk as usize];
            self.current.append(&mut piece.entries);
            self.free_chunks.push(chunk);
            chunk = piece.next;
        }
        self.bucket_first[b] = NO_CHUNK;
        self.bucket_last[b] = NO_CHUNK;
        self.in_wheel -= self.current.len();
    }

    /// Makes `current` hold the earliest bucket; false if no event is left.
    fn refill(&mut self) -> bool {
        while self.cursor == self.current.len() {
            if self.in_wheel == 0 {
                let Some(next) = self.overflow.peek() else {
                    return false;
                };
                self.current_start = next.entry.time >> BUCKET_SHIFT << BUCKET_SHIFT;
            } else {
                self.current_start += self.bucket_distance() << BUCKET_SHIFT;
            }
            // Bring the events that now fall within the horizon onto the wheel, at once, so
            // that they precede anything scheduled directly into their buckets later.
            while self
                .overflow
                .peek()
                .is_some_and(|e| e.entry.time < self.current_start + HORIZON_PS)
            {
                let later = self.overflow.pop().expect("peeked entry");
                self.push_bucket(later.entry);
            }
            let b = bucket_of(self.current_start);
            if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
                self.occupied[b / 64] &= !(1 << (b % 64));
                self.take_bucket(b);
                self.sort_current();
            }
        }
        true
    }

    /// Sorts the bucket just taken by key, stably: equal keys come from one source and keep
    /// its order, which is their order in the bucket. A crowded bucket is sorted least
    /// significant part first, by counting: spread over as many bins as it has entries by the
    /// leading bits of its spread targets (even whatever entities it touches), the few entries
    /// of each bin ordered by (spread target, source); then, if it holds several times (random
    /// generation times do), spread stably over the bucket's picosecond offsets.
    fn sort_current(&mut self) {
        let entries = self.current.len();
        if entries < COUNTING_SORT_MIN {
            self.current.sort_by_key(Entry::key);
            return;
        }
        let bits = entries.next_power_of_two().trailing_zeros();
        let (one_time, crowded) = self.scatter(1 << bits, |entry| entry.bin(bits));
        // Only the bins of several entries need ordering (the bins outnumber the entries).
        for &bin in &self.crowded[..crowded] {
            let bin = bin as usize;
            let end = self.bin_ends[bin] as usize;
            let start = if bin == 0 {
                0
            } else {
                self.bin_ends[bin - 1] as usize
            };
            if end - start == 2 {
                // Most crowded bins hold two: one comparison, not a call of the library sort,
                // and the pair is read in its order rather than swapped under a branch (the
                // comparison goes either way as often).
                let later = usize::from(
                    self.current[start].target_source > self.current[start + 1].target_source,
                );
                let (first, second) =
                    (self.current[start + later], self.current[start + 1 - later]);
                (self.current[start], self.current[start + 1]) = (first, second);
            } else {
                self.current[start..end].sort_by_key(|entry| entry.target_source);
            }
        }
        if !one_time {
            let first = self.current_start;
            self.scatter(1 << BUCKET_SHIFT, |entry| (entry.time - first) as usize);
        }
    }

    /// Reorders `current` by `bin` (below `bins`), stably, leaving each bin's end in `bin_ends`
    /// and the bins of several entries at the head of `crowded`; returns whether every entry
    /// has the first one's time and how many bins are crowded (both found in the counting
    /// pass). A bin's second entry is noted without a branch, which would go as the random
    /// targets do: the slot is written every time and kept when the count reaches two.
    fn scatter(&mut self, bins: usize, bin: impl Fn(&Entry<P>) -> usize) -> (bool, usize) {
        let entries = self.current.len();
        let ends = &mut self.bin_ends;
        ends.clear();
        ends.resize(bins, 0);
        if self.crowded.len() < entries {
            self.crowded.resize(entries, 0);
        }
        let time = self.current[0].time;
        let mut one_time = true;
        let mut crowded = 0;
        for entry in &self.current {
            let b = bin(entry);
            ends[b] += 1;
            self.crowded[crowded] = b as u32;
            crowded += usize::from(ends[b] == 2);
            one_time &= entry.time == time;
        }
        // Each bin's start, then (after the scatter) its end.
        let mut start = 0;
        for end in ends.iter_mut() {
            (*end, start) = (start, start + *end);
        }
        // Every slot is overwritten: only a bucket longer than the last one needs new slots.
        self.sorted.resize(entries, self.current[0]);
        for entry in &self.current {
            let at = &mut ends[bin(entry)];
            self.sorted[*at as usize] = *entry;
            *at += 1;
        }
        std::mem::swap(&mut self.current, &mut self.sorted);
        (one_time, crowded)
    }

    /// Buckets from the current one to the next occupied one (the wheel is not empty).
    fn bucket_distance(&self) -> Time {
        let from = bucket_of(self.current_start);
        let mut step = 1;
        while step <= BUCKETS {
            let b = (from + step) % BUCKETS;
            // Bits above b in its word are the buckets that follow it, without wrapping.
            let word = self.occupied[b / 64] >> (b % 64);
            if word != 0 {
                return (step + word.trailing_zeros() as usize) as Time;
            }
            step += 64 - b % 64;
        }
        unreachable!("the wheel holds events")
    }

    /// Current simulated time: the time of the events being delivered.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events delivered so far.
    pub fn events(&self) -> u64 {
        self.events_before_current + self.cursor as u64
    }

    /// Events waiting in the queue.
    pub fn pending(&self) -> usize {
        self.current.len() - self.cursor + self.in_wheel + self.overflow.len()
    }

    /// Time of the earliest pending event, without moving the queue's clock: events may still
    /// be scheduled at any time from [`now`](Self::now) on afterwards.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(entry) = self.current.get(self.cursor) {
            return Some(entry.time);
        }
        if self.in_wheel == 0 {
            return self.overflow.peek().map(|later| later.entry.time);
        }
        let b = bucket_of(self.current_start + (self.bucket_distance() << BUCKET_SHIFT));
        let mut earliest = None;
        let mut chunk = self.bucket_first[b];
        while chunk != NO_CHUNK {
            let piece = &self.chunks[chunk as usize];
            let first = piece.entries.iter().map(|e| e.time).min();
            earliest = earliest.into_iter().chain(first).min();
            chunk = piece.next;
        }
        earliest
    }

    /// Delivers every event of the earliest (time, target) pair, then settles that target.
    pub fn step<M: Model<Payload = P>>(&mut self, model: &mut M) -> Step {
        self.step_before(Time::MAX, model)
    }

    /// [`step`](Self::step) if the earliest event is before `limit`. Past the last event before
    /// `limit` the clock does not move, so that events due at `limit` or later may still be
    /// scheduled (the parallel engine hands them over at the end of each window).
    #[inline]
    pub fn step_before<M: Model<Payload = P>>(&mut self, limit: Time, model: &mut M) -> Step {
        if self.cursor == self.current.len() {
            // Move on to the next bucket only if it starts before `limit`.
            let next_start = if self.in_wheel > 0 {
                self.current_start + (self.bucket_distance() << BUCKET_SHIFT)
            } else if let Some(later) = self.overflow.peek() {
                later.entry.time >> BUCKET_SHIFT << BUCKET_SHIFT
            } else {
                return Step::Idle;
            };
            if next_start >= limit || !self.refill() {
                return Step::Idle;
            }
        }
        let entry = &self.current[self.cursor];
        let (time, spread_target, mut payload) = (entry.time, entry.spread_target(), entry.payload);
        if time >= limit {
            return Step::Idle;
        }
        let target = unspread(spread_target);
        self.now = time;
        // The pair's events follow the first; a handler may schedule more for it (at `now`).
        loop {
            self.cursor += 1;
            if self.prefetch {
                self.prefetch_ahead(model);
            }
            model.handle(time, target, payload, self);
            match self.current.get(self.cursor) {
                Some(next) if next.time == time && next.spread_target() == spread_target => {
                    payload = next.payload;
                }
                _ => break,
            }
        }
        model.settle(time, target, self);
        Step::Ran { time, target }
    }

    #[inline]
    fn prefetch_ahead<M: Model<Payload = P>>(&self, model: &M) {
        if let Some(entry) = self.current.get(self.cursor + PREFETCH_AHEAD) {
            model.prefetch(entry.target(), &entry.payload);
        }
        if let Some(entry) = self.current.get(self.cursor + PREFETCH_NEAR) {
            model.prefetch_near(entry.target(), &entry.payload);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::entity_stream;
    use rand::RngExt;

    /// Records the order in which events arrive and the settle calls.
    struct Recorder {
        log: Vec<(Time, EntityId, u32)>,
        settles: Vec<(Time, EntityId)>,
    }

    impl Model for Recorder {
        type Payload = u32;
        fn handle(&mut self, now: Time, target: EntityId, payload: u32, _: &mut Scheduler<u32>) {
            self.log.push((now, target, payload));
        }
        fn settle(&mut self, now: Time, target: EntityId, _: &mut Scheduler<u32>) {
            self.settles.push((now, target));
        }
    }

    #[test]
    fn order_is_time_spread_target_source_then_the_sources_own_order() {
        let mut sched = Scheduler::new();
        // Inserted in scrambled order; source 2 sends 3 then 33 to target 1 at time 10.
        sched.schedule(10, 3, 1, 4);
        sched.schedule(10, 2, 1, 3);
        sched.schedule(5, 0, 2, 1);
        sched.schedule(10, 2, 1, 33);
        sched.schedule(10, 0, 0, 2);
        let mut rec = Recorder {
            log: vec![],
            settles: vec![],
        };
        while sched.step(&mut rec) != Step::Idle {}
        assert_eq!(
            rec.log,
            vec![(5, 2, 1), (10, 0, 2), (10, 1, 3), (10, 1, 33), (10, 1, 4)]
        );
        assert_eq!(rec.settles, vec![(5, 2), (10, 0), (10, 1)]);
        assert_eq!(sched.events(), 5);
    }

    /// Schedules events at random distances (same bucket, within the horizon, far beyond it),
    /// also while running, and checks they come out in exactly the order of a full sort by
    /// (time, spread target, source, the source's own sending order).
    struct Chaos {
        rng: crate::engine::EntityRng,
        delivered: Vec<(Time, EntityId, EntityId, u32)>,
        budget: u32,
        /// Events sent so far by each source: the payload numbers them in sending order.
        sent: [u32; 8],
    }

    impl Model for Chaos {
        type Payload = (EntityId, u32);
        fn handle(
            &mut self,
            now: Time,
            target: EntityId,
            p: (EntityId, u32),
            s: &mut Scheduler<(EntityId, u32)>,
        ) {
            self.delivered.push((now, target, p.0, p.1));
            if self.budget > 0 {
                self.budget -= 1;
                // Never 0: an event for another entity at the current time would have to be
                // delivered in the past (the network's lookahead is at least one link latency).
                let delay = match self.rng.random_range(0..3) {
                    0 => self.rng.random_range(1..2000),
                    1 => self.rng.random_range(1..HORIZON_PS),
                    _ => self.rng.random_range(HORIZON_PS..10 * HORIZON_PS),
                };
                let to = self.rng.random_range(0..8);
                self.sent[target as usize] += 1;
                // Coarse times, so that many events share (time, target, source).
                let when = (now + delay).next_multiple_of(1000);
                s.schedule(when, target, to, (target, self.sent[target as usize]));
            }
        }
        fn settle(&mut self, _: Time, _: EntityId, _: &mut Scheduler<(EntityId, u32)>) {}
    }

    #[test]
    fn matches_a_full_sort_under_random_scheduling() {
        let mut sched = Scheduler::new();
        let mut model = Chaos {
            rng: entity_stream(9, 9),
            delivered: vec![],
            budget: 20_000,
            sent: [0; 8],
        };
        for i in 0..8 {
            sched.schedule(u64::from(i) * 777, i, (i + 3) % 8, (i, 0));
        }
        while sched.step(&mut model) != Step::Idle {}
        let mut sorted = model.delivered.clone();
        sorted.sort_by_key(|&(time, target, source, n)| (time, spread(target), source, n));
        assert_eq!(model.delivered.len(), 20_008);
        let first_difference = model
            .delivered
            .iter()
            .zip(&sorted)
            .position(|(a, b)| a != b);
        assert_eq!(first_difference, None);
        assert_eq!(sched.pending(), 0);
    }

    #[test]
    fn windows_take_events_scheduled_between_them_in_order() {
        // Events handed over at each window's end (due at the end or later, possibly in a
        // bucket the clock would otherwise have passed) come out in full-sort order.
        let mut sched = Scheduler::new();
        let mut rec = Recorder {
            log: vec![],
            settles: vec![],
        };
        let mut expected = Vec::new();
        let mut rng = entity_stream(3, 3);
        let window: Time = 1_000;
        for w in 0..200u64 {
            let end = (w + 1) * window;
            while sched.step_before(end, &mut rec) != Step::Idle {}
            assert!(sched.peek_time().is_none_or(|t| t >= end));
            for i in 0..5u32 {
                let time = end + rng.random_range(0..400_000);
                let target = rng.random_range(0..4);
                sched.schedule(time, 7, target, w as u32 * 10 + i);
                expected.push((time, target, w as u32 * 10 + i));
            }
        }
        while sched.step(&mut rec) != Step::Idle {}
        expected.sort_by_key(|&(t, target, _)| (t, spread(target)));
        assert_eq!(rec.log, expected);
    }

    #[test]
    fn crowded_buckets_come_out_grouped_by_target_in_source_order() {
        // Buckets of thousands of events at one time (the counting sort), of a few (comparison
        // only) and of two times (comparison only), with many events per (target, source).
        let mut rng = entity_stream(5, 5);
        for (events, times) in [(5_000u32, 1u64), (12, 1), (3_000, 2)] {
            let mut sched = Scheduler::new();
            let mut expected = Vec::new();
            for n in 0..events {
                let time = 640 + rng.random_range(0..times);
                let (source, target) = (rng.random_range(0..64), rng.random_range(0..1_000));
                sched.schedule(time, source, target, n);
                expected.push((time, spread(target), source, n, target));
            }
            let mut rec = Recorder {
                log: vec![],
                settles: vec![],
            };
            while sched.step(&mut rec) != Step::Idle {}
            // A stable sort: one source's events keep their sending order.
            expected.sort_by_key(|&(time, spread, source, _, _)| (time, spread, source));
            let expected: Vec<_> = expected
                .iter()
                .map(|&(time, _, _, n, target)| (time, target, n))
                .collect();
            assert_eq!(rec.log, expected, "{events} events at {times} times");
            // Each target's events came together: one settle per (time, target).
            let mut pairs: Vec<_> = rec.log.iter().map(|&(t, target, _)| (t, target)).collect();
            pairs.dedup();
            assert_eq!(rec.settles, pairs);
        }
    }
}
