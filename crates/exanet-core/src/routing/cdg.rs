//! Proof of deadlock freedom for one configuration: the channel-dependency graph (Dally & Seitz)
//! that the routing function and its VC assignment induce, built by following every way a
//! packet may go from every source router to every destination router, and checked for cycles.
//! A channel is (router, output port, VC); a packet holding channel a and asking for channel b
//! makes a depend on b. No cycle: no deadlock.
//!
//! With an escape sub-network (Duato) only the escape VCs' graph must be acyclic: under virtual
//! cut-through a blocked packet can always take an escape VC, so the graph holds the escape
//! channels and their direct dependencies. Under bubble flow control a packet continuing along
//! its ring on the escape VC never blocks the ring, so those dependencies are left out too.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{vcs_in, Candidates, RouteQuery, RouteState, RoutingFunction};
use crate::topology::{Peer, Topology};

/// Routes (source router x destination router x random draw) an automatic check follows at
/// most, about 4 minutes on one core: deterministic schemes are followed from every source
/// router on networks of up to 4,096 routers with endpoints, Valiant-like ones (a draw per
/// intermediate) up to a few hundred; larger networks from evenly spaced source routers.
pub const WORK_BUDGET: u64 = 1 << 24;

/// One channel of a dependency cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub router: u32,
    pub port: u16,
    pub vc: u8,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyCheck {
    pub acyclic: bool,
    /// Which channels the graph holds: "every channel", "escape channels (Duato)" or "escape
    /// channels (Duato), ring continuations under bubble flow control left out".
    pub scope: &'static str,
    /// Channels some route uses, and dependencies between them.
    pub channels: u64,
    pub dependencies: u64,
    /// Source-destination router pairs and random draws (intermediates, oblivious choices)
    /// followed.
    pub pairs: u64,
    pub draws_per_pair: u32,
    /// Source routers (routers with endpoints) whose routes were followed, of all of them;
    /// `exhaustive` when every one was.
    pub sources_followed: u64,
    pub sources_total: u64,
    pub exhaustive: bool,
    /// A cycle of channels when one exists (each depends on the next, the last on the first).
    pub cycle: Vec<Channel>,
}

/// How far a check has come: destination routers whose routes from every followed source
/// are done, of all of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckProgress {
    pub destinations_done: u64,
    pub destinations_total: u64,
    pub wall_s: f64,
}

/// Multiply-rotate hashing of the integer keys below (std's SipHash costs more than the
/// routing decisions it would guard).
#[derive(Default)]
struct IntHasher(u64);

impl Hasher for IntHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        // The table indexes with the low bits, which the multiplication mixes least.
        self.0.rotate_left(26)
    }
}

type IntSet<T> = HashSet<T, BuildHasherDefault<IntHasher>>;

/// How many source routers a check follows, of `total` routers with endpoints: `requested`
/// (explicit), else all when `budget` (routes: sources x destinations x draws) allows, else as
/// many as it allows (at least one).
pub fn sources_to_follow(total: u64, draws: u32, requested: Option<u32>, budget: u64) -> u64 {
    let affordable = budget / (total * u64::from(draws)).max(1);
    requested
        .map_or(affordable, u64::from)
        .clamp(1, total.max(1))
        .min(total)
}

/// Which routes a check follows: `draws` values of the random bits per pair, from `sources`
/// source routers (None: as many as `budget` allows, see [`sources_to_follow`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coverage {
    pub draws: u32,
    pub sources: Option<u32>,
    pub budget: u64,
}

/// What one worker found: channels used (a bit per channel) and dependencies (held << 32 |
/// wanted).
struct Found {
    used: Vec<u64>,
    edges: IntSet<u64>,
}

