//! Source routing: a packet from the first to the last router of a user's path takes one of
//! the paths given for that pair (by its random bits); other pairs route minimally. VC i
//! carries hop i, so the longest path (or route) sets the VCs needed.

use super::{ClassPlan, Paths, Position, Scheme};
use crate::error::ConfigError;
use crate::routing::{Candidate, Candidates, RouteQuery, RouteState};

/// `RouteState::phase` of a packet on a user's path (`via` is the path's index).
const ON_PATH: u8 = 3;

pub struct Source {
    /// The paths (router lists, first to last), and for each (first, last) router pair the
    /// indices of its paths, sorted by pair.
    paths: Vec<Vec<u32>>,
    by_pair: Vec<((u32, u32), u32)>,
}

impl Source {
    pub fn new(paths: &[Vec<u32>]) -> Self {
        let mut by_pair: Vec<((u32, u32), u32)> = paths
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, p)| ((p[0], p[p.len() - 1]), i as u32))
            .collect();
        by_pair.sort_unstable();
        Source {
            paths: paths.to_vec(),
            by_pair,
        }
    }
}

impl Scheme for Source {
    fn name(&self) -> &'static str {
        "source"
    }

    /// Consecutive routers of every path must be linked.
    fn prepare(&mut self, paths: &Paths) -> Result<(), ConfigError> {
        for (i, path) in self.paths.iter().enumerate() {
            let bad = |why: String| {
                ConfigError::new(
                    &format!("routing.paths[{i}]"),
                    format!("{path:?}"),
                    format!("a list of at least two routers, each linked to the next: {why}"),
                )
            };
            if path.len() < 2 {
                return Err(bad(format!("{} routers", path.len())));
            }
            if let Some(&r) = path.iter().find(|&&r| r as usize >= paths.routers()) {
                return Err(bad(format!(
                    "router {r} does not exist (0..{})",
                    paths.routers()
                )));
            }
            if let Some(w) = path.windows(2).find(|w| !paths.linked(w[0], w[1])) {
                return Err(bad(format!("routers {} and {} are not linked", w[0], w[1])));
            }
        }
        Ok(())
    }

    /// Paths follow hops, whatever the topology.
    fn plan(&self, paths: &Paths) -> (ClassPlan, u32) {
        let longest = self
            .paths
            .iter()
            .map(|p| p.len() as u32 - 1)
            .max()
            .unwrap_or(0);
        (ClassPlan::Hops, longest.max(u32::from(paths.diameter())))
    }

    fn decide(
        &self,
        paths: &Paths,
        at: Position,
        q: &RouteQuery,
        state: &mut RouteState,
        out: &mut Candidates,
    ) -> bool {
        if q.injected {
            let pair = (q.router, q.dst_router);
            let from = self.by_pair.partition_point(|&(p, _)| p < pair);
            let count = self.by_pair[from..]
                .iter()
                .take_while(|&&(p, _)| p == pair)
                .count();
            if count > 0 {
                let (_, path) = self.by_pair[from + q.random as usize % count];
                *state = RouteState {
                    phase: ON_PATH,
                    via: path,
                };
            }
        }
        if state.phase != ON_PATH {
            return false;
        }
        match self.paths[state.via as usize].get(at.taken + 1) {
            Some(&next) => {
                for &(port, nb) in paths.ports(q.router) {
                    if nb == next && out.as_slice().len() < Candidates::CAPACITY {
                        let vc_mask = paths.hop_vcs(at, q.router, port, nb);
                        out.push(Candidate::keep(port, vc_mask, *state));
                    }
                }
            }
            None => out.push(Candidate::keep(q.dst_port, paths.all_vcs, *state)),
        }
        true
    }

    /// Every path of the pair with the most (the random bits modulo their number).
    fn distinct_draws(&self, _paths: &Paths) -> u32 {
        self.by_pair
            .chunk_by(|a, b| a.0 == b.0)
            .map(|run| run.len() as u32)
            .max()
            .unwrap_or(1)
    }

    fn state_bytes(&self) -> u64 {
        let paths: usize = self.paths.iter().map(|p| p.len() * 4 + 24).sum();
        (paths + self.by_pair.len() * 12) as u64
    }
}
