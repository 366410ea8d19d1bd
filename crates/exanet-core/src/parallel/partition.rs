//! Partitions of a network's routers (each with its NICs) for the conservative parallel engine
//! (docs/architecture.md §4): few links cut, endpoints balanced. The smallest latency of a cut link
//! is the lookahead, the width of the synchronous windows.
//!
//! - `slabs`: tori and meshes, cut across their longest dimension (parts <= its length);
//! - `blocks`: tori and meshes with more parts than their longest dimension has routers, cut
//!   across several dimensions into a grid of equal blocks (each prime factor of the parts
//!   cuts the dimension whose blocks are then longest);
//! - `groups`: families with groups (dragonflies, Slim Fly, Fishnets, fat-tree pods), whole
//!   groups per part, filled in group order to an equal share of endpoints;
//! - `bfs`: any topology, routers in breadth-first order from router 0 cut into consecutive
//!   runs of an equal share of endpoints;
//! - `given`: the config's own `partition` (one part per router), e.g. from KaHIP
//!   (docs/parallel.md).

use std::collections::VecDeque;

use crate::engine::Time;
use crate::error::ConfigError;
use crate::topology::{Peer, Topology};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub parts: u32,
    pub method: &'static str,
    /// The part of every router.
    pub part_of: Vec<u32>,
}

/// What a partition costs: its balance, the links it cuts and the lookahead they allow.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionReport {
    pub parts: u32,
    pub method: &'static str,
    pub routers_per_part: Vec<u32>,
    pub endpoints_per_part: Vec<u32>,
    /// Router-to-router links (both directions count one) between different parts.
    pub cut_links: u64,
    /// Smallest latency of a cut link (None: nothing is cut).
    pub lookahead_ps: Option<Time>,
}

/// The default partition of `topology` into `parts`: slabs on tori and meshes, groups where the
/// family has them and there are enough, breadth-first runs otherwise.
pub fn partition(topology: &dyn Topology, parts: u32) -> Result<Partition, ConfigError> {
    let routers = topology.num_routers();
    if parts == 0 || parts > routers {
        return Err(ConfigError::new(
            "threads",
            parts.to_string(),
            format!("between 1 and the number of routers, {routers}"),
        ));
    }
    if let Some(torus) = topology.coordinates() {
        let (dim, &k) = torus
            .dims()
            .iter()
            .enumerate()
            // The longest; of several, the last: it varies slowest in router numbers, so a
            // slab is one run of them (and a process holds only its own, see `network`).
            .max_by_key(|&(d, &k)| (k, d))
            .expect("a torus has a dimension");
        let cuts = if parts <= k {
            let mut cuts = vec![1; torus.dims().len()];
            cuts[dim] = parts;
            Some(cuts)
        } else {
            grid(torus.dims(), parts)
        };
        if let Some(cuts) = cuts {
            // Mixed radix over the dimensions: the block of coordinate x of dimension d is
            // x * cuts[d] / k[d].
            let part_of = (0..routers)
                .map(|r| {
                    torus
                        .dims()
                        .iter()
                        .zip(&cuts)
                        .enumerate()
                        .fold(0, |part, (d, (&k, &c))| {
                            part * c
                                + (u64::from(torus.coord(r, d)) * u64::from(c) / u64::from(k))
                                    as u32
                        })
                })
                .collect();
            return Ok(Partition {
                parts,
                method: if parts <= k { "slabs" } else { "blocks" },
                part_of,
            });
        }
    }
    let groups: Option<Vec<u32>> = (0..routers).map(|r| topology.group(r)).collect();
    if let Some(groups) = groups {
        let count = groups.iter().max().map_or(0, |&g| g + 1);
        if count >= parts {
            let mut order: Vec<u32> = (0..routers).collect();
            order.sort_by_key(|&r| (groups[r as usize], r));
            let by_group = fill_in_order(topology, &order, parts, |r| groups[r as usize]);
            return Ok(Partition {
                parts,
                method: "groups",
                part_of: by_group,
            });
        }
    }
    let order = breadth_first(topology);
    Ok(Partition {
        parts,
        method: "bfs",
        part_of: fill_in_order(topology, &order, parts, |r| r),
    })
}

