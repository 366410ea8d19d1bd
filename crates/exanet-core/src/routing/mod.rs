//! Routing: a routing function proposes candidate (output port, VC set) pairs for a packet at a
//! router; a selection policy picks one using only what a router knows (its credit counts).

mod dor;
mod minimal;

pub use dor::DimensionOrder;
pub use minimal::MinimalTable;

use crate::config::RoutingConfig;
use crate::error::ConfigError;
use crate::topology::Topology;

/// One way forward: an output port and the VCs (bit set) the packet may take on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub port: u16,
    pub vc_mask: u32,
}

/// Most routing functions offer a handful of candidates; this is a fixed-size list so that
/// routing never allocates.
#[derive(Debug, Clone)]
pub struct Candidates {
    items: [Candidate; Candidates::CAPACITY],
    len: usize,
}

impl Candidates {
    pub const CAPACITY: usize = 16;

    pub fn new() -> Self {
        Candidates {
            items: [Candidate {
                port: 0,
                vc_mask: 0,
            }; Self::CAPACITY],
            len: 0,
        }
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn push(&mut self, candidate: Candidate) {
        self.items[self.len] = candidate;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
}

impl Default for Candidates {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a packet is and where it goes.
#[derive(Debug, Clone, Copy)]
pub struct RouteQuery {
    pub router: u32,
    /// The port the packet arrived on, and the VC it occupies there.
    pub in_port: u16,
    pub in_vc: u8,
    /// Whether `in_port` is an endpoint (injection) port.
    pub injected: bool,
    pub dst_router: u32,
    /// The port of `dst_router` the destination endpoint hangs on.
    pub dst_port: u16,
}

/// A routing function. Implementations must be deadlock-free for the topologies `build` accepts
/// unless the config opted into unsafe routing.
pub trait RoutingFunction: Send + Sync {
    fn route(&self, query: &RouteQuery, out: &mut Candidates);
}

/// Picks the candidate whose best VC holds the most credits (first candidate on ties): the
/// selection an adaptive router makes from local state. `credits(port, vc)` is the upstream
/// view of downstream buffer space. Returns the index of the chosen candidate.
pub fn select_most_credits(candidates: &[Candidate], credits: impl Fn(u16, u32) -> u32) -> usize {
    if candidates.len() == 1 {
        return 0;
    }
    let best_vc_credits = |c: &Candidate| {
        vcs_in(c.vc_mask)
            .map(|vc| credits(c.port, vc))
            .max()
            .unwrap_or(0)
    };
    let mut best = 0;
    let mut best_credits = best_vc_credits(&candidates[0]);
    for (i, c) in candidates.iter().enumerate().skip(1) {
        let free = best_vc_credits(c);
        if free > best_credits {
            best = i;
            best_credits = free;
        }
    }
    best
}

/// The VC numbers in a VC bit set, lowest first.
pub fn vcs_in(mut mask: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let vc = mask.trailing_zeros();
            mask &= mask - 1;
            vc
        })
    })
}

/// Builds the routing function a config names for a topology, or says why it does not apply.
pub fn build(
    config: &RoutingConfig,
    topology: &dyn Topology,
    vcs: u32,
) -> Result<Box<dyn RoutingFunction>, ConfigError> {
    match config {
        RoutingConfig::Dor { allow_unsafe } => {
            Ok(Box::new(DimensionOrder::new(topology, vcs, *allow_unsafe)?))
        }
        RoutingConfig::Minimal {} => Ok(Box::new(MinimalTable::new(topology, vcs)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_prefers_most_credits_then_first() {
        let cands = [
            Candidate {
                port: 0,
                vc_mask: 0b01,
            },
            Candidate {
                port: 1,
                vc_mask: 0b11,
            },
            Candidate {
                port: 2,
                vc_mask: 0b10,
            },
        ];
        let credits = |port: u16, vc: u32| [[10, 0], [5, 20], [0, 20]][port as usize][vc as usize];
        assert_eq!(select_most_credits(&cands, credits), 1);
        assert_eq!(select_most_credits(&cands[..1], credits), 0);
        assert_eq!(vcs_in(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
    }
}
