//! The event queue: a calendar (timing wheel) of 1.024 ns buckets over a 4.2 us horizon, with a
//! binary heap for events beyond it. Almost every event a network schedules lands a few
//! nanoseconds to a few microseconds ahead, so scheduling is a push onto a bucket and only the
//! bucket being consumed is ever sorted.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{EntityId, Model, Time};

/// log2 of the bucket width in picoseconds.
const BUCKET_SHIFT: u32 = 10;
const BUCKETS: usize = 4096;
const HORIZON_PS: Time = (BUCKETS as Time) << BUCKET_SHIFT;

/// One scheduled event. The ordering key is (time, target, source, source sequence number):
/// every part of it is decided by the model, never by the order in which events were inserted,
/// so the same run gives the same order however entities are split across workers.
struct Entry<P> {
    time: Time,
    target: EntityId,
    source: EntityId,
    seq: u32,
    payload: P,
}

impl<P> Entry<P> {
    #[inline]
    fn key(&self) -> (Time, EntityId, EntityId, u32) {
        (self.time, self.target, self.source, self.seq)
    }
}

/// Overflow entries, earliest first in a max-heap.
struct Later<P>(Entry<P>);

impl<P> PartialEq for Later<P> {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
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
        Reverse(self.0.key()).cmp(&Reverse(other.0.key()))
    }
}

/// What one call of [`Scheduler::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Delivered the events of one (time, target) pair.
    Ran { time: Time, target: EntityId },
    /// The queue is empty.
    Idle,
}

/// The event queue plus per-source sequence counters.
pub struct Scheduler<P> {
    /// The bucket being consumed, sorted latest first (pop from the end).
    current: Vec<Entry<P>>,
    /// Start time of the current bucket; every wheel event lies in [start, start + horizon).
    current_start: Time,
    buckets: Vec<Vec<Entry<P>>>,
    /// One bit per non-empty bucket.
    occupied: Vec<u64>,
    in_wheel: usize,
    overflow: BinaryHeap<Later<P>>,
    source_seq: Vec<u32>,
    now: Time,
    events: u64,
}

#[inline]
fn bucket_of(time: Time) -> usize {
    ((time >> BUCKET_SHIFT) as usize) & (BUCKETS - 1)
}

impl<P> Scheduler<P> {
    pub fn new(entities: usize) -> Self {
        Scheduler {
            current: Vec::new(),
            current_start: 0,
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: vec![0; BUCKETS / 64],
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            source_seq: vec![0; entities],
            now: 0,
            events: 0,
        }
    }

    /// Schedules `payload` for `target` at `time` (never in the past), sent by `source`.
    #[inline]
    pub fn schedule(&mut self, time: Time, source: EntityId, target: EntityId, payload: P) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = &mut self.source_seq[source as usize];
        let entry = Entry {
            time,
            target,
            source,
            seq: *seq,
            payload,
        };
        *seq = seq.wrapping_add(1);
        self.insert(entry);
    }

    #[inline]
    fn insert(&mut self, entry: Entry<P>) {
        let offset = entry.time - self.current_start;
        if offset < (1 << BUCKET_SHIFT) {
            let key = entry.key();
            let at = self.current.partition_point(|e| e.key() > key);
            self.current.insert(at, entry);
        } else if offset < HORIZON_PS {
            let b = bucket_of(entry.time);
            self.buckets[b].push(entry);
            self.occupied[b / 64] |= 1 << (b % 64);
            self.in_wheel += 1;
        } else {
            self.overflow.push(Later(entry));
        }
    }

    /// Makes `current` hold the earliest bucket; false if no event is left.
    fn refill(&mut self) -> bool {
        while self.current.is_empty() {
            if self.in_wheel == 0 {
                let Some(next) = self.overflow.peek() else {
                    return false;
                };
                self.current_start = next.0.time >> BUCKET_SHIFT << BUCKET_SHIFT;
            } else {
                self.current_start += self.bucket_distance() << BUCKET_SHIFT;
            }
            // Bring the events that now fall within the horizon onto the wheel.
            while self
                .overflow
                .peek()
                .is_some_and(|e| e.0.time < self.current_start + HORIZON_PS)
            {
                let Later(entry) = self.overflow.pop().expect("peeked entry");
                let b = bucket_of(entry.time);
                self.buckets[b].push(entry);
                self.occupied[b / 64] |= 1 << (b % 64);
                self.in_wheel += 1;
            }
            let b = bucket_of(self.current_start);
            if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
                self.occupied[b / 64] &= !(1 << (b % 64));
                std::mem::swap(&mut self.current, &mut self.buckets[b]);
                self.in_wheel -= self.current.len();
                self.current.sort_unstable_by_key(|e| Reverse(e.key()));
            }
        }
        true
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
        self.events
    }

    /// Events waiting in the queue.
    pub fn pending(&self) -> usize {
        self.current.len() + self.in_wheel + self.overflow.len()
    }

    /// Time of the earliest pending event.
    pub fn next_time(&mut self) -> Option<Time> {
        if self.refill() {
            self.current.last().map(|e| e.time)
        } else {
            None
        }
    }

    /// Delivers every event of the earliest (time, target) pair, then settles that target.
    pub fn step<M: Model<Payload = P>>(&mut self, model: &mut M) -> Step {
        if !self.refill() {
            return Step::Idle;
        }
        let first = self.current.pop().expect("refilled");
        let (time, target) = (first.time, first.target);
        self.now = time;
        self.events += 1;
        model.handle(time, target, first.payload, self);
        while self
            .current
            .last()
            .is_some_and(|e| e.time == time && e.target == target)
        {
            let entry = self.current.pop().expect("peeked entry");
            self.events += 1;
            model.handle(time, target, entry.payload, self);
        }
        model.settle(time, target, self);
        Step::Ran { time, target }
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
    fn order_is_time_target_source_sequence_not_insertion() {
        let mut sched = Scheduler::new(4);
        // Inserted in scrambled order.
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
    /// also while running, and checks they come out in exactly the order of a full sort.
    struct Chaos {
        rng: crate::engine::EntityRng,
        delivered: Vec<(Time, EntityId, EntityId, u32)>,
        budget: u32,
    }

    impl Model for Chaos {
        type Payload = (EntityId, u32);
        fn handle(&mut self, now: Time, target: EntityId, p: (EntityId, u32), s: &mut Scheduler<(EntityId, u32)>) {
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
                let seq = s.source_seq[target as usize];
                s.schedule(now + delay, target, to, (target, seq));
            }
        }
        fn settle(&mut self, _: Time, _: EntityId, _: &mut Scheduler<(EntityId, u32)>) {}
    }

    #[test]
    fn matches_a_full_sort_under_random_scheduling() {
        let mut sched = Scheduler::new(8);
        let mut model = Chaos {
            rng: entity_stream(9, 9),
            delivered: vec![],
            budget: 20_000,
        };
        for i in 0..8 {
            let seq = sched.source_seq[i as usize];
            sched.schedule(u64::from(i) * 777, i, (i + 3) % 8, (i, seq));
        }
        while sched.step(&mut model) != Step::Idle {}
        let mut sorted = model.delivered.clone();
        sorted.sort();
        assert_eq!(model.delivered.len(), 20_008);
        let first_difference = model.delivered.iter().zip(&sorted).position(|(a, b)| a != b);
        assert_eq!(first_difference, None);
        assert_eq!(sched.pending(), 0);
    }
}
