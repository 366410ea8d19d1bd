//! Midimew networks (Beivide et al. 1991; 002 §2.1): the degree-4 circulant C_N(b, b - 1) with
//! b = ⌈√(N/2)⌉, router i linked to i ± b and i ± (b - 1) mod N. Of all 2-D networks of N nodes
//! with degree 4 it has the least diameter, k = ⌈(√(2N - 1) - 1)/2⌉ (the smallest k with
//! 2k² + 2k + 1 ≥ N nodes), against ⌊k1/2⌋ + ⌊k2/2⌋ on a k1 x k2 torus. Neighbours and routes
//! are arithmetic: no adjacency arrays.

use super::{Peer, Shape, Topology};
use crate::error::ConfigError;

/// Router ports: 0 and 1 jump +b and -b ("x+", "x-"), 2 and 3 jump +(b - 1) and -(b - 1) ("y+",
/// "y-"), as FSIN names them; then `concentration` endpoint ports. The link back from port p
/// arrives on port p ^ 1, so each jump's links form rings as a torus dimension's do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Midimew {
    nodes: u32,
    b: u32,
    concentration: u32,
}

/// Network ports per router.
const NETWORK_PORTS: u16 = 4;

impl Midimew {
    pub fn new(nodes: u32, concentration: u32) -> Result<Self, ConfigError> {
        if nodes < 5 {
            return Err(ConfigError::new(
                "topology.nodes",
                nodes.to_string(),
                "at least 5 routers: below 5 the jumps ±b and ±(b - 1) do not reach four \
                 different neighbours",
            ));
        }
        if concentration == 0 {
            return Err(ConfigError::new(
                "topology.concentration",
                "0",
                "at least 1 endpoint per router",
            ));
        }
        if nodes.checked_mul(concentration).is_none()
            || u32::from(NETWORK_PORTS) + concentration > u32::from(u16::MAX)
        {
            return Err(ConfigError::new(
                "topology.concentration",
                format!("{concentration} with {nodes} routers"),
                "at most 2^32 - 1 endpoints and 65,531 endpoints per router",
            ));
        }
        // b = ⌈√(N/2)⌉: the smallest b with 2b² ≥ N.
        let mut b = (f64::from(nodes) / 2.0).sqrt().ceil() as u64;
        while 2 * b * b < u64::from(nodes) {
            b += 1;
        }
        while b > 1 && 2 * (b - 1) * (b - 1) >= u64::from(nodes) {
            b -= 1;
        }
        Ok(Midimew {
            nodes,
            b: b as u32,
            concentration,
        })
    }

    /// The two jumps (chord lengths): (b, b - 1).
    pub fn jumps(&self) -> (u32, u32) {
        (self.b, self.b - 1)
    }

    pub fn concentration(&self) -> u32 {
        self.concentration
    }

    /// The routing record from router `from` to router `to` (002's minimal routing on the
    /// circulant, as FSIN computes it): (x, y), x jumps of b and y of b - 1, signed, with
    /// b·x + (b - 1)·y ≡ to - from (mod N) and |x| + |y| the distance. The offset m, folded to
    /// at most N/2 (the sign turned when folded), is q·b + r (0 ≤ r < b), which is
    /// (q + r)·b - r·(b - 1), or that with b - 1 jumps of b traded for b jumps of b - 1; the
    /// shorter wins. A record minus its first x (or, with x = 0, y) step is the record of the
    /// next router, so following records takes x jumps, then y jumps, each of one sign.
    pub fn record(&self, from: u32, to: u32) -> (i64, i64) {
        let n = i64::from(self.nodes);
        let b = i64::from(self.b);
        let diff = i64::from(to) - i64::from(from);
        let (mut m, mut sign) = (diff.abs(), diff.signum());
        if m > n / 2 {
            sign = -sign;
            m = n - m;
        }
        let (q, r) = (m / b, m % b);
        let (x0, y0) = (q + r, -r);
        let (x1, y1) = (x0 - (b - 1), y0 + b);
        if r == 0 || x0 < y1 {
            (sign * x0, sign * y0)
        } else {
            (sign * x1, sign * y1)
        }
    }

