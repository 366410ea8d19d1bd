//! The channel-dependency-graph proof: acyclic for every shipped scheme, and a real cycle,
//! closed link by link, where deadlock is possible.

use crate::common;

use common::with;
use exanet_core::check_routing;
use exanet_core::topology::{self, Peer};
use serde_json::json;

#[test]
fn dimension_order_needs_two_vcs_on_a_torus_but_one_on_a_mesh() {
    let torus = with(&[("topology.dims", json!([4, 4]))]);
    let check = check_routing(&torus, None, 64).unwrap();
    assert!(check.acyclic, "{:?}", check.cycle);
    assert_eq!(check.pairs, 16 * 16);

    let mesh = with(&[
        (
            "topology",
            json!({"kind": "mesh", "dims": [4, 4], "concentration": 1}),
        ),
        ("router.vcs", json!(1)),
    ]);
    assert!(check_routing(&mesh, None, 64).unwrap().acyclic);

    // (A 4-ring with the tie rule has no cycle: its two-hop routes leave from even
    // coordinates only. Six routers per ring do.)
    let unsafe_torus = with(&[
        ("topology.dims", json!([6, 6])),
        ("router.vcs", json!(1)),
        ("routing.allow_unsafe", json!(true)),
    ]);
    let check = check_routing(&unsafe_torus, None, 64).unwrap();
    assert!(!check.acyclic);
    // Each channel of the cycle feeds the router whose channel comes next, and the last feeds
    // the first: a ring of one dimension.
    let t = topology::build(&unsafe_torus.topology).unwrap();
    let cycle = &check.cycle;
    assert!(cycle.len() >= 4, "{cycle:?}");
    for (i, a) in cycle.iter().enumerate() {
        let b = &cycle[(i + 1) % cycle.len()];
        let Peer::Router { router, .. } = t.peer(a.router, a.port) else {
            panic!("a cycle channel leads to a router")
        };
        assert_eq!(router, b.router, "{} -> {}", a.name, b.name);
    }
}

#[test]
fn digit_compare_lanes_are_acyclic_on_tori_of_2_to_8_routers_per_ring_in_1_to_3_dimensions() {
    for n in 1..=3usize {
        for k in 2..=8u32 {
            let config = with(&[
                ("topology.dims", json!(vec![k; n])),
                (
                    "routing",
                    json!({"kind": "dor", "allow_unsafe": false, "vc_rule": "digit_compare"}),
                ),
            ]);
            let check = check_routing(&config, None, 64).unwrap();
            assert!(check.acyclic, "{k}-ary {n}-cube: {:?}", check.cycle);
            assert!(check.exhaustive);
            assert_eq!(check.pairs, u64::from(k.pow(n as u32)).pow(2));
        }
    }
    // One lane is the ring's cycle again, as with datelines.
    let one_lane = with(&[
        ("topology.dims", json!([6, 6])),
        ("router.vcs", json!(1)),
        (
            "routing",
            json!({"kind": "dor", "allow_unsafe": true, "vc_rule": "digit_compare"}),
        ),
    ]);
    assert!(!check_routing(&one_lane, None, 64).unwrap().acyclic);
    let refused = with(&[
        ("topology.dims", json!([6, 6])),
        ("router.vcs", json!(1)),
        (
            "routing",
            json!({"kind": "dor", "allow_unsafe": false, "vc_rule": "digit_compare"}),
        ),
    ]);
    assert_eq!(
        check_routing(&refused, None, 64).unwrap_err().key,
        "router.vcs"
    );
    // Off a torus or mesh DOR has no two lanes to choose from.
    let express = with(&[
        (
            "topology",
            json!({"kind": "express_mesh", "dims": [4, 4], "gap": 1, "concentration": 1}),
        ),
        (
            "routing",
            json!({"kind": "dor", "allow_unsafe": false, "vc_rule": "digit_compare"}),
        ),
    ]);
    let err = check_routing(&express, None, 64).unwrap_err();
    assert_eq!(
        (err.key.as_str(), err.value.as_str()),
        ("routing.vc_rule", "\"digit_compare\"")
    );
}

/// The fewest VCs a config's routing accepts (it refuses fewer, naming the number).
fn fewest_vcs(topology: &serde_json::Value, routing: &serde_json::Value) -> u32 {
    (1..=16)
        .find(|&vcs| {
            let config = with(&[
                ("topology", topology.clone()),
                ("routing", routing.clone()),
                ("router.vcs", json!(vcs)),
            ]);
            check_routing(&config, Some(1), 1).is_ok()
        })
        .expect("some VC count up to 16 suffices")
}

