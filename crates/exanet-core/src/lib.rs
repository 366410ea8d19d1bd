//! exanet-core: a packet-level (virtual cut-through) interconnection-network simulator.
//!
//! Layers, lowest first: [`engine`] (time, events, ordering, random streams), [`topology`],
//! [`routing`], [`workload`], [`network`] (NIC, router, link), [`stats`]. [`simulate`] runs one
//! configuration; [`describe`] checks one and reports its structure without simulating.

pub mod analysis;
pub mod config;
pub mod describe;
pub mod engine;
pub mod error;
pub mod memory;
pub mod network;
pub mod parallel;
pub mod routing;
pub mod stats;
pub mod topology;
pub mod workload;

pub use config::Config;
pub use error::{ConfigError, DeadlockReport, SimError, StallReport, StalledRank, StuckChannel};
pub use network::{Progress, RunOutput};

/// Structural facts about a configured network.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    pub routers: u32,
    /// Nodes, each with `ports_per_node` NIC ports.
    pub endpoints: u32,
    pub ports_per_node: u32,
    pub network_links: u64,
    pub ports_per_router: u16,
    pub link_classes: Vec<String>,
    pub diameter_hops: u32,
    pub average_distance_hops: f64,
    /// Bytes the topology's port tables and the routing's tables hold.
    pub topology_state_bytes: u64,
    pub routing_state_bytes: u64,
}

/// Checks a configuration (every combination, not just ranges) and describes its network.
pub fn describe(config: &Config) -> Result<Description, ConfigError> {
    let parts = network::Parts::build(config)?;
    let topo = parts.topology.as_ref();
    network::check_fits(topo, config, &network::Held::all(topo))?;
    let network_links = (0..topo.num_routers())
        .map(|r| {
            (0..topo.ports_per_router())
                .filter(|&p| matches!(topo.peer(r, p), topology::Peer::Router { .. }))
                .count() as u64
        })
        .sum();
    let nodes = parts.nodes.as_ref();
    Ok(Description {
        routers: topo.num_routers(),
        endpoints: nodes.num_endpoints(),
        ports_per_node: topo.ports_per_node(),
        network_links,
        ports_per_router: topo.ports_per_router(),
        link_classes: topo.link_class_names(),
        diameter_hops: topo.known_diameter().unwrap_or_else(|| {
            let g = analysis::RouterGraph::from_topology(topo);
            analysis::distance_stats(&g, 20_000, 64, 1).diameter
        }),
        average_distance_hops: describe::average_endpoint_distance(nodes),
        topology_state_bytes: topo.state_bytes(),
        routing_state_bytes: parts.routing.state_bytes(),
    })
}

/// The partition of a configuration's network into `parts` for the parallel engine (its
/// `partition` when given, else the default one):
/// its balance, cut links and lookahead (the smallest latency of a cut link, from the link
/// classes' parameters).
pub fn partition(config: &Config, parts: u32) -> Result<parallel::PartitionReport, ConfigError> {
    let topo = topology::build(&config.topology)?;
    let t = topo.as_ref();
    let names = t.link_class_names();
    let split = parallel::partition_or_given(t, parts, &config.partition)?;
    Ok(parallel::report(t, &split, |r, p| {
        let name = &names[t.link_class(r, p) as usize];
        config
            .links
            .classes
            .get(name)
            .unwrap_or(&config.links.default)
            .latency_ps
    }))
}

/// Builds the channel-dependency graph of a configuration's routing and checks it for cycles
/// (docs/architecture.md §7): from `sources` evenly spaced source routers with endpoints (None:
/// all of them, or as many as [`routing::cdg::WORK_BUDGET`] allows on large networks), to every
/// destination, with as many random draws per pair as reach every route the scheme can take
/// (`RoutingFunction::distinct_draws`: every Valiant intermediate, every random pick; one for
/// deterministic schemes), capped at `max_draws`.
pub fn check_routing(
    config: &Config,
    sources: Option<u32>,
    max_draws: u32,
) -> Result<routing::cdg::DependencyCheck, ConfigError> {
    check_routing_with_progress(config, sources, max_draws, f64::INFINITY, &mut |_| true)
        .map(|check| check.expect("a check its callback never stops finishes"))
}

