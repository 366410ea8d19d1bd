//! Sizes that cannot fit are refused before they are allocated: a builder adds up what it is
//! about to allocate in a [`Footprint`] and checks it against the machine's memory first, so a
//! network of 10^9 routers or a recording of 1 ps bins ends in a `ConfigError` with the
//! estimate, never in an allocation failure that kills the process (and its Python caller).

use std::fmt::Write;

use crate::error::ConfigError;

/// Environment variable that sets the memory exanet may use, in bytes (default: the machine's
/// memory, or its cgroup's limit when that is lower).
pub const MEMORY_LIMIT_VAR: &str = "EXANET_MEMORY_LIMIT";

/// What a structure is about to allocate, by part, in bytes.
#[derive(Debug, Clone, Default)]
pub struct Footprint {
    parts: Vec<(&'static str, u64)>,
}

impl Footprint {
    pub fn new() -> Footprint {
        Footprint::default()
    }

    /// Adds `count` items of `bytes_each` as part `what` (saturating: an estimate past 2^64
    /// bytes still reads as too large).
    pub fn add(&mut self, what: &'static str, count: u64, bytes_each: u64) -> &mut Footprint {
        self.parts.push((what, count.saturating_mul(bytes_each)));
        self
    }

    pub fn total_bytes(&self) -> u64 {
        self.parts
            .iter()
            .fold(0, |sum, &(_, b)| sum.saturating_add(b))
    }

    /// Refuses the structure when it needs more than the memory exanet may use: the error
    /// names `key` and `value` (what the user asked for) and gives the estimate by part.
    pub fn check(&self, key: &str, value: impl Into<String>) -> Result<(), ConfigError> {
        match memory_limit() {
            Some(limit) => self.check_within(key, value, limit),
            None => Ok(()),
        }
    }

    /// [`Footprint::check`] against an explicit limit of `limit_bytes`.
    pub fn check_within(
        &self,
        key: &str,
        value: impl Into<String>,
        limit_bytes: u64,
    ) -> Result<(), ConfigError> {
        let total = self.total_bytes();
        if total <= limit_bytes {
            return Ok(());
        }
        let mut parts = String::new();
        let mut largest: Vec<_> = self.parts.iter().filter(|(_, b)| *b > 0).collect();
        largest.sort_by_key(|(_, b)| std::cmp::Reverse(*b));
        for (i, (what, bytes)) in largest.iter().take(4).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = write!(parts, "{sep}{what} {}", format_bytes(*bytes));
        }
        Err(ConfigError::new(
            key,
            value,
            format!(
                "something that fits in memory: this needs ~{} ({parts}), and exanet may use \
                 {} on this machine (the machine's memory, or {MEMORY_LIMIT_VAR} in bytes); \
                 make it smaller",
                format_bytes(total),
                format_bytes(limit_bytes),
            ),
        ))
    }
}

/// Bytes as a reader takes them in: "812 B", "3.4 GiB", "1.2 TiB".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value < 10.0 { 1 } else { 0 };
    format!("{value:.digits$} {}", UNITS[unit])
}

/// The memory exanet may use: `EXANET_MEMORY_LIMIT` when set, else the smaller of the
/// machine's memory and its cgroup's limit (None where neither can be read).
pub fn memory_limit() -> Option<u64> {
    if let Some(limit) = std::env::var(MEMORY_LIMIT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Some(limit);
    }
    [machine_memory(), cgroup_limit()]
        .into_iter()
        .flatten()
        .min()
}

fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn cgroup_limit() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|path| std::fs::read_to_string(path).ok())
    .filter_map(|text| text.trim().parse::<u64>().ok())
    .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_footprint_over_the_limit_names_the_key_the_total_and_its_largest_parts() {
        let mut need = Footprint::new();
        need.add("router ports", 7_000_000_000, 33)
            .add("NICs", 1_000_000_000, 120)
            .add("nothing", 0, 8);
        assert_eq!(need.total_bytes(), 351_000_000_000);
        assert!(need.check_within("topology", "x", 400_000_000_000).is_ok());
        let error = need
            .check_within("topology.dims", "[1000, 1000, 1000]", 24 << 30)
            .unwrap_err();
        assert_eq!(error.key, "topology.dims");
        assert_eq!(error.value, "[1000, 1000, 1000]");
        assert!(
            error
                .expected
                .contains("needs ~327 GiB (router ports 215 GiB, NICs 112 GiB)"),
            "{}",
            error.expected
        );
        assert!(error.expected.contains("exanet may use 24 GiB"));
    }

    #[test]
    fn sizes_past_two_to_the_64_saturate_instead_of_wrapping() {
        let mut need = Footprint::new();
        need.add("bins", u64::MAX / 2, 16).add("more", 1, u64::MAX);
        assert_eq!(need.total_bytes(), u64::MAX);
        assert!(need.check_within("k", "v", u64::MAX - 1).is_err());
    }

    #[test]
    fn bytes_are_written_in_binary_units() {
        assert_eq!(format_bytes(812), "812 B");
        assert_eq!(format_bytes(3 << 30), "3.0 GiB");
        assert_eq!(format_bytes(24 << 30), "24 GiB");
        assert_eq!(format_bytes(1_300 << 30), "1.3 TiB");
    }

    #[test]
    fn this_machine_reports_a_limit() {
        let limit = memory_limit().expect("Linux reports its memory");
        assert!(limit > 1 << 20, "{limit}");
    }
}
