//! UGAL (Singh): at the source, the minimal way or the Valiant way through a random
//! intermediate, whichever has the smaller queued bytes x hops. UGAL-L weighs the queues at the
//! source router's own ports; UGAL-G, an idealized reference, along each whole route (the router
//! reads every router's state, see `RoutingFunction::global_view`).

use super::{Paths, Position, Scheme, FINAL};
use crate::routing::{Candidates, RouteQuery, RouteState, NO_VIA};

pub struct Ugal {
    /// UGAL-G rather than UGAL-L.
    pub global: bool,
}

impl Scheme for Ugal {
    fn name(&self) -> &'static str {
        if self.global {
            "ugal_g"
        } else {
            "ugal_l"
        }
    }

    fn decide(
        &self,
        paths: &Paths,
        at: Position,
        q: &RouteQuery,
        _state: &mut RouteState,
        out: &mut Candidates,
    ) -> bool {
        if !q.injected {
            return false;
        }
        let Some(via) = paths.intermediate(q, true) else {
            return false;
        };
        let minimal = RouteState {
            phase: FINAL,
            via: NO_VIA,
        };
        paths.weigh(at, q, minimal, via, out);
        true
    }

    fn global_view(&self) -> bool {
        self.global
    }

    /// Every intermediate (the random bits modulo their number).
    fn distinct_draws(&self, paths: &Paths) -> u32 {
        paths.intermediates()
    }
}