    /// Minimal router-to-router hops between two routers.
    pub fn distance(&self, from: u32, to: u32) -> u32 {
        let (x, y) = self.record(from, to);
        (x.unsigned_abs() + y.unsigned_abs()) as u32
    }

    /// The diameter in closed form: the smallest k with 2k² + 2k + 1 ≥ N.
    pub fn diameter(&self) -> u32 {
        let n = u64::from(self.nodes);
        let mut k = ((2.0 * n as f64 - 1.0).sqrt() - 1.0) / 2.0;
        k = k.ceil().max(0.0);
        let mut k = k as u64;
        while 2 * k * k + 2 * k + 1 < n {
            k += 1;
        }
        while k > 0 && 2 * (k - 1) * (k - 1) + 2 * (k - 1) + 1 >= n {
            k -= 1;
        }
        k as u32
    }

    /// Exact mean minimal distance over ordered pairs of distinct endpoints: the network is
    /// vertex-transitive, so the distances from router 0 are every router's.
    pub fn average_endpoint_distance(&self) -> f64 {
        let c = u64::from(self.concentration);
        let total: u64 = (1..self.nodes)
            .map(|r| u64::from(self.distance(0, r)))
            .sum();
        let n = u64::from(self.nodes) * c;
        (total * c * c) as f64 * u64::from(self.nodes) as f64 / (n as f64 * (n - 1) as f64)
    }
}

impl Topology for Midimew {
    fn num_routers(&self) -> u32 {
        self.nodes
    }

    fn num_endpoints(&self) -> u32 {
        self.nodes * self.concentration
    }

    fn ports_per_router(&self) -> u16 {
        NETWORK_PORTS + self.concentration as u16
    }

    fn peer(&self, router: u32, port: u16) -> Peer {
        if port >= NETWORK_PORTS {
            return Peer::Endpoint(router * self.concentration + u32::from(port - NETWORK_PORTS));
        }
        let jump = if port < 2 { self.b } else { self.b - 1 };
        let next = if port % 2 == 0 {
            ((u64::from(router) + u64::from(jump)) % u64::from(self.nodes)) as u32
        } else {
            ((u64::from(router) + u64::from(self.nodes - jump)) % u64::from(self.nodes)) as u32
        };
        Peer::Router {
            router: next,
            port: port ^ 1,
        }
    }

    fn endpoint_attachment(&self, endpoint: u32) -> (u32, u16) {
        (
            endpoint / self.concentration,
            NETWORK_PORTS + (endpoint % self.concentration) as u16,
        )
    }

    fn link_class(&self, _router: u32, port: u16) -> u16 {
        port / 2
    }

    fn link_class_names(&self) -> Vec<String> {
        vec!["dim0".into(), "dim1".into()]
    }

    fn port_name(&self, _router: u32, port: u16) -> String {
        match port {
            0 => "x+".into(),
            1 => "x-".into(),
            2 => "y+".into(),
            3 => "y-".into(),
            _ => format!("ep{}", port - NETWORK_PORTS),
        }
    }

    fn router_label(&self, router: u32) -> String {
        format!("r{router}")
    }

