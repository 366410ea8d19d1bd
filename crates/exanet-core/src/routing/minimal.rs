//! Table-driven routing on any topology, from an all-pairs distance table: minimal (adaptive
//! among all ports one hop closer, or one of them by the packet's random bits, or by its
//! destination: D-mod-k on fat-trees), Valiant (minimal to a random intermediate, then minimal
//! to the destination), UGAL-L (at the source, the minimal or the Valiant way, whichever has
//! the smaller queued bytes x hops on its first link), PAR (UGAL-L, decided once more after the
//! first local hop) and the Fishnet-tailored adaptive scheme.
//!
//! On dragonflies and Fishnets routes are hierarchical: a minimal route crosses one global link
//! (local hops to a gateway into the destination's group, the link, local hops there) and
//! Valiant's intermediate is a group. Elsewhere minimal means the graph's shortest paths.
//!
//! Deadlock freedom comes from VC classes whose index never decreases along a route and rises
//! on every hop that could close a cycle:
//! - flat topologies: class i carries hop i (as many classes as the longest route);
//! - hierarchical ones: a block of classes per phase (global links taken so far), and inside a
//!   block one class per local hop in the current group; a global link keeps the class of the
//!   last local hop and the next hop starts the next block (2 blocks for minimal, 3 for
//!   Valiant, UGAL-L and the Fishnet scheme, one extra class for PAR's source group: 2, 3 and
//!   4 VCs on an all-to-all dragonfly).
//!
//! Spare VCs are shared out among the classes, so every VC is used.

use super::distance::{self, Distances, GroupDistances, Metric};
use super::{Candidate, Candidates, RouteQuery, RouteState, RoutingFunction, NO_VIA};
use crate::config::Selection;
use crate::error::ConfigError;
use crate::topology::{Peer, Shape, Topology};

/// Which ways a packet may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableScheme {
    Minimal {
        selection: Selection,
    },
    Valiant,
    UgalL,
    /// UGAL-G: UGAL-L's ways, weighed by the queues along each whole route (the router reads
    /// every router's state: an idealized reference, see `RoutingFunction::global_view`).
    UgalG,
    /// Progressive adaptive routing: UGAL-L at the source, and once more after the first
    /// local hop while the packet is still in its source group.
    Par,
    /// Li et al. (001 §3.1.2): minimal when a gateway into the destination subnet is at most
    /// one hop away (adaptive among those gateways), else Valiant through a subnet whose
    /// gateway is that close.
    FishnetAdaptive,
    /// Dimension order on an express mesh or HyperX (a link class per dimension): minimal
    /// hops in the lowest dimension that differs, one fixed port among them.
    DimensionOrder,
    /// User-given router paths (`with_paths`); minimal where none is given.
    Source,
}

impl TableScheme {
    fn name(self) -> &'static str {
        match self {
            TableScheme::Minimal { .. } => "minimal",
            TableScheme::Valiant => "valiant",
            TableScheme::UgalL => "ugal_l",
            TableScheme::UgalG => "ugal_g",
            TableScheme::Par => "par",
            TableScheme::FishnetAdaptive => "fishnet_adaptive",
            TableScheme::DimensionOrder => "dor",
            TableScheme::Source => "source",
        }
    }

    /// Global links a route may take (hierarchical topologies).
    fn phases(self) -> usize {
        match self {
            TableScheme::Minimal { .. } | TableScheme::DimensionOrder | TableScheme::Source => 2,
            _ => 3,
        }
    }
}

/// `RouteState::phase` of a PAR packet on its minimal way that may still divert.
const PAR_UNDECIDED: u8 = 2;
/// `RouteState::phase` of a packet on its last (minimal) leg.
const FINAL: u8 = 1;
/// `RouteState::phase` of a packet on a user's path (`via` is the path's index).
const ON_PATH: u8 = 3;

