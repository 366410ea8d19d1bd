//! Open-loop synthetic traffic: an injection process per endpoint (Bernoulli or Poisson) sending
//! fixed-size messages to destinations drawn from a pattern.

use rand_distr::{Distribution, Exp, Geometric};

use super::DestinationPattern;
use crate::config::{NicConfig, Process, TrafficConfig};
use crate::engine::{EntityRng, Time};
use crate::error::ConfigError;
use crate::network::serialization_ps;
use crate::topology::Topology;

#[derive(Debug, Clone)]
pub enum Gaps {
    /// Gap in slots: 1 + failures before the next success.
    Bernoulli(Geometric),
    /// Gap in picoseconds.
    Poisson(Exp<f64>),
}

/// When an endpoint's messages are due.
#[derive(Debug, Clone)]
pub enum Generation {
    /// Open loop: by a random process, whatever the network does.
    Open(Gaps),
    /// Burst-synchronized: a budget of messages per burst, each due as soon as the previous
    /// one has left; the next burst starts when every message of this one has arrived.
    Burst { packets_per_burst: u32, bursts: u32 },
}

#[derive(Debug, Clone)]
pub struct Synthetic {
    pub pattern: DestinationPattern,
    pub generation: Generation,
    /// Time to put one message (all its packets, headers included) on the injection link.
    slot_ps: Time,
    /// Payload bytes of one message.
    pub message_bytes: u64,
    /// Wire sizes (payload + header) of the packets of one message.
    packet_wire_bytes: Vec<u32>,
}

impl Synthetic {
    /// Builds the source of a synthetic or burst traffic config (None for other kinds).
    pub fn build(
        traffic: &TrafficConfig,
        nic: &NicConfig,
        topology: &dyn Topology,
        seed: u64,
    ) -> Result<Option<Self>, ConfigError> {
        let (pattern, packet_bytes, hotspot_endpoints, hotspot_fraction) = match traffic {
            TrafficConfig::Synthetic {
                pattern,
                packet_bytes,
                hotspot_endpoints,
                hotspot_fraction,
                ..
            }
            | TrafficConfig::Burst {
                pattern,
                packet_bytes,
                hotspot_endpoints,
                hotspot_fraction,
                ..
            } => (pattern, packet_bytes, hotspot_endpoints, hotspot_fraction),
            TrafficConfig::Jobs(_) => return Ok(None),
        };
        let pattern = DestinationPattern::build(
            *pattern,
            topology,
            seed,
            hotspot_endpoints,
            *hotspot_fraction,
        )?;
        let packets = packet_bytes.div_ceil(nic.mtu_bytes);
        if packets > 1 << 20 {
            return Err(ConfigError::new(
                "traffic.packet",
                format!("{packet_bytes}B"),
                format!(
                    "at most 2^20 packets of mtu {} B per message",
                    nic.mtu_bytes
                ),
            ));
        }
        let packet_wire_bytes: Vec<u32> = (0..packets)
            .map(|i| {
                let payload = (packet_bytes - i * nic.mtu_bytes).min(nic.mtu_bytes);
                (payload + nic.header_bytes) as u32
            })
            .collect();
        let wire: u64 = packet_wire_bytes.iter().map(|&b| u64::from(b)).sum();
        let slot_ps = serialization_ps(wire, nic.injection_bandwidth_bytes_per_s);
        let generation = match traffic {
            TrafficConfig::Synthetic {
                process: Process::Bernoulli,
                load,
                ..
            } => Generation::Open(Gaps::Bernoulli(
                Geometric::new(*load).expect("0 < load <= 1 was checked"),
            )),
            TrafficConfig::Synthetic {
                process: Process::Poisson,
                load,
                ..
            } => Generation::Open(Gaps::Poisson(
                Exp::new(*load / slot_ps as f64).expect("rate > 0 was checked"),
            )),
            TrafficConfig::Burst {
                packets_per_burst,
                bursts,
                ..
            } => Generation::Burst {
                packets_per_burst: *packets_per_burst,
                bursts: *bursts,
            },
            TrafficConfig::Jobs(_) => unreachable!("returned above"),
        };
        Ok(Some(Synthetic {
            pattern,
            generation,
            slot_ps,
            message_bytes: *packet_bytes,
            packet_wire_bytes,
        }))
    }

    /// Time from the start of one message's slot (or from time 0) to the next message.
    /// `first` is true for the first message of an endpoint, whose slot may be slot 0. A burst
    /// source's messages are due at once.
    pub fn next_gap(&self, rng: &mut EntityRng, first: bool) -> Time {
        match &self.generation {
            Generation::Open(Gaps::Bernoulli(geometric)) => {
                let failures = geometric.sample(rng);
                (failures + u64::from(!first)) * self.slot_ps
            }
            Generation::Open(Gaps::Poisson(exp)) => exp.sample(rng).round() as Time,
            Generation::Burst { .. } => 0,
        }
    }

    pub fn packet_wire_bytes(&self) -> &[u32] {
        &self.packet_wire_bytes
    }
}
