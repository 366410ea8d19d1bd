//! Errors the core reports to its callers. None of them is a panic.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A configuration that cannot be simulated: names the user-facing key, the value, and what
/// would be valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config key '{key}' = {value} is invalid: {expected}")]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub expected: String,
}

impl ConfigError {
    pub fn new(key: &str, value: impl Into<String>, expected: impl Into<String>) -> Self {
        ConfigError {
            key: key.to_string(),
            value: value.into(),
            expected: expected.into(),
        }
    }
}

/// One channel (a link and one of its virtual channels) named in a deadlock report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StuckChannel {
    /// "router 7 (7,0) x+ -> router 0 (0,0) vc 0"
    pub name: String,
    /// The router that sends on the channel (upstream).
    pub router: u32,
    pub port: u16,
    pub port_name: String,
    pub vc: u8,
    /// The router whose input buffer the channel fills (downstream).
    pub peer_router: u32,
    /// Packets waiting in the downstream input buffer of this VC.
    pub queued_packets: u32,
    /// Credits the upstream router holds for this VC.
    pub credits_bytes: u32,
}

/// What the watchdog saw when it stopped a run that made no progress.
#[derive(Debug, Clone, PartialEq)]
pub struct DeadlockReport {
    pub time_ps: u64,
    pub packets_in_network: u64,
    /// Full input buffers whose head packet cannot get credits downstream (at most a few dozen).
    pub stuck_channels: Vec<StuckChannel>,
    /// A cycle of channels that wait for each other, when one is found.
    pub cycle: Vec<StuckChannel>,
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock at {:.3} ns: no packet moved while {} packets were in the network",
            self.time_ps as f64 / 1000.0,
            self.packets_in_network
        )?;
        if !self.cycle.is_empty() {
            let names: Vec<&str> = self.cycle.iter().map(|c| c.name.as_str()).collect();
            write!(f, "; cycle of waiting channels: {}", names.join(" => "))?;
        }
        Ok(())
    }
}

/// A rank of a message-passing job that could not go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StalledRank {
    pub job: String,
    pub rank: u32,
    /// Index of the operation it stands at in its program.
    pub operation: u32,
    pub waiting_for: String,
}

/// A message-passing workload that can never finish: nothing is left to happen while ranks
/// still wait (a receive without a send, a collective some ranks never call).
#[derive(Debug, Clone, PartialEq)]
pub struct StallReport {
    pub time_ps: u64,
    pub ranks: Vec<StalledRank>,
}

impl fmt::Display for StallReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the program can never finish: at {:.3} ns nothing is left to happen while {} \
             ranks wait",
            self.time_ps as f64 / 1000.0,
            self.ranks.len()
        )?;
        for r in self.ranks.iter().take(8) {
            write!(
                f,
                "; job {} rank {} at operation {} ({})",
                r.job, r.rank, r.operation, r.waiting_for
            )?;
        }
        if self.ranks.len() > 8 {
            write!(f, "; and {} more", self.ranks.len() - 8)?;
        }
        Ok(())
    }
}

/// Why a simulation did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Deadlock(Box<DeadlockReport>),
    #[error("{0}")]
    Stalled(Box<StallReport>),
    /// The progress callback asked to stop.
    #[error("interrupted")]
    Interrupted,
    /// The processes of a run across processes could not go on together.
    #[error(transparent)]
    Transport(#[from] crate::parallel::TransportError),
}
