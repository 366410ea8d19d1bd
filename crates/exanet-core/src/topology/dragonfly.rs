//! Dragonflies: groups of routers joined by global links. Three group shapes share one global
//! wiring: all-to-all groups (Kim et al.; IBM PERCS, Cray Slingshot), row-column groups (Cray
//! Cascade) and two-level fat-tree groups (Dragonfly+ / Megafly, where only spines have global
//! ports).
//!
//! Global wiring: a group has G = (routers with global ports) x h global ports and g - 1 peer
//! groups. Every pair of groups gets ⌊G/(g-1)⌋ links and the remaining G mod (g-1) links per
//! group go to a circulant set of peers (offsets ±1, ±2, ... and g/2), so every global port is
//! used and pair counts differ by at most one. The arrangement decides which port leads where.

use super::edges::{EdgeList, Link};
use super::graphs::MAX_LINKS;
use super::port_graph::{Layout, PortGraph};
use super::Shape;
use crate::error::ConfigError;

/// Which global port of a group leads to which peer group (Camarero et al.'s arrangements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrangement {
    /// Ports in order lead to peers in increasing group number.
    Absolute,
    /// Ports in order lead to groups i+1, i+2, ... (mod g): the "consecutive" or palm-tree one.
    Relative,
    /// Ports in order lead to groups i+1, i-1, i+2, i-2, ...
    Circulant,
}

/// The shape of a group.
#[derive(Debug, Clone, Copy)]
pub enum GroupShape {
    /// `a` routers, one link between every pair.
    AllToAll { a: u32 },
    /// `rows x cols` routers, `local_links` links between every pair in a row or a column.
    RowColumn {
        rows: u32,
        cols: u32,
        local_links: u32,
    },
    /// `leaves` routers with endpoints, each linked once to each of `spines` routers, which hold
    /// the global ports.
    FatTree { leaves: u32, spines: u32 },
}

/// What a user says about a dragonfly.
#[derive(Debug, Clone, Copy)]
pub struct DragonflyParams {
    pub shape: GroupShape,
    /// Endpoints per router (per leaf for fat-tree groups).
    pub p: u32,
    /// Global ports per router (per spine for fat-tree groups).
    pub h: u32,
    pub g: u32,
    pub arrangement: Arrangement,
}

impl GroupShape {
    fn routers(&self) -> u32 {
        match *self {
            GroupShape::AllToAll { a } => a,
            GroupShape::RowColumn { rows, cols, .. } => rows * cols,
            GroupShape::FatTree { leaves, spines } => leaves + spines,
        }
    }

    /// Links inside one group, as [`GroupShape::local_links`] lists them.
    fn local_link_count(&self) -> u64 {
        let pairs = |n: u32| u64::from(n) * u64::from(n.saturating_sub(1)) / 2;
        match *self {
            GroupShape::AllToAll { a } => pairs(a),
            GroupShape::RowColumn {
                rows,
                cols,
                local_links,
            } => {
                u64::from(local_links)
                    * (u64::from(rows) * pairs(cols) + u64::from(cols) * pairs(rows))
            }
            GroupShape::FatTree { leaves, spines } => u64::from(leaves) * u64::from(spines),
        }
    }

    /// Local indices of the routers that carry global ports.
    fn global_routers(&self) -> std::ops::Range<u32> {
        match *self {
            GroupShape::FatTree { leaves, spines } => leaves..leaves + spines,
            _ => 0..self.routers(),
        }
    }

    fn family(&self) -> &'static str {
        match self {
            GroupShape::AllToAll { .. } => "dragonfly",
            GroupShape::RowColumn { .. } => "dragonfly_rc",
            GroupShape::FatTree { .. } => "dragonfly_plus",
        }
    }

    /// Local links of one group, as local router index pairs.
    fn local_links(&self) -> Vec<(u32, u32)> {
        let mut links = Vec::new();
        match *self {
            GroupShape::AllToAll { a } => {
                for x in 0..a {
                    for y in x + 1..a {
                        links.push((x, y));
                    }
                }
            }
            GroupShape::RowColumn {
                rows,
                cols,
                local_links,
            } => {
                for _ in 0..local_links {
                    for r in 0..rows {
                        for c in 0..cols {
                            for c2 in c + 1..cols {
                                links.push((r * cols + c, r * cols + c2));
                            }
                            for r2 in r + 1..rows {
                                links.push((r * cols + c, r2 * cols + c));
                            }
                        }
                    }
                }
            }
            GroupShape::FatTree { leaves, spines } => {
                for l in 0..leaves {
                    for s in 0..spines {
                        links.push((l, leaves + s));
                    }
                }
            }
        }
        links
    }
}

