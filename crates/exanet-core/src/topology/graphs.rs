//! Graph-built families: topologies defined as one specific graph (Moore graphs, Slim Fly,
//! PolarFly, Jellyfish, Fishnet) rather than by coordinates. Each builder returns an
//! [`EdgeList`]; bad parameters give a [`ConfigError`] naming what would be valid, never a panic.

use std::collections::HashSet;

use rand::RngExt;

use super::edges::EdgeList;
use super::field::{list, nearby_prime_powers, prime_power, GaloisField, MAX_ORDER};
use crate::engine::{entity_stream, EntityRng};
use crate::error::ConfigError;

/// Most links a builder produces: a mistyped parameter (q = 530 for 53) must be refused before
/// it allocates gigabytes.
pub const MAX_LINKS: u64 = 1 << 26;

/// Random stream of the Jellyfish wiring, away from the per-entity streams (small ids).
const JELLYFISH_STREAM: u64 = u64::MAX - 2;

/// Fresh random pairings tried before Jellyfish gives up (each almost always succeeds).
const JELLYFISH_ATTEMPTS: u32 = 16;

/// Random partner links tried to repair one self-loop or parallel link of a pairing.
const JELLYFISH_SWITCH_TRIES: u32 = 100_000;

/// The Petersen graph, the Moore graph of degree 3 (10 routers, diameter 2): the smallest
/// useful Fishnet base.
pub fn petersen() -> EdgeList {
    let mut g = EdgeList::new(10, &["local"]);
    for i in 0..5 {
        g.push(i, (i + 1) % 5, 0);
        g.push(5 + i, 5 + (i + 2) % 5, 0);
        g.push(i, 5 + i, 0);
    }
    g.group = vec![0; 10];
    g
}

/// The Hoffman–Singleton graph, the Moore graph of degree 7 (50 routers, diameter 2), by
/// Robertson's construction: pentagons P_h and pentagrams Q_i, with P_h[j] ~ Q_i[h*i + j mod 5].
/// The group of a router is its pentagon (0..5) or pentagram (5..10).
pub fn hoffman_singleton() -> EdgeList {
    let mut g = EdgeList::new(50, &["local"]);
    let pentagon = |h: u32, j: u32| h * 5 + j;
    let pentagram = |i: u32, j: u32| 25 + i * 5 + j;
    for h in 0..5 {
        for j in 0..5 {
            g.push(pentagon(h, j), pentagon(h, (j + 1) % 5), 0);
            g.push(pentagram(h, j), pentagram(h, (j + 2) % 5), 0);
            for i in 0..5 {
                g.push(pentagon(h, j), pentagram(i, (h * i + j) % 5), 0);
            }
        }
    }
    g.group = (0..50).map(|v| v / 5).collect();
    g
}

/// The error for a field order a family cannot use, listing the closest ones it can.
fn bad_q(q: u32, family: &str, min: u32, links: fn(u32) -> u64) -> ConfigError {
    // The largest q whose graph stays within MAX_LINKS (links grow with q).
    let mut max = min;
    while max < MAX_ORDER && links(max + 1) <= MAX_LINKS {
        max += 1;
    }
    let nearby = nearby_prime_powers(q, min, max);
    let reason = if prime_power(q).is_none() {
        format!("{q} is not a prime power")
    } else if q < min {
        format!("{q} is too small")
    } else {
        format!("{q} would need more than {MAX_LINKS} links")
    };
    ConfigError::new(
        "topology.q",
        q.to_string(),
        format!(
            "{family} needs a prime power q with {min} <= q <= {max} ({reason}); nearby valid \
             values: {}",
            list(&nearby)
        ),
    )
}

/// Builds GF(q) for a q already checked to be a prime power within [`MAX_ORDER`].
fn field(
    q: u32,
    family: &str,
    min: u32,
    links: fn(u32) -> u64,
) -> Result<GaloisField, ConfigError> {
    GaloisField::new(q).map_err(|_| bad_q(q, family, min, links))
}

/// Links of the Slim Fly of parameter q: 2q² routers of network degree (3q - δ)/2.
fn slim_fly_links(q: u32) -> u64 {
    let q = u64::from(q);
    let delta_term = match q % 4 {
        1 => 3 * q - 1,
        0 => 3 * q,
        _ => 3 * q + 1,
    };
    q * q * delta_term / 2
}

