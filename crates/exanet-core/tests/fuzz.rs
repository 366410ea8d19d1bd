//! Fuzzing of the core's config and topology builders (issue 17): configs mutated from valid
//! ones, key by key, must either be accepted or refused with a `ConfigError` naming a key,
//! never panic, and never allocate more than the memory limit. A short run is part of the test
//! suite; before a release run it long: `PROPTEST_CASES=20000 cargo test --test fuzz`.
//! Failures proptest finds are kept in `tests/fuzz.proptest-regressions` and replayed first.

mod common;

use std::sync::Once;

use common::{base, set};
use exanet_core::{describe, simulate, Config, SimError};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A limit far below the machine's, so that a mutated size is refused in microseconds
/// instead of being built (set once, before any test reads it).
fn limit_memory() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::env::set_var(exanet_core::memory::MEMORY_LIMIT_VAR, "268435456"));
}

/// Valid starting points, one per family shape and workload kind.
fn seeds() -> Vec<Value> {
    let mut seeds = vec![base()];
    let mut add = |path: &str, value: Value, extra: &[(&str, Value)]| {
        let mut config = base();
        set(&mut config, path, value);
        for (p, v) in extra {
            set(&mut config, p, v.clone());
        }
        seeds.push(config);
    };
    let minimal = json!({"kind": "minimal", "selection": "adaptive", "escape": "none",
                         "threshold": 0.5});
    add(
        "topology",
        json!({"kind": "fat_tree", "levels": 3, "radix": 4, "pods": 4, "taper": [1, 1]}),
        &[("routing", minimal.clone()), ("router.vcs", json!(4))],
    );
    add(
        "topology",
        json!({"kind": "fat_tree", "levels": 2, "radix": 8, "pods": 8, "taper": [1, 1],
               "planes": 2, "plane_wiring": "rails"}),
        &[
            ("routing", minimal.clone()),
            ("nic.striping", json!("packet")),
            ("traffic.packet_bytes", json!(9000)),
            ("router.vc_buffer_bytes", json!(8192)),
        ],
    );
    add(
        "topology",
        json!({"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9,
               "arrangement": "absolute"}),
        &[
            ("routing", json!({"kind": "ugal_l", "threshold": 0.0})),
            ("router.vcs", json!(3)),
        ],
    );
    add(
        "topology",
        json!({"kind": "slim_fly", "q": 5, "p": 3}),
        &[("routing", minimal.clone())],
    );
    add(
        "topology",
        json!({"kind": "fishnet_lite", "base": {"kind": "petersen"}, "p": 2}),
        &[("routing", minimal.clone()), ("router.vcs", json!(5))],
    );
    add(
        "topology",
        json!({"kind": "custom", "endpoints": [1, 1, 1],
               "graph": {"routers": 3, "links": [[0, 1, 0], [1, 2, 0]],
                         "class_names": ["local"]}}),
        &[("routing", minimal), ("router.vcs", json!(2))],
    );
    add(
        "traffic",
        json!({"kind": "jobs", "eager_limit_bytes": 8192, "send_overhead_ps": 0,
               "recv_overhead_ps": 0,
               "jobs": [{"name": "a", "app": "allreduce", "ranks": 8, "message_bytes": 4096,
                         "placement": {"kind": "linear"}}]}),
        &[("router.vc_buffer_bytes", json!(8192))],
    );
    add(
        "traffic",
        json!({"kind": "burst", "pattern": "uniform", "packet_bytes": 256,
               "packets_per_burst": 4, "bursts": 2}),
        &[],
    );
    seeds
}

/// The leaf and table paths of `value`, dotted, with array indices as further parts.
fn paths(value: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                prefix.push(key.clone());
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate().take(4) {
                prefix.push(i.to_string());
                out.push(prefix.clone());
                paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn slot<'a>(root: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(root, |node, part| match node {
        Value::Object(map) => map.get_mut(part),
        Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
        _ => None,
    })
}