/// How VC classes follow a route.
#[derive(Debug, Clone)]
enum ClassPlan {
    /// Class i carries hop i.
    Hops,
    /// Per phase p (global links taken), classes `start[p] .. start[p] + len[p]`, one per local
    /// hop in the current group.
    Phases { start: Vec<u8>, len: Vec<u8> },
    /// Class i carries the i-th hop inside the current dimension (dimension-order routing:
    /// dimensions never repeat, so only hops inside one can close a cycle).
    DimensionHops,
}

pub struct MinimalTable {
    scheme: TableScheme,
    routers: usize,
    /// Hops toward routers with endpoints (hierarchical on families with groups).
    distances: Metric,
    /// Routers with endpoints: Valiant's intermediates on topologies without groups.
    endpoint_routers: Vec<u32>,
    /// Network ports of each router, by port: (port, neighbour).
    neighbours: Vec<Vec<(u16, u32)>>,
    /// Link class of each of those ports.
    classes: Vec<Vec<u16>>,
    /// Every VC: ejection may use any.
    all_vcs: u32,
    plan: ClassPlan,
    /// VCs of each class, and the class of each VC.
    class_vcs: Vec<u32>,
    vc_class: Vec<u8>,
    threshold: f64,
    /// Source routing: the paths, and for each (first, last) router pair the indices of its
    /// paths, sorted by pair.
    paths: Vec<Vec<u32>>,
    paths_by_pair: Vec<((u32, u32), u32)>,
}

