//! Structural description: closed forms against breadth-first search and the partitioner, and
//! the diameters the literature gives for every family.

use exanet_core::analysis::{cut_links, min_bisection, RouterGraph};
use exanet_core::config::TopologyConfig;
use exanet_core::describe::{describe_topology, DescribeOptions, Method, TopologyDescription};
use exanet_core::topology::{self, Peer};
use serde_json::{json, Value};

fn describe(spec: Value) -> TopologyDescription {
    let config: TopologyConfig = serde_json::from_value(spec).unwrap();
    describe_topology(&config, &DescribeOptions::default()).unwrap()
}

/// The same topology measured with its closed forms hidden: a custom graph of the same links.
fn measured_as_custom(d: &TopologyDescription, spec: Value) -> TopologyDescription {
    let config: TopologyConfig = serde_json::from_value(spec).unwrap();
    let options = DescribeOptions {
        with_edges: true,
        ..DescribeOptions::default()
    };
    let full = describe_topology(&config, &options).unwrap();
    let links: Vec<[u32; 3]> = full.edges.unwrap();
    let topo = topology::build(&config).unwrap();
    let endpoints: Vec<u32> = (0..d.routers)
        .map(|r| {
            (0..topo.ports_per_router())
                .filter(|&p| matches!(topo.peer(r, p), Peer::Endpoint(_)))
                .count() as u32
        })
        .collect();
    describe(
        json!({"kind": "custom", "graph": {"routers": d.routers, "links": links,
        "class_names": d.links_by_class.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()},
        "endpoints": endpoints}),
    )
}

#[test]
fn diameters_of_every_family_match_the_literature() {
    let cases = [
        (json!({"kind": "slim_fly", "q": 5, "p": 4}), 2),
        (json!({"kind": "slim_fly", "q": 8, "p": 6}), 2),
        (json!({"kind": "polarfly", "q": 7, "p": 4}), 2),
        (
            json!({"kind": "fishnet", "base": {"kind": "hoffman_singleton"}, "p": 4}),
            4,
        ),
        (
            json!({"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 2}),
            5,
        ),
        (
            json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "absolute"}),
            3,
        ),
        (
            json!({"kind": "dragonfly_rc", "p": 2, "rows": 3, "cols": 4, "local_links": 1, "h": 2,
                "g": 25, "arrangement": "relative"}),
            5,
        ),
        (
            json!({"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 8, "taper": [1, 1]}),
            2,
        ),
        (
            json!({"kind": "fat_tree", "levels": 4, "radix": 6, "pods": 6, "taper": [1, 1]}),
            6,
        ),
        (
            json!({"kind": "express_mesh", "dims": [4, 3, 5], "gap": 1, "concentration": 1}),
            3,
        ),
        (
            json!({"kind": "torus", "dims": [5, 4, 6], "concentration": 1}),
            2 + 2 + 3,
        ),
    ];
    for (spec, diameter) in cases {
        let d = describe(spec.clone());
        assert_eq!(d.diameter, diameter, "{spec}");
        // Closed forms agree with exhaustive search on the same links.
        let m = measured_as_custom(&d, spec.clone());
        assert_eq!(m.diameter_method, Method::Exact);
        assert_eq!(m.diameter, diameter, "{spec} measured");
        assert!(
            (m.average_endpoint_distance - d.average_endpoint_distance).abs() < 1e-9,
            "{spec}: {} vs {}",
            m.average_endpoint_distance,
            d.average_endpoint_distance
        );
    }
}

#[test]
fn closed_form_bisections_equal_the_partitioners_minimum_on_small_instances() {
    let cases = [
        // 2 N / k for an even-radix torus.
        (
            json!({"kind": "torus", "dims": [8, 8], "concentration": 1}),
            16,
        ),
        (
            json!({"kind": "mesh", "dims": [6, 6], "concentration": 2}),
            6,
        ),
        // Half the leaves' up-links: 8 leaves x 2.
        (
            json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}),
            8,
        ),
        // HyperX 4 x 4: 4 lines x 2 x 2 crossing pairs.
        (
            json!({"kind": "express_mesh", "dims": [4, 4], "gap": 1, "concentration": 1}),
            16,
        ),
    ];
    for (spec, links) in cases {
        let d = describe(spec.clone());
        assert_eq!(d.bisection_method, Method::ClosedForm, "{spec}");
        assert_eq!(d.bisection_links, Some(links), "{spec}");
        assert_eq!(d.bisection_partitioner_links, Some(links), "{spec}");
    }
}

