//! A topology stored as compact port tables: the form every family except the torus takes.
//! A router's network ports come first (in the order its links were listed), then its endpoint
//! ports; ports above that, up to the largest radix, are unconnected. Eight bytes per network
//! port: a 100,000-endpoint dragonfly costs a few megabytes.

use super::edges::EdgeList;
use super::{Peer, Shape, Topology};
use crate::error::ConfigError;

/// What a network port leads to.
#[derive(Debug, Clone, Copy)]
struct PortEntry {
    router: u32,
    port: u16,
    class: u8,
}

/// Family-specific naming and metadata of a port graph.
pub struct Layout {
    /// The family name as the config spells it ("fat_tree", "dragonfly").
    pub family: &'static str,
    /// Human label of a router ("g3.r5", "L2.17").
    pub label: Box<dyn Fn(u32) -> String + Send + Sync>,
    /// What routing computes distances from.
    pub shape: Shape,
    /// Closed forms the family knows (otherwise analysis measures them).
    pub diameter: Option<u32>,
    pub average_endpoint_distance: Option<f64>,
    pub bisection_links: Option<u64>,
    /// NIC ports per node (see [`Topology::ports_per_node`]).
    pub ports_per_node: u32,
    /// Disjoint copies of one network, each of `routers / planes` consecutive routers.
    pub planes: u32,
    /// The public number of each endpoint port in the order the routers hold them (None:
    /// that order).
    pub endpoint_numbers: Option<Vec<u32>>,
}

impl Layout {
    /// A layout with a label function and nothing known in closed form.
    pub fn new(
        family: &'static str,
        label: impl Fn(u32) -> String + Send + Sync + 'static,
    ) -> Self {
        Layout {
            family,
            label: Box::new(label),
            shape: Shape::Graph,
            diameter: None,
            average_endpoint_distance: None,
            bisection_links: None,
            ports_per_node: 1,
            planes: 1,
            endpoint_numbers: None,
        }
    }
}

/// Routers, their links and endpoints as port tables.
pub struct PortGraph {
    routers: u32,
    endpoints: u32,
    radix: u16,
    /// `offsets[r]..offsets[r + 1]` are router r's network ports in `entries`.
    offsets: Vec<u32>,
    entries: Vec<PortEntry>,
    /// `first_endpoint[r]..first_endpoint[r + 1]` hang on router r.
    first_endpoint: Vec<u32>,
    /// Endpoints per router when every router has the same number (fast attachment lookup).
    uniform_concentration: Option<u32>,
    class_names: Vec<String>,
    group: Vec<u32>,
    /// Public endpoint numbers in router order and back (empty: the numbers are that order).
    public_endpoint: Vec<u32>,
    stored_endpoint: Vec<u32>,
    layout: Layout,
}

