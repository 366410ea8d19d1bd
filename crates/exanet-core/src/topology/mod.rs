//! Topologies: who is on the other side of each router port, and the structural facts routing,
//! workloads and analysis need.

mod dragonfly;
pub mod edges;
mod fat_tree;
pub mod field;
pub mod graphs;
mod port_graph;
mod torus;

pub use dragonfly::{dragonfly, Arrangement, DragonflyParams, GroupShape};
pub use fat_tree::{fat_tree, FatTreeParams};
pub use port_graph::{Layout, PortGraph};
pub use torus::Torus;

use crate::config::TopologyConfig;
use crate::error::ConfigError;

/// What a router port is wired to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    Router {
        router: u32,
        port: u16,
    },
    Endpoint(u32),
    /// A port with no link (e.g. a mesh boundary).
    Unconnected,
}

/// The structural interface every topology family implements.
pub trait Topology: Send + Sync {
    fn num_routers(&self) -> u32;
    fn num_endpoints(&self) -> u32;
    /// Ports per router, endpoint ports included (the largest radix for irregular families).
    fn ports_per_router(&self) -> u16;
    fn peer(&self, router: u32, port: u16) -> Peer;
    /// The router and port an endpoint hangs on.
    fn endpoint_attachment(&self, endpoint: u32) -> (u32, u16);
    /// Index into [`Topology::link_class_names`] of the router-to-router link on (router, port).
    /// Endpoint links are NIC links: they take the NIC's parameters, not a class's.
    fn link_class(&self, router: u32, port: u16) -> u16;
    /// Names of the router-to-router link classes, as `[links.NAME]` tables in a config.
    fn link_class_names(&self) -> Vec<String>;
    /// Short human name of a port, for reports ("x+", "global12", "ep0").
    fn port_name(&self, router: u32, port: u16) -> String;
    /// Human label of a router, for reports ("(3,0)", "g4.r2").
    fn router_label(&self, router: u32) -> String;
    /// The family name as the config spells it.
    fn family(&self) -> &'static str;
    /// The group (dragonfly group, pod, subnet...) of a router, for families that have groups.
    fn group(&self, _router: u32) -> Option<u32> {
        None
    }
    /// Largest minimal distance between two endpoint routers, when known in closed form
    /// (otherwise [`crate::analysis`] measures it).
    fn known_diameter(&self) -> Option<u32> {
        None
    }
    /// Mean minimal distance over ordered pairs of distinct endpoints, when known in closed form.
    fn known_average_endpoint_distance(&self) -> Option<f64> {
        None
    }
    /// The coordinates of a router, for families that have them.
    fn coordinates(&self) -> Option<&Torus> {
        None
    }
}

/// Builds the topology a config describes, or says why it cannot exist.
pub fn build(config: &TopologyConfig) -> Result<Box<dyn Topology>, ConfigError> {
    match config {
        TopologyConfig::Torus {
            dims,
            concentration,
        } => Ok(Box::new(Torus::new(dims, *concentration, true)?)),
        TopologyConfig::Mesh {
            dims,
            concentration,
        } => Ok(Box::new(Torus::new(dims, *concentration, false)?)),
    }
}
