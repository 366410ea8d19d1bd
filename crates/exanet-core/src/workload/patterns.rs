//! Destination patterns of synthetic traffic (Dally & Towles ch. 3; Izu et al.).

use rand::seq::SliceRandom;
use rand::RngExt;

use super::matrix::MatrixRows;
use crate::config::{Pattern, TrafficMatrix};
use crate::engine::{entity_stream, EntityRng};
use crate::error::ConfigError;
use crate::topology::{Peer, Topology, Torus};

/// Stream id of the random permutation, apart from every entity's stream.
const PERMUTATION_STREAM: u64 = u64::MAX - 1;

#[derive(Debug, Clone)]
pub enum DestinationPattern {
    /// Uniform over all endpoints but the source.
    Uniform,
    /// Bit permutations of the endpoint index (2^bits endpoints).
    Transpose {
        bits: u32,
    },
    Shuffle {
        bits: u32,
    },
    BitReverse {
        bits: u32,
    },
    BitComplement {
        bits: u32,
    },
    /// Each coordinate moves ceil(k/2) - 1 steps up its ring.
    Tornado {
        torus: Torus,
    },
    /// The endpoint with the same local index (modulo its count there) on a random neighbouring
    /// router that has endpoints.
    Neighbor {
        /// Every router's lowest endpoint id and its number of endpoints (0 for a switch).
        endpoints: Vec<(u32, u32)>,
    },
    /// A fixed random permutation of the endpoints, drawn from the master seed.
    Permutation {
        destinations: Vec<u32>,
    },
    /// With probability `fraction` a random hot endpoint, otherwise uniform.
    Hotspot {
        hot: Vec<u32>,
        fraction: f64,
    },
    /// A random endpoint of the next group (dragonfly group, Fishnet subnet, fat-tree pod):
    /// the group-adversarial pattern that loads the few links between two groups.
    GroupShift {
        /// Endpoints of group g are `members[starts[g]..starts[g + 1]]`.
        members: Vec<u32>,
        starts: Vec<u32>,
        /// Index of every endpoint's group among the groups that hold endpoints.
        group_of: Vec<u32>,
    },
    /// Each source's row of a traffic matrix.
    Matrix(MatrixRows),
}

impl DestinationPattern {
    pub fn build(
        pattern: Pattern,
        topology: &dyn Topology,
        seed: u64,
        hotspot_endpoints: &[u32],
        hotspot_fraction: f64,
        matrix: Option<&TrafficMatrix>,
    ) -> Result<Self, ConfigError> {
        let n = topology.num_endpoints();
        if matrix.is_some() && pattern != Pattern::Matrix {
            return Err(ConfigError::new(
                "traffic.matrix",
                "(given)",
                "only with pattern = \"matrix\"",
            ));
        }
        let power_of_two_bits = |name: &str, even: bool| {
            let bits = n.trailing_zeros();
            if n.is_power_of_two() && (!even || bits % 2 == 0) {
                Ok(bits)
            } else {
                let need = if even {
                    "a number of endpoints that is an even power of two (4, 16, 64, 256, ...)"
                } else {
                    "a number of endpoints that is a power of two"
                };
                Err(ConfigError::new(
                    "traffic.pattern",
                    format!("\"{name}\" with {n} endpoints"),
                    format!("{need}: the pattern permutes the bits of the endpoint index"),
                ))
            }
        };
        Ok(match pattern {
            Pattern::Uniform => {
                if n < 2 {
                    return Err(ConfigError::new(
                        "traffic.pattern",
                        "\"uniform\" with 1 endpoint",
                        "at least 2 endpoints",
                    ));
                }
                DestinationPattern::Uniform
            }
            Pattern::Transpose => DestinationPattern::Transpose {
                bits: power_of_two_bits("transpose", true)?,
            },
            Pattern::Shuffle => DestinationPattern::Shuffle {
                bits: power_of_two_bits("shuffle", false)?,
            },
            Pattern::BitReverse => DestinationPattern::BitReverse {
                bits: power_of_two_bits("bit_reverse", false)?,
            },
            Pattern::BitComplement => DestinationPattern::BitComplement {
                bits: power_of_two_bits("bit_complement", false)?,
            },
            Pattern::Tornado => DestinationPattern::Tornado {
                torus: topology.coordinates().cloned().ok_or_else(|| {
                    ConfigError::new(
                        "traffic.pattern",
                        "\"tornado\"",
                        "a topology with coordinates (torus or mesh)",
                    )
                })?,
            },
            Pattern::Neighbor => DestinationPattern::Neighbor {
                endpoints: endpoints_by_router(topology)?,
            },
            Pattern::Matrix => DestinationPattern::Matrix(MatrixRows::build(
                matrix.ok_or_else(|| {
                    ConfigError::new(
                        "traffic.matrix",
                        "(missing)",
                        "a traffic matrix for pattern = \"matrix\": a file or rows of weights",
                    )
                })?,
                n,
            )?),
            Pattern::GroupShift => group_shift(topology)?,
            Pattern::RandomPermutation => {
                let mut destinations: Vec<u32> = (0..n).collect();
                destinations.shuffle(&mut entity_stream(seed, PERMUTATION_STREAM));
                DestinationPattern::Permutation { destinations }
            }
            Pattern::Hotspot => {
                if hotspot_endpoints.is_empty() {
                    return Err(ConfigError::new(
                        "traffic.hotspot_endpoints",
                        "[]",
                        "at least one hot endpoint",
                    ));
                }
                if let Some(&bad) = hotspot_endpoints.iter().find(|&&e| e >= n) {
                    return Err(ConfigError::new(
                        "traffic.hotspot_endpoints",
                        bad.to_string(),
                        format!("endpoint ids between 0 and {}", n - 1),
                    ));
                }
                DestinationPattern::Hotspot {
                    hot: hotspot_endpoints.to_vec(),
                    fraction: hotspot_fraction,
                }
            }
        })
    }

