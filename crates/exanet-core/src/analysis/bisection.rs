//! Bisection width: an upper bound on the fewest links whose removal splits the endpoints in
//! half, by multi-start Fiduccia–Mattheyses refinement.
//!
//! Balance is by endpoints, since bisection bandwidth is about traffic between two halves of
//! the machine: routers without endpoints (fat-tree spines) go to either side freely. Only when
//! no router has endpoints are router counts balanced instead.

use rand::seq::SliceRandom;
use rand::RngExt;

use super::RouterGraph;
use crate::engine::entity_stream;

/// A two-way split of the routers and the links it cuts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bisection {
    pub cut_links: u64,
    /// The side of every router.
    pub side: Vec<bool>,
}

/// Links between routers on different sides (parallel links count one each).
pub fn cut_links(g: &RouterGraph, side: &[bool]) -> u64 {
    let crossing: u64 = (0..g.num_routers())
        .map(|v| {
            let s = side[v as usize];
            g.neighbors(v)
                .iter()
                .filter(|&&u| side[u as usize] != s)
                .count() as u64
        })
        .sum();
    crossing / 2
}

/// The best balanced bisection found by `restarts` Fiduccia–Mattheyses runs (at least one).
/// Run 0 refines `initial` when given, so the result never cuts more links than it; the others
/// start from random balanced splits drawn under `seed`. Deterministic for a seed.
///
/// Balanced means the two sides' endpoints differ by at most: 0 when every router with
/// endpoints has the same number of them and there is an even number of such routers, and
/// otherwise the most endpoints on one router (one router's worth when their number is odd; with
/// unequal counts an exact half is a subset-sum problem). With no endpoints at all, routers
/// count as one endpoint each.
///
/// # Panics
/// If `initial` has the wrong length or is not balanced.
pub fn min_bisection(
    g: &RouterGraph,
    restarts: u32,
    seed: u64,
    initial: Option<&[bool]>,
) -> Bisection {
    let mut fm = Fm::new(g);
    if let Some(init) = initial {
        assert_eq!(init.len(), g.num_routers() as usize, "one side per router");
        assert!(
            fm.imbalance(init) <= fm.slack,
            "initial bisection is not balanced: endpoint sides differ by {} (at most {})",
            fm.imbalance(init),
            fm.slack
        );
    }
    let mut best: Option<Bisection> = None;
    for run in 0..restarts.max(1) {
        fm.side = match initial {
            Some(init) if run == 0 => init.to_vec(),
            _ => fm.random_split(seed, run),
        };
        let cut = fm.refine();
        if best.as_ref().is_none_or(|b| cut < b.cut_links) {
            best = Some(Bisection {
                cut_links: cut,
                side: fm.side.clone(),
            });
        }
    }
    best.expect("at least one run")
}

/// No vertex, in the gain buckets' linked lists.
const NONE: u32 = u32::MAX;

/// Fiduccia–Mattheyses state: the current split, gains, and per-side gain buckets (doubly
/// linked lists indexed by gain, so the best move is found and gains updated in O(1)).
struct Fm<'a> {
    g: &'a RouterGraph,
    /// Balance weight of every router: its endpoints, or 1 for all when there are none.
    weight: Vec<u64>,
    /// Allowed |weight(true side) - weight(false side)| of a result.
    slack: u128,
    /// Allowed imbalance in the middle of a pass: one move beyond `slack` either way, so that
    /// single moves can get from one balanced split to another.
    pass_slack: u128,
    side: Vec<bool>,
    gain: Vec<i64>,
    locked: Vec<bool>,
    /// `head[s][gain + max_degree]`: first unlocked vertex on side `s` with that gain.
    head: [Vec<u32>; 2],
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Per side, an index at or above that side's highest non-empty bucket.
    top: [usize; 2],
    max_degree: i64,
}

