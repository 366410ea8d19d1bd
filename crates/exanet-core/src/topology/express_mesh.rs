//! Express mesh with gap g (Jain et al.; 004 §2): a mesh whose routers also link to routers at
//! distances 1 + g, 1 + 2g, ... along each dimension (the rule CODES uses). g = 1 links every
//! pair of a dimension: HyperX; equal sizes give the flattened butterfly.

use super::edges::{EdgeList, Link};
use super::graphs::MAX_LINKS;
use super::port_graph::{Layout, PortGraph};
use super::{Grid, Shape};
use crate::error::ConfigError;

/// Whether positions at distance `d` (> 0) of one dimension are linked.
fn linked(d: u32, gap: u32) -> bool {
    (d - 1) % gap == 0
}

/// Linked position pairs on one line of `k` routers: distances 1 + j * gap for j = 0..=J.
fn line_pairs(k: u32, gap: u32) -> u64 {
    let (k, gap) = (u64::from(k), u64::from(gap));
    let top = (k - 2) / gap;
    (top + 1) * (k - 1) - gap * top * (top + 1) / 2
}

/// Steps of the breadth-first searches behind `line_distance_stats` (none when every pair is linked).
fn line_search_steps(k: u32, gap: u32) -> u64 {
    if gap == 1 {
        0
    } else {
        u64::from(k) * 2 * line_pairs(k, gap)
    }
}

/// Bound on `line_search_steps` summed over dimensions: about a second of set-up.
const MAX_LINE_SEARCH_STEPS: u64 = 1 << 28;

/// Hop distances from position `src` of a line of `k` routers: a breadth-first search over the
/// line's links (a line with gap 1 is complete: every other position is one hop away).
pub(crate) fn line_distances_from(k: u32, gap: u32, src: usize) -> Vec<u32> {
    let k = k as usize;
    let mut dist = vec![u32::MAX; k];
    dist[src] = 0;
    let offsets: Vec<usize> = (1..k).step_by(gap as usize).collect();
    let mut frontier = std::collections::VecDeque::from([src]);
    while let Some(x) = frontier.pop_front() {
        let ahead = offsets
            .iter()
            .map_while(|&o| Some(x + o).filter(|&y| y < k));
        let behind = offsets.iter().map_while(|&o| x.checked_sub(o));
        for y in ahead.chain(behind) {
            if dist[y] == u32::MAX {
                dist[y] = dist[x] + 1;
                frontier.push_back(y);
            }
        }
    }
    dist
}

/// The largest and the summed hop distance over ordered position pairs of one line, in memory
/// linear in `k`.
fn line_distance_stats(k: u32, gap: u32) -> (u32, u64) {
    if gap == 1 {
        return (1, u64::from(k) * u64::from(k - 1));
    }
    (0..k as usize).fold((0, 0), |(largest, total), src| {
        let dist = line_distances_from(k, gap, src);
        let sum: u64 = dist.iter().map(|&x| u64::from(x)).sum();
        (
            largest.max(dist.into_iter().max().unwrap_or(0)),
            total + sum,
        )
    })
}

/// Refuses sizes whose links, ports or distance tables would not fit, before building any.
fn check_size(dims: &[u32], gap: u32, concentration: u32, routers: u32) -> Result<(), ConfigError> {
    let refuse = |valid: String| {
        Err(ConfigError::new(
            "topology.dims",
            format!("{dims:?} with gap {gap}"),
            valid,
        ))
    };
    let links: u64 = dims
        .iter()
        .map(|&k| u64::from(routers / k) * line_pairs(k, gap))
        .sum();
    if links > MAX_LINKS {
        return refuse(format!(
            "at most {MAX_LINKS} links in all; these dimensions need {links}"
        ));
    }
    let ports: u64 = dims.iter().map(|&k| u64::from(k)).sum::<u64>() + u64::from(concentration);
    if ports > u64::from(u16::MAX) {
        return refuse(format!(
            "dimension sizes plus concentration of at most {} ports per router; these need {ports}",
            u16::MAX
        ));
    }
    let steps: u64 = dims.iter().map(|&k| line_search_steps(k, gap)).sum();
    if steps > MAX_LINE_SEARCH_STEPS {
        let largest = (2..=u16::MAX as u32)
            .take_while(|&k| line_search_steps(k, gap) <= MAX_LINE_SEARCH_STEPS)
            .last()
            .unwrap_or(2);
        return refuse(format!(
            "dimensions of at most {largest} routers with gap {gap} (gap 1, HyperX, has no \
             such bound)"
        ));
    }
    Ok(())
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
    check_size(dims, gap, concentration, routers)?;
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
        let (largest, total) = line_distance_stats(k, gap);
        diameter += largest;
        mean_all += total as f64 / (f64::from(k) * f64::from(k));
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
    // A cut across the largest dimension, when even: the links of each of its lines that join
    // the two halves.
    layout.bisection_links = dims.iter().copied().max().filter(|k| k % 2 == 0).map(|k| {
        let crossing = (0..k / 2)
            .flat_map(|i| (k / 2..k).map(move |j| j - i))
            .filter(|&d| linked(d, gap))
            .count() as u64;
        u64::from(routers / k) * crossing
    });
    layout.shape = Shape::Grid(Grid {
        dims: dims.to_vec(),
        gap,
        wrap: false,
    });
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

    #[test]
    fn line_pairs_counts_the_linked_distances() {
        for (k, gap) in [(12, 1), (12, 2), (10, 2), (7, 3), (5, 4), (2, 1), (3, 2)] {
            let counted = (0..k)
                .flat_map(|a| (a + 1..k).map(move |b| b - a))
                .filter(|&d| linked(d, gap))
                .count() as u64;
            assert_eq!(line_pairs(k, gap), counted, "k {k} gap {gap}");
        }
    }

    #[test]
    fn sizes_beyond_the_link_port_and_search_bounds_are_refused_by_key() {
        // One 65,535-wide HyperX line would need 2^31 links and 65,536 ports per router.
        let e = express_mesh(&[65_535], 1, 1).err().unwrap();
        assert_eq!(e.key, "topology.dims");
        assert!(e.to_string().contains("links"), "{e}");
        // A 30,000-router plain line fits in links and ports, but not in the distance search.
        let e = express_mesh(&[30_000], 29_999, 1).err().unwrap();
        assert_eq!(e.key, "topology.dims");
        assert!(e.to_string().contains("at most"), "{e}");
        let e = express_mesh(&[40_000, 30_000], 29_999, 1).err().unwrap();
        assert_eq!(e.key, "topology.dims");
    }

    #[test]
    fn distances_over_a_line_match_the_gap_rule() {
        // Gap 3 on a line of 7 links distances 1 and 4: 0 -> 3 is 1 + 1 + 1 or 4 - 1.
        assert_eq!(line_distances_from(7, 3, 0), [0, 1, 2, 2, 1, 2, 3]);
        assert_eq!(line_distances_from(7, 3, 3), [2, 2, 1, 0, 1, 2, 2]);
        // A plain line sums |a - b| over ordered pairs: k (k^2 - 1) / 3.
        assert_eq!(line_distance_stats(5, 4), (4, 5 * 24 / 3));
        assert_eq!(line_distance_stats(6, 1), (1, 30));
        assert_eq!(
            line_distance_stats(6, 2).1,
            (0..6)
                .map(|s| line_distances_from(6, 2, s)
                    .iter()
                    .map(|&x| u64::from(x))
                    .sum::<u64>())
                .sum::<u64>()
        );
    }
}