#[test]
fn every_shipped_scheme_is_acyclic_on_every_family_with_the_fewest_vcs_it_accepts() {
    let families = [
        json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}),
        json!({"kind": "dragonfly", "p": 1, "a": 3, "h": 1, "g": 4, "arrangement": "absolute"}),
        json!({"kind": "dragonfly_rc", "p": 1, "rows": 2, "cols": 2, "local_links": 1, "h": 1,
               "g": 5, "arrangement": "relative"}),
        json!({"kind": "dragonfly_plus", "p": 1, "leaves": 2, "spines": 2, "h": 1, "g": 3,
               "arrangement": "circulant"}),
        json!({"kind": "slim_fly", "q": 3, "p": 1}),
        json!({"kind": "polarfly", "q": 3, "p": 1}),
        json!({"kind": "jellyfish", "routers": 12, "degree": 3, "p": 1, "seed": 2}),
        json!({"kind": "fishnet", "base": {"kind": "petersen"}, "p": 1}),
        json!({"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 1}),
        json!({"kind": "express_mesh", "dims": [4, 3], "gap": 2, "concentration": 1}),
    ];
    let hierarchical = |t: &serde_json::Value| {
        let kind = t["kind"].as_str().unwrap();
        kind.starts_with("dragonfly") || kind.starts_with("fishnet")
    };
    for topology in families {
        let mut schemes = vec![
            json!({"kind": "minimal", "selection": "adaptive"}),
            json!({"kind": "valiant"}),
            json!({"kind": "ugal_l"}),
            json!({"kind": "ugal_g"}),
        ];
        if hierarchical(&topology) {
            schemes.push(json!({"kind": "par"}));
        }
        if topology["kind"].as_str().unwrap().starts_with("fishnet") {
            schemes.push(json!({"kind": "fishnet_adaptive"}));
        }
        for routing in schemes {
            let vcs = fewest_vcs(&topology, &routing);
            let config = with(&[
                ("topology", topology.clone()),
                ("routing", routing.clone()),
                ("router.vcs", json!(vcs)),
            ]);
            let check = check_routing(&config, None, 200).unwrap();
            assert!(
                check.acyclic,
                "{topology} {routing} {vcs} VCs: {:?}",
                check.cycle
            );
            assert!(check.dependencies > 0, "{topology} {routing}");
        }
    }
}

#[test]
fn dragonfly_schemes_need_the_literature_s_vc_counts() {
    // Kim et al.: minimal 2 VCs, Valiant and UGAL 3 on an all-to-all dragonfly (a VC class per
    // global link taken); PAR one more for its second look in the source group. Row-column
    // groups take two local hops, so two VCs per class.
    let a2a =
        json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"});
    let rc = json!({"kind": "dragonfly_rc", "p": 1, "rows": 2, "cols": 3, "local_links": 1,
                    "h": 1, "g": 7, "arrangement": "absolute"});
    for (topology, expected) in [(a2a, [2, 3, 3, 4]), (rc, [4, 6, 6, 7])] {
        let found: Vec<u32> = ["minimal", "valiant", "ugal_l", "par"]
            .iter()
            .map(|kind| fewest_vcs(&topology, &json!({"kind": kind})))
            .collect();
        assert_eq!(found, expected, "{topology}");
    }
}

#[test]
fn escape_sub_networks_are_acyclic_and_hold_only_escape_channels() {
    for (topology, escape, vcs, scope) in [
        (
            json!({"kind": "torus", "dims": [6, 5], "concentration": 1}),
            "dor",
            3,
            "escape channels (Duato)",
        ),
        (
            json!({"kind": "mesh", "dims": [4, 3], "concentration": 1}),
            "dor",
            2,
            "escape channels (Duato)",
        ),
        (
            json!({"kind": "torus", "dims": [6, 5], "concentration": 1}),
            "bubble",
            2,
            "escape channels (Duato), ring continuations under bubble flow control left out",
        ),
    ] {
        let config = with(&[
            ("topology", topology.clone()),
            (
                "routing",
                json!({"kind": "minimal", "selection": "adaptive", "escape": escape}),
            ),
            ("router.vcs", json!(vcs)),
        ]);
        let check = check_routing(&config, None, 1).unwrap();
        assert!(check.acyclic, "{topology} {escape}: {:?}", check.cycle);
        assert_eq!(check.scope, scope);
        // Only escape channels: two VCs of every network port on the torus (dateline classes),
        // one on the mesh and under bubble flow control; turns between dimensions remain.
        let t = topology::build(&config.topology).unwrap();
        let network_ports: u64 = (0..t.num_routers())
            .map(|r| {
                (0..t.ports_per_router())
                    .filter(|&p| matches!(t.peer(r, p), Peer::Router { .. }))
                    .count() as u64
            })
            .sum();
        let escape_vcs = if escape == "dor" && topology["kind"] == "torus" {
            2
        } else {
            1
        };
        assert!(
            check.channels <= network_ports * escape_vcs,
            "{topology} {escape}"
        );
        assert!(check.dependencies > 0, "{topology} {escape}");
    }
}

