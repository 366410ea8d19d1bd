//! The per-entity counters a run's results come from: the rows of its endpoint and link tables,
//! and the tally the summary reads. A process of a run across processes keeps the rows of its
//! own part; the tallies of all processes add up, in any order, to the same numbers.

use serde::{Deserialize, Serialize};

use super::state::{EndpointCounters, RouterPort, NIC_CLASS, NO_LINK};

/// The counters of some NIC ports and routers (all of a network's, or one process's part).
pub(super) struct Counts {
    /// The NIC ports counted, in increasing order.
    pub(super) endpoint_ids: Vec<u32>,
    pub(super) endpoint_counters: Vec<EndpointCounters>,
    /// (sum, count) of the latencies of the measured packets each port sent.
    pub(super) source_latency: Vec<(u64, u64)>,
    /// Packets waiting at each port's source when the run stopped.
    pub(super) source_queue_packets: Vec<u64>,
    /// The routers counted, in increasing order; their ports' entries follow router by router.
    pub(super) router_ids: Vec<u32>,
    /// Their ports' state as the run left it, whose counters are the link rows (kept whole:
    /// copying the counters out would hold both at once).
    pub(super) outputs: Vec<RouterPort>,
    pub(super) port_class: Vec<u8>,
}

/// The rows of a run's tables: per node (the endpoints the workload addresses), per NIC port
/// when nodes have several, and per router port.
pub(super) struct Rows {
    pub(super) nodes: Vec<u32>,
    pub(super) node_counters: Vec<EndpointCounters>,
    pub(super) source_latency: Vec<(u64, u64)>,
    pub(super) source_queue_packets: Vec<u64>,
    /// The NIC ports and their counters (their injection links), with several per node.
    pub(super) ports: Option<(Vec<u32>, Vec<EndpointCounters>)>,
    pub(super) routers: Vec<u32>,
    pub(super) outputs: Vec<RouterPort>,
    pub(super) port_class: Vec<u8>,
}

impl Counts {
    /// Keeps the entries of the NIC ports and routers that `owner` (the worker of every
    /// entity: the `routers` routers first, then the NICs) gives to `me`: the ones a process
    /// of a run across processes holds but another owns go.
    pub(super) fn retain_own(&mut self, owner: &[u32], me: u32, routers: u32) {
        let ports = self.port_class.len() / self.router_ids.len().max(1);
        let own_nic = |e: u32| owner[(routers + e) as usize] == me;
        if !self.endpoint_ids.iter().all(|&e| own_nic(e)) {
            let keep: Vec<bool> = self.endpoint_ids.iter().map(|&e| own_nic(e)).collect();
            let mut flags = keep.iter();
            self.endpoint_ids.retain(|_| *flags.next().unwrap());
            retain_where(&mut self.endpoint_counters, &keep, 1);
            retain_where(&mut self.source_latency, &keep, 1);
            retain_where(&mut self.source_queue_packets, &keep, 1);
        }
        let own_router = |r: u32| owner[r as usize] == me;
        if !self.router_ids.iter().all(|&r| own_router(r)) {
            let keep: Vec<bool> = self.router_ids.iter().map(|&r| own_router(r)).collect();
            let mut flags = keep.iter();
            self.router_ids.retain(|_| *flags.next().unwrap());
            retain_where(&mut self.outputs, &keep, ports);
            retain_where(&mut self.port_class, &keep, ports);
        }
    }

    /// Adds latencies other processes recorded for this one's sources: (port, sum, count).
    pub(super) fn add_source_latency(&mut self, entries: impl Iterator<Item = (u32, u64, u64)>) {
        for (e, sum, count) in entries {
            let row = self
                .endpoint_ids
                .binary_search(&e)
                .expect("latency is sent to the process of its source");
            self.source_latency[row].0 += sum;
            self.source_latency[row].1 += count;
        }
    }

    /// The rows, with a node's ports (port p of node n is NIC port p * nodes + n; a node's
    /// ports are always counted together) folded into the node.
    pub(super) fn into_rows(self, nodes: u32) -> Rows {
        let Counts {
            endpoint_ids,
            endpoint_counters,
            source_latency,
            source_queue_packets,
            router_ids: routers,
            outputs,
            port_class,
        } = self;
        if endpoint_ids.last().is_none_or(|&last| last < nodes) {
            return Rows {
                nodes: endpoint_ids,
                node_counters: endpoint_counters,
                source_latency,
                source_queue_packets,
                ports: None,
                routers,
                outputs,
                port_class,
            };
        }
        let node_rows = endpoint_ids.partition_point(|&e| e < nodes);
        let node_ids = endpoint_ids[..node_rows].to_vec();
        let mut node_counters = endpoint_counters[..node_rows].to_vec();
        let mut latency = source_latency[..node_rows].to_vec();
        let mut queued = source_queue_packets[..node_rows].to_vec();
        for row in node_rows..endpoint_ids.len() {
            let node = node_ids
                .binary_search(&(endpoint_ids[row] % nodes))
                .expect("a node's ports are counted together");
            node_counters[node].add(&endpoint_counters[row]);
            latency[node].0 += source_latency[row].0;
            latency[node].1 += source_latency[row].1;
            queued[node] += source_queue_packets[row];
        }
        Rows {
            nodes: node_ids,
            node_counters,
            source_latency: latency,
            source_queue_packets: queued,
            ports: Some((endpoint_ids, endpoint_counters)),
            routers,
            outputs,
            port_class,
        }
    }
}

