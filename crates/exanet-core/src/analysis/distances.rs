//! Hop distances and minimal-path diversity of a router graph, by breadth-first search.
//!
//! All-pairs distances use a bit-parallel search: 64 sources at once, one `u64` per router whose
//! bit `i` says "reached from source `i`", so a level costs one OR per link for all 64 sources.
//! Batches of sources run on several threads; every figure is an integer sum or a maximum, so
//! results do not depend on the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};

use rand::seq::SliceRandom;

use super::RouterGraph;
use crate::engine::entity_stream;

/// Random stream (under the caller's seed) that picks the sampled sources of [`distance_stats`].
const DISTANCE_STREAM: u64 = 0x0d15_7a11;
/// Random stream that picks the sampled sources of [`path_diversity`].
const DIVERSITY_STREAM: u64 = 0x0d15_7a12;

/// Sources per bit-parallel search: the bits of a word.
const BATCH: usize = 64;

/// Distance figures of a router graph. When the graph is disconnected (`connected == false`)
/// they cover the pairs that are connected.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceStats {
    /// Largest distance between two routers that both host endpoints.
    pub diameter: u32,
    /// Largest distance between any two routers.
    pub router_diameter: u32,
    /// Mean over ordered pairs of distinct routers.
    pub avg_router_distance: f64,
    /// Mean router hops over ordered pairs of distinct endpoints; endpoints on the same router
    /// are at distance 0 and count.
    pub avg_endpoint_distance: f64,
    /// Every router was a source. Otherwise the means are estimates over the pairs whose source
    /// was sampled, and the diameters lower bounds.
    pub exact: bool,
    /// Breadth-first-search sources used.
    pub sources: u32,
    /// Every router reaches every other (exact even when sampled: one source reaching all
    /// routers proves it, and none can if the graph is split).
    pub connected: bool,
}

/// Distance figures, exact when the graph has at most `exact_limit` routers, else estimated
/// from `samples` sources (at least one) drawn without replacement under `seed`.
///
/// The endpoint mean weights every source by its endpoints (a ratio estimator), so sampling a
/// router with no endpoints costs a search but biases nothing.
pub fn distance_stats(g: &RouterGraph, exact_limit: u32, samples: u32, seed: u64) -> DistanceStats {
    distance_stats_threads(g, exact_limit, samples, seed, default_threads())
}

/// [`distance_stats`] on exactly `threads` threads (results are identical for any count).
pub(crate) fn distance_stats_threads(
    g: &RouterGraph,
    exact_limit: u32,
    samples: u32,
    seed: u64,
    threads: usize,
) -> DistanceStats {
    let n = g.num_routers();
    let exact = n <= exact_limit || samples >= n;
    let sources: Vec<u32> = if exact {
        (0..n).collect()
    } else {
        sample(
            (0..n).collect(),
            samples.max(1) as usize,
            seed,
            DISTANCE_STREAM,
        )
    };
    let sources = cluster_sources(g, &sources);
    let batches = sources.len().div_ceil(BATCH);
    let sums = parallel_map(
        batches,
        threads,
        || Frontiers::new(n as usize),
        |scratch, b| {
            let batch = &sources[b * BATCH..sources.len().min((b + 1) * BATCH)];
            batch_search(g, batch, scratch)
        },
    );
    let mut total = BatchSums::default();
    for s in &sums {
        total.router_pairs += s.router_pairs;
        total.router_dist += s.router_dist;
        total.endpoint_pairs += s.endpoint_pairs;
        total.endpoint_dist += s.endpoint_dist;
        total.diameter = total.diameter.max(s.diameter);
        total.router_diameter = total.router_diameter.max(s.router_diameter);
    }
    let mean = |sum: u128, pairs: u128| {
        if pairs == 0 {
            0.0
        } else {
            sum as f64 / pairs as f64
        }
    };
    DistanceStats {
        diameter: total.diameter,
        router_diameter: total.router_diameter,
        avg_router_distance: mean(total.router_dist, total.router_pairs),
        avg_endpoint_distance: mean(total.endpoint_dist, total.endpoint_pairs),
        exact,
        sources: sources.len() as u32,
        connected: total.router_pairs == sources.len() as u128 * u128::from(n.saturating_sub(1)),
    }
}

