//! The packet-level network model (virtual cut-through): NICs, routers and links, as one
//! [`engine::Model`](crate::engine::Model) whose entities are the routers and the NICs.

mod arrays;
mod counts;
mod deadlock;
mod driver;
mod model;
mod nic;
mod packet;
mod parallel;
mod rate;
mod record;
mod results;
mod router;
mod state;

pub use driver::{Phase, Progress};
pub(crate) use model::{check_fits, Held};
pub use model::{NetEvent, Network, Parts};
pub use rate::MAX_PACKET_RATE_PER_S;
pub use record::{MatrixLevel, RecordConfig};
pub use results::RunOutput;

/// Picoseconds to serialize `bytes` on a link of `bytes_per_s`: ceil(bytes * 1e12 / rate).
/// Packets are at most [`MAX_PACKET_BYTES`](crate::config::MAX_PACKET_BYTES), so this fits u64.
#[inline]
pub fn serialization_ps(bytes: u64, bytes_per_s: u64) -> u64 {
    (bytes * 1_000_000_000_000).div_ceil(bytes_per_s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn serialization_rounds_up_to_the_picosecond() {
        // 288 B at 25 GB/s = 11.52 ns
        assert_eq!(super::serialization_ps(288, 25_000_000_000), 11_520);
        // 1 B at 3 GB/s = 333.33.. ps -> 334
        assert_eq!(super::serialization_ps(1, 3_000_000_000), 334);
    }
}

#[cfg(test)]
mod class_tests;
#[cfg(test)]
mod held_tests;
#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod zero_load_tests;
