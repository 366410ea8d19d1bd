//! Hop distances on fat-trees, in arithmetic: a packet climbs until it reaches a router whose
//! subtree holds the destination leaf, then descends (up/down routing, which is minimal on a
//! fat-tree). A router's subtree is a range of router numbers, because fat-trees are built
//! subtree by subtree, and every parent of a router reaches the same leaves, so one parent per
//! router suffices: 12 bytes per router, no table.

use super::Distances;

pub struct TreeDistances {
    level: Vec<u8>,
    /// One router a level up (u32::MAX at the top).
    parent: Vec<u32>,
    /// The lowest and one past the highest router reached going down (the leaves under it).
    cover: Vec<(u32, u32)>,
}

impl TreeDistances {
    pub fn new(level: Vec<u8>, neighbours: &[Vec<(u16, u32)>]) -> Self {
        let n = level.len();
        let mut parent = vec![u32::MAX; n];
        // Leaves cover themselves; a router above covers the union of its children's ranges.
        let mut cover: Vec<(u32, u32)> = (0..n as u32)
            .map(|r| {
                if level[r as usize] == 0 {
                    (r, r + 1)
                } else {
                    (u32::MAX, 0)
                }
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&r| level[r as usize]);
        for &r in &order {
            for &(_, nb) in &neighbours[r as usize] {
                if level[nb as usize] > level[r as usize] {
                    if parent[r as usize] == u32::MAX {
                        parent[r as usize] = nb;
                    }
                } else if level[nb as usize] < level[r as usize] {
                    let (lo, hi) = cover[nb as usize];
                    let own = &mut cover[r as usize];
                    *own = (own.0.min(lo), own.1.max(hi));
                }
            }
        }
        TreeDistances {
            level,
            parent,
            cover,
        }
    }
}

impl Distances for TreeDistances {
    /// Up to the lowest ancestor whose subtree holds `to` (m levels up the tree, at level
    /// l + m), then down: m + the ancestor's level.
    fn hops(&self, from: u32, to: u32) -> u8 {
        let start = self.level[from as usize];
        let mut at = from;
        loop {
            let (lo, hi) = self.cover[at as usize];
            if (lo..hi).contains(&to) {
                let top = self.level[at as usize];
                return 2 * top - start;
            }
            at = self.parent[at as usize];
            if at == u32::MAX {
                return u8::MAX;
            }
        }
    }

    /// Leaves of different pods meet only at the top.
    fn diameter(&self) -> u8 {
        2 * self.level.iter().copied().max().unwrap_or(0)
    }

    fn bytes(&self) -> u64 {
        (self.level.len() * 13) as u64
    }

    /// A minimal route between leaves climbs to their lowest common ancestor and descends:
    /// a route through a lower router on the way (down, then up) would be two hops longer.
    fn level(&self, router: u32) -> Option<u8> {
        Some(self.level[router as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyConfig;
    use crate::routing::distance::network_neighbours;
    use crate::topology::{self, Shape};

    /// The arithmetic distances equal breadth-first ones from every router to every leaf.
    #[test]
    fn tree_hops_equal_breadth_first_hops() {
        for (levels, radix, pods, taper) in [
            (2, 4, 2, [1, 1]),
            (3, 8, 4, [1, 1]),
            (3, 8, 5, [3, 1]),
            (3, 6, 6, [2, 1]),
            (4, 4, 3, [1, 1]),
            (4, 6, 4, [1, 1]),
        ] {
            let config: TopologyConfig = serde_json::from_value(serde_json::json!({
                "kind": "fat_tree", "levels": levels, "radix": radix, "pods": pods,
                "taper": taper
            }))
            .unwrap();
            let t = topology::build(&config).unwrap();
            let Shape::Levels(level) = t.shape() else {
                panic!("fat-trees have levels")
            };
            let n = t.num_routers();
            let neighbours = network_neighbours(t.as_ref());
            let tree = TreeDistances::new(level.clone(), &neighbours);
            for leaf in (0..n).filter(|&r| level[r as usize] == 0) {
                let mut dist = vec![u8::MAX; n as usize];
                dist[leaf as usize] = 0;
                let mut frontier = vec![leaf];
                while let Some(x) = frontier.first().copied() {
                    frontier.remove(0);
                    for &(_, nb) in &neighbours[x as usize] {
                        if dist[nb as usize] == u8::MAX {
                            dist[nb as usize] = dist[x as usize] + 1;
                            frontier.push(nb);
                        }
                    }
                }
                for r in 0..n {
                    assert_eq!(
                        tree.hops(r, leaf),
                        dist[r as usize],
                        "{levels} levels radix {radix} pods {pods}: router {r} to leaf {leaf}"
                    );
                }
            }
        }
    }
}
