//! Structural analysis of a topology as a router graph: hop distances, minimal-path diversity
//! and bisection width, computed from the wiring alone (no simulation).

mod bisection;
mod distances;
mod graph;

pub use bisection::{cut_links, min_bisection, Bisection};
pub use distances::{bfs_distances, distance_stats, path_diversity, DistanceStats, PathDiversity};
pub use graph::RouterGraph;
