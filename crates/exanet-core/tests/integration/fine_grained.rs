//! Fine-grained event traffic (000): packet-size mixes, traffic-matrix destinations, and the
//! UpDown injection-limited NIC (eligibility delay, per-window byte cap), against analytic
//! values and sampling bounds.

use crate::common;

use common::{column_f64, column_u64, run, run_ok, with};
use exanet_core::{RunOutput, SimError};
use serde_json::{json, Value};

fn endpoint_u64(out: &RunOutput, column: &str) -> Vec<u64> {
    column_u64(&out.endpoints(), column)
}

fn endpoint_f64(out: &RunOutput, column: &str) -> Vec<f64> {
    column_f64(&out.endpoints(), column)
}

/// The UpDown packet mix: 16, 32 and 80 B (headers included, so nic.header = 0).
fn updown_mix() -> Value {
    json!([{"bytes": 16, "weight": 0.45}, {"bytes": 32, "weight": 0.35},
           {"bytes": 80, "weight": 0.2}])
}

#[test]
fn a_size_mix_gives_its_mean_size_and_the_offered_load_in_bytes() {
    let out = run_ok(&with(&[
        ("traffic.packet_bytes", updown_mix()),
        ("nic.header_bytes", json!(0)),
    ]));
    let packets: u64 = endpoint_u64(&out, "packets_generated").iter().sum();
    let bytes: u64 = endpoint_u64(&out, "bytes_generated").iter().sum();
    let mean = bytes as f64 / packets as f64;
    // E = 0.45*16 + 0.35*32 + 0.2*80 = 34.4 B; sigma of one draw = 23.88 B.
    let sigma_mean = 23.88 / (packets as f64).sqrt();
    println!(
        "{packets} packets, mean {mean:.3} B (4 sigma = {:.3})",
        4.0 * sigma_mean
    );
    assert!((mean - 34.4).abs() < 4.0 * sigma_mean);
    // The Bernoulli slot is the mean message's serialization, so the offered load is the
    // configured fraction of the injection bandwidth in bytes.
    let offered = out.summary.f64("offered_load");
    assert!((offered - 0.3).abs() < 0.01, "offered {offered}");
    let accepted = out.summary.f64("accepted_load");
    assert!((accepted - 0.3).abs() < 0.01, "accepted {accepted}");
}

#[test]
fn a_traffic_matrix_sets_destinations_and_each_sources_rate() {
    // 16 endpoints (4x4 torus). Sources 0-3 send weights 3 and 1 to s+1 and s+9; sources 4-7
    // half as much (1.5 and 0.5); sources 8-15 only to themselves, which is ignored.
    let mut src = vec![];
    let mut dst = vec![];
    let mut weight = vec![];
    for s in 0..16u32 {
        let row: &[(u32, f64)] = match s {
            0..=3 => &[(1, 3.0), (9, 1.0)],
            4..=7 => &[(1, 1.5), (9, 0.5)],
            _ => &[(0, 10.0)],
        };
        for &(offset, w) in row {
            src.push(s);
            dst.push((s + offset) % 16);
            weight.push(w);
        }
    }
    let out = run_ok(&with(&[
        ("topology.dims", json!([4, 4])),
        ("traffic.pattern", json!("matrix")),
        ("traffic.process", json!("poisson")),
        ("traffic.load", json!(0.4)),
        (
            "traffic.matrix",
            json!({"endpoints": 16, "src": src, "dst": dst, "weight": weight}),
        ),
        ("run.measure_ps", json!(100_000_000)),
    ]));
    let generated = endpoint_u64(&out, "packets_generated");
    let received = endpoint_u64(&out, "packets_received");
    assert!(generated[8..].iter().all(|&g| g == 0), "{generated:?}");
    let (busy, half): (u64, u64) = (generated[0..4].iter().sum(), generated[4..8].iter().sum());
    let rate_ratio = half as f64 / busy as f64;
    // The busiest rows offer the load; rows of half the total, half the rate.
    let per_busy = busy as f64 / 4.0;
    let expected = 0.4 / (288.0 / 25.0) * 100_000.0; // load / slot (ns) * window (ns)
    println!("busy sources {per_busy:.0} packets (expected {expected:.0}), ratio {rate_ratio:.3}");
    assert!((per_busy / expected - 1.0).abs() < 0.05);
    assert!((rate_ratio - 0.5).abs() < 0.03);
    // Offsets +1 reach endpoints 1-8, offsets +9 reach 9-15 and 0: three to one.
    let near: u64 = received[1..=8].iter().sum();
    let far: u64 = received[9..].iter().sum::<u64>() + received[0];
    let split = near as f64 / far as f64;
    println!("received +1 : +9 = {split:.3}");
    assert!((split - 3.0).abs() < 0.2);
}

