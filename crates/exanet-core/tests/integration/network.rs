//! Facts about whole runs: conservation, determinism, Little's law, channel-load bounds,
//! saturation, average hops, deadlock freedom and the deadlock watchdog.

use crate::common;

use common::*;
use exanet_core::stats::{ColumnData, Value};
use exanet_core::{describe, SimError};
use serde_json::{json, Value as Json};

/// Uniform traffic on the default network at `load`, with extra changes.
fn at_load(load: f64, changes: &[(&str, Json)]) -> exanet_core::Config {
    let mut all = vec![("traffic.load", json!(load))];
    all.extend(changes.iter().cloned());
    with(&all)
}

#[test]
fn every_packet_is_delivered_exactly_once_for_every_pattern() {
    for pattern in [
        "uniform",
        "transpose",
        "shuffle",
        "bit_reverse",
        "bit_complement",
        "tornado",
        "neighbor",
        "random_permutation",
        "hotspot",
    ] {
        for process in ["bernoulli", "poisson"] {
            let out = run_ok(&at_load(
                0.4,
                &[
                    ("traffic.pattern", json!(pattern)),
                    ("traffic.process", json!(process)),
                    ("run.drain", json!("all")),
                ],
            ));
            let s = &out.summary;
            let generated = s.u64("packets_generated");
            assert!(generated > 1000, "{pattern}: only {generated} packets");
            assert_eq!(s.u64("packets_injected"), generated, "{pattern}");
            assert_eq!(s.u64("packets_delivered"), generated, "{pattern}");
            assert_eq!(s.u64("packets_in_flight_end"), 0, "{pattern}");
            assert_eq!(s.u64("packets_misdelivered"), 0, "{pattern}");
            assert_eq!(
                s.get("delivery_checksum_ok"),
                Some(&Value::Bool(true)),
                "{pattern}"
            );
            assert_eq!(s.get("drained"), Some(&Value::Bool(true)), "{pattern}");
        }
    }
}

#[test]
fn segmented_messages_are_reassembled() {
    // 10_000 B messages over a 4 KiB MTU: 3 packets each, 2 of 4128 B and 1 of 1840 B.
    let out = run_ok(&at_load(
        0.3,
        &[
            ("traffic.packet_bytes", json!(10_000)),
            ("router.vc_buffer_bytes", json!(8192)),
            ("run.drain", json!("all")),
        ],
    ));
    let s = &out.summary;
    assert_eq!(s.u64("packets_generated") % 3, 0);
    assert_eq!(s.u64("packets_delivered"), s.u64("packets_generated"));
    assert_eq!(s.get("delivery_checksum_ok"), Some(&Value::Bool(true)));
    // A message completes with its last packet, after its others: later than its packets on
    // average (its latencies are its own, not its packets', which one-packet messages share).
    assert!(s.f64("message_latency_ns_mean") > s.f64("latency_ns_mean"));
    let endpoints = out.endpoints();
    let Some(ColumnData::U64(bytes)) = endpoints.column("bytes_generated") else {
        panic!("no bytes_generated column")
    };
    let Some(ColumnData::U64(packets)) = endpoints.column("packets_generated") else {
        panic!("no packets_generated column")
    };
    for (b, p) in bytes.iter().zip(packets) {
        assert_eq!(*b, p / 3 * (2 * 4128 + 1840));
    }
}

#[test]
fn same_seed_same_numbers_other_seed_other_numbers() {
    let strip = |out: exanet_core::RunOutput| {
        let tables = (out.endpoints(), out.links());
        let mut s = out.summary;
        s.entries
            .retain(|(k, _)| !matches!(*k, "wall_s" | "events_per_s" | "packet_hops_per_s"));
        (s, tables)
    };
    let config = at_load(0.5, &[("traffic.process", json!("poisson"))]);
    let a = strip(run_ok(&config));
    let b = strip(run_ok(&config));
    assert_eq!(a, b);
    let c = strip(run_ok(&at_load(
        0.5,
        &[("traffic.process", json!("poisson")), ("seed", json!(2))],
    )));
    assert_ne!(a.0, c.0);
}