/// The config's `partition` (one part per router) when it is given, else the default
/// [`partition`].
pub fn partition_or_given(
    topology: &dyn Topology,
    parts: u32,
    given: &[u32],
) -> Result<Partition, ConfigError> {
    if given.is_empty() {
        return partition(topology, parts);
    }
    let routers = topology.num_routers();
    if parts == 0 || parts > routers {
        return Err(ConfigError::new(
            "threads",
            parts.to_string(),
            format!("between 1 and the number of routers, {routers}"),
        ));
    }
    if given.len() != routers as usize {
        return Err(ConfigError::new(
            "partition",
            format!("{} entries", given.len()),
            format!("one part per router: {routers} entries"),
        ));
    }
    let mut routers_in = vec![0u32; parts as usize];
    for (r, &p) in given.iter().enumerate() {
        if p >= parts {
            return Err(ConfigError::new(
                &format!("partition[{r}]"),
                p.to_string(),
                format!("a part from 0 to {} (one part per worker)", parts - 1),
            ));
        }
        routers_in[p as usize] += 1;
    }
    if let Some(empty) = routers_in.iter().position(|&n| n == 0) {
        return Err(ConfigError::new(
            "partition",
            format!("no router in part {empty}"),
            format!("at least one router in every part from 0 to {}", parts - 1),
        ));
    }
    Ok(Partition {
        parts,
        method: "given",
        part_of: given.to_vec(),
    })
}

/// How many blocks to cut each dimension of lengths `dims` into, `parts` in all: every prime
/// factor of `parts`, largest first, cuts the dimension with the longest blocks that it still
/// divides into blocks of one router or more. None if some factor fits nowhere.
fn grid(dims: &[u32], parts: u32) -> Option<Vec<u32>> {
    let mut factors = Vec::new();
    let (mut rest, mut f) = (parts, 2);
    while rest > 1 {
        if rest % f == 0 {
            factors.push(f);
            rest /= f;
        } else {
            f += 1;
        }
    }
    let mut cuts = vec![1u32; dims.len()];
    for &f in factors.iter().rev() {
        let d = (0..dims.len())
            .filter(|&d| cuts[d] * f <= dims[d])
            // Longest blocks first (k / cuts, compared without division), then lowest index.
            .max_by(|&a, &b| {
                (u64::from(dims[a]) * u64::from(cuts[b]))
                    .cmp(&(u64::from(dims[b]) * u64::from(cuts[a])))
                    .then(b.cmp(&a))
            })?;
        cuts[d] *= f;
    }
    Some(cuts)
}

/// Assigns routers in `order` to parts 0, 1, ... so that every part gets about an equal share
/// of the endpoints (routers count as one endpoint when none has any), never splitting the
/// routers of one `unit` (a group) across parts.
fn fill_in_order(
    topology: &dyn Topology,
    order: &[u32],
    parts: u32,
    unit: impl Fn(u32) -> u32,
) -> Vec<u32> {
    let endpoints = endpoints_per_router(topology);
    let weight = |r: u32| {
        if topology.num_endpoints() == 0 {
            1
        } else {
            u64::from(endpoints[r as usize])
        }
    };
    let total: u64 = order.iter().map(|&r| weight(r)).sum();
    let mut part_of = vec![0u32; order.len()];
    let mut done = 0u64;
    let mut part = 0u32;
    for (i, &r) in order.iter().enumerate() {
        // Move on when this part has its share, at a unit boundary, keeping a unit for every
        // part still to fill.
        let new_unit = i > 0 && unit(r) != unit(order[i - 1]);
        if new_unit && part + 1 < parts && done * u64::from(parts) >= total * u64::from(part + 1) {
            part += 1;
        }
        part_of[r as usize] = part;
        done += weight(r);
    }
    part_of
}

fn endpoints_per_router(topology: &dyn Topology) -> Vec<u32> {
    let mut endpoints = vec![0u32; topology.num_routers() as usize];
    for e in 0..topology.num_endpoints() {
        endpoints[topology.endpoint_attachment(e).0 as usize] += 1;
    }
    endpoints
}