    /// The destination of the next message of endpoint `src`.
    /// A matrix pattern must give every endpoint a destination when every endpoint sends
    /// (`why` says why); other patterns always do.
    pub fn require_every_row(&self, why: &str) -> Result<(), ConfigError> {
        if let DestinationPattern::Matrix(rows) = self {
            if let Some(silent) = rows.silent_sources().next() {
                return Err(ConfigError::new(
                    "traffic.matrix",
                    format!("row {silent} has no weight off the diagonal"),
                    format!("a destination for every endpoint: {why}"),
                ));
            }
        }
        Ok(())
    }

    pub fn destination(&self, src: u32, topology: &dyn Topology, rng: &mut EntityRng) -> u32 {
        let n = topology.num_endpoints();
        let uniform = |rng: &mut EntityRng| {
            let d = rng.random_range(0..n - 1);
            if d >= src {
                d + 1
            } else {
                d
            }
        };
        match self {
            DestinationPattern::Uniform => uniform(rng),
            DestinationPattern::Neighbor { endpoints } => {
                let (router, _) = topology.endpoint_attachment(src);
                let hosts = |p: u16| match topology.peer(router, p) {
                    Peer::Router { router: r, .. } if endpoints[r as usize].1 > 0 => Some(r),
                    _ => None,
                };
                let ports = 0..topology.ports_per_router();
                let count = ports.clone().filter_map(hosts).count();
                let pick = rng.random_range(0..count);
                let next = ports.filter_map(hosts).nth(pick).unwrap_or(router);
                let (first, here) = endpoints[next as usize];
                first + (src - endpoints[router as usize].0) % here
            }
            DestinationPattern::GroupShift {
                members,
                starts,
                group_of,
            } => {
                let next = (group_of[src as usize] as usize + 1) % (starts.len() - 1);
                let (lo, hi) = (starts[next] as usize, starts[next + 1] as usize);
                members[rng.random_range(lo..hi)]
            }
            DestinationPattern::Matrix(rows) => rows.destination(src, rng),
            DestinationPattern::Hotspot { hot, fraction } => {
                if rng.random_bool(*fraction) {
                    hot[rng.random_range(0..hot.len())]
                } else {
                    uniform(rng)
                }
            }
            permutation => permutation
                .permuted(src)
                .expect("the other patterns are permutations"),
        }
    }