#[test]
fn a_matrix_that_cannot_be_used_is_refused_with_its_key() {
    let bad = |matrix: Value, kind: &str| {
        let mut changes = vec![
            ("traffic.pattern", json!("matrix")),
            ("traffic.matrix", matrix),
        ];
        if kind == "burst" {
            changes.push((
                "traffic",
                json!({"kind": "burst", "pattern": "matrix", "packet_bytes": 256,
                       "packets_per_burst": 2, "bursts": 1,
                       "matrix": {"endpoints": 64, "src": [0], "dst": [1], "weight": [1.0]}}),
            ));
        }
        match run(&with(&changes)) {
            Err(SimError::Config(e)) => e,
            other => panic!("expected a config error, got {:?}", other.map(|_| ())),
        }
    };
    let e = bad(
        json!({"endpoints": 16, "src": [0], "dst": [1], "weight": [1.0]}),
        "synthetic",
    );
    assert_eq!(e.key, "traffic.matrix");
    assert!(e.expected.contains("64 x 64"), "{e}");
    // A burst gives every endpoint a budget: every row needs a destination.
    let e = bad(
        json!({"endpoints": 64, "src": [0], "dst": [1], "weight": [1.0]}),
        "burst",
    );
    assert!(e.value.contains("row 1"), "{e}");
}

