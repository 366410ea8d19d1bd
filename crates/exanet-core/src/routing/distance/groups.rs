//! Hop distances on hierarchical topologies (dragonflies, Fishnets), where the literature's
//! minimal route crosses at most one global link: local hops to a router with a link into the
//! destination group, that link, then local hops inside it. Held per group, never per router
//! pair: the local distances inside each group, and the global links of each pair of groups.

use super::masks::{port_bits, PortMasks};
use super::{disconnected, Distances};
use crate::error::ConfigError;

pub struct GroupDistances {
    pub group: Vec<u32>,
    pub groups: u32,
    /// Position of every router in its group, and hop distances inside a group using its local
    /// links only: `local[r * widest + position(s)]` for r, s of one group.
    position: Vec<u32>,
    widest: usize,
    local: Vec<u8>,
    /// Global links x -> y, x in group A and y in group B, at
    /// `links[pair_start[A * groups + B]..pair_start[A * groups + B + 1]]`, as (position of x
    /// in A, y): the two things distances through the link read.
    pair_start: Vec<u32>,
    links: Vec<(u32, u32)>,
    /// Beside each link where the table of closer ports is kept: the link's port as the index
    /// of its bit among x's network ports (a router's own links into a group are then its
    /// closer ports there, without a search of its ports for y).
    link_bits: Vec<u8>,
    /// Routers with endpoints, by group.
    endpoint_routers: Vec<Vec<u32>>,
    /// The network ports one hop closer toward each member of its group, as bits over the
    /// router's network ports in port order (`neighbours[r]`): `closer[r * widest +
    /// position(m)]`, the local neighbours nearer to m. Empty where a router has more than 64
    /// network ports or the table would outgrow [`CLOSER_TABLE_BYTES`]: closer ports are then
    /// found neighbour by neighbour.
    closer: PortMasks,
}

/// The largest table of closer ports kept (see `GroupDistances::closer`): 4 bytes per router
/// per member of its group where routers have at most 32 network ports (132 KiB, 8 bytes per
/// endpoint, on a 16K-endpoint dragonfly), else 8.
const CLOSER_TABLE_BYTES: usize = 64 << 20;