/// Minimal-path counts between endpoint-hosting routers: how many shortest routes a minimal
/// adaptive routing can choose from.
#[derive(Debug, Clone, PartialEq)]
pub struct PathDiversity {
    /// Mean over pairs (of saturated counts, where a count overflowed `u64`).
    pub mean: f64,
    /// Fewest minimal paths of a pair; 0 when some pair is disconnected.
    pub min: u64,
    pub max: u64,
    /// Ordered (source, target) pairs counted.
    pub pairs: u64,
    /// Source routers searched.
    pub sources: u32,
}

/// Counts distinct minimal router paths from `sources` endpoint-hosting routers (sampled under
/// `seed`; all of them when there are fewer) to every other endpoint-hosting router.
///
/// Paths are counted over links: two parallel links between the same routers make two paths
/// through that hop, as they are two routes for traffic.
pub fn path_diversity(g: &RouterGraph, sources: u32, seed: u64) -> PathDiversity {
    let hosts: Vec<u32> = (0..g.num_routers())
        .filter(|&r| g.endpoints[r as usize] > 0)
        .collect();
    let chosen = if sources as usize >= hosts.len() {
        hosts.clone()
    } else {
        sample(hosts.clone(), sources as usize, seed, DIVERSITY_STREAM)
    };
    let per_source = parallel_map(
        chosen.len(),
        default_threads(),
        || PathScratch::new(g.num_routers() as usize),
        |scratch, i| {
            let src = chosen[i];
            scratch.count_paths(g, src);
            let (mut min, mut max, mut sum) = (u64::MAX, 0u64, 0u128);
            for &t in hosts.iter().filter(|&&t| t != src) {
                let paths = scratch.paths[t as usize];
                min = min.min(paths);
                max = max.max(paths);
                sum += u128::from(paths);
            }
            (min, max, sum)
        },
    );
    let pairs = chosen.len() as u64 * (hosts.len() as u64).saturating_sub(1);
    let (mut min, mut max, mut sum) = (u64::MAX, 0u64, 0u128);
    for &(lo, hi, s) in &per_source {
        min = min.min(lo);
        max = max.max(hi);
        sum += s;
    }
    PathDiversity {
        mean: if pairs == 0 {
            0.0
        } else {
            sum as f64 / pairs as f64
        },
        min: if pairs == 0 { 0 } else { min },
        max,
        pairs,
        sources: chosen.len() as u32,
    }
}

/// Hop distances from `src` to every router (`u32::MAX`: unreachable), one source at a time:
/// the plain reference the bit-parallel search is checked against.
pub fn bfs_distances(g: &RouterGraph, src: u32) -> Vec<u32> {
    let mut dist = vec![u32::MAX; g.num_routers() as usize];
    dist[src as usize] = 0;
    let mut queue = vec![src];
    let mut head = 0;
    while let Some(&r) = queue.get(head) {
        head += 1;
        for &w in g.neighbors(r) {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[r as usize] + 1;
                queue.push(w);
            }
        }
    }
    dist
}

/// Worker threads for the searches: all the machine offers.
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `k` distinct elements of `pool`, drawn under (seed, stream).
fn sample(mut pool: Vec<u32>, k: usize, seed: u64, stream: u64) -> Vec<u32> {
    let mut rng = entity_stream(seed, stream);
    pool.partial_shuffle(&mut rng, k).0.to_vec()
}

/// Most routers one batch's search for nearby sources visits before it settles for the next
/// sources in id order.
const CLUSTER_REACH: usize = 64 * BATCH;

