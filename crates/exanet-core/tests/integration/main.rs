//! exanet-core's integration tests, in one test binary (one link, one copy of the shared
//! helpers; the fuzz tests keep their own binary, as they lower the memory limit for the whole
//! process).

#[path = "../common/mod.rs"]
mod common;

mod describe;
mod families;
mod fine_grained;
mod midimew;
mod network;
mod parallel;
mod planes;
mod robustness;
mod routing_check;
mod routing_equivalence;
mod routing_scale;
mod threads;
mod torus_adaptive;
mod vc_classes;
mod workloads;
