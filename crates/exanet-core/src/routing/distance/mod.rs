//! Hop distances between routers, computed from the structure the topology offers
//! ([`Shape`]) instead of a table over all router pairs: per-group tables on dragonflies and
//! Fishnets, arithmetic on fat-trees, grids and midimews, and 2-bit rows toward the routers
//! that hold endpoints on any other graph. Routing asks only for distances toward routers that
//! hold endpoints (destinations and Valiant intermediates) or toward groups.

mod circulant;
mod graph;
mod grid;
mod groups;
mod masks;
mod tree;

pub use graph::{GraphDistances, Standings};
pub use groups::{GroupDistances, HopsToward};

use crate::error::ConfigError;
use crate::topology::{Peer, Shape, Topology};

/// Minimal hop counts toward routers that hold endpoints.
pub trait Distances: Send + Sync {
    /// Hops of a minimal route from router `from` to router `to`, a router with endpoints
    /// (hierarchical routes on families with groups); u8::MAX where none exists.
    fn hops(&self, from: u32, to: u32) -> u8;

    /// Where `router` stands toward `to`, for comparing neighbours: its hops, or what
    /// [`Distances::one_closer`] can compare.
    fn standing(&self, router: u32, to: u32) -> u8 {
        self.hops(router, to)
    }

    /// The standing of a neighbour one hop closer than a router standing at `here`.
    fn one_closer(&self, here: u8) -> u8 {
        here.wrapping_sub(1)
    }

    /// The largest `hops` between two routers with endpoints.
    fn diameter(&self) -> u8;

    /// The level of `router` where every minimal route between routers with endpoints climbs
    /// to the lowest level whose routers reach both ends, then descends (up*/down* on a tree:
    /// links join adjacent levels, endpoints hang at level 0); None on other shapes. Such a
    /// route takes up-links of rising level, then down-links of falling level, an order no
    /// route reverses, so the minimal hops toward one target close no cycle of channel
    /// dependencies: one VC class per minimal leg of a route suffices.
    fn level(&self, _router: u32) -> Option<u8> {
        None
    }

    /// Bytes held, for the record of routing state per endpoint.
    fn bytes(&self) -> u64;
}

/// Distances on a topology: through its groups, on any other graph, or flat by the family's
/// structure. Groups and graphs are kept apart so that routing reaches them without a virtual
/// call on every hop.
pub enum Metric {
    Groups(GroupDistances),
    Graph(GraphDistances),
    Flat(Box<dyn Distances>),
}

impl Metric {
    /// The groups, on families routed through them.
    #[inline]
    pub fn groups(&self) -> Option<&GroupDistances> {
        match self {
            Metric::Groups(groups) => Some(groups),
            Metric::Graph(_) | Metric::Flat(_) => None,
        }
    }

    /// The rows of standings, on graphs without a structure of their own.
    #[inline]
    pub fn graph(&self) -> Option<&GraphDistances> {
        match self {
            Metric::Graph(graph) => Some(graph),
            Metric::Groups(_) | Metric::Flat(_) => None,
        }
    }

    pub fn distances(&self) -> &dyn Distances {
        match self {
            Metric::Groups(groups) => groups,
            Metric::Graph(graph) => graph,
            Metric::Flat(flat) => flat.as_ref(),
        }
    }
}

/// The network ports of every router of `topology`: `(port, neighbour)`, in port order, what
/// the distances are built from and routing decisions index.
pub fn network_neighbours(topology: &dyn Topology) -> Vec<Vec<(u16, u32)>> {
    (0..topology.num_routers())
        .map(|r| {
            (0..topology.ports_per_router())
                .filter_map(|p| match topology.peer(r, p) {
                    Peer::Router { router, .. } => Some((p, router)),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// The distances of `topology`, whose routers' network ports are `neighbours[r]` (port,
/// neighbour) and whose routers with endpoints are `endpoint_routers` (ascending). Fails when
/// two routers with endpoints have no route between them, or the distances would not fit in
/// memory (named by `key`).
pub fn build(
    topology: &dyn Topology,
    neighbours: &[Vec<(u16, u32)>],
    endpoint_routers: &[u32],
    key: &str,
) -> Result<Metric, ConfigError> {
    let routers = topology.num_routers();
    Ok(match topology.shape() {
        Shape::Groups => {
            let group = (0..routers)
                .map(|r| {
                    topology
                        .group(r)
                        .expect("families with groups name every router's")
                })
                .collect();
            Metric::Groups(GroupDistances::new(
                group,
                neighbours,
                endpoint_routers,
                key,
            )?)
        }
        Shape::Levels(level) => Metric::Flat(Box::new(tree::TreeDistances::new(level, neighbours))),
        Shape::Grid(grid) => Metric::Flat(Box::new(grid::GridDistances::new(grid))),
        Shape::Midimew(midimew) => Metric::Flat(Box::new(circulant::MidimewDistances(midimew))),
        Shape::Graph => Metric::Graph(GraphDistances::new(neighbours, endpoint_routers, key)?),
    })
}

/// The error for two routers with endpoints and no route between them.
fn disconnected(a: u32, b: u32) -> ConfigError {
    ConfigError::new(
        "topology",
        format!("routers {a} and {b}"),
        "a connected network: these endpoint routers have no path between them",
    )
}
