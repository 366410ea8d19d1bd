//! Table-driven routing on any topology, from an all-pairs distance table: minimal (adaptive
//! among all ports one hop closer, or one of them by the packet's random bits, or by its
//! destination: D-mod-k on fat-trees),
//! Valiant (minimal to a random intermediate router, then minimal to the destination) and UGAL-L
//! (at the source, the minimal or the Valiant way, whichever has the smaller queued bytes x hops
//! on its first link). VC i carries a packet's i-th hop, so VC indices strictly increase along
//! every path and the channel-dependency graph is acyclic whatever the topology: deadlock-free
//! with as many VCs as the longest path (the diameter for minimal, twice the router diameter
//! for Valiant and UGAL-L).

use super::groups::GroupDistances;
use super::{Candidate, Candidates, RouteQuery, RouteState, RoutingFunction, NO_VIA};
use crate::config::Selection;
use crate::error::ConfigError;
use crate::topology::{Peer, Topology};

/// Largest topology whose all-pairs distance table (one byte per router pair) is built.
pub const MAX_TABLE_ROUTERS: u32 = 8192;

/// Which ways a packet may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableScheme {
    Minimal { selection: Selection },
    Valiant,
    UgalL,
}

impl TableScheme {
    fn name(self) -> &'static str {
        match self {
            TableScheme::Minimal { .. } => "minimal",
            TableScheme::Valiant => "valiant",
            TableScheme::UgalL => "ugal_l",
        }
    }
}

pub struct MinimalTable {
    scheme: TableScheme,
    routers: usize,
    /// `distance[a * routers + b]`, router hops.
    distance: Vec<u8>,
    /// Network ports of each router: (port, neighbour).
    neighbours: Vec<Vec<(u16, u32)>>,
    /// Every VC: ejection may use any.
    all_vcs: u32,
    /// Dragonflies and Fishnets: minimal means at most one global link, and Valiant's
    /// intermediate is a group.
    hierarchy: Option<GroupDistances>,
    threshold: f64,
}

/// Families whose minimal route is hierarchical (local, global, local).
pub const HIERARCHICAL: [&str; 5] = [
    "dragonfly",
    "dragonfly_rc",
    "dragonfly_plus",
    "fishnet",
    "fishnet_lite",
];

