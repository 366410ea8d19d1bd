//! Message classes on VCs of their own (`router.message_classes = 2`): every buffer a response
//! takes, at the injection port and downstream of every hop, is one of the upper VCs.

use super::model::{NetEvent, Network};
use crate::config::Config;
use crate::engine::{Scheduler, Step};
use serde_json::json;

fn config(message_classes: u32) -> Config {
    let text = json!({
        "seed": 3,
        "topology": {"kind": "torus", "dims": [4, 4], "concentration": 1},
        "routing": {"kind": "dor", "allow_unsafe": false},
        "router": {"vcs": 4, "vc_buffer_bytes": 4096, "latency_ps": 50_000,
                   "arbitration": "round_robin", "in_transit_priority": 0.0,
                   "message_classes": message_classes},
        "links": {"default": {"latency_ps": 20_000, "bandwidth_bytes_per_s": 25_000_000_000u64},
                  "classes": {}},
        "nic": {"injection_bandwidth_bytes_per_s": 25_000_000_000u64,
                "injection_latency_ps": 7_000, "mtu_bytes": 4096, "header_bytes": 32},
        "traffic": {"kind": "threads", "pattern": "uniform", "lanes_per_endpoint": 1,
                    "threads_per_lane": 1, "outstanding_per_thread": 1, "compute_ps": 1000,
                    "operations_per_thread": 1,
                    "operations": [{"weight": 1.0, "request_bytes": 16, "response_bytes": 64,
                                    "service_ps": 0}]},
        "run": {"warmup_ps": 0, "measure_ps": 1_000_000_000, "drain": "all",
                "drain_limit_ps": null, "duration_ps": null, "deadlock_timeout_ps": null}
    });
    Config::from_json(&text.to_string()).unwrap()
}

/// Sends one message from endpoint 0 to endpoint 10 (two hops in each dimension) with
/// `token`, and returns every VC whose credit it took, at the NIC or downstream of a router.
fn vcs_taken(config: &Config, token: u32) -> Vec<usize> {
    let mut net = Network::new(config).unwrap();
    let mut sched = Scheduler::new();
    net.send_message(0, 0, 0, 10, 64, token);
    // The host named the message's class; its threads never started, so it hears no more.
    net.host = None;
    let nic = net.nic_entity(0);
    sched.schedule(0, nic, nic, NetEvent::NicWake);
    let mut taken = Vec::new();
    loop {
        for v in 0..net.params.vcs {
            if net.nics.credits[v] < net.params.vc_buffer_bytes {
                taken.push(v);
            }
        }
        for out in net.routers.ports.indices() {
            for v in 0..net.params.vcs {
                let full = net.params.vc_buffer_bytes;
                if net.routers.port_class[out] != super::state::NIC_CLASS
                    && net.credit(out, v) < full
                {
                    taken.push(v);
                }
            }
        }
        if sched.step(&mut net) == Step::Idle {
            break;
        }
    }
    assert_eq!(net.stats.delivered, 1);
    taken.sort_unstable();
    taken.dedup();
    taken
}

/// A threads host's response token (bit 31) and request token.
const RESPONSE_TOKEN: u32 = 1 << 31;
const REQUEST_TOKEN: u32 = 0;

#[test]
fn responses_take_only_the_upper_vcs_and_requests_the_lower() {
    let split = config(2);
    let response = vcs_taken(&split, RESPONSE_TOKEN);
    let request = vcs_taken(&split, REQUEST_TOKEN);
    assert!(
        !response.is_empty() && response.iter().all(|&v| v >= 2),
        "{response:?}"
    );
    assert!(
        !request.is_empty() && request.iter().all(|&v| v < 2),
        "{request:?}"
    );
    // Sharing the VCs, a lone response takes the lower ones like any packet.
    assert!(vcs_taken(&config(1), RESPONSE_TOKEN).iter().any(|&v| v < 2));
}
