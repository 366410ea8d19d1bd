//! Synthetic traffic: an injection process per endpoint (Bernoulli or Poisson, or burst-
//! synchronized) sending messages of one size or a size mix (000's 16/32/80 B packets) to
//! destinations drawn from a pattern or a traffic matrix.

use rand::RngExt;
use rand_distr::{Distribution, Exp, Geometric};

use super::DestinationPattern;
use crate::config::{FixedPoints, NicConfig, Process, TrafficConfig};
use crate::engine::{EntityRng, Time};
use crate::error::ConfigError;
use crate::topology::Topology;

#[derive(Debug, Clone)]
pub enum Gaps {
    /// Gap in slots: 1 + failures before the next success.
    Bernoulli(Geometric),
    /// Gap in picoseconds.
    Poisson(Exp<f64>),
    /// A source that sends nothing (an empty row of a traffic matrix).
    Silent,
}

/// When an endpoint's messages are due.
#[derive(Debug, Clone)]
pub enum Generation {
    /// Open loop: by a random process, whatever the network does. One process for every
    /// endpoint, or one per endpoint when a traffic matrix gives the sources different rates.
    Open(Vec<Gaps>),
    /// Burst-synchronized: a budget of messages per burst, each due as soon as the previous
    /// one has left; the next burst starts when every message of this one has arrived.
    Burst { packets_per_burst: u32, bursts: u32 },
}

#[derive(Debug, Clone)]
pub struct Synthetic {
    pub pattern: DestinationPattern,
    pub generation: Generation,
    /// Mean time to put one message (all its packets, headers included) on the injection
    /// link, exactly (not rounded to the picosecond): the Bernoulli slot.
    slot_ps: f64,
    /// Payload sizes of the messages; with more than one, each message draws its size.
    sizes: Vec<u64>,
    /// Running sum of the sizes' weights (empty for one size).
    size_cumulative: Vec<f64>,
    /// Wire sizes (payload + header) of the packets the messages are cut into.
    packet_wire_bytes: Vec<u32>,
    /// The fixed points of a permutation pattern send nothing (002's sources).
    silent_fixed_points: bool,
}

impl Synthetic {
    /// Builds the source of a synthetic or burst traffic config (None for other kinds).
    pub fn build(
        traffic: &TrafficConfig,
        nic: &NicConfig,
        topology: &dyn Topology,
        seed: u64,
    ) -> Result<Option<Self>, ConfigError> {
        let (pattern, packet_bytes, hotspot_endpoints, hotspot_fraction, matrix, fixed_points) =
            match traffic {
                TrafficConfig::Synthetic {
                    pattern,
                    packet_bytes,
                    hotspot_endpoints,
                    hotspot_fraction,
                    matrix,
                    fixed_points,
                    ..
                }
                | TrafficConfig::Burst {
                    pattern,
                    packet_bytes,
                    hotspot_endpoints,
                    hotspot_fraction,
                    matrix,
                    fixed_points,
                    ..
                } => (
                    pattern,
                    packet_bytes,
                    hotspot_endpoints,
                    hotspot_fraction,
                    matrix,
                    fixed_points,
                ),
                TrafficConfig::Jobs(_) => return Ok(None),
            };
        let pattern = DestinationPattern::build(
            *pattern,
            topology,
            seed,
            hotspot_endpoints,
            *hotspot_fraction,
            matrix.as_ref(),
        )?;
        let shares = packet_bytes.shares();
        let weight_total: f64 = shares.iter().map(|s| s.weight).sum();
        let mut packet_wire_bytes = Vec::new();
        let mut slot_mean_ps = 0.0;
        for share in &shares {
            let wire = message_wire_bytes(share.bytes, nic)?;
            packet_wire_bytes.extend(wire.iter().copied());
            let wire_total: u64 = wire.iter().map(|&b| u64::from(b)).sum();
            slot_mean_ps += share.weight / weight_total * wire_total as f64 * 1e12
                / nic.injection_bandwidth_bytes_per_s as f64;
        }
        packet_wire_bytes.sort_unstable();
        packet_wire_bytes.dedup();
        let size_cumulative = if shares.len() > 1 {
            shares
                .iter()
                .scan(0.0, |sum, s| {
                    *sum += s.weight;
                    Some(*sum)
                })
                .collect()
        } else {
            Vec::new()
        };
        let generation = match traffic {
            TrafficConfig::Synthetic { process, load, .. } => {
                Generation::Open(open_gaps(*process, *load, slot_mean_ps, &pattern, topology))
            }
            TrafficConfig::Burst {
                packets_per_burst,
                bursts,
                ..
            } => {
                if let DestinationPattern::Matrix(rows) = &pattern {
                    if let Some(silent) = rows.silent_sources().next() {
                        return Err(ConfigError::new(
                            "traffic.matrix",
                            format!("row {silent} has no weight off the diagonal"),
                            "a destination for every endpoint: a burst gives every endpoint \
                             the same budget",
                        ));
                    }
                }
                let n = topology.num_endpoints();
                if *fixed_points == FixedPoints::Silent && (0..n).all(|e| pattern.fixed_point(e)) {
                    return Err(ConfigError::new(
                        "traffic.fixed_points",
                        "\"silent\"",
                        "an endpoint that sends: every endpoint is a fixed point of the pattern \
                         here, so no burst would ever end; use fixed_points = \"send\"",
                    ));
                }
                Generation::Burst {
                    packets_per_burst: *packets_per_burst,
                    bursts: *bursts,
                }
            }
            TrafficConfig::Jobs(_) => unreachable!("returned above"),
        };
        Ok(Some(Synthetic {
            pattern,
            generation,
            slot_ps: slot_mean_ps,
            sizes: shares.iter().map(|s| s.bytes).collect(),
            size_cumulative,
            packet_wire_bytes,
            silent_fixed_points: *fixed_points == FixedPoints::Silent,
        }))
    }