impl PortGraph {
    /// Assigns ports: each link takes the next free network port at both ends.
    /// `endpoints[r]` endpoints hang on router r. Fails if some router needs more ports than
    /// `u16` can number.
    pub fn new(edges: EdgeList, endpoints: Vec<u32>, layout: Layout) -> Result<Self, ConfigError> {
        let n = edges.routers as usize;
        debug_assert_eq!(endpoints.len(), n);
        let degree = edges.degrees();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        offsets.push(0);
        for &d in &degree {
            total += d;
            offsets.push(total);
        }
        let widest = (0..n)
            .map(|r| u64::from(degree[r]) + u64::from(endpoints[r]))
            .max()
            .unwrap_or(0);
        let radix = u16::try_from(widest).map_err(|_| {
            ConfigError::new(
                "topology",
                format!("a router with {widest} ports"),
                "at most 65535 ports per router",
            )
        })?;
        // Each link end takes a slot in its router's segment, ordered by port key.
        let keyed = !edges.port_keys.is_empty();
        let mut slots: Vec<(u32, u32)> = vec![(0, 0); total as usize];
        let mut next = offsets[..n].to_vec();
        for (l, link) in edges.links.iter().enumerate() {
            for (end, router) in [link.a, link.b].into_iter().enumerate() {
                let key = if keyed { edges.port_keys[l][end] } else { 0 };
                slots[next[router as usize] as usize] = (key, (l as u32) << 1 | end as u32);
                next[router as usize] += 1;
            }
        }
        let mut link_port = vec![[0u16; 2]; edges.links.len()];
        for r in 0..n {
            let segment = &mut slots[offsets[r] as usize..offsets[r + 1] as usize];
            if keyed {
                segment.sort_by_key(|&(key, end)| (key, end));
            }
            for (port, &(_, end)) in segment.iter().enumerate() {
                link_port[(end >> 1) as usize][(end & 1) as usize] = port as u16;
            }
        }
        let mut entries = vec![
            PortEntry {
                router: 0,
                port: 0,
                class: 0
            };
            total as usize
        ];
        for (link, ports) in edges.links.iter().zip(&link_port) {
            let [pa, pb] = *ports;
            entries[(offsets[link.a as usize] + u32::from(pa)) as usize] = PortEntry {
                router: link.b,
                port: pb,
                class: link.class,
            };
            entries[(offsets[link.b as usize] + u32::from(pb)) as usize] = PortEntry {
                router: link.a,
                port: pa,
                class: link.class,
            };
        }
        let mut first_endpoint = Vec::with_capacity(n + 1);
        let mut count = 0u64;
        first_endpoint.push(0);
        for &e in &endpoints {
            count += u64::from(e);
            first_endpoint.push(u32::try_from(count).map_err(|_| {
                ConfigError::new(
                    "topology",
                    format!("{count} endpoints"),
                    "at most 2^32 - 1 endpoints",
                )
            })?);
        }
        let uniform_concentration = endpoints
            .first()
            .filter(|&&c| c > 0 && endpoints.iter().all(|&e| e == c))
            .copied();
        let mut layout = layout;
        let public_endpoint = layout.endpoint_numbers.take().unwrap_or_default();
        let mut stored_endpoint = vec![0; public_endpoint.len()];
        for (stored, &public) in public_endpoint.iter().enumerate() {
            stored_endpoint[public as usize] = stored as u32;
        }
        Ok(PortGraph {
            routers: edges.routers,
            endpoints: count as u32,
            radix,
            offsets,
            entries,
            first_endpoint,
            uniform_concentration,
            class_names: edges.class_names,
            group: edges.group,
            public_endpoint,
            stored_endpoint,
            layout,
        })
    }

    fn degree(&self, router: u32) -> u16 {
        let r = router as usize;
        (self.offsets[r + 1] - self.offsets[r]) as u16
    }

    /// The family name as the config spells it.
    pub fn family(&self) -> &'static str {
        self.layout.family
    }
}

impl Topology for PortGraph {
    fn num_routers(&self) -> u32 {
        self.routers
    }

    fn num_endpoints(&self) -> u32 {
        self.endpoints
    }

    fn ports_per_router(&self) -> u16 {
        self.radix
    }

    fn peer(&self, router: u32, port: u16) -> Peer {
        let r = router as usize;
        let degree = self.degree(router);
        if port < degree {
            let e = self.entries[self.offsets[r] as usize + usize::from(port)];
            return Peer::Router {
                router: e.router,
                port: e.port,
            };
        }
        let endpoint = self.first_endpoint[r] + u32::from(port - degree);
        if endpoint < self.first_endpoint[r + 1] {
            Peer::Endpoint(match self.public_endpoint.get(endpoint as usize) {
                Some(&public) => public,
                None => endpoint,
            })
        } else {
            Peer::Unconnected
        }
    }

    fn endpoint_attachment(&self, endpoint: u32) -> (u32, u16) {
        let endpoint = match self.stored_endpoint.get(endpoint as usize) {
            Some(&stored) => stored,
            None => endpoint,
        };
        let router = match self.uniform_concentration {
            Some(c) => endpoint / c,
            None => self.first_endpoint.partition_point(|&f| f <= endpoint) as u32 - 1,
        };
        let local = endpoint - self.first_endpoint[router as usize];
        (router, self.degree(router) + local as u16)
    }