impl GroupDistances {
    /// `neighbours[r]`: (port, neighbour) of every network port of router r. Fails (naming
    /// `key` when too large) if a group is split or two groups with endpoints have no link.
    pub fn new(
        group: Vec<u32>,
        neighbours: &[Vec<(u16, u32)>],
        endpoint_routers: &[u32],
        key: &str,
    ) -> Result<Self, ConfigError> {
        let n = group.len();
        let groups = group.iter().copied().max().map_or(0, |g| g + 1);
        let g = groups as usize;
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); g];
        for (r, &gr) in group.iter().enumerate() {
            members[gr as usize].push(r as u32);
        }
        let widest = members.iter().map(Vec::len).max().unwrap_or(0);
        let global_links = neighbours
            .iter()
            .enumerate()
            .flat_map(|(x, ports)| ports.iter().map(move |&(_, y)| (x, y)))
            .filter(|&(x, y)| group[x] != group[y as usize])
            .count();
        let widest_router = neighbours.iter().map(Vec::len).max().unwrap_or(0);
        let mask_bytes = PortMasks::bytes_each(widest_router);
        let with_masks = widest_router <= 64 && n * widest * mask_bytes <= CLOSER_TABLE_BYTES;
        let mut need = crate::memory::Footprint::new();
        need.add("local distances", (n * widest) as u64, 1)
            .add("group pairs", (g * g) as u64 + 1, 4)
            .add(
                "global links",
                global_links as u64,
                8 + u64::from(with_masks),
            )
            .add(
                "closer ports",
                (n * widest) as u64 * u64::from(with_masks),
                mask_bytes as u64,
            );
        need.check(key, format!("{n} routers in {g} groups"))?;

        let mut position = vec![0u32; n];
        for routers in &members {
            for (i, &r) in routers.iter().enumerate() {
                position[r as usize] = i as u32;
            }
        }
        let mut local = vec![u8::MAX; n * widest];
        let mut frontier = Vec::new();
        let mut next = Vec::new();
        for r in 0..n {
            let row = &mut local[r * widest..(r + 1) * widest];
            row[position[r] as usize] = 0;
            frontier.clear();
            frontier.push(r as u32);
            let mut d = 0u8;
            while !frontier.is_empty() && d < u8::MAX - 1 {
                d += 1;
                next.clear();
                for &x in &frontier {
                    for &(_, nb) in &neighbours[x as usize] {
                        if group[nb as usize] == group[r]
                            && row[position[nb as usize] as usize] == u8::MAX
                        {
                            row[position[nb as usize] as usize] = d;
                            next.push(nb);
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next);
            }
        }

        let mut links: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(global_links);
        for (x, ports) in neighbours.iter().enumerate() {
            for (bit, &(_, y)) in ports.iter().enumerate() {
                let (a, b) = (group[x], group[y as usize]);
                if a != b {
                    // Used only with the table, i.e. where a router has at most 64 ports.
                    links.push((a * groups + b, x as u32, y, bit as u8));
                }
            }
        }
        links.sort_unstable();
        let mut pair_start = vec![0u32; g * g + 1];
        for &(pair, ..) in &links {
            pair_start[pair as usize + 1] += 1;
        }
        for i in 0..g * g {
            pair_start[i + 1] += pair_start[i];
        }
        let mut by_group: Vec<Vec<u32>> = vec![Vec::new(); g];
        for &r in endpoint_routers {
            by_group[group[r as usize] as usize].push(r);
        }
        let mut closer = Vec::new();
        if with_masks {
            closer.reserve_exact(n * widest);
            for (r, ports) in neighbours.iter().enumerate() {
                let row = &local[r * widest..(r + 1) * widest];
                for at in 0..widest {
                    let want = row[at].wrapping_sub(1);
                    closer.push(port_bits(ports, |nb| {
                        group[nb as usize] == group[r] && local[nb as usize * widest + at] == want
                    }));
                }
            }
        }
        let closer = PortMasks::new(closer, mask_bytes);
        let distances = GroupDistances {
            group,
            groups,
            position: position.clone(),
            widest,
            local,
            pair_start,
            links: links
                .iter()
                .map(|&(_, x, y, _)| (position[x as usize], y))
                .collect(),
            link_bits: if with_masks {
                links.iter().map(|&(.., bit)| bit).collect()
            } else {
                Vec::new()
            },
            endpoint_routers: by_group,
            closer,
        };
        distances.check_connected(&members)?;
        Ok(distances)
    }

    /// Every group is connected by its local links, and every two groups with endpoints have
    /// a global link.
    fn check_connected(&self, members: &[Vec<u32>]) -> Result<(), ConfigError> {
        for routers in members {
            for &a in routers {
                if let Some(&b) = routers.iter().find(|&&b| self.local(a, b) == u8::MAX) {
                    return Err(disconnected(a, b));
                }
            }
        }
        let with_endpoints: Vec<usize> = (0..self.groups as usize)
            .filter(|&g| !self.endpoint_routers[g].is_empty())
            .collect();
        for &a in &with_endpoints {
            for &b in &with_endpoints {
                if a != b && self.pair(a as u32, b as u32).is_empty() {
                    return Err(disconnected(
                        self.endpoint_routers[a][0],
                        self.endpoint_routers[b][0],
                    ));
                }
            }
        }
        Ok(())
    }

    /// The global links from group `a` into group `b`.
    fn pair(&self, a: u32, b: u32) -> &[(u32, u32)] {
        &self.links[self.pair_range(a, b)]
    }

    /// Where the global links from group `a` into group `b` lie in `links`.
    fn pair_range(&self, a: u32, b: u32) -> std::ops::Range<usize> {
        let i = (a * self.groups + b) as usize;
        self.pair_start[i] as usize..self.pair_start[i + 1] as usize
    }

    /// Local hops from `router` to the routers of its group, by position.
    fn row(&self, router: u32) -> &[u8] {
        let r = router as usize;
        &self.local[r * self.widest..(r + 1) * self.widest]
    }

    /// Local hops between two routers of one group.
    pub fn local(&self, a: u32, b: u32) -> u8 {
        self.local_at(a, self.position[b as usize] as usize)
    }

    /// Local hops from `router` to the router at `position` in its group (one read, where
    /// `row(router)[position]` would check the row's bounds too).
    #[inline]
    fn local_at(&self, router: u32, position: usize) -> u8 {
        self.local[router as usize * self.widest + position]
    }

    /// The largest local distance inside any group.
    pub fn local_diameter(&self) -> u8 {
        self.local
            .iter()
            .copied()
            .filter(|&d| d != u8::MAX)
            .max()
            .unwrap_or(0)
    }

    /// Local hops from `router` to a router of its group with a global link into `group`, plus
    /// that link (0 inside `group`; u8::MAX when its group has no link into `group`).
    pub fn hops_to_group(&self, router: u32, group: u32) -> u8 {
        let own = self.group[router as usize];
        if own == group {
            return 0;
        }
        let row = self.row(router);
        self.pair(own, group)
            .iter()
            .map(|&(x, _)| row[x as usize].saturating_add(1))
            .min()
            .unwrap_or(u8::MAX)
    }

    /// The network ports of `router` one hop closer to router `to`, as bits over its network
    /// ports in port order, and the router's hops to `to` (as [`Distances::hops`], found on
    /// the way), where the table of closer ports is kept. Inside its group the table answers;
    /// toward another group see [`Self::closer_through_links`]. None where no table is kept.
    #[inline]
    pub fn closer_to_router(&self, router: u32, to: u32) -> Option<(u64, u8)> {
        if self.closer.is_empty() {
            return None;
        }
        let (own, there) = (self.group[router as usize], self.group[to as usize]);
        if own == there {
            let at = self.position[to as usize] as usize;
            let cell = router as usize * self.widest + at;
            return Some((self.closer.get(cell), self.local[cell]));
        }
        let at = self.position[to as usize] as usize;
        self.closer_through_links(router, own, there, |y| self.local_at(y, at))
    }

    /// The ports of `router` one hop closer to `group`, and its hops to the group (as
    /// [`Self::closer_to_router`]).
    #[inline]
    pub fn closer_to_group(&self, router: u32, group: u32) -> Option<(u64, u8)> {
        let own = self.group[router as usize];
        if self.closer.is_empty() || own == group {
            return None;
        }
        self.closer_through_links(router, own, group, |_| 0)
    }

    /// The ports of `router`, of group `own`, one hop closer to a target in another group,
    /// `after(y)` being the hops on from a link's far end y to the target. A minimal route
    /// leaves through one of the best global links (fewest local hops to its router, plus the
    /// link, plus `after`): a neighbour is one hop closer exactly when it is a local hop
    /// nearer to the router of a best link (the table's answer toward that router) or is the
    /// far end of a best link of this router. So the closer ports are the union of those, over
    /// the best links, whatever the number of links between the two groups. With them, the
    /// hops through the best links.
    fn closer_through_links(
        &self,
        router: u32,
        own: u32,
        group: u32,
        after: impl Fn(u32) -> u8,
    ) -> Option<(u64, u8)> {
        let range = self.pair_range(own, group);
        let (links, bits) = (&self.links[range.clone()], &self.link_bits[range]);
        let here = self.position[router as usize];
        // Through link i, (x, y): a local hop nearer to x, or the link itself.
        let through = |i: usize, x: u32| {
            if x == here {
                1 << bits[i]
            } else {
                self.closer.get(router as usize * self.widest + x as usize)
            }
        };
        let row = self.row(router);
        let hops =
            |&(x, y): &(u32, u32)| row[x as usize].saturating_add(1).saturating_add(after(y));
        if let [link] = links {
            // The one link is the best (a balanced dragonfly's every pair of groups).
            return Some((through(0, link.0), hops(link)));
        }
        // One pass: the best hops so far, and the union through the links that give them.
        let (mut best, mut found) = (u8::MAX, 0);
        for (i, link) in links.iter().enumerate() {
            let h = hops(link);
            if h < best {
                (best, found) = (h, through(i, link.0));
            } else if h == best && h != u8::MAX {
                found |= through(i, link.0);
            }
        }
        (best != u8::MAX).then_some((found, best))
    }

    /// [`Distances::hops`] toward router `to` from the routers of group `from_group` and of
    /// `to`'s own group, with what every such query shares looked up once: a routing decision
    /// weighs each neighbour of a router toward one destination.
    pub fn toward(&self, to: u32, from_group: u32) -> HopsToward<'_> {
        let to_group = self.group[to as usize];
        HopsToward {
            distances: self,
            at: self.position[to as usize] as usize,
            to_group,
            from_group,
            links: if from_group == to_group {
                &[]
            } else {
                self.pair(from_group, to_group)
            },
        }
    }
}