/// Values a mutation puts in: boundaries of every integer width, odd floats, wrong types.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(0)),
        Just(json!(1)),
        Just(json!(-1)),
        Just(json!(255)),
        Just(json!(65_535)),
        Just(json!(65_536)),
        Just(json!(u32::MAX)),
        Just(json!(u64::from(u32::MAX) + 1)),
        Just(json!(i64::MAX)),
        Just(json!(u64::MAX)),
        Just(json!(1e300)),
        Just(json!(-0.5)),
        Just(json!(1.5)),
        Just(json!(true)),
        Just(json!(null)),
        Just(json!("")),
        Just(json!("torus")),
        Just(json!("adaptive")),
        Just(json!([])),
        Just(json!({})),
        (0u64..100_000).prop_map(|n| json!(n)),
        (0u64..40).prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        "[a-z_]{1,12}".prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A mutation: replace the value at a path, or remove the key there.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, Value),
    Remove(usize),
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(
        prop_oneof![
            4 => (any::<usize>(), any_value()).prop_map(|(i, v)| Mutation::Replace(i, v)),
            1 => any::<usize>().prop_map(Mutation::Remove),
        ],
        1..4,
    )
}

fn mutate(mut config: Value, mutations: &[Mutation]) -> Value {
    for mutation in mutations {
        let mut all = Vec::new();
        paths(&config, &mut Vec::new(), &mut all);
        let (index, value) = match mutation {
            Mutation::Replace(i, v) => (*i, Some(v.clone())),
            Mutation::Remove(i) => (*i, None),
        };
        let path = &all[index % all.len()];
        let (last, parent) = path.split_last().expect("a path has a key");
        match (slot(&mut config, parent), value) {
            (Some(Value::Object(map)), None) => {
                map.remove(last);
            }
            (Some(parent), Some(value)) => {
                if let Some(target) = slot(parent, std::slice::from_ref(last)) {
                    *target = value;
                }
            }
            _ => {}
        }
    }
    config
}

/// Keys a refusal may name: a dotted path of core or user keys, never empty.
fn assert_named(key: &str, text: &str) {
    assert!(
        !key.is_empty() && !key.contains(' ') && !key.starts_with('.'),
        "error names no key: {key:?} ({text})"
    );
}

/// A seed that is itself refused would only fuzz the parser (the dragonfly's once was).
#[test]
fn every_seed_is_a_valid_config() {
    limit_memory();
    for seed in seeds() {
        let config = Config::from_json(&seed.to_string()).expect("seed parses");
        describe(&config).unwrap_or_else(|e| panic!("seed {seed} refused: {e}"));
    }
}

proptest! {
    // A fixed seed: CI runs the same 384 cases every time. A random seed once drew an
    // injection link so fast that generation gaps rounded to 0 ps and the run never ended
    // (refused since, see fine_grained.rs); other seeds are for long runs by hand.
    #![proptest_config(ProptestConfig {
        cases: 384,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261125),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_configs_are_described_or_refused_by_key(
        seed in 0usize..8,
        mutations in mutations(),
    ) {
        limit_memory();
        let seeds = seeds();
        let config = mutate(seeds[seed % seeds.len()].clone(), &mutations);
        match Config::from_json(&config.to_string()) {
            Err(e) => assert_named(&e.key, &e.to_string()),
            Ok(parsed) => {
                if let Err(e) = describe(&parsed) {
                    assert_named(&e.key, &e.to_string());
                }
            }
        }
    }

    #[test]
    fn mutated_synthetic_configs_simulate_or_fail_cleanly(
        seed in 0usize..8,
        mutations in mutations(),
    ) {
        limit_memory();
        let seeds = seeds();
        let mut config = mutate(seeds[seed % seeds.len()].clone(), &mutations);
        // A short fixed-duration run, whatever the mutation did to [run].
        config["run"] = json!({"warmup_ps": 0, "measure_ps": 1, "drain": "none",
                               "drain_limit_ps": null, "duration_ps": 1_000_000,
                               "deadlock_timeout_ps": null});
        let Ok(parsed) = Config::from_json(&config.to_string()) else {
            return Ok(());
        };
        if describe(&parsed).is_err() || config["traffic"]["kind"] != "synthetic" {
            return Ok(());
        }
        match simulate(&parsed, 60.0, &mut |_| true) {
            Ok(_) | Err(SimError::Deadlock(_)) => {}
            Err(SimError::Config(e)) => assert_named(&e.key, &e.to_string()),
            Err(other) => panic!("unexpected outcome: {other}"),
        }
    }
}