#[test]
fn dimension_order_on_express_meshes_is_minimal_visits_dimensions_in_order_and_needs_line_diameter_vcs(
) {
    use exanet_core::routing::{self, Candidates, RouteQuery, RouteState};
    // HyperX (gap 1): one hop per dimension, so one VC; gap 2 on 6 positions links distances
    // 1, 3 and 5, so a line takes up to 2 hops (0 -> 3 -> 2) and needs 2 VCs.
    for (topology, needed) in [
        (
            json!({"kind": "express_mesh", "dims": [4, 3], "gap": 1, "concentration": 1}),
            1,
        ),
        (
            json!({"kind": "express_mesh", "dims": [6, 5], "gap": 2, "concentration": 1}),
            2,
        ),
    ] {
        let dor = json!({"kind": "dor", "allow_unsafe": false});
        assert_eq!(fewest_vcs(&topology, &dor), needed, "{topology}");
        let config = with(&[
            ("topology", topology.clone()),
            ("routing", dor.clone()),
            ("router.vcs", json!(needed)),
        ]);
        assert!(check_routing(&config, None, 1).unwrap().acyclic);
        let t = topology::build(&config.topology).unwrap();
        let r = routing::build(&config.routing, t.as_ref(), needed).unwrap();
        let graph = exanet_core::analysis::RouterGraph::from_topology(t.as_ref());
        let mut out = Candidates::new();
        for src in 0..t.num_routers() {
            let distances = exanet_core::analysis::bfs_distances(&graph, src);
            for dst in 0..t.num_routers() {
                let (dst_router, dst_port) = t.endpoint_attachment(dst);
                let (mut router, mut in_port) = t.endpoint_attachment(src);
                let (mut in_vc, mut injected, mut hops, mut last_class) = (0u8, true, 0, 0u16);
                while router != dst_router {
                    out.clear();
                    r.route(
                        &RouteQuery {
                            router,
                            in_port,
                            in_vc,
                            injected,
                            dst_router,
                            dst_port,
                            dst,
                            state: RouteState::FRESH,
                            random: 0,
                        },
                        &mut out,
                    );
                    let c = out.as_slice()[0];
                    let class = t.link_class(router, c.port);
                    assert!(class >= last_class, "{topology}: {src}->{dst} turns back");
                    last_class = class;
                    let Peer::Router { router: next, port } = t.peer(router, c.port) else {
                        panic!("left the network")
                    };
                    (router, in_port, in_vc, injected) =
                        (next, port, c.vc_mask.trailing_zeros() as u8, false);
                    hops += 1;
                }
                assert_eq!(hops, distances[dst as usize], "{topology}: {src}->{dst}");
            }
        }
    }
}

