//! Minimal adaptive routing on tori and meshes with an escape sub-network (Duato). A packet may
//! take any minimal direction on the adaptive VCs; the dimension-order port is always offered
//! too, with the escape VCs added to its adaptive ones. A packet that finds its adaptive VCs
//! full falls back to the escape VCs (the router re-routes it there), and the escape
//! sub-network alone is deadlock-free and reaches every destination, which for virtual
//! cut-through makes the whole function deadlock-free (Duato 1996; only the escape
//! sub-network's direct dependencies must be acyclic).
//!
//! The escape sub-network is dimension-order routing made deadlock-free either by dateline VC
//! classes (two escape VCs on a torus, one on a mesh) or by bubble flow control (one escape VC:
//! a packet entering a ring, from its NIC, from another dimension or from an adaptive VC, needs
//! room for two packets downstream, a packet continuing along the ring room for one, so a ring
//! never fills and always moves: Puente et al., the adaptive bubble router of 002 §2.1).

use super::dor::DimensionOrder;
use super::{Candidate, Candidates, RouteQuery, RoutingFunction};
use crate::config::Escape;
use crate::error::ConfigError;
use crate::topology::{Topology, Torus};

pub struct EscapeAdaptive {
    torus: Torus,
    dor: DimensionOrder,
    escape: Escape,
    escape_vcs: u32,
    adaptive_vcs: u32,
    threshold: f64,
}

impl EscapeAdaptive {
    pub fn new(
        topology: &dyn Topology,
        vcs: u32,
        escape: Escape,
        threshold: f64,
    ) -> Result<Self, ConfigError> {
        let what = match escape {
            Escape::Dor => "\"dor\"",
            Escape::Bubble => "\"bubble\"",
            Escape::None => unreachable!("no escape sub-network: table-driven minimal routing"),
        };
        let torus = topology.coordinates().ok_or_else(|| {
            ConfigError::new(
                "routing.escape",
                what,
                "a torus or mesh (escape sub-networks use dimension-order routing) or a midimew \
                 (escape = \"bubble\"); elsewhere use escape = \"none\" (VC i carries hop i)",
            )
        })?;
        let (escape_vcs, reason): (u32, &str) = match escape {
            Escape::Dor if torus.wraps() => (
                0b11,
                "two escape VCs (dateline classes of dimension-order routing) plus at least one \
                 adaptive VC",
            ),
            Escape::Dor => (
                0b1,
                "one escape VC (dimension-order routing on a mesh) plus at least one adaptive VC",
            ),
            _ => (
                0b1,
                "one escape VC (dimension-order routing under bubble flow control) plus at \
                 least one adaptive VC",
            ),
        };
        if escape == Escape::Bubble && !torus.wraps() {
            return Err(ConfigError::new(
                "routing.escape",
                what,
                "a torus: bubble flow control keeps rings deadlock-free and a mesh has none \
                 (use escape = \"dor\")",
            ));
        }
        let needed = escape_vcs.count_ones() + 1;
        if vcs < needed {
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                format!("at least {needed} VCs for minimal adaptive routing with escape = {what}: {reason}"),
            ));
        }
        let all = if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 };
        let dor = match escape {
            Escape::Dor if torus.wraps() => {
                DimensionOrder::with_classes(torus.clone(), [0b01, 0b10])
            }
            _ => DimensionOrder::with_classes(torus.clone(), [0b1, 0b1]),
        };
        Ok(EscapeAdaptive {
            torus: torus.clone(),
            dor,
            escape,
            escape_vcs,
            adaptive_vcs: all & !escape_vcs,
            threshold,
        })
    }
}

impl RoutingFunction for EscapeAdaptive {
    fn minimal_routes(&self) -> bool {
        true
    }

    fn hops(&self, from: u32, to: u32) -> u32 {
        self.torus.distance(from, to)
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        if q.router == q.dst_router {
            self.dor.route(q, out);
            return;
        }
        // The escape way first (selection keeps the first of equally free ways): dimension
        // order's hop in the first dimension whose coordinates differ, found in the same pass.
        let mut escape_port = None;
        for (dim, axis) in self.torus.axes().iter().enumerate() {
            let (k, c, t) = (axis.radix, axis.coord(q.router), axis.coord(q.dst_router));
            if c == t {
                continue;
            }
            let escape_port = *escape_port.get_or_insert_with(|| {
                let escape = self.dor.hop(q, dim, k, c, t);
                out.push(Candidate::keep(
                    escape.port,
                    escape.vc_mask | self.adaptive_vcs,
                    q.state,
                ));
                escape.port
            });
            let (up, down) = if self.torus.wraps() {
                let offset = if t >= c { t - c } else { t + k - c };
                (2 * offset <= k, 2 * offset >= k)
            } else {
                (t > c, t < c)
            };
            for (minimal, port) in [(up, 2 * dim as u16), (down, 2 * dim as u16 + 1)] {
                if minimal && port != escape_port {
                    out.push(Candidate::keep(port, self.adaptive_vcs, q.state));
                }
            }
        }
    }

    fn escape_vcs(&self) -> u32 {
        self.escape_vcs
    }

    fn bubble_vc(&self) -> Option<u8> {
        (self.escape == Escape::Bubble).then_some(0)
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::RouteState;

    fn query(router: u32, dst_router: u32) -> RouteQuery {
        RouteQuery {
            router,
            in_port: 4,
            in_vc: 0,
            injected: true,
            dst_router,
            dst_port: 4,
            dst: dst_router,
            state: RouteState::FRESH,
            random: 0,
        }
    }

    #[test]
    fn offers_the_dor_port_with_escape_vcs_first_then_every_minimal_direction() {
        let t = Torus::new(&[8, 8], 1, true).unwrap();
        let r = EscapeAdaptive::new(&t, 4, Escape::Dor, 0.0).unwrap();
        let mut out = Candidates::new();
        // (1,1) -> (4,5): x+ (DOR, escape class 0 = VC0 plus adaptive VCs 2,3), then y- and y+
        // are both minimal (offset 4 of 8), so three ways.
        r.route(&query(1 + 8, 4 + 5 * 8), &mut out);
        let ports: Vec<(u16, u32)> = out.as_slice().iter().map(|c| (c.port, c.vc_mask)).collect();
        assert_eq!(ports, vec![(0, 0b1101), (2, 0b1100), (3, 0b1100)]);
        let bubble = EscapeAdaptive::new(&t, 2, Escape::Bubble, 0.0).unwrap();
        assert_eq!(bubble.escape_vcs(), 1);
        assert_eq!(bubble.bubble_vc(), Some(0));
    }

    #[test]
    fn too_few_vcs_and_wrong_topologies_are_refused() {
        let t = Torus::new(&[4, 4], 1, true).unwrap();
        let err = EscapeAdaptive::new(&t, 2, Escape::Dor, 0.0).err().unwrap();
        assert_eq!((err.key.as_str(), err.value.as_str()), ("router.vcs", "2"));
        assert!(err.expected.contains("at least 3"));
        let mesh = Torus::new(&[4, 4], 1, false).unwrap();
        assert!(EscapeAdaptive::new(&mesh, 2, Escape::Dor, 0.0).is_ok());
        let err = EscapeAdaptive::new(&mesh, 2, Escape::Bubble, 0.0)
            .err()
            .unwrap();
        assert_eq!(err.key, "routing.escape");
    }
}
