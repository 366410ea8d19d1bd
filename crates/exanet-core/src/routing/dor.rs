//! Dimension-order (e-cube) routing on tori and meshes. On a torus each dimension is a ring, and
//! a ring of channels is a cycle in the channel-dependency graph; dateline VC classes break it:
//! a packet travels a dimension in class 0 and moves to class 1 when it takes the wrap-around
//! link (the dateline) of that dimension, and goes back to class 0 when it turns into the next
//! dimension. Minimal routes cross a dateline at most once per dimension, so neither class
//! closes a cycle. A mesh has no wrap-around links and needs one VC.
//!
//! `VcRule::DigitCompare` picks the class per hop from the addresses alone (Liu et al.'s
//! e-cube lanes): class 1 when the destination's coordinate in the hop's dimension is greater
//! than the current router's, else class 0. Routes that never wrap keep one class (class 1 up,
//! class 0 down); one that wraps changes class once, on the hop after the wrap-around link (up:
//! class 0 up to and over the wrap link, then class 1; down: class 1 up to and over it, then
//! class 0). So in each class the channels of one direction of a ring that routes use form a
//! path ending at the wrap link or short of it, and neither class closes a cycle.

#[cfg(test)]
use super::RouteState;
use super::{Candidate, Candidates, RouteQuery, RoutingFunction};
use crate::config::VcRule;
use crate::error::ConfigError;
use crate::topology::{Topology, Torus};

#[derive(Debug, Clone)]
pub struct DimensionOrder {
    torus: Torus,
    /// VC sets of the two dateline classes (equal when only one VC exists).
    class_masks: [u32; 2],
    /// How a hop picks its class.
    vc_rule: VcRule,
}

impl DimensionOrder {
    pub fn new(
        topology: &dyn Topology,
        vcs: u32,
        allow_unsafe: bool,
        vc_rule: VcRule,
    ) -> Result<Self, ConfigError> {
        let torus = topology.coordinates().ok_or_else(|| {
            ConfigError::new(
                "routing.kind",
                "\"dor\"",
                "a topology with coordinates (torus or mesh) for dimension-order routing",
            )
        })?;
        let all = if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 };
        let class_masks = if torus.wraps() && vcs >= 2 {
            // Lower half of the VCs is class 0, upper half class 1.
            let low = (1u32 << vcs.div_ceil(2)) - 1;
            [low, all & !low]
        } else {
            [all, all]
        };
        if torus.wraps() && vcs < 2 && !allow_unsafe {
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                "at least 2 VCs for dimension-order routing on a torus: every ring of a torus \
                 is a cycle of channel dependencies, and dateline VC classes (class 0 before a \
                 packet takes the wrap-around link, class 1 after) break it. With 1 VC the torus \
                 deadlocks under load. Use vcs >= 2, a mesh, or set routing.allow_unsafe = true \
                 to simulate the deadlock on purpose",
            ));
        }
        Ok(DimensionOrder {
            torus: torus.clone(),
            class_masks,
            vc_rule,
        })
    }

    /// Dimension-order routing on the given VC sets of the two dateline classes (equal on a
    /// mesh): the escape sub-network of adaptive routing uses a few of the VCs.
    pub fn with_classes(torus: Torus, class_masks: [u32; 2]) -> Self {
        DimensionOrder {
            torus,
            class_masks,
            vc_rule: VcRule::Dateline,
        }
    }

    /// The class of a hop in `dim` from coordinate `c` toward `t` (c != t).
    ///
    /// The conditions are combined without short-circuits, here and in [`Self::goes_up`] and
    /// [`RoutingFunction::route`]: they depend on the packets' random destinations, so a branch
    /// for each is mispredicted about as often as it is taken, and a few more instructions cost
    /// less (BENCHMARKS.md, issue 25).
    #[inline(always)]
    fn class(&self, q: &RouteQuery, dim: usize, k: u32, c: u32, t: u32, up: bool) -> usize {
        match self.vc_rule {
            VcRule::Dateline => {
                let dateline = if up { k - 1 } else { 0 };
                let crosses_dateline = self.torus.wraps() & (c == dateline);
                let same_dimension = !q.injected & (q.in_port / 2 == dim as u16);
                let in_class1_only =
                    (self.class_masks[1] & !self.class_masks[0]) >> q.in_vc & 1 != 0;
                usize::from(crosses_dateline | (same_dimension & in_class1_only))
            }
            VcRule::DigitCompare => usize::from(t > c),
        }
    }

    /// The output direction in `dim` from coordinate `c` to `t` (c != t): true for up.
    /// On a ring, ties (offset exactly k/2) go up from even coordinates and down from odd
    /// ones, which keeps both directions equally loaded under uniform traffic.
    #[inline(always)]
    fn goes_up(&self, k: u32, c: u32, t: u32) -> bool {
        if !self.torus.wraps() {
            return t > c;
        }
        let offset = if t >= c { t - c } else { t + k - c };
        (2 * offset < k) | ((2 * offset == k) & (c % 2 == 0))
    }
}

