//! What each process of a run across processes holds: the state of its own part's routers and
//! NICs, and nothing of the others'.

use super::model::Network;
use crate::config::Config;
use crate::parallel::{Loopback, Transport};
use serde_json::{json, Value};

fn config(topology: Value, routing: Value) -> Config {
    let text = json!({
        "seed": 3,
        "topology": topology,
        "routing": routing,
        "router": {"vcs": 4, "vc_buffer_bytes": 4096, "latency_ps": 40_000,
                   "arbitration": "round_robin", "in_transit_priority": 0.0},
        "links": {"default": {"latency_ps": 20_000, "bandwidth_bytes_per_s": 25_000_000_000u64},
                  "classes": {}},
        "nic": {"injection_bandwidth_bytes_per_s": 25_000_000_000u64,
                "injection_latency_ps": 7_000, "mtu_bytes": 4096, "header_bytes": 32},
        "traffic": {"kind": "synthetic", "pattern": "uniform", "process": "bernoulli",
                    "load": 0.5, "packet_bytes": 256},
        "run": {"warmup_ps": 0, "measure_ps": 1_000_000, "drain": "all",
                "drain_limit_ps": null, "duration_ps": null, "deadlock_timeout_ps": null}
    });
    Config::from_json(&text.to_string()).unwrap()
}

/// A dragonfly of 8 groups of 4 routers, 2 endpoints each, under UGAL-L.
fn small_dragonfly() -> Config {
    config(
        json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 8,
               "arrangement": "absolute"}),
        json!({"kind": "ugal_l", "threshold": 0.0}),
    )
}

/// Each process's (routers, endpoints) held, checked against its part of the partition: every
/// router and NIC array holds exactly its part's entries, and the parts add up to the network.
fn held_by_each(config: &Config, processes: usize) -> Vec<(usize, usize)> {
    let whole = Network::new(config).unwrap();
    let (split, _) = whole.split(processes as u32).unwrap();
    let ports = whole.params.ports;
    let vcs = whole.params.vcs;
    let (routers, endpoints) = (whole.params.routers as usize, whole.nics.state.held().len());
    let world = Loopback::world(processes);
    let held: Vec<(usize, usize)> = world
        .iter()
        .map(|t| {
            let net = Network::on(config, Some(t as &dyn Transport)).unwrap();
            let me = t.rank() as u32;
            let mine = |r: usize| split.part_of[r] == me;
            let own_routers: Vec<usize> = (0..routers).filter(|&r| mine(r)).collect();
            let own_endpoints: Vec<usize> = (0..endpoints as u32)
                .filter(|&e| mine(whole.topology.endpoint_attachment(e).0 as usize))
                .map(|e| e as usize)
                .collect();
            let (r0, e0) = (own_routers[0], own_endpoints[0]);
            let (r1, e1) = (r0 + own_routers.len(), e0 + own_endpoints.len());
            assert_eq!(
                *own_routers.last().unwrap(),
                r1 - 1,
                "a part is one run of routers"
            );
            for indices in [
                net.routers.ports.indices(),
                net.routers.port_class.indices(),
                net.routers.peers.indices(),
            ] {
                assert_eq!(indices, r0 * ports..r1 * ports);
            }
            assert_eq!(net.nics.state.indices(), e0..e1);
            assert_eq!(net.nics.counters.indices(), e0..e1);
            assert_eq!(net.nics.credits.indices(), e0 * vcs..e1 * vcs);
            (r1 - r0, e1 - e0)
        })
        .collect();
    let (all_routers, all_endpoints) = held
        .iter()
        .fold((0, 0), |(r, e), &(hr, he)| (r + hr, e + he));
    assert_eq!((all_routers, all_endpoints), (routers, endpoints));
    held
}

