//! Workloads: what the endpoints send, and when. Open-loop and burst-synchronized sources
//! ([`Synthetic`]), and message-passing jobs ([`Mpi`]) built from applications or explicit
//! programs and placed on endpoints.

pub mod apps;
pub mod collectives;
pub mod jobs;
mod matrix;
pub mod mpi;
mod patterns;
pub mod program;
mod synthetic;

pub use apps::App;
pub use collectives::{Algorithm, CollectiveKind};
pub use mpi::{Action, Mpi};
pub use patterns::DestinationPattern;
pub use program::OpColumns;
pub use synthetic::{Generation, Synthetic};
