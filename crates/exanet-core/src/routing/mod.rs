//! Routing: a routing function proposes candidate (output port, VC set) pairs for a packet at a
//! router; a selection policy picks one using only what a router knows (its credit counts).

pub mod cdg;
pub mod distance;
mod dor;
mod escape;
mod midimew;
pub mod schemes;

pub use dor::DimensionOrder;
pub use escape::EscapeAdaptive;
pub use midimew::MidimewAdaptive;
use schemes::{DimensionOrderOnLines, FishnetAdaptive, Minimal, Par, Source, Ugal, Valiant};

use crate::config::{Escape, RouterConfig, RoutingConfig, Selection, VcRule};
use crate::error::ConfigError;
use crate::topology::Topology;

/// Routing state a packet carries from router to router (a few bytes, docs/architecture.md
/// §7): the phase of a multi-phase route and its intermediate (router or group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RouteState {
    pub phase: u8,
    pub via: u32,
}

/// `RouteState::via` of a packet without an intermediate.
pub const NO_VIA: u32 = u32::MAX;

impl RouteState {
    /// The state of a packet leaving its NIC.
    pub const FRESH: RouteState = RouteState {
        phase: 0,
        via: NO_VIA,
    };
}

/// One way forward: an output port, the VCs (bit set) the packet may take on it, and the state
/// it carries if it goes this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub port: u16,
    pub vc_mask: u32,
    pub next: RouteState,
    /// Hops left to the destination along this way, for weighing ways of different length
    /// (UGAL); equal for ways of one length.
    pub hops: u8,
}

impl Candidate {
    /// A way that keeps the packet's state; `hops` 0 when all ways are equally long.
    pub fn keep(port: u16, vc_mask: u32, state: RouteState) -> Self {
        Candidate {
            port,
            vc_mask,
            next: state,
            hops: 0,
        }
    }
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
            items: [Candidate::keep(0, 0, RouteState::default()); Self::CAPACITY],
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

    /// Moves every way's VCs up by `offset`: the same plan on another message class's VCs.
    pub fn shift_vcs(&mut self, offset: u32) {
        for c in &mut self.items[..self.len] {
            c.vc_mask <<= offset;
        }
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
    /// The destination endpoint.
    pub dst: u32,
    /// The packet's routing state.
    pub state: RouteState,
    /// Random bits fixed for the packet's life (oblivious choices, Valiant intermediates):
    /// derived from the packet's identity, so independent of event order and partitioning.
    pub random: u32,
}

/// A routing function. Implementations must be deadlock-free for the topologies `build` accepts
/// unless the config opted into unsafe routing.
pub trait RoutingFunction: Send + Sync {
    fn route(&self, query: &RouteQuery, out: &mut Candidates);

    /// Router-to-router hops of a minimal route from router `from` to router `to`, as this
    /// routing measures routes (its distances; on topologies with groups the hierarchical
    /// minimal route): 0 when `from == to`.
    fn hops(&self, from: u32, to: u32) -> u32;

    /// Whether every route it takes is as long as [`hops`](Self::hops) says (minimal schemes):
    /// a delivered packet's hops then need no comparison with its minimal route.
    fn minimal_routes(&self) -> bool {
        false
    }

    /// VCs of an escape sub-network (Duato), as a bit set: selection ignores them, the
    /// allocator takes them only when no other allowed VC has room, and a packet whose way
    /// offers none and finds no room is re-routed to the way that does (always the first
    /// candidate). 0: no escape sub-network.
    fn escape_vcs(&self) -> u32 {
        0
    }

    /// The escape VC under bubble flow control, if any: a packet entering it other than along
    /// its ring (same dimension and direction, from the same VC) needs room for a second
    /// packet of the largest size downstream.
    fn bubble_vc(&self) -> Option<u8> {
        None
    }

    /// How much freer (a fraction of one VC buffer) another way must be before an adaptive
    /// router leaves the first one (see [`select`]).
    fn threshold(&self) -> f64 {
        0.0
    }