#[test]
fn each_process_of_a_torus_holds_its_slab_only() {
    // The last of the longest dimensions is cut: it varies slowest in router numbers.
    let torus = config(
        json!({"kind": "torus", "dims": [4, 8, 8], "concentration": 2}),
        json!({"kind": "dor", "allow_unsafe": false}),
    );
    assert_eq!(held_by_each(&torus, 2), vec![(128, 256); 2]);
    assert_eq!(held_by_each(&torus, 4), vec![(64, 128); 4]);
}

#[test]
fn a_process_of_several_threads_holds_its_threads_parts_only() {
    let mut torus = config(
        json!({"kind": "torus", "dims": [4, 8, 8], "concentration": 2}),
        json!({"kind": "dor", "allow_unsafe": false}),
    );
    torus.threads = 2;
    let world = Loopback::world(2);
    for t in &world {
        let net = Network::on(&torus, Some(t as &dyn Transport)).unwrap();
        // Four slabs of 64 routers: process p holds slabs 2p and 2p + 1.
        let first = t.rank() * 128;
        assert_eq!(net.nics.state.indices(), 2 * first..2 * (first + 128));
        assert_eq!(net.routers.ports.indices(), first * 8..(first + 128) * 8);
    }
}

#[test]
fn each_process_of_a_dragonfly_holds_its_groups_only() {
    let dragonfly = small_dragonfly();
    assert_eq!(held_by_each(&dragonfly, 2), vec![(16, 32); 2]);
    assert_eq!(held_by_each(&dragonfly, 4), vec![(8, 16); 4]);
}

#[test]
fn a_process_holds_the_hull_of_a_part_that_is_not_one_run() {
    // Eight parts of a 4 x 4 torus are blocks of two routers, not all of them one run of
    // router numbers: each process holds the smallest run containing its routers.
    let torus = config(
        json!({"kind": "torus", "dims": [4, 4], "concentration": 1}),
        json!({"kind": "dor", "allow_unsafe": false}),
    );
    let whole = Network::new(&torus).unwrap();
    let (split, _) = whole.split(8).unwrap();
    let world = Loopback::world(8);
    let mut spread = false;
    for t in &world {
        let net = Network::on(&torus, Some(t as &dyn Transport)).unwrap();
        let mine: Vec<usize> = (0..16)
            .filter(|&r| split.part_of[r] == t.rank() as u32)
            .collect();
        let (first, last) = (mine[0], *mine.last().unwrap());
        assert_eq!(net.nics.state.indices(), first..last + 1);
        assert_eq!(net.routers.ports.indices(), first * 5..(last + 1) * 5);
        spread |= last - first + 1 > mine.len();
    }
    assert!(spread, "some part is not one run of router numbers");
}

/// The tables of what each port is wired to and where each endpoint hangs (kept on small
/// networks) answer as the topology does, port by port and endpoint by endpoint, on every process
/// of a split run; a network above the tables' size keeps neither and asks the topology.
#[test]
fn wiring_from_the_tables_is_the_topologys() {
    let small = small_dragonfly();
    let large = config(
        json!({"kind": "mesh", "dims": [128, 128], "concentration": 1}),
        json!({"kind": "dor", "allow_unsafe": false}),
    );
    for (config, table) in [(&small, true), (&large, false)] {
        for t in &Loopback::world(2) {
            let net = Network::on(config, Some(t as &dyn Transport)).unwrap();
            assert_eq!(!net.routers.peers.is_empty(), table);
            assert_eq!(!net.attachments.is_empty(), table);
            let ports = net.params.ports;
            for index in net.routers.ports.indices() {
                let (router, port) = ((index / ports) as u32, (index % ports) as u16);
                assert_eq!(
                    net.peer(index, router, port),
                    net.topology.peer(router, port)
                );
            }
            // Every endpoint, not only the process's own: packets head for any.
            for endpoint in 0..net.topology.num_endpoints() {
                assert_eq!(
                    net.attachment(endpoint),
                    net.topology.endpoint_attachment(endpoint)
                );
            }
        }
    }
}
