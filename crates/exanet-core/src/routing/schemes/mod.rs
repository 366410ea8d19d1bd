//! Routing schemes that follow minimal routes toward a target (the destination, or a Valiant
//! intermediate), on any topology: the shared machinery, [`Paths`], and one file per scheme,
//! each a [`Scheme`] that says what it decides at the source and how a router picks among the
//! ports one hop closer. Distances come from the topology's shape (`routing::distance`).
//!
//! On topologies with groups (dragonflies, Fishnets) routes are hierarchical: a minimal route
//! crosses one global link (local hops to a gateway into the destination's group, the link,
//! local hops there) and Valiant's intermediate is a group. Elsewhere minimal means the graph's
//! shortest paths, and Valiant's intermediate is a router with endpoints.
//!
//! Deadlock freedom comes from VC classes whose index never decreases along a route and rises
//! on every hop that could close a cycle; how many a route needs follows from the topology's
//! structure (its distances), never from its family's name:
//! - up*/down* shapes (fat-trees: every minimal route climbs, then descends): class i carries
//!   leg i (1 class for minimal, 2 for Valiant and UGAL), since the hops of one minimal leg
//!   close no cycle;
//! - hierarchical ones: a block of classes per phase (global links taken so far), and inside a
//!   block one class per local hop in the current group; a global link keeps the class of the
//!   last local hop and the next hop starts the next block (2 blocks for minimal, 3 for
//!   Valiant, UGAL-L and the Fishnet scheme, one extra class for PAR's source group: 2, 3 and
//!   4 VCs on an all-to-all dragonfly);
//! - any other graph: class i carries hop i (as many classes as the longest route).
//!
//! Spare VCs are shared out among the classes, so every VC is used (all of them with one
//! class).

mod dimension_order;
mod fishnet;
mod minimal;
mod par;
mod source;
mod ugal;
mod valiant;

pub use dimension_order::DimensionOrderOnLines;
pub use fishnet::FishnetAdaptive;
pub use minimal::Minimal;
pub use par::Par;
pub use source::Source;
pub use ugal::Ugal;
pub use valiant::Valiant;

use super::distance::{self, Distances, GroupDistances, HopsToward, Metric, Standings};
use super::{set_bits, Candidate, Candidates, RouteQuery, RouteState, RoutingFunction, NO_VIA};
use crate::error::ConfigError;
use crate::topology::{Peer, Shape, Topology};

/// `RouteState::phase` of a packet on its last (minimal) leg.
pub(super) const FINAL: u8 = 1;

