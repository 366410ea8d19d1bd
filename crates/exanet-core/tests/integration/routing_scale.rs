//! Routing beyond 8,192 routers, where the old all-pairs table stopped, for each kind of compact
//! routing state: groups (001's 100k-node dragonfly shape), tree levels (a 4-level fat-tree) and
//! distance rows (a Jellyfish). Every packet is delivered, light-load hops equal the exact mean
//! distance, and non-minimal routing beats minimal under group shift by the margins the small
//! dragonfly shows (tests/families.rs).

use crate::common;

use common::{run_ok, with};
use exanet_core::describe;
use serde_json::{json, Value};

/// 001's 100k-node dragonfly (a = 26, h = 13, g = 339: 8,814 routers) with one endpoint per
/// router.
fn dragonfly() -> Value {
    json!({"kind": "dragonfly", "p": 1, "a": 26, "h": 13, "g": 339, "arrangement": "absolute"})
}

/// Light uniform load for 1 us, every packet drained.
fn light(topology: Value, routing: Value, vcs: u32) -> exanet_core::Config {
    with(&[
        ("topology", topology),
        ("routing", routing),
        ("router.vcs", json!(vcs)),
        ("traffic.load", json!(0.05)),
        ("run.warmup_ps", json!(0)),
        ("run.measure_ps", json!(1_000_000)),
        ("run.drain", json!("all")),
    ])
}

/// Runs `config`: every packet delivered; returns the mean hops and the packets measured.
fn delivered_hops(config: &exanet_core::Config) -> (f64, f64) {
    let s = run_ok(config).summary;
    assert_eq!(s.u64("packets_injected"), s.u64("packets_delivered"));
    assert!(s.u64("packets_delivered") > 1000);
    (s.f64("hops_mean"), s.u64("packets_delivered") as f64)
}

#[test]
fn dragonfly_of_8814_routers_delivers_every_packet_in_the_hierarchical_hops() {
    let (a, routers) = (26.0, 8814.0);
    let config = light(dragonfly(), json!({"kind": "minimal"}), 2);
    assert_eq!(describe(&config).unwrap().routers, 8814);
    let (hops, packets) = delivered_hops(&config);
    // One global link per pair of groups: a router is the gateway to a given group with
    // probability 1/a at each end; inside a group every pair is one hop apart.
    let same_group = (a - 1.0) / (routers - 1.0);
    let exact = same_group + (1.0 - same_group) * (3.0 - 2.0 / a);
    assert!(
        (hops - exact).abs() < 4.0 * exact / packets.sqrt() + 0.01,
        "{hops} vs {exact}"
    );
}

#[test]
fn fat_tree_of_10000_routers_delivers_every_packet_in_the_minimal_hops() {
    let topology = json!({"kind": "fat_tree", "levels": 4, "radix": 20, "pods": 20,
                          "taper": [1, 4]});
    for selection in ["destination", "adaptive"] {
        let config = light(
            topology.clone(),
            json!({"kind": "minimal", "selection": selection}),
            6,
        );
        let description = describe(&config).unwrap();
        assert_eq!(description.routers, 10_000);
        let (hops, packets) = delivered_hops(&config);
        let exact = description.average_distance_hops;
        assert!(
            (hops - exact).abs() < 4.0 * exact / packets.sqrt() + 0.01,
            "{selection}: {hops} vs {exact}"
        );
    }
}

#[test]
fn jellyfish_of_9000_routers_delivers_every_packet_in_the_minimal_hops() {
    let topology = json!({"kind": "jellyfish", "routers": 9000, "degree": 8, "p": 1, "seed": 5});
    let config = light(topology, json!({"kind": "minimal"}), 8);
    let description = describe(&config).unwrap();
    let (hops, packets) = delivered_hops(&config);
    let exact = description.average_distance_hops;
    assert!(
        (hops - exact).abs() < 4.0 * exact / packets.sqrt() + 0.01,
        "{hops} vs {exact}"
    );
}

#[test]
fn nonminimal_routing_beats_minimal_under_group_shift_on_8814_routers() {
    // 26 endpoints of a group share the one global link into the next group under minimal
    // routing: accepted load <= 1/26 of the injection bandwidth.
    let accepted = |routing: Value| {
        let config = with(&[
            ("topology", dragonfly()),
            ("routing", routing),
            ("router.vcs", json!(3)),
            ("traffic.pattern", json!("group_shift")),
            ("traffic.load", json!(0.3)),
            ("run.warmup_ps", json!(1_000_000)),
            ("run.measure_ps", json!(2_000_000)),
            ("run.drain", json!("none")),
        ]);
        run_ok(&config).summary.f64("accepted_load")
    };
    let minimal = accepted(json!({"kind": "minimal"}));
    let valiant = accepted(json!({"kind": "valiant"}));
    let ugal = accepted(json!({"kind": "ugal_l"}));
    assert!(minimal <= 1.05 / 26.0, "minimal {minimal}");
    assert!(
        valiant > 2.5 * minimal,
        "valiant {valiant} vs minimal {minimal}"
    );
    assert!(ugal > 2.0 * minimal, "ugal_l {ugal} vs minimal {minimal}");
}

#[test]
fn routing_state_of_001s_100k_node_systems_is_at_most_200_bytes_per_endpoint() {
    let systems = [
        (
            json!({"kind": "dragonfly", "p": 13, "a": 26, "h": 13, "g": 339,
                   "arrangement": "absolute"}),
            json!({"kind": "ugal_l"}),
            3,
        ),
        (
            json!({"kind": "slim_fly", "q": 53, "p": 18}),
            json!({"kind": "ugal_l"}),
            4,
        ),
        (
            json!({"kind": "fat_tree", "levels": 3, "radix": 74, "pods": 74, "taper": [1, 1]}),
            json!({"kind": "minimal"}),
            4,
        ),
        (
            json!({"kind": "fat_tree", "levels": 4, "radix": 30, "pods": 30, "taper": [1, 1]}),
            json!({"kind": "minimal"}),
            6,
        ),
        (
            json!({"kind": "fishnet", "base": {"kind": "slim_fly", "q": 7}, "p": 10}),
            json!({"kind": "fishnet_adaptive"}),
            6,
        ),
    ];
    for (topology, routing, vcs) in systems {
        let d = describe(&light(topology.clone(), routing, vcs)).unwrap();
        assert!(d.endpoints > 95_000, "{topology}");
        let per_endpoint = d.routing_state_bytes as f64 / f64::from(d.endpoints);
        // Topology and routing state together within 1 KB per endpoint.
        let together =
            (d.routing_state_bytes + d.topology_state_bytes) as f64 / f64::from(d.endpoints);
        assert!(per_endpoint <= 200.0, "{topology}: {per_endpoint} B");
        assert!(together <= 1024.0, "{topology}: {together} B");
        assert!(d.routing_state_bytes > 0);
    }
}
