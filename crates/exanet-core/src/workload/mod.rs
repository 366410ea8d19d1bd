//! Workloads: what the endpoints send, and when. Open-loop and burst-synchronized sources
//! ([`Synthetic`], generated inside the NIC), and the hosts behind the [`Host`] seam:
//! message-passing jobs ([`Mpi`]) built from applications or explicit programs and placed on
//! endpoints, and closed-loop latency-tolerant threads ([`Threads`]).

pub mod apps;
pub mod collectives;
mod host;
pub mod jobs;
mod matrix;
pub mod mpi;
mod patterns;
pub mod program;
mod synthetic;
mod threads;

pub use apps::App;
pub use collectives::{Algorithm, CollectiveKind};
pub use host::{Action, Host, HostCounters, HostNote, HostResults};
pub use mpi::{JobResult, Mpi};
pub use patterns::DestinationPattern;
pub use program::OpColumns;
pub use synthetic::{Generation, Synthetic};
pub use threads::Threads;
