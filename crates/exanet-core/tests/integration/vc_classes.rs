//! How many VC classes a routing needs comes from the channel dependencies of its routes on the
//! topology's structure, not from hop counts: one per minimal leg on a fat-tree (up*/down*), a
//! block per global link on groups, one per hop inside a dimension under dimension order, and
//! one per hop only on graphs without such structure. The checker proves each plan, and the
//! spare VCs then serve the packets.

use crate::common;

use common::{families, run_ok, with};
use exanet_core::check_routing;
use serde_json::{json, Value};

/// The schemes whose VC classes follow `Paths::standard_plan`.
fn planned_schemes() -> Vec<Value> {
    vec![
        json!({"kind": "minimal", "selection": "adaptive"}),
        json!({"kind": "minimal", "selection": "random"}),
        json!({"kind": "minimal", "selection": "destination"}),
        json!({"kind": "valiant"}),
        json!({"kind": "ugal_l"}),
        json!({"kind": "ugal_g"}),
    ]
}

fn config(topology: &Value, routing: &Value, vcs: u32) -> exanet_core::Config {
    with(&[
        ("topology", topology.clone()),
        ("routing", routing.clone()),
        ("router.vcs", json!(vcs)),
    ])
}

/// The fewest VCs (up to 16) a routing accepts on a topology.
fn fewest_vcs(topology: &Value, routing: &Value) -> u32 {
    (1..=16)
        .find(|&vcs| exanet_core::describe(&config(topology, routing, vcs)).is_ok())
        .expect("some VC count up to 16 suffices")
}

#[test]
fn vc_needs_follow_the_structure_of_the_routes() {
    let fat_tree3 =
        json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4, "taper": [1, 1]});
    let fat_tree4 =
        json!({"kind": "fat_tree", "levels": 4, "radix": 4, "pods": 3, "taper": [1, 1]});
    let hyperx = json!({"kind": "express_mesh", "dims": [4, 3], "gap": 1, "concentration": 1});
    let dragonfly =
        json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"});
    let slim_fly = json!({"kind": "slim_fly", "q": 5, "p": 2});
    let minimal = json!({"kind": "minimal"});
    let cases = [
        // Up*/down*: a class per leg, whatever the tree's height (diameter 4 and 6).
        (&fat_tree3, minimal.clone(), 1),
        (&fat_tree4, minimal.clone(), 1),
        (
            &fat_tree3,
            json!({"kind": "minimal", "selection": "destination"}),
            1,
        ),
        (&fat_tree3, json!({"kind": "valiant"}), 2),
        (&fat_tree4, json!({"kind": "ugal_l"}), 2),
        (&fat_tree4, json!({"kind": "ugal_g"}), 2),
        // One hop per dimension, in dimension order.
        (&hyperx, json!({"kind": "dor", "allow_unsafe": false}), 1),
        // Local, global, local.
        (&dragonfly, minimal.clone(), 2),
        (&dragonfly, json!({"kind": "valiant"}), 3),
        // No structure to use: a class per hop (diameter 2).
        (&slim_fly, minimal.clone(), 2),
        (&slim_fly, json!({"kind": "valiant"}), 4),
        // Given paths follow hops on any topology.
        (&fat_tree3, json!({"kind": "source", "paths": []}), 4),
    ];
    for (topology, routing, expected) in cases {
        assert_eq!(
            fewest_vcs(topology, &routing),
            expected,
            "{topology} {routing}"
        );
    }
    // One VC short: refused on router.vcs, naming the number and the reason.
    let err =
        exanet_core::describe(&config(&fat_tree3, &json!({"kind": "valiant"}), 1)).unwrap_err();
    assert_eq!((err.key.as_str(), err.value.as_str()), ("router.vcs", "1"));
    assert!(
        err.expected.contains("at least 2 VCs") && err.expected.contains("climbs, then descends"),
        "{}",
        err.expected
    );
}

#[test]
fn every_family_is_deadlock_free_under_the_structural_plans_with_few_and_spare_vcs() {
    for (name, topology, _) in families() {
        for routing in planned_schemes() {
            let fewest = fewest_vcs(&topology, &routing);
            // The fewest VCs, and spare VCs shared among the classes.
            for vcs in [fewest, fewest + 2] {
                let check = check_routing(&config(&topology, &routing, vcs), None, 1024).unwrap();
                assert!(
                    check.acyclic,
                    "{name} {routing} {vcs} VCs: {:?}",
                    check.cycle
                );
                assert!(check.exhaustive, "{name} {routing}");
                assert!(check.dependencies > 0, "{name} {routing}");
            }
        }
    }
}

#[test]
fn a_fat_tree_with_four_vcs_in_one_class_outruns_four_classes_of_one_vc() {
    // 3-level radix-8 full fat-tree (128 endpoints), uniform at full load, 4 VCs of 2 KiB.
    // When VC i carried hop i, each hop had one VC of 2 KiB and the tree accepted 0.579 (8 VCs
    // in 4 classes: 0.884); with one class every hop may take any of the 4 VCs: 0.938.
    let accepted = |vcs: u32, buffer: u32| {
        let out = run_ok(&with(&[
            (
                "topology",
                json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 8, "taper": [1, 1]}),
            ),
            (
                "routing",
                json!({"kind": "minimal", "selection": "adaptive", "threshold": 0.5}),
            ),
            ("router.vcs", json!(vcs)),
            ("router.vc_buffer_bytes", json!(buffer)),
            ("traffic.load", json!(1.0)),
            ("run.warmup_ps", json!(5_000_000)),
            ("run.measure_ps", json!(20_000_000)),
            ("run.drain", json!("none")),
        ]));
        out.summary.f64("accepted_load")
    };
    let four_vcs = accepted(4, 2048);
    assert!(four_vcs > 0.85, "4 VCs of 2 KiB: {four_vcs}");
    // The same buffer space in one VC (accepted now, refused before) blocks at its head more
    // often: 0.794.
    let one_vc = accepted(1, 8192);
    assert!(
        four_vcs > one_vc + 0.05,
        "4 x 2 KiB {four_vcs}, 1 x 8 KiB {one_vc}"
    );
}
