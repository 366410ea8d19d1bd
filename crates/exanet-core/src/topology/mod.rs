//! Topologies: who is on the other side of each router port, and the structural facts routing,
//! workloads and analysis need.

mod dragonfly;
pub mod edges;
mod express_mesh;
mod fat_tree;
pub mod field;
pub mod graphs;
mod midimew;
mod nodes;
mod port_graph;
mod torus;

pub use dragonfly::{dragonfly, Arrangement, DragonflyParams, GroupShape};
pub use express_mesh::express_mesh;
pub(crate) use express_mesh::line_distances_from;
pub use fat_tree::{fat_tree, FatTreeParams, PlaneWiring};
pub use midimew::Midimew;
pub use nodes::Nodes;
pub use port_graph::{Layout, PortGraph};
pub use torus::Torus;

mod shape;
pub use shape::{Grid, Shape};

use crate::config::{BaseGraph, CustomGraph, TopologyConfig};
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
    /// NIC ports of each node (planes or rails of a multi-plane network; 1 otherwise). The
    /// `num_endpoints` endpoints are the ports: port p of node n is endpoint p * nodes + n, so
    /// the first `nodes` endpoints are the nodes' first ports.
    fn ports_per_node(&self) -> u32 {
        1
    }
    /// An endpoint's place among its plane's endpoints in router order (its number, unless
    /// the family numbers ports by node): what D-mod-k takes digits of, so that successive
    /// digits follow the tree.
    fn endpoint_position(&self, endpoint: u32) -> u32 {
        endpoint
    }
    /// The plane of a router, for networks made of disjoint planes (a packet stays in the plane
    /// of the port that sent it).
    fn plane(&self, _router: u32) -> Option<u32> {
        None
    }
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
    /// Links crossing a balanced cut into two halves of the endpoints, when known in closed
    /// form (otherwise [`crate::analysis`] looks for the narrowest).
    fn known_bisection_links(&self) -> Option<u64> {
        None
    }
    /// The coordinates of a router, for families that have them.
    fn coordinates(&self) -> Option<&Torus> {
        None
    }
    /// The midimew, for routing on its records (`routing.escape = "bubble"`).
    fn midimew(&self) -> Option<&Midimew> {
        None
    }
    /// The structure routing computes distances from instead of an all-pairs table.
    fn shape(&self) -> Shape {
        Shape::Graph
    }
    /// Bytes the topology holds (its port tables; arithmetic families hold almost none).
    fn state_bytes(&self) -> u64 {
        0
    }
}

