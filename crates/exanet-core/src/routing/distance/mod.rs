//! Hop distances between routers, computed from the structure the topology offers
//! ([`Shape`]) instead of a table over all router pairs: per-group tables on dragonflies and
//! Fishnets, arithmetic on fat-trees and grids, and 2-bit rows toward the routers that hold
//! endpoints on any other graph. Routing asks only for distances toward routers that hold
//! endpoints (destinations and Valiant intermediates) or toward groups.

mod graph;
mod grid;
mod groups;
mod tree;

pub use groups::GroupDistances;

use crate::error::ConfigError;
use crate::topology::{Shape, Topology};

/// Minimal hop counts toward routers that hold endpoints.
pub trait Distances: Send + Sync {
    /// Hops of a minimal route from router `from` to router `to`, a router with endpoints
    /// (hierarchical routes on families with groups); u8::MAX where none exists.
    fn hops(&self, from: u32, to: u32) -> u8;

    /// Whether the hop from `from` to its neighbour `next` brings a packet one hop closer to
    /// `to`.
    fn closer(&self, from: u32, next: u32, to: u32) -> bool {
        self.hops(next, to).saturating_add(1) == self.hops(from, to)
    }

    /// The largest `hops` between two routers with endpoints.
    fn diameter(&self) -> u8;

    /// The groups, on families routed through them.
    fn groups(&self) -> Option<&GroupDistances> {
        None
    }

    /// Bytes held, for the record of routing state per endpoint.
    fn bytes(&self) -> u64;
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
) -> Result<Box<dyn Distances>, ConfigError> {
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
            Box::new(GroupDistances::new(
                group,
                neighbours,
                endpoint_routers,
                key,
            )?)
        }
        Shape::Levels(level) => Box::new(tree::TreeDistances::new(level, neighbours)),
        Shape::Grid(grid) => Box::new(grid::GridDistances::new(grid)),
        Shape::Graph => Box::new(graph::GraphDistances::new(
            neighbours,
            endpoint_routers,
            key,
        )?),
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