/// Slim Fly (Besta & Hoefler, SC'14): the McKay–Miller–Širáň graph of a prime power
/// q = 4w + δ, δ ∈ {-1, 0, 1}. Diameter 2 with 2q² routers of network degree (3q - δ)/2, close
/// to the Moore bound.
///
/// Router (s, a, b) has id `s*q² + a*q + b`: (0, x, y) and (1, m, c) for x, y, m, c ∈ GF(q).
/// (0,x,y) ~ (0,x,y') iff y - y' ∈ X; (1,m,c) ~ (1,m,c') iff c - c' ∈ X' = ξX;
/// (0,x,y) ~ (1,m,c) iff y = mx + c. ξ is the smallest primitive element and X holds the powers
/// ξ^e for e ∈ {0, 2, ..., q-3} (δ = 1), {0, 2, ..., q-2} (δ = 0), or
/// {0, 2, ..., 2w-2} ∪ {2w-1, 2w+1, ..., 4w-3} (δ = -1).
///
/// Links inside a rack (same s and a) are "local", the others "global"; the group of a router
/// is its rack `s*q + a`.
pub fn slim_fly(q: u32) -> Result<EdgeList, ConfigError> {
    const FAMILY: &str = "a Slim Fly";
    if q < 3 || prime_power(q).is_none() || slim_fly_links(q) > MAX_LINKS {
        return Err(bad_q(q, FAMILY, 3, slim_fly_links));
    }
    let f = field(q, FAMILY, 3, slim_fly_links)?;
    let xi = f.primitive_element();
    // Prime powers >= 3 are odd or multiples of 4, so q % 4 is never 2.
    let exponents: Vec<u32> = match q % 4 {
        1 => (0..q - 1).step_by(2).collect(),
        0 => (0..q).step_by(2).collect(),
        _ => {
            let w = (q + 1) / 4;
            (0..2 * w - 1)
                .step_by(2)
                .chain((2 * w - 1..4 * w - 2).step_by(2))
                .collect()
        }
    };
    let gen_x: Vec<u32> = exponents.iter().map(|&e| f.pow(xi, e)).collect();
    let gen_x_prime: Vec<u32> = gen_x.iter().map(|&g| f.mul(xi, g)).collect();

    let qq = q * q;
    let id = |s: u32, a: u32, b: u32| s * qq + a * q + b;
    let mut g = EdgeList::new(2 * qq, &["local", "global"]);
    g.links.reserve(slim_fly_links(q) as usize);
    for (s, generators) in [(0, &gen_x), (1, &gen_x_prime)] {
        for a in 0..q {
            for b in 0..q {
                // X and X' are closed under negation: each pair shows up from both ends.
                for &d in generators {
                    let b2 = f.add(b, d);
                    if b < b2 {
                        g.push(id(s, a, b), id(s, a, b2), 0);
                    }
                }
            }
        }
    }
    for x in 0..q {
        for m in 0..q {
            let mx = f.mul(m, x);
            for c in 0..q {
                g.push(id(0, x, f.add(mx, c)), id(1, m, c), 1);
            }
        }
    }
    g.group = (0..2 * qq).map(|r| r / q).collect();
    Ok(g)
}

/// Links of the PolarFly of parameter q: q+1 links at each of the q² + q + 1 routers, except the
/// q+1 absolute points, which have q.
fn polarfly_links(q: u32) -> u64 {
    let q = u64::from(q);
    q * (q + 1) * (q + 1) / 2
}

