//! Hop distances on any graph (Slim Fly, PolarFly, Jellyfish, user graphs): a breadth-first
//! row toward every router that holds endpoints, 2 bits per router holding the distance mod 3.
//! That still tells whether a neighbour is one hop closer (neighbours' distances differ by at
//! most one), the distance itself is counted by walking toward the destination, and on
//! diameter-2 graphs the residue is the distance. A quarter
//! of the bytes of an all-pairs table, and only toward routers with endpoints: on 001's Slim
//! Fly (q = 53, 5,618 routers) 1,405 bytes per router, 78 bytes per endpoint. Small graphs also
//! keep each router's closer ports and hops toward each such router, so that a routing decision
//! reads one entry instead of judging every neighbour.

use super::masks::{port_bits, PortMasks};
use super::{disconnected, Distances};
use crate::error::ConfigError;

/// The standings ([`Distances::standing`]) of every router toward one router with endpoints:
/// its row of 2-bit cells.
#[derive(Clone, Copy)]
pub struct Standings<'a> {
    cells: &'a [u8],
}

impl Standings<'_> {
    #[inline]
    pub fn of(&self, router: u32) -> u8 {
        let r = router as usize;
        (self.cells[r / 4] >> (2 * (r % 4))) & 3
    }
}

pub struct GraphDistances {
    /// The row of every router with endpoints (u32::MAX for the others).
    row_of: Vec<u32>,
    /// Bytes per row: 4 routers per byte.
    stride: usize,
    cells: Vec<u8>,
    /// Whether no router is more than 2 hops from a router with endpoints: residues are then
    /// distances (diameter-2 graphs: Slim Fly, PolarFly).
    exact: bool,
    /// Network neighbours, for walking: `adjacent[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    adjacent: Vec<u32>,
    diameter: u8,
    /// The network ports one hop closer toward each router with endpoints, as bits over the
    /// router's network ports in port order, and the router's hops to it: `closer[row *
    /// routers + router]`. Empty where a router has more than 64 network ports or the table
    /// would outgrow [`CLOSER_TABLE_BYTES`]: the row of standings is then read neighbour by
    /// neighbour.
    closer: PortMasks,
    closer_hops: Vec<u8>,
}

/// The largest table of closer ports kept (see `GraphDistances::closer`): 5 bytes per router
/// and router with endpoints where routers have at most 32 network ports, so graphs of up to
/// about 900 routers (Slim Fly q = 9, 162 routers: 128 KiB, 116 bytes per endpoint). It grows
/// with the square of the routers, where the rows grow by a quarter byte per pair.
const CLOSER_TABLE_BYTES: usize = 4 << 20;

impl GraphDistances {
    pub fn new(
        neighbours: &[Vec<(u16, u32)>],
        endpoint_routers: &[u32],
        key: &str,
    ) -> Result<Self, ConfigError> {
        Self::with_table_limit(neighbours, endpoint_routers, key, CLOSER_TABLE_BYTES)
    }