    /// Whether the source weighs ways of different lengths by the queues along each whole
    /// route (UGAL-G) rather than at its own ports: an idealized reference that reads other
    /// routers' state, so a parallel run must keep it in one partition.
    fn global_view(&self) -> bool {
        false
    }

    /// Bytes of routing state held (tables, distances; arithmetic schemes hold almost none).
    fn state_bytes(&self) -> u64 {
        0
    }

    /// How many values of a packet's random bits (0, 1, ...) reach every route the scheme can
    /// take: the channel-dependency check follows no more (1 for deterministic schemes).
    fn distinct_draws(&self) -> u32 {
        1
    }
}

/// Picks a candidate from local state only. Ways of one length: the one whose best VC holds
/// the most credits, where the first way (the oblivious choice: DOR, D-mod-k) counts
/// `threshold` bytes more, so a router leaves it only for a way clearly freer. Ways of
/// different lengths (UGAL): the smallest queued bytes x hops left, longer ways counting
/// `threshold` more queued bytes; the first on ties. `credits(port, vc)` is the upstream view
/// of downstream buffer space; `queued(candidate)` the bytes waiting for the candidate's port
/// and held downstream of it on its VCs. Returns the chosen index.
pub fn select(
    candidates: &[Candidate],
    threshold: u32,
    credits: impl Fn(u16, u32) -> u32,
    queued: impl Fn(&Candidate) -> u64,
) -> usize {
    if candidates.len() == 1 {
        return 0;
    }
    let shortest = candidates.iter().map(|c| c.hops).min().unwrap_or(0);
    if candidates.iter().all(|c| c.hops == shortest) {
        return select_most_credits(candidates, threshold, credits);
    }
    let score = |c: &Candidate| {
        let bias = if c.hops > shortest { threshold } else { 0 };
        // +1 byte: an empty queue still costs its hops.
        (queued(c) + u64::from(bias) + 1) * u64::from(c.hops)
    };
    let mut best = 0;
    let mut best_score = score(&candidates[0]);
    for (i, c) in candidates.iter().enumerate().skip(1) {
        let s = score(c);
        if s < best_score {
            best = i;
            best_score = s;
        }
    }
    best
}

/// Picks the candidate whose best VC holds the most credits, the first counting `bonus` more
/// (first on ties): the selection an adaptive router makes among equally long ways.
pub fn select_most_credits(
    candidates: &[Candidate],
    bonus: u32,
    credits: impl Fn(u16, u32) -> u32,
) -> usize {
    if candidates.len() == 1 {
        return 0;
    }
    let best_vc_credits = |c: &Candidate| {
        vcs_in(c.vc_mask)
            .map(|vc| u64::from(credits(c.port, vc)))
            .max()
            .unwrap_or(0)
    };
    let mut best = 0;
    let mut best_credits = best_vc_credits(&candidates[0]) + u64::from(bonus);
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
pub fn vcs_in(mask: u32) -> impl Iterator<Item = u32> {
    set_bits(u64::from(mask))
}

/// The positions of the set bits of a word, lowest first.
pub fn set_bits(mut bits: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            b
        })
    })
}

/// Builds the routing function a config names for a topology, or says why it does not apply.
/// The routing of `config` on the VCs of one message class (`router.message_classes`); an
/// error about too few VCs then says they are one class's share.
pub fn build_for_classes(
    config: &RoutingConfig,
    topology: &dyn Topology,
    router: &RouterConfig,
) -> Result<Box<dyn RoutingFunction>, ConfigError> {
    build(config, topology, router.class_vcs()).map_err(|mut e| {
        if router.message_classes > 1 && e.key == "router.vcs" {
            e.value = router.vcs.to_string();
            e.expected = format!(
                "enough VCs for each of the {} message classes, which split router.vcs evenly \
                 ({} each); what one class needs: {}",
                router.message_classes,
                router.class_vcs(),
                e.expected
            );
        }
        e
    })
}