#[test]
fn source_routes_follow_the_given_paths_and_are_checked() {
    // A 6-router ring as a custom graph; the path 0 -> 5 goes the long way (5 hops) instead
    // of the 1-hop link, so it needs 5 VCs.
    let ring = json!({"kind": "custom", "graph": {"routers": 6,
        "links": [[0, 1, 0], [1, 2, 0], [2, 3, 0], [3, 4, 0], [4, 5, 0], [5, 0, 0]],
        "class_names": ["ring"]}, "endpoints": [1, 1, 1, 1, 1, 1]});
    let routing = json!({"kind": "source", "paths": [[0, 1, 2, 3, 4, 5]]});
    assert_eq!(fewest_vcs(&ring, &routing), 5);
    let config = |routing: serde_json::Value, vcs: u32| {
        with(&[
            ("topology", ring.clone()),
            ("routing", routing),
            ("router.vcs", json!(vcs)),
            ("traffic.load", json!(0.1)),
            ("run.drain", json!("all")),
        ])
    };
    assert!(
        check_routing(&config(routing.clone(), 5), None, 4)
            .unwrap()
            .acyclic
    );
    // Uniform traffic over 30 ordered pairs: minimal routes average 1.8 hops; the one given
    // path takes 5 hops instead of 1, so the mean rises by 4 / 30.
    let hops = |routing| {
        let out = common::run_ok(&config(routing, 5));
        let s = out.summary;
        assert_eq!(s.u64("packets_injected"), s.u64("packets_delivered"));
        s.f64("hops_mean")
    };
    let minimal = hops(json!({"kind": "minimal", "selection": "adaptive", "threshold": 0.5}));
    let source = hops(routing);
    assert!(
        (source - minimal - 4.0 / 30.0).abs() < 0.05,
        "source {source} minimal {minimal}"
    );
    // Paths over missing links or routers are refused, naming the path.
    for (bad, why) in [
        (json!([[0, 2]]), "not linked"),
        (json!([[0, 9]]), "does not exist"),
        (json!([[3]]), "1 routers"),
    ] {
        let err = check_routing(&config(json!({"kind": "source", "paths": bad}), 5), None, 1)
            .unwrap_err();
        assert_eq!(err.key, "routing.paths[0]");
        assert!(err.expected.contains(why), "{}", err.expected);
    }
}

#[test]
fn below_the_budget_the_check_is_exhaustive_and_gives_the_answer_it_always_gave() {
    // Channels and dependencies recorded from the single-threaded implementation that kept a
    // hash set of visited states per source, destination and draw. Letting hops inside the
    // destination's group take the higher classes too (`Paths::toward_vcs`) raised UGAL-L's
    // dependencies from 1,008 to 1,224 and the Fishnet scheme's (channels, dependencies) from
    // (2,310, 5,610) to (2,970, 17,490): more ways, still no cycle.
    let cases = [
        (
            json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"}),
            json!({"kind": "ugal_l"}),
            3,
            (468, 1224),
        ),
        (
            json!({"kind": "slim_fly", "q": 5, "p": 1}),
            json!({"kind": "valiant"}),
            4,
            (1400, 7000),
        ),
        (
            json!({"kind": "torus", "dims": [6, 5], "concentration": 1}),
            json!({"kind": "minimal", "selection": "adaptive", "escape": "bubble"}),
            2,
            (120, 120),
        ),
        (
            json!({"kind": "fishnet", "base": {"kind": "petersen"}, "p": 1}),
            json!({"kind": "fishnet_adaptive"}),
            6,
            (2970, 17490),
        ),
    ];
    for (topology, routing, vcs, expected) in cases {
        let config = with(&[
            ("topology", topology.clone()),
            ("routing", routing.clone()),
            ("router.vcs", json!(vcs)),
        ]);
        let check = check_routing(&config, None, 64).unwrap();
        assert!(check.acyclic, "{topology} {routing}");
        assert!(check.exhaustive, "{topology} {routing}");
        assert_eq!(check.sources_followed, check.sources_total);
        assert_eq!(check.pairs, check.sources_total * check.sources_total);
        assert_eq!(
            (check.channels, check.dependencies),
            expected,
            "{topology} {routing}"
        );
    }
}

#[test]
fn beyond_the_budget_the_check_follows_evenly_spaced_sources_and_says_so() {
    use exanet_core::routing::{self, cdg};
    // A 100,352-endpoint dragonfly (6,272 routers) under UGAL-L (196 draws: its groups) is
    // beyond the budget; a deterministic scheme on 4,096 routers with endpoints and Valiant on
    // a 264-router dragonfly (33 groups) are not. An explicit count wins, capped at the total.
    assert!(cdg::sources_to_follow(6272, 196, None, cdg::WORK_BUDGET) < 20);
    assert_eq!(
        cdg::sources_to_follow(4096, 1, None, cdg::WORK_BUDGET),
        4096
    );
    assert_eq!(cdg::sources_to_follow(264, 33, None, cdg::WORK_BUDGET), 264);
    assert_eq!(
        cdg::sources_to_follow(6272, 1024, Some(10), cdg::WORK_BUDGET),
        10
    );
    assert_eq!(cdg::sources_to_follow(6272, 1024, Some(9000), 1), 6272);
    let config = with(&[
        (
            "topology",
            json!({"kind": "dragonfly", "p": 16, "a": 32, "h": 16, "g": 196,
                   "arrangement": "absolute"}),
        ),
        ("routing", json!({"kind": "ugal_l"})),
        ("router.vcs", json!(3)),
    ]);
    let t = topology::build(&config.topology).unwrap();
    let r = routing::build(&config.routing, t.as_ref(), 3).unwrap();
    // Two draws and a budget of four sources' routes, so the test stays quick.
    let budget = 6272 * 2 * 4;
    let coverage = cdg::Coverage {
        draws: 2,
        sources: None,
        budget,
    };
    let check =
        cdg::check(t.as_ref(), r.as_ref(), 3, coverage, 1.0, &mut |_| true).expect("never stopped");
    assert!(check.acyclic, "{:?}", check.cycle);
    assert!(!check.exhaustive);
    assert_eq!((check.sources_followed, check.sources_total), (4, 6272));
    assert_eq!(check.pairs, 4 * 6272);
    assert!(check.dependencies > 0);
}

