//! Minimal adaptive routing on midimews with a bubble escape (002 §2.1, as FSIN routes them): a
//! packet follows its routing record (x jumps of b, y jumps of b - 1; [`Midimew::record`]),
//! recomputed at every router. On the adaptive VCs it may take either jump the record still
//! needs; the escape way is the record in order, the x jumps then the y jumps, on one escape VC
//! under bubble flow control. The jumps of one length form rings (the link back from port p
//! arrives on p ^ 1), an escape route never turns from y back to x nor changes sign (a record
//! less its first step is the next router's record), and bubble flow control keeps each ring
//! moving, so the escape sub-network is deadlock-free and, with Duato's condition, the whole
//! function is.

use super::{Candidate, Candidates, RouteQuery, RoutingFunction};
use crate::config::Escape;
use crate::error::ConfigError;
use crate::topology::Midimew;

pub struct MidimewAdaptive {
    midimew: Midimew,
    adaptive_vcs: u32,
    all_vcs: u32,
    threshold: f64,
}

/// The escape VC (VC 0) as a bit set.
const ESCAPE_VCS: u32 = 0b1;

impl MidimewAdaptive {
    pub fn new(
        midimew: &Midimew,
        vcs: u32,
        escape: Escape,
        threshold: f64,
    ) -> Result<Self, ConfigError> {
        if escape != Escape::Bubble {
            return Err(ConfigError::new(
                "routing.escape",
                format!("\"{escape:?}\"").to_lowercase(),
                "\"bubble\" on a midimew (its escape rings have no dateline), or \"none\" for \
                 table-driven minimal routing (VC i carries hop i)",
            ));
        }
        if vcs < 2 {
            return Err(ConfigError::new(
                "router.vcs",
                vcs.to_string(),
                "at least 2 VCs for minimal adaptive routing with escape = \"bubble\": one \
                 escape VC (the routing record in order under bubble flow control) plus at \
                 least one adaptive VC",
            ));
        }
        let all_vcs = if vcs >= 32 { u32::MAX } else { (1 << vcs) - 1 };
        Ok(MidimewAdaptive {
            midimew: midimew.clone(),
            adaptive_vcs: all_vcs & !ESCAPE_VCS,
            all_vcs,
            threshold,
        })
    }
}

impl RoutingFunction for MidimewAdaptive {
    fn minimal_routes(&self) -> bool {
        true
    }

    fn hops(&self, from: u32, to: u32) -> u32 {
        self.midimew.distance(from, to)
    }

    fn route(&self, q: &RouteQuery, out: &mut Candidates) {
        if q.router == q.dst_router {
            out.push(Candidate::keep(q.dst_port, self.all_vcs, q.state));
            return;
        }
        let (x, y) = self.midimew.record(q.router, q.dst_router);
        let x_port = (x != 0).then_some(if x > 0 { 0 } else { 1 });
        let y_port = (y != 0).then_some(if y > 0 { 2 } else { 3 });
        // The escape way first: selection keeps the first of equally free ways.
        let mut ports = x_port.into_iter().chain(y_port);
        if let Some(escape) = ports.next() {
            out.push(Candidate::keep(escape, self.all_vcs, q.state));
        }
        for port in ports {
            out.push(Candidate::keep(port, self.adaptive_vcs, q.state));
        }
    }

    fn escape_vcs(&self) -> u32 {
        ESCAPE_VCS
    }

    fn bubble_vc(&self) -> Option<u8> {
        Some(0)
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::RouteState;
    use crate::topology::{Peer, Topology};

    #[test]
    fn offers_the_records_jumps_escape_first_and_every_one_is_minimal() {
        let m = Midimew::new(64, 1).unwrap();
        let r = MidimewAdaptive::new(&m, 3, Escape::Bubble, 0.0).unwrap();
        let mut out = Candidates::new();
        for from in 0..64 {
            for to in 0..64 {
                out.clear();
                r.route(
                    &RouteQuery {
                        router: from,
                        in_port: 4,
                        in_vc: 0,
                        injected: true,
                        dst_router: to,
                        dst_port: 4,
                        dst: to,
                        state: RouteState::FRESH,
                        random: 0,
                    },
                    &mut out,
                );
                let ways = out.as_slice();
                if from == to {
                    assert_eq!(ways.len(), 1);
                    assert_eq!(ways[0].port, 4);
                    continue;
                }
                assert_eq!(ways[0].vc_mask, 0b111);
                for (i, way) in ways.iter().enumerate() {
                    assert_eq!(way.vc_mask & ESCAPE_VCS != 0, i == 0);
                    let Peer::Router { router, .. } = m.peer(from, way.port) else {
                        panic!("network port expected");
                    };
                    assert_eq!(m.distance(router, to) + 1, m.distance(from, to));
                }
            }
        }
        // 0 -> 13 = 3·6 - 5: record (3, -1), x+ the escape way, y- adaptive.
        assert_eq!(m.record(0, 13), (3, -1));
    }

    #[test]
    fn dor_escape_and_one_vc_are_refused() {
        let m = Midimew::new(64, 1).unwrap();
        let e = MidimewAdaptive::new(&m, 3, Escape::Dor, 0.0).err().unwrap();
        assert_eq!(
            (e.key.as_str(), e.value.as_str()),
            ("routing.escape", "\"dor\"")
        );
        let e = MidimewAdaptive::new(&m, 1, Escape::Bubble, 0.0)
            .err()
            .unwrap();
        assert_eq!((e.key.as_str(), e.value.as_str()), ("router.vcs", "1"));
    }
}