/// [`check_routing`] calling `progress` about every `interval_s` seconds of wall time; returning
/// false stops the check (Ok(None)).
pub fn check_routing_with_progress(
    config: &Config,
    sources: Option<u32>,
    max_draws: u32,
    interval_s: f64,
    progress: &mut dyn FnMut(&routing::cdg::CheckProgress) -> bool,
) -> Result<Option<routing::cdg::DependencyCheck>, ConfigError> {
    let topo = topology::build(&config.topology)?;
    let t = topo.as_ref();
    let routing = routing::build_for_classes(&config.routing, t, &config.router)?;
    Ok(routing::cdg::check(
        t,
        routing.as_ref(),
        config.router.class_vcs(),
        routing::cdg::Coverage {
            draws: routing.distinct_draws().min(max_draws).max(1),
            sources,
            budget: routing::cdg::WORK_BUDGET,
        },
        interval_s,
        progress,
    ))
}

/// Runs one simulation. `progress` is called about every `interval_s` seconds of wall time;
/// returning false stops the run with [`SimError::Interrupted`]. Message-passing jobs also get
/// their completion on an ideal network and, if `traffic.alone`, alone on the machine.
pub fn simulate(
    config: &Config,
    interval_s: f64,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunOutput, SimError> {
    simulate_on(config, None, interval_s, progress)
}

/// [`simulate`] on the processes of `transport` (every process calls it with the same config;
/// each gets the whole run's results), or in this process alone (None).
pub fn simulate_on(
    config: &Config,
    transport: Option<&dyn parallel::Transport>,
    interval_s: f64,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunOutput, SimError> {
    let mut output =
        network::Network::on(config, transport)?.run(transport, interval_s, progress)?;
    if let config::TrafficConfig::Jobs(jobs) = &config.traffic {
        let topology = topology::build(&config.topology)?;
        let ideal = workload::jobs::build(jobs, topology.as_ref(), config.seed)?.run_ideal();
        for (job, ideal) in output.jobs.iter_mut().zip(ideal) {
            job.ideal_ps = Some(ideal);
        }
        if jobs.alone {
            for j in 0..output.jobs.len() {
                let alone = if jobs.jobs.len() == 1 {
                    output.jobs[j].completion_ps()
                } else {
                    let mut only = jobs.jobs[j].clone();
                    only.placement = config::Placement::Map {
                        endpoints: output.jobs[j].endpoints.clone(),
                    };
                    let mut single = config.clone();
                    single.traffic = config::TrafficConfig::Jobs(config::JobsConfig {
                        jobs: vec![only],
                        alone: false,
                        ..jobs.clone()
                    });
                    network::Network::on(&single, transport)?
                        .run(transport, interval_s, progress)?
                        .jobs[0]
                        .completion_ps()
                };
                output.jobs[j].alone_ps = Some(alone);
            }
        }
    }
    Ok(output)
}

/// The operations of job `job` of a message-passing config, as trace columns.
pub fn job_program(config: &Config, job: usize) -> Result<stats::Table, ConfigError> {
    let config::TrafficConfig::Jobs(jobs) = &config.traffic else {
        return Err(ConfigError::new(
            "traffic.kind",
            "(not jobs)",
            "\"jobs\": only message-passing workloads have programs",
        ));
    };
    let topology = topology::build(&config.topology)?;
    let mpi = workload::jobs::build(jobs, topology.as_ref(), config.seed)?;
    let run = mpi.jobs.get(job).ok_or_else(|| {
        ConfigError::new(
            "job",
            job.to_string(),
            format!("a job index below {}", mpi.jobs.len()),
        )
    })?;
    Ok(run.program.to_table())
}
