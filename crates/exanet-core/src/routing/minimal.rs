//! Minimal routing on any topology, table-driven: a packet may take any port whose router is one
//! hop closer to its destination, and the router picks the one with the most credits. VC i
//! carries a packet's i-th hop, so VC indices strictly increase along every path and the
//! channel-dependency graph is acyclic whatever the topology: deadlock-free with as many VCs as
//! the diameter. (The routing issue adds schemes that need fewer VCs.)

use super::{Candidate, Candidates, RouteQuery, RoutingFunction};
use crate::error::ConfigError;
use crate::topology::{Peer, Topology};

/// Largest topology whose all-pairs distance table (one byte per router pair) is built.
pub const MAX_TABLE_ROUTERS: u32 = 8192;

pub struct MinimalTable {
    routers: usize,
    /// `distance[a * routers + b]`, router hops.
    distance: Vec<u8>,
    /// Network ports of each router: (port, neighbour).
    neighbours: Vec<Vec<(u16, u32)>>,
    /// Every VC: ejection may use any.
    all_vcs: u32,
}

impl MinimalTable {
    pub fn new(topology: &dyn Topology, vcs: u32) -> Result<Self, ConfigError> {
        let n = topology.num_routers();
        if n > MAX_TABLE_ROUTERS {
            return Err(ConfigError::new(
                "routing.kind",
                "\"minimal\"",
                format!(
                    "a topology of at most {MAX_TABLE_ROUTERS} routers for table-driven minimal \
                     routing (this one has {n}); use a family with arithmetic routing (torus: \
                     \"dor\")"
                ),
            ));
        }
        let neighbours: Vec<Vec<(u16, u32)>> = (0..n)
            .map(|r| {
                (0..topology.ports_per_router())
                    .filter_map(|p| match topology.peer(r, p) {
                        Peer::Router { router, .. } => Some((p, router)),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let routers = n as usize;
        let mut distance = vec![u8::MAX; routers * routers];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let rows_per = routers.div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for (chunk, rows) in distance.chunks_mut(rows_per * routers.max(1)).enumerate() {
                let neighbours = &neighbours;
                s.spawn(move || {
                    for (i, row) in rows.chunks_mut(routers).enumerate() {
                        bfs_row(neighbours, chunk * rows_per + i, row);
                    }
                });
            }
        });
        let endpoint_routers: Vec<u32> = (0..n)
            .filter(|&r| {
                (0..topology.ports_per_router())
                    .any(|p| matches!(topology.peer(r, p), Peer::Endpoint(_)))
            })
            .collect();
        let mut diameter = 0u8;
        for &a in &endpoint_routers {
            for &b in &endpoint_routers {
                let d = distance[a as usize * routers + b as usize];
                if d == u8::MAX {
                    return Err(ConfigError::new(
                        "topology",
                        format!("routers {a} and {b}"),
                        "a connected network: these endpoint routers have no path between them",
                    ));
                }
                diameter = diameter.max(d);
            }
        }
        if vcs < u32::from(diameter) {
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!(
                    "at least {diameter} VCs for minimal routing on this {}: VC i carries hop \
                     i, which keeps the channel-dependency graph acyclic, and the longest \
                     minimal path has {diameter} hops",
                    topology.family()
                ),
            ));
        }
        Ok(MinimalTable {
            routers,
            distance,
            neighbours,
            all_vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
        })
    }
}

/// Breadth-first distances from `src` into `row` (u8::MAX where unreachable).
fn bfs_row(neighbours: &[Vec<(u16, u32)>], src: usize, row: &mut [u8]) {
    row[src] = 0;
    let mut frontier = vec![src as u32];
    let mut next = Vec::new();
    let mut d = 0u8;
    while !frontier.is_empty() && d < u8::MAX - 1 {
        d += 1;
        for &r in &frontier {
            for &(_, nb) in &neighbours[r as usize] {
                if row[nb as usize] == u8::MAX {
                    row[nb as usize] = d;
                    next.push(nb);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
}

impl RoutingFunction for MinimalTable {
    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        let vc = if q.injected {
            0
        } else {
            u32::from(q.in_vc) + 1
        };
        if q.router == q.dst_router {
            out.push(Candidate::keep(q.dst_port, self.all_vcs, q.state));
            return;
        }
        // Distances are symmetric: read the destination's row.
        let row = &self.distance[q.dst_router as usize * self.routers..][..self.routers];
        let here = row[q.router as usize];
        let closer: &[(u16, u32)] = &self.neighbours[q.router as usize];
        // More minimal ports than a candidate list holds (a fat-tree leaf going up): start at a
        // destination-dependent offset so that different destinations use different ports.
        let count = closer.len();
        let start = (q.dst_router as usize).wrapping_mul(0x9e37_79b9) % count.max(1);
        for i in 0..count {
            let (port, nb) = closer[(start + i) % count];
            if row[nb as usize] + 1 == here {
                out.push(Candidate::keep(port, 1 << vc, q.state));
                if out.as_slice().len() == Candidates::CAPACITY {
                    return;
                }
            }
        }
    }
}