#[test]
fn littles_law_holds_at_half_saturation_on_a_16x16_torus() {
    // The 16x16 torus with 2 VCs keeps up with 20% offered load and not with 30% (see the
    // saturation test); half of its saturation load is about 12%.
    let out = run_ok(&at_load(
        0.12,
        &[
            ("topology.dims", json!([16, 16])),
            ("run.warmup_ps", json!(5_000_000)),
            ("run.measure_ps", json!(100_000_000)),
        ],
    ));
    let s = &out.summary;
    let error = s.f64("littles_law_error");
    println!(
        "Little: L = {:.2} packets, lambda*W = {:.2} packets, error {:.4}%",
        s.f64("in_flight_packets_mean"),
        s.f64("littles_law_packets"),
        100.0 * error
    );
    assert!(error < 0.02, "Little's law off by {error}");
    assert!(s.f64("in_flight_packets_mean") > 100.0);
}

/// Largest offered load (fraction of injection bandwidth) that the network keeps up with
/// (accepted >= 97% of offered), by bisection between 0 and `bound`.
fn saturation_load(changes: &[(&str, Json)], bound: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, bound);
    for _ in 0..7 {
        let load = (lo + hi) / 2.0;
        let mut all = changes.to_vec();
        all.extend([
            ("run.drain", json!("none")),
            ("run.warmup_ps", json!(10_000_000)),
            ("run.measure_ps", json!(30_000_000)),
        ]);
        let s = run_ok(&at_load(load, &all)).summary;
        if s.f64("accepted_load") >= 0.97 * s.f64("offered_load") {
            lo = load;
        } else {
            hi = load;
        }
    }
    lo
}

#[test]
fn uniform_traffic_respects_the_channel_load_bound() {
    // Bidirectional k-ary torus with c = 1: 8/k of a link per endpoint; mesh: 4/k. Links and
    // injection run at the same speed here, so the bound is also a fraction of injection.
    for (kind, k, bound) in [("torus", 8, 1.0), ("torus", 16, 0.5), ("mesh", 8, 0.5)] {
        for load in [0.5, 1.0] {
            let s = run_ok(&at_load(
                load,
                &[
                    ("topology.kind", json!(kind)),
                    ("topology.dims", json!([k, k])),
                    ("run.drain", json!("none")),
                ],
            ))
            .summary;
            let accepted = s.f64("accepted_load");
            assert!(
                accepted <= bound,
                "{kind} {k}: accepted {accepted} > bound {bound}"
            );
            assert!(s.f64("link_util_max") <= 1.0);
        }
    }
}

#[test]
fn saturation_throughput_against_the_bound() {
    let torus8 = saturation_load(&[], 1.0);
    let mesh8 = saturation_load(&[("topology.kind", json!("mesh"))], 0.5);
    let mesh8_1vc = saturation_load(
        &[("topology.kind", json!("mesh")), ("router.vcs", json!(1))],
        0.5,
    );
    let torus16 = saturation_load(&[("topology.dims", json!([16, 16]))], 0.5);
    println!(
        "saturation (fraction of injection bandwidth; of the bound): 8x8 torus {torus8:.3} ({:.0}%), \
         8x8 mesh 2 VCs {mesh8:.3} ({:.0}%), 8x8 mesh 1 VC {mesh8_1vc:.3} ({:.0}%), \
         16x16 torus {torus16:.3} ({:.0}%)",
        100.0 * torus8,
        100.0 * mesh8 / 0.5,
        100.0 * mesh8_1vc / 0.5,
        100.0 * torus16 / 0.5
    );
    assert!(torus8 >= 0.30, "8x8 torus saturates at {torus8}");
    assert!(mesh8 >= 0.60 * 0.5, "8x8 mesh saturates at {mesh8}");
    assert!(
        mesh8_1vc >= 0.60 * 0.5,
        "8x8 mesh with 1 VC saturates at {mesh8_1vc}"
    );
    assert!(torus16 >= 0.20, "16x16 torus saturates at {torus16}");
}