    /// The destination of `src` under a fixed permutation (transpose, shuffle, bit reverse,
    /// bit complement, tornado, random permutation); None for patterns that draw.
    pub fn permuted(&self, src: u32) -> Option<u32> {
        let mask = |bits: u32| ((1u64 << bits) - 1) as u32;
        Some(match self {
            DestinationPattern::Transpose { bits } => {
                let half = bits / 2;
                if half == 0 {
                    src
                } else {
                    ((src << half) | (src >> half)) & mask(*bits)
                }
            }
            DestinationPattern::Shuffle { bits } => {
                if *bits == 0 {
                    src
                } else {
                    ((src << 1) | (src >> (bits - 1))) & mask(*bits)
                }
            }
            DestinationPattern::BitReverse { bits } => {
                if *bits == 0 {
                    src
                } else {
                    src.reverse_bits() >> (32 - bits)
                }
            }
            DestinationPattern::BitComplement { bits } => !src & mask(*bits),
            DestinationPattern::Tornado { torus } => {
                let c = torus.concentration();
                let router = src / c;
                let shifted = torus
                    .dims()
                    .iter()
                    .enumerate()
                    .map(|(d, &k)| (torus.coord(router, d) + k.div_ceil(2) - 1) % k);
                torus.router_at(shifted) * c + src % c
            }
            DestinationPattern::Permutation { destinations } => destinations[src as usize],
            _ => return None,
        })
    }

    /// Whether `src` is a fixed point of a permutation pattern (transpose's diagonal,
    /// shuffle's 0 and N - 1): the endpoint sends to itself.
    pub fn fixed_point(&self, src: u32) -> bool {
        self.permuted(src) == Some(src)
    }
}

/// Endpoints grouped by their router's group, skipping groups without endpoints (a fat-tree's
/// top routers).
fn group_shift(topology: &dyn Topology) -> Result<DestinationPattern, ConfigError> {
    let n = topology.num_endpoints();
    let mut by_group: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for e in 0..n {
        let (router, _) = topology.endpoint_attachment(e);
        let group = topology.group(router).ok_or_else(|| {
            ConfigError::new(
                "traffic.pattern",
                "\"group_shift\"",
                format!(
                    "a topology with groups (dragonfly, Slim Fly, Fishnet, fat-tree); a {} has none",
                    topology.family()
                ),
            )
        })?;
        by_group.entry(group).or_default().push(e);
    }
    if by_group.len() < 2 {
        return Err(ConfigError::new(
            "traffic.pattern",
            "\"group_shift\"",
            "at least two groups with endpoints",
        ));
    }
    let mut members = Vec::with_capacity(n as usize);
    let mut starts = vec![0u32];
    let mut group_of = vec![0u32; n as usize];
    for (index, endpoints) in by_group.values().enumerate() {
        for &e in endpoints {
            group_of[e as usize] = index as u32;
        }
        members.extend_from_slice(endpoints);
        starts.push(members.len() as u32);
    }
    Ok(DestinationPattern::GroupShift {
        members,
        starts,
        group_of,
    })
}

