//! The parallel engine's building blocks (docs/architecture.md §4): partitions of the network and
//! the lookahead they allow.

pub mod fabric;
pub mod hybrid;
pub mod partition;
mod shared;
pub mod transport;

pub use fabric::{Fabric, Solo, Threads};
pub use hybrid::Hybrid;
pub use partition::{partition, partition_or_given, report, Partition, PartitionReport};
pub use shared::SharedArray;
pub use transport::{Loopback, Ranks, Transport, TransportError};