#[test]
fn progress_counts_destinations_and_a_callback_returning_false_stops_the_check() {
    let config = with(&[
        (
            "topology",
            json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "relative"}),
        ),
        ("routing", json!({"kind": "ugal_l"})),
        ("router.vcs", json!(3)),
    ]);
    let mut reports = Vec::new();
    let stopped = exanet_core::check_routing_with_progress(&config, None, 64, 0.001, &mut |p| {
        reports.push(*p);
        false
    })
    .unwrap();
    assert!(stopped.is_none());
    // Called once: the check stops at its first report.
    assert_eq!(reports.len(), 1);
    assert!(reports
        .iter()
        .all(|p| p.destinations_total == 36 && p.destinations_done <= 36));
    let mut calls = 0;
    let full = exanet_core::check_routing_with_progress(&config, None, 64, 0.001, &mut |_| {
        calls += 1;
        true
    })
    .unwrap()
    .expect("never stopped");
    assert!(calls > 0);
    assert_eq!((full.channels, full.dependencies), (468, 1224));
}

/// The draws a scheme says reach every route (`distinct_draws`) find the same channels and
/// dependencies as one draw per router (the check's old coverage), for every scheme that uses
/// its random bits.
#[test]
fn the_distinct_draws_reach_every_channel_that_a_draw_per_router_reaches() {
    let cases = [
        (
            json!({"kind": "dragonfly", "p": 1, "a": 4, "h": 2, "g": 9, "arrangement": "relative"}),
            vec![
                json!({"kind": "valiant"}),
                json!({"kind": "ugal_l"}),
                json!({"kind": "par"}),
                json!({"kind": "fishnet_adaptive"}),
                json!({"kind": "minimal", "selection": "random"}),
            ],
            4,
        ),
        (
            json!({"kind": "slim_fly", "q": 5, "p": 1}),
            vec![
                json!({"kind": "valiant"}),
                json!({"kind": "minimal", "selection": "random"}),
            ],
            4,
        ),
        (
            json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}),
            vec![
                json!({"kind": "ugal_l"}),
                json!({"kind": "minimal", "selection": "random"}),
            ],
            8,
        ),
        (
            json!({"kind": "torus", "dims": [4, 4], "concentration": 1}),
            vec![json!({"kind": "source", "paths": [[0, 1, 2], [0, 4, 5, 6, 2], [0, 3, 2]]})],
            6,
        ),
    ];
    for (topology, schemes, vcs) in cases {
        for routing in schemes {
            let config = with(&[
                ("topology", topology.clone()),
                ("routing", routing.clone()),
                ("router.vcs", json!(vcs)),
            ]);
            let t = topology::build(&config.topology).unwrap();
            let r = exanet_core::routing::build(&config.routing, t.as_ref(), vcs).unwrap();
            let follow = |draws: u32| {
                let coverage = exanet_core::routing::cdg::Coverage {
                    draws,
                    sources: None,
                    budget: u64::MAX,
                };
                exanet_core::routing::cdg::check(
                    t.as_ref(),
                    r.as_ref(),
                    vcs,
                    coverage,
                    1e9,
                    &mut |_| true,
                )
                .unwrap()
            };
            let distinct = r.distinct_draws();
            let (few, many) = (follow(distinct), follow(t.num_routers().max(distinct)));
            assert!(few.acyclic && many.acyclic, "{routing}");
            assert_eq!(
                (few.channels, few.dependencies),
                (many.channels, many.dependencies),
                "{routing} on {topology}: {distinct} draws"
            );
        }
    }
}
