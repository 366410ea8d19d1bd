use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{EntityId, Model, Time};

/// One scheduled event. The ordering key is (time, target, source, source sequence number):
/// every part of it is decided by the model, never by the order in which events were inserted,
/// so the same run gives the same order however entities are split across workers.
struct Entry<P> {
    /// time << 64 | target << 32 | source
    key: u128,
    seq: u32,
    payload: P,
}

impl<P> PartialEq for Entry<P> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.seq == other.seq
    }
}
impl<P> Eq for Entry<P> {}
impl<P> PartialOrd for Entry<P> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<P> Ord for Entry<P> {
    /// Reversed, so that the max-heap pops the earliest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.key, other.seq).cmp(&(self.key, self.seq))
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
    heap: BinaryHeap<Entry<P>>,
    source_seq: Vec<u32>,
    now: Time,
    events: u64,
}

impl<P> Scheduler<P> {
    pub fn new(entities: usize) -> Self {
        Scheduler {
            heap: BinaryHeap::new(),
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
            key: (u128::from(time) << 64) | (u128::from(target) << 32) | u128::from(source),
            seq: *seq,
            payload,
        };
        *seq = seq.wrapping_add(1);
        self.heap.push(entry);
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
        self.heap.len()
    }

    /// Time of the earliest pending event.
    pub fn next_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| (e.key >> 64) as Time)
    }

    /// Delivers every event of the earliest (time, target) pair, then settles that target.
    pub fn step<M: Model<Payload = P>>(&mut self, model: &mut M) -> Step {
        let Some(first) = self.heap.pop() else {
            return Step::Idle;
        };
        let group = first.key >> 32;
        let time = (first.key >> 64) as Time;
        let target = (group & 0xffff_ffff) as EntityId;
        self.now = time;
        self.events += 1;
        model.handle(time, target, first.payload, self);
        while self.heap.peek().is_some_and(|e| e.key >> 32 == group) {
            let entry = self.heap.pop().expect("peeked entry");
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
}
