//! Topologies: who is on the other side of each router port, and the structural facts routing,
//! workloads and analysis need.

pub mod edges;
pub mod field;
pub mod graphs;
mod torus;

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
    /// Short human name of a port, for reports ("x+", "dim4-", "ep0").
    fn port_name(&self, port: u16) -> String;
    /// Human label of a router, for reports ("(3,0)").
    fn router_label(&self, router: u32) -> String;
    /// Minimal number of router-to-router hops between two routers.
    fn distance(&self, a: u32, b: u32) -> u32;
    /// Largest minimal distance between two routers.
    fn diameter(&self) -> u32;
    /// Exact mean minimal distance over ordered pairs of distinct endpoints.
    fn average_endpoint_distance(&self) -> f64;
    /// The coordinates of a router, for families that have them.
    fn coordinates(&self) -> Option<&Torus>;
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
