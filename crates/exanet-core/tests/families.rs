//! Every topology family simulates: packets are conserved under table-driven minimal routing,
//! and at light load the measured hops equal the exact average endpoint distance.

mod common;

use common::{run_ok, with};
use exanet_core::describe;
use exanet_core::stats::Value;
use serde_json::{json, Value as Json};

fn families() -> Vec<(&'static str, Json, u32)> {
    vec![
        (
            "fat_tree",
            json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4, "taper": [1, 1]}),
            4,
        ),
        (
            "dragonfly",
            json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"}),
            3,
        ),
        (
            "dragonfly_rc",
            json!({"kind": "dragonfly_rc", "p": 1, "rows": 2, "cols": 3, "local_links": 1,
                   "h": 1, "g": 7, "arrangement": "absolute"}),
            5,
        ),
        (
            "dragonfly_plus",
            json!({"kind": "dragonfly_plus", "p": 2, "leaves": 3, "spines": 3, "h": 2, "g": 7,
                   "arrangement": "circulant"}),
            5,
        ),
        ("slim_fly", json!({"kind": "slim_fly", "q": 5, "p": 2}), 2),
        ("polarfly", json!({"kind": "polarfly", "q": 5, "p": 2}), 2),
        (
            "jellyfish",
            json!({"kind": "jellyfish", "routers": 40, "degree": 5, "p": 2, "seed": 3}),
            6,
        ),
        (
            "fishnet",
            json!({"kind": "fishnet", "base": {"kind": "petersen"}, "p": 1}),
            4,
        ),
        (
            "fishnet_lite",
            json!({"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 1}),
            5,
        ),
        (
            "express_mesh",
            json!({"kind": "express_mesh", "dims": [5, 4], "gap": 2, "concentration": 2}),
            4,
        ),
    ]
}

fn config(topology: &Json, vcs: u32, load: f64, drain: &str) -> exanet_core::Config {
    with(&[
        ("topology", topology.clone()),
        ("routing", json!({"kind": "minimal"})),
        ("router.vcs", json!(vcs)),
        ("traffic.load", json!(load)),
        ("run.drain", json!(drain)),
    ])
}

#[test]
fn every_family_delivers_every_packet_under_minimal_routing() {
    for (name, topology, vcs) in families() {
        let out = run_ok(&config(&topology, vcs, 0.3, "all"));
        let s = &out.summary;
        assert_eq!(s.get("drained"), Some(&Value::Bool(true)), "{name}");
        assert_eq!(
            s.get("delivery_checksum_ok"),
            Some(&Value::Bool(true)),
            "{name}"
        );
        assert_eq!(
            s.u64("packets_injected"),
            s.u64("packets_delivered"),
            "{name}"
        );
        assert!(s.u64("packets_delivered") > 0, "{name}");
    }
}

#[test]
fn light_load_hops_equal_the_exact_average_distance() {
    for (name, topology, vcs) in families() {
        let config = config(&topology, vcs, 0.05, "measured");
        let exact = describe(&config).unwrap().average_distance_hops;
        let out = run_ok(&config);
        let s = &out.summary;
        let measured = s.f64("hops_mean");
        let packets = s.u64("packets_delivered") as f64;
        // Minimal routing takes exactly the minimal distance: only sampling error remains.
        assert!(
            (measured - exact).abs() < 4.0 * exact / packets.sqrt() + 0.02,
            "{name}: measured {measured} vs exact {exact} over {packets} packets"
        );
    }
}

#[test]
fn too_few_vcs_for_minimal_routing_are_refused_with_the_number_needed() {
    let (_, topology, vcs) = families().remove(7);
    let err = describe(&config(&topology, vcs - 1, 0.1, "measured")).unwrap_err();
    assert_eq!(err.key, "router.vcs");
    assert!(err.expected.contains("at least 4 VCs"), "{}", err.expected);
}

#[test]
fn dimension_order_routing_needs_coordinates() {
    let (_, topology, _) = families().remove(0);
    let config = with(&[("topology", topology)]);
    let err = describe(&config).unwrap_err();
    assert_eq!(err.key, "routing.kind");
}