/// PolarFly (Lakhotia et al., SC'22): the Erdős–Rényi polarity graph ER_q. Routers are the
/// q² + q + 1 points of the projective plane PG(2, q), x ~ y iff x·y = 0. Diameter 2 with
/// degree q + 1 (q at the q + 1 self-orthogonal points), asymptotically at the Moore bound.
///
/// Router ids: (1, a, b) is `a*q + b`, (0, 1, b) is `q² + b`, (0, 0, 1) is `q² + q`.
pub fn polarfly(q: u32) -> Result<EdgeList, ConfigError> {
    const FAMILY: &str = "a PolarFly";
    if q < 2 || prime_power(q).is_none() || polarfly_links(q) > MAX_LINKS {
        return Err(bad_q(q, FAMILY, 2, polarfly_links));
    }
    let f = field(q, FAMILY, 2, polarfly_links)?;
    let qq = q * q;
    // a^(q-2) is the inverse of a nonzero a.
    let inv = |a: u32| f.pow(a, q - 2);
    let point_id = |v: [u32; 3]| {
        if v[0] != 0 {
            let i = inv(v[0]);
            f.mul(v[1], i) * q + f.mul(v[2], i)
        } else if v[1] != 0 {
            qq + f.mul(v[2], inv(v[1]))
        } else {
            qq + q
        }
    };
    let points = qq + q + 1;
    let mut g = EdgeList::new(points, &["network"]);
    g.links.reserve(polarfly_links(q) as usize);
    for p in 0..points {
        let x = if p < qq {
            [1, p / q, p % q]
        } else if p < qq + q {
            [0, 1, p - qq]
        } else {
            [0, 0, 1]
        };
        // A basis (u, v) of the line x^⊥; its q + 1 points are v and u + t v.
        let (u, v) = if x[0] != 0 {
            ([f.neg(x[1]), 1, 0], [f.neg(x[2]), 0, 1])
        } else if x[1] != 0 {
            ([1, 0, 0], [0, f.neg(x[2]), 1])
        } else {
            ([1, 0, 0], [0, 1, 0])
        };
        let line = (0..q)
            .map(|t| {
                point_id([
                    f.add(u[0], f.mul(t, v[0])),
                    f.add(u[1], f.mul(t, v[1])),
                    f.add(u[2], f.mul(t, v[2])),
                ])
            })
            .chain([point_id(v)]);
        for y in line {
            if p < y {
                g.push(p, y, 0);
            }
        }
    }
    Ok(g)
}

/// Jellyfish (Singla et al., NSDI'12): a random `degree`-regular simple connected graph, the
/// same for the same seed. Built by a random pairing of ports whose self-loops and parallel
/// links are switched away with random other links, then links switched between components
/// until it is connected. Above degree (routers - 1)/2 the complement is built instead, which
/// keeps the repair cheap and is connected by construction.
pub fn jellyfish(routers: u32, degree: u32, seed: u64) -> Result<EdgeList, ConfigError> {
    let (n, d) = (routers, degree);
    if n < 2 {
        return Err(ConfigError::new(
            "topology.routers",
            n.to_string(),
            "at least 2 routers",
        ));
    }
    if d == 0 {
        return Err(ConfigError::new(
            "topology.degree",
            "0",
            "at least 1 router-to-router port per router",
        ));
    }
    if d >= n {
        return Err(ConfigError::new(
            "topology.degree",
            d.to_string(),
            format!(
                "at most topology.routers - 1 = {}: a router without parallel links has at most \
                 one link to each other router",
                n - 1
            ),
        ));
    }
    if u64::from(n) * u64::from(d) % 2 == 1 {
        return Err(ConfigError::new(
            "topology.routers",
            n.to_string(),
            format!(
                "an even routers x degree (every link has two ends): e.g. {} routers, or \
                 degree {} or {}",
                n + 1,
                d - 1,
                d + 1
            ),
        ));
    }
    if d == 1 && n > 2 {
        return Err(ConfigError::new(
            "topology.degree",
            "1",
            format!("at least 2 to connect {n} routers (degree 1 pairs them up)"),
        ));
    }
    let links = u64::from(n) * u64::from(d) / 2;
    if links > MAX_LINKS {
        return Err(ConfigError::new(
            "topology.routers",
            n.to_string(),
            format!("at most {MAX_LINKS} links in all; routers x degree / 2 = {links}"),
        ));
    }
    let not_found = || {
        ConfigError::new(
            "topology.seed",
            seed.to_string(),
            format!("a seed for which a random {d}-regular graph on {n} routers is found"),
        )
    };
    let mut rng = entity_stream(seed, JELLYFISH_STREAM);
    let mut pairs = if 2 * d + 1 >= n {
        // Two non-adjacent routers have 2d > n - 2 neighbours among the n - 2 others, so they
        // share one: the graph is connected.
        let sparse = random_regular(n, n - 1 - d, &mut rng).ok_or_else(not_found)?;
        complement(n, &sparse)
    } else {
        let mut pairs = random_regular(n, d, &mut rng).ok_or_else(not_found)?;
        connect(n, &mut pairs, &mut rng);
        pairs
    };
    for p in &mut pairs {
        *p = (p.0.min(p.1), p.0.max(p.1));
    }
    pairs.sort_unstable();
    let mut g = EdgeList::new(n, &["network"]);
    g.links.reserve(pairs.len());
    for (a, b) in pairs {
        g.push(a, b, 0);
    }
    Ok(g)
}

