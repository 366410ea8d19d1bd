//! A multi-port network as its workloads see it: one endpoint per node, at the node's first
//! port. Traffic is addressed to nodes; the NICs choose the port each message or packet takes.

use std::sync::Arc;

use super::{Midimew, Peer, Shape, Topology, Torus};

pub struct Nodes {
    ports: Arc<dyn Topology>,
    nodes: u32,
}

impl Nodes {
    /// The view of `ports` (whose endpoints are NIC ports) with one endpoint per node.
    pub fn of(ports: Arc<dyn Topology>) -> Arc<dyn Topology> {
        let per_node = ports.ports_per_node();
        if per_node == 1 {
            return ports;
        }
        let nodes = ports.num_endpoints() / per_node;
        Arc::new(Nodes { ports, nodes })
    }
}

impl Topology for Nodes {
    fn num_routers(&self) -> u32 {
        self.ports.num_routers()
    }
    fn num_endpoints(&self) -> u32 {
        self.nodes
    }
    fn ports_per_router(&self) -> u16 {
        self.ports.ports_per_router()
    }
    /// Ports other than the nodes' first show as unconnected.
    fn peer(&self, router: u32, port: u16) -> Peer {
        match self.ports.peer(router, port) {
            Peer::Endpoint(e) if e >= self.nodes => Peer::Unconnected,
            peer => peer,
        }
    }
    fn endpoint_attachment(&self, endpoint: u32) -> (u32, u16) {
        self.ports.endpoint_attachment(endpoint)
    }
    fn link_class(&self, router: u32, port: u16) -> u16 {
        self.ports.link_class(router, port)
    }
    fn link_class_names(&self) -> Vec<String> {
        self.ports.link_class_names()
    }
    fn port_name(&self, router: u32, port: u16) -> String {
        self.ports.port_name(router, port)
    }
    fn router_label(&self, router: u32) -> String {
        self.ports.router_label(router)
    }
    fn family(&self) -> &'static str {
        self.ports.family()
    }
    fn plane(&self, router: u32) -> Option<u32> {
        self.ports.plane(router)
    }
    fn group(&self, router: u32) -> Option<u32> {
        self.ports.group(router)
    }
    fn known_diameter(&self) -> Option<u32> {
        self.ports.known_diameter()
    }
    fn known_average_endpoint_distance(&self) -> Option<f64> {
        self.ports.known_average_endpoint_distance()
    }
    fn known_bisection_links(&self) -> Option<u64> {
        self.ports.known_bisection_links()
    }
    fn coordinates(&self) -> Option<&Torus> {
        self.ports.coordinates()
    }
    fn midimew(&self) -> Option<&Midimew> {
        self.ports.midimew()
    }
    fn shape(&self) -> Shape {
        self.ports.shape()
    }
    fn state_bytes(&self) -> u64 {
        0
    }
}