/// What a scheme needs of the topology.
pub enum Needs {
    Anything,
    /// Groups (the error says so with this text).
    Groups(&'static str),
    /// A grid (dimensions).
    Grid(&'static str),
}

/// How a router picks among the ports one hop closer.
#[derive(Clone, Copy)]
pub struct Choice {
    /// The oblivious pick (the first candidate).
    pub pick: Pick,
    /// Whether every closer port is a candidate (adaptive), after the pick.
    pub all: bool,
    /// Dimension order: only ports of the lowest dimension (link class) that still differs.
    pub lowest_dimension: bool,
    /// At most this many candidates.
    pub limit: usize,
}

impl Choice {
    /// Every closer port, `pick` first.
    pub fn every(pick: Pick) -> Self {
        Choice {
            pick,
            all: true,
            lowest_dimension: false,
            limit: Candidates::CAPACITY,
        }
    }

    /// The closer port `pick` names, alone.
    pub fn one(pick: Pick) -> Self {
        Choice {
            pick,
            all: false,
            lowest_dimension: false,
            limit: Candidates::CAPACITY,
        }
    }
}

/// A routing scheme over [`Paths`]: one file each, registered in `routing::build`.
pub trait Scheme: Send + Sync + 'static {
    /// The name `routing.kind` gives it.
    fn name(&self) -> &'static str;

    /// What it needs of the topology.
    fn needs(&self) -> Needs {
        Needs::Anything
    }

    /// Checks its own parameters against the topology's routers and links.
    fn prepare(&mut self, _paths: &Paths) -> Result<(), ConfigError> {
        Ok(())
    }

    /// The VC classes that keep its routes deadlock-free, and how many.
    fn plan(&self, paths: &Paths) -> (ClassPlan, u32) {
        paths.standard_plan(3, false, 2)
    }

    /// Its decision before the packet heads on toward its target: pushes the candidates itself
    /// (returns true), or changes the packet's state (an intermediate), or leaves it.
    fn decide(
        &self,
        _paths: &Paths,
        _at: Position,
        _q: &RouteQuery,
        _state: &mut RouteState,
        _out: &mut Candidates,
    ) -> bool {
        false
    }

    /// How a router picks among the ports one hop closer to the target.
    fn choice(&self, paths: &Paths, at: Position, q: &RouteQuery) -> Choice {
        Choice::every(paths.by_destination(q, at))
    }

    /// See [`RoutingFunction::global_view`].
    fn global_view(&self) -> bool {
        false
    }

    /// See [`RoutingFunction::minimal_routes`].
    fn minimal_routes(&self) -> bool {
        false
    }

    /// Bytes of its own state (user paths).
    fn state_bytes(&self) -> u64 {
        0
    }

    /// See [`RoutingFunction::distinct_draws`].
    fn distinct_draws(&self, _paths: &Paths) -> u32 {
        1
    }
}

/// How VC classes follow a route.
#[derive(Debug, Clone)]
pub enum ClassPlan {
    /// Class i carries hop i.
    Hops,
    /// Class i carries leg i (minimal to the intermediate, then to the destination): on
    /// up*/down* shapes, where the minimal hops toward one target close no cycle.
    Legs,
    /// Per phase p (global links taken), classes `start[p] .. start[p] + len[p]`, one per local
    /// hop in the current group.
    Phases { start: Vec<u8>, len: Vec<u8> },
    /// Class i carries the i-th hop inside the current dimension (dimension-order routing:
    /// dimensions never repeat, so only hops inside one can close a cycle).
    DimensionHops,
}

/// The routes of a topology: its routers' ports, distances toward targets, and the VC classes
/// a scheme's plan assigns.
pub struct Paths {
    routers: usize,
    /// Hops toward routers with endpoints (hierarchical on families with groups).
    distances: Metric,
    /// Routers with endpoints: Valiant's intermediates on topologies without groups.
    endpoint_routers: Vec<u32>,
    /// Each endpoint's place in its plane's router order, where it is not its number
    /// (`Topology::endpoint_position`; empty elsewhere).
    endpoint_positions: Vec<u32>,
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
    /// Under a plan by phases, the phase whose block holds each class.
    class_phase: Vec<u8>,
}

impl Paths {
    fn new(topology: &dyn Topology) -> Result<Self, ConfigError> {
        let n = topology.num_routers();
        let neighbours = distance::network_neighbours(topology);
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
        let mut endpoint_positions: Vec<u32> = (0..topology.num_endpoints())
            .map(|e| topology.endpoint_position(e))
            .collect();
        if endpoint_positions
            .iter()
            .enumerate()
            .all(|(e, &p)| e as u32 == p)
        {
            endpoint_positions = Vec::new();
        }
        Ok(Paths {
            routers,
            distances,
            endpoint_routers,
            endpoint_positions,
            neighbours,
            classes: port_classes,
            all_vcs: 0,
            plan: ClassPlan::Hops,
            class_vcs: Vec::new(),
            vc_class: Vec::new(),
            class_phase: Vec::new(),
        })
    }

