//! Jobs on the machine: each job's program (a built-in app or explicit operations) and the
//! endpoints its ranks run on (placement).

use std::sync::Arc;

use rand::seq::SliceRandom;

use super::apps::{self, App, AppParams};
use super::mpi::{HostParams, JobRun, Mpi};
use super::program::{Op, OpKind, Program, MAX_JOB_TIME_PS};
use crate::config::{JobConfig, JobsConfig, Placement};
use crate::engine::{entity_stream, EntityRng};
use crate::error::ConfigError;
use crate::memory::Footprint;
use crate::topology::Topology;

/// Random streams of jobs (programs, placement) come after every entity's stream.
const JOB_STREAM: u64 = 1 << 40;

/// Builds every job's program and placement; the engine that runs them.
pub fn build(config: &JobsConfig, topology: &dyn Topology, seed: u64) -> Result<Mpi, ConfigError> {
    if config.jobs.is_empty() {
        return Err(ConfigError::new(
            "traffic.jobs",
            "[]",
            "at least one [[traffic.jobs]] table",
        ));
    }
    let endpoints = topology.num_endpoints();
    let mut free = vec![true; endpoints as usize];
    let mut placement_rng = entity_stream(seed, JOB_STREAM);
    let mut runs = Vec::with_capacity(config.jobs.len());
    for (j, job) in config.jobs.iter().enumerate() {
        let key = |field: &str| format!("traffic.jobs[{j}].{field}");
        // Placement first: a job too large for the machine is refused before its program
        // is generated.
        let chosen = place(job, topology, &mut free, &mut placement_rng)
            .map_err(|(value, message)| ConfigError::new(&key("placement"), value, message))?;
        let program = program(job, &mut entity_stream(seed, job_stream(&job.name)))
            .map_err(|(field, value, message)| ConfigError::new(&key(field), value, message))?;
        runs.push(JobRun {
            name: job.name.clone(),
            first_rank: 0,
            app: job.app.name().to_string(),
            program: Arc::new(program),
            eager_limit_bytes: job.eager_limit_bytes.unwrap_or(config.eager_limit_bytes),
            endpoints: chosen,
            start_ps: job.start_ps,
            end_ps: 0,
            ranks_done: 0,
            bytes_sent: 0,
            messages_sent: 0,
            collective_calls: Vec::new(),
        });
    }
    let params = HostParams {
        send_overhead_ps: config.send_overhead_ps,
        recv_overhead_ps: config.recv_overhead_ps,
        thresholds: config.collective_thresholds,
    };
    Ok(Mpi::new(params, runs, endpoints))
}

/// A job's own random stream, named by the job so that it is the same whether the job runs
/// with others or alone.
fn job_stream(name: &str) -> u64 {
    // FNV-1a
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    JOB_STREAM + 1 + (hash >> 24)
}

