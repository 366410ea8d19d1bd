//! Built-in applications: the MPI motifs of 001 (SST Ember: ping-pong, AllPingPong, AllReduce,
//! Halo-2D/3D, Random), single collectives, and the proxy applications of 004 (Pairs, Spread,
//! UMesh, MILC-comm, pF3D-comm, Qbox-comm), written as programs.

use rand::seq::SliceRandom;
use rand::RngExt;
use serde::Deserialize;

use super::collectives::Algorithm;
use super::program::{Op, OpKind, Program, ProgramBuilder};
use crate::engine::EntityRng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum App {
    Pingpong,
    Allpingpong,
    Allreduce,
    Allgather,
    Alltoall,
    Bcast,
    Reduce,
    Barrier,
    Halo2d,
    Halo3d,
    Random,
    Pairs,
    Spread,
    Umesh,
    Milc,
    Pf3d,
    Qbox,
    /// Operations given explicitly (a trace or a Python program).
    Program,
}

impl App {
    pub fn name(self) -> &'static str {
        match self {
            App::Pingpong => "pingpong",
            App::Allpingpong => "allpingpong",
            App::Allreduce => "allreduce",
            App::Allgather => "allgather",
            App::Alltoall => "alltoall",
            App::Bcast => "bcast",
            App::Reduce => "reduce",
            App::Barrier => "barrier",
            App::Halo2d => "halo2d",
            App::Halo3d => "halo3d",
            App::Random => "random",
            App::Pairs => "pairs",
            App::Spread => "spread",
            App::Umesh => "umesh",
            App::Milc => "milc",
            App::Pf3d => "pf3d",
            App::Qbox => "qbox",
            App::Program => "program",
        }
    }
}

/// An application's parameters (each app reads the ones it needs).
#[derive(Debug, Clone)]
pub struct AppParams {
    pub ranks: u32,
    pub message_bytes: u64,
    pub iterations: u32,
    pub compute_ps: u64,
    pub algorithm: Option<Algorithm>,
    /// Process grid (empty: the app's default shape).
    pub grid: Vec<u32>,
    /// Partners per rank (Spread, UMesh).
    pub partners: u32,
}