/// Follows every route of `routing` on `topology` with `vcs` VCs from `coverage.sources` evenly
/// spaced routers with endpoints (None: every one, or as many as `coverage.budget` allows) to
/// every router with endpoints. Every packet's random bits take `coverage.draws` values: with
/// `draws` >= the number of routers every Valiant intermediate is covered. The work is shared
/// by the machine's cores; `progress` is called about every `interval_s` seconds, and
/// returning false stops the check (None).
///
/// A route's next decision depends on the router, the input port and VC, the route state, the
/// destination and the random bits, not on the source; so for one destination and draw the
/// routes from every source share one set of visited states.
pub fn check(
    topology: &dyn Topology,
    routing: &dyn RoutingFunction,
    vcs: u32,
    coverage: Coverage,
    interval_s: f64,
    progress: &mut dyn FnMut(&CheckProgress) -> bool,
) -> Option<DependencyCheck> {
    let Coverage {
        draws,
        sources,
        budget,
    } = coverage;
    let ports = usize::from(topology.ports_per_router());
    let vcs_usize = vcs as usize;
    let channels = topology.num_routers() as usize * ports * vcs_usize;
    let hosts: Vec<(u32, u16)> = (0..topology.num_routers())
        .filter_map(|r| {
            (0..topology.ports_per_router())
                .find(|&p| matches!(topology.peer(r, p), Peer::Endpoint(_)))
                .map(|p| (r, p))
        })
        .collect();
    let total = hosts.len() as u64;
    let followed = sources_to_follow(total, draws, sources, budget);
    let chosen: Vec<(u32, u16)> = (0..followed)
        .map(|i| hosts[(i * total / followed) as usize])
        .collect();
    let escape = routing.escape_vcs();
    let bubble = routing.bubble_vc();
    let next_destination = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let worker = || -> Found {
        let mut found = Found {
            used: vec![0; channels.div_ceil(64)],
            edges: IntSet::default(),
        };
        let in_graph = |vc: u32| escape == 0 || escape & (1 << vc) != 0;
        let mut candidates = Candidates::new();
        // (router, in_port, in_vc, injected, state, held channel)
        let mut stack: Vec<(u32, u16, u8, bool, RouteState, Option<u32>)> = Vec::new();
        // Visited (channel taken, route state) pairs: the channel names the router reached, its
        // input port and VC.
        let mut seen: IntSet<u128> = IntSet::default();
        loop {
            let d = next_destination.fetch_add(1, Ordering::Relaxed);
            let Some(&(dst, dst_port)) = hosts.get(d) else {
                break;
            };
            let dst_endpoint = match topology.peer(dst, dst_port) {
                Peer::Endpoint(e) => e,
                _ => 0,
            };
            for random in 0..draws {
                if stop.load(Ordering::Relaxed) {
                    return found;
                }
                seen.clear();
                for &(src, src_port) in &chosen {
                    // Disjoint planes: a packet stays in the plane it was sent on.
                    if topology.plane(src) != topology.plane(dst) {
                        continue;
                    }
                    stack.push((src, src_port, 0, true, RouteState::FRESH, None));
                    while let Some((router, in_port, in_vc, injected, state, held)) = stack.pop() {
                        let query = RouteQuery {
                            router,
                            in_port,
                            in_vc,
                            injected,
                            dst_router: dst,
                            dst_port,
                            dst: dst_endpoint,
                            state,
                            random,
                        };
                        candidates.clear();
                        routing.route(&query, &mut candidates);
                        for c in candidates.as_slice() {
                            let Peer::Router { router: next, port } = topology.peer(router, c.port)
                            else {
                                continue;
                            };
                            for vc in vcs_in(c.vc_mask).filter(|&vc| vc < vcs) {
                                let ch = ((router as usize * ports + usize::from(c.port))
                                    * vcs_usize
                                    + vc as usize) as u32;
                                if in_graph(vc) {
                                    found.used[ch as usize / 64] |= 1 << (ch % 64);
                                    let along_ring = |h: u32| {
                                        bubble.is_some_and(|b| u32::from(b) == vc)
                                            && h % vcs == vc
                                            && (h / vcs) as usize % ports == usize::from(c.port)
                                    };
                                    if let Some(h) = held.filter(|&h| in_graph(h % vcs)) {
                                        if !along_ring(h) {
                                            found.edges.insert(u64::from(h) << 32 | u64::from(ch));
                                        }
                                    }
                                }
                                let key = u128::from(ch)
                                    | u128::from(c.next.via) << 32
                                    | u128::from(c.next.phase) << 64;
                                if seen.insert(key) {
                                    stack.push((next, port, vc as u8, false, c.next, Some(ch)));
                                }
                            }
                        }
                    }
                }
            }
            done.fetch_add(1, Ordering::Relaxed);
        }
        found
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(hosts.len())
        .max(1);
    let start = Instant::now();
    let interval = Duration::from_secs_f64(interval_s.clamp(0.001, 3600.0));
    let founds: Vec<Found> = std::thread::scope(|scope| {
        let (finished, finishing) = mpsc::channel::<()>();
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let finished = finished.clone();
                let worker = &worker;
                scope.spawn(move || {
                    let found = worker();
                    drop(finished);
                    found
                })
            })
            .collect();
        drop(finished);
        // Every worker drops its sender when done: the channel then disconnects.
        while finishing.recv_timeout(interval) == Err(RecvTimeoutError::Timeout) {
            let report = CheckProgress {
                destinations_done: done.load(Ordering::Relaxed),
                destinations_total: total,
                wall_s: start.elapsed().as_secs_f64(),
            };
            if !progress(&report) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("a check worker panicked"))
            .collect()
    });
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut founds = founds.into_iter();
    let mut all = founds.next().expect("at least one worker");
    for found in founds {
        for (word, other) in all.used.iter_mut().zip(&found.used) {
            *word |= other;
        }
        all.edges.extend(found.edges);
    }
    let nodes: Vec<u32> = all
        .used
        .iter()
        .enumerate()
        .flat_map(|(i, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| (i * 64 + b) as u32)
        })
        .collect();
    let mut edges: Vec<u64> = all.edges.into_iter().collect();
    edges.sort_unstable();
    let cycle = find_cycle(&nodes, &edges);
    let name = |ch: u32| {
        let vc = ch as usize % vcs_usize;
        let port_index = ch as usize / vcs_usize;
        let (router, port) = ((port_index / ports) as u32, (port_index % ports) as u16);
        Channel {
            router,
            port,
            vc: vc as u8,
            name: format!(
                "router {router} {} {} vc {vc}",
                topology.router_label(router),
                topology.port_name(router, port)
            ),
        }
    };
    Some(DependencyCheck {
        acyclic: cycle.is_none(),
        scope: match (escape, bubble) {
            (0, _) => "every channel",
            (_, None) => "escape channels (Duato)",
            (_, Some(_)) => {
                "escape channels (Duato), ring continuations under bubble flow control left out"
            }
        },
        channels: nodes.len() as u64,
        dependencies: edges.len() as u64,
        pairs: followed * total,
        draws_per_pair: draws,
        sources_followed: followed,
        sources_total: total,
        exhaustive: followed == total,
        cycle: cycle.unwrap_or_default().into_iter().map(name).collect(),
    })
}

