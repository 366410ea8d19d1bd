//! The router graph every analysis works on: compressed adjacency, built once from a topology so
//! that analyses need not call [`Topology::peer`] (a virtual call per port) in their inner loops.

use crate::topology::{Peer, Topology};

/// Router-to-router adjacency in compressed sparse rows, plus the endpoints on every router.
///
/// A neighbour appears once per link (per port pair), so parallel links appear several times:
/// bisection counts links, and path counting counts paths over links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterGraph {
    /// `neighbors[offsets[r]..offsets[r + 1]]` are the neighbours of router `r`; `routers + 1`
    /// entries.
    pub offsets: Vec<u64>,
    pub neighbors: Vec<u32>,
    /// Endpoints attached to every router.
    pub endpoints: Vec<u32>,
}

impl RouterGraph {
    /// Walks every port of every router once.
    pub fn from_topology(t: &dyn Topology) -> RouterGraph {
        let routers = t.num_routers() as usize;
        let mut offsets = Vec::with_capacity(routers + 1);
        let mut neighbors = Vec::new();
        let mut endpoints = vec![0u32; routers];
        offsets.push(0);
        for (r, eps) in endpoints.iter_mut().enumerate() {
            for p in 0..t.ports_per_router() {
                match t.peer(r as u32, p) {
                    Peer::Router { router, .. } => neighbors.push(router),
                    Peer::Endpoint(_) => *eps += 1,
                    Peer::Unconnected => {}
                }
            }
            offsets.push(neighbors.len() as u64);
        }
        RouterGraph {
            offsets,
            neighbors,
            endpoints,
        }
    }

    /// Routers `0..routers` joined by one bidirectional link per entry of `edges` (repeat an
    /// entry for parallel links); `endpoints` has one count per router.
    ///
    /// # Panics
    /// If an edge names a router `>= routers` or `endpoints.len() != routers`.
    pub fn from_edges(routers: u32, edges: &[(u32, u32)], endpoints: Vec<u32>) -> RouterGraph {
        assert_eq!(
            endpoints.len(),
            routers as usize,
            "one endpoint count per router"
        );
        let n = routers as usize;
        let mut degree = vec![0u64; n];
        for &(a, b) in edges {
            assert!(a < routers && b < routers, "edge ({a}, {b}) out of range");
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        for d in &degree {
            offsets.push(offsets.last().unwrap() + d);
        }
        // Fill each row in edge order: `next[r]` is where router r's next neighbour goes.
        let mut next: Vec<u64> = offsets[..n].to_vec();
        let mut neighbors = vec![0u32; 2 * edges.len()];
        for &(a, b) in edges {
            neighbors[next[a as usize] as usize] = b;
            next[a as usize] += 1;
            neighbors[next[b as usize] as usize] = a;
            next[b as usize] += 1;
        }
        RouterGraph {
            offsets,
            neighbors,
            endpoints,
        }
    }

    pub fn num_routers(&self) -> u32 {
        self.endpoints.len() as u32
    }

    pub fn num_endpoints(&self) -> u64 {
        self.endpoints.iter().map(|&e| u64::from(e)).sum()
    }

    /// Neighbours of `r`, once per link.
    #[inline]
    pub fn neighbors(&self, r: u32) -> &[u32] {
        let r = r as usize;
        &self.neighbors[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// Bidirectional router-to-router links.
    pub fn num_links(&self) -> u64 {
        self.neighbors.len() as u64 / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Torus;

    #[test]
    fn torus_graph_has_its_links_and_endpoints() {
        let t = Torus::new(&[4, 3], 2, false).unwrap();
        let g = RouterGraph::from_topology(&t);
        assert_eq!(g.num_routers(), 12);
        assert_eq!(g.num_endpoints(), 24);
        assert!(g.endpoints.iter().all(|&e| e == 2));
        // Mesh 4x3: 3*3 x-links + 4*2 y-links.
        assert_eq!(g.num_links(), 17);
        // Router (1,1) = 5: x+ 6, x- 4, y+ 9, y- 1 in port order.
        assert_eq!(g.neighbors(5), &[6, 4, 9, 1]);
        assert_eq!(g.neighbors(0), &[1, 4]);
    }

    #[test]
    fn edges_keep_parallel_links() {
        let g = RouterGraph::from_edges(3, &[(0, 1), (1, 2), (0, 1)], vec![1, 0, 2]);
        assert_eq!(g.num_links(), 3);
        assert_eq!(g.neighbors(0), &[1, 1]);
        assert_eq!(g.neighbors(1), &[0, 2, 0]);
        assert_eq!(g.neighbors(2), &[1]);
        assert_eq!(g.num_endpoints(), 3);
        // A 2-ary torus dimension is two parallel links to the same neighbour.
        let t = RouterGraph::from_topology(&Torus::new(&[2, 3], 1, true).unwrap());
        assert_eq!(t.neighbors(0)[..2], [1, 1]);
        assert_eq!(t.num_links(), 6 + 6);
    }
}