#[test]
fn an_injection_link_faster_than_one_message_per_picosecond_is_refused() {
    // 288 wire bytes at 1.6e19 B/s take 1.8e-5 ps: every generation gap rounded to 0 ps, so
    // a source's next message never came due later and the run spun at one instant forever
    // (found by the config fuzzer).
    let config = with(&[(
        "nic.injection_bandwidth_bytes_per_s",
        json!(16_135_438_054_200_185_700u64),
    )]);
    match run(&config) {
        Err(SimError::Config(e)) => {
            assert_eq!(e.key, "nic.injection_bandwidth");
            assert!(e.expected.contains("288000000000000 B/s"), "{e}");
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
    // At the bound a message takes exactly 1 ps: accepted.
    let mut at_bound = with(&[(
        "nic.injection_bandwidth_bytes_per_s",
        json!(288_000_000_000_000u64),
    )]);
    at_bound.run.duration_ps = Some(1_000);
    run(&at_bound).expect("1 ps per message is the finest the clock resolves");
}

/// A 2-router ring (endpoints 0 and 1, one hop apart), each endpoint sending `packets`
/// packets of 256 B (no header) to the other in one burst, with buffers deep enough that
/// credits never hold a NIC back.
fn pair_burst(packets: u32, nic: &[(&str, Value)]) -> RunOutput {
    let mut changes = vec![
        ("topology.dims", json!([2])),
        ("nic.header_bytes", json!(0)),
        ("router.vc_buffer_bytes", json!(65536)),
        (
            "traffic",
            json!({"kind": "burst", "pattern": "uniform", "packet_bytes": 256,
                   "packets_per_burst": packets, "bursts": 1}),
        ),
    ];
    changes.extend(nic.iter().cloned());
    run_ok(&with(&changes))
}

#[test]
fn the_window_cap_spreads_a_burst_over_windows_exactly() {
    // One packet from injection start to delivery, one hop: 2 NIC links (20 ns), 2 routers
    // (50 ns), 1 link (20 ns) and its serialization (256 B at 25 GB/s = 10.24 ns).
    let one_way_ps = 2 * 20_000 + 2 * 50_000 + 20_000 + 10_240;
    let free = pair_burst(10, &[]);
    assert_eq!(
        free.summary.f64("sim_time_ns"),
        (9 * 10_240 + one_way_ps) as f64 / 1000.0
    );
    // Two packets per 100 ns window: the tenth starts 10.24 ns into the fifth window.
    let cap = [
        ("nic.injection_cap_bytes", json!(512)),
        ("nic.injection_cap_window_ps", json!(100_000)),
    ];
    let capped = pair_burst(10, &cap);
    let last_start_ps = 4 * 100_000 + 10_240;
    assert_eq!(
        capped.summary.f64("sim_time_ns"),
        (last_start_ps + one_way_ps) as f64 / 1000.0
    );
    // A message leaves no sooner than the eligibility delay after it was queued.
    let mut delayed = cap.to_vec();
    delayed.push(("nic.eligibility_delay_ps", json!(1_000_000)));
    let delayed = pair_burst(10, &delayed);
    assert_eq!(
        delayed.summary.f64("sim_time_ns"),
        (1_000_000 + last_start_ps + one_way_ps) as f64 / 1000.0
    );
}

#[test]
fn the_window_cap_bounds_every_endpoints_injection_under_backlog() {
    // Offered 50%, capped at two 256 B packets per 100 ns window = 20.48% of 25 GB/s: every
    // source stays backlogged and injects exactly the cap in each of the 100 windows of the
    // measurement.
    let out = run_ok(&with(&[
        ("nic.header_bytes", json!(0)),
        ("traffic.load", json!(0.5)),
        ("nic.injection_cap_bytes", json!(512)),
        ("nic.injection_cap_window_ps", json!(100_000)),
    ]));
    let injected = endpoint_f64(&out, "injected_load");
    assert!(
        injected.iter().all(|&l| (l - 0.2048).abs() < 1e-9),
        "{injected:?}"
    );
    let offered = out.summary.f64("offered_load");
    assert!(offered > 0.45, "offered {offered}");
}

#[test]
fn an_eligibility_delay_shifts_every_latency_by_exactly_the_delay() {
    // Every message leaves its NIC exactly the delay later, so the whole run is shifted in
    // time: the same packets are measured, each `delay` later, and the network part is
    // unchanged.
    let delay_ps = 550_000u64;
    let base = run_ok(&with(&[]));
    let delayed = run_ok(&with(&[("nic.eligibility_delay_ps", json!(delay_ps))]));
    assert_eq!(
        base.summary.u64("packets_measured"),
        delayed.summary.u64("packets_measured")
    );
    let shift = delayed.summary.f64("latency_ns_mean") - base.summary.f64("latency_ns_mean");
    assert!((shift - 550.0).abs() < 1e-6, "shift {shift}");
    assert_eq!(
        base.summary.f64("network_latency_ns_mean"),
        delayed.summary.f64("network_latency_ns_mean")
    );
}

#[test]
fn a_cap_smaller_than_a_packet_is_refused() {
    let config = with(&[
        ("nic.injection_cap_bytes", json!(100)),
        ("nic.injection_cap_window_ps", json!(50_000)),
    ]);
    match run(&config) {
        Err(SimError::Config(e)) => {
            assert_eq!(e.key, "nic.injection_cap");
            assert!(e.expected.contains("288 B"), "{e}");
        }
        other => panic!("expected a config error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_packet_rate_beyond_one_per_femtosecond_is_refused_with_its_key() {
    // The core takes core JSON from any client: a rate near 2^64 would overflow the window
    // arithmetic (time x rate in 128 bits) instead of limiting anything.
    let config_with = |key: &str, rate: u64| {
        let mut config = common::base();
        common::set(&mut config, "router.packet_rate_window_ps", json!(50_000));
        common::set(&mut config, &format!("{key}_per_s"), json!(rate));
        exanet_core::config::Config::from_json(&config.to_string())
    };
    for key in ["nic.packet_rate", "router.packet_rate"] {
        let err = config_with(key, u64::MAX).expect_err("refused");
        assert_eq!(err.key, key);
        assert!(err.expected.contains("1e15"), "{err}");
    }
    let mut fastest = config_with("router.packet_rate", 1_000_000_000_000_000).unwrap();
    fastest.run.duration_ps = Some(1_000_000);
    run(&fastest).expect("one packet per femtosecond is the fastest limit");
}