/// A cycle in the graph of `sorted_nodes` and `sorted_edges` (held << 32 | wanted), by
/// iterative depth-first search with colours, or None.
fn find_cycle(sorted_nodes: &[u32], sorted_edges: &[u64]) -> Option<Vec<u32>> {
    let index = |n: u32| sorted_nodes.binary_search(&n).ok();
    let mut adjacency: Vec<Vec<usize>> = vec![Vec::new(); sorted_nodes.len()];
    for &edge in sorted_edges {
        if let (Some(i), Some(j)) = (index((edge >> 32) as u32), index(edge as u32)) {
            adjacency[i].push(j);
        }
    }
    // 0 unvisited, 1 on the current path, 2 done.
    let mut colour = vec![0u8; sorted_nodes.len()];
    let mut parent = vec![usize::MAX; sorted_nodes.len()];
    for root in 0..sorted_nodes.len() {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&child) = adjacency[node].get(*next) {
                *next += 1;
                match colour[child] {
                    0 => {
                        colour[child] = 1;
                        parent[child] = node;
                        stack.push((child, 0));
                    }
                    1 => {
                        // Back edge node -> child closes a cycle child -> ... -> node.
                        let mut cycle = vec![sorted_nodes[node]];
                        let mut at = node;
                        while at != child {
                            at = parent[at];
                            cycle.push(sorted_nodes[at]);
                        }
                        cycle.reverse();
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                colour[node] = 2;
                stack.pop();
            }
        }
    }
    None
}
