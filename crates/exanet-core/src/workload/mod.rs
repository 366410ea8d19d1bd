//! Workloads: what the endpoints send, and when.

mod patterns;
mod synthetic;

pub use patterns::DestinationPattern;
pub use synthetic::Synthetic;