/// `sources` reordered so that every run of 64 is a ball in the graph, as far as one can be
/// found: when the sources of a batch are close together, its wave is thin and each router is
/// in it for few levels (a 4x4x4 block of a 3D torus rather than a row of 64).
fn cluster_sources(g: &RouterGraph, sources: &[u32]) -> Vec<u32> {
    let n = g.num_routers() as usize;
    let mut wanted = vec![false; n];
    for &s in sources {
        wanted[s as usize] = true;
    }
    let mut by_id = sources.to_vec();
    by_id.sort_unstable();
    // `seen[v] == ball` when the current ball's search has visited v.
    let mut seen = vec![u32::MAX; n];
    let (mut out, mut queue, mut cursor) = (Vec::with_capacity(sources.len()), Vec::new(), 0);
    let mut next_by_id = |wanted: &mut [bool]| loop {
        let v = by_id[cursor];
        cursor += 1;
        if wanted[v as usize] {
            wanted[v as usize] = false;
            return v;
        }
    };
    for ball in 0..sources.len().div_ceil(BATCH) as u32 {
        let target = sources.len().min(out.len() + BATCH);
        let centre = next_by_id(&mut wanted);
        out.push(centre);
        queue.clear();
        queue.push(centre);
        seen[centre as usize] = ball;
        let mut head = 0;
        while out.len() < target && head < queue.len().min(CLUSTER_REACH) {
            let v = queue[head];
            head += 1;
            for &u in g.neighbors(v) {
                if seen[u as usize] != ball {
                    seen[u as usize] = ball;
                    queue.push(u);
                    if wanted[u as usize] && out.len() < target {
                        wanted[u as usize] = false;
                        out.push(u);
                    }
                }
            }
        }
        while out.len() < target {
            out.push(next_by_id(&mut wanted));
        }
    }
    out
}

/// Runs `work(scratch, job)` for jobs `0..jobs` on up to `threads` threads (each with its own
/// scratch from `init`) and returns the results in job order.
fn parallel_map<S, R: Send>(
    jobs: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, jobs.max(1));
    if threads == 1 {
        let mut scratch = init();
        return (0..jobs).map(|j| work(&mut scratch, j)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut scratch = init();
                    let mut out = Vec::new();
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        if j >= jobs {
                            return out;
                        }
                        out.push((j, work(&mut scratch, j)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("analysis worker panicked"))
            .collect()
    });
    done.sort_unstable_by_key(|&(j, _)| j);
    done.into_iter().map(|(_, r)| r).collect()
}

/// What one batch of sources adds up.
#[derive(Debug, Default, Clone, Copy)]
struct BatchSums {
    /// Reached ordered pairs (source in the batch) of distinct routers, and their distances.
    router_pairs: u128,
    router_dist: u128,
    /// Reached ordered pairs of distinct endpoints (source endpoint on a batch router).
    endpoint_pairs: u128,
    endpoint_dist: u128,
    diameter: u32,
    router_diameter: u32,
}

/// Per-router bit sets of one bit-parallel search, reused from batch to batch. Between levels
/// `next` and `candidates` are all zero and `frontier` is non-zero exactly on `active`.
struct Frontiers {
    visited: Vec<u64>,
    /// Sources that reached a router at the last level.
    frontier: Vec<u64>,
    next: Vec<u64>,
    /// Routers with a non-zero frontier, in increasing order.
    active: Vec<u32>,
    /// Routers reached at this level.
    reached: Vec<u32>,
    /// One bit per router: next to an active router.
    candidates: Vec<u64>,
}

impl Frontiers {
    fn new(n: usize) -> Self {
        Frontiers {
            visited: vec![0; n],
            frontier: vec![0; n],
            next: vec![0; n],
            active: Vec::new(),
            reached: Vec::new(),
            candidates: vec![0; n.div_ceil(64)],
        }
    }
}

/// A level examines only the neighbours of the active routers when these have fewer than
/// `1 / SPARSE_FRACTION` of all links, else every unfinished router. In networks of large
/// diameter the wave of a batch is thin, and most routers are neither behind it nor in it.
const SPARSE_FRACTION: u64 = 2;

/// What one level of a batch adds up.
#[derive(Default)]
struct Level {
    reached: u64,
    endpoint_pairs: u128,
}