/// `n` split into `dims` factors as equal as possible, largest first (MPI_Dims_create).
pub fn balanced_grid(n: u32, dims: usize) -> Vec<u32> {
    let mut factors = Vec::new();
    let mut m = n;
    let mut f = 2;
    while f * f <= m {
        while m % f == 0 {
            factors.push(f);
            m /= f;
        }
        f += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    let mut grid = vec![1u32; dims];
    for &f in factors.iter().rev() {
        let smallest = (0..dims).min_by_key(|&d| grid[d]).expect("dims > 0");
        grid[smallest] *= f;
    }
    grid.sort_unstable_by(|a, b| b.cmp(a));
    grid
}

/// Coordinates of `rank` in `grid` (dimension 0 varies fastest) and back.
fn coords(rank: u32, grid: &[u32]) -> Vec<u32> {
    let mut r = rank;
    grid.iter()
        .map(|&d| {
            let c = r % d;
            r /= d;
            c
        })
        .collect()
}

fn rank_of(coords: &[u32], grid: &[u32]) -> u32 {
    coords
        .iter()
        .zip(grid)
        .rev()
        .fold(0, |acc, (&c, &d)| acc * d + c)
}

/// The grid an app runs on: the given one (checked against the rank count) or the default.
pub fn app_grid(app: App, p: &AppParams) -> Result<Vec<u32>, String> {
    let dims = match app {
        App::Halo2d => 2,
        App::Halo3d | App::Pf3d => 3,
        App::Milc => 4,
        App::Qbox => 2,
        _ => return Ok(Vec::new()),
    };
    let grid = if !p.grid.is_empty() {
        p.grid.clone()
    } else {
        match app {
            App::Pf3d if p.ranks % 200 == 0 => vec![20, 10, p.ranks / 200],
            App::Pf3d => {
                return Err(format!(
                    "pf3d runs on a 20 x 10 x n grid: ranks a multiple of 200 (got {}), or a \
                     grid = [x, y, z] of your own",
                    p.ranks
                ))
            }
            App::Qbox if p.ranks % 100 == 0 => vec![100, p.ranks / 100],
            App::Qbox => {
                return Err(format!(
                    "qbox runs on a 100 x n grid: ranks a multiple of 100 (got {}), or a grid = \
                     [x, y] of your own",
                    p.ranks
                ))
            }
            _ => balanced_grid(p.ranks, dims),
        }
    };
    if grid.len() != dims || grid.contains(&0) {
        return Err(format!(
            "{} runs on a {dims}-dimensional grid of positive sizes, got {grid:?}",
            app.name()
        ));
    }
    let size: u64 = grid.iter().map(|&d| u64::from(d)).product();
    if size != u64::from(p.ranks) {
        return Err(format!(
            "grid {grid:?} holds {size} ranks, the job has {}",
            p.ranks
        ));
    }
    Ok(grid)
}

/// Each rank exchanges `bytes` with each of its partners (a symmetric relation) once per
/// iteration: receives posted first, then sends, then wait for all.
fn exchanges(b: &mut ProgramBuilder, p: &AppParams, partners: &[Vec<u32>]) {
    for mine in partners {
        for _ in 0..p.iterations {
            if p.compute_ps > 0 {
                b.push(Op::compute(p.compute_ps));
            }
            for (i, &q) in mine.iter().enumerate() {
                b.push(Op::irecv(q, p.message_bytes, 0, i as i32));
            }
            for (i, &q) in mine.iter().enumerate() {
                b.push(Op::isend(q, p.message_bytes, 0, (mine.len() + i) as i32));
            }
            b.push(Op::waitall());
        }
        b.next_rank();
    }
}

/// Grid neighbours at ±1 in every dimension (with wrap-around if `periodic`), self excluded.
fn grid_neighbours(grid: &[u32], periodic: bool) -> Vec<Vec<u32>> {
    let n: u32 = grid.iter().product();
    (0..n)
        .map(|r| {
            let c = coords(r, grid);
            let mut mine = Vec::new();
            for d in 0..grid.len() {
                let g = grid[d];
                let down = if c[d] > 0 {
                    Some(c[d] - 1)
                } else {
                    periodic.then_some(g - 1)
                };
                let up = if c[d] + 1 < g {
                    Some(c[d] + 1)
                } else {
                    periodic.then_some(0)
                };
                for moved in [down, up].into_iter().flatten().filter(|&m| m != c[d]) {
                    let mut o = c.clone();
                    o[d] = moved;
                    mine.push(rank_of(&o, grid));
                }
            }
            mine
        })
        .collect()
}

/// Communicators along dimension `d` of `grid`: each line of ranks that differ only in `d`.
/// Returns, per rank, the index of its line's communicator.
fn line_communicators(b: &mut ProgramBuilder, grid: &[u32], d: usize) -> Vec<u32> {
    let n: u32 = grid.iter().product();
    let mut comm_of = vec![0u32; n as usize];
    for r in 0..n {
        let c = coords(r, grid);
        if c[d] != 0 {
            continue;
        }
        let members: Vec<u32> = (0..grid[d])
            .map(|x| {
                let mut o = c.clone();
                o[d] = x;
                rank_of(&o, grid)
            })
            .collect();
        let mut sorted = members.clone();
        sorted.sort_unstable();
        let comm = b.communicator(sorted);
        for m in members {
            comm_of[m as usize] = comm;
        }
    }
    comm_of
}

/// A symmetric partner relation from `matchings` random perfect matchings (Pairs: 1, Spread:
/// many); with an odd rank count one rank sits out of each matching.
fn random_matchings(n: u32, matchings: u32, rng: &mut EntityRng) -> Vec<Vec<u32>> {
    let mut partners = vec![Vec::new(); n as usize];
    let mut order: Vec<u32> = (0..n).collect();
    // Pairs already linked, looked up in constant time: a scan of `partners` made many
    // matchings of many ranks quadratic.
    let mut linked = std::collections::HashSet::new();
    for _ in 0..matchings {
        order.shuffle(rng);
        for pair in order.chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            if linked.insert((a.min(b), a.max(b))) {
                partners[a as usize].push(b);
                partners[b as usize].push(a);
            }
        }
    }
    partners
}

