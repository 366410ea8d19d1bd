//! Progressive adaptive routing (Jiang et al.): UGAL-L at the source, and once more after the
//! first local hop while the packet is still in its source group, so a packet sent minimally
//! into a queue that filled behind it can still divert. Topologies with groups only.

use super::{ClassPlan, Needs, Paths, Position, Scheme, FINAL};
use crate::routing::{Candidates, RouteQuery, RouteState, NO_VIA};

/// `RouteState::phase` of a packet on its minimal way that may still divert.
const UNDECIDED: u8 = 2;

pub struct Par;

impl Scheme for Par {
    fn name(&self) -> &'static str {
        "par"
    }

    fn needs(&self) -> Needs {
        Needs::Groups("a dragonfly or Fishnet (PAR diverts inside the source group)")
    }

    /// Valiant's blocks, with one more class in the source group's for the second look.
    fn plan(&self, paths: &Paths) -> (ClassPlan, u32) {
        paths.standard_plan(3, true, 2)
    }

    fn decide(
        &self,
        paths: &Paths,
        at: Position,
        q: &RouteQuery,
        state: &mut RouteState,
        out: &mut Candidates,
    ) -> bool {
        let second_look = state.phase == UNDECIDED && !q.injected && at.phase == 0 && at.taken == 1;
        if !(q.injected || second_look) {
            return false;
        }
        let minimal = |phase| RouteState { phase, via: NO_VIA };
        if let Some(via) = paths.intermediate(q, true) {
            let undecided = if q.injected { UNDECIDED } else { FINAL };
            paths.weigh(at, q, minimal(undecided), via, out);
            return true;
        }
        *state = minimal(FINAL);
        false
    }

    /// Every intermediate (the random bits modulo their number).
    fn distinct_draws(&self, paths: &Paths) -> u32 {
        paths.intermediates()
    }
}
