//! Shared helpers of the integration tests: a default configuration and a way to change it.
#![allow(dead_code)]

use exanet_core::stats::{ColumnData, Table};
use exanet_core::{simulate, Config, RunOutput, SimError};
use serde_json::{json, Value};

/// 8x8 torus, 2 VCs, DOR, uniform Bernoulli at 30%, 256 B packets, 25 GB/s links.
pub fn base() -> Value {
    json!({
        "seed": 1,
        "topology": {"kind": "torus", "dims": [8, 8], "concentration": 1},
        "routing": {"kind": "dor", "allow_unsafe": false},
        "router": {"vcs": 2, "vc_buffer_bytes": 2048, "latency_ps": 50000,
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
    })
}

/// Sets `value` at a dotted path ("traffic.load").
pub fn set(config: &mut Value, path: &str, value: Value) {
    let mut node = config;
    let keys: Vec<&str> = path.split('.').collect();
    for key in &keys[..keys.len() - 1] {
        node = node.get_mut(*key).unwrap_or_else(|| panic!("no key {key}"));
    }
    node[keys[keys.len() - 1]] = value;
}

pub fn with(changes: &[(&str, Value)]) -> Config {
    let mut config = base();
    for (path, value) in changes {
        set(&mut config, path, value.clone());
    }
    Config::from_json(&config.to_string()).expect("valid test config")
}

pub fn run(config: &Config) -> Result<RunOutput, SimError> {
    simulate(config, 1.0, &mut |_| true)
}

pub fn run_ok(config: &Config) -> RunOutput {
    run(config).unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Column `name` of `table`, integers widened to f64.
pub fn column_f64(table: &Table, name: &str) -> Vec<f64> {
    match &table.columns.iter().find(|c| c.name == name).unwrap().data {
        ColumnData::F64(v) => v.clone(),
        ColumnData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        ColumnData::U32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        other => panic!("{name}: {other:?}"),
    }
}

/// Column `name` of `table`, which must hold unsigned integers.
pub fn column_u64(table: &Table, name: &str) -> Vec<u64> {
    match &table.columns.iter().find(|c| c.name == name).unwrap().data {
        ColumnData::U64(v) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

/// A small instance of every family but tori and meshes: (name, topology, the fewest VCs
/// minimal routing accepts).
pub fn families() -> Vec<(&'static str, Value, u32)> {
    vec![
        (
            "fat_tree",
            json!({"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4, "taper": [1, 1]}),
            1,
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
        (
            "midimew",
            json!({"kind": "midimew", "nodes": 18, "concentration": 2}),
            3,
        ),
    ]
}
