//! Valiant routing: minimal to a random intermediate (a group on topologies with groups, a
//! router with endpoints elsewhere), then minimal to the destination.

use super::{Paths, Position, Scheme};
use crate::routing::{Candidates, RouteQuery, RouteState};

pub struct Valiant;

impl Scheme for Valiant {
    fn name(&self) -> &'static str {
        "valiant"
    }

    fn decide(
        &self,
        paths: &Paths,
        _at: Position,
        q: &RouteQuery,
        state: &mut RouteState,
        _out: &mut Candidates,
    ) -> bool {
        if q.injected {
            if let Some((via, _)) = paths.intermediate(q, false) {
                *state = RouteState { phase: 0, via };
            }
        }
        false
    }

    /// Every intermediate (the random bits modulo their number).
    fn distinct_draws(&self, paths: &Paths) -> u32 {
        paths.intermediates()
    }
}
