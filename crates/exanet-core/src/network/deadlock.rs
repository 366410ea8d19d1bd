//! The deadlock report: which channels are stuck, and a cycle of channels waiting on each other.

use std::collections::HashMap;

use super::model::Network;
use serde::{Deserialize, Serialize};

use super::state::{NIC_CLASS, NO_BLOCK};
use crate::engine::Time;
use crate::error::{DeadlockReport, StuckChannel};
use crate::routing::vcs_in;
use crate::topology::Peer;

/// At most this many stuck channels are listed.
const MAX_LISTED: usize = 64;

/// An input VC: (router * ports + port) * vcs + vc.
type Node = usize;

/// The worker that holds a router's packets and input buffers (the network itself, on one).
pub(super) type OwnerOf<'a> = dyn Fn(u32) -> &'a Network + 'a;

/// The credits of (router port, VC) downstream of an output, wherever they are kept.
pub(super) type CreditOf<'a> = dyn Fn(usize, usize) -> u32 + 'a;

/// An input VC whose head packet cannot advance: the VCs it waits for, and the channel that
/// feeds it (None for an injection channel).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StuckNode {
    pub node: Node,
    waits_for: Vec<Node>,
    channel: Option<StuckChannel>,
}

impl Network {
    /// The input VCs (of the ports that hold packets here) whose head packet cannot advance
    /// for lack of credits downstream, in input-VC order.
    pub(super) fn stuck_nodes<'a>(
        &self,
        owner_of: &OwnerOf<'a>,
        credit_of: &CreditOf<'_>,
    ) -> Vec<StuckNode> {
        let mut waits = Vec::new();
        let held = self
            .routers
            .ports
            .indices()
            .zip(self.routers.ports.held())
            .map(|(port_index, port)| (port_index, port.input_block))
            .filter(|&(_, block)| block != NO_BLOCK);
        for (port_index, block) in held {
            let router = (port_index / self.params.ports) as u32;
            let inputs = owner_of(router).inputs.vcs(block);
            for (vc, input) in inputs.iter().enumerate() {
                if input.queue.is_empty() {
                    continue;
                }
                let node = port_index * self.params.vcs + vc;
                let out_index = router as usize * self.params.ports + usize::from(input.out_port);
                let Peer::Router {
                    router: down,
                    port: down_port,
                } = self.topology.peer(router, input.out_port)
                else {
                    continue; // ejection never waits for credits
                };
                if vcs_in(u32::from(input.vc_mask))
                    .any(|v| credit_of(out_index, v as usize) >= input.bytes)
                {
                    continue;
                }
                let down_base =
                    (down as usize * self.params.ports + usize::from(down_port)) * self.params.vcs;
                waits.push(StuckNode {
                    node,
                    waits_for: vcs_in(u32::from(input.vc_mask))
                        .map(|v| down_base + v as usize)
                        .collect(),
                    channel: self.channel(node, owner_of, credit_of),
                });
            }
        }
        waits
    }

    /// Describes input VC `node` as the channel that feeds it.
    fn channel<'a>(
        &self,
        node: Node,
        owner_of: &OwnerOf<'a>,
        credit_of: &CreditOf<'_>,
    ) -> Option<StuckChannel> {
        let vc = (node % self.params.vcs) as u8;
        let port_index = node / self.params.vcs;
        let router = (port_index / self.params.ports) as u32;
        let port = (port_index % self.params.ports) as u16;
        if self.routers.port_class[port_index] == NIC_CLASS {
            return None;
        }
        let Peer::Router {
            router: up,
            port: up_port,
        } = self.topology.peer(router, port)
        else {
            return None;
        };
        let up_index = up as usize * self.params.ports + usize::from(up_port);
        let port_name = self.topology.port_name(up, up_port);
        Some(StuckChannel {
            name: format!(
                "router {up} {} {port_name} -> router {router} {} vc {vc}",
                self.topology.router_label(up),
                self.topology.router_label(router),
            ),
            router: up,
            port: up_port,
            port_name,
            vc,
            peer_router: router,
            queued_packets: {
                let owner = owner_of(router);
                let block = self.routers.ports[port_index].input_block;
                owner
                    .inputs
                    .vc(block, usize::from(vc))
                    .queue
                    .len(&owner.packets)
            },
            credits_bytes: credit_of(up_index, usize::from(vc)),
        })
    }

    /// The report of a deadlock found at `time_ps`, from its stuck input VCs in input-VC order.
    pub(super) fn deadlock_report(&self, time_ps: Time, nodes: Vec<StuckNode>) -> DeadlockReport {
        let stuck_channels = nodes
            .iter()
            .filter_map(|n| n.channel.clone())
            .take(MAX_LISTED)
            .collect();
        let waits: Vec<(Node, Vec<Node>)> = nodes
            .iter()
            .map(|n| (n.node, n.waits_for.clone()))
            .collect();
        let channels: HashMap<Node, &StuckChannel> = nodes
            .iter()
            .filter_map(|n| n.channel.as_ref().map(|c| (n.node, c)))
            .collect();
        let cycle = find_cycle(&waits)
            .into_iter()
            .filter_map(|node| channels.get(&node).map(|&c| c.clone()))
            .collect();
        DeadlockReport {
            time_ps,
            packets_in_network: self.stats.injected.wrapping_sub(self.stats.delivered),
            stuck_channels,
            cycle,
        }
    }
}

/// A cycle in the wait-for graph (depth-first search), in waiting order.
fn find_cycle(waits: &[(Node, Vec<Node>)]) -> Vec<Node> {
    let edges: HashMap<Node, &[Node]> = waits.iter().map(|(n, e)| (*n, e.as_slice())).collect();
    // 1 = on the current path, 2 = finished
    let mut state: HashMap<Node, u8> = HashMap::new();
    for &(root, _) in waits {
        if state.contains_key(&root) {
            continue;
        }
        let mut path: Vec<(Node, usize)> = vec![(root, 0)];
        state.insert(root, 1);
        while let Some(&(node, next_edge)) = path.last() {
            let successors = edges.get(&node).copied().unwrap_or(&[]);
            if let Some(&succ) = successors.get(next_edge) {
                if let Some(top) = path.last_mut() {
                    top.1 += 1;
                }
                match state.get(&succ) {
                    Some(1) => {
                        let start = path.iter().position(|&(n, _)| n == succ).unwrap_or(0);
                        return path[start..].iter().map(|&(n, _)| n).collect();
                    }
                    Some(_) => {}
                    None if edges.contains_key(&succ) => {
                        state.insert(succ, 1);
                        path.push((succ, 0));
                    }
                    None => {}
                }
            } else {
                state.insert(node, 2);
                path.pop();
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn finds_the_cycle_and_ignores_dead_ends() {
        let waits = vec![
            (1, vec![2]),
            (2, vec![9, 3]), // 9 is not stuck
            (3, vec![4]),
            (4, vec![2]),
        ];
        assert_eq!(find_cycle(&waits), vec![2, 3, 4]);
        assert!(find_cycle(&[(1, vec![2]), (2, vec![3])]).is_empty());
    }
}