#[test]
fn graph_families_report_the_partitioners_cut_as_an_upper_bound() {
    let d = describe(json!({"kind": "slim_fly", "q": 5, "p": 4}));
    assert_eq!(d.bisection_method, Method::Partitioner);
    let cut = d.bisection_links.unwrap();
    // The partitioner starts from the split of the racks into halves, so it never cuts more
    // than that split does; and it cuts exactly what its own split cuts.
    let config: TopologyConfig =
        serde_json::from_value(json!({"kind": "slim_fly", "q": 5, "p": 4})).unwrap();
    let t = topology::build(&config).unwrap();
    let g = RouterGraph::from_topology(t.as_ref());
    let racks: Vec<bool> = (0..t.num_routers())
        .map(|r| t.group(r).unwrap() < 5)
        .collect();
    let rack_cut = cut_links(&g, &racks);
    assert!(cut <= rack_cut, "{cut} vs racks {rack_cut}");
    let best = min_bisection(&g, 4, 1, Some(&racks));
    assert_eq!(cut_links(&g, &best.side), best.cut_links);
    assert_eq!(best.cut_links, cut);
    // MMS q = 5 is the Hoffman–Singleton graph (eigenvalues 7, 2, -3): every 25/25 split cuts
    // at least (k - lambda_2) n / 4 = (7 - 2) 50 / 4 = 62.5 links (Fiedler's bound).
    assert!(cut >= 63, "{cut}");
}