    /// [`Self::new`] with the table of closer ports kept up to `table_bytes`.
    fn with_table_limit(
        neighbours: &[Vec<(u16, u32)>],
        endpoint_routers: &[u32],
        key: &str,
        table_bytes: usize,
    ) -> Result<Self, ConfigError> {
        let routers = neighbours.len();
        let rows = endpoint_routers.len();
        let stride = routers.div_ceil(4);
        let widest = neighbours.iter().map(Vec::len).max().unwrap_or(0);
        let mask_bytes = PortMasks::bytes_each(widest);
        let with_masks = widest <= 64
            && routers.saturating_mul(rows).saturating_mul(mask_bytes + 1) <= table_bytes;
        let mut need = crate::memory::Footprint::new();
        need.add(
            "distance rows (2 bits per router and router with endpoints)",
            (stride * rows) as u64,
            1,
        )
        .add(
            "closer ports",
            (routers * rows) as u64 * u64::from(with_masks),
            mask_bytes as u64 + 1,
        );
        need.check(key, format!("{routers} routers, {rows} with endpoints"))?;
        let mut row_of = vec![u32::MAX; routers];
        for (i, &r) in endpoint_routers.iter().enumerate() {
            row_of[r as usize] = i as u32;
        }
        let mut cells = vec![0u8; stride * rows];
        // Per row: the largest distance from any router, and from a router with endpoints.
        let mut largest = vec![(0u8, 0u8); rows];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let rows_per = rows.div_ceil(threads).max(1);
        let mut unreachable = None;
        // Each thread's rows of the table of closer ports, in row order.
        let mut closer = Vec::new();
        let mut closer_hops = Vec::new();
        std::thread::scope(|s| {
            let handles: Vec<_> = cells
                .chunks_mut((rows_per * stride).max(1))
                .zip(largest.chunks_mut(rows_per))
                .zip(endpoint_routers.chunks(rows_per))
                .map(|((cell_rows, largest), targets)| {
                    let row_of = &row_of;
                    s.spawn(move || {
                        let mut dist = vec![u8::MAX; routers];
                        let table = if with_masks {
                            targets.len() * routers
                        } else {
                            0
                        };
                        let (mut masks, mut hops) =
                            (Vec::with_capacity(table), Vec::with_capacity(table));
                        for ((row, largest), &target) in cell_rows
                            .chunks_mut(stride)
                            .zip(largest.iter_mut())
                            .zip(targets)
                        {
                            bfs(neighbours, target as usize, &mut dist);
                            for (r, &d) in dist.iter().enumerate() {
                                if d == u8::MAX {
                                    if row_of[r] != u32::MAX {
                                        return Err((r as u32, target));
                                    }
                                    continue;
                                }
                                row[r / 4] |= (d % 3) << (2 * (r % 4));
                                largest.0 = largest.0.max(d);
                                if row_of[r] != u32::MAX {
                                    largest.1 = largest.1.max(d);
                                }
                            }
                            if with_masks {
                                // A neighbour is one hop closer exactly when its distance is
                                // one less: what the rows' residues tell, here from the distances.
                                for (r, ports) in neighbours.iter().enumerate() {
                                    let want = dist[r].wrapping_sub(1);
                                    masks.push(port_bits(ports, |nb| dist[nb as usize] == want));
                                    hops.push(dist[r]);
                                }
                            }
                        }
                        Ok((masks, hops))
                    })
                })
                .collect();
            for handle in handles {
                match handle.join().expect("distance rows are computed") {
                    Ok((masks, hops)) => {
                        closer.extend(masks);
                        closer_hops.extend(hops);
                    }
                    Err(pair) => {
                        unreachable.get_or_insert(pair);
                    }
                }
            }
        });
        if let Some((a, b)) = unreachable {
            return Err(disconnected(a, b));
        }
        let farthest = largest.iter().map(|l| l.0).max().unwrap_or(0);
        // Residues are distances when no router is more than 2 hops away.
        let exact = farthest <= 2;
        let mut offsets = Vec::with_capacity(routers + 1);
        let mut adjacent = Vec::new();
        offsets.push(0);
        for ports in neighbours {
            adjacent.extend(ports.iter().map(|&(_, nb)| nb));
            offsets.push(adjacent.len() as u32);
        }
        Ok(GraphDistances {
            row_of,
            stride,
            cells,
            exact,
            offsets,
            adjacent,
            diameter: largest.iter().map(|l| l.1).max().unwrap_or(0),
            closer: PortMasks::new(closer, mask_bytes),
            closer_hops,
        })
    }

    /// The 2 bits of router `r` toward the router with endpoints of row `row`.
    fn cell(&self, row: usize, r: u32) -> u8 {
        self.row_standings(row).of(r)
    }

