//! A lone packet's latency against the analytic value, to the picosecond.

use super::model::{NetEvent, Network};
use crate::config::Config;
use crate::engine::{Scheduler, Step};
use serde_json::json;

fn config(dims: &[u32], concentration: u32, router_ps: u64, dim1_bytes_per_s: u64) -> Config {
    let text = json!({
        "seed": 3,
        "topology": {"kind": "torus", "dims": dims, "concentration": concentration},
        "routing": {"kind": "dor", "allow_unsafe": false},
        "router": {"vcs": 2, "vc_buffer_bytes": 4096, "latency_ps": router_ps,
                   "arbitration": "round_robin", "in_transit_priority": 0.0},
        "links": {"default": {"latency_ps": 20_000, "bandwidth_bytes_per_s": 25_000_000_000u64},
                  "classes": {"dim1": {"latency_ps": 35_000,
                                       "bandwidth_bytes_per_s": dim1_bytes_per_s}}},
        "nic": {"injection_bandwidth_bytes_per_s": 25_000_000_000u64,
                "injection_latency_ps": 7_000, "mtu_bytes": 4096, "header_bytes": 32},
        "traffic": {"kind": "synthetic", "pattern": "uniform", "process": "bernoulli",
                    "load": 0.5, "packet_bytes": 256},
        "run": {"warmup_ps": 0, "measure_ps": 1_000_000_000, "drain": "all",
                "drain_limit_ps": null, "duration_ps": null, "deadlock_timeout_ps": null}
    });
    Config::from_json(&text.to_string()).unwrap()
}

/// Sends one packet through an otherwise idle network and returns its latency in ps.
fn lone_packet_ps(config: &Config, src: u32, dst: u32) -> u64 {
    let mut net = Network::new(config).unwrap();
    let mut sched = Scheduler::new();
    net.send_message(0, 0, src, dst, 256, super::state::NO_TOKEN);
    let nic = net.nic_entity(src);
    sched.schedule(0, nic, nic, NetEvent::NicWake);
    while sched.step(&mut net) != Step::Idle {}
    assert_eq!(net.stats.delivered, 1);
    assert_eq!(net.stats.latency.count(), 1);
    net.stats.latency.max_ps() as u64
}

#[test]
fn equal_link_speeds_pay_serialization_once() {
    // 288 B at 25 GB/s = 11_520 ps; NIC links 7 ns; router 50 ns; dim0 20 ns, dim1 35 ns.
    let ser = 11_520;
    let cfg = config(&[8, 8], 1, 50_000, 25_000_000_000);
    let analytic = |x_hops: u64, y_hops: u64| {
        2 * 7_000 + (x_hops + y_hops + 1) * 50_000 + x_hops * 20_000 + y_hops * 35_000 + ser
    };
    // endpoint = x + 8 y
    assert_eq!(lone_packet_ps(&cfg, 0, 0), analytic(0, 0));
    assert_eq!(lone_packet_ps(&cfg, 0, 1), analytic(1, 0));
    assert_eq!(lone_packet_ps(&cfg, 0, 3 + 2 * 8), analytic(3, 2));
    // wrap-around: 1 -> 7 is 2 hops down in x; 8 * 6 -> 0 is 2 hops up in y
    assert_eq!(lone_packet_ps(&cfg, 1, 7), analytic(2, 0));
    assert_eq!(lone_packet_ps(&cfg, 6 * 8, 0), analytic(0, 2));
    // diameter: 4 + 4
    assert_eq!(lone_packet_ps(&cfg, 0, 4 + 4 * 8), analytic(4, 4));
}

#[test]
fn concentration_and_three_dimensions() {
    // 4x4x4 torus, 2 endpoints per router: endpoint e sits on router e / 2.
    let cfg = config(&[4, 4, 4], 2, 30_000, 25_000_000_000);
    let analytic = |x: u64, y: u64, z: u64| {
        2 * 7_000 + (x + y + z + 1) * 30_000 + (x + z) * 20_000 + y * 35_000 + 11_520
    };
    assert_eq!(lone_packet_ps(&cfg, 0, 1), analytic(0, 0, 0)); // same router
    let router = |x: u32, y: u32, z: u32| x + 4 * y + 16 * z;
    assert_eq!(
        lone_packet_ps(&cfg, 0, 2 * router(1, 2, 2) + 1),
        analytic(1, 2, 2)
    );
}

#[test]
fn a_faster_link_waits_for_the_tail() {
    // Zero router latency: on a hop from a 25 GB/s link onto a 50 GB/s one the packet cannot
    // start before (tail arrival - its shorter serialization), so it pays the difference.
    let cfg = config(&[8, 8], 1, 0, 50_000_000_000);
    let slow = 11_520;
    let fast = 5_760;
    // 0 -> (1,1): inject (slow), x hop (slow), y hop (fast), eject (slow).
    let expected = 7_000 + 20_000 + (slow - fast) + 35_000 + 7_000 + slow;
    assert_eq!(lone_packet_ps(&cfg, 0, 1 + 8), expected);
}

#[test]
fn the_output_latency_delays_every_router_a_packet_passes() {
    // Merlin-like input and output sides, 30 ns each: a packet passing x + y + 1 routers (the
    // last one toward the endpoint) pays both at each, and its serialization once.
    let mut cfg = config(&[8, 8], 1, 30_000, 25_000_000_000);
    cfg.router.output_latency_ps = 30_000;
    let analytic = |x_hops: u64, y_hops: u64| {
        2 * 7_000
            + (x_hops + y_hops + 1) * (30_000 + 30_000)
            + x_hops * 20_000
            + y_hops * 35_000
            + 11_520
    };
    assert_eq!(lone_packet_ps(&cfg, 0, 0), analytic(0, 0));
    assert_eq!(lone_packet_ps(&cfg, 0, 3 + 2 * 8), analytic(3, 2));
    assert_eq!(lone_packet_ps(&cfg, 0, 4 + 4 * 8), analytic(4, 4));
}

#[test]
fn digit_compare_lanes_take_the_dateline_routes_and_times() {
    use crate::config::{RoutingConfig, VcRule};
    let dateline = config(&[8, 8], 1, 50_000, 25_000_000_000);
    let mut digit = dateline.clone();
    digit.routing = RoutingConfig::Dor {
        allow_unsafe: false,
        vc_rule: VcRule::DigitCompare,
    };
    for src in [0, 9, 27, 63] {
        for dst in 0..64 {
            assert_eq!(
                lone_packet_ps(&digit, src, dst),
                lone_packet_ps(&dateline, src, dst),
                "{src}->{dst}"
            );
        }
    }
}
