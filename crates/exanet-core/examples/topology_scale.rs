//! Builds and describes every topology family at about 100,000 endpoints and prints the wall
//! time of each step (BENCHMARKS.md, "Topology library"). Run with
//! `cargo run --release -p exanet-core --example topology_scale [family]`.

use std::time::Instant;

use exanet_core::config::TopologyConfig;
use exanet_core::describe::{describe_topology, DescribeOptions};
use exanet_core::topology;
use serde_json::json;

fn families() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "torus",
            json!({"kind": "torus", "dims": [32, 32, 32], "concentration": 3}),
        ),
        (
            "fat_tree",
            json!({"kind": "fat_tree", "levels": 3, "radix": 74, "pods": 74, "taper": [1, 1]}),
        ),
        (
            "dragonfly",
            json!({"kind": "dragonfly", "p": 16, "a": 32, "h": 16, "g": 196, "arrangement": "absolute"}),
        ),
        (
            "dragonfly_rc",
            json!({"kind": "dragonfly_rc", "p": 4, "rows": 6, "cols": 16, "local_links": 1, "h": 4, "g": 260, "arrangement": "relative"}),
        ),
        (
            "dragonfly_plus",
            json!({"kind": "dragonfly_plus", "p": 32, "leaves": 32, "spines": 32, "h": 32, "g": 98, "arrangement": "absolute"}),
        ),
        ("slim_fly", json!({"kind": "slim_fly", "q": 53, "p": 18})),
        ("polarfly", json!({"kind": "polarfly", "q": 61, "p": 27})),
        (
            "jellyfish",
            json!({"kind": "jellyfish", "routers": 6250, "degree": 32, "p": 16, "seed": 1}),
        ),
        (
            "fishnet",
            json!({"kind": "fishnet", "base": {"kind": "slim_fly", "q": 7}, "p": 10}),
        ),
        (
            "fishnet_lite",
            json!({"kind": "fishnet_lite", "base": {"kind": "slim_fly", "q": 7}, "p": 10}),
        ),
        (
            "express_mesh",
            json!({"kind": "express_mesh", "dims": [22, 22, 22], "gap": 1, "concentration": 10}),
        ),
    ]
}

fn main() {
    let only = std::env::args().nth(1);
    println!(
        "{:<15} {:>9} {:>8} {:>10} {:>8} {:>11} {:>5} {:>8} {:>10}",
        "family",
        "endpoints",
        "routers",
        "links",
        "build_s",
        "describe_s",
        "diam",
        "avg_hops",
        "bisection"
    );
    for (name, spec) in families() {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let config: TopologyConfig = serde_json::from_value(spec).expect("valid spec");
        let start = Instant::now();
        let built = topology::build(&config).expect("buildable");
        let build_s = start.elapsed().as_secs_f64();
        drop(built);
        let start = Instant::now();
        let d = describe_topology(&config, &DescribeOptions::default()).expect("describable");
        let describe_s = start.elapsed().as_secs_f64();
        println!(
            "{:<15} {:>9} {:>8} {:>10} {:>8.3} {:>11.2} {:>5} {:>8.3} {:>10}",
            name,
            d.endpoints,
            d.routers,
            d.network_links,
            build_s,
            describe_s,
            d.diameter,
            d.average_endpoint_distance,
            d.bisection_links.map_or("-".to_string(), |b| b.to_string()),
        );
    }
}
