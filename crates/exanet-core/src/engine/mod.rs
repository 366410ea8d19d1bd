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
    type Payload: Copy;
    fn handle(
        &mut self,
        now: Time,
        target: EntityId,
        payload: Self::Payload,
        sched: &mut Scheduler<Self::Payload>,
    );
    fn settle(&mut self, now: Time, target: EntityId, sched: &mut Scheduler<Self::Payload>);
    /// A hint that an event for `target` will be delivered soon: start loading what handling
    /// it will touch. The engine calls it a few events ahead of delivery.
    fn prefetch(&self, _target: EntityId, _payload: &Self::Payload) {}
    /// A second hint, closer to delivery: what `prefetch` loaded can now be read to find (and
    /// start loading) state one indirection further.
    fn prefetch_near(&self, _target: EntityId, _payload: &Self::Payload) {}
}

/// Asks the CPU to start loading the cache line holding `value`; a no-op where unsupported.
#[inline(always)]
pub fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults or writes.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A vector of `len` copies of `value` whose memory the kernel is asked to back with huge
/// pages before it is first touched (see [`advise_huge_pages`]).
pub fn huge_page_vec<T: Clone>(value: T, len: usize) -> Vec<T> {
    let mut values = Vec::with_capacity(len);
    advise_huge_pages(&values);
    values.resize(len, value);
    values
}

/// Asks the kernel to back the whole capacity of `values` with huge pages: the state of a large
/// network is read at random, and with 4 KiB pages most of those reads also miss the TLB.
/// Advice only; a refusal changes nothing.
pub fn advise_huge_pages<T>(values: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = values.as_ptr() as usize;
        let end = start + values.capacity() * std::mem::size_of::<T>();
        let aligned_start = start.next_multiple_of(HUGE_PAGE);
        let aligned_end = end / HUGE_PAGE * HUGE_PAGE;
        if aligned_end > aligned_start {
            // SAFETY: the range lies inside the vector's allocation; MADV_HUGEPAGE changes how
            // its pages are backed, never their contents.
            unsafe {
                libc::madvise(
                    aligned_start as *mut libc::c_void,
                    aligned_end - aligned_start,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = values;
}