/// Keeps the runs of `width` entries of `values` whose flag in `keep` is set.
fn retain_where<T>(values: &mut Vec<T>, keep: &[bool], width: usize) {
    let mut index = 0;
    values.retain(|_| {
        index += 1;
        keep[(index - 1) / width]
    });
}

/// The smallest, largest and sum of a count over some entities.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Spread {
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) sum: u128,
    pub(super) count: u64,
}

impl Default for Spread {
    fn default() -> Self {
        Spread {
            min: u64::MAX,
            max: 0,
            sum: 0,
            count: 0,
        }
    }
}

impl Spread {
    fn of(values: impl Iterator<Item = u64>) -> Spread {
        let mut spread = Spread::default();
        for v in values {
            spread.add(&Spread {
                min: v,
                max: v,
                sum: u128::from(v),
                count: 1,
            });
        }
        spread
    }

    fn add(&mut self, other: &Spread) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.count += other.count;
    }

    /// (min, mean, max) of `f` of the values, NaN over no entity; `f` must grow with its
    /// argument (the mean is f of the sum, divided by the count).
    pub(super) fn min_mean_max(&self, f: impl Fn(f64) -> f64) -> (f64, f64, f64) {
        if self.count == 0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        (
            f(self.min as f64),
            f(self.sum as f64) / self.count as f64,
            f(self.max as f64),
        )
    }
}

/// What the summary reads of the rows: exact integer sums and extremes, so that the processes'
/// tallies add up to the same numbers in any order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Tally {
    pub(super) generated_bytes: Spread,
    pub(super) injected_bytes: Spread,
    pub(super) received_bytes: Spread,
    pub(super) received_packets: u64,
    /// Over router-to-router links.
    pub(super) link_busy_ps: Spread,
    pub(super) link_bytes: Spread,
    /// Packets injected on each plane (port p of every node), with several ports per node.
    pub(super) plane_injected_packets: Vec<u64>,
}

impl Tally {
    pub(super) fn of(rows: &Rows, nodes: u32, planes: u32) -> Tally {
        let c = &rows.node_counters;
        let links = || {
            rows.outputs
                .iter()
                .zip(&rows.port_class)
                .filter(|(_, &class)| class != NIC_CLASS && class != NO_LINK)
                .map(|(port, _)| &port.counters)
        };
        let mut plane_injected_packets =
            vec![0; if rows.ports.is_some() { planes } else { 0 } as usize];
        if let Some((ids, counters)) = &rows.ports {
            for (&e, port) in ids.iter().zip(counters) {
                plane_injected_packets[(e / nodes) as usize] += port.injected_packets;
            }
        }
        Tally {
            generated_bytes: Spread::of(c.iter().map(|x| x.generated_bytes)),
            injected_bytes: Spread::of(c.iter().map(|x| x.injected_bytes)),
            received_bytes: Spread::of(c.iter().map(|x| x.received_bytes)),
            received_packets: c.iter().map(|x| x.received_packets).sum(),
            link_busy_ps: Spread::of(links().map(|l| l.busy_ps)),
            link_bytes: Spread::of(links().map(|l| l.bytes)),
            plane_injected_packets,
        }
    }

    /// The tally of all the processes' rows.
    pub(super) fn total(tallies: &[Tally]) -> Tally {
        let mut total = Tally::default();
        for t in tallies {
            total.generated_bytes.add(&t.generated_bytes);
            total.injected_bytes.add(&t.injected_bytes);
            total.received_bytes.add(&t.received_bytes);
            total.received_packets += t.received_packets;
            total.link_busy_ps.add(&t.link_busy_ps);
            total.link_bytes.add(&t.link_bytes);
            if total.plane_injected_packets.is_empty() {
                total.plane_injected_packets = vec![0; t.plane_injected_packets.len()];
            }
            for (sum, &p) in total
                .plane_injected_packets
                .iter_mut()
                .zip(&t.plane_injected_packets)
            {
                *sum += p;
            }
        }
        total
    }
}