fn pair_key(a: u32, b: u32) -> u64 {
    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
}

fn shuffle(values: &mut [u32], rng: &mut EntityRng) {
    for i in (1..values.len()).rev() {
        let j = rng.random_range(0..=i as u32) as usize;
        values.swap(i, j);
    }
}

/// A random simple `d`-regular graph on `n` vertices, for `2d < n`: random pairing of the ports,
/// then every self-loop or parallel link (a, b) trades ends with a random good link (c, e)
/// into (a, c), (b, e) when neither is a loop or already present. `None` if that keeps failing.
fn random_regular(n: u32, d: u32, rng: &mut EntityRng) -> Option<Vec<(u32, u32)>> {
    for _ in 0..JELLYFISH_ATTEMPTS {
        let mut stubs: Vec<u32> = (0..n)
            .flat_map(|v| std::iter::repeat_n(v, d as usize))
            .collect();
        shuffle(&mut stubs, rng);
        let mut edges: Vec<(u32, u32)> = stubs.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        let mut present = HashSet::with_capacity(edges.len());
        let mut is_bad = vec![false; edges.len()];
        let mut bad = Vec::new();
        for (i, &(a, b)) in edges.iter().enumerate() {
            if a == b || !present.insert(pair_key(a, b)) {
                is_bad[i] = true;
                bad.push(i);
            }
        }
        let all_repaired = bad.into_iter().all(|i| {
            let (a, b) = edges[i];
            for _ in 0..JELLYFISH_SWITCH_TRIES {
                let j = rng.random_range(0..edges.len() as u32) as usize;
                if is_bad[j] {
                    continue;
                }
                let (mut c, mut e) = edges[j];
                if rng.random_bool(0.5) {
                    (c, e) = (e, c);
                }
                let (k1, k2) = (pair_key(a, c), pair_key(b, e));
                if a == c || b == e || k1 == k2 || present.contains(&k1) || present.contains(&k2) {
                    continue;
                }
                present.remove(&pair_key(c, e));
                present.insert(k1);
                present.insert(k2);
                edges[i] = (a, c);
                edges[j] = (b, e);
                is_bad[i] = false;
                return true;
            }
            false
        });
        if all_repaired {
            return Some(edges);
        }
    }
    None
}

/// Union-find root with path halving.
fn root(parent: &mut [u32], mut v: u32) -> u32 {
    while parent[v as usize] != v {
        parent[v as usize] = parent[parent[v as usize] as usize];
        v = parent[v as usize];
    }
    v
}

/// Makes a simple graph of minimum degree 2 connected without changing any degree: a random
/// link (a, b) of the component of router 0 and a random link (c, e) of another component become
/// (a, c), (b, e). Both components have cycles, so this merges them unless both links were
/// bridges, in which case another pair is drawn.
fn connect(n: u32, edges: &mut [(u32, u32)], rng: &mut EntityRng) {
    loop {
        let mut parent: Vec<u32> = (0..n).collect();
        for &(a, b) in edges.iter() {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra as usize] = rb;
        }
        let first = root(&mut parent, 0);
        let Some(other) = (1..n).map(|v| root(&mut parent, v)).find(|&r| r != first) else {
            return;
        };
        let mut in_first = Vec::new();
        let mut in_other = Vec::new();
        for (i, &(a, _)) in edges.iter().enumerate() {
            let r = root(&mut parent, a);
            if r == first {
                in_first.push(i);
            } else if r == other {
                in_other.push(i);
            }
        }
        let i = in_first[rng.random_range(0..in_first.len() as u32) as usize];
        let j = in_other[rng.random_range(0..in_other.len() as u32) as usize];
        let ((a, b), (c, e)) = (edges[i], edges[j]);
        edges[i] = (a, c);
        edges[j] = (b, e);
    }
}