/// Builds the topology a config describes, or says why it cannot exist.
pub fn build(config: &TopologyConfig) -> Result<Box<dyn Topology>, ConfigError> {
    let uniform = |edges: &edges::EdgeList, p: u32| vec![p; edges.routers as usize];
    let graph = |family: &'static str, edges: edges::EdgeList, p: u32, diameter: Option<u32>| {
        let endpoints = uniform(&edges, p);
        let mut layout = Layout::new(family, |r| format!("r{r}"));
        layout.diameter = diameter;
        Ok(Box::new(PortGraph::new(edges, endpoints, layout)?) as Box<dyn Topology>)
    };
    // Fishnets: subnets joined by global links, routed hierarchically.
    let subnets = |family: &'static str, edges: edges::EdgeList, p: u32, diameter: u32| {
        let endpoints = uniform(&edges, p);
        let mut layout = Layout::new(family, |r| format!("r{r}"));
        layout.diameter = Some(diameter);
        layout.shape = Shape::Groups;
        Ok(Box::new(PortGraph::new(edges, endpoints, layout)?) as Box<dyn Topology>)
    };
    match config {
        TopologyConfig::Torus {
            dims,
            concentration,
        } => Ok(Box::new(Torus::new(dims, *concentration, true)?)),
        TopologyConfig::Mesh {
            dims,
            concentration,
        } => Ok(Box::new(Torus::new(dims, *concentration, false)?)),
        TopologyConfig::Midimew {
            nodes,
            concentration,
        } => Ok(Box::new(Midimew::new(*nodes, *concentration)?)),
        TopologyConfig::FatTree {
            levels,
            radix,
            pods,
            taper,
            planes,
            plane_wiring,
        } => Ok(Box::new(fat_tree(FatTreeParams {
            levels: *levels,
            radix: *radix,
            pods: *pods,
            taper: *taper,
            planes: *planes,
            wiring: *plane_wiring,
        })?)),
        TopologyConfig::Dragonfly {
            p,
            a,
            h,
            g,
            arrangement,
        } => dragonfly_box(GroupShape::AllToAll { a: *a }, *p, *h, *g, *arrangement),
        TopologyConfig::DragonflyRc {
            p,
            rows,
            cols,
            local_links,
            h,
            g,
            arrangement,
        } => dragonfly_box(
            GroupShape::RowColumn {
                rows: *rows,
                cols: *cols,
                local_links: *local_links,
            },
            *p,
            *h,
            *g,
            *arrangement,
        ),
        TopologyConfig::DragonflyPlus {
            p,
            leaves,
            spines,
            h,
            g,
            arrangement,
        } => dragonfly_box(
            GroupShape::FatTree {
                leaves: *leaves,
                spines: *spines,
            },
            *p,
            *h,
            *g,
            *arrangement,
        ),
        TopologyConfig::SlimFly { q, p } => graph("slim_fly", graphs::slim_fly(*q)?, *p, Some(2)),
        TopologyConfig::Polarfly { q, p } => graph("polarfly", graphs::polarfly(*q)?, *p, Some(2)),
        TopologyConfig::Jellyfish {
            routers,
            degree,
            p,
            seed,
        } => graph(
            "jellyfish",
            graphs::jellyfish(*routers, *degree, *seed)?,
            *p,
            None,
        ),
        TopologyConfig::Fishnet { base, p } => subnets(
            "fishnet",
            graphs::fishnet(&base_graph(base)?, false)?,
            *p,
            4,
        ),
        TopologyConfig::FishnetLite { base, p } => subnets(
            "fishnet_lite",
            graphs::fishnet(&base_graph(base)?, true)?,
            *p,
            5,
        ),
        TopologyConfig::ExpressMesh {
            dims,
            gap,
            concentration,
        } => Ok(Box::new(express_mesh(dims, *gap, *concentration)?)),
        TopologyConfig::Custom {
            graph: g,
            endpoints,
        } => {
            let edges = custom_graph(g, "topology.edges")?;
            if endpoints.len() != edges.routers as usize {
                return Err(ConfigError::new(
                    "topology.endpoints",
                    format!("{} entries", endpoints.len()),
                    format!("one endpoint count per router ({} routers)", edges.routers),
                ));
            }
            let layout = Layout::new("custom", |r| format!("r{r}"));
            Ok(Box::new(PortGraph::new(edges, endpoints.clone(), layout)?))
        }
    }
}

fn dragonfly_box(
    shape: GroupShape,
    p: u32,
    h: u32,
    g: u32,
    arrangement: Arrangement,
) -> Result<Box<dyn Topology>, ConfigError> {
    Ok(Box::new(dragonfly(DragonflyParams {
        shape,
        p,
        h,
        g,
        arrangement,
    })?))
}

fn base_graph(base: &BaseGraph) -> Result<edges::EdgeList, ConfigError> {
    match base {
        BaseGraph::Petersen => Ok(graphs::petersen()),
        BaseGraph::HoffmanSingleton => Ok(graphs::hoffman_singleton()),
        BaseGraph::SlimFly { q } => graphs::slim_fly(*q),
        BaseGraph::Custom { graph } => custom_graph(graph, "topology.base.edges"),
    }
}

/// Checks a user's graph: link ends exist, no self-loops, classes named.
fn custom_graph(g: &CustomGraph, key: &str) -> Result<edges::EdgeList, ConfigError> {
    if g.routers == 0 {
        return Err(ConfigError::new(key, "0 routers", "at least one router"));
    }
    if g.links.len() as u64 > graphs::MAX_LINKS {
        return Err(ConfigError::new(
            key,
            format!("{} links", g.links.len()),
            format!("at most {} links", graphs::MAX_LINKS),
        ));
    }
    // The router graph keeps a few words per router (adjacency, endpoints, labels).
    let mut need = crate::memory::Footprint::new();
    need.add("routers", u64::from(g.routers), 96)
        .add("links", g.links.len() as u64, 48);
    need.check(key, format!("{} routers", g.routers))?;
    if g.class_names.is_empty() || g.class_names.len() > 255 {
        return Err(ConfigError::new(
            key,
            format!("{} link classes", g.class_names.len()),
            "between 1 and 255 link class names",
        ));
    }
    let mut edges = edges::EdgeList {
        routers: g.routers,
        class_names: g.class_names.clone(),
        ..Default::default()
    };
    for (i, &[a, b, class]) in g.links.iter().enumerate() {
        if a >= g.routers || b >= g.routers || a == b || class as usize >= g.class_names.len() {
            return Err(ConfigError::new(
                key,
                format!("link {i} = [{a}, {b}, class {class}]"),
                format!(
                    "two different routers below {} and a class below {}",
                    g.routers,
                    g.class_names.len()
                ),
            ));
        }
        edges.push(a, b, class as u8);
    }
    Ok(edges)
}