type FieldError = (&'static str, String, String);

fn program(job: &JobConfig, rng: &mut EntityRng) -> Result<Program, FieldError> {
    if job.ranks == 0 {
        return Err(("ranks", "0".into(), "at least 1 rank".into()));
    }
    let program = if job.app == App::Program {
        let ops = job.ops.as_ref().ok_or((
            "ops",
            "(none)".into(),
            "the operations of an explicit program".into(),
        ))?;
        Program::from_columns(job.ranks, ops).map_err(|e| {
            let at =
                e.at.map(|(r, i)| format!("rank {r}, operation {i}"))
                    .unwrap_or_else(|| "the program".into());
            ("ops", at, e.message)
        })?
    } else {
        generated_program(job, rng)?
    };
    match (0..program.ranks).find_map(|r| {
        let ps = program
            .rank_ops(r)
            .iter()
            .filter(|o| o.kind == OpKind::Compute);
        let total = ps.fold(0u64, |sum, o| sum.saturating_add(o.value));
        (total > MAX_JOB_TIME_PS).then_some((r, total))
    }) {
        None => Ok(program),
        Some((rank, total)) => Err((
            if job.app == App::Program {
                "ops"
            } else {
                "compute"
            },
            format!("rank {rank} computing {total} ps in all"),
            format!("at most {MAX_JOB_TIME_PS} ps (10^6 s) of compute per rank"),
        )),
    }
}

fn generated_program(job: &JobConfig, rng: &mut EntityRng) -> Result<Program, FieldError> {
    let params = AppParams {
        ranks: job.ranks,
        message_bytes: job.message_bytes,
        iterations: job.iterations,
        compute_ps: job.compute_ps,
        algorithm: job.algorithm,
        grid: job.grid.clone(),
        partners: job.partners,
    };
    if matches!(job.app, App::Spread | App::Umesh) && job.partners >= job.ranks.max(2) {
        return Err((
            "partners",
            job.partners.to_string(),
            format!(
                "between 1 and ranks - 1 = {}: {} links each rank to that many others",
                job.ranks.saturating_sub(1),
                job.app.name()
            ),
        ));
    }
    let mut need = Footprint::new();
    need.add(
        "operations",
        apps::ops_bound(job.app, &params),
        std::mem::size_of::<Op>() as u64,
    );
    need.check(
        "iterations",
        format!(
            "{} ({} x {} ranks)",
            job.iterations,
            job.app.name(),
            job.ranks
        ),
    )
    .map_err(|e| ("iterations", e.value, e.expected))?;
    apps::build(job.app, &params, rng)
        .map_err(|message| ("app", format!("\"{}\"", job.app.name()), message))
}

/// Chooses `job.ranks` free endpoints by the job's placement and marks them used.
fn place(
    job: &JobConfig,
    topology: &dyn Topology,
    free: &mut [bool],
    rng: &mut EntityRng,
) -> Result<Vec<u32>, (String, String)> {
    let n = job.ranks as usize;
    let available = free.iter().filter(|&&f| f).count();
    let policy = match &job.placement {
        Placement::Linear => "linear",
        Placement::RandomEndpoints => "random_endpoints",
        Placement::RandomRouters => "random_routers",
        Placement::RandomGroups => "random_groups",
        Placement::Map { .. } => "map",
    };
    if n > available {
        return Err((
            format!("\"{policy}\" for {n} ranks"),
            format!("at most {available} ranks: the endpoints not taken by earlier jobs"),
        ));
    }
    let free_list = |free: &[bool]| -> Vec<u32> {
        (0..free.len() as u32)
            .filter(|&e| free[e as usize])
            .collect()
    };
    // Endpoints in the order the policy fills them.
    let order: Vec<u32> = match &job.placement {
        Placement::Linear => free_list(free),
        Placement::RandomEndpoints => {
            let mut list = free_list(free);
            list.shuffle(rng);
            list
        }
        Placement::RandomRouters | Placement::RandomGroups => {
            let by_group = job.placement == Placement::RandomGroups;
            let mut blocks: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            for e in free_list(free) {
                let router = topology.endpoint_attachment(e).0;
                let block = if by_group {
                    topology.group(router).ok_or_else(|| {
                        (
                            "\"random_groups\"".to_string(),
                            format!(
                                "a topology with groups (dragonfly, Slim Fly, Fishnet, fat-tree); \
                                 a {} has none: use random_routers or random_endpoints",
                                topology.family()
                            ),
                        )
                    })?
                } else {
                    router
                };
                blocks.entry(block).or_default().push(e);
            }
            let mut blocks: Vec<Vec<u32>> = blocks.into_values().collect();
            blocks.shuffle(rng);
            blocks.concat()
        }
        Placement::Map { endpoints } => {
            if endpoints.len() != n {
                return Err((
                    format!("map of {} endpoints", endpoints.len()),
                    format!("one endpoint per rank: {n}"),
                ));
            }
            for (i, &e) in endpoints.iter().enumerate() {
                if e as usize >= free.len() || !free[e as usize] {
                    return Err((
                        format!("map[{i}] = {e}"),
                        format!(
                            "an endpoint below {} used by no other rank or job",
                            free.len()
                        ),
                    ));
                }
                free[e as usize] = false;
            }
            return Ok(endpoints.clone());
        }
    };
    let chosen: Vec<u32> = order.into_iter().take(n).collect();
    for &e in &chosen {
        free[e as usize] = false;
    }
    Ok(chosen)
}