    /// The usual plan: on topologies with groups, `phases` blocks of one class per local hop
    /// (one more in the source group's block with `source_group_extra`); on up*/down* shapes
    /// a class per each of `legs` minimal legs; elsewhere class i carries hop i, over `legs`
    /// minimal legs of at most the diameter each.
    pub fn standard_plan(
        &self,
        phases: usize,
        source_group_extra: bool,
        legs: u32,
    ) -> (ClassPlan, u32) {
        match self.hierarchy() {
            Some(h) => {
                let local = u32::from(h.local_diameter()).max(1);
                let len: Vec<u8> = (0..phases)
                    .map(|p| (local + u32::from(p == 0 && source_group_extra)) as u8)
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
            None if self.up_down() => (ClassPlan::Legs, legs),
            None => (
                ClassPlan::Hops,
                legs * u32::from(self.distances.distances().diameter()),
            ),
        }
    }

    /// Whether every minimal route climbs, then descends (a tree's levels, see
    /// [`Distances::level`]).
    fn up_down(&self) -> bool {
        self.distances.distances().level(0).is_some()
    }

    /// The largest hop distance between routers with endpoints.
    pub fn diameter(&self) -> u8 {
        self.distances.distances().diameter()
    }

    pub fn routers(&self) -> usize {
        self.routers
    }

    /// How many Valiant intermediates there are (groups, or routers with endpoints): the
    /// intermediate is the packet's random bits modulo this.
    pub fn intermediates(&self) -> u32 {
        match self.hierarchy() {
            Some(h) => h.groups,
            None => self.endpoint_routers.len() as u32,
        }
    }

    /// The most network ports of a router: an oblivious random pick among closer ports is
    /// the random bits modulo at most this.
    pub fn widest(&self) -> u32 {
        self.neighbours.iter().map(Vec::len).max().unwrap_or(1) as u32
    }

    /// The network ports of `router`: (port, neighbour).
    pub fn ports(&self, router: u32) -> &[(u16, u32)] {
        &self.neighbours[router as usize]
    }

    /// Whether routers `a` and `b` are linked.
    pub fn linked(&self, a: u32, b: u32) -> bool {
        self.neighbours[a as usize].iter().any(|&(_, nb)| nb == b)
    }

    /// Takes `plan` with `classes` classes over `vcs` VCs, or says how many VCs it needs.
    fn assign_vcs(
        &mut self,
        topology: &dyn Topology,
        name: &str,
        (plan, class_count): (ClassPlan, u32),
        vcs: u32,
    ) -> Result<(), ConfigError> {
        let classes = class_count.max(1);
        if vcs < classes {
            let why = match plan {
                ClassPlan::Hops => format!(
                    "VC i carries hop i, which keeps the channel-dependency graph acyclic, and \
                     the longest path has {classes} hops"
                ),
                ClassPlan::Legs => format!(
                    "a VC per leg of a route ({classes}: to the intermediate, then to the \
                     destination) keeps the channel-dependency graph acyclic, since every \
                     minimal route climbs, then descends"
                ),
                ClassPlan::Phases { .. } => format!(
                    "a block of VCs per global link taken ({} blocks), one VC per local hop \
                     inside a group, keeps the channel-dependency graph acyclic",
                    match &plan {
                        ClassPlan::Phases { start, .. } => start.len(),
                        _ => 0,
                    }
                ),
                ClassPlan::DimensionHops => format!(
                    "VC i carries the i-th hop inside a dimension, and the longest minimal \
                     route inside one dimension has {classes} hops"
                ),
            };
            let torus_hint = if topology.coordinates().is_some() {
                "; on a torus or mesh, routing.escape = \"dor\" or \"bubble\" needs 2-3 VCs"
            } else if topology.midimew().is_some() {
                "; on a midimew, routing.escape = \"bubble\" needs 2 VCs"
            } else {
                ""
            };
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!(
                    "at least {classes} VCs for {} routing on this {}: {why}{torus_hint}",
                    name,
                    topology.family()
                ),
            ));
        }
        (self.class_vcs, self.vc_class) = share_vcs(classes, vcs);
        self.class_phase = match &plan {
            ClassPlan::Phases { start, .. } => (0..classes)
                .map(|class| {
                    start
                        .iter()
                        .rposition(|&s| u32::from(s) <= class)
                        .unwrap_or(0) as u8
                })
                .collect(),
            _ => Vec::new(),
        };
        self.all_vcs = if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 };
        self.plan = plan;
        Ok(())
    }

    fn state_bytes(&self) -> u64 {
        let lists = self.neighbours.len() * 2 * std::mem::size_of::<Vec<u8>>();
        let ports: usize = self.neighbours.iter().map(Vec::len).sum();
        self.distances.distances().bytes()
            + (lists
                + ports * (8 + 2)
                + (self.endpoint_routers.len() + self.endpoint_positions.len()) * 4)
                as u64
    }
}

/// A scheme's routing function over the paths of a topology.
pub struct SchemeRouting<S: Scheme> {
    paths: Paths,
    scheme: S,
    threshold: f64,
}