impl MinimalTable {
    pub fn new(
        topology: &dyn Topology,
        vcs: u32,
        scheme: TableScheme,
        threshold: f64,
    ) -> Result<Self, ConfigError> {
        let n = topology.num_routers();
        if n > MAX_TABLE_ROUTERS {
            return Err(ConfigError::new(
                "routing.kind",
                format!("\"{}\"", scheme.name()),
                format!(
                    "a topology of at most {MAX_TABLE_ROUTERS} routers for table-driven routing \
                     (this one has {n}); use a family with arithmetic routing (torus: \"dor\")"
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
        let hierarchy = HIERARCHICAL
            .contains(&topology.family())
            .then(|| {
                (0..n)
                    .map(|r| topology.group(r))
                    .collect::<Option<Vec<u32>>>()
            })
            .flatten()
            .map(|group| GroupDistances::new(group, &neighbours));
        let longest = match (&hierarchy, scheme) {
            (Some(h), TableScheme::Minimal { .. }) => {
                u32::from(h.longest()) + u32::from(h.local_diameter())
            }
            (Some(h), _) => 2 * u32::from(h.longest()) + u32::from(h.local_diameter()),
            (None, TableScheme::Minimal { .. }) => u32::from(diameter),
            (None, _) => {
                // Any router may be the intermediate: twice the largest router distance.
                2 * u32::from(
                    distance
                        .iter()
                        .copied()
                        .filter(|&d| d != u8::MAX)
                        .max()
                        .unwrap_or(0),
                )
            }
        };
        if vcs < longest {
            let torus_hint = if topology.coordinates().is_some() {
                "; on a torus or mesh, routing.escape = \"dor\" or \"bubble\" needs 2-3 VCs"
            } else {
                ""
            };
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!(
                    "at least {longest} VCs for {} routing on this {}: VC i carries hop i, \
                     which keeps the channel-dependency graph acyclic, and the longest path \
                     has {longest} hops{torus_hint}",
                    scheme.name(),
                    topology.family()
                ),
            ));
        }
        Ok(MinimalTable {
            scheme,
            routers,
            distance,
            neighbours,
            all_vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
            hierarchy,
            threshold,
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

impl MinimalTable {
    fn distance(&self, a: u32, b: u32) -> u8 {
        self.distance[b as usize * self.routers + a as usize]
    }
}

/// How an oblivious route picks one of `options` ports one hop closer.
#[derive(Clone, Copy)]
enum Pick {
    Random(u32),
    /// Digit `hop` of `value` in base `options`: D-mod-k, whose successive up-ports follow
    /// successive digits of the destination.
    Digit {
        value: u32,
        hop: u32,
    },
}

impl Pick {
    fn index(self, options: usize) -> usize {
        let options = options.max(1);
        match self {
            Pick::Random(r) => r as usize % options,
            Pick::Digit { value, hop } => {
                let base = options as u64;
                let scale = base.checked_pow(hop).unwrap_or(u64::MAX);
                ((u64::from(value) / scale) % base) as usize
            }
        }
    }
}

/// Where a packet heads next.
#[derive(Clone, Copy)]
enum Target {
    Router(u32),
    /// Any router of a group (hierarchical Valiant's intermediate).
    Group(u32),
}

impl MinimalTable {
    /// Hops left from `router` to `target` (hierarchical: to the group, plus the local
    /// diameter for the last part).
    fn hops_to(&self, router: u32, target: Target) -> u8 {
        match (&self.hierarchy, target) {
            (Some(h), Target::Router(d)) if h.group[router as usize] == h.group[d as usize] => {
                h.local(router, d)
            }
            (Some(h), Target::Router(d)) => h
                .hops(router, h.group[d as usize])
                .saturating_add(h.local_diameter()),
            (Some(h), Target::Group(g)) => h.hops(router, g),
            (None, Target::Router(d)) => self.distance(router, d),
            (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
        }
    }

    /// Pushes the ports one hop closer to `target`: the one `pick` names, then (`all`, adaptive)
    /// the others, so that among equally free ports an adaptive router takes the oblivious
    /// choice.
    #[allow(clippy::too_many_arguments)]
    fn toward(
        &self,
        router: u32,
        target: Target,
        vc: u32,
        next: RouteState,
        hops: u8,
        pick: Pick,
        all: bool,
        limit: usize,
        out: &mut Candidates,
    ) {
        let here_group = |h: &GroupDistances| h.group[router as usize];
        let toward_group = |h: &GroupDistances, nb: u32, g: u32| {
            let nb_group = h.group[nb as usize];
            nb_group == g || (nb_group == here_group(h) && h.hops(nb, g) + 1 == h.hops(router, g))
        };
        let closer = |nb: u32| -> bool {
            match (&self.hierarchy, target) {
                (None, Target::Router(d)) => self.distance(nb, d) + 1 == self.distance(router, d),
                (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
                (Some(h), Target::Router(d)) if h.group[d as usize] == here_group(h) => {
                    h.group[nb as usize] == here_group(h)
                        && h.local(nb, d) + 1 == h.local(router, d)
                }
                (Some(h), Target::Router(d)) => toward_group(h, nb, h.group[d as usize]),
                (Some(h), Target::Group(g)) => toward_group(h, nb, g),
            }
        };
        let ports: &[(u16, u32)] = &self.neighbours[router as usize];
        // More closer ports than a candidate list holds (a fat-tree leaf going up): start at a
        // target-dependent offset so that different targets use different ports.
        let start = match target {
            Target::Router(t) | Target::Group(t) => (t as usize).wrapping_mul(0x9e37_79b9),
        } % ports.len().max(1);
        let options = ports[start..]
            .iter()
            .chain(&ports[..start])
            .filter(|&&(_, nb)| closer(nb));
        let count = options.clone().count();
        let picked = pick.index(count);
        let first = out.as_slice().len();
        let taken = if all { count } else { 1 };
        for &(port, _) in options.cycle().skip(picked).take(taken) {
            out.push(Candidate {
                port,
                vc_mask: 1 << vc,
                next,
                hops,
            });
            if out.as_slice().len() - first == limit {
                return;
            }
        }
    }

    /// Valiant's intermediate for a packet at its source: a router, or a group on hierarchical
    /// topologies; None when it would not leave the minimal route.
    fn intermediate(&self, q: &RouteQuery) -> Option<(u32, Target)> {
        if q.router == q.dst_router {
            return None;
        }
        match &self.hierarchy {
            Some(h) => {
                let via = q.random % h.groups;
                let (src_g, dst_g) = (h.group[q.router as usize], h.group[q.dst_router as usize]);
                (via != src_g && via != dst_g).then_some((via, Target::Group(via)))
            }
            None => {
                let via = q.random % self.routers as u32;
                (via != q.router && via != q.dst_router).then_some((via, Target::Router(via)))
            }
        }
    }

    fn reached(&self, router: u32, via: u32) -> bool {
        match &self.hierarchy {
            Some(h) => h.group[router as usize] == via,
            None => router == via,
        }
    }
}

impl RoutingFunction for MinimalTable {
    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        let vc = if q.injected {
            0
        } else {
            u32::from(q.in_vc) + 1
        };
        let mut state = q.state;
        if q.injected && !matches!(self.scheme, TableScheme::Minimal { .. }) {
            match (self.scheme, self.intermediate(q)) {
                (TableScheme::Valiant, Some((via, _))) => {
                    state = RouteState { phase: 0, via };
                }
                (TableScheme::UgalL, Some((via, via_target))) => {
                    let minimal = RouteState {
                        phase: 1,
                        via: NO_VIA,
                    };
                    let dst = Target::Router(q.dst_router);
                    let h_min = self.hops_to(q.router, dst);
                    // Through the intermediate: there, then about a minimal route's length on.
                    let h_val = self
                        .hops_to(q.router, via_target)
                        .saturating_add(h_min.max(1));
                    let half = Candidates::CAPACITY / 2;
                    let spread = Pick::Digit {
                        value: q.dst,
                        hop: vc,
                    };
                    self.toward(q.router, dst, vc, minimal, h_min, spread, true, half, out);
                    let valiant = RouteState { phase: 0, via };
                    self.toward(
                        q.router, via_target, vc, valiant, h_val, spread, true, half, out,
                    );
                    return;
                }
                _ => {}
            }
        }
        if state.via != NO_VIA && self.reached(q.router, state.via) {
            state = RouteState {
                phase: 1,
                via: NO_VIA,
            };
        }
        let target = match (&self.hierarchy, state.via) {
            (_, NO_VIA) => Target::Router(q.dst_router),
            (Some(_), via) => Target::Group(via),
            (None, via) => Target::Router(via),
        };
        if let Target::Router(d) = target {
            if q.router == d {
                out.push(Candidate::keep(q.dst_port, self.all_vcs, state));
                return;
            }
        }
        let by_destination = Pick::Digit {
            value: q.dst,
            hop: vc,
        };
        let (pick, all) = match self.scheme {
            // Mix in the router so that each hop picks afresh.
            TableScheme::Minimal {
                selection: Selection::Random,
            } => (
                Pick::Random(q.random ^ q.router.wrapping_mul(0x9e37_79b9)),
                false,
            ),
            TableScheme::Minimal {
                selection: Selection::Destination,
            } => (by_destination, false),
            _ => (by_destination, true),
        };
        let hops = self.hops_to(q.router, target);
        self.toward(
            q.router,
            target,
            vc,
            state,
            hops,
            pick,
            all,
            Candidates::CAPACITY,
            out,
        );
    }
}