    fn row_standings(&self, row: usize) -> Standings<'_> {
        Standings {
            cells: &self.cells[row * self.stride..(row + 1) * self.stride],
        }
    }

    /// Where every router stands toward `to` (a router with endpoints), from its one row:
    /// judging a router's neighbours then reads that row, not the table once per neighbour.
    pub fn standings(&self, to: u32) -> Standings<'_> {
        self.row_standings(self.row(to))
    }

    /// The network ports of `router` one hop closer to `to` (a router with endpoints), as bits
    /// over its network ports in port order, and its hops to `to`; None where no table is kept.
    #[inline]
    pub fn closer_to_router(&self, router: u32, to: u32) -> Option<(u64, u8)> {
        if self.closer.is_empty() {
            return None;
        }
        let cell = self.row(to) * self.row_of.len() + router as usize;
        Some((self.closer.get(cell), self.closer_hops[cell]))
    }

    fn row(&self, to: u32) -> usize {
        let row = self.row_of[to as usize];
        debug_assert!(
            row != u32::MAX,
            "distances are toward routers with endpoints"
        );
        row as usize
    }
}

/// Breadth-first distances from `src` into `dist` (u8::MAX where unreachable).
fn bfs(neighbours: &[Vec<(u16, u32)>], src: usize, dist: &mut [u8]) {
    dist.fill(u8::MAX);
    dist[src] = 0;
    let mut frontier = vec![src as u32];
    let mut next = Vec::new();
    let mut d = 0u8;
    while !frontier.is_empty() && d < u8::MAX - 1 {
        d += 1;
        for &r in &frontier {
            for &(_, nb) in &neighbours[r as usize] {
                if dist[nb as usize] == u8::MAX {
                    dist[nb as usize] = d;
                    next.push(nb);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
}

impl Distances for GraphDistances {
    fn hops(&self, from: u32, to: u32) -> u8 {
        if let Some((_, hops)) = self.closer_to_router(from, to) {
            return hops;
        }
        let row = self.row(to);
        if self.exact {
            return self.cell(row, from);
        }
        // Walk: each step to a neighbour whose residue is one less.
        let mut at = from;
        let mut hops = 0u8;
        while at != to {
            let closer = (self.cell(row, at) + 2) % 3;
            let ports = &self.adjacent
                [self.offsets[at as usize] as usize..self.offsets[at as usize + 1] as usize];
            match ports.iter().find(|&&nb| self.cell(row, nb) == closer) {
                Some(&nb) => at = nb,
                None => return u8::MAX,
            }
            hops = hops.saturating_add(1);
        }
        hops
    }

    fn standing(&self, router: u32, to: u32) -> u8 {
        self.cell(self.row(to), router)
    }

    fn one_closer(&self, here: u8) -> u8 {
        if self.exact {
            here.wrapping_sub(1)
        } else {
            (here + 2) % 3
        }
    }

    fn diameter(&self) -> u8 {
        self.diameter
    }

    fn bytes(&self) -> u64 {
        (self.cells.len()
            + self.row_of.len() * 4
            + self.offsets.len() * 4
            + self.adjacent.len() * 4
            + self.closer.bytes()
            + self.closer_hops.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::distance::network_neighbours;
    use crate::topology::Topology;

    fn graph_of(topology: serde_json::Value) -> Box<dyn Topology> {
        crate::topology::build(&serde_json::from_value(topology).unwrap()).unwrap()
    }

    #[test]
    fn hops_from_the_table_and_from_walking_the_rows_are_the_breadth_first_distances() {
        for topology in [
            serde_json::json!({"kind": "slim_fly", "q": 5, "p": 2}),
            serde_json::json!({"kind": "jellyfish", "routers": 40, "degree": 3, "p": 1, "seed": 7}),
        ] {
            let t = graph_of(topology);
            let neighbours = network_neighbours(t.as_ref());
            let all: Vec<u32> = (0..t.num_routers()).collect();
            let with_table = GraphDistances::new(&neighbours, &all, "topology").unwrap();
            let rows_only =
                GraphDistances::with_table_limit(&neighbours, &all, "topology", 0).unwrap();
            assert!(!with_table.closer.is_empty());
            assert!(rows_only.closer.is_empty());
            let mut dist = vec![0u8; all.len()];
            for &to in &all {
                bfs(&neighbours, to as usize, &mut dist);
                for &from in &all {
                    let expected = dist[from as usize];
                    assert_eq!(with_table.hops(from, to), expected, "{from} -> {to}");
                    assert_eq!(rows_only.hops(from, to), expected, "{from} -> {to}");
                }
            }
        }
    }
}