    /// Whether endpoint `e` sends nothing: a fixed point of a permutation pattern, with
    /// `fixed_points = "silent"`.
    pub fn silent(&self, e: u32) -> bool {
        self.silent_fixed_points && self.pattern.fixed_point(e)
    }

    /// Time from the start of one message's slot (or from time 0) to endpoint `e`'s next
    /// message. `first` is true for an endpoint's first message, whose slot may be slot 0. A
    /// burst source's messages are due at once; a silent source's never.
    pub fn next_gap(&self, e: u32, rng: &mut EntityRng, first: bool) -> Time {
        match &self.generation {
            Generation::Open(gaps) => match &gaps[if gaps.len() == 1 { 0 } else { e as usize }] {
                Gaps::Bernoulli(geometric) => {
                    let slots = geometric.sample(rng) + u64::from(!first);
                    (slots as f64 * self.slot_ps).round() as Time
                }
                Gaps::Poisson(exp) => exp.sample(rng).round() as Time,
                Gaps::Silent => Time::MAX,
            },
            Generation::Burst { .. } => 0,
        }
    }

    /// The payload of the next message (drawn from the mix, if there is one).
    pub fn message_bytes(&self, rng: &mut EntityRng) -> u64 {
        if self.size_cumulative.is_empty() {
            return self.sizes[0];
        }
        let total = self.size_cumulative[self.size_cumulative.len() - 1];
        let r = rng.random::<f64>() * total;
        let k = self
            .size_cumulative
            .partition_point(|&c| c <= r)
            .min(self.sizes.len() - 1);
        self.sizes[k]
    }

    pub fn packet_wire_bytes(&self) -> &[u32] {
        &self.packet_wire_bytes
    }
}

/// Wire sizes (payload + header) of the packets a message of `bytes` is cut into.
fn message_wire_bytes(bytes: u64, nic: &NicConfig) -> Result<Vec<u32>, ConfigError> {
    let packets = bytes.div_ceil(nic.mtu_bytes);
    if packets > 1 << 20 {
        return Err(ConfigError::new(
            "traffic.packet",
            format!("{bytes}B"),
            format!(
                "at most 2^20 packets of mtu {} B per message",
                nic.mtu_bytes
            ),
        ));
    }
    Ok((0..packets)
        .map(|i| {
            let payload = (bytes - i * nic.mtu_bytes).min(nic.mtu_bytes);
            (payload + nic.header_bytes) as u32
        })
        .collect())
}

/// The open-loop processes: one at `load` for every endpoint, or, under a traffic matrix, one
/// per endpoint at `load` scaled by its row's total over the largest row's (the busiest source
/// offers `load`).
fn open_gaps(
    process: Process,
    load: f64,
    slot_ps: f64,
    pattern: &DestinationPattern,
    topology: &dyn Topology,
) -> Vec<Gaps> {
    let gaps = |load: f64| {
        if load <= 0.0 {
            return Gaps::Silent;
        }
        match process {
            Process::Bernoulli => {
                Gaps::Bernoulli(Geometric::new(load).expect("0 < load <= 1 was checked"))
            }
            Process::Poisson => {
                Gaps::Poisson(Exp::new(load / slot_ps).expect("rate > 0 was checked"))
            }
        }
    };
    match pattern {
        DestinationPattern::Matrix(rows) => {
            let totals: Vec<f64> = (0..topology.num_endpoints())
                .map(|e| rows.row_total(e))
                .collect();
            let largest = totals.iter().copied().fold(0.0, f64::max);
            totals.iter().map(|&t| gaps(load * t / largest)).collect()
        }
        _ => vec![gaps(load)],
    }
}