/// The links of the complement of a simple graph.
fn complement(n: u32, edges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut adj = vec![Vec::new(); n as usize];
    for &(a, b) in edges {
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    let mut mark = vec![u32::MAX; n as usize];
    let mut out = Vec::new();
    for u in 0..n {
        for &v in &adj[u as usize] {
            mark[v as usize] = u;
        }
        out.extend(
            (u + 1..n)
                .filter(|&v| mark[v as usize] != u)
                .map(|v| (u, v)),
        );
    }
    out
}

/// A pair of routers more than 2 hops apart, if any (adjacency lists without self-loops).
/// O(n k²) rather than all-pairs BFS, so that large bases are checked quickly.
fn far_pair(adj: &[Vec<u32>]) -> Option<(u32, u32)> {
    let mut seen = vec![u32::MAX; adj.len()];
    for (u, nbrs) in adj.iter().enumerate() {
        let u = u as u32;
        seen[u as usize] = u;
        for &v in nbrs {
            seen[v as usize] = u;
            for &w in &adj[v as usize] {
                seen[w as usize] = u;
            }
        }
        if let Some(far) = seen.iter().position(|&s| s != u) {
            return Some((u, far as u32));
        }
    }
    None
}

/// Fishnet and Fishnet-lite (Li et al.): n + 1 copies (subnets) of a diameter-2, k'-regular base
/// graph on n routers, joined so that every pair of subnets is linked, for diameter 4 (Fishnet,
/// degree 2k') or 5 (Fishnet-lite, degree k' + 1) with about n² routers.
///
/// In subnet i, base router t carries the label j = t if t < i, else t + 1, and is written
/// (i, j); its id is `i*n + t`. Links inside a subnet copy the base ("local"). For i < j,
/// Fishnet-lite links (i, j)–(j, i); Fishnet links the m-th base neighbour of (i, j) to the m-th
/// base neighbour of (j, i), neighbours in base order, k' links per pair ("global"). The group
/// of a router is its subnet. A base of diameter 1 (complete graph) is accepted too.
pub fn fishnet(base: &EdgeList, lite: bool) -> Result<EdgeList, ConfigError> {
    let n = base.routers;
    let bad = |found: String| {
        ConfigError::new(
            "topology.base",
            format!("a graph of {n} routers"),
            format!(
                "a regular graph of diameter 2 without self-loops or parallel links (such as \
                 Petersen, Hoffman-Singleton or a Slim Fly); found {found}"
            ),
        )
    };
    if n < 2 {
        return Err(bad(format!("{n} routers")));
    }
    if let Some(l) = base.links.iter().find(|l| l.a >= n || l.b >= n) {
        return Err(bad(format!(
            "a link {}-{} to a router that does not exist",
            l.a, l.b
        )));
    }
    if let Some(l) = base.links.iter().find(|l| l.a == l.b) {
        return Err(bad(format!("a self-loop at router {}", l.a)));
    }
    let mut adj = base.adjacency();
    for (v, nbrs) in adj.iter_mut().enumerate() {
        nbrs.sort_unstable();
        if let Some(w) = nbrs.windows(2).find(|w| w[0] == w[1]) {
            return Err(bad(format!(
                "parallel links between routers {v} and {}",
                w[0]
            )));
        }
    }
    let k = adj[0].len() as u32;
    if let Some(v) = adj.iter().position(|nbrs| nbrs.len() as u32 != k) {
        return Err(bad(format!(
            "router {v} with {} links but router 0 with {k}",
            adj[v].len()
        )));
    }
    let routers = u64::from(n) * u64::from(n + 1);
    let pairs = routers / 2;
    let links = routers * u64::from(k) / 2 + pairs * if lite { 1 } else { u64::from(k) };
    if links > MAX_LINKS || routers > u64::from(u32::MAX) {
        return Err(bad(format!(
            "{n} routers of degree {k}: the Fishnet would have {routers} routers and {links} \
             links, more than the {MAX_LINKS} supported"
        )));
    }
    if let Some((u, v)) = far_pair(&adj) {
        return Err(bad(format!("routers {u} and {v} more than 2 hops apart")));
    }

    let total = n * (n + 1);
    let mut g = EdgeList::new(total, &["local", "global"]);
    g.links.reserve(links as usize);
    for i in 0..=n {
        for l in &base.links {
            g.push(i * n + l.a, i * n + l.b, 0);
        }
    }
    for i in 0..=n {
        for j in i + 1..=n {
            // (i, j) is base router j - 1 of subnet i (j > i); (j, i) is base router i of j.
            let (ta, tb) = (j - 1, i);
            if lite {
                g.push(i * n + ta, j * n + tb, 1);
            } else {
                for (&a, &b) in adj[ta as usize].iter().zip(&adj[tb as usize]) {
                    g.push(i * n + a, j * n + b, 1);
                }
            }
        }
    }
    g.group = (0..total).map(|r| r / n).collect();
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::time::Instant;

    /// Hop distances from `src` (u32::MAX where unreachable).
    fn bfs(adj: &[Vec<u32>], src: u32) -> Vec<u32> {
        let mut dist = vec![u32::MAX; adj.len()];
        dist[src as usize] = 0;
        let mut queue = VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for &v in &adj[u as usize] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        dist
    }

    /// Largest distance over all pairs; panics if the graph is disconnected.
    fn diameter(g: &EdgeList) -> u32 {
        let adj = g.adjacency();
        (0..g.routers)
            .map(|s| {
                let d = bfs(&adj, s);
                assert!(d.iter().all(|&x| x != u32::MAX), "disconnected");
                *d.iter().max().unwrap()
            })
            .max()
            .unwrap()
    }

    fn assert_simple(g: &EdgeList) {
        let mut seen = HashSet::new();
        for l in &g.links {
            assert!(l.a != l.b && l.a < g.routers && l.b < g.routers, "{l:?}");
            assert!(seen.insert(pair_key(l.a, l.b)), "parallel link {l:?}");
        }
    }

    fn assert_regular(g: &EdgeList, k: u32) {
        for (v, &d) in g.degrees().iter().enumerate() {
            assert_eq!(d, k, "router {v}");
        }
    }

    #[test]
    fn moore_graphs() {
        let p = petersen();
        assert_eq!((p.routers, p.links.len()), (10, 15));
        assert_simple(&p);
        assert_regular(&p, 3);
        assert_eq!(diameter(&p), 2);
        assert_eq!(p.group, vec![0; 10]);
        assert_eq!(p.class_names, vec!["local"]);

        let h = hoffman_singleton();
        assert_eq!((h.routers, h.links.len()), (50, 175));
        assert_simple(&h);
        assert_regular(&h, 7);
        assert_eq!(diameter(&h), 2);
        for g in 0..10 {
            assert_eq!(h.group.iter().filter(|&&x| x == g).count(), 5);
        }
    }

    #[test]
    fn slim_fly_is_regular_with_diameter_2() {
        for q in [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31, 32] {
            let g = slim_fly(q).unwrap();
            let delta: i64 = match q % 4 {
                1 => 1,
                0 => 0,
                _ => -1,
            };
            let k = ((3 * i64::from(q) - delta) / 2) as u32;
            assert_eq!(g.routers, 2 * q * q, "q={q}");
            assert_simple(&g);
            assert_regular(&g, k);
            assert_eq!(far_pair(&g.adjacency()), None, "q={q}");
            if q <= 13 {
                assert_eq!(diameter(&g), 2, "q={q}");
            }
            assert_eq!(g.class_names, vec!["local", "global"]);
            for l in &g.links {
                let (ga, gb) = (g.group[l.a as usize], g.group[l.b as usize]);
                if l.class == 0 {
                    assert_eq!(ga, gb, "q={q} {l:?}");
                } else {
                    assert!(ga < q && gb >= q, "q={q} {l:?}");
                }
            }
            // Every router: q global links (one per rack of the other half).
            let mut global = vec![0u32; g.routers as usize];
            for l in g.links.iter().filter(|l| l.class == 1) {
                global[l.a as usize] += 1;
                global[l.b as usize] += 1;
            }
            assert!(global.iter().all(|&x| x == q), "q={q}");
            assert!((0..2 * q).all(|r| g.group.iter().filter(|&&x| x == r).count() == q as usize));
        }
    }

    #[test]
    fn slim_fly_53_is_fast() {
        let start = Instant::now();
        let g = slim_fly(53).unwrap();
        let elapsed = start.elapsed();
        assert_eq!(g.routers, 5618);
        assert_regular(&g, 79);
        assert_eq!(far_pair(&g.adjacency()), None);
        assert!(elapsed.as_secs_f64() < 0.5, "{elapsed:?}");
    }

    #[test]
    fn slim_fly_rejects_bad_q() {
        for (q, nearby) in [
            (0, "3"),
            (1, "3"),
            (2, "3"),
            (6, "5, 7"),
            (12, "11, 13"),
            (10000, "353"),
        ] {
            let e = slim_fly(q).unwrap_err();
            assert_eq!(e.key, "topology.q");
            assert_eq!(e.value, q.to_string());
            assert!(e.expected.contains(&format!("values: {nearby}")), "{e}");
        }
        assert!(slim_fly(359).unwrap_err().expected.contains("links"));
    }

    #[test]
    fn polarfly_is_the_polarity_graph() {
        for q in [2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27] {
            let g = polarfly(q).unwrap();
            assert_eq!(g.routers, q * q + q + 1);
            assert_simple(&g);
            let degrees = g.degrees();
            assert_eq!(degrees.iter().filter(|&&d| d == q).count() as u32, q + 1);
            assert_eq!(
                degrees.iter().filter(|&&d| d == q + 1).count() as u32,
                q * q
            );
            assert_eq!(diameter(&g), 2, "q={q}");
            assert_eq!(g.links.len() as u64, polarfly_links(q));
            assert_eq!(g.class_names, vec!["network"]);
        }
        // Adjacency is orthogonality, checked directly over GF(5).
        let f = GaloisField::new(5).unwrap();
        let g = polarfly(5).unwrap();
        let coords = |p: u32| match p {
            p if p < 25 => [1, p / 5, p % 5],
            p if p < 30 => [0, 1, p - 25],
            _ => [0, 0, 1],
        };
        let dot = |x: [u32; 3], y: [u32; 3]| (0..3).fold(0, |s, i| f.add(s, f.mul(x[i], y[i])));
        let links: HashSet<u64> = g.links.iter().map(|l| pair_key(l.a, l.b)).collect();
        for a in 0..31 {
            for b in a + 1..31 {
                assert_eq!(
                    links.contains(&pair_key(a, b)),
                    dot(coords(a), coords(b)) == 0
                );
            }
        }
    }

    #[test]
    fn polarfly_rejects_bad_q() {
        for (q, nearby) in [(0, "2"), (1, "2"), (6, "5, 7"), (12, "11, 13")] {
            let e = polarfly(q).unwrap_err();
            assert_eq!(e.key, "topology.q");
            assert!(e.expected.contains(&format!("values: {nearby}")), "{e}");
        }
        assert!(polarfly(1021).unwrap_err().expected.contains("links"));
    }

    #[test]
    fn jellyfish_is_random_regular_and_connected() {
        for (n, d) in [
            (2, 1),
            (20, 2),
            (1000, 2),
            (100, 3),
            (101, 4),
            (1000, 7),
            (10, 9),
            (10, 8),
            (11, 6),
            (12, 5),
            (64, 31),
        ] {
            for seed in 0..4 {
                let g = jellyfish(n, d, seed).unwrap();
                assert_eq!(g.routers, n);
                assert_simple(&g);
                assert_regular(&g, d);
                let dist = bfs(&g.adjacency(), 0);
                assert!(
                    dist.iter().all(|&x| x != u32::MAX),
                    "n={n} d={d} seed={seed}"
                );
                assert_eq!(g.class_names, vec!["network"]);
            }
        }
        let a = jellyfish(200, 6, 7).unwrap().links;
        assert_eq!(a, jellyfish(200, 6, 7).unwrap().links);
        assert_ne!(a, jellyfish(200, 6, 8).unwrap().links);
    }

    #[test]
    fn jellyfish_25000_is_fast() {
        let start = Instant::now();
        let g = jellyfish(25_000, 32, 1).unwrap();
        let elapsed = start.elapsed();
        assert_regular(&g, 32);
        assert_simple(&g);
        assert!(bfs(&g.adjacency(), 0).iter().all(|&x| x != u32::MAX));
        assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
    }

    #[test]
    fn jellyfish_rejects_bad_parameters() {
        let cases = [
            (0, 1, "topology.routers"),
            (1, 1, "topology.routers"),
            (10, 0, "topology.degree"),
            (10, 10, "topology.degree"),
            (10, 12, "topology.degree"),
            (11, 3, "topology.routers"),
            (10, 1, "topology.degree"),
            (1 << 24, 16, "topology.routers"),
        ];
        for (n, d, key) in cases {
            assert_eq!(jellyfish(n, d, 0).unwrap_err().key, key, "n={n} d={d}");
        }
    }

    fn check_fishnet(base: &EdgeList, k: u32) {
        let n = base.routers;
        for (lite, degree, diam, per_pair) in [(false, 2 * k, 4, k), (true, k + 1, 5, 1)] {
            let g = fishnet(base, lite).unwrap();
            assert_eq!(g.routers, n * (n + 1));
            assert_simple(&g);
            assert_regular(&g, degree);
            assert_eq!(diameter(&g), diam, "n={n} lite={lite}");
            assert_eq!(g.class_names, vec!["local", "global"]);
            let mut between = vec![0u32; ((n + 1) * (n + 1)) as usize];
            for l in &g.links {
                let (sa, sb) = (g.group[l.a as usize], g.group[l.b as usize]);
                assert_eq!((sa, sb), (l.a / n, l.b / n));
                if l.class == 0 {
                    assert_eq!(sa, sb);
                } else {
                    assert_ne!(sa, sb);
                    between[(sa.min(sb) * (n + 1) + sa.max(sb)) as usize] += 1;
                }
            }
            for i in 0..=n {
                for j in i + 1..=n {
                    assert_eq!(between[(i * (n + 1) + j) as usize], per_pair);
                }
            }
            if lite {
                // (i, j) – (j, i): base router j-1 of subnet i, base router i of subnet j.
                assert!(g.links.iter().any(|l| (l.a, l.b) == (2 * n + 4, 5 * n + 2)));
            }
        }
    }

    #[test]
    fn fishnet_of_moore_graphs() {
        check_fishnet(&petersen(), 3);
        check_fishnet(&hoffman_singleton(), 7);
    }

    #[test]
    fn fishnet_rejects_bad_bases() {
        let mut cycle = EdgeList::new(6, &["local"]);
        for i in 0..6 {
            cycle.push(i, (i + 1) % 6, 0);
        }
        let e = fishnet(&cycle, false).unwrap_err();
        assert_eq!(e.key, "topology.base");
        assert!(e.expected.contains("more than 2 hops"), "{e}");

        let mut path = EdgeList::new(3, &["local"]);
        path.push(0, 1, 0);
        path.push(1, 2, 0);
        assert!(fishnet(&path, true).unwrap_err().expected.contains("links"));

        let mut parallel = petersen();
        parallel.links.push(parallel.links[0]);
        assert!(fishnet(&parallel, false)
            .unwrap_err()
            .expected
            .contains("parallel"));

        assert!(fishnet(&EdgeList::new(1, &["local"]), false).is_err());
        assert!(fishnet(&EdgeList::new(4, &["local"]), false).is_err());
        assert!(fishnet(&slim_fly(53).unwrap(), false).is_err());

        // A complete base (diameter 1) is fine.
        let mut k4 = EdgeList::new(4, &["local"]);
        for a in 0..4 {
            for b in a + 1..4 {
                k4.push(a, b, 0);
            }
        }
        assert_regular(&fishnet(&k4, false).unwrap(), 6);
    }
}