impl MinimalTable {
    pub fn new(
        topology: &dyn Topology,
        vcs: u32,
        scheme: TableScheme,
        threshold: f64,
    ) -> Result<Self, ConfigError> {
        let n = topology.num_routers();
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
        let port_classes: Vec<Vec<u16>> = neighbours
            .iter()
            .enumerate()
            .map(|(r, ports)| {
                ports
                    .iter()
                    .map(|&(p, _)| topology.link_class(r as u32, p))
                    .collect()
            })
            .collect();
        let routers = n as usize;
        let endpoint_routers: Vec<u32> = (0..n)
            .filter(|&r| {
                (0..topology.ports_per_router())
                    .any(|p| matches!(topology.peer(r, p), Peer::Endpoint(_)))
            })
            .collect();
        let distances = distance::build(topology, &neighbours, &endpoint_routers, "routing.kind")?;
        let hierarchy = distances.groups();
        let flat = distances.distances();
        let needs_groups = match scheme {
            TableScheme::Par => {
                Some("a dragonfly or Fishnet (PAR diverts inside the source group)")
            }
            TableScheme::FishnetAdaptive => Some(
                "a topology with groups: fishnet, fishnet_lite or a dragonfly (the scheme \
                 chooses among gateways into the destination group)",
            ),
            TableScheme::DimensionOrder => Some(
                "a torus, mesh, express mesh or HyperX (dimension-order routing needs \
                 dimensions)",
            ),
            _ => None,
        };
        if let Some(expected) = needs_groups {
            let fits = match scheme {
                TableScheme::DimensionOrder => matches!(topology.shape(), Shape::Grid(_)),
                _ => hierarchy.is_some(),
            };
            if !fits {
                return Err(ConfigError::new(
                    "routing.kind",
                    format!("\"{}\" on a {}", scheme.name(), topology.family()),
                    expected,
                ));
            }
        }
        let (plan, class_count) = match (&hierarchy, scheme) {
            // Paths follow hops, whatever the topology.
            (_, TableScheme::Source) => (ClassPlan::Hops, u32::from(flat.diameter())),
            (None, TableScheme::DimensionOrder) => (
                ClassPlan::DimensionHops,
                longest_line(&neighbours, &port_classes),
            ),
            (Some(h), _) => {
                let local = u32::from(h.local_diameter()).max(1);
                let phases = scheme.phases();
                let len: Vec<u8> = (0..phases)
                    .map(|p| (local + u32::from(p == 0 && scheme == TableScheme::Par)) as u8)
                    .collect();
                let start: Vec<u8> = len
                    .iter()
                    .scan(0u8, |at, &l| {
                        let s = *at;
                        *at += l;
                        Some(s)
                    })
                    .collect();
                let total: u32 = len.iter().map(|&l| u32::from(l)).sum();
                (ClassPlan::Phases { start, len }, total)
            }
            (None, TableScheme::Minimal { .. }) => (ClassPlan::Hops, u32::from(flat.diameter())),
            // Any router with endpoints may be the intermediate: twice the diameter.
            (None, _) => (ClassPlan::Hops, 2 * u32::from(flat.diameter())),
        };
        let classes = class_count.max(1);
        if vcs < classes {
            let why = match plan {
                ClassPlan::Hops => format!(
                    "VC i carries hop i, which keeps the channel-dependency graph acyclic, and \
                     the longest path has {classes} hops"
                ),
                ClassPlan::Phases { .. } => format!(
                    "a block of VCs per global link taken ({} blocks), one VC per local hop \
                     inside a group, keeps the channel-dependency graph acyclic",
                    scheme.phases()
                ),
                ClassPlan::DimensionHops => format!(
                    "VC i carries the i-th hop inside a dimension, and the longest minimal \
                     route inside one dimension has {classes} hops"
                ),
            };
            let torus_hint = if topology.coordinates().is_some() {
                "; on a torus or mesh, routing.escape = \"dor\" or \"bubble\" needs 2-3 VCs"
            } else {
                ""
            };
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!(
                    "at least {classes} VCs for {} routing on this {}: {why}{torus_hint}",
                    scheme.name(),
                    topology.family()
                ),
            ));
        }
        let (class_vcs, vc_class) = share_vcs(classes, vcs);
        Ok(MinimalTable {
            scheme,
            routers,
            endpoint_routers,
            neighbours,
            classes: port_classes,
            all_vcs: if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 },
            distances,
            plan,
            class_vcs,
            vc_class,
            threshold,
            paths: Vec::new(),
            paths_by_pair: Vec::new(),
        })
    }

    /// Source routing over `paths` (router lists, first to last), checked against the
    /// topology: consecutive routers must be linked. VC i carries hop i on paths too, so the
    /// longest path sets the VCs needed.
    pub fn with_paths(mut self, paths: &[Vec<u32>], vcs: u32) -> Result<Self, ConfigError> {
        for (i, path) in paths.iter().enumerate() {
            let bad = |why: String| {
                ConfigError::new(
                    &format!("routing.paths[{i}]"),
                    format!("{path:?}"),
                    format!("a list of at least two routers, each linked to the next: {why}"),
                )
            };
            if path.len() < 2 {
                return Err(bad(format!("{} routers", path.len())));
            }
            if let Some(&r) = path.iter().find(|&&r| r as usize >= self.routers) {
                return Err(bad(format!(
                    "router {r} does not exist (0..{})",
                    self.routers
                )));
            }
            if let Some(w) = path.windows(2).find(|w| {
                !self.neighbours[w[0] as usize]
                    .iter()
                    .any(|&(_, nb)| nb == w[1])
            }) {
                return Err(bad(format!("routers {} and {} are not linked", w[0], w[1])));
            }
        }
        let longest = paths.iter().map(|p| p.len() as u32 - 1).max().unwrap_or(0);
        let classes = (self.class_vcs.len() as u32).max(longest);
        if vcs < classes {
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!(
                    "at least {classes} VCs for source routing: VC i carries hop i, and the \
                     longest path has {longest} hops"
                ),
            ));
        }
        (self.class_vcs, self.vc_class) = share_vcs(classes, vcs);
        self.paths = paths.to_vec();
        self.paths_by_pair = paths
            .iter()
            .enumerate()
            .map(|(i, p)| ((p[0], p[p.len() - 1]), i as u32))
            .collect();
        self.paths_by_pair.sort_unstable();
        Ok(self)
    }
}

/// VCs of each of `classes` classes and the class of each VC: spare VCs go to the classes in
/// turn (class c gets VCs c, c + classes, ...).
fn share_vcs(classes: u32, vcs: u32) -> (Vec<u32>, Vec<u8>) {
    let class_vcs = (0..classes)
        .map(|c| {
            (c..vcs)
                .step_by(classes as usize)
                .fold(0u32, |m, v| m | 1 << v)
        })
        .collect();
    let vc_class = (0..vcs).map(|v| (v % classes) as u8).collect();
    (class_vcs, vc_class)
}