/// At most how many operations app `app` gives all its ranks together (each iteration's
/// compute, sends, receives and waits): what a job's program will take is known before it is
/// built.
pub fn ops_bound(app: App, p: &AppParams) -> u64 {
    let per_iteration = match app {
        App::Pingpong | App::Allpingpong => 3,
        App::Allreduce | App::Allgather | App::Alltoall | App::Bcast | App::Reduce => 2,
        // Random: a send and a wait, and one receive per rank on average.
        App::Barrier | App::Pairs | App::Random => 4,
        // Up to 2 neighbours per dimension, each a receive and a send, and the wait.
        App::Halo2d | App::Halo3d | App::Milc => 2 * 2 * 4 + 2,
        App::Pf3d => 3,
        App::Qbox => 4,
        // A rank's partners: `partners` on average, drawn up to twice as many.
        App::Spread | App::Umesh => 2 * 2 * u64::from(p.partners) + 2,
        App::Program => 0,
    };
    u64::from(p.ranks)
        .saturating_mul(u64::from(p.iterations))
        .saturating_mul(per_iteration)
}

/// Builds app `app`'s program; `rng` is the job's own stream (random partners).
pub fn build(app: App, p: &AppParams, rng: &mut EntityRng) -> Result<Program, String> {
    let n = p.ranks;
    let grid = app_grid(app, p)?;
    let mut b = ProgramBuilder::new();
    let collective = |kind: OpKind| {
        move |b: &mut ProgramBuilder| {
            for _ in 0..n {
                for _ in 0..p.iterations {
                    if p.compute_ps > 0 {
                        b.push(Op::compute(p.compute_ps));
                    }
                    b.push(Op::collective(kind, p.message_bytes, 0, 0, p.algorithm));
                }
                b.next_rank();
            }
        }
    };
    match app {
        App::Pingpong | App::Allpingpong => {
            if app == App::Pingpong && n != 2 || n % 2 != 0 || n == 0 {
                return Err(format!(
                    "{} needs {}, got {n}",
                    app.name(),
                    if app == App::Pingpong {
                        "exactly 2 ranks"
                    } else {
                        "an even number of ranks"
                    }
                ));
            }
            let half = n / 2;
            for r in 0..n {
                let (peer, first) = if r < half {
                    (r + half, true)
                } else {
                    (r - half, false)
                };
                for _ in 0..p.iterations {
                    if p.compute_ps > 0 {
                        b.push(Op::compute(p.compute_ps));
                    }
                    if first {
                        b.push(Op::send(peer, p.message_bytes, 0));
                        b.push(Op::recv(peer, p.message_bytes, 0));
                    } else {
                        b.push(Op::recv(peer, p.message_bytes, 0));
                        b.push(Op::send(peer, p.message_bytes, 0));
                    }
                }
                b.next_rank();
            }
        }
        App::Allreduce => collective(OpKind::Allreduce)(&mut b),
        App::Allgather => collective(OpKind::Allgather)(&mut b),
        App::Alltoall => collective(OpKind::Alltoall)(&mut b),
        App::Bcast => collective(OpKind::Bcast)(&mut b),
        App::Reduce => collective(OpKind::Reduce)(&mut b),
        App::Barrier => collective(OpKind::Barrier)(&mut b),
        App::Halo2d | App::Halo3d => exchanges(&mut b, p, &grid_neighbours(&grid, false)),
        App::Milc => exchanges(&mut b, p, &grid_neighbours(&grid, true)),
        App::Pairs => exchanges(&mut b, p, &random_matchings(n, 1, rng)),
        App::Spread => exchanges(&mut b, p, &random_matchings(n, p.partners, rng)),
        App::Umesh => {
            // Partners nearby in rank space: each pair (r, r + d), d <= 2 x partners / 2 + ..,
            // is linked with the probability that gives `partners` on average.
            let reach = p.partners.max(1);
            let probability = f64::from(p.partners) / f64::from(2 * reach);
            let mut partners = vec![Vec::new(); n as usize];
            for r in 0..n {
                for d in 1..=reach {
                    if r + d < n && rng.random_bool(probability.min(1.0)) {
                        partners[r as usize].push(r + d);
                        partners[(r + d) as usize].push(r);
                    }
                }
            }
            exchanges(&mut b, p, &partners);
        }
        App::Random => {
            // Every iteration each rank sends one message to a uniformly random other rank; the
            // receivers know their senders (drawn here, before the run).
            let targets: Vec<Vec<u32>> = (0..p.iterations)
                .map(|_| {
                    (0..n)
                        .map(|r| {
                            if n < 2 {
                                return r;
                            }
                            let t = rng.random_range(0..n - 1);
                            if t >= r {
                                t + 1
                            } else {
                                t
                            }
                        })
                        .collect()
                })
                .collect();
            // Per iteration, each rank's senders in increasing order.
            let senders: Vec<Vec<Vec<u32>>> = targets
                .iter()
                .map(|to| {
                    let mut from = vec![Vec::new(); n as usize];
                    for (src, &t) in to.iter().enumerate() {
                        if t != src as u32 {
                            from[t as usize].push(src as u32);
                        }
                    }
                    from
                })
                .collect();
            for r in 0..n {
                for (it, (to, from)) in targets.iter().zip(&senders).enumerate() {
                    if p.compute_ps > 0 {
                        b.push(Op::compute(p.compute_ps));
                    }
                    let tag = it as i32;
                    for &src in &from[r as usize] {
                        b.push(Op::irecv(src, p.message_bytes, tag, src as i32));
                    }
                    if to[r as usize] != r {
                        b.push(Op::isend(to[r as usize], p.message_bytes, tag, n as i32));
                    }
                    b.push(Op::waitall());
                }
                b.next_rank();
            }
        }
        App::Pf3d => {
            // Alltoalls along x (message bytes per pair) then along y (half of it), as pF3D's
            // 2-D FFTs split into 1-D FFTs along x and y.
            let along_x = line_communicators(&mut b, &grid, 0);
            let along_y = line_communicators(&mut b, &grid, 1);
            for r in 0..n as usize {
                for _ in 0..p.iterations {
                    if p.compute_ps > 0 {
                        b.push(Op::compute(p.compute_ps));
                    }
                    b.push(Op::collective(
                        OpKind::Alltoall,
                        p.message_bytes,
                        along_x[r],
                        0,
                        p.algorithm,
                    ));
                    b.push(Op::collective(
                        OpKind::Alltoall,
                        p.message_bytes / 2,
                        along_y[r],
                        0,
                        p.algorithm,
                    ));
                }
                b.next_rank();
            }
        }
        App::Qbox => {
            // Alltoallv of message bytes per pair along the first dimension, then a bcast of 8x
            // and an allreduce of 2x the message along the second (004 Table 3: 1, 8, 2 MB).
            let along_x = line_communicators(&mut b, &grid, 0);
            let along_y = line_communicators(&mut b, &grid, 1);
            let pairs = u64::from(grid[0] - 1);
            for r in 0..n as usize {
                for _ in 0..p.iterations {
                    if p.compute_ps > 0 {
                        b.push(Op::compute(p.compute_ps));
                    }
                    b.push(Op::collective(
                        OpKind::Alltoallv,
                        p.message_bytes.saturating_mul(pairs),
                        along_x[r],
                        0,
                        None,
                    ));
                    b.push(Op::collective(
                        OpKind::Bcast,
                        p.message_bytes.saturating_mul(8),
                        along_y[r],
                        0,
                        None,
                    ));
                    b.push(Op::collective(
                        OpKind::Allreduce,
                        p.message_bytes.saturating_mul(2),
                        along_y[r],
                        0,
                        p.algorithm,
                    ));
                }
                b.next_rank();
            }
        }
        App::Program => return Err("an explicit program needs its operations (ops)".into()),
    }
    let program = b.finish();
    program.check().map_err(|e| e.message)?;
    Ok(program)
}
