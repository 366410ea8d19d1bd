//! Midimews (002 §2.1) through the whole simulator: described, proven deadlock-free under
//! table-driven minimal routing and under 002's adaptive routing with a bubble escape, and
//! simulated with every packet delivered at the exact mean distance.

use crate::common;

use common::{run_ok, with};
use exanet_core::{check_routing, describe};
use serde_json::{json, Value};

fn midimew(nodes: u32, routing: Value, vcs: u32) -> exanet_core::Config {
    run(nodes, routing, vcs, 0.3)
}

fn run(nodes: u32, routing: Value, vcs: u32, load: f64) -> exanet_core::Config {
    with(&[
        (
            "topology",
            json!({"kind": "midimew", "nodes": nodes, "concentration": 1}),
        ),
        ("routing", routing),
        ("router.vcs", json!(vcs)),
        ("router.vc_buffer_bytes", json!(4096)),
        ("traffic.load", json!(load)),
        ("run.drain", json!("all")),
    ])
}

fn bubble() -> Value {
    json!({"kind": "minimal", "escape": "bubble"})
}

#[test]
fn describe_gives_the_closed_form_diameter_and_exact_mean_distance() {
    // (N, diameter, sum of the distances from one router)
    for (nodes, diameter, total) in [(64, 6, 238), (1024, 23, 15_433)] {
        let d = describe(&midimew(nodes, bubble(), 3)).unwrap();
        assert_eq!((d.routers, d.ports_per_router), (nodes, 5));
        // 2N cables, each counted in both directions.
        assert_eq!(d.network_links, 4 * u64::from(nodes));
        assert_eq!(d.diameter_hops, diameter);
        let mean = f64::from(total) / f64::from(nodes - 1);
        assert!((d.average_distance_hops - mean).abs() < 1e-12, "{nodes}");
    }
}

#[test]
fn bubble_escape_routing_is_acyclic_with_two_vcs() {
    for nodes in [8, 13, 18, 32, 50, 64, 99, 128] {
        let check = check_routing(&midimew(nodes, bubble(), 2), None, 1024).unwrap();
        assert!(check.acyclic, "N = {nodes}: {:?}", check.cycle);
        assert!(check.exhaustive && check.dependencies > 0, "N = {nodes}");
        assert_eq!(check.pairs, u64::from(nodes).pow(2));
    }
    // One VC leaves no adaptive VC beside the escape one.
    let err = check_routing(&midimew(64, bubble(), 1), None, 1024).unwrap_err();
    assert_eq!(err.key, "router.vcs");
}

#[test]
fn table_driven_minimal_routing_takes_a_vc_per_hop() {
    // N = 50: diameter 5, so 5 VCs, and 4 are refused.
    let minimal = json!({"kind": "minimal"});
    let check = check_routing(&midimew(50, minimal.clone(), 5), None, 1024).unwrap();
    assert!(check.acyclic && check.exhaustive, "{:?}", check.cycle);
    let err = check_routing(&midimew(50, minimal, 4), None, 1024).unwrap_err();
    assert_eq!((err.key.as_str(), err.value.as_str()), ("router.vcs", "4"));
}

#[test]
fn every_packet_is_delivered_at_the_exact_mean_distance() {
    for (routing, vcs) in [(bubble(), 3), (json!({"kind": "minimal"}), 6)] {
        let config = run(64, routing.clone(), vcs, 0.05);
        let exact = describe(&config).unwrap().average_distance_hops;
        let out = run_ok(&config);
        let s = &out.summary;
        assert_eq!(
            s.u64("packets_injected"),
            s.u64("packets_delivered"),
            "{routing}"
        );
        let packets = s.u64("packets_delivered") as f64;
        let measured = s.f64("hops_mean");
        assert!(
            (measured - exact).abs() < 4.0 * exact / packets.sqrt() + 0.02,
            "{routing}: {measured} vs {exact}"
        );
    }
    // Past saturation the bubble escape keeps the network moving: every packet drains.
    let out = run_ok(&run(64, bubble(), 3, 1.0));
    assert_eq!(
        out.summary.u64("packets_injected"),
        out.summary.u64("packets_delivered")
    );
}