/// Every router's lowest endpoint id and its number of endpoints, checking that each router
/// with endpoints links to another that has some (a fat-tree's leaves link only to switches).
fn endpoints_by_router(topology: &dyn Topology) -> Result<Vec<(u32, u32)>, ConfigError> {
    let ports = 0..topology.ports_per_router();
    let mut endpoints = vec![(0u32, 0u32); topology.num_routers() as usize];
    for (router, slot) in (0..).zip(endpoints.iter_mut()) {
        let ids = ports
            .clone()
            .filter_map(|p| match topology.peer(router, p) {
                Peer::Endpoint(e) => Some(e),
                _ => None,
            });
        *slot = (ids.clone().min().unwrap_or(0), ids.count() as u32);
    }
    let stranded = (0..).zip(&endpoints).find(|&(router, &(_, here))| {
        here > 0
            && !ports.clone().any(|p| {
                matches!(topology.peer(router, p),
                         Peer::Router { router: r, .. } if endpoints[r as usize].1 > 0)
            })
    });
    match stranded {
        None => Ok(endpoints),
        Some((router, _)) => Err(ConfigError::new(
            "traffic.pattern",
            "\"neighbor\"",
            format!(
                "a topology whose routers with endpoints link to other routers with endpoints \
                 (torus, mesh, HyperX, dragonfly, Slim Fly, Fishnet); in this {} router {} links \
                 to none",
                topology.family(),
                topology.router_label(router)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_destinations(p: &DestinationPattern, t: &Torus) -> Vec<u32> {
        let mut rng = entity_stream(1, 1);
        (0..t.num_endpoints())
            .map(|s| p.destination(s, t, &mut rng))
            .collect()
    }

    #[test]
    fn permutations_are_permutations() {
        let t = Torus::new(&[8, 8], 1, true).unwrap();
        for pattern in [
            Pattern::Transpose,
            Pattern::Shuffle,
            Pattern::BitReverse,
            Pattern::BitComplement,
            Pattern::Tornado,
            Pattern::RandomPermutation,
        ] {
            let p = DestinationPattern::build(pattern, &t, 3, &[], 0.0, None).unwrap();
            let mut d = all_destinations(&p, &t);
            d.sort_unstable();
            assert_eq!(d, (0..64).collect::<Vec<_>>(), "{pattern:?}");
        }
    }

    #[test]
    fn known_destinations() {
        let t = Torus::new(&[8, 8], 1, true).unwrap();
        let dest = |pattern, src| {
            let p = DestinationPattern::build(pattern, &t, 3, &[], 0.0, None).unwrap();
            p.destination(src, &t, &mut entity_stream(1, 1))
        };
        // (x=1, y=2) = 17 -> transpose (2, 1) = 10
        assert_eq!(dest(Pattern::Transpose, 17), 10);
        assert_eq!(dest(Pattern::BitComplement, 0b000101), 0b111010);
        assert_eq!(dest(Pattern::BitReverse, 0b000011), 0b110000);
        assert_eq!(dest(Pattern::Shuffle, 0b100001), 0b000011);
        // tornado on k=8 shifts by 3 in each dimension: (1,2) -> (4,5)
        assert_eq!(dest(Pattern::Tornado, 17), 4 + 5 * 8);
    }

    #[test]
    fn neighbor_and_uniform_and_hotspot() {
        let t = Torus::new(&[4, 4], 2, true).unwrap();
        let mut rng = entity_stream(5, 5);
        let nb = DestinationPattern::build(Pattern::Neighbor, &t, 1, &[], 0.0, None).unwrap();
        let un = DestinationPattern::build(Pattern::Uniform, &t, 1, &[], 0.0, None).unwrap();
        let hot = DestinationPattern::build(Pattern::Hotspot, &t, 1, &[7], 1.0, None).unwrap();
        for _ in 0..200 {
            let d = nb.destination(5, &t, &mut rng);
            assert_eq!(t.distance(5 / 2, d / 2), 1);
            assert_eq!(d % 2, 1);
            assert_ne!(un.destination(5, &t, &mut rng), 5);
            assert_eq!(hot.destination(3, &t, &mut rng), 7);
        }
    }

    #[test]
    fn neighbor_picks_among_all_neighbours_with_endpoints() {
        // A 100-router HyperX line: 99 neighbours each, more than the 64 once considered.
        let line = crate::topology::express_mesh(&[100], 1, 2).unwrap();
        let nb = DestinationPattern::build(Pattern::Neighbor, &line, 1, &[], 0.0, None).unwrap();
        let mut rng = entity_stream(5, 5);
        let routers: std::collections::BTreeSet<u32> = (0..5000)
            .map(|_| nb.destination(7, &line, &mut rng))
            .inspect(|&d| assert_eq!(d % 2, 1, "same local index"))
            .map(|d| d / 2)
            .collect();
        assert_eq!(routers.len(), 99);
        assert!(!routers.contains(&3));
    }

    #[test]
    fn neighbor_is_refused_where_a_router_with_endpoints_has_no_such_neighbour() {
        // A fat-tree's leaves link only to switches: the old pattern panicked picking one.
        let tree = crate::topology::fat_tree(crate::topology::FatTreeParams {
            levels: 2,
            radix: 4,
            pods: 4,
            taper: [1, 1],
            planes: 1,
            wiring: crate::topology::PlaneWiring::Separate,
        })
        .unwrap();
        let err =
            DestinationPattern::build(Pattern::Neighbor, &tree, 1, &[], 0.0, None).unwrap_err();
        assert_eq!(err.key, "traffic.pattern");
        assert!(err.to_string().contains("fat_tree"), "{err}");
    }

    #[test]
    fn impossible_patterns_are_refused() {
        let t = Torus::new(&[6, 6], 1, true).unwrap();
        let err = DestinationPattern::build(Pattern::Transpose, &t, 1, &[], 0.0, None).unwrap_err();
        assert_eq!(err.key, "traffic.pattern");
        assert!(err.value.contains("36 endpoints"));
        let t = Torus::new(&[8], 1, true).unwrap();
        assert!(DestinationPattern::build(Pattern::Transpose, &t, 1, &[], 0.0, None).is_err());
        assert!(DestinationPattern::build(Pattern::Shuffle, &t, 1, &[], 0.0, None).is_ok());
        assert!(DestinationPattern::build(Pattern::Hotspot, &t, 1, &[8], 0.5, None).is_err());
    }
}
