//! Minimal routing: adaptive among every port one hop closer, or one of them by the packet's
//! random bits (afresh at each router), or by its destination (D-mod-k on fat-trees).

use super::{Choice, ClassPlan, Paths, Pick, Position, Scheme};
use crate::config::Selection;
use crate::routing::RouteQuery;

pub struct Minimal {
    pub selection: Selection,
}

impl Scheme for Minimal {
    fn minimal_routes(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "minimal"
    }

    /// One global link (two blocks) on topologies with groups; one leg elsewhere.
    fn plan(&self, paths: &Paths) -> (ClassPlan, u32) {
        paths.standard_plan(2, false, 1)
    }

    fn choice(&self, paths: &Paths, at: Position, q: &RouteQuery) -> Choice {
        match self.selection {
            // Mix in the router so that each hop picks afresh.
            Selection::Random => {
                Choice::one(Pick::Random(q.random ^ q.router.wrapping_mul(0x9e37_79b9)))
            }
            Selection::Destination => Choice::one(paths.by_destination(q, at)),
            Selection::Adaptive => Choice::every(paths.by_destination(q, at)),
        }
    }

    /// A random pick is (bits ^ a router constant) modulo at most the widest router's ports:
    /// any run of that many bit values, rounded up to a power of two, covers every pick.
    fn distinct_draws(&self, paths: &Paths) -> u32 {
        match self.selection {
            Selection::Random => paths.widest().next_power_of_two(),
            _ => 1,
        }
    }
}
