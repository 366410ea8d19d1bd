//! Hop distances toward groups on hierarchical topologies (dragonflies, Fishnets), where the
//! literature's minimal route crosses at most one global link: local hops to a router with a
//! link into the destination group, that link, then local hops inside it.

/// `hops[r * groups + g]`: local hops from router r to a router of r's group with a global link
/// into group g, plus that link (0 inside g; u8::MAX when r's group has no link into g).
pub struct GroupDistances {
    pub group: Vec<u32>,
    pub groups: u32,
    hops: Vec<u8>,
    /// Position of every router in its group, and hop distances inside a group using its local
    /// links only: `local[r * widest + position(s)]` for r, s of one group.
    position: Vec<u32>,
    widest: usize,
    local: Vec<u8>,
}

impl GroupDistances {
    /// `neighbours[r]`: (port, neighbour) of every network port of router r.
    pub fn new(group: Vec<u32>, neighbours: &[Vec<(u16, u32)>]) -> Self {
        let n = group.len();
        let groups = group.iter().copied().max().map_or(0, |g| g + 1);
        let g = groups as usize;
        let mut hops = vec![u8::MAX; n * g];
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); g];
        for (r, &gr) in group.iter().enumerate() {
            members[gr as usize].push(r as u32);
            hops[r * g + gr as usize] = 0;
        }
        for (source_group, routers) in members.iter().enumerate() {
            for target in 0..g {
                if target == source_group {
                    continue;
                }
                // Multi-source search inside the source group from its gateways into target.
                let mut frontier: Vec<u32> = routers
                    .iter()
                    .copied()
                    .filter(|&r| {
                        neighbours[r as usize]
                            .iter()
                            .any(|&(_, nb)| group[nb as usize] as usize == target)
                    })
                    .collect();
                for &r in &frontier {
                    hops[r as usize * g + target] = 1;
                }
                let mut d = 1u8;
                while !frontier.is_empty() && d < u8::MAX - 1 {
                    d += 1;
                    let mut next = Vec::new();
                    for &r in &frontier {
                        for &(_, nb) in &neighbours[r as usize] {
                            let slot = &mut hops[nb as usize * g + target];
                            if group[nb as usize] as usize == source_group && *slot == u8::MAX {
                                *slot = d;
                                next.push(nb);
                            }
                        }
                    }
                    frontier = next;
                }
            }
        }
        let widest = members.iter().map(Vec::len).max().unwrap_or(0);
        let mut position = vec![0u32; n];
        for routers in &members {
            for (i, &r) in routers.iter().enumerate() {
                position[r as usize] = i as u32;
            }
        }
        let mut local = vec![u8::MAX; n * widest];
        for r in 0..n {
            let row = &mut local[r * widest..(r + 1) * widest];
            row[position[r] as usize] = 0;
            let mut frontier = vec![r as u32];
            let mut d = 0u8;
            while !frontier.is_empty() && d < u8::MAX - 1 {
                d += 1;
                let mut next = Vec::new();
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
                frontier = next;
            }
        }
        GroupDistances {
            group,
            groups,
            hops,
            position,
            widest,
            local,
        }
    }

    /// Hierarchical distances between routers, `table[d * n + r]`: local hops inside one
    /// group; between groups, the fewest local hops to a global link into the destination's
    /// group, that link, and local hops there (the minimal route with one global link). The
    /// table is symmetric; u8::MAX where no such route exists.
    pub fn router_distances(&self, neighbours: &[Vec<(u16, u32)>]) -> Vec<u8> {
        let n = self.group.len();
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); self.groups as usize];
        for (r, &g) in self.group.iter().enumerate() {
            members[g as usize].push(r as u32);
        }
        let mut table = vec![u8::MAX; n * n];
        for routers in &members {
            for &d in routers {
                for &r in routers {
                    table[d as usize * n + r as usize] = self.local(r, d);
                }
            }
        }
        // Every global link x -> y offers r -> x -> y -> d to every r of x's group and d of
        // y's group.
        for (x, links) in neighbours.iter().enumerate() {
            let from = &members[self.group[x] as usize];
            for &(_, y) in links {
                let to_group = self.group[y as usize];
                if to_group == self.group[x] {
                    continue;
                }
                for &d in &members[to_group as usize] {
                    let tail = self.local(y, d);
                    let row = &mut table[d as usize * n..(d as usize + 1) * n];
                    for &r in from {
                        let hops = self
                            .local(r, x as u32)
                            .saturating_add(1)
                            .saturating_add(tail);
                        let slot = &mut row[r as usize];
                        *slot = (*slot).min(hops);
                    }
                }
            }
        }
        table
    }

    /// Local hops between two routers of one group.
    pub fn local(&self, a: u32, b: u32) -> u8 {
        self.local[a as usize * self.widest + self.position[b as usize] as usize]
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

    pub fn hops(&self, router: u32, group: u32) -> u8 {
        self.hops[router as usize * self.groups as usize + group as usize]
    }
}