/// The most hops a minimal route takes inside one dimension (link class): the largest
/// distance over the links of one class alone, from every router of router 0's lines.
fn longest_line(neighbours: &[Vec<(u16, u32)>], classes: &[Vec<u16>]) -> u32 {
    let line_bfs = |src: u32, class: u16| -> (Vec<u32>, u32) {
        let mut seen = vec![src];
        let mut frontier = vec![src];
        let mut depth = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &r in &frontier {
                for (&(_, nb), &c) in neighbours[r as usize].iter().zip(&classes[r as usize]) {
                    if c == class && !seen.contains(&nb) {
                        seen.push(nb);
                        next.push(nb);
                    }
                }
            }
            if !next.is_empty() {
                depth += 1;
            }
            frontier = next;
        }
        (seen, depth)
    };
    let mut longest = 0;
    let mut line_classes: Vec<u16> = classes.iter().flatten().copied().collect();
    line_classes.sort_unstable();
    line_classes.dedup();
    for class in line_classes {
        let (line, _) = line_bfs(0, class);
        for r in line {
            longest = longest.max(line_bfs(r, class).1);
        }
    }
    longest
}

thread_local! {
    /// The ports one hop closer, gathered once per routing decision (a router may have more
    /// than a candidate list holds).
    static CLOSER_PORTS: std::cell::RefCell<Vec<(u16, u32)>> = const { std::cell::RefCell::new(Vec::new()) };
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

/// Where a packet stands in its VC classes: the global links it has taken (phase) and the
/// local hops it has taken in its current group, or the hops so far (flat plans).
#[derive(Clone, Copy)]
struct Position {
    phase: usize,
    taken: usize,
}

impl MinimalTable {
    fn hierarchy(&self) -> Option<&GroupDistances> {
        self.distances.groups()
    }

    fn group(&self, router: u32) -> Option<u32> {
        self.hierarchy().map(|h| h.group[router as usize])
    }

    fn port_index(&self, router: u32, port: u16) -> Option<usize> {
        self.neighbours[router as usize]
            .binary_search_by_key(&port, |&(p, _)| p)
            .ok()
    }

    fn neighbour(&self, router: u32, port: u16) -> Option<u32> {
        self.port_index(router, port)
            .map(|i| self.neighbours[router as usize][i].1)
    }

    fn port_class(&self, router: u32, port: u16) -> Option<u16> {
        self.port_index(router, port)
            .map(|i| self.classes[router as usize][i])
    }

    fn position(&self, q: &RouteQuery) -> Position {
        if q.injected {
            return Position { phase: 0, taken: 0 };
        }
        let class = usize::from(self.vc_class[usize::from(q.in_vc)]);
        match &self.plan {
            ClassPlan::Hops => Position {
                phase: 0,
                taken: class + 1,
            },
            // The dimension the packet travels in, and its hops there so far.
            ClassPlan::DimensionHops => Position {
                phase: usize::from(self.port_class(q.router, q.in_port).unwrap_or(u16::MAX)),
                taken: class + 1,
            },
            ClassPlan::Phases { start, .. } => {
                let phase = start
                    .iter()
                    .rposition(|&s| usize::from(s) <= class)
                    .unwrap_or(0);
                let came_global = self
                    .neighbour(q.router, q.in_port)
                    .is_some_and(|from| self.group(from) != self.group(q.router));
                if came_global {
                    Position {
                        phase: phase + 1,
                        taken: 0,
                    }
                } else {
                    Position {
                        phase,
                        taken: class - usize::from(start[phase]) + 1,
                    }
                }
            }
        }
    }

    /// The VCs of the hop from `router` through `port` to `next` for a packet at `at`.
    fn hop_vcs(&self, at: Position, router: u32, port: u16, next: u32) -> u32 {
        let class = match &self.plan {
            ClassPlan::Hops => at.taken,
            ClassPlan::DimensionHops => {
                let same = self.port_class(router, port).map(usize::from) == Some(at.phase);
                if same {
                    at.taken
                } else {
                    0
                }
            }
            ClassPlan::Phases { start, len } => {
                let phase = at.phase.min(start.len() - 1);
                let last = usize::from(len[phase]) - 1;
                let global = self.group(next) != self.group(router);
                usize::from(start[phase]) + if global { at.taken.min(last) } else { at.taken }
            }
        };
        self.class_vcs[class.min(self.class_vcs.len() - 1)]
    }

    /// Hops left from `router` to `target`.
    fn hops_to(&self, router: u32, target: Target) -> u8 {
        match (self.hierarchy(), target) {
            (_, Target::Router(d)) => self.distances.distances().hops(router, d),
            (Some(h), Target::Group(g)) => h.hops_to_group(router, g),
            (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
        }
    }

    /// Whether a hop from `router` to a neighbour brings a packet one hop closer to `target`:
    /// where the router stands is found once (`here`: its hops to `target`, when known), each
    /// neighbour is compared with it.
    fn closer(&self, router: u32, target: Target, here: Option<u8>) -> impl Fn(u32) -> bool + '_ {
        let hierarchy = self.hierarchy();
        let own = self.group(router);
        let want = match (hierarchy, target) {
            (Some(_), _) => here
                .unwrap_or_else(|| self.hops_to(router, target))
                .wrapping_sub(1),
            (None, Target::Router(d)) => self
                .distances
                .distances()
                .one_closer(self.distances.distances().standing(router, d)),
            (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
        };
        move |nb: u32| match (hierarchy, target) {
            (None, Target::Router(d)) => self.distances.distances().standing(nb, d) == want,
            (None, Target::Group(_)) => false,
            (Some(h), Target::Router(d)) => {
                let g = h.group[nb as usize];
                (Some(g) == own || g == h.group[d as usize]) && h.hops(nb, d) == want
            }
            (Some(h), Target::Group(g)) => {
                let nb_group = h.group[nb as usize];
                nb_group == g || (Some(nb_group) == own && h.hops_to_group(nb, g) == want)
            }
        }
    }

    /// Pushes the ports one hop closer to `target`: the one `pick` names, then (`all`, adaptive)
    /// the others, so that among equally free ports an adaptive router takes the oblivious
    /// choice. The candidates carry `hops` (None: the hops to `target`).
    #[allow(clippy::too_many_arguments)]
    fn toward(
        &self,
        at: Position,
        router: u32,
        target: Target,
        (next, hops): (RouteState, Option<u8>),
        pick: Pick,
        all: bool,
        limit: usize,
        out: &mut Candidates,
    ) {
        let ports: &[(u16, u32)] = &self.neighbours[router as usize];
        // More closer ports than a candidate list holds (a fat-tree leaf going up): start at a
        // target-dependent offset so that different targets use different ports.
        let start = match target {
            Target::Router(t) | Target::Group(t) => (t as usize).wrapping_mul(0x9e37_79b9),
        } % ports.len().max(1);
        // Hops to the target: the candidates' unless given, and the router's standing on
        // topologies with groups.
        let here =
            (hops.is_none() || self.hierarchy().is_some()).then(|| self.hops_to(router, target));
        let hops = hops.or(here).expect("computed when not given");
        let is_closer = self.closer(router, target, here);
        CLOSER_PORTS.with_borrow_mut(|options| {
            // Each port is judged once, in the rotated order.
            options.clear();
            options.extend(
                ports[start..]
                    .iter()
                    .chain(&ports[..start])
                    .filter(|&&(_, nb)| is_closer(nb)),
            );
            // Dimension order: only the lowest dimension (link class) that still differs.
            if self.scheme == TableScheme::DimensionOrder {
                let lowest = options
                    .iter()
                    .filter_map(|&(p, _)| self.port_class(router, p))
                    .min();
                options.retain(|&(p, _)| self.port_class(router, p) == lowest);
            }
            let count = options.len();
            let picked = pick.index(count);
            let first = out.as_slice().len();
            let taken = if all { count } else { 1 };
            for &(port, nb) in options.iter().cycle().skip(picked).take(taken) {
                out.push(Candidate {
                    port,
                    vc_mask: self.hop_vcs(at, router, port, nb),
                    next,
                    hops,
                });
                if out.as_slice().len() - first == limit {
                    return;
                }
            }
        });
    }

    /// Valiant's intermediate for a packet at its source: a router, or a group on hierarchical
    /// topologies; None when it would not leave the minimal route.
    fn intermediate(&self, q: &RouteQuery) -> Option<(u32, Target)> {
        if q.router == q.dst_router {
            return None;
        }
        match self.hierarchy() {
            Some(h) => {
                let via = q.random % h.groups;
                let (src_g, dst_g) = (h.group[q.router as usize], h.group[q.dst_router as usize]);
                (via != src_g && via != dst_g).then_some((via, Target::Group(via)))
            }
            None => {
                let via = self.endpoint_routers[q.random as usize % self.endpoint_routers.len()];
                (via != q.router && via != q.dst_router).then_some((via, Target::Router(via)))
            }
        }
    }

    /// The Fishnet scheme's intermediate: a random subnet (not the source's or destination's)
    /// whose gateway is at most one local hop away.
    fn near_intermediate(&self, q: &RouteQuery, h: &GroupDistances) -> Option<u32> {
        let (src_g, dst_g) = (h.group[q.router as usize], h.group[q.dst_router as usize]);
        let near = |g: &u32| *g != src_g && *g != dst_g && h.hops_to_group(q.router, *g) <= 2;
        let count = (0..h.groups).filter(near).count() as u32;
        (count > 0).then(|| {
            (0..h.groups)
                .filter(near)
                .nth((q.random % count) as usize)
                .expect("the count-th near subnet exists")
        })
    }

    fn reached(&self, router: u32, via: u32) -> bool {
        match self.hierarchy() {
            Some(h) => h.group[router as usize] == via,
            None => router == via,
        }
    }

    /// UGAL's choice: the minimal ways (carrying `minimal`) and the ways toward `via`, each
    /// weighed by its hops (the router's selection compares queued bytes x hops).
    fn weigh(
        &self,
        at: Position,
        q: &RouteQuery,
        minimal: RouteState,
        (via, via_target): (u32, Target),
        out: &mut Candidates,
    ) {
        let half = Candidates::CAPACITY / 2;
        let spread = self.by_destination(q, at);
        let dst = Target::Router(q.dst_router);
        let minimal_hops = self.hops_to(q.router, dst);
        self.toward(
            at,
            q.router,
            dst,
            (minimal, Some(minimal_hops)),
            spread,
            true,
            half,
            out,
        );
        // Through the intermediate: there, then about a minimal route's length on.
        let valiant_hops = self
            .hops_to(q.router, via_target)
            .saturating_add(minimal_hops.max(1));
        let valiant = RouteState { phase: 0, via };
        self.toward(
            at,
            q.router,
            via_target,
            (valiant, Some(valiant_hops)),
            spread,
            true,
            half,
            out,
        );
    }

    fn by_destination(&self, q: &RouteQuery, at: Position) -> Pick {
        Pick::Digit {
            value: q.dst,
            hop: (at.phase + at.taken) as u32,
        }
    }

    /// The Fishnet scheme at the source: every way through a gateway into the destination
    /// subnet at most one hop away, each weighed by its length; or Valiant through a near
    /// subnet when no gateway is that close.
    fn fishnet_source(
        &self,
        at: Position,
        q: &RouteQuery,
        h: &GroupDistances,
        out: &mut Candidates,
    ) -> Option<RouteState> {
        let dst_g = h.group[q.dst_router as usize];
        if h.group[q.router as usize] == dst_g {
            return None;
        }
        if h.hops_to_group(q.router, dst_g) > 2 {
            return self
                .near_intermediate(q, h)
                .map(|via| RouteState { phase: 0, via });
        }
        let minimal = RouteState {
            phase: FINAL,
            via: NO_VIA,
        };
        for &(port, nb) in &self.neighbours[q.router as usize] {
            let nb_g = h.group[nb as usize];
            let through_gateway = nb_g == dst_g
                || (nb_g == h.group[q.router as usize] && h.hops_to_group(nb, dst_g) == 1);
            if through_gateway && out.as_slice().len() < Candidates::CAPACITY {
                out.push(Candidate {
                    port,
                    vc_mask: self.hop_vcs(at, q.router, port, nb),
                    next: minimal,
                    hops: h.hops(nb, q.dst_router).saturating_add(1),
                });
            }
        }
        Some(minimal)
    }
}

impl RoutingFunction for MinimalTable {
    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn global_view(&self) -> bool {
        self.scheme == TableScheme::UgalG
    }

    fn state_bytes(&self) -> u64 {
        let lists = self.neighbours.len() * 2 * std::mem::size_of::<Vec<u8>>();
        let ports: usize = self.neighbours.iter().map(Vec::len).sum();
        let paths: usize = self.paths.iter().map(|p| p.len() * 4 + 24).sum();
        self.distances.distances().bytes()
            + (lists + ports * (8 + 2) + self.endpoint_routers.len() * 4 + paths) as u64
            + (self.paths_by_pair.len() * 12) as u64
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        let at = self.position(q);
        let mut state = q.state;
        let minimal = |phase| RouteState { phase, via: NO_VIA };
        if self.scheme == TableScheme::Source {
            if q.injected {
                let pair = (q.router, q.dst_router);
                let from = self.paths_by_pair.partition_point(|&(p, _)| p < pair);
                let count = self.paths_by_pair[from..]
                    .iter()
                    .take_while(|&&(p, _)| p == pair)
                    .count();
                if count > 0 {
                    let (_, path) = self.paths_by_pair[from + q.random as usize % count];
                    state = RouteState {
                        phase: ON_PATH,
                        via: path,
                    };
                }
            }
            if state.phase == ON_PATH {
                let path = &self.paths[state.via as usize];
                match path.get(at.taken + 1) {
                    Some(&next) => {
                        for &(port, nb) in &self.neighbours[q.router as usize] {
                            if nb == next && out.as_slice().len() < Candidates::CAPACITY {
                                let vc_mask = self.hop_vcs(at, q.router, port, nb);
                                out.push(Candidate::keep(port, vc_mask, state));
                            }
                        }
                    }
                    None => out.push(Candidate::keep(q.dst_port, self.all_vcs, state)),
                }
                return;
            }
        }
        // Decisions at the source, and PAR's second look after one local hop.
        let par_second_look =
            state.phase == PAR_UNDECIDED && !q.injected && at.phase == 0 && at.taken == 1;
        match self.scheme {
            TableScheme::Valiant if q.injected => {
                if let Some((via, _)) = self.intermediate(q) {
                    state = RouteState { phase: 0, via };
                }
            }
            TableScheme::UgalL | TableScheme::UgalG if q.injected => {
                if let Some(via) = self.intermediate(q) {
                    return self.weigh(at, q, minimal(FINAL), via, out);
                }
            }
            TableScheme::Par if q.injected || par_second_look => {
                let undecided = if q.injected { PAR_UNDECIDED } else { FINAL };
                if let Some(via) = self.intermediate(q) {
                    return self.weigh(at, q, minimal(undecided), via, out);
                }
                state = minimal(FINAL);
            }
            TableScheme::FishnetAdaptive if q.injected => {
                let h = self.hierarchy().expect("checked at build");
                match self.fishnet_source(at, q, h, out) {
                    Some(s) if s.via == NO_VIA => return,
                    Some(s) => state = s,
                    None => {}
                }
            }
            _ => {}
        }
        if state.via != NO_VIA && self.reached(q.router, state.via) {
            state = minimal(FINAL);
        }
        let target = match (self.hierarchy(), state.via) {
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
        let by_destination = self.by_destination(q, at);
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
            }
            | TableScheme::DimensionOrder => (by_destination, false),
            _ => (by_destination, true),
        };
        self.toward(
            at,
            q.router,
            target,
            (state, None),
            pick,
            all,
            Candidates::CAPACITY,
            out,
        );
    }
}