fn positive(key: &str, value: u32) -> Result<(), ConfigError> {
    if value == 0 {
        return Err(ConfigError::new(key, "0", "at least 1"));
    }
    Ok(())
}

impl DragonflyParams {
    fn validate(&self) -> Result<(), ConfigError> {
        match self.shape {
            GroupShape::AllToAll { a } => positive("topology.a", a)?,
            GroupShape::RowColumn {
                rows,
                cols,
                local_links,
            } => {
                positive("topology.rows", rows)?;
                positive("topology.cols", cols)?;
                positive("topology.local_links", local_links)?;
            }
            GroupShape::FatTree { leaves, spines } => {
                positive("topology.leaves", leaves)?;
                positive("topology.spines", spines)?;
            }
        }
        positive("topology.p", self.p)?;
        positive("topology.h", self.h)?;
        let global_ports = self.shape.global_routers().len() as u64 * u64::from(self.h);
        let max_g = global_ports + 1;
        if self.g < 2 || u64::from(self.g) > max_g {
            return Err(ConfigError::new(
                "topology.g",
                self.g.to_string(),
                format!(
                    "between 2 and {max_g} groups (global ports per group + 1), so that every \
                     pair of groups has a global link"
                ),
            ));
        }
        let g = u64::from(self.g);
        let links = g * self.shape.local_link_count() + g * global_ports / 2;
        let routers = g * u64::from(self.shape.routers());
        if links > MAX_LINKS || routers > u64::from(u32::MAX) {
            return Err(ConfigError::new(
                "topology.g",
                self.g.to_string(),
                format!(
                    "a dragonfly of at most {MAX_LINKS} links and 2^32 - 1 routers; this one \
                     has {routers} routers and {links} links: fewer groups or smaller groups"
                ),
            ));
        }
        if (u64::from(self.g) * global_ports) % 2 != 0 {
            return Err(ConfigError::new(
                "topology.g",
                self.g.to_string(),
                format!(
                    "an even number of groups: {} groups x {global_ports} global ports is odd, \
                     so one global port would stay unconnected",
                    self.g
                ),
            ));
        }
        Ok(())
    }
}

/// Number of global links between groups i and j (i != j).
fn pair_links(g: u32, ports: u32, i: u32, j: u32) -> u32 {
    let base = ports / (g - 1);
    let extra = ports % (g - 1);
    let offset = (j + g - i) % g;
    let offset = offset.min(g - offset);
    let gets_extra = if extra % 2 == 1 && g % 2 == 0 && offset == g / 2 {
        true
    } else {
        offset <= extra / 2
    };
    base + u32::from(gets_extra)
}

/// The peer group of each global port of group i, in port order.
fn port_targets(g: u32, ports: u32, i: u32, arrangement: Arrangement) -> Vec<u32> {
    let order: Vec<u32> = match arrangement {
        Arrangement::Absolute => (0..g).filter(|&j| j != i).collect(),
        Arrangement::Relative => (1..g).map(|o| (i + o) % g).collect(),
        Arrangement::Circulant => {
            let mut v = Vec::with_capacity(g as usize - 1);
            for o in 1..=g / 2 {
                v.push((i + o) % g);
                if o != g - o {
                    v.push((i + g - o) % g);
                }
            }
            v
        }
    };
    let counts: Vec<u32> = order.iter().map(|&j| pair_links(g, ports, i, j)).collect();
    let rounds = counts.iter().copied().max().unwrap_or(0);
    let mut targets = Vec::with_capacity(ports as usize);
    for round in 0..rounds {
        for (&j, &c) in order.iter().zip(&counts) {
            if c > round {
                targets.push(j);
            }
        }
    }
    targets
}

