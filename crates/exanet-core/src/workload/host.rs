//! The host seam: what runs above an endpoint's NIC and talks to the network only through
//! [`Action`]s (send a message, wake me at a time) and the callbacks of [`Host`] (woken, a
//! message left, a message arrived). Message-passing jobs ([`super::Mpi`]) and closed-loop
//! threads ([`super::Threads`]) are hosts; the network knows neither.
//!
//! Open-loop and burst sources are not hosts: they are generated lazily inside the NIC (a
//! backlogged source holds one message and costs no events), which is the simulator's hot path.

use serde::{Deserialize, Serialize};

use super::mpi::{Envelope, JobCounters, JobResult};
use super::threads::ThreadCounters;
use crate::engine::Time;
use crate::error::StalledRank;
use crate::stats::{ColumnData, Summary};

/// What a host asks of the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Hand a message of `bytes` payload to endpoint `src`'s NIC, injectable from `ready_ps`;
    /// `token` names it in the callbacks (below `u32::MAX`).
    Send {
        ready_ps: Time,
        src: u32,
        dst: u32,
        bytes: u64,
        token: u32,
    },
    /// Wake endpoint `endpoint`'s host at `at` with `tag` (see [`Host::wake`]).
    Wake { at: Time, endpoint: u32, tag: u32 },
}

/// What a worker's copy of a host tells another worker's, with the window's events.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum HostNote {
    /// The envelope of message `token`, sent to an endpoint of the other worker: it arrives
    /// before the message's packets, which cross a link at least the window long.
    Envelope { token: u32, envelope: Envelope },
    /// The other worker numbered `token`, and this one is done with it.
    Released { token: u32 },
}

/// A worker's counters of a host, added up at the end of a run (across threads or processes).
#[derive(Clone, Serialize, Deserialize)]
pub enum HostCounters {
    Jobs(Vec<JobCounters>),
    Threads(Box<ThreadCounters>),
}

/// What a host adds to a run's results beyond its summary keys.
#[derive(Default)]
pub struct HostResults {
    /// Per-job rows (message-passing jobs).
    pub jobs: Vec<JobResult>,
    /// Columns added to the endpoints table, one value per endpoint.
    pub endpoint_columns: Vec<(&'static str, ColumnData)>,
}

/// The programs of the endpoints. Callbacks run for endpoints the calling worker owns, in the
/// order of the network's events, and append what they ask for to `out`.
pub trait Host: Send {
    /// The first actions of the endpoints for which `owns` holds.
    fn start(&mut self, owns: &dyn Fn(u32) -> bool, out: &mut Vec<Action>);

    /// A wake-up the host asked for (`Action::Wake`) is due.
    fn wake(&mut self, now: Time, endpoint: u32, tag: u32, out: &mut Vec<Action>);

    /// The last packet of message `token` left its source NIC; its tail is out at `tail_ps`.
    fn sent(&mut self, now: Time, token: u32, tail_ps: Time, out: &mut Vec<Action>);

    /// A packet of message `token`, one of `packets`, arrived: whether it was the last, or
    /// None if the host leaves reassembly to the network.
    fn packet_arrived(&mut self, token: u32, packets: u32) -> Option<bool>;

    /// Message `token` from `src` has fully arrived at `dst`.
    fn arrived(&mut self, now: Time, src: u32, dst: u32, token: u32, out: &mut Vec<Action>);

    /// The message class of message `token`: 0 (a request, or any message of a host without
    /// classes) or 1 (a response), for `router.message_classes` and `router.priority`.
    fn message_class(&self, _token: u32) -> u8 {
        0
    }

    /// Payload sizes of the messages it sends most (for the links' serialization tables).
    fn common_message_bytes(&self, mtu_bytes: u64) -> Vec<u64>;

    /// What must travel with message `token` to a worker that does not own its source.
    fn note_for(&self, token: u32) -> Option<HostNote>;

    /// (worker, note) of the notes for other workers gathered since the last call.
    fn take_notes(&mut self) -> Vec<(u32, HostNote)>;

    /// A note from another worker's copy.
    fn accept(&mut self, note: HostNote);

    /// Worker `me` of `parts`: runs the endpoints that worker owns, counters from zero.
    ///
    /// # Safety
    /// The worker must not outlive `self`, and must be called only for the endpoints it owns
    /// (per-endpoint state may be shared with the other workers' copies).
    unsafe fn worker(&self, me: u32, parts: u32) -> Box<dyn Host>;

    fn counters(&self) -> HostCounters;

    /// Adds a finished worker's counters to these.
    fn absorb(&mut self, counters: &HostCounters);

    /// Whether all its work is done (after the workers' counters were absorbed).
    fn finished(&self) -> bool;

    /// What is left undone on the endpoints for which `owns` holds, for a run that cannot go
    /// on: (order key, what waits), in the order of the keys.
    fn stuck(&self, owns: &dyn Fn(u32) -> bool) -> Vec<(u32, StalledRank)>;

    /// Adds its results to the summary, and gives its rows and columns.
    fn results(self: Box<Self>, endpoints: u32, summary: &mut Summary) -> HostResults;
}