    fn family(&self) -> &'static str {
        "midimew"
    }

    fn known_diameter(&self) -> Option<u32> {
        Some(self.diameter())
    }

    fn known_average_endpoint_distance(&self) -> Option<f64> {
        Some(self.average_endpoint_distance())
    }

    fn midimew(&self) -> Option<&Midimew> {
        Some(self)
    }

    fn shape(&self) -> Shape {
        Shape::Midimew(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Breadth-first distances from router 0 of the circulant C_N(b, b - 1) as the definition
    /// gives it (b = the smallest integer with 2b² ≥ N), with no use of the topology.
    fn circulant_bfs(nodes: u32) -> Vec<u32> {
        let b = (1..).find(|&b: &u32| 2 * b * b >= nodes).unwrap();
        let mut dist = vec![u32::MAX; nodes as usize];
        dist[0] = 0;
        let mut todo = VecDeque::from([0u32]);
        while let Some(r) = todo.pop_front() {
            for jump in [b, nodes - b, b - 1, nodes - (b - 1)] {
                let next = (r + jump) % nodes;
                if dist[next as usize] == u32::MAX {
                    dist[next as usize] = dist[r as usize] + 1;
                    todo.push_back(next);
                }
            }
        }
        dist
    }

    #[test]
    fn distances_diameter_and_mean_match_exhaustive_search() {
        for nodes in 5..=400 {
            let m = Midimew::new(nodes, 1).unwrap();
            let bfs = circulant_bfs(nodes);
            let diameter = *bfs.iter().max().unwrap();
            assert_eq!(m.diameter(), diameter, "N = {nodes}");
            // Vertex-transitive: from every router the distances are those from 0, shifted.
            for from in [0, 1, nodes / 2, nodes - 1] {
                for to in 0..nodes {
                    let offset = (to + nodes - from) % nodes;
                    assert_eq!(
                        m.distance(from, to),
                        bfs[offset as usize],
                        "N = {nodes}: {from} -> {to}"
                    );
                }
            }
            let mean = bfs.iter().map(|&d| f64::from(d)).sum::<f64>() / f64::from(nodes - 1);
            assert!((m.average_endpoint_distance() - mean).abs() < 1e-12);
        }
        // 002's 1024 nodes: b = 23, diameter 23 (32 on the 32 x 32 torus).
        let m = Midimew::new(1024, 1).unwrap();
        assert_eq!((m.jumps(), m.diameter()), ((23, 22), 23));
        assert!((m.average_endpoint_distance() - 15_433.0 / 1023.0).abs() < 1e-12);
        let m = Midimew::new(64, 1).unwrap();
        assert_eq!((m.jumps(), m.diameter()), ((6, 5), 6));
    }

    #[test]
    fn records_are_minimal_and_their_steps_are_the_next_routers_records() {
        for nodes in 5..=120 {
            let m = Midimew::new(nodes, 1).unwrap();
            let (b, a) = m.jumps();
            for from in 0..nodes {
                for to in 0..nodes {
                    let (x, y) = m.record(from, to);
                    let reached = i64::from(from) + x * i64::from(b) + y * i64::from(a);
                    assert_eq!(reached.rem_euclid(i64::from(nodes)), i64::from(to));
                    if from == to {
                        continue;
                    }
                    let port = match (x.signum(), y.signum()) {
                        (1, _) => 0,
                        (-1, _) => 1,
                        (0, 1) => 2,
                        _ => 3,
                    };
                    let Peer::Router { router: next, .. } = m.peer(from, port) else {
                        panic!("port {port} unconnected");
                    };
                    let rest = if x != 0 {
                        (x - x.signum(), y)
                    } else {
                        (0, y - y.signum())
                    };
                    assert_eq!(m.record(next, to), rest, "N = {nodes}: {from} -> {to}");
                }
            }
        }
    }

    #[test]
    fn links_are_symmetric_with_four_network_ports() {
        for (nodes, c) in [(5, 1), (18, 2), (64, 1), (101, 3)] {
            let m = Midimew::new(nodes, c).unwrap();
            assert_eq!(m.ports_per_router(), 4 + c as u16);
            for r in 0..nodes {
                let mut neighbours = Vec::new();
                for p in 0..m.ports_per_router() {
                    match m.peer(r, p) {
                        Peer::Router { router, port } => {
                            assert_eq!(m.peer(router, port), Peer::Router { router: r, port: p });
                            neighbours.push(router);
                        }
                        Peer::Endpoint(e) => assert_eq!(m.endpoint_attachment(e), (r, p)),
                        Peer::Unconnected => panic!("midimews have no open ports"),
                    }
                }
                neighbours.sort_unstable();
                neighbours.dedup();
                assert_eq!(neighbours.len(), 4, "N = {nodes}, router {r}");
            }
        }
    }

    #[test]
    fn too_few_nodes_and_no_endpoints_are_refused() {
        let e = Midimew::new(4, 1).err().unwrap();
        assert_eq!((e.key.as_str(), e.value.as_str()), ("topology.nodes", "4"));
        let e = Midimew::new(64, 0).err().unwrap();
        assert_eq!(e.key, "topology.concentration");
    }
}