/// Routers in breadth-first order from router 0 (unreachable ones after, in id order).
fn breadth_first(topology: &dyn Topology) -> Vec<u32> {
    let routers = topology.num_routers();
    let mut seen = vec![false; routers as usize];
    let mut order = Vec::with_capacity(routers as usize);
    for start in 0..routers {
        if seen[start as usize] {
            continue;
        }
        seen[start as usize] = true;
        let mut queue = VecDeque::from([start]);
        while let Some(r) = queue.pop_front() {
            order.push(r);
            for p in 0..topology.ports_per_router() {
                if let Peer::Router { router, .. } = topology.peer(r, p) {
                    if !seen[router as usize] {
                        seen[router as usize] = true;
                        queue.push_back(router);
                    }
                }
            }
        }
    }
    order
}

/// The balance, cut and lookahead of `partition`, with `latency_ps(router, port)` the latency
/// of the link leaving that port.
pub fn report(
    topology: &dyn Topology,
    partition: &Partition,
    latency_ps: impl Fn(u32, u16) -> Time,
) -> PartitionReport {
    let parts = partition.parts as usize;
    let mut routers_per_part = vec![0u32; parts];
    let mut endpoints_per_part = vec![0u32; parts];
    let endpoints = endpoints_per_router(topology);
    let mut cut_ports = 0u64;
    let mut lookahead_ps: Option<Time> = None;
    for r in 0..topology.num_routers() {
        let part = partition.part_of[r as usize];
        routers_per_part[part as usize] += 1;
        endpoints_per_part[part as usize] += endpoints[r as usize];
        for p in 0..topology.ports_per_router() {
            if let Peer::Router { router, .. } = topology.peer(r, p) {
                if partition.part_of[router as usize] != part {
                    cut_ports += 1;
                    let latency = latency_ps(r, p);
                    lookahead_ps = Some(lookahead_ps.map_or(latency, |l| l.min(latency)));
                }
            }
        }
    }
    PartitionReport {
        parts: partition.parts,
        method: partition.method,
        routers_per_part,
        endpoints_per_part,
        cut_links: cut_ports / 2,
        lookahead_ps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyConfig;
    use crate::topology;

    fn build(json: &str) -> Box<dyn Topology> {
        let config: TopologyConfig = serde_json::from_str(json).unwrap();
        topology::build(&config).unwrap()
    }

    fn cut_and_balance(t: &dyn Topology, parts: u32) -> (Partition, PartitionReport) {
        let p = partition(t, parts).unwrap();
        let r = report(t, &p, |_, _| 20_000);
        (p, r)
    }

    #[test]
    fn a_given_partition_is_used_as_given_and_checked() {
        let t = build(r#"{"kind": "torus", "dims": [4], "concentration": 1}"#);
        let p = partition_or_given(t.as_ref(), 2, &[0, 1, 1, 0]).unwrap();
        assert_eq!((p.method, p.part_of), ("given", vec![0, 1, 1, 0]));
        assert_eq!(
            report(
                t.as_ref(),
                &partition_or_given(t.as_ref(), 2, &[0, 1, 1, 0]).unwrap(),
                |_, _| 1
            )
            .cut_links,
            2
        );
        assert_eq!(
            partition_or_given(t.as_ref(), 2, &[]).unwrap().method,
            "slabs"
        );
        let err = partition_or_given(t.as_ref(), 2, &[0, 1, 1]).unwrap_err();
        assert_eq!(
            (err.key.as_str(), err.value.as_str()),
            ("partition", "3 entries")
        );
        let err = partition_or_given(t.as_ref(), 2, &[0, 1, 2, 0]).unwrap_err();
        assert_eq!(
            (err.key.as_str(), err.value.as_str()),
            ("partition[2]", "2")
        );
        let err = partition_or_given(t.as_ref(), 3, &[0, 1, 1, 0]).unwrap_err();
        assert_eq!(err.value, "no router in part 2");
    }

    #[test]
    fn torus_slabs_cut_two_planes_per_boundary() {
        let t = build(r#"{"kind": "torus", "dims": [8, 4, 4], "concentration": 1}"#);
        for parts in [1, 2, 4, 8] {
            let (p, r) = cut_and_balance(t.as_ref(), parts);
            assert_eq!(p.method, "slabs");
            assert!(r.endpoints_per_part.iter().all(|&e| e == 128 / parts));
            // Each of the `parts` boundaries of the ring cuts one 4x4 plane of links (a ring of
            // two parts has two boundaries).
            let boundaries = if parts == 1 { 0 } else { u64::from(parts) };
            assert_eq!(r.cut_links, boundaries * 16, "{parts} parts");
            assert_eq!(r.lookahead_ps, (parts > 1).then_some(20_000));
        }
    }

    #[test]
    fn torus_blocks_cut_several_dimensions_when_parts_outnumber_the_longest() {
        let t = build(r#"{"kind": "torus", "dims": [8, 4, 4], "concentration": 1}"#);
        // 16 = 2 x 2 x 2 x 2: 8 -> 2 blocks, then 4 and 4 -> 2 each, then 8 -> 4 blocks.
        assert_eq!(grid(&[8, 4, 4], 16), Some(vec![4, 2, 2]));
        assert_eq!(grid(&[8, 4, 4], 128), Some(vec![8, 4, 4]));
        // 3 x 3 x 2 x 2: uneven blocks where a factor does not divide a length.
        assert_eq!(grid(&[9, 4, 4], 36), Some(vec![6, 3, 2]));
        assert_eq!(grid(&[2, 2], 3), None);
        for (parts, cuts) in [(16u32, [4u64, 2, 2]), (32, [8, 2, 2]), (128, [8, 4, 4])] {
            let (p, r) = cut_and_balance(t.as_ref(), parts);
            assert_eq!(p.method, "blocks");
            assert!(r.endpoints_per_part.iter().all(|&e| e == 128 / parts));
            // A ring cut into c > 1 blocks has c boundaries, each cutting the links of one
            // plane across the other two dimensions (a ring of two blocks has two).
            let plane = [16u64, 32, 32];
            let links: u64 = (0..3)
                .filter(|&d| cuts[d] > 1)
                .map(|d| cuts[d] * plane[d])
                .sum();
            assert_eq!(r.cut_links, links, "{parts} parts");
        }
    }

    #[test]
    fn dragonfly_groups_stay_whole_and_balanced() {
        let t = build(
            r#"{"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "absolute"}"#,
        );
        let (p, r) = cut_and_balance(t.as_ref(), 3);
        assert_eq!(p.method, "groups");
        assert_eq!(r.endpoints_per_part, vec![24, 24, 24]);
        for router in 0..t.num_routers() {
            let group = t.group(router).unwrap();
            let first = (0..t.num_routers())
                .find(|&x| t.group(x) == Some(group))
                .unwrap();
            assert_eq!(p.part_of[router as usize], p.part_of[first as usize]);
        }
        // Only global links are cut: 3 groups per part, 9 x 8 / 2 = 36 global links in all,
        // of which 3 x 3 x 2 / 2 = 9 are inside parts (one per pair of groups).
        assert_eq!(r.cut_links, 36 - 9);
    }

    #[test]
    fn breadth_first_covers_any_topology_in_balanced_runs() {
        let t = build(r#"{"kind": "slim_fly", "q": 5, "p": 2}"#);
        // Slim Fly has racks as groups; ask for more parts than racks to force bfs.
        let racks = (0..t.num_routers())
            .filter_map(|r| t.group(r))
            .max()
            .unwrap()
            + 1;
        let (p, r) = cut_and_balance(t.as_ref(), racks + 1);
        assert_eq!(p.method, "bfs");
        assert_eq!(r.routers_per_part.iter().sum::<u32>(), t.num_routers());
        let (lo, hi) = (
            *r.endpoints_per_part.iter().min().unwrap(),
            *r.endpoints_per_part.iter().max().unwrap(),
        );
        assert!(hi - lo <= 2 * 2, "{:?}", r.endpoints_per_part);
        assert!(partition(t.as_ref(), 0).is_err());
        assert!(partition(t.as_ref(), t.num_routers() + 1).is_err());
    }
}
