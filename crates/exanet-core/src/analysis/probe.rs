#![cfg(test)]
use super::*;
use crate::topology::Torus;
use std::time::Instant;

fn random_regular(n: u32, deg: u32, seed: u64) -> RouterGraph {
    use rand::RngExt;
    let mut rng = crate::engine::entity_stream(seed, 0);
    let mut edges = Vec::new();
    for v in 0..n {
        for _ in 0..deg / 2 {
            let mut u = rng.random_range(0..n);
            while u == v {
                u = rng.random_range(0..n);
            }
            edges.push((v, u));
        }
    }
    RouterGraph::from_edges(n, &edges, vec![1; n as usize])
}

#[test]
#[ignore]
fn probe_quality() {
    for (name, g, w) in [
        (
            "torus8x8",
            RouterGraph::from_topology(&Torus::new(&[8, 8], 1, true).unwrap()),
            16u64,
        ),
        (
            "torus16x16",
            RouterGraph::from_topology(&Torus::new(&[16, 16], 1, true).unwrap()),
            32,
        ),
        (
            "torus8x8x8",
            RouterGraph::from_topology(&Torus::new(&[8, 8, 8], 1, true).unwrap()),
            128,
        ),
    ] {
        let mut hits = 0;
        let mut hist = std::collections::BTreeMap::new();
        for seed in 0..200 {
            let b = min_bisection(&g, 1, seed, None);
            if b.cut_links == w {
                hits += 1;
            }
            *hist.entry(b.cut_links).or_insert(0) += 1;
        }
        println!("{name}: single-run optimum {hits}/200 {hist:?}");
        let mut fails = 0;
        for seed in 0..100 {
            if min_bisection(&g, 8, seed, None).cut_links != w {
                fails += 1;
            }
        }
        println!("{name}: restarts 8 failures {fails}/100");
    }
}

#[test]
#[ignore]
fn probe_speed() {
    let g = random_regular(10_000, 40, 1);
    let t = Instant::now();
    let s = distance_stats(&g, u32::MAX, 0, 1);
    println!("10k deg40 exact: {:?} {:?}", t.elapsed(), s);
    let t = Instant::now();
    let s = super::distances::distance_stats_threads(&g, u32::MAX, 0, 1, 1);
    println!(
        "10k deg40 exact 1 thread: {:?} {:?}",
        t.elapsed(),
        s.avg_router_distance
    );
    let t = Instant::now();
    let p = path_diversity(&g, 256, 1);
    println!(
        "10k deg40 path diversity 256 src: {:?} {:?}",
        t.elapsed(),
        p
    );
    let g = random_regular(20_000, 40, 2);
    let t = Instant::now();
    let b = min_bisection(&g, 4, 1, None);
    println!(
        "20k deg40 bisection r4: {:?} cut {} of {}",
        t.elapsed(),
        b.cut_links,
        g.num_links()
    );
    let g = RouterGraph::from_topology(&Torus::new(&[64, 64, 25], 1, true).unwrap());
    let t = Instant::now();
    let b = min_bisection(&g, 4, 1, None);
    println!(
        "64x64x25 bisection r4: {:?} cut {} (optimum 2*64*25=3200? or 2*64*64... )",
        t.elapsed(),
        b.cut_links
    );
    let t = Instant::now();
    let s = distance_stats(&g, 0, 1000, 1);
    println!("64x64x25 sampled 1000: {:?} {:?}", t.elapsed(), s);
    let t = Instant::now();
    let s = distance_stats(&g, u32::MAX, 0, 1);
    println!("64x64x25 exact: {:?} {:?}", t.elapsed(), s);
    let g = RouterGraph::from_topology(&Torus::new(&[18, 18, 18, 18], 1, true).unwrap());
    let t = Instant::now();
    let s = distance_stats(&g, u32::MAX, 0, 1);
    println!("18^4 exact: {:?} {:?}", t.elapsed(), s);
}

#[test]
#[ignore]
fn probe_batches() {
    let g = RouterGraph::from_topology(&Torus::new(&[64, 64, 25], 1, true).unwrap());
    let t = Instant::now();
    let all: Vec<u32> = (0..g.num_routers()).collect();
    let order = super::distances::cluster_sources(&g, &all);
    println!("cluster {:?}", t.elapsed());
    let tt = Torus::new(&[64, 64, 25], 1, true).unwrap();
    use crate::topology::Topology;
    for b in [0usize, 1, 100, 800, 1500] {
        let batch = &order[b * 64..(b + 1) * 64];
        let mut spread = 0;
        for &x in batch {
            for &y in batch {
                spread = spread.max(tt.distance(x, y));
            }
        }
        let mut f = super::distances::Frontiers::new(g.num_routers() as usize);
        let t = Instant::now();
        let s = super::distances::batch_search(&g, batch, &mut f);
        println!(
            "batch {b} spread {spread}: {:?} {:?}",
            t.elapsed(),
            s.router_diameter
        );
    }
}