    fn link_class(&self, router: u32, port: u16) -> u16 {
        u16::from(self.entries[self.offsets[router as usize] as usize + usize::from(port)].class)
    }

    fn link_class_names(&self) -> Vec<String> {
        self.class_names.clone()
    }

    fn port_name(&self, router: u32, port: u16) -> String {
        let degree = self.degree(router);
        if port < degree {
            let class = self.link_class(router, port);
            format!("{}{port}", self.class_names[usize::from(class)])
        } else {
            format!("ep{}", port - degree)
        }
    }

    fn router_label(&self, router: u32) -> String {
        (self.layout.label)(router)
    }

    fn shape(&self) -> Shape {
        self.layout.shape.clone()
    }

    fn state_bytes(&self) -> u64 {
        let shape = match &self.layout.shape {
            Shape::Levels(level) => level.len(),
            _ => 0,
        };
        (self.offsets.len() * 4
            + self.entries.len() * std::mem::size_of::<PortEntry>()
            + self.first_endpoint.len() * 4
            + self.group.len() * 4
            + (self.public_endpoint.len() + self.stored_endpoint.len()) * 4
            + shape) as u64
    }

    fn group(&self, router: u32) -> Option<u32> {
        self.group.get(router as usize).copied()
    }

    fn family(&self) -> &'static str {
        self.layout.family
    }

    fn ports_per_node(&self) -> u32 {
        self.layout.ports_per_node
    }

    fn endpoint_position(&self, endpoint: u32) -> u32 {
        let stored = match self.stored_endpoint.get(endpoint as usize) {
            Some(&stored) => stored,
            None => endpoint,
        };
        stored % (self.endpoints / self.layout.planes)
    }

    fn plane(&self, router: u32) -> Option<u32> {
        (self.layout.planes > 1).then(|| router / (self.routers / self.layout.planes))
    }

    fn known_diameter(&self) -> Option<u32> {
        self.layout.diameter
    }

    fn known_average_endpoint_distance(&self) -> Option<f64> {
        self.layout.average_endpoint_distance
    }

    fn known_bisection_links(&self) -> Option<u64> {
        self.layout.bisection_links
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle_with_parallel_link() -> PortGraph {
        let mut e = EdgeList::new(3, &["local", "global"]);
        e.push(0, 1, 0);
        e.push(1, 2, 0);
        e.push(2, 0, 1);
        e.push(0, 1, 1);
        let layout = Layout::new("custom", |r| format!("r{r}"));
        PortGraph::new(e, vec![2, 0, 1], layout).unwrap()
    }

    #[test]
    fn ports_are_symmetric_and_endpoints_follow_network_ports() {
        let g = triangle_with_parallel_link();
        assert_eq!(g.num_endpoints(), 3);
        assert_eq!(g.ports_per_router(), 5);
        for r in 0..3 {
            for p in 0..g.ports_per_router() {
                if let Peer::Router { router, port } = g.peer(r, p) {
                    assert_eq!(g.peer(router, port), Peer::Router { router: r, port: p });
                    assert_eq!(g.link_class(r, p), g.link_class(router, port));
                }
            }
        }
        // Router 0: ports 0..3 network (1, 2, 1 again), then endpoints 0 and 1.
        assert_eq!(g.peer(0, 3), Peer::Endpoint(0));
        assert_eq!(g.peer(0, 4), Peer::Endpoint(1));
        assert_eq!(g.peer(1, 3), Peer::Unconnected);
        assert_eq!(g.peer(2, 2), Peer::Endpoint(2));
        for e in 0..3 {
            let (r, p) = g.endpoint_attachment(e);
            assert_eq!(g.peer(r, p), Peer::Endpoint(e));
        }
        assert_eq!(g.port_name(0, 2), "global2");
        assert_eq!(g.port_name(0, 4), "ep1");
    }
}
