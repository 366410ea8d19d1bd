//! The parallel engine's building blocks (DESIGN §3): partitions of the network and the
//! lookahead they allow.

pub mod partition;

pub use partition::{partition, report, Partition, PartitionReport};
