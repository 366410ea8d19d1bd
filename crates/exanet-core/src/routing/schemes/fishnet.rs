//! The Fishnet-tailored adaptive scheme (Li et al., 001 §3.1.2): minimal when a gateway into
//! the destination subnet is at most one local hop away (adaptive among those gateways, each
//! way weighed by its length), else Valiant through a random subnet whose gateway is that
//! close. Defined on every topology with groups (subnets, dragonfly groups).

use super::{Needs, Paths, Position, Scheme, FINAL};
use crate::routing::distance::{Distances, GroupDistances};
use crate::routing::{Candidate, Candidates, RouteQuery, RouteState, NO_VIA};

pub struct FishnetAdaptive;

impl Scheme for FishnetAdaptive {
    fn name(&self) -> &'static str {
        "fishnet_adaptive"
    }

    fn needs(&self) -> Needs {
        Needs::Groups(
            "a topology with groups: fishnet, fishnet_lite or a dragonfly (the scheme chooses \
             among gateways into the destination group)",
        )
    }

    fn decide(
        &self,
        paths: &Paths,
        at: Position,
        q: &RouteQuery,
        state: &mut RouteState,
        out: &mut Candidates,
    ) -> bool {
        if !q.injected {
            return false;
        }
        let h = paths.hierarchy().expect("checked at build");
        let dst_g = h.group[q.dst_router as usize];
        if h.group[q.router as usize] == dst_g {
            return false;
        }
        if h.hops_to_group(q.router, dst_g) > 2 {
            if let Some(via) = near_intermediate(q, h) {
                *state = RouteState { phase: 0, via };
            }
            return false;
        }
        let minimal = RouteState {
            phase: FINAL,
            via: NO_VIA,
        };
        for &(port, nb) in paths.ports(q.router) {
            let nb_g = h.group[nb as usize];
            let through_gateway = nb_g == dst_g
                || (nb_g == h.group[q.router as usize] && h.hops_to_group(nb, dst_g) == 1);
            if through_gateway && out.as_slice().len() < Candidates::CAPACITY {
                out.push(Candidate {
                    port,
                    vc_mask: paths.hop_vcs(at, q.router, port, nb),
                    next: minimal,
                    hops: h.hops(nb, q.dst_router).saturating_add(1),
                });
            }
        }
        true
    }

    /// Every intermediate (the random bits modulo their number).
    fn distinct_draws(&self, paths: &Paths) -> u32 {
        paths.intermediates()
    }
}

/// A random subnet (not the source's or destination's) whose gateway is at most one local hop
/// away.
fn near_intermediate(q: &RouteQuery, h: &GroupDistances) -> Option<u32> {
    let (src_g, dst_g) = (h.group[q.router as usize], h.group[q.dst_router as usize]);
    let near = |g: &u32| *g != src_g && *g != dst_g && h.hops_to_group(q.router, *g) <= 2;
    let count = (0..h.groups).filter(near).count() as u32;
    (count > 0).then(|| {
        (0..h.groups)
            .filter(near)
            .nth((q.random % count) as usize)
            .expect("the count-th near subnet exists")
    })
}