/// Breadth-first search from up to 64 sources at once.
fn batch_search(g: &RouterGraph, sources: &[u32], f: &mut Frontiers) -> BatchSums {
    let full = if sources.len() == BATCH {
        u64::MAX
    } else {
        (1u64 << sources.len()) - 1
    };
    f.visited.fill(0);
    f.active.clear();
    let mut sums = BatchSums::default();
    // Endpoint weight of the sources, bit plane by bit plane: the endpoints of the sources in
    // a set `m` sum to the sum over planes (shift, mask) of popcount(m & mask) << shift.
    let mut planes: Vec<(u32, u64)> = Vec::new();
    for (i, &s) in sources.iter().enumerate() {
        f.visited[s as usize] |= 1 << i;
        f.frontier[s as usize] |= 1 << i;
        f.active.push(s);
        let e = g.endpoints[s as usize];
        // Distinct endpoints on the source router itself: distance 0.
        sums.endpoint_pairs += u128::from(e) * u128::from(e.saturating_sub(1));
        for shift in 0..u32::BITS {
            if e >> shift & 1 == 1 {
                match planes.iter_mut().find(|(s, _)| *s == shift) {
                    Some((_, mask)) => *mask |= 1 << i,
                    None => planes.push((shift, 1 << i)),
                }
            }
        }
    }
    f.active.sort_unstable();
    let Frontiers {
        visited,
        frontier,
        next,
        active,
        reached,
        candidates,
    } = f;
    let offsets = &g.offsets;
    let links_of = |v: usize| offsets[v] as usize..offsets[v + 1] as usize;
    for d in 1u32.. {
        let mut level = Level::default();
        reached.clear();
        let active_links: u64 = active
            .iter()
            .map(|&v| links_of(v as usize).len() as u64)
            .sum();
        let sparse = active_links * SPARSE_FRACTION < g.neighbors.len() as u64;
        // Router `v` gains the sources that reached a neighbour last level and not it yet.
        let mut relax = |v: usize| {
            let seen = visited[v];
            if seen == full {
                return;
            }
            let mut any = 0u64;
            for &u in &g.neighbors[links_of(v)] {
                any |= frontier[u as usize];
            }
            let new = any & !seen;
            if new != 0 {
                visited[v] = seen | new;
                next[v] = new;
                reached.push(v as u32);
                level.reached += u64::from(new.count_ones());
                if g.endpoints[v] != 0 {
                    let weight: u64 = planes
                        .iter()
                        .map(|&(shift, mask)| u64::from((new & mask).count_ones()) << shift)
                        .sum();
                    level.endpoint_pairs += u128::from(g.endpoints[v]) * u128::from(weight);
                }
            }
        };
        if sparse {
            for &v in active.iter() {
                for &u in &g.neighbors[links_of(v as usize)] {
                    candidates[u as usize / 64] |= 1 << (u % 64);
                }
            }
            // In increasing order, so that the next level's `active` is sorted too.
            for (w, word) in candidates.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    relax(w * 64 + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            }
        } else {
            (0..g.endpoints.len()).for_each(&mut relax);
        }
        std::mem::swap(frontier, next);
        for &v in active.iter() {
            next[v as usize] = 0;
        }
        std::mem::swap(active, reached);
        if level.reached == 0 {
            break;
        }
        sums.router_pairs += u128::from(level.reached);
        sums.router_dist += u128::from(d) * u128::from(level.reached);
        sums.router_diameter = d;
        if level.endpoint_pairs != 0 {
            sums.endpoint_pairs += level.endpoint_pairs;
            sums.endpoint_dist += u128::from(d) * level.endpoint_pairs;
            sums.diameter = d;
        }
    }
    sums
}

/// Per-router state of one path-counting search.
struct PathScratch {
    dist: Vec<u32>,
    /// Minimal paths from the source, saturating at `u64::MAX`.
    paths: Vec<u64>,
    queue: Vec<u32>,
}