impl<'a> Fm<'a> {
    fn new(g: &'a RouterGraph) -> Self {
        let n = g.num_routers() as usize;
        let mut weight: Vec<u64> = g.endpoints.iter().map(|&e| u64::from(e)).collect();
        if weight.iter().all(|&w| w == 0) {
            weight.fill(1);
        }
        let max_w = weight.iter().copied().max().unwrap_or(0);
        let weighted: Vec<u64> = weight.iter().copied().filter(|&w| w > 0).collect();
        let equal = weighted.iter().all(|&w| w == max_w);
        let slack = if equal && weighted.len() % 2 == 0 {
            0
        } else {
            max_w
        };
        let max_degree = (0..g.num_routers())
            .map(|v| g.neighbors(v).len() as i64)
            .max()
            .unwrap_or(0);
        let buckets = 2 * max_degree as usize + 1;
        Fm {
            g,
            weight,
            slack: u128::from(slack),
            pass_slack: u128::from(slack) + 2 * u128::from(max_w),
            side: vec![false; n],
            gain: vec![0; n],
            locked: vec![false; n],
            head: [vec![NONE; buckets], vec![NONE; buckets]],
            next: vec![NONE; n],
            prev: vec![NONE; n],
            top: [0, 0],
            max_degree,
        }
    }

    /// Signed weight of side `true` minus side `false`.
    fn diff(&self, side: &[bool]) -> i128 {
        side.iter()
            .zip(&self.weight)
            .map(|(&s, &w)| if s { i128::from(w) } else { -i128::from(w) })
            .sum()
    }

    fn imbalance(&self, side: &[bool]) -> u128 {
        self.diff(side).unsigned_abs()
    }

    /// A random balanced split: routers in random order, each weighted one onto the lighter
    /// side (which keeps the sides within one router's weight), weightless ones anywhere.
    fn random_split(&self, seed: u64, run: u32) -> Vec<bool> {
        let mut rng = entity_stream(seed, u64::from(run));
        let mut order: Vec<u32> = (0..self.g.num_routers()).collect();
        order.shuffle(&mut rng);
        let mut side = vec![false; order.len()];
        let mut diff = 0i128;
        for v in order {
            let w = i128::from(self.weight[v as usize]);
            let s = if w == 0 || diff == 0 {
                rng.random_bool(0.5)
            } else {
                diff < 0
            };
            side[v as usize] = s;
            diff += if s { w } else { -w };
        }
        side
    }

    /// Passes until one no longer reduces the cut; returns the cut.
    fn refine(&mut self) -> u64 {
        let mut cut = cut_links(self.g, &self.side);
        loop {
            let after = self.pass(cut);
            if after >= cut {
                return cut;
            }
            cut = after;
        }
    }

    /// Change in cut links if `v` alone changed side, negated.
    fn compute_gain(&self, v: u32) -> i64 {
        let s = self.side[v as usize];
        self.g
            .neighbors(v)
            .iter()
            .filter(|&&u| u != v)
            .map(|&u| if self.side[u as usize] != s { 1 } else { -1 })
            .sum()
    }

    fn bucket(&self, v: u32) -> usize {
        (self.gain[v as usize] + self.max_degree) as usize
    }

    fn insert(&mut self, v: u32) {
        let (s, b) = (usize::from(self.side[v as usize]), self.bucket(v));
        let first = self.head[s][b];
        self.next[v as usize] = first;
        self.prev[v as usize] = NONE;
        if first != NONE {
            self.prev[first as usize] = v;
        }
        self.head[s][b] = v;
        self.top[s] = self.top[s].max(b);
    }