impl DimensionOrder {
    /// The hop in dimension `dim` from coordinate `c` toward `t` (c != t, radix `k`): the first
    /// dimension whose coordinates differ, as the escape sub-network of adaptive routing finds
    /// it in its own pass over the dimensions.
    #[inline]
    pub(super) fn hop(&self, q: &RouteQuery, dim: usize, k: u32, c: u32, t: u32) -> Candidate {
        let up = self.goes_up(k, c, t);
        let port = 2 * dim as u16 + u16::from(!up);
        let class = self.class(q, dim, k, c, t, up);
        Candidate::keep(port, self.class_masks[class], q.state)
    }
}

impl RoutingFunction for DimensionOrder {
    fn minimal_routes(&self) -> bool {
        true
    }

    fn hops(&self, from: u32, to: u32) -> u32 {
        self.torus.distance(from, to)
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        if q.router == q.dst_router {
            out.push(Candidate::keep(
                q.dst_port,
                self.class_masks[0] | self.class_masks[1],
                q.state,
            ));
            return;
        }
        // Every dimension is read, last to first, and the coordinates that differ replace the
        // ones kept, so the first dimension that differs is found without leaving the loop at
        // it.
        let (mut hop_dim, mut c, mut t) = (0, 0, 0);
        for (dim, axis) in self.torus.axes().iter().enumerate().rev() {
            let (here, there) = (axis.coord(q.router), axis.coord(q.dst_router));
            let differ = here != there;
            hop_dim = if differ { dim } else { hop_dim };
            c = if differ { here } else { c };
            t = if differ { there } else { t };
        }
        let k = self.torus.axes()[hop_dim].radix;
        out.push(self.hop(q, hop_dim, k, c, t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Peer;

    /// Follows DOR hop by hop from every source to every destination and checks the path is
    /// minimal and the packet ends on the right port; `hop(router, destination router, way)`
    /// sees every hop between routers.
    fn walk_all(
        dims: &[u32],
        wrap: bool,
        vcs: u32,
        rule: VcRule,
        hop: &mut dyn FnMut(u32, u32, Candidate),
    ) {
        let t = Torus::new(dims, 1, wrap).unwrap();
        let dor = DimensionOrder::new(&t, vcs, false, rule).unwrap();
        let mut cands = Candidates::new();
        for src in 0..t.num_routers() {
            for dst in 0..t.num_routers() {
                let (dst_router, dst_port) = t.endpoint_attachment(dst);
                let (mut router, mut in_port) = t.endpoint_attachment(src);
                let mut in_vc = 0u8;
                let mut injected = true;
                let mut hops = 0;
                loop {
                    cands.clear();
                    let q = RouteQuery {
                        router,
                        in_port,
                        in_vc,
                        injected,
                        dst_router,
                        dst_port,
                        dst: 0,
                        state: RouteState::default(),
                        random: 0,
                    };
                    dor.route(&q, &mut cands);
                    assert_eq!(cands.as_slice().len(), 1);
                    let c = cands.as_slice()[0];
                    if c.port == dst_port && router == dst_router {
                        break;
                    }
                    hop(router, dst_router, c);
                    let vc = c.vc_mask.trailing_zeros() as u8;
                    match t.peer(router, c.port) {
                        Peer::Router { router: r, port: p } => {
                            router = r;
                            in_port = p;
                        }
                        other => panic!("DOR left the network: {other:?}"),
                    }
                    in_vc = vc;
                    injected = false;
                    hops += 1;
                    assert!(hops <= t.diameter());
                }
                assert_eq!(hops, t.distance(src, dst), "{src}->{dst}");
            }
        }
    }

    #[test]
    fn routes_are_minimal_on_tori_and_meshes() {
        for rule in [VcRule::Dateline, VcRule::DigitCompare] {
            walk_all(&[8, 8], true, 2, rule, &mut |_, _, _| {});
            walk_all(&[5, 4, 3], true, 4, rule, &mut |_, _, _| {});
            walk_all(&[4, 6], false, 1, rule, &mut |_, _, _| {});
        }
    }

    #[test]
    fn digit_compare_takes_the_upper_lane_when_the_destination_digit_is_greater() {
        for (dims, vcs, lanes) in [
            (&[8, 8][..], 2, [0b01, 0b10]),
            (&[5, 4, 3][..], 4, [0b0011, 0b1100]),
            (&[2, 3, 6][..], 3, [0b011, 0b100]),
        ] {
            let t = Torus::new(dims, 1, true).unwrap();
            let mut ways = [Vec::new(), Vec::new()];
            for (i, rule) in [VcRule::Dateline, VcRule::DigitCompare]
                .into_iter()
                .enumerate()
            {
                walk_all(dims, true, vcs, rule, &mut |router, dst, way| {
                    ways[i].push((router, way.port));
                    if rule == VcRule::DigitCompare {
                        let dim = usize::from(way.port / 2);
                        let greater = t.coord(dst, dim) > t.coord(router, dim);
                        assert_eq!(way.vc_mask, lanes[usize::from(greater)], "{router}->{dst}");
                    }
                });
            }
            // Same routes, hop for hop; only the lanes differ.
            assert_eq!(ways[0], ways[1]);
        }
    }

    #[test]
    fn digit_compare_lanes_on_one_ring() {
        let t = Torus::new(&[8], 1, true).unwrap();
        let dor = DimensionOrder::new(&t, 2, false, VcRule::DigitCompare).unwrap();
        let lanes = |mut router: u32, dst: u32| {
            let mut taken = Vec::new();
            let mut cands = Candidates::new();
            while router != dst {
                cands.clear();
                dor.route(
                    &RouteQuery {
                        router,
                        in_port: 2,
                        in_vc: 0,
                        injected: true,
                        dst_router: dst,
                        dst_port: 2,
                        dst: 0,
                        state: RouteState::default(),
                        random: 0,
                    },
                    &mut cands,
                );
                let way = cands.as_slice()[0];
                taken.push((router, way.port, way.vc_mask.trailing_zeros()));
                let Peer::Router { router: next, .. } = t.peer(router, way.port) else {
                    panic!("left the ring")
                };
                router = next;
            }
            taken
        };
        // Up over the wrap link: lane 0 while 1 < the coordinate (the wrap link 7->0
        // included), lane 1 from 0 on.
        assert_eq!(lanes(6, 1), vec![(6, 0, 0), (7, 0, 0), (0, 0, 1)]);
        // Up without wrapping: lane 1 throughout.
        assert_eq!(lanes(2, 4), vec![(2, 0, 1), (3, 0, 1)]);
        // Down over the wrap link: lane 1 while 6 > the coordinate (0->7 included), then 0.
        assert_eq!(lanes(1, 6), vec![(1, 1, 1), (0, 1, 1), (7, 1, 0)]);
        // Down without wrapping: lane 0 throughout.
        assert_eq!(lanes(5, 3), vec![(5, 1, 0), (4, 1, 0)]);
    }

    #[test]
    fn dateline_switches_class_on_the_wrap_link_only() {
        let t = Torus::new(&[8], 1, true).unwrap();
        let dor = DimensionOrder::new(&t, 2, false, VcRule::Dateline).unwrap();
        let mut cands = Candidates::new();
        let mut route = |router, in_port, in_vc, injected, dst| {
            cands.clear();
            dor.route(
                &RouteQuery {
                    router,
                    in_port,
                    in_vc,
                    injected,
                    dst_router: dst,
                    dst_port: 2,
                    dst: 0,
                    state: RouteState::default(),
                    random: 0,
                },
                &mut cands,
            );
            cands.as_slice()[0]
        };
        // From 6 to 1 going up: 6->7 class 0, 7->0 wrap link class 1, 0->1 stays class 1.
        assert_eq!(
            route(6, 2, 0, true, 1),
            Candidate::keep(0, 0b01, RouteState::default())
        );
        assert_eq!(
            route(7, 1, 0, false, 1),
            Candidate::keep(0, 0b10, RouteState::default())
        );
        assert_eq!(
            route(0, 1, 1, false, 1),
            Candidate::keep(0, 0b10, RouteState::default())
        );
        // Tie (offset 4 of 8): even coordinates go up, odd ones go down.
        assert_eq!(route(2, 2, 0, true, 6).port, 0);
        assert_eq!(route(3, 2, 0, true, 7).port, 1);
    }

    #[test]
    fn one_vc_torus_is_refused_unless_unsafe() {
        let t = Torus::new(&[4, 4], 1, true).unwrap();
        let err = DimensionOrder::new(&t, 1, false, VcRule::Dateline).unwrap_err();
        assert_eq!(err.key, "router.vcs");
        assert!(err.expected.contains("dateline"));
        assert!(DimensionOrder::new(&t, 1, true, VcRule::Dateline).is_ok());
        let mesh = Torus::new(&[4, 4], 1, false).unwrap();
        assert!(DimensionOrder::new(&mesh, 1, false, VcRule::Dateline).is_ok());
    }
}