/// Builds the dragonfly, or says which parameter makes it impossible.
pub fn dragonfly(params: DragonflyParams) -> Result<PortGraph, ConfigError> {
    params.validate()?;
    let per_group = params.shape.routers();
    let g = params.g;
    let routers = u64::from(per_group) * u64::from(g);
    let routers = u32::try_from(routers).map_err(|_| {
        ConfigError::new(
            "topology.g",
            g.to_string(),
            "fewer groups: at most 2^32 - 1 routers",
        )
    })?;
    let mut edges = EdgeList::new(routers, &["local", "global"]);
    let local = params.shape.local_links();
    for grp in 0..g {
        let base = grp * per_group;
        for &(x, y) in &local {
            edges.links.push(Link {
                a: base + x,
                b: base + y,
                class: 0,
            });
            edges.port_keys.push([y, x]);
        }
    }
    let global_routers = params.shape.global_routers();
    let ports = global_routers.len() as u32 * params.h;
    let router_of_port =
        |grp: u32, port: u32| grp * per_group + global_routers.start + port / params.h;
    // The l-th port of group i leading to j pairs with the l-th port of j leading to i.
    let targets: Vec<Vec<u32>> = (0..g)
        .map(|i| port_targets(g, ports, i, params.arrangement))
        .collect();
    let by_target: Vec<Vec<(u32, u32)>> = targets
        .iter()
        .map(|t| {
            let mut v: Vec<(u32, u32)> =
                t.iter().enumerate().map(|(q, &j)| (j, q as u32)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    for i in 0..g {
        let mut seen = vec![0usize; g as usize];
        for (port, &j) in targets[i as usize].iter().enumerate() {
            let l = seen[j as usize];
            seen[j as usize] += 1;
            if j > i {
                let peer = &by_target[j as usize];
                let back = peer[peer.partition_point(|&(t, _)| t < i) + l].1;
                edges.links.push(Link {
                    a: router_of_port(i, port as u32),
                    b: router_of_port(j, back),
                    class: 1,
                });
                // Global ports follow the local ones, in arrangement order.
                edges
                    .port_keys
                    .push([per_group + port as u32, per_group + back]);
            }
        }
    }
    edges.group = (0..routers).map(|r| r / per_group).collect();
    let endpoints: Vec<u32> = (0..routers)
        .map(|r| {
            let local = r % per_group;
            match params.shape {
                GroupShape::FatTree { leaves, .. } if local >= leaves => 0,
                _ => params.p,
            }
        })
        .collect();
    let shape = params.shape;
    let mut layout = Layout::new(shape.family(), move |r| {
        let (grp, local) = (r / per_group, r % per_group);
        match shape {
            GroupShape::RowColumn { cols, .. } => {
                format!("g{grp}.({},{})", local / cols, local % cols)
            }
            GroupShape::FatTree { leaves, .. } if local >= leaves => {
                format!("g{grp}.spine{}", local - leaves)
            }
            _ => format!("g{grp}.r{local}"),
        }
    });
    layout.shape = Shape::Groups;
    // A cut between halves of the groups (even g): the global links joining them.
    layout.bisection_links = (g % 2 == 0).then(|| {
        let half = g / 2 * per_group;
        edges
            .links
            .iter()
            .filter(|l| (l.a < half) != (l.b < half))
            .count() as u64
    });
    PortGraph::new(edges, endpoints, layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Peer, Topology};

    /// (endpoints, routers, local links, global links, links per group pair min/max).
    fn census(t: &PortGraph, g: u32) -> (u32, u32, u64, u64, u32, u32) {
        let mut local = 0;
        let mut global = 0;
        let mut pairs = vec![0u32; (g * g) as usize];
        for r in 0..t.num_routers() {
            for p in 0..t.ports_per_router() {
                if let Peer::Router { router, port } = t.peer(r, p) {
                    assert_eq!(t.peer(router, port), Peer::Router { router: r, port: p });
                    if t.link_class(r, p) == 0 {
                        local += 1;
                    } else {
                        global += 1;
                        let (a, b) = (t.group(r).unwrap(), t.group(router).unwrap());
                        assert_ne!(a, b);
                        pairs[(a * g + b) as usize] += 1;
                    }
                }
            }
        }
        let off: Vec<u32> = (0..g)
            .flat_map(|a| (0..g).filter(move |&b| b != a).map(move |b| (a, b)))
            .map(|(a, b)| pairs[(a * g + b) as usize])
            .collect();
        (
            t.num_endpoints(),
            t.num_routers(),
            local / 2,
            global / 2,
            *off.iter().min().unwrap(),
            *off.iter().max().unwrap(),
        )
    }

    fn a2a(p: u32, a: u32, h: u32, g: u32, arrangement: Arrangement) -> PortGraph {
        dragonfly(DragonflyParams {
            shape: GroupShape::AllToAll { a },
            p,
            h,
            g,
            arrangement,
        })
        .unwrap()
    }

    #[test]
    fn maximal_dragonfly_has_one_link_per_group_pair_in_every_arrangement() {
        for arrangement in [
            Arrangement::Absolute,
            Arrangement::Relative,
            Arrangement::Circulant,
        ] {
            let t = a2a(2, 4, 2, 9, arrangement);
            // a h + 1 = 9 groups of 4 routers; 36 routers x 2 endpoints.
            assert_eq!(census(&t, 9), (72, 36, 9 * 6, 36, 1, 1));
            assert_eq!(t.ports_per_router(), 2 + 3 + 2);
        }
    }

    #[test]
    fn relative_arrangement_wires_port_t_to_group_i_plus_t_plus_1() {
        let t = a2a(1, 4, 2, 9, Arrangement::Relative);
        for grp in 0..9u32 {
            for port in 0..8u32 {
                let r = grp * 4 + port / 2;
                let p = (3 + port % 2) as u16;
                let Peer::Router { router, .. } = t.peer(r, p) else {
                    panic!("global port unconnected")
                };
                assert_eq!(t.group(router), Some((grp + port + 1) % 9));
            }
        }
    }

    #[test]
    fn fewer_groups_spread_global_links_evenly_and_use_every_port() {
        // 004 Iso-N: 60 groups of 20 routers, h = 10: 11,400 local + 6,000 global = 17,400.
        let t = a2a(10, 20, 10, 60, Arrangement::Absolute);
        assert_eq!(census(&t, 60), (12_000, 1_200, 11_400, 6_000, 3, 4));
        for r in 0..t.num_routers() {
            let used = (0..t.ports_per_router())
                .filter(|&p| !matches!(t.peer(r, p), Peer::Unconnected))
                .count();
            assert_eq!(used, 10 + 19 + 10);
        }
    }

    #[test]
    fn row_column_groups_match_bhatele_iso_n() {
        // 35 groups of 10 x 5 routers, 2 links per row/column pair, 7 endpoints, h = 7:
        // 12,250 nodes, 1,750 routers, 28,875 links (004 Table 2).
        let t = dragonfly(DragonflyParams {
            shape: GroupShape::RowColumn {
                rows: 5,
                cols: 10,
                local_links: 2,
            },
            p: 7,
            h: 7,
            g: 35,
            arrangement: Arrangement::Relative,
        })
        .unwrap();
        let (n, r, local, global, _, _) = census(&t, 35);
        assert_eq!((n, r, local + global), (12_250, 1_750, 28_875));
        assert_eq!(t.ports_per_router(), 40);
    }

    #[test]
    fn megafly_spines_hold_the_global_ports() {
        let t = dragonfly(DragonflyParams {
            shape: GroupShape::FatTree {
                leaves: 4,
                spines: 4,
            },
            p: 4,
            h: 4,
            g: 17,
            arrangement: Arrangement::Absolute,
        })
        .unwrap();
        assert_eq!(census(&t, 17), (17 * 16, 17 * 8, 17 * 16, 17 * 8, 1, 1));
    }

    #[test]
    fn impossible_dragonflies_are_refused() {
        let err = |a, h, g| {
            dragonfly(DragonflyParams {
                shape: GroupShape::AllToAll { a },
                p: 1,
                h,
                g,
                arrangement: Arrangement::Absolute,
            })
            .err()
            .unwrap()
        };
        assert!(err(4, 2, 10).expected.contains("between 2 and 9"));
        assert!(err(3, 1, 3).expected.contains("even number of groups"));
        assert_eq!(err(0, 1, 2).key, "topology.a");
    }
}