#[test]
fn counts_balance_and_ports() {
    // 004 Iso-N A2A dragonfly: 17,400 links, balance 2 x 17,400 / (12,000 x 3) = 0.967.
    let d = describe(
        json!({"kind": "dragonfly", "p": 10, "a": 20, "h": 10, "g": 60,
                            "arrangement": "absolute"}),
    );
    assert_eq!(
        (d.endpoints, d.routers, d.network_links),
        (12_000, 1_200, 17_400)
    );
    assert_eq!(
        d.links_by_class,
        vec![("local".into(), 11_400), ("global".into(), 6_000)]
    );
    assert!((d.balance - 34_800.0 / 36_000.0).abs() < 1e-12);
    assert_eq!(
        (d.ports_used_min, d.ports_used_max, d.ports_free),
        (39, 39, 0)
    );
    assert_eq!(d.groups, Some(60));
    // A tapered fat-tree leaves no port free either; a 2-level one with fewer leaves does.
    let t =
        describe(json!({"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 6, "taper": [1, 1]}));
    assert_eq!((t.routers, t.endpoints), (6 + 3, 24));
    assert_eq!(t.ports_free, 3 * 8 - 24);
}

#[test]
fn path_diversity_counts_minimal_routes() {
    // A 3-level full fat-tree of radix 4: leaves in different pods have (k/2)^2 = 4 minimal
    // paths, leaves of one pod 2.
    let d =
        describe(json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}));
    let p = d.path_diversity.unwrap();
    assert_eq!((p.min, p.max), (2, 4));
    // A maximal dragonfly with one global link per pair: a single minimal path between routers
    // of different groups.
    let d = describe(json!({"kind": "dragonfly", "p": 1, "a": 4, "h": 1, "g": 5,
                            "arrangement": "relative"}));
    assert_eq!(d.path_diversity.unwrap().min, 1);
}

#[test]
fn wiring_is_symmetric_and_within_the_radix_for_every_family() {
    let cases = [
        (
            json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 6, "taper": [1, 1]}),
            8,
        ),
        (
            json!({"kind": "fat_tree", "levels": 4, "radix": 10, "pods": 7, "taper": [3, 2]}),
            10,
        ),
        (
            json!({"kind": "dragonfly", "p": 3, "a": 6, "h": 3, "g": 12, "arrangement": "circulant"}),
            3 + 5 + 3,
        ),
        (
            json!({"kind": "dragonfly_rc", "p": 2, "rows": 2, "cols": 3, "local_links": 2, "h": 2,
                "g": 8, "arrangement": "absolute"}),
            2 + 2 * (1 + 2) + 2,
        ),
        (
            json!({"kind": "dragonfly_plus", "p": 4, "leaves": 4, "spines": 4, "h": 4, "g": 10,
                "arrangement": "relative"}),
            8,
        ),
        (json!({"kind": "slim_fly", "q": 9, "p": 7}), 13 + 7),
        (json!({"kind": "polarfly", "q": 8, "p": 4}), 9 + 4),
        (
            json!({"kind": "jellyfish", "routers": 30, "degree": 6, "p": 3, "seed": 9}),
            9,
        ),
        (
            json!({"kind": "fishnet", "base": {"kind": "slim_fly", "q": 3}, "p": 2}),
            2 * 5 + 2,
        ),
        (
            json!({"kind": "fishnet_lite", "base": {"kind": "hoffman_singleton"}, "p": 3}),
            7 + 1 + 3,
        ),
        (
            json!({"kind": "express_mesh", "dims": [7, 5], "gap": 3, "concentration": 2}),
            2 + 3 + 2,
        ),
    ];
    for (spec, radix) in cases {
        let config: TopologyConfig = serde_json::from_value(spec.clone()).unwrap();
        let t = topology::build(&config).unwrap();
        assert_eq!(usize::from(t.ports_per_router()), radix, "{spec}");
        let mut endpoints_seen = vec![false; t.num_endpoints() as usize];
        for r in 0..t.num_routers() {
            for p in 0..t.ports_per_router() {
                match t.peer(r, p) {
                    Peer::Router { router, port } => {
                        assert_ne!(router, r, "{spec}: self-loop");
                        assert_eq!(
                            t.peer(router, port),
                            Peer::Router { router: r, port: p },
                            "{spec}"
                        );
                        assert_eq!(t.link_class(r, p), t.link_class(router, port), "{spec}");
                    }
                    Peer::Endpoint(e) => {
                        assert!(!endpoints_seen[e as usize], "{spec}: endpoint {e} twice");
                        endpoints_seen[e as usize] = true;
                        assert_eq!(t.endpoint_attachment(e), (r, p), "{spec}");
                    }
                    Peer::Unconnected => {}
                }
            }
        }
        assert!(
            endpoints_seen.iter().all(|&s| s),
            "{spec}: an endpoint hangs nowhere"
        );
    }
}

#[test]
fn impossible_designs_name_the_parameter_and_what_would_work() {
    let err = |spec: Value| {
        let config: TopologyConfig = serde_json::from_value(spec).unwrap();
        describe_topology(&config, &DescribeOptions::default()).unwrap_err()
    };
    let e = err(json!({"kind": "slim_fly", "q": 6, "p": 4}));
    assert_eq!(e.key, "topology.q");
    assert!(
        e.expected.contains('5') && e.expected.contains('7'),
        "{}",
        e.expected
    );
    let e = err(json!({"kind": "fat_tree", "levels": 3, "radix": 40, "pods": 30, "taper": [2, 1]}));
    assert_eq!(e.key, "topology.taper");
    let e = err(
        json!({"kind": "fishnet", "base": {"kind": "custom", "graph": {"routers": 6,
        "links": [[0,1,0],[1,2,0],[2,3,0],[3,4,0],[4,5,0],[5,0,0]], "class_names": ["local"]}},
        "p": 1}),
    );
    assert_eq!(e.key, "topology.base");
    let e = err(
        json!({"kind": "custom", "graph": {"routers": 3, "links": [[0, 3, 0]],
        "class_names": ["network"]}, "endpoints": [1, 1, 1]}),
    );
    assert_eq!(e.key, "topology.edges");
    assert!(e.value.contains("link 0"), "{}", e.value);
    let e = err(
        json!({"kind": "custom", "graph": {"routers": 4, "links": [[0, 1, 0], [2, 3, 0]],
        "class_names": ["network"]}, "endpoints": [1, 1, 1, 1]}),
    );
    assert!(e.expected.contains("connected"), "{}", e.expected);
}