/// Routing by `scheme` on `topology` with `vcs` VCs, or why it does not apply.
pub fn build<S: Scheme>(
    topology: &dyn Topology,
    vcs: u32,
    mut scheme: S,
    threshold: f64,
) -> Result<Box<dyn RoutingFunction>, ConfigError> {
    let refuse = |expected: &str| {
        ConfigError::new(
            "routing.kind",
            format!("\"{}\" on a {}", scheme.name(), topology.family()),
            expected,
        )
    };
    if let Needs::Grid(expected) = scheme.needs() {
        if !matches!(topology.shape(), Shape::Grid(_)) {
            return Err(refuse(expected));
        }
    }
    let mut paths = Paths::new(topology)?;
    if let Needs::Groups(expected) = scheme.needs() {
        if paths.hierarchy().is_none() {
            return Err(refuse(expected));
        }
    }
    scheme.prepare(&paths)?;
    let plan = scheme.plan(&paths);
    paths.assign_vcs(topology, scheme.name(), plan, vcs)?;
    Ok(Box::new(SchemeRouting {
        paths,
        scheme,
        threshold,
    }))
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

/// Appends to `options` the ports whose neighbour `admits`, from `start` on, then those before
/// it.
#[inline(always)]
fn gather_closer(
    options: &mut Vec<(u16, u32)>,
    ports: &[(u16, u32)],
    start: usize,
    admits: impl Fn(u32) -> bool,
) {
    for part in [&ports[start..], &ports[..start]] {
        for &(port, neighbour) in part {
            if admits(neighbour) {
                options.push((port, neighbour));
            }
        }
    }
}

/// How an oblivious route picks one of `options` ports one hop closer.
#[derive(Clone, Copy)]
pub enum Pick {
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

/// Which neighbours of a router are one hop closer to a target (see [`Paths::closer`]).
pub enum Closer<'a> {
    /// Toward a router, through groups: a neighbour in the router's group or the target's.
    Router { toward: HopsToward<'a>, want: u8 },
    /// Toward a group: a neighbour in it, or one of the router's group nearer to it.
    Group {
        distances: &'a GroupDistances,
        own: u32,
        group: u32,
        want: u8,
    },
    /// Toward a router on a graph: by its row of standings.
    Row { standings: Standings<'a>, want: u8 },
    /// Toward a router, on other shapes: by standing.
    Flat {
        distances: &'a dyn Distances,
        to: u32,
        want: u8,
    },
}

impl Closer<'_> {
    #[inline]
    pub fn admits(&self, neighbour: u32) -> bool {
        match *self {
            Closer::Router { ref toward, want } => toward.from(neighbour) == Some(want),
            Closer::Group {
                distances,
                own,
                group,
                want,
            } => {
                let at = distances.group[neighbour as usize];
                at == group || (at == own && distances.hops_to_group(neighbour, group) == want)
            }
            Closer::Row { standings, want } => standings.of(neighbour) == want,
            Closer::Flat {
                distances,
                to,
                want,
            } => distances.standing(neighbour, to) == want,
        }
    }
}

/// Where a packet heads next.
#[derive(Clone, Copy)]
pub enum Target {
    Router(u32),
    /// Any router of a group (hierarchical Valiant's intermediate).
    Group(u32),
}

/// Where a packet stands in its VC classes: the global links it has taken (phase) and the
/// local hops it has taken in its current group; or its leg (phase) and its router's level,
/// the hops a leg from a leaf has climbed (up*/down* shapes); or the hops so far (other flat
/// plans).
#[derive(Clone, Copy)]
pub struct Position {
    pub phase: usize,
    pub taken: usize,
}

impl Paths {
    pub fn hierarchy(&self) -> Option<&GroupDistances> {
        self.distances.groups()
    }

    pub fn group(&self, router: u32) -> Option<u32> {
        self.hierarchy().map(|h| h.group[router as usize])
    }

    pub fn port_index(&self, router: u32, port: u16) -> Option<usize> {
        let ports = &self.neighbours[router as usize];
        // Network ports are usually numbered without gaps after the endpoint ports: then a
        // port's place is its distance from the first.
        let guess = usize::from(port.wrapping_sub(ports.first()?.0));
        if ports.get(guess).is_some_and(|&(p, _)| p == port) {
            return Some(guess);
        }
        ports.binary_search_by_key(&port, |&(p, _)| p).ok()
    }

    pub fn neighbour(&self, router: u32, port: u16) -> Option<u32> {
        self.port_index(router, port)
            .map(|i| self.neighbours[router as usize][i].1)
    }

    pub fn port_class(&self, router: u32, port: u16) -> Option<u16> {
        self.port_index(router, port)
            .map(|i| self.classes[router as usize][i])
    }

    pub fn position(&self, q: &RouteQuery) -> Position {
        if q.injected {
            return Position { phase: 0, taken: 0 };
        }
        let class = usize::from(self.vc_class[usize::from(q.in_vc)]);
        match &self.plan {
            ClassPlan::Hops => Position {
                phase: 0,
                taken: class + 1,
            },
            // The leg, and the router's level: the hops a leg from a leaf has climbed.
            ClassPlan::Legs => Position {
                phase: class,
                taken: usize::from(self.distances.distances().level(q.router).unwrap_or(0)),
            },
            // The dimension the packet travels in, and its hops there so far.
            ClassPlan::DimensionHops => Position {
                phase: usize::from(self.port_class(q.router, q.in_port).unwrap_or(u16::MAX)),
                taken: class + 1,
            },
            ClassPlan::Phases { start, .. } => {
                let phase = usize::from(self.class_phase[class]);
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

    /// Where a packet at `at` stands once it reaches its intermediate: plans by leg start the
    /// next leg; the others count on.
    fn next_leg(&self, at: Position) -> Position {
        match self.plan {
            ClassPlan::Legs => Position {
                phase: at.phase + 1,
                ..at
            },
            _ => at,
        }
    }

    /// The VCs of the hop from `router` through `port` to `next` for a packet at `at`.
    pub fn hop_vcs(&self, at: Position, router: u32, port: u16, next: u32) -> u32 {
        self.class_vcs[self.hop_class(at, router, port, next)]
    }

    /// The VCs of a hop toward `target`: [`Self::hop_vcs`], and on topologies with groups,
    /// for a local hop inside the destination's group (no global link left) past the source
    /// router, every higher class too that leaves one class per local hop still to come. Such
    /// hops lead only to ejection or to higher classes, so the channel-dependency graph stays
    /// acyclic; and the classes a scheme keeps for non-minimal routes serve its minimal
    /// traffic there too. Before, UGAL-L on 4 VCs (3 classes) gave its minimal packets one VC
    /// after the global link where minimal routing (2 classes) gives two, and with 128 B
    /// buffers accepted 0.78 of minimal's uniform throughput. The source router's hops keep
    /// their class: UGAL weighs the backlog of the VCs a way offers, and a way offered every
    /// VC would look busier than it is.
    fn toward_vcs(&self, at: Position, router: u32, port: u16, next: u32, target: Target) -> u32 {
        let (ClassPlan::Phases { start, len }, Some(h)) = (&self.plan, self.hierarchy()) else {
            return self.class_vcs[self.hop_class(at, router, port, next)];
        };
        // The two groups read once, for the hop's class and for the test below.
        let group = h.group[router as usize];
        let inside = h.group[next as usize] == group;
        let class = self.phases_class(start, len, at, !inside);
        let mut vcs = self.class_vcs[class];
        if let Target::Router(d) = target {
            // Only a packet at its source stands at (phase 0, no hop taken).
            let at_source = at.phase == 0 && at.taken == 0;
            if !at_source && inside && h.group[d as usize] == group {
                let top = (self.class_vcs.len() - 1).saturating_sub(usize::from(h.local(next, d)));
                for c in class + 1..=top {
                    vcs |= self.class_vcs[c];
                }
            }
        }
        vcs
    }

    /// The class of a hop under a plan by phases, `global` if it takes a global link.
    #[inline]
    fn phases_class(&self, start: &[u8], len: &[u8], at: Position, global: bool) -> usize {
        let phase = at.phase.min(start.len() - 1);
        let last = usize::from(len[phase]) - 1;
        let class = usize::from(start[phase]) + if global { at.taken.min(last) } else { at.taken };
        class.min(self.class_vcs.len() - 1)
    }

    /// The class of the hop from `router` through `port` to `next` for a packet at `at`.
    fn hop_class(&self, at: Position, router: u32, port: u16, next: u32) -> usize {
        let class = match &self.plan {
            ClassPlan::Hops => at.taken,
            ClassPlan::Legs => at.phase,
            ClassPlan::DimensionHops => {
                let same = self.port_class(router, port).map(usize::from) == Some(at.phase);
                if same {
                    at.taken
                } else {
                    0
                }
            }
            ClassPlan::Phases { start, len } => {
                let global = self.group(next) != self.group(router);
                return self.phases_class(start, len, at, global);
            }
        };
        class.min(self.class_vcs.len() - 1)
    }

    /// The network ports of `router` one hop closer to `target` (bits over its network ports
    /// in port order) and its hops there, where a table knows them: on groups and on small
    /// graphs (see `GroupDistances` and `GraphDistances`). Elsewhere each port is judged.
    #[inline]
    pub fn known_closer(&self, router: u32, target: Target) -> Option<(u64, u8)> {
        match (&self.distances, target) {
            (Metric::Groups(h), Target::Router(d)) => h.closer_to_router(router, d),
            (Metric::Groups(h), Target::Group(g)) => h.closer_to_group(router, g),
            (Metric::Graph(graph), Target::Router(d)) => graph.closer_to_router(router, d),
            _ => None,
        }
    }

    /// Hops left from `router` to `target`.
    pub fn hops_to(&self, router: u32, target: Target) -> u8 {
        match (self.hierarchy(), target) {
            (Some(h), Target::Router(d)) => h.hops(router, d),
            (None, Target::Router(d)) => self.distances.distances().hops(router, d),
            (Some(h), Target::Group(g)) => h.hops_to_group(router, g),
            (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
        }
    }

    /// Whether a hop from `router` to a neighbour brings a packet one hop closer to `target`:
    /// where the router stands is found once (`here`: its hops to `target`, when known), and
    /// so is what every neighbour's distance to the target shares; each neighbour is compared.
    pub fn closer(&self, router: u32, target: Target, here: Option<u8>) -> Closer<'_> {
        let here = || here.unwrap_or_else(|| self.hops_to(router, target));
        match (self.hierarchy(), target) {
            (Some(h), Target::Router(d)) => Closer::Router {
                toward: h.toward(d, h.group[router as usize]),
                want: here().wrapping_sub(1),
            },
            (Some(h), Target::Group(group)) => Closer::Group {
                distances: h,
                own: h.group[router as usize],
                group,
                want: here().wrapping_sub(1),
            },
            (None, Target::Router(d)) => match self.distances.graph() {
                Some(graph) => {
                    let standings = graph.standings(d);
                    Closer::Row {
                        standings,
                        want: graph.one_closer(standings.of(router)),
                    }
                }
                None => {
                    let flat = self.distances.distances();
                    Closer::Flat {
                        distances: flat,
                        to: d,
                        want: flat.one_closer(flat.standing(router, d)),
                    }
                }
            },
            (None, Target::Group(_)) => unreachable!("group targets are hierarchical"),
        }
    }

    /// Pushes the ports one hop closer to `target`: the one `choice` picks, then (all, when
    /// adaptive) the others, so that among equally free ports an adaptive router takes the oblivious
    /// choice. The candidates carry `hops` (None: the hops to `target`).
    pub fn toward(
        &self,
        at: Position,
        router: u32,
        target: Target,
        (next, hops): (RouteState, Option<u8>),
        choice: Choice,
        out: &mut Candidates,
    ) {
        let ports: &[(u16, u32)] = &self.neighbours[router as usize];
        // More closer ports than a candidate list holds (a fat-tree leaf going up): start at a
        // target-dependent offset so that different targets use different ports. Found only
        // where several ports are closer (a division).
        let start = || {
            let (Target::Router(t) | Target::Group(t)) = target;
            (t as usize).wrapping_mul(0x9e37_79b9) % ports.len().max(1)
        };
        let known = self.known_closer(router, target);
        // Hops to the target: the candidates' unless given; judging the neighbours one by one
        // on topologies with groups needs them too.
        let here = match (hops, known) {
            (Some(_), _) => None,
            (None, Some((_, here))) => Some(here),
            (None, None) => Some(self.hops_to(router, target)),
        };
        let hops = hops.or(here).expect("computed when not given");
        let candidate = |(port, nb): (u16, u32)| Candidate {
            port,
            vc_mask: self.toward_vcs(at, router, port, nb, target),
            next,
            hops,
        };
        if let Some((mut bits, _)) = known {
            if choice.lowest_dimension {
                // Dimension order: only the lowest dimension (link class) that still differs.
                let classes = &self.classes[router as usize];
                let lowest = set_bits(bits).map(|i| classes[i as usize]).min();
                bits = set_bits(bits)
                    .filter(|&i| Some(classes[i as usize]) == lowest)
                    .fold(0, |kept, i| kept | 1 << i);
            }
            if bits & bits.wrapping_sub(1) == 0 {
                // One closer port (a dragonfly's usual case) or none: nothing to rotate or pick.
                if bits != 0 && choice.limit > 0 {
                    out.push(candidate(ports[bits.trailing_zeros() as usize]));
                }
                return;
            }
            // The table's bits in the rotated order, without a list: rotated right by `start`
            // (a router has at most 64 network ports where a table answers, so `start` < 64),
            // the set bits from `start` on come first, then those below it.
            let start = start();
            let rotated = bits.rotate_right(start as u32);
            let count = rotated.count_ones() as usize;
            let taken = if choice.all { count } else { count.min(1) };
            // From the picked port on, then round to those before it.
            let mut from_pick = rotated;
            for _ in 0..choice.pick.index(count) {
                from_pick &= from_pick - 1;
            }
            let mut left = taken.min(choice.limit);
            for mut part in [from_pick, rotated & !from_pick] {
                while part != 0 && left > 0 {
                    let i = (part.trailing_zeros() as usize + start) % 64;
                    out.push(candidate(ports[i]));
                    part &= part - 1;
                    left -= 1;
                }
            }
            return;
        }
        let start = start();
        CLOSER_PORTS.with_borrow_mut(|options| {
            // In the rotated order.
            options.clear();
            // A graph's row of standings is read in a loop of its own: the test inlined into
            // it, not dispatched on the kind of target for every neighbour.
            match self.closer(router, target, here) {
                Closer::Row { standings, want } => {
                    gather_closer(options, ports, start, |nb| standings.of(nb) == want)
                }
                is_closer => gather_closer(options, ports, start, |nb| is_closer.admits(nb)),
            }
            // Dimension order: only the lowest dimension (link class) that still differs.
            if choice.lowest_dimension {
                let lowest = options
                    .iter()
                    .filter_map(|&(p, _)| self.port_class(router, p))
                    .min();
                options.retain(|&(p, _)| self.port_class(router, p) == lowest);
            }
            let count = options.len();
            let picked = choice.pick.index(count);
            let first = out.as_slice().len();
            let taken = if choice.all { count } else { 1 };
            for &way in options.iter().cycle().skip(picked).take(taken) {
                out.push(candidate(way));
                if out.as_slice().len() - first == choice.limit {
                    return;
                }
            }
        });
    }

    /// Valiant's intermediate for a packet at its source: a router, or a group on hierarchical
    /// topologies; None when it would not leave the minimal route. Valiant draws among all of
    /// them, as defined (drawing its own or the destination's means the minimal route); a
    /// `detour` is drawn among the others, so that UGAL and PAR always weigh a way that
    /// leaves the minimal route: before, under the dragonfly's group shift on 9 groups, 2 of 9
    /// packets had no choice and queued for the one saturated global link.
    pub fn intermediate(&self, q: &RouteQuery, detour: bool) -> Option<(u32, Target)> {
        if q.router == q.dst_router {
            return None;
        }
        let (count, here, there) = match self.hierarchy() {
            Some(h) => (
                h.groups as usize,
                h.group[q.router as usize] as usize,
                h.group[q.dst_router as usize] as usize,
            ),
            None => {
                // A router without endpoints (PAR's second look on an indirect network) is
                // no intermediate, so nothing is excluded for it.
                let index = |r: u32| {
                    self.endpoint_routers
                        .binary_search(&r)
                        .unwrap_or(usize::MAX)
                };
                (
                    self.endpoint_routers.len(),
                    index(q.router),
                    index(q.dst_router),
                )
            }
        };
        let random = q.random as usize;
        let index = if detour {
            // Uniform over the others: draw among them, then step over the excluded ones.
            let (lo, hi) = (here.min(there), here.max(there));
            let distinct_hi = hi != lo && hi < count;
            let choices = count - usize::from(lo < count) - usize::from(distinct_hi);
            if choices == 0 {
                return None;
            }
            let mut k = random % choices;
            if k >= lo {
                k += 1;
            }
            if distinct_hi && k >= hi {
                k += 1;
            }
            k
        } else {
            random % count
        };
        if index == here || index == there {
            return None;
        }
        Some(match self.hierarchy() {
            Some(_) => (index as u32, Target::Group(index as u32)),
            None => {
                let via = self.endpoint_routers[index];
                (via, Target::Router(via))
            }
        })
    }

    pub fn reached(&self, router: u32, via: u32) -> bool {
        match self.hierarchy() {
            Some(h) => h.group[router as usize] == via,
            None => router == via,
        }
    }

    /// UGAL's choice: the minimal ways (carrying `minimal`) and the ways toward `via`, each
    /// weighed by its hops (the router's selection compares queued bytes x hops).
    pub fn weigh(
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
            Choice {
                limit: half,
                ..Choice::every(spread)
            },
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
            Choice {
                limit: half,
                ..Choice::every(spread)
            },
            out,
        );
    }

    pub fn by_destination(&self, q: &RouteQuery, at: Position) -> Pick {
        Pick::Digit {
            value: match self.endpoint_positions.get(q.dst as usize) {
                Some(&position) => position,
                None => q.dst,
            },
            hop: (at.phase + at.taken) as u32,
        }
    }
}

impl<S: Scheme> RoutingFunction for SchemeRouting<S> {
    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn global_view(&self) -> bool {
        self.scheme.global_view()
    }

    fn minimal_routes(&self) -> bool {
        self.scheme.minimal_routes()
    }

    fn state_bytes(&self) -> u64 {
        self.paths.state_bytes() + self.scheme.state_bytes()
    }

    fn distinct_draws(&self) -> u32 {
        self.scheme.distinct_draws(&self.paths)
    }

    fn hops(&self, from: u32, to: u32) -> u32 {
        u32::from(self.paths.hops_to(from, Target::Router(to)))
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        let paths = &self.paths;
        let mut at = paths.position(q);
        let mut state = q.state;
        if self.scheme.decide(paths, at, q, &mut state, out) {
            return;
        }
        if state.via != NO_VIA && paths.reached(q.router, state.via) {
            state = RouteState {
                phase: FINAL,
                via: NO_VIA,
            };
            at = paths.next_leg(at);
        }
        let target = match (paths.hierarchy(), state.via) {
            (_, NO_VIA) => Target::Router(q.dst_router),
            (Some(_), via) => Target::Group(via),
            (None, via) => Target::Router(via),
        };
        if let Target::Router(d) = target {
            if q.router == d {
                out.push(Candidate::keep(q.dst_port, paths.all_vcs, state));
                return;
            }
        }
        let choice = self.scheme.choice(paths, at, q);
        paths.toward(at, q.router, target, (state, None), choice, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyConfig;

    fn paths_of(topology: serde_json::Value) -> Paths {
        let config: TopologyConfig = serde_json::from_value(topology).unwrap();
        Paths::new(crate::topology::build(&config).unwrap().as_ref()).unwrap()
    }

    /// The ports of `router` one hop closer to `target`, judged neighbour by neighbour.
    fn judged(paths: &Paths, router: u32, target: Target) -> u64 {
        let closer = paths.closer(router, target, None);
        paths
            .ports(router)
            .iter()
            .enumerate()
            .filter(|&(_, &(_, nb))| closer.admits(nb))
            .fold(0, |bits, (i, _)| bits | 1 << i)
    }

    /// Checks every table answer against the judgment; returns how many there were and how
    /// many (router, target) pairs had none.
    fn compare(paths: &Paths) -> (usize, usize) {
        let groups = paths.hierarchy().map_or(0, |h| h.groups);
        let (mut known, mut unknown) = (0, 0);
        for router in 0..paths.routers() as u32 {
            let targets = (0..paths.routers() as u32)
                .filter(|&d| d != router)
                .map(Target::Router)
                .chain((0..groups).map(Target::Group));
            for target in targets {
                if matches!(target, Target::Group(g) if paths.group(router) == Some(g)) {
                    continue;
                }
                let table = paths.known_closer(router, target);
                if let Some((_, hops)) = table {
                    assert_eq!(hops, paths.hops_to(router, target), "router {router}");
                }
                let table = table.map(|(bits, _)| bits);
                match table {
                    Some(bits) => {
                        assert_eq!(bits, judged(paths, router, target), "router {router}");
                        known += 1;
                    }
                    None => unknown += 1,
                }
            }
        }
        (known, unknown)
    }

    #[test]
    fn the_closer_port_table_agrees_with_judging_each_neighbour() {
        // A balanced dragonfly (one global link per pair of groups): the table knows every
        // target.
        let balanced = paths_of(
            serde_json::json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"}),
        );
        let (known, unknown) = compare(&balanced);
        assert_eq!(unknown, 0);
        assert_eq!(known, 36 * 35 + 36 * 8);
        // Routers of 34 network ports: the table's bits take 8 bytes.
        let wide = paths_of(
            serde_json::json!({"kind": "dragonfly", "p": 1, "a": 34, "h": 1, "g": 35, "arrangement": "relative"}),
        );
        assert_eq!(compare(&wide), (1190 * 1189 + 1190 * 34, 0));
        // Several links per pair of groups: the union over the best links.
        let multi = paths_of(
            serde_json::json!({"kind": "dragonfly", "p": 1, "a": 4, "h": 2, "g": 5, "arrangement": "absolute"}),
        );
        assert_eq!(compare(&multi), (20 * 19 + 20 * 4, 0));
        // Four links per pair of groups, as on the 4,224-endpoint benchmarks' dragonfly.
        let four = paths_of(
            serde_json::json!({"kind": "dragonfly", "p": 1, "a": 8, "h": 4, "g": 9, "arrangement": "relative"}),
        );
        assert_eq!(compare(&four), (72 * 71 + 72 * 8, 0));
        // A Fishnet's groups (local links: a Slim Fly's, not all-to-all).
        let fishnet =
            paths_of(serde_json::json!({"kind": "fishnet", "base": {"kind": "petersen"}, "p": 1}));
        let (known, _) = compare(&fishnet);
        assert!(known > 0);
    }

    #[test]
    fn the_closer_port_table_on_graphs_agrees_with_the_rows_of_standings() {
        // Diameter 2 (residues are distances): every (router, target) pair answered.
        let slim_fly = paths_of(serde_json::json!({"kind": "slim_fly", "q": 5, "p": 2}));
        assert_eq!(compare(&slim_fly), (50 * 49, 0));
        // Diameter above 2 (residues mod 3, hops by walking): the table's hops are the walk's.
        let ring_like = paths_of(
            serde_json::json!({"kind": "jellyfish", "routers": 40, "degree": 3, "p": 1, "seed": 7}),
        );
        assert!(ring_like.distances.distances().diameter() > 2);
        assert_eq!(compare(&ring_like), (40 * 39, 0));
    }
}
