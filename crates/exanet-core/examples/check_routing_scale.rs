//! Times `check_routing` (the channel-dependency-graph proof) on mid-size and large networks and
//! prints its answer (BENCHMARKS.md, "exanet check routing"). Run with
//! `cargo run --release -p exanet-core --example check_routing_scale [case [sources]]`.

use std::time::Instant;

use exanet_core::{check_routing, Config};
use serde_json::{json, Value};

fn cases() -> Vec<(&'static str, Value, Value, u32)> {
    vec![
        (
            "dragonfly_264_ugal_l",
            json!({"kind": "dragonfly", "p": 4, "a": 8, "h": 4, "g": 33, "arrangement": "absolute"}),
            json!({"kind": "ugal_l"}),
            3,
        ),
        (
            "slim_fly_338_minimal",
            json!({"kind": "slim_fly", "q": 13, "p": 1}),
            json!({"kind": "minimal", "selection": "adaptive"}),
            2,
        ),
        (
            "dragonfly_6272_ugal_l",
            json!({"kind": "dragonfly", "p": 16, "a": 32, "h": 16, "g": 196, "arrangement": "absolute"}),
            json!({"kind": "ugal_l"}),
            3,
        ),
    ]
}

fn config(topology: &Value, routing: &Value, vcs: u32) -> Config {
    let config = json!({
        "seed": 1,
        "topology": topology,
        "routing": routing,
        "router": {"vcs": vcs, "vc_buffer_bytes": 2048, "latency_ps": 50000,
                   "arbitration": "round_robin", "in_transit_priority": 0.0},
        "links": {"default": {"latency_ps": 20000, "bandwidth_bytes_per_s": 25_000_000_000u64},
                  "classes": {}},
        "nic": {"injection_bandwidth_bytes_per_s": 25_000_000_000u64, "injection_latency_ps": 20000,
                "mtu_bytes": 4096, "header_bytes": 32},
        "traffic": {"kind": "synthetic", "pattern": "uniform", "process": "bernoulli",
                    "load": 0.3, "packet_bytes": 256, "hotspot_endpoints": [0],
                    "hotspot_fraction": 0.1},
        "run": {"warmup_ps": 2_000_000, "measure_ps": 10_000_000, "drain": "measured",
                "drain_limit_ps": null, "duration_ps": null, "deadlock_timeout_ps": null}
    });
    Config::from_json(&config.to_string()).expect("valid benchmark config")
}

fn main() {
    let wanted = std::env::args().nth(1);
    let sources = std::env::args()
        .nth(2)
        .map(|s| s.parse().expect("a source count"));
    for (name, topology, routing, vcs) in cases() {
        if wanted.as_ref().is_some_and(|w| w != name) {
            continue;
        }
        let start = Instant::now();
        let check = check_routing(&config(&topology, &routing, vcs), sources, 1024).unwrap();
        println!(
            "{name}: {:.1} s, acyclic {}, {} of {} sources, {} channels, {} dependencies, {} pairs x {} draws",
            start.elapsed().as_secs_f64(),
            check.acyclic,
            check.sources_followed,
            check.sources_total,
            check.channels,
            check.dependencies,
            check.pairs,
            check.draws_per_pair,
        );
    }
}
