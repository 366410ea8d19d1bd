//! Nodes with several NIC ports: multi-plane (004 §4.1) and rail-optimized fat-trees, and the
//! NIC's striping of messages over the ports.

use crate::common;

use common::*;
use exanet_core::config::TopologyConfig;
use exanet_core::describe::{describe_topology, DescribeOptions};
use exanet_core::stats::{ColumnData, Table};
use exanet_core::topology::{self, Peer, Topology};
use exanet_core::{check_routing, Config};
use serde_json::{json, Value};

/// A 2-level tree of radix 8 and 8 pods: 8 leaves of 4 endpoints, 4 top routers.
fn tree(planes: u32, wiring: &str) -> Value {
    json!({"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 8, "taper": [1, 1],
           "planes": planes, "plane_wiring": wiring})
}

fn build(spec: Value) -> Box<dyn Topology> {
    let config: TopologyConfig = serde_json::from_value(spec).unwrap();
    topology::build(&config).unwrap()
}

/// Changes for a run on `topology` with minimal routing.
fn on(topology: Value, striping: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("topology", topology),
        ("routing", json!({"kind": "minimal"})),
        ("nic.striping", json!(striping)),
    ]
}

fn column_u64(table: &Table, name: &str) -> Vec<u64> {
    match &table.columns.iter().find(|c| c.name == name).unwrap().data {
        ColumnData::U64(v) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn column_i32(table: &Table, name: &str) -> Vec<i32> {
    match &table.columns.iter().find(|c| c.name == name).unwrap().data {
        ColumnData::I32(v) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

/// Packets each plane's ports injected and received, from the links table's NIC links.
fn per_plane(links: &Table, nodes: i32, planes: usize) -> (Vec<u64>, Vec<u64>) {
    let (mut injected, mut received) = (vec![0; planes], vec![0; planes]);
    let kind = match &links.columns[0].data {
        ColumnData::U32(codes) => codes.clone(),
        other => panic!("kind: {other:?}"),
    };
    let endpoint = column_i32(links, "endpoint");
    let packets = column_u64(links, "packets");
    for ((k, e), p) in kind.iter().zip(endpoint).zip(packets) {
        let plane = (e / nodes) as usize;
        match k {
            1 => injected[plane] += p,
            2 => received[plane] += p,
            _ => {}
        }
    }
    (injected, received)
}

#[test]
fn separate_planes_are_disjoint_copies_with_port_p_of_each_node_in_plane_p() {
    let one = build(tree(1, "separate"));
    let three = build(tree(3, "separate"));
    let (routers, nodes) = (one.num_routers(), one.num_endpoints());
    assert_eq!((routers, nodes), (12, 32));
    assert_eq!(three.num_routers(), 3 * routers);
    assert_eq!(three.num_endpoints(), 3 * nodes);
    assert_eq!(three.ports_per_node(), 3);
    for r in 0..three.num_routers() {
        assert_eq!(three.plane(r), Some(r / routers));
        for p in 0..three.ports_per_router() {
            match three.peer(r, p) {
                Peer::Router { router, port } => {
                    assert_eq!(router / routers, r / routers, "a link leaves its plane");
                    // The same wiring as the single plane, shifted.
                    assert_eq!(
                        one.peer(r % routers, p),
                        Peer::Router {
                            router: router % routers,
                            port
                        }
                    );
                }
                Peer::Endpoint(e) => {
                    assert_eq!(e / nodes, r / routers, "port p of a node is in plane p");
                    assert_eq!(three.endpoint_attachment(e), (r, p));
                }
                Peer::Unconnected => {}
            }
        }
    }
    let single = describe_topology(
        &serde_json::from_value(tree(1, "separate")).unwrap(),
        &DescribeOptions::default(),
    )
    .unwrap();
    let planes = describe_topology(
        &serde_json::from_value(tree(3, "separate")).unwrap(),
        &DescribeOptions::default(),
    )
    .unwrap();
    assert_eq!(planes.endpoints, 32);
    assert_eq!(planes.ports_per_node, 3);
    assert_eq!(planes.routers, 36);
    assert_eq!(planes.network_links, 3 * single.network_links);
    assert_eq!(single.network_links, 32);
    assert_eq!(
        planes.bisection_links,
        single.bisection_links.map(|b| 3 * b)
    );
    assert_eq!(planes.diameter, single.diameter);
    assert_eq!(
        planes.average_endpoint_distance,
        single.average_endpoint_distance
    );
    assert!((planes.balance - 3.0 * single.balance).abs() < 1e-12);
}

#[test]
fn rails_put_each_rail_of_a_scalable_unit_on_a_leaf_of_its_own() {
    // 8 leaves of 4 slots: 4 units of 2 leaves, 16 nodes with 2 ports each.
    let rails = build(tree(2, "rails"));
    let single = build(tree(1, "separate"));
    assert_eq!(rails.num_routers(), single.num_routers());
    assert_eq!(rails.num_endpoints(), 32);
    assert_eq!(rails.ports_per_node(), 2);
    assert_eq!(rails.plane(0), None);
    let nodes = 16;
    let leaf = |e: u32| rails.endpoint_attachment(e).0;
    for node in 0..nodes {
        let (rail0, rail1) = (leaf(node), leaf(nodes + node));
        assert_ne!(rail0, rail1, "a node's rails are on different leaves");
        // Leaves in router order: unit u is leaves 2u (rail 0) and 2u + 1 (rail 1).
        assert_eq!(rail1, rail0 + 1);
        for other in 0..nodes {
            let same_unit = node / 4 == other / 4;
            assert_eq!(leaf(other) == rail0, same_unit, "nodes {node} and {other}");
            assert_eq!(leaf(nodes + other) == rail1, same_unit);
        }
    }
    for r in 0..rails.num_routers() {
        for p in 0..rails.ports_per_router() {
            if let Peer::Endpoint(e) = rails.peer(r, p) {
                assert_eq!(rails.endpoint_attachment(e), (r, p));
            }
        }
    }
    // Same-rail traffic inside a unit takes one leaf; the rails share the top level.
    let unit = Config::from_json(
        &{
            let mut c = base();
            set(&mut c, "topology", tree(2, "rails"));
            set(&mut c, "routing", json!({"kind": "minimal"}));
            c
        }
        .to_string(),
    )
    .unwrap();
    assert!(check_routing(&unit, None, 1).unwrap().acyclic);
}

#[test]
fn plane_counts_that_cannot_be_wired_are_refused_by_key() {
    for (spec, says) in [
        (tree(0, "separate"), "between 1 and 64"),
        (tree(65, "separate"), "between 1 and 64"),
        // 8 pods of one leaf: units of 3 leaves cannot cover whole pods.
        (tree(3, "rails"), "leaves per pod"),
        (
            json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 8, "taper": [1, 1],
                   "planes": 3, "plane_wiring": "rails"}),
            "leaves per pod",
        ),
    ] {
        let config: TopologyConfig = serde_json::from_value(spec.clone()).unwrap();
        let Err(error) = topology::build(&config) else {
            panic!("{spec} was built");
        };
        assert_eq!(error.key, "topology.planes", "{spec}");
        assert!(error.expected.contains(says), "{}", error.expected);
    }
}

#[test]
fn a_node_injects_at_its_ports_bandwidth_together() {
    // Uniform traffic at 0.8 of a node's injection bandwidth on a full-bisection tree: 20 GB/s
    // per node on one 25 GB/s port, 40 on two.
    for (planes, gbytes) in [(1, 20.0), (2, 40.0)] {
        let mut changes = on(tree(planes, "separate"), "message");
        changes.push(("traffic.load", json!(0.8)));
        let out = run_ok(&with(&changes));
        let accepted = out.summary.f64("accepted_gbytes_per_s");
        assert!(
            (accepted - gbytes).abs() < 0.02 * gbytes,
            "{planes} planes: {accepted} GB/s"
        );
        assert_eq!(out.summary.u64("endpoints"), 32);
        assert_eq!(out.summary.u64("planes"), u64::from(planes));
        assert_eq!(column_f64(&out.endpoints(), "accepted_load").len(), 32);
    }
}

#[test]
fn striping_is_even_and_every_plane_delivers_what_it_was_sent() {
    // An alltoall of 9000 B (3 packets at a 4 KiB MTU, sent after a 1-packet request): packet
    // striping takes each node's ports in turn packet by packet, so they differ by at most one
    // packet; message striping turns per message, whatever its size.
    for (wiring, striping, spread) in [
        ("separate", "packet", Some(1)),
        ("separate", "message", None),
        ("rails", "packet", Some(1)),
    ] {
        let mut changes = on(tree(2, wiring), striping);
        let ranks = if wiring == "rails" { 16 } else { 32 };
        changes.push((
            "traffic",
            json!({"kind": "jobs", "eager_limit_bytes": 8192, "send_overhead_ps": 0,
                   "recv_overhead_ps": 0, "jobs": [{"name": "a2a", "app": "alltoall",
                   "ranks": ranks, "message_bytes": 9000, "algorithm": "pairwise",
                   "placement": {"kind": "linear"}}]}),
        ));
        changes.push(("router.vc_buffer_bytes", json!(8192)));
        let out = run_ok(&with(&changes));
        let s = &out.summary;
        let nodes = s.u64("endpoints") as i32;
        assert_eq!(nodes, ranks);
        assert!(
            matches!(
                s.get("delivery_checksum_ok"),
                Some(exanet_core::stats::Value::Bool(true))
            ),
            "{wiring} {striping}"
        );
        assert_eq!(s.u64("packets_misdelivered"), 0);
        let (injected, received) = per_plane(&out.links(), nodes, 2);
        assert_eq!(
            injected, received,
            "{wiring} {striping}: per-plane conservation"
        );
        assert_eq!(injected.iter().sum::<u64>(), s.u64("packets_injected"));
        assert_eq!(
            s.u64("plane_packets_injected_min"),
            *injected.iter().min().unwrap()
        );
        assert_eq!(
            s.u64("plane_packets_injected_max"),
            *injected.iter().max().unwrap()
        );
        // Per ordered pair: 3 data packets, a request to send and a clear to send.
        let pairs = (ranks * (ranks - 1)) as u64;
        assert_eq!(
            injected.iter().sum::<u64>(),
            5 * pairs,
            "{wiring} {striping}"
        );
        if let Some(spread) = spread {
            let gap = injected[0].abs_diff(injected[1]);
            assert!(
                gap <= spread * nodes as u64,
                "{wiring} {striping}: {injected:?}"
            );
        }
    }
}

/// One rank sends `bytes` to another on a different leaf (a rendezvous message).
fn one_message(bytes: u64) -> Value {
    json!({"kind": "jobs", "eager_limit_bytes": 8192, "send_overhead_ps": 0,
           "recv_overhead_ps": 0, "jobs": [{"name": "pair", "app": "program", "ranks": 2,
           "ops": {"rank": [0, 1], "op": ["send", "recv"], "peer": [1, 0],
                   "bytes": [bytes, bytes], "tag": [0, 0], "compute_ps": [0, 0],
                   "communicator": [0, 0], "request": [-1, -1],
                   "algorithm": [Value::Null, Value::Null]},
           "placement": {"kind": "map", "endpoints": [0, 31]}}]})
}

#[test]
fn packet_striping_halves_a_large_message_on_two_planes() {
    // 1 MiB at 25 GB/s per port: 42 us on one port. Packet striping sends half on each
    // plane; message striping sends it whole on one, exactly as one plane does.
    let time = |planes: u32, striping: &str| {
        let mut changes = on(tree(planes, "separate"), striping);
        changes.push(("traffic", one_message(1 << 20)));
        changes.push(("router.vc_buffer_bytes", json!(8192)));
        let out = run_ok(&with(&changes));
        out.summary.f64("sim_time_ns")
    };
    let single = time(1, "message");
    let whole = time(2, "message");
    let striped = time(2, "packet");
    let wire_ns = (1u64 << 20) as f64 / 25.0;
    assert!(single > wire_ns && single < 1.05 * wire_ns, "{single}");
    assert_eq!(whole, single);
    let ratio = striped / single;
    assert!((0.49..0.53).contains(&ratio), "{striped} / {single}");
}

#[test]
fn a_rail_optimized_tree_carries_uniform_traffic_as_well_as_the_same_tree_with_one_port_each() {
    // The 128-port 3-level tree of radix 8: 128 nodes of one port, or 64 of two rails, at 0.9 of
    // a node's bandwidth. D-mod-k takes the digits of a port's place in the tree, not of its
    // number (which counts rails first): with the number, half the top links idled and the
    // rails accepted 0.61.
    let accepted = |topology: Value| {
        let out = run_ok(&with(&[
            ("topology", topology),
            ("routing", json!({"kind": "minimal"})),
            ("router.vc_buffer_bytes", json!(16384)),
            ("traffic.load", json!(0.9)),
        ]));
        out.summary.f64("accepted_load")
    };
    let three_levels = |planes: u32| {
        json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 8, "taper": [1, 1],
               "planes": planes, "plane_wiring": "rails"})
    };
    let single = accepted(three_levels(1));
    let rails = accepted(three_levels(2));
    assert!(single > 0.85, "{single}");
    assert!(
        (rails - single).abs() < 0.02,
        "rails {rails} vs one port {single}"
    );
}

#[test]
fn a_backlogged_multi_plane_run_counts_its_waiting_packets_at_minimal_routes() {
    // Beyond saturation the sources keep messages they could not send; each counts at its
    // minimal route between nodes (at most the diameter, 2), as on one plane.
    for planes in [1, 2] {
        let out = run_ok(&with(&[
            ("topology", tree(planes, "separate")),
            ("routing", json!({"kind": "minimal"})),
            ("traffic.pattern", json!("hotspot")),
            ("traffic.hotspot_fraction", json!(0.5)),
            ("traffic.load", json!(0.9)),
        ]));
        let s = &out.summary;
        let waiting = column_u64(&out.endpoints(), "source_queue_packets");
        assert!(
            waiting.iter().sum::<u64>() > 1000,
            "{planes} planes: no backlog"
        );
        let hops = s.f64("hops_mean");
        assert!(
            (1.0..=2.0).contains(&hops),
            "{planes} planes: hops_mean {hops}"
        );
    }
}