#[test]
fn more_vcs_or_deeper_buffers_never_lower_torus_saturation() {
    let sat = |vcs: u32, buffer: u64| {
        saturation_load(
            &[
                ("router.vcs", json!(vcs)),
                ("router.vc_buffer_bytes", json!(buffer)),
            ],
            1.0,
        )
    };
    let base = sat(2, 2048);
    let vcs4 = sat(4, 2048);
    let vcs8 = sat(8, 2048);
    let deep = sat(2, 8192);
    println!("8x8 torus saturation: 2 VCs {base:.3}, 4 VCs {vcs4:.3}, 8 VCs {vcs8:.3}, 2 VCs x 8 KiB {deep:.3}");
    // Bisection resolves 1/128 of the range.
    let step = 1.0 / 128.0;
    assert!(vcs4 + step >= base);
    assert!(vcs8 + step >= vcs4);
    assert!(deep + step >= base);
}

#[test]
fn average_hops_match_the_exact_average_distance() {
    for (kind, dims) in [
        ("torus", json!([8, 8])),
        ("mesh", json!([6, 5])),
        ("torus", json!([4, 4, 4])),
    ] {
        let config = at_load(
            0.1,
            &[
                ("topology.kind", json!(kind)),
                ("topology.dims", dims.clone()),
                ("run.measure_ps", json!(100_000_000)),
            ],
        );
        let exact = describe(&config).unwrap().average_distance_hops;
        let s = run_ok(&config).summary;
        let measured = s.f64("hops_mean");
        let packets = s.f64("packets_measured_delivered");
        assert!(packets > 20_000.0);
        // Distances vary by a few hops; the mean of n samples is within 1% with margin.
        assert!(
            (measured / exact - 1.0).abs() < 0.01,
            "{kind} {dims}: measured {measured}, exact {exact}"
        );
    }
}

#[test]
fn mesh_and_two_vc_torus_run_full_load_without_deadlock() {
    for (kind, vcs) in [("mesh", 1), ("torus", 2)] {
        let s = run_ok(&at_load(
            1.0,
            &[
                ("topology.kind", json!(kind)),
                ("router.vcs", json!(vcs)),
                ("run.duration_ps", json!(100_000_000)),
                ("run.deadlock_timeout_ps", json!(2_000_000)),
            ],
        ))
        .summary;
        // Delivering steadily to the end: the last 10% of the run delivered packets too.
        assert!(
            s.f64("accepted_load") > 0.2,
            "{kind}: {}",
            s.f64("accepted_load")
        );
        assert!(s.u64("packets_delivered") > 100_000);
    }
}

#[test]
fn one_vc_torus_deadlocks_and_the_watchdog_names_the_cycle() {
    let config = at_load(
        1.0,
        &[
            ("router.vcs", json!(1)),
            ("routing.allow_unsafe", json!(true)),
            ("run.duration_ps", json!(1_000_000_000)),
        ],
    );
    let Err(SimError::Deadlock(report)) = run(&config) else {
        panic!("a 1-VC torus under DOR at full load must deadlock");
    };
    println!("{report}");
    assert!(report.time_ps < 1_000_000_000);
    assert!(report.packets_in_network > 0);
    assert!(!report.stuck_channels.is_empty());
    let cycle = &report.cycle;
    assert!(cycle.len() >= 2, "no cycle found");
    // Each channel's downstream router sends on the next channel of the cycle, which closes.
    for (i, channel) in cycle.iter().enumerate() {
        let next = &cycle[(i + 1) % cycle.len()];
        assert_eq!(
            channel.peer_router, next.router,
            "{} then {}",
            channel.name, next.name
        );
        assert_eq!(channel.vc, 0);
        assert!(channel.credits_bytes < 288, "{} has room", channel.name);
    }
    // A DOR cycle lies in one ring: all its channels go the same way along one dimension.
    assert!(cycle.iter().all(|c| c.port_name == cycle[0].port_name));
}