impl PathScratch {
    fn new(n: usize) -> Self {
        PathScratch {
            dist: vec![0; n],
            paths: vec![0; n],
            queue: Vec::with_capacity(n),
        }
    }

    /// Breadth-first search from `src` adding every router's path count into each neighbour one
    /// hop further: when a router is dequeued all its predecessors (one level up) were dequeued
    /// before it, so its count is final.
    fn count_paths(&mut self, g: &RouterGraph, src: u32) {
        self.dist.fill(u32::MAX);
        self.paths.fill(0);
        self.queue.clear();
        self.dist[src as usize] = 0;
        self.paths[src as usize] = 1;
        self.queue.push(src);
        let mut head = 0;
        while let Some(&r) = self.queue.get(head) {
            head += 1;
            let (dr, pr) = (self.dist[r as usize], self.paths[r as usize]);
            for &w in g.neighbors(r) {
                let w = w as usize;
                if self.dist[w] == u32::MAX {
                    self.dist[w] = dr + 1;
                    self.queue.push(w as u32);
                }
                if self.dist[w] == dr + 1 {
                    self.paths[w] = self.paths[w].saturating_add(pr);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, Torus};
    use rand::RngExt;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// Mean distance between independent uniform coordinates of a ring or line of radix k.
    fn dim_mean(k: u32, wrap: bool) -> f64 {
        let k = f64::from(k);
        match (wrap, k as u32 % 2 == 0) {
            (true, true) => k / 4.0,
            (true, false) => (k * k - 1.0) / (4.0 * k),
            (false, _) => (k * k - 1.0) / (3.0 * k),
        }
    }

    #[test]
    fn torus_and_mesh_figures_match_closed_forms() {
        for (dims, c, wrap) in [
            (&[8u32, 8][..], 1, true),
            (&[6, 5][..], 1, false),
            (&[4, 4, 4][..], 2, true),
            (&[5, 3][..], 3, true),
        ] {
            let t = Torus::new(dims, c, wrap).unwrap();
            let g = RouterGraph::from_topology(&t);
            let s = distance_stats(&g, 1 << 20, 0, 1);
            for threads in [1, 3] {
                assert_eq!(s, distance_stats_threads(&g, 1 << 20, 0, 1, threads));
            }
            assert_eq!(s.diameter, t.diameter(), "{dims:?}");
            assert_eq!(s.router_diameter, t.diameter(), "{dims:?}");
            assert!(approx(
                s.avg_endpoint_distance,
                t.average_endpoint_distance()
            ));
            // Over all ordered router pairs (self included) the mean is the sum of the
            // per-dimension means; dropping the zero self-pairs rescales by R / (R - 1).
            let r = f64::from(t.num_routers());
            let all_pairs: f64 = dims.iter().map(|&k| dim_mean(k, wrap)).sum();
            assert!(approx(s.avg_router_distance, all_pairs * r / (r - 1.0)));
            assert!(s.exact && s.connected);
            assert_eq!(s.sources, t.num_routers());
        }
        // 8x8 torus: ring of 8 averages 2 hops per dimension.
        let t = Torus::new(&[8, 8], 1, true).unwrap();
        let s = distance_stats(&RouterGraph::from_topology(&t), 64, 0, 1);
        assert!(approx(s.avg_router_distance, 4.0 * 64.0 / 63.0));
        // Concentration 2 on 4x4x4: router and endpoint means differ by the same-router pairs.
        let t = Torus::new(&[4, 4, 4], 2, true).unwrap();
        let s = distance_stats(&RouterGraph::from_topology(&t), 64, 0, 1);
        assert!(approx(s.avg_router_distance, 3.0 * 64.0 / 63.0));
        assert!(approx(s.avg_endpoint_distance, 3.0 * 128.0 / 127.0));
    }

    /// A random multigraph: a path through a random permutation (when `connected`) plus random
    /// extra links, with 0 to 3 endpoints per router.
    fn random_graph(n: u32, extra: usize, connected: bool, seed: u64) -> RouterGraph {
        let mut rng = entity_stream(seed, 0);
        let mut order: Vec<u32> = (0..n).collect();
        order.shuffle(&mut rng);
        let mut edges = Vec::new();
        if connected {
            edges.extend(order.windows(2).map(|w| (w[0], w[1])));
        }
        while edges.len() < extra + if connected { n as usize - 1 } else { 0 } {
            let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
            if a != b {
                edges.push((a, b));
            }
        }
        let endpoints = (0..n).map(|_| rng.random_range(0..4u32)).collect();
        RouterGraph::from_edges(n, &edges, endpoints)
    }

    /// The figures of [`DistanceStats`] from one plain search per source in `sources`.
    fn reference_stats(g: &RouterGraph, sources: &[u32]) -> DistanceStats {
        let n = g.num_routers();
        let ep = &g.endpoints;
        let (mut rp, mut rd, mut ep_pairs, mut ed) = (0u128, 0u128, 0u128, 0u128);
        let (mut diameter, mut router_diameter, mut connected) = (0, 0, true);
        for &s in sources {
            let dist = bfs_distances(g, s);
            let es = u128::from(ep[s as usize]);
            ep_pairs += es * es.saturating_sub(1);
            for t in (0..n).filter(|&t| t != s) {
                let d = dist[t as usize];
                if d == u32::MAX {
                    connected = false;
                    continue;
                }
                let w = es * u128::from(ep[t as usize]);
                rp += 1;
                rd += u128::from(d);
                ep_pairs += w;
                ed += w * u128::from(d);
                router_diameter = router_diameter.max(d);
                if w > 0 {
                    diameter = diameter.max(d);
                }
            }
        }
        DistanceStats {
            diameter,
            router_diameter,
            avg_router_distance: rd as f64 / rp as f64,
            avg_endpoint_distance: ed as f64 / ep_pairs as f64,
            exact: sources.len() == n as usize,
            sources: sources.len() as u32,
            connected,
        }
    }

    #[test]
    fn bit_parallel_search_agrees_with_plain_search() {
        for (n, extra, connected) in [(150, 120, true), (200, 130, false), (70, 400, true)] {
            let g = random_graph(n, extra, connected, u64::from(n));
            let all: Vec<u32> = (0..n).collect();
            let reference = reference_stats(&g, &all);
            assert_eq!(reference.connected, connected);
            for threads in [1, 3] {
                assert_eq!(distance_stats_threads(&g, n, 0, 5, threads), reference);
            }
            // Sampled: the same figures over the sampled sources.
            let sampled = distance_stats_threads(&g, n - 1, 65, 5, 2);
            let chosen = sample(all, 65, 5, DISTANCE_STREAM);
            assert_eq!(sampled, reference_stats(&g, &chosen));
            assert!(!sampled.exact);
            assert_eq!(sampled.sources, 65);
        }
    }

    #[test]
    fn thread_count_changes_nothing() {
        let g = RouterGraph::from_topology(&Torus::new(&[16, 12], 2, false).unwrap());
        let one = distance_stats_threads(&g, 1000, 0, 3, 1);
        assert_eq!(one, distance_stats_threads(&g, 1000, 0, 3, 3));
        let one = distance_stats_threads(&g, 100, 70, 3, 1);
        assert_eq!(one, distance_stats_threads(&g, 100, 70, 3, 3));
        assert!(!one.exact);
    }

    #[test]
    fn sampled_figures_are_close_and_marked_inexact() {
        for wrap in [true, false] {
            let g = RouterGraph::from_topology(&Torus::new(&[16, 16], 1, wrap).unwrap());
            let exact = distance_stats(&g, 256, 0, 9);
            let sampled = distance_stats(&g, 255, 64, 9);
            assert!(exact.exact && !sampled.exact);
            assert_eq!(sampled.sources, 64);
            assert!(sampled.connected);
            assert!(sampled.diameter <= exact.diameter);
            let close = |a: f64, b: f64| (a - b).abs() <= 0.05 * b;
            assert!(close(
                sampled.avg_router_distance,
                exact.avg_router_distance
            ));
            assert!(close(
                sampled.avg_endpoint_distance,
                exact.avg_endpoint_distance
            ));
        }
    }

    fn binomial(n: u64, k: u64) -> u64 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    #[test]
    fn mesh_corners_have_binomially_many_minimal_paths() {
        for (a, b) in [(4u32, 4u32), (6, 3), (7, 5)] {
            let t = Torus::new(&[a, b], 1, false).unwrap();
            let g = RouterGraph::from_topology(&t);
            let p = path_diversity(&g, u32::MAX, 1);
            let expected = binomial(u64::from(a + b - 2), u64::from(a - 1));
            assert_eq!(p.max, expected, "{a}x{b}");
            assert_eq!(p.min, 1, "routers in a line have one path");
            let n = u64::from(a * b);
            assert_eq!(p.pairs, n * (n - 1));
            assert_eq!(p.sources, a * b);
            // The corner pair itself.
            let mut scratch = PathScratch::new(n as usize);
            scratch.count_paths(&g, 0);
            assert_eq!(scratch.paths[(a * b - 1) as usize], expected);
        }
    }

    fn hypercube(d: u32) -> RouterGraph {
        let n = 1u32 << d;
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|r| (0..d).map(move |i| (r, r ^ 1 << i)))
            .filter(|&(a, b)| a < b)
            .collect();
        RouterGraph::from_edges(n, &edges, vec![1; n as usize])
    }

    #[test]
    fn hypercube_antipodes_have_factorially_many_paths() {
        for d in 1..=6u32 {
            let p = path_diversity(&hypercube(d), u32::MAX, 1);
            assert_eq!(p.max, (1..=u64::from(d)).product::<u64>(), "d = {d}");
            assert_eq!(p.min, 1);
        }
        // Sampled sources: still the antipode's d! from every source.
        let p = path_diversity(&hypercube(6), 5, 1);
        assert_eq!((p.sources, p.pairs, p.max), (5, 5 * 63, 720));
    }

    #[test]
    fn complete_graph_has_one_path_per_pair_and_parallel_links_multiply() {
        let n = 9u32;
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        let g = RouterGraph::from_edges(n, &edges, vec![2; n as usize]);
        let p = path_diversity(&g, u32::MAX, 1);
        assert_eq!((p.min, p.max, p.mean), (1, 1, 1.0));
        assert_eq!(p.pairs, 72);
        // A 2-ary torus dimension doubles the links, hence the paths: 4x2 torus, (0,0)->(2,1)
        // is 3 hops: 3 places for the y hop x 2 links on it x 2 directions round the x ring.
        let g = RouterGraph::from_topology(&Torus::new(&[4, 2], 1, true).unwrap());
        let mut scratch = PathScratch::new(8);
        scratch.count_paths(&g, 0);
        assert_eq!(scratch.paths[2 + 4], 3 * 2 * 2);
    }

    #[test]
    fn routers_without_endpoints_are_neither_ends_nor_diameter() {
        // A star: the hub has no endpoints; leaves are 2 hops apart through it. A tail router
        // with no endpoints hangs 2 hops off a leaf.
        let edges = [(0, 1), (0, 2), (0, 3), (3, 4), (4, 5)];
        let g = RouterGraph::from_edges(6, &edges, vec![0, 1, 1, 1, 0, 0]);
        let s = distance_stats(&g, 6, 0, 1);
        assert_eq!((s.diameter, s.router_diameter), (2, 4));
        assert!(approx(s.avg_endpoint_distance, 2.0));
        let p = path_diversity(&g, 10, 1);
        assert_eq!((p.pairs, p.sources, p.min, p.max), (6, 3, 1, 1));
        // Two islands: disconnected, and the split pairs have no path.
        let g = RouterGraph::from_edges(4, &[(0, 1), (2, 3)], vec![1; 4]);
        assert!(!distance_stats(&g, 4, 0, 1).connected);
        assert_eq!(path_diversity(&g, 4, 1).min, 0);
    }
}