pub fn build(
    config: &RoutingConfig,
    topology: &dyn Topology,
    vcs: u32,
) -> Result<Box<dyn RoutingFunction>, ConfigError> {
    let threshold = match config {
        RoutingConfig::Minimal {
            threshold, escape, ..
        } => RoutingConfig::minimal_threshold(*threshold, *escape),
        RoutingConfig::UgalL { threshold }
        | RoutingConfig::UgalG { threshold }
        | RoutingConfig::Par { threshold }
        | RoutingConfig::FishnetAdaptive { threshold } => *threshold,
        _ => 0.0,
    };
    if !(threshold.is_finite() && threshold >= 0.0) {
        return Err(ConfigError::new(
            "routing.threshold",
            threshold.to_string(),
            "a fraction of one VC buffer, 0 or more",
        ));
    }
    // The registry: one line per scheme.
    match config {
        RoutingConfig::Dor {
            allow_unsafe,
            vc_rule,
        } if topology.coordinates().is_some() => Ok(Box::new(DimensionOrder::new(
            topology,
            vcs,
            *allow_unsafe,
            *vc_rule,
        )?)),
        RoutingConfig::Dor {
            vc_rule: VcRule::DigitCompare,
            ..
        } => Err(ConfigError::new(
            "routing.vc_rule",
            "\"digit_compare\"",
            "\"dateline\" (the default) off a torus or mesh: dimension order on an express mesh \
             or HyperX takes one VC class per hop inside a dimension, not two lanes",
        )),
        RoutingConfig::Dor { .. } => {
            schemes::build(topology, vcs, DimensionOrderOnLines, threshold)
        }
        RoutingConfig::Minimal {
            selection, escape, ..
        } if *escape != Escape::None => {
            if *selection != Selection::Adaptive {
                return Err(ConfigError::new(
                    "routing.selection",
                    format!("{selection:?}").to_lowercase(),
                    "\"adaptive\" with an escape sub-network (a packet falls back to the escape \
                     VCs when the adaptive ones are full)",
                ));
            }
            match topology.midimew() {
                Some(midimew) => Ok(Box::new(MidimewAdaptive::new(
                    midimew, vcs, *escape, threshold,
                )?)),
                None => Ok(Box::new(EscapeAdaptive::new(
                    topology, vcs, *escape, threshold,
                )?)),
            }
        }
        RoutingConfig::Minimal { selection, .. } => schemes::build(
            topology,
            vcs,
            Minimal {
                selection: *selection,
            },
            threshold,
        ),
        RoutingConfig::Valiant {} => schemes::build(topology, vcs, Valiant, threshold),
        RoutingConfig::UgalL { .. } => {
            schemes::build(topology, vcs, Ugal { global: false }, threshold)
        }
        RoutingConfig::UgalG { .. } => {
            schemes::build(topology, vcs, Ugal { global: true }, threshold)
        }
        RoutingConfig::Par { .. } => schemes::build(topology, vcs, Par, threshold),
        RoutingConfig::FishnetAdaptive { .. } => {
            schemes::build(topology, vcs, FishnetAdaptive, threshold)
        }
        RoutingConfig::Source { paths } => {
            schemes::build(topology, vcs, Source::new(paths), threshold)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_prefers_most_credits_then_first() {
        let cands = [
            Candidate::keep(0, 0b01, RouteState::default()),
            Candidate::keep(1, 0b11, RouteState::default()),
            Candidate::keep(2, 0b10, RouteState::default()),
        ];
        let credits = |port: u16, vc: u32| [[10, 0], [5, 20], [0, 20]][port as usize][vc as usize];
        assert_eq!(select_most_credits(&cands, 0, credits), 1);
        // The first way keeps the packet unless another is freer by more than the bonus.
        assert_eq!(select_most_credits(&cands, 10, credits), 0);
        assert_eq!(select_most_credits(&cands, 9, credits), 1);
        assert_eq!(select_most_credits(&cands[..1], 0, credits), 0);
        assert_eq!(vcs_in(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
    }
}
