//! Express mesh with gap g (Jain et al.; 004 §2): a mesh whose routers also link to routers at
//! distances 1 + g, 1 + 2g, ... along each dimension (the rule CODES uses). g = 1 links every
//! pair of a dimension: HyperX; equal sizes give the flattened butterfly.

use super::edges::{EdgeList, Link};
use super::port_graph::{Layout, PortGraph};
use crate::error::ConfigError;

/// Whether positions at distance `d` (> 0) of one dimension are linked.
fn linked(d: u32, gap: u32) -> bool {
    (d - 1) % gap == 0
}

/// Hop distances between positions of one dimension of size `k`, by breadth-first search over
/// the line's links (k is small: this runs once per dimension).
fn line_distances(k: u32, gap: u32) -> Vec<Vec<u32>> {
    let k = k as usize;
    let mut all = Vec::with_capacity(k);
    for src in 0..k {
        let mut dist = vec![u32::MAX; k];
        dist[src] = 0;
        let mut frontier = vec![src];
        while let Some(x) = frontier.first().copied() {
            frontier.remove(0);
            for y in 0..k {
                if y != x && dist[y] == u32::MAX && linked(x.abs_diff(y) as u32, gap) {
                    dist[y] = dist[x] + 1;
                    frontier.push(y);
                }
            }
        }
        all.push(dist);
    }
    all
}

/// The express mesh `dims` with `gap`, `concentration` endpoints per router.
pub fn express_mesh(dims: &[u32], gap: u32, concentration: u32) -> Result<PortGraph, ConfigError> {
    if dims.is_empty() || dims.iter().any(|&k| k < 2) {
        return Err(ConfigError::new(
            "topology.dims",
            format!("{dims:?}"),
            "at least one dimension, every size >= 2, e.g. [12, 10, 10]",
        ));
    }
    let largest = dims.iter().copied().max().unwrap_or(2);
    if gap == 0 || gap > (largest - 1).max(1) {
        return Err(ConfigError::new(
            "topology.gap",
            gap.to_string(),
            format!(
                "between 1 (HyperX) and {} (a plain mesh)",
                (largest - 1).max(1)
            ),
        ));
    }
    if concentration == 0 {
        return Err(ConfigError::new(
            "topology.concentration",
            "0",
            "at least 1 endpoint per router",
        ));
    }
    let routers = dims
        .iter()
        .try_fold(1u32, |acc, &k| acc.checked_mul(k))
        .filter(|r| r.checked_mul(concentration).is_some())
        .ok_or_else(|| {
            ConfigError::new(
                "topology.dims",
                format!("{dims:?}"),
                "at most 2^32 - 1 routers and endpoints",
            )
        })?;
    let names: Vec<String> = (0..dims.len()).map(|d| format!("dim{d}")).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut edges = EdgeList::new(routers, &name_refs);
    let mut stride = 1u32;
    let mut diameter = 0;
    // Mean distance over independent uniform router pairs (same router included) is the
    // sum of the per-dimension means.
    let mut mean_all = 0.0;
    let mut port_base = 0u32;
    for (d, &k) in dims.iter().enumerate() {
        for r in 0..routers {
            let c = (r / stride) % k;
            for c2 in c + 1..k {
                if linked(c2 - c, gap) {
                    edges.links.push(Link {
                        a: r,
                        b: r + (c2 - c) * stride,
                        class: d as u8,
                    });
                    // Ports of a dimension in coordinate order, dimensions in order.
                    edges.port_keys.push([port_base + c2, port_base + c]);
                }
            }
        }
        let lines = line_distances(k, gap);
        diameter += lines.iter().flatten().copied().max().unwrap_or(0);
        let total: u64 = lines.iter().flatten().map(|&x| u64::from(x)).sum();
        mean_all += total as f64 / f64::from(k * k);
        stride *= k;
        port_base += k;
    }
    let n = f64::from(routers) * f64::from(concentration);
    let average_endpoint_distance = if n < 2.0 {
        0.0
    } else {
        mean_all * n / (n - 1.0)
    };
    let dims_label = dims.to_vec();
    let mut layout = Layout::new("express_mesh", move |r| {
        let mut rest = r;
        let coords: Vec<String> = dims_label
            .iter()
            .map(|&k| {
                let c = rest % k;
                rest /= k;
                c.to_string()
            })
            .collect();
        format!("({})", coords.join(","))
    });
    layout.diameter = Some(diameter);
    layout.average_endpoint_distance = Some(average_endpoint_distance);
    PortGraph::new(edges, vec![concentration; routers as usize], layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Peer, Topology};

    fn links(t: &PortGraph) -> u64 {
        (0..t.num_routers())
            .map(|r| {
                (0..t.ports_per_router())
                    .filter(|&p| matches!(t.peer(r, p), Peer::Router { .. }))
                    .count() as u64
            })
            .sum::<u64>()
            / 2
    }

    #[test]
    fn hyperx_and_gap_two_counts() {
        // 004 Iso-N: 12 x 10 x 10, gap 1, 10 nodes/router: 12,000 nodes, 1,200 routers,
        // 17,400 links, diameter 3.
        let m = express_mesh(&[12, 10, 10], 1, 10).unwrap();
        assert_eq!(m.num_endpoints(), 12_000);
        assert_eq!(links(&m), 17_400);
        assert_eq!(m.known_diameter().unwrap(), 3);
        assert_eq!(m.ports_per_router(), 10 + 11 + 9 + 9);
        // Gap 2 links distances 1, 3, 5, ...: 36 pairs per 12-line, 25 per 10-line.
        let m2 = express_mesh(&[12, 10, 10], 2, 10).unwrap();
        assert_eq!(links(&m2), 36 * 100 + 25 * 120 * 2);
        assert_eq!(m2.known_diameter().unwrap(), 6);
    }

    #[test]
    fn largest_gap_is_a_mesh() {
        let m = express_mesh(&[5, 4], 4, 1).unwrap();
        // Gap 4 links distances 1 and 5, and no line here is 6 long: only mesh links remain.
        assert_eq!(links(&m), 4 * 4 + 3 * 5);
        assert_eq!(m.known_diameter().unwrap(), 4 + 3);
        assert!(express_mesh(&[5, 4], 5, 1).is_err());
    }
}