    fn remove(&mut self, v: u32) {
        let (s, b) = (usize::from(self.side[v as usize]), self.bucket(v));
        let (p, n) = (self.prev[v as usize], self.next[v as usize]);
        if p == NONE {
            self.head[s][b] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// The unlocked vertex of highest gain on side `s`.
    fn best_on(&mut self, s: usize) -> Option<u32> {
        loop {
            let v = self.head[s][self.top[s]];
            if v != NONE {
                return Some(v);
            }
            if self.top[s] == 0 {
                return None;
            }
            self.top[s] -= 1;
        }
    }

    /// Imbalance after moving `v`, if the pass allows it.
    fn diff_after(&self, v: u32, diff: i128) -> Option<i128> {
        let w = i128::from(self.weight[v as usize]);
        let d = if self.side[v as usize] {
            diff - 2 * w
        } else {
            diff + 2 * w
        };
        (d.unsigned_abs() <= self.pass_slack).then_some(d)
    }

    /// One Fiduccia–Mattheyses pass from a balanced split cutting `cut` links: move every
    /// vertex once, best gain first, then keep the balanced prefix of moves that cut least.
    fn pass(&mut self, cut: u64) -> u64 {
        for h in &mut self.head {
            h.fill(NONE);
        }
        self.top = [0, 0];
        self.locked.fill(false);
        for v in 0..self.g.num_routers() {
            self.gain[v as usize] = self.compute_gain(v);
            self.insert(v);
        }
        let mut diff = self.diff(&self.side);
        let (mut now, mut best, mut best_len, mut best_imbalance) =
            (cut as i64, cut as i64, 0, diff.unsigned_abs());
        let mut moves = Vec::new();
        loop {
            let pick = |fm: &mut Self, s: usize| {
                fm.best_on(s)
                    .and_then(|v| fm.diff_after(v, diff).map(|d| (fm.gain[v as usize], d, v)))
            };
            // Higher gain first, then the better balance; side false on a full tie.
            let (_, new_diff, v) = match (pick(self, 0), pick(self, 1)) {
                (Some(a), Some(b)) => {
                    if (b.0, std::cmp::Reverse(b.1.unsigned_abs()))
                        > (a.0, std::cmp::Reverse(a.1.unsigned_abs()))
                    {
                        b
                    } else {
                        a
                    }
                }
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            self.remove(v);
            self.locked[v as usize] = true;
            now -= self.gain[v as usize];
            let from = self.side[v as usize];
            self.side[v as usize] = !from;
            diff = new_diff;
            for i in self.g.offsets[v as usize]..self.g.offsets[v as usize + 1] {
                let u = self.g.neighbors[i as usize];
                if u == v || self.locked[u as usize] {
                    continue;
                }
                self.remove(u);
                // The link to v was internal to u's side and is now cut, or the reverse.
                self.gain[u as usize] += if self.side[u as usize] == from { 2 } else { -2 };
                self.insert(u);
            }
            moves.push(v);
            let imbalance = diff.unsigned_abs();
            if imbalance <= self.slack
                && (now < best || (now == best && imbalance < best_imbalance))
            {
                (best, best_len, best_imbalance) = (now, moves.len(), imbalance);
            }
        }
        for &v in &moves[best_len..] {
            self.side[v as usize] = !self.side[v as usize];
        }
        best as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Torus;

    fn hypercube(d: u32, endpoints: u32) -> RouterGraph {
        let n = 1u32 << d;
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|r| (0..d).map(move |i| (r, r ^ 1 << i)))
            .filter(|&(a, b)| a < b)
            .collect();
        RouterGraph::from_edges(n, &edges, vec![endpoints; n as usize])
    }

    fn complete(n: u32) -> RouterGraph {
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        RouterGraph::from_edges(n, &edges, vec![1; n as usize])
    }

    fn torus(dims: &[u32], c: u32, wrap: bool) -> RouterGraph {
        RouterGraph::from_topology(&Torus::new(dims, c, wrap).unwrap())
    }

    /// Endpoints on side true and side false.
    fn halves(g: &RouterGraph, side: &[bool]) -> (u64, u64) {
        let on = |s: bool| {
            (0..side.len())
                .filter(|&v| side[v] == s)
                .map(|v| u64::from(g.endpoints[v]))
                .sum()
        };
        (on(true), on(false))
    }

    #[test]
    fn known_bisection_widths_are_found() {
        for seed in 1..=3 {
            for (g, width) in [
                (torus(&[8, 8], 1, true), 16),
                (hypercube(6, 1), 32),
                (complete(8), 16),
                (torus(&[6, 4], 2, false), 4),
            ] {
                let b = min_bisection(&g, 8, seed, None);
                assert_eq!(b.cut_links, width, "seed {seed}");
                assert_eq!(cut_links(&g, &b.side), width);
                let (t, f) = halves(&g, &b.side);
                assert_eq!(t, f);
            }
        }
    }

    #[test]
    fn cut_links_counts_parallel_links() {
        let g = torus(&[8, 8], 1, true);
        let half: Vec<bool> = (0..64).map(|r| r % 8 < 4).collect();
        assert_eq!(cut_links(&g, &half), 16);
        // 4x2 torus: the 2-ary y dimension has 2 links per router pair.
        let g = torus(&[4, 2], 1, true);
        let rows: Vec<bool> = (0..8).map(|r| r < 4).collect();
        assert_eq!(cut_links(&g, &rows), 8);
        assert_eq!(min_bisection(&g, 4, 1, None).cut_links, 4);
    }

    #[test]
    fn never_worse_than_the_initial_split_and_deterministic() {
        let g = torus(&[12, 10], 1, true);
        let fm = Fm::new(&g);
        for seed in 0..4 {
            let start = fm.random_split(seed, 99);
            let before = cut_links(&g, &start);
            let b = min_bisection(&g, 1, seed, Some(&start));
            assert!(
                b.cut_links <= before && b.cut_links < 60,
                "{before} -> {}",
                b.cut_links
            );
            assert_eq!(b, min_bisection(&g, 1, seed, Some(&start)));
        }
        // Starting from the optimum (cut across x: 2 x 10 links) keeps it.
        let natural: Vec<bool> = (0..120).map(|r| r % 12 < 6).collect();
        assert_eq!(min_bisection(&g, 3, 5, Some(&natural)).cut_links, 20);
        assert_eq!(min_bisection(&g, 6, 7, None), min_bisection(&g, 6, 7, None));
    }

    #[test]
    #[should_panic(expected = "not balanced")]
    fn unbalanced_initial_split_is_refused() {
        let g = complete(4);
        min_bisection(&g, 1, 1, Some(&[true, true, true, false]));
    }

    #[test]
    fn balance_is_by_endpoints() {
        // Two-level fat tree: 8 leaves with 4 endpoints each, 4 spines without, every leaf on
        // every spine. Spines go anywhere; each has 4 links into each half of the leaves.
        let edges: Vec<(u32, u32)> = (0..8).flat_map(|l| (8..12).map(move |s| (l, s))).collect();
        let mut eps = vec![4; 8];
        eps.extend([0; 4]);
        let g = RouterGraph::from_edges(12, &edges, eps);
        let b = min_bisection(&g, 4, 1, None);
        assert_eq!(halves(&g, &b.side), (16, 16));
        assert_eq!(b.cut_links, 16);
        // An odd number of routers with equal endpoints: one router's worth apart.
        let g = torus(&[5, 5], 2, false);
        let b = min_bisection(&g, 4, 1, None);
        let (t, f) = halves(&g, &b.side);
        assert_eq!(t.abs_diff(f), 2);
        assert_eq!(b.cut_links, 6);
        // No endpoints anywhere: router counts balance instead.
        let g = hypercube(5, 0);
        let b = min_bisection(&g, 4, 1, None);
        assert_eq!(b.side.iter().filter(|&&s| s).count(), 16);
        assert_eq!(b.cut_links, 16);
        // Mixed endpoint counts: within the largest router's endpoints.
        let t = torus(&[6, 6], 1, true);
        let edges: Vec<(u32, u32)> = (0..36)
            .flat_map(|v| t.neighbors(v).iter().map(move |&u| (v, u)))
            .filter(|&(v, u)| v < u)
            .collect();
        let g = RouterGraph::from_edges(36, &edges, (0..36).map(|v| v % 4).collect());
        let b = min_bisection(&g, 4, 1, None);
        let (t, f) = halves(&g, &b.side);
        assert!(t.abs_diff(f) <= 3, "{t} vs {f}");
    }
}