#[test]
fn bad_combinations_name_the_key() {
    let expect = |changes: &[(&str, Json)], key: &str| {
        let mut config = base();
        for (path, value) in changes {
            set(&mut config, path, value.clone());
        }
        let err = exanet_core::Config::from_json(&config.to_string())
            .and_then(|c| describe(&c).map(|_| ()))
            .expect_err("must be refused");
        assert_eq!(err.key, key, "{err}");
    };
    expect(&[("router.vcs", json!(1))], "router.vcs");
    expect(&[("traffic.load", json!(1.5))], "traffic.load");
    expect(&[("traffic.load", json!(0.0))], "traffic.load");
    expect(
        &[("links.default.bandwidth_bytes_per_s", json!(0))],
        "links.bandwidth",
    );
    expect(&[("links.default.latency_ps", json!(0))], "links.latency");
    expect(
        &[("nic.injection_latency_ps", json!(0))],
        "nic.injection_latency",
    );
    expect(
        &[
            ("topology.dims", json!([6, 6])),
            ("traffic.pattern", json!("transpose")),
        ],
        "traffic.pattern",
    );
    expect(
        &[("router.vc_buffer_bytes", json!(100))],
        "router.vc_buffer",
    );
    expect(&[("topology.dims", json!([8, 1]))], "topology.dims");
    expect(
        &[(
            "links.classes",
            json!({"global": {"latency_ps": 1, "bandwidth_bytes_per_s": 1}}),
        )],
        "links.global",
    );
    expect(
        &[
            ("traffic.pattern", json!("hotspot")),
            ("traffic.hotspot_endpoints", json!([64])),
        ],
        "traffic.hotspot_endpoints",
    );
}

/// Summary of the default 8x8 torus at `load` with the given arbitration options.
fn arbitrated(
    arbitration: &str,
    in_transit_priority: f64,
    load: f64,
) -> exanet_core::stats::Summary {
    run_ok(&at_load(
        load,
        &[
            ("router.arbitration", json!(arbitration)),
            ("router.in_transit_priority", json!(in_transit_priority)),
            ("run.drain", json!("none")),
            ("run.measure_ps", json!(50_000_000)),
        ],
    ))
    .summary
}

#[test]
fn age_arbitration_bounds_the_latency_tail_and_keeps_throughput_past_saturation() {
    // Below saturation every policy delivers what is offered (up to the window's edges).
    let rr = arbitrated("round_robin", 0.0, 0.4);
    let age = arbitrated("age", 0.0, 0.4);
    for s in [&rr, &age] {
        assert!((s.f64("accepted_load") / s.f64("offered_load") - 1.0).abs() < 0.005);
    }
    assert!(age.f64("network_latency_ns_max") < rr.f64("network_latency_ns_max"));
    // Past saturation, oldest-first stops packets from starving in the network.
    let rr = arbitrated("round_robin", 0.0, 1.0);
    let age = arbitrated("age", 0.0, 1.0);
    println!(
        "full load: round-robin accepts {:.3}, network latency max {:.0} ns; age {:.3}, {:.0} ns",
        rr.f64("accepted_load"),
        rr.f64("network_latency_ns_max"),
        age.f64("accepted_load"),
        age.f64("network_latency_ns_max")
    );
    assert!(age.f64("network_latency_ns_max") < 0.5 * rr.f64("network_latency_ns_max"));
    assert!(age.f64("accepted_load") > 1.2 * rr.f64("accepted_load"));
}

#[test]
fn in_transit_priority_keeps_throughput_past_saturation() {
    // Izu et al.: giving in-transit packets priority over new ones avoids the drop of accepted
    // traffic beyond saturation.
    let plain = arbitrated("round_robin", 0.0, 1.0);
    let ipr = arbitrated("round_robin", 1.0, 1.0);
    println!(
        "full load: accepted {:.3} without IPR, {:.3} with IPR",
        plain.f64("accepted_load"),
        ipr.f64("accepted_load")
    );
    assert!(ipr.f64("accepted_load") > 1.15 * plain.f64("accepted_load"));
    assert!(ipr.f64("network_latency_ns_max") < plain.f64("network_latency_ns_max"));
}

#[test]
fn an_overloaded_network_does_not_drain_within_the_limit_and_says_so() {
    let s = run_ok(&at_load(
        1.0,
        &[
            ("run.drain", json!("measured")),
            ("run.drain_limit_ps", json!(1_000_000)),
        ],
    ))
    .summary;
    assert_eq!(s.get("drained"), Some(&Value::Bool(false)));
    assert!(s.u64("packets_measured_delivered") < s.u64("packets_measured"));
    // It stopped at the limit: the end of the window plus 1 us.
    assert_eq!(s.f64("sim_time_ns"), 12_000.0 + 1_000.0);
    let s = run_ok(&at_load(0.2, &[("run.drain", json!("measured"))])).summary;
    assert_eq!(s.get("drained"), Some(&Value::Bool(true)));
    assert_eq!(
        s.u64("packets_measured_delivered"),
        s.u64("packets_measured")
    );
}