/// Hops toward one router (see [`GroupDistances::toward`]).
pub struct HopsToward<'a> {
    distances: &'a GroupDistances,
    /// The target's position in its group, and its group.
    at: usize,
    to_group: u32,
    from_group: u32,
    /// The global links from `from_group` into the target's group.
    links: &'a [(u32, u32)],
}

impl HopsToward<'_> {
    /// Hops from `router` if it is in the target's group or in the group the view is for;
    /// None for a router of any other group (no minimal route passes there).
    #[inline]
    pub fn from(&self, router: u32) -> Option<u8> {
        let d = self.distances;
        let g = d.group[router as usize];
        let row = router as usize * d.widest;
        if g == self.to_group {
            Some(d.local[row + self.at])
        } else if g == self.from_group {
            let mut best = u8::MAX;
            for &(x, y) in self.links {
                let hops = d.local[row + x as usize]
                    .saturating_add(1)
                    .saturating_add(d.local[y as usize * d.widest + self.at]);
                best = best.min(hops);
            }
            Some(best)
        } else {
            None
        }
    }
}

impl Distances for GroupDistances {
    /// Local hops inside one group; between groups, the fewest local hops to a global link into
    /// the destination's group, that link, and local hops there.
    #[inline]
    fn hops(&self, from: u32, to: u32) -> u8 {
        let (a, b) = (self.group[from as usize], self.group[to as usize]);
        if a == b {
            return self.local(from, to);
        }
        let (row, at) = (self.row(from), self.position[to as usize] as usize);
        self.pair(a, b)
            .iter()
            .map(|&(x, y)| {
                row[x as usize]
                    .saturating_add(1)
                    .saturating_add(self.local_at(y, at))
            })
            .min()
            .unwrap_or(u8::MAX)
    }

    fn diameter(&self) -> u8 {
        let mut largest = 0;
        for (a, from) in self.endpoint_routers.iter().enumerate() {
            for (b, to) in self.endpoint_routers.iter().enumerate() {
                for &r in from {
                    for &d in to {
                        if a != b || r != d {
                            largest = largest.max(self.hops(r, d));
                        }
                    }
                }
            }
        }
        largest
    }

    fn bytes(&self) -> u64 {
        (self.group.len() * 8
            + self.local.len()
            + self.pair_start.len() * 4
            + self.links.len() * 8
            + self.link_bits.len()
            + self.closer.bytes()) as u64
    }
}
