//! How a run splits the network: four parts per thread where the network is large enough and
//! the finer split does not narrow the windows, else one part per thread; parts of at most
//! 2^20 router ports even on one thread.

use super::model::Network;
use crate::config::Config;
use serde_json::{json, Value};

fn torus(dims: &[u32], classes: Value, partition: Option<Vec<u32>>) -> Network {
    let mut text = json!({
        "seed": 1,
        "topology": {"kind": "torus", "dims": dims, "concentration": 1},
        "routing": {"kind": "dor", "allow_unsafe": false},
        "router": {"vcs": 2, "vc_buffer_bytes": 2048, "latency_ps": 50_000,
                   "arbitration": "round_robin", "in_transit_priority": 0.0},
        "links": {"default": {"latency_ps": 10_000, "bandwidth_bytes_per_s": 25_000_000_000u64},
                  "classes": classes},
        "nic": {"injection_bandwidth_bytes_per_s": 25_000_000_000u64,
                "injection_latency_ps": 20_000, "mtu_bytes": 4096, "header_bytes": 32},
        "traffic": {"kind": "synthetic", "pattern": "uniform", "process": "bernoulli",
                    "load": 0.1, "packet_bytes": 256},
        "run": {"warmup_ps": 0, "measure_ps": 100_000, "drain": "none",
                "drain_limit_ps": null, "duration_ps": null, "deadlock_timeout_ps": null}
    });
    if let Some(parts) = partition {
        text["partition"] = json!(parts);
    }
    Network::new(&Config::from_json(&text.to_string()).unwrap()).unwrap()
}

/// (parts, lookahead in ps) of the split `net` runs on `threads` threads (none: sequential).
fn split_or_not(net: &Network, threads: u32) -> Option<(u32, u64)> {
    let (partition, lookahead) = net.threaded_split(threads).unwrap()?;
    assert_eq!(
        partition.part_of.iter().max().map(|&p| p + 1),
        Some(partition.parts)
    );
    Some((partition.parts, lookahead))
}

fn split(net: &Network, threads: u32) -> (u32, u64) {
    split_or_not(net, threads).expect("a split")
}

#[test]
fn a_large_network_gets_four_parts_per_thread_of_128_routers_or_more() {
    let net = torus(&[32, 32], json!({}), None);
    assert_eq!(split(&net, 2), (8, 10_000));
    // 1,024 routers make at most 8 parts of 128.
    assert_eq!(split(&net, 3), (8, 10_000));
    assert_eq!(split(&net, 8), (8, 10_000));
    assert_eq!(split(&net, 16), (16, 10_000));
}

#[test]
fn a_small_network_keeps_one_part_per_thread() {
    let net = torus(&[16, 16], json!({}), None);
    assert_eq!(split_or_not(&net, 1), None);
    assert_eq!(split(&net, 2), (2, 10_000));
    assert_eq!(split(&net, 3), (3, 10_000));
}

#[test]
fn a_network_of_more_than_a_part_of_ports_is_split_on_one_thread_too() {
    // 163,840 routers of 7 ports: 1.15 M router ports, two parts of at most 2^20.
    let net = torus(&[64, 64, 40], json!({}), None);
    assert_eq!(split_or_not(&net, 1), Some((2, 10_000)));
    assert_eq!(split(&net, 2), (8, 10_000));
    // Just under: sequential.
    let net = torus(&[64, 64, 36], json!({}), None);
    assert_eq!(split_or_not(&net, 1), None);
}

#[test]
fn a_given_partition_keeps_its_parts() {
    let halves = (0..1024).map(|r| u32::from(r >= 512)).collect();
    let net = torus(&[32, 32], json!({}), Some(halves));
    assert_eq!(split(&net, 2), (2, 10_000));
}

#[test]
fn a_finer_split_that_cuts_shorter_links_is_not_taken() {
    // 4 slabs of an 8^4 torus cut only the slow dimension; 16 parts are blocks that cut a fast
    // one too, which would narrow the windows from 50 to 10 ns.
    let slow_last = json!({"dim3": {"latency_ps": 50_000,
                                    "bandwidth_bytes_per_s": 25_000_000_000u64}});
    let net = torus(&[8, 8, 8, 8], slow_last, None);
    assert_eq!(split(&net, 4), (4, 50_000));
    // With every link alike, the blocks cost nothing in window width.
    let net = torus(&[8, 8, 8, 8], json!({}), None);
    assert_eq!(split(&net, 4), (16, 10_000));
}
