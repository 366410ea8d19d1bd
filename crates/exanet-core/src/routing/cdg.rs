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

use super::{vcs_in, Candidates, RouteQuery, RouteState, RoutingFunction};
use crate::topology::{Peer, Topology};

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
    /// A cycle of channels when one exists (each depends on the next, the last on the first).
    pub cycle: Vec<Channel>,
}

/// Follows every route of `routing` on `topology` with `vcs` VCs. Every packet's random bits
/// take `draws` values (0..draws): with `draws` >= the number of routers every Valiant
/// intermediate is covered. `sources` limits the source routers (None: all).
pub fn check(
    topology: &dyn Topology,
    routing: &dyn RoutingFunction,
    vcs: u32,
    draws: u32,
    sources: Option<&[u32]>,
) -> DependencyCheck {
    let ports = usize::from(topology.ports_per_router());
    let vcs_usize = vcs as usize;
    let channel = |router: u32, port: u16, vc: u32| {
        ((router as usize * ports + usize::from(port)) * vcs_usize + vc as usize) as u32
    };
    let endpoint_port = |router: u32| {
        (0..topology.ports_per_router())
            .find(|&p| matches!(topology.peer(router, p), Peer::Endpoint(_)))
    };
    let hosts: Vec<(u32, u16)> = (0..topology.num_routers())
        .filter_map(|r| endpoint_port(r).map(|p| (r, p)))
        .collect();
    let all_sources: Vec<u32> = hosts.iter().map(|&(r, _)| r).collect();
    let sources = sources.unwrap_or(&all_sources);
    let mut edges: HashSet<(u32, u32)> = HashSet::new();
    let mut used: HashSet<u32> = HashSet::new();
    let mut candidates = Candidates::new();
    let mut pairs = 0u64;
    let escape = routing.escape_vcs();
    let bubble = routing.bubble_vc();
    let in_graph = |vc: u32| escape == 0 || escape & (1 << vc) != 0;
    // (router, in_port, in_vc, injected, state, held channel)
    let mut stack: Vec<(u32, u16, u8, bool, RouteState, Option<u32>)> = Vec::new();
    let mut seen: HashSet<(u32, u16, u8, RouteState)> = HashSet::new();
    for &src in sources {
        let Some(src_port) = endpoint_port(src) else {
            continue;
        };
        for &(dst, dst_port) in &hosts {
            pairs += 1;
            for random in 0..draws {
                seen.clear();
                stack.push((src, src_port, 0, true, RouteState::FRESH, None));
                while let Some((router, in_port, in_vc, injected, state, held)) = stack.pop() {
                    let query = RouteQuery {
                        router,
                        in_port,
                        in_vc,
                        injected,
                        dst_router: dst,
                        dst_port,
                        dst: match topology.peer(dst, dst_port) {
                            Peer::Endpoint(e) => e,
                            _ => 0,
                        },
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
                            let ch = channel(router, c.port, vc);
                            if in_graph(vc) {
                                used.insert(ch);
                                let along_ring = |h: u32| {
                                    bubble.is_some_and(|b| u32::from(b) == vc)
                                        && h % vcs == vc
                                        && (h / vcs) as usize % ports == usize::from(c.port)
                                };
                                if let Some(h) = held.filter(|&h| in_graph(h % vcs)) {
                                    if !along_ring(h) {
                                        edges.insert((h, ch));
                                    }
                                }
                            }
                            if seen.insert((next, port, vc as u8, c.next)) {
                                stack.push((next, port, vc as u8, false, c.next, Some(ch)));
                            }
                        }
                    }
                }
            }
        }
    }
    let cycle = find_cycle(&used, &edges);
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
    DependencyCheck {
        acyclic: cycle.is_none(),
        scope: match (escape, bubble) {
            (0, _) => "every channel",
            (_, None) => "escape channels (Duato)",
            (_, Some(_)) => {
                "escape channels (Duato), ring continuations under bubble flow control left out"
            }
        },
        channels: used.len() as u64,
        dependencies: edges.len() as u64,
        pairs,
        draws_per_pair: draws,
        cycle: cycle.unwrap_or_default().into_iter().map(name).collect(),
    }
}

/// A cycle in the graph (iterative depth-first search with colours), or None.
fn find_cycle(nodes: &HashSet<u32>, edges: &HashSet<(u32, u32)>) -> Option<Vec<u32>> {
    let mut sorted_nodes: Vec<u32> = nodes.iter().copied().collect();
    sorted_nodes.sort_unstable();
    let index = |n: u32| sorted_nodes.binary_search(&n).ok();
    let mut adjacency: Vec<Vec<usize>> = vec![Vec::new(); sorted_nodes.len()];
    let mut sorted_edges: Vec<&(u32, u32)> = edges.iter().collect();
    sorted_edges.sort_unstable();
    for &&(a, b) in &sorted_edges {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
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
