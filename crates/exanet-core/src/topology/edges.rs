//! The input every graph-built family produces: an undirected multigraph of routers whose links
//! carry a class, plus the group each router belongs to.

/// One bidirectional router-to-router link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    /// Index into [`EdgeList::class_names`].
    pub class: u8,
}

/// Routers `0..routers` and the links between them. Parallel links are allowed (each is its own
/// pair of ports); self-loops are not.
#[derive(Debug, Clone, Default)]
pub struct EdgeList {
    pub routers: u32,
    pub links: Vec<Link>,
    pub class_names: Vec<String>,
    /// Group (dragonfly group, Fishnet subnet, Slim Fly rack, fat-tree pod...) of every router;
    /// empty when the family has no groups.
    pub group: Vec<u32>,
    /// Optional port order: `port_keys[l] = [key at a, key at b]` for link l. A router's network
    /// ports are numbered by increasing key (ties in link order); empty means link order.
    pub port_keys: Vec<[u32; 2]>,
}

impl EdgeList {
    pub fn new(routers: u32, class_names: &[&str]) -> Self {
        EdgeList {
            routers,
            links: Vec::new(),
            class_names: class_names.iter().map(|s| s.to_string()).collect(),
            group: Vec::new(),
            port_keys: Vec::new(),
        }
    }

    pub fn push(&mut self, a: u32, b: u32, class: u8) {
        debug_assert!(a != b && a < self.routers && b < self.routers);
        self.links.push(Link { a, b, class });
    }

    /// Network degree (router-to-router ports) of every router.
    pub fn degrees(&self) -> Vec<u32> {
        let mut degree = vec![0u32; self.routers as usize];
        for l in &self.links {
            degree[l.a as usize] += 1;
            degree[l.b as usize] += 1;
        }
        degree
    }

    /// Neighbour lists (with multiplicity), in link order.
    pub fn adjacency(&self) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); self.routers as usize];
        for l in &self.links {
            adj[l.a as usize].push(l.b);
            adj[l.b as usize].push(l.a);
        }
        adj
    }
}
