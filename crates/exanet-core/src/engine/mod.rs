//! Discrete-event engine: simulated time, the event queue with its partition-independent ordering,
//! and per-entity random streams. It knows nothing about networks.

mod queue;
mod rng;

pub use queue::{Scheduler, Step};
pub use rng::{entity_stream, EntityRng};

/// Simulated time in integer picoseconds.
pub type Time = u64;

/// Identifies a simulated entity (a NIC or a router).
pub type EntityId = u32;

/// A model that reacts to events. The engine delivers every event scheduled for one
/// `(time, target)` pair, then calls [`Model::settle`] once for that pair, so that decisions
/// that depend on all simultaneous inputs (arbitration) see them all, whatever their order.
pub trait Model {
    type Payload;
    fn handle(
        &mut self,
        now: Time,
        target: EntityId,
        payload: Self::Payload,
        sched: &mut Scheduler<Self::Payload>,
    );
    fn settle(&mut self, now: Time, target: EntityId, sched: &mut Scheduler<Self::Payload>);
}
