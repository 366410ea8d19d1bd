//! Fat-tree / folded Clos of 2, 3 or 4 levels built from routers of one radix k.
//!
//! A pod is a (levels − 1)-level subtree. Inside a subtree every router above the leaves has
//! k/2 ports down and k/2 up; a leaf has `down` endpoint ports and `up` up-links (the taper).
//! The top level takes all pods' up-links on ⌈links / k⌉ routers, so fewer pods than k need
//! fewer top routers, as in Bhatele et al.'s 30-pod tree of 40-port routers (600 + 600 + 300).
//!
//! Nodes with several NIC ports (004 §4.1's network planes, today's AI clusters' rails) come
//! in two wirings. `Separate`: P disjoint copies of the tree, port p of every node in copy p.
//! `Rails` (rail-optimized): one tree whose leaves form scalable units of P consecutive leaves;
//! leaf p of a unit holds port p of each of the unit's nodes, so same-rail traffic inside a
//! unit takes one leaf and the rails share the levels above.

use super::edges::EdgeList;
use super::graphs::MAX_LINKS;
use super::port_graph::{Layout, PortGraph};
use super::Shape;
use crate::error::ConfigError;

/// What a user says about a fat-tree.
#[derive(Debug, Clone, Copy)]
pub struct FatTreeParams {
    pub levels: u32,
    pub radix: u32,
    pub pods: u32,
    /// Leaf ports to endpoints vs up-links, as a ratio ("1:1" is full bisection).
    pub taper: [u32; 2],
    /// NIC ports per node (1: one port, one tree).
    pub planes: u32,
    pub wiring: PlaneWiring,
}

/// How the NIC ports of a node with several are wired (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlaneWiring {
    Separate,
    Rails,
}

/// Routers of one subtree level while building: ids and free up-ports per router.
struct SubtreeTops {
    routers: Vec<u32>,
    up_ports: u32,
}

struct Builder {
    edges: EdgeList,
    endpoints: Vec<u32>,
    level: Vec<u8>,
    group: Vec<u32>,
}

impl Builder {
    fn router(&mut self, level: u8, group: u32, endpoints: u32) -> u32 {
        let id = self.level.len() as u32;
        self.level.push(level);
        self.group.push(group);
        self.endpoints.push(endpoints);
        id
    }
}

impl FatTreeParams {
    fn validate(&self) -> Result<(u32, u32), ConfigError> {
        let p = self;
        if !(2..=4).contains(&p.levels) {
            return Err(ConfigError::new(
                "topology.levels",
                p.levels.to_string(),
                "2, 3 or 4 levels",
            ));
        }
        if p.radix < 4 || p.radix % 2 != 0 {
            return Err(ConfigError::new(
                "topology.radix",
                p.radix.to_string(),
                "an even router radix >= 4 (half the ports of a non-leaf router go down, half up)",
            ));
        }
        if p.pods < 2 || p.pods > p.radix {
            return Err(ConfigError::new(
                "topology.pods",
                p.pods.to_string(),
                format!(
                    "between 2 and the radix ({}): every pod needs a link to every top router of its plane",
                    p.radix
                ),
            ));
        }
        let [a, b] = p.taper;
        let valid_tapers = || {
            let k = p.radix;
            let list: Vec<String> = (1..k)
                .filter(|&d| {
                    let u = k - d;
                    let g = gcd(d, u);
                    d / g <= 8 && u / g <= 8 && d >= u
                })
                .map(|d| {
                    let g = gcd(d, k - d);
                    format!("\"{}:{}\"", d / g, (k - d) / g)
                })
                .collect();
            format!(
                "a ratio endpoints:up-links that splits the {} leaf ports exactly, e.g. {}",
                p.radix,
                list.join(", ")
            )
        };
        // In 64 bits: a taper's terms are any u32 (the product and the sum would overflow).
        let (leaf_share, parts) = (
            u64::from(p.radix) * u64::from(a),
            u64::from(a) + u64::from(b),
        );
        if a == 0 || b == 0 || leaf_share % parts != 0 {
            return Err(ConfigError::new(
                "topology.taper",
                format!("\"{a}:{b}\""),
                valid_tapers(),
            ));
        }
        // At most the radix: a < a + b.
        let down = (leaf_share / parts) as u32;
        p.validate_planes()?;
        let (routers, links) = p.counts(p.radix - down);
        let copies = match p.wiring {
            PlaneWiring::Separate => u64::from(p.planes),
            PlaneWiring::Rails => 1,
        };
        let (routers, links) = (routers.saturating_mul(copies), links.saturating_mul(copies));
        if links > MAX_LINKS || routers > u64::from(u32::MAX) {
            return Err(ConfigError::new(
                "topology.radix",
                p.radix.to_string(),
                format!(
                    "a fat-tree of at most {MAX_LINKS} links: radix {} with {} levels, {} \
                     pods and {} planes has {routers} routers and {links} links; lower the \
                     radix, the levels, the pods or the planes",
                    p.radix, p.levels, p.pods, p.planes
                ),
            ));
        }
        Ok((down, p.radix - down))
    }

    /// Leaves per pod: (k/2)^(levels - 2).
    fn leaves_per_pod(&self) -> u64 {
        u64::from(self.radix / 2).saturating_pow(self.levels - 2)
    }

    /// Checks the planes: at least one, at most 64; rails fill whole scalable units of
    /// `planes` leaves, which lie inside a pod or cover whole pods (so that a node's ports
    /// share a pod, the unit of the parallel engine's partitions).
    fn validate_planes(&self) -> Result<(), ConfigError> {
        if !(1..=64).contains(&self.planes) {
            return Err(ConfigError::new(
                "topology.planes",
                self.planes.to_string(),
                "between 1 and 64 NIC ports per node",
            ));
        }
        if self.wiring == PlaneWiring::Rails {
            let (lpp, planes) = (self.leaves_per_pod(), u64::from(self.planes));
            let fits = lpp % planes == 0
                || (planes % lpp == 0 && u64::from(self.pods) % (planes / lpp) == 0);
            if !fits {
                return Err(ConfigError::new(
                    "topology.planes",
                    format!("{} rails", self.planes),
                    format!(
                        "a divisor of the {lpp} leaves per pod, or a multiple of them that \
                         divides the pods' leaves into whole units ({} pods): a scalable unit \
                         is one leaf per rail",
                        self.pods
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Routers and router-to-router links of the tree whose leaves have `up` up-links, as
    /// [`fat_tree`] builds it (`subtree`, then the top level), in arithmetic.
    fn counts(&self, up: u32) -> (u64, u64) {
        let half = u64::from(self.radix / 2);
        // A one-level subtree: a leaf (1 top router with `up` up-ports).
        let (mut routers, mut links, mut tops, mut up_ports) = (1u64, 0u64, 1u64, u64::from(up));
        for _ in 1..self.levels - 1 {
            let new = tops.saturating_mul(up_ports);
            routers = half.saturating_mul(routers).saturating_add(new);
            links = half
                .saturating_mul(links)
                .saturating_add(new.saturating_mul(half));
            (tops, up_ports) = (new, half);
        }
        let pods = u64::from(self.pods);
        let top_links = pods.saturating_mul(tops).saturating_mul(up_ports);
        (
            pods.saturating_mul(routers)
                .saturating_add(top_links.div_ceil(u64::from(self.radix))),
            pods.saturating_mul(links).saturating_add(top_links),
        )
    }
}

/// Builds the fat-tree, or says which parameter makes it impossible.
pub fn fat_tree(params: FatTreeParams) -> Result<PortGraph, ConfigError> {
    let (down, up) = params.validate()?;
    let half = params.radix / 2;
    let names: Vec<String> = (1..params.levels).map(|l| format!("level{l}")).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut b = Builder {
        edges: EdgeList::new(0, &name_refs),
        endpoints: Vec::new(),
        level: Vec::new(),
        group: Vec::new(),
    };
    let pod_depth = params.levels - 1;
    let pods: Vec<SubtreeTops> = (0..params.pods)
        .map(|pod| subtree(&mut b, pod_depth, pod, down, up, half))
        .collect();
    // Top level: up-link m of pod-top router j of pod x is link number (m, j, x) in that
    // order, and each run of k consecutive links lands on one top router: every top router
    // reaches every pod (pods <= k), from different pod-top routers, without parallel links.
    let top_level = (params.levels - 1) as u8;
    let planes = pods[0].routers.len() as u32;
    let up_ports = pods[0].up_ports;
    let top_links = params.pods * planes * up_ports;
    let tops: Vec<u32> = (0..top_links.div_ceil(params.radix))
        .map(|_| b.router(top_level, params.pods, 0))
        .collect();
    for m in 0..up_ports {
        for j in 0..planes {
            for (x, pod) in pods.iter().enumerate() {
                let i = (m * planes + j) * params.pods + x as u32;
                b.edges.links.push(super::edges::Link {
                    a: pod.routers[j as usize],
                    b: tops[(i / params.radix) as usize],
                    class: top_level - 1,
                });
            }
        }
    }
    let routers = b.level.len() as u32;
    b.edges.routers = routers;
    b.edges.group = b.group;
    // A cut between halves of the leaves: the levels above are non-blocking, so the leaves'
    // up-links of one half cross.
    let leaves = b.level.iter().filter(|&&l| l == 0).count() as u64;
    let mut bisection_links = leaves / 2 * u64::from(up);
    let (mut edges, mut level, mut endpoints) = (b.edges, b.level, b.endpoints);
    let mut endpoint_numbers = None;
    let planes = params.planes;
    match params.wiring {
        PlaneWiring::Separate if planes > 1 => {
            // Copy p takes routers p * R..(p + 1) * R; endpoints follow the routers, so port
            // p of node n is endpoint p * nodes + n.
            let links = edges.links.clone();
            for p in 1..planes {
                edges.links.extend(links.iter().map(|l| super::edges::Link {
                    a: l.a + p * routers,
                    b: l.b + p * routers,
                    class: l.class,
                }));
            }
            edges.routers = routers * planes;
            edges.group = edges.group.repeat(planes as usize);
            level = level.repeat(planes as usize);
            endpoints = endpoints.repeat(planes as usize);
            bisection_links *= u64::from(planes);
        }
        PlaneWiring::Rails if planes > 1 => {
            // Leaf l of the tree is rail l % P of unit l / P; its slot i holds that rail's
            // port of the unit's node i.
            let ports = u32::try_from(leaves).expect("leaves fit u32") * down;
            let nodes = ports / planes;
            endpoint_numbers = Some(
                (0..ports)
                    .map(|t| {
                        let (leaf, slot) = (t / down, t % down);
                        (leaf % planes) * nodes + (leaf / planes) * down + slot
                    })
                    .collect(),
            );
            // Units wider than a pod: a group is the pods of one unit.
            let unit_leaves_in_pod = params.leaves_per_pod().min(u64::from(planes));
            let pods_per_group = u64::from(planes) / unit_leaves_in_pod;
            if pods_per_group > 1 {
                for g in &mut edges.group {
                    *g /= pods_per_group as u32;
                }
            }
        }
        _ => {}
    }
    let label_levels = level.clone();
    let label_groups = edges.group.clone();
    let mut layout = Layout::new("fat_tree", move |r| {
        let l = label_levels[r as usize];
        let plane = match params.wiring {
            PlaneWiring::Separate if planes > 1 => format!("plane{}.", r / routers),
            _ => String::new(),
        };
        if u32::from(l) == params.levels - 1 {
            format!("{plane}top.{r}")
        } else {
            format!("{plane}pod{}.L{l}.{r}", label_groups[r as usize])
        }
    });
    layout.bisection_links = Some(bisection_links);
    layout.shape = Shape::Levels(level);
    // Leaves of different pods meet only at the top.
    layout.diameter = Some(2 * (params.levels - 1));
    layout.ports_per_node = planes;
    layout.planes = match params.wiring {
        PlaneWiring::Separate => planes,
        PlaneWiring::Rails => 1,
    };
    layout.endpoint_numbers = endpoint_numbers;
    PortGraph::new(edges, endpoints, layout)
}

/// Creates a subtree of `depth` levels in `pod` and returns its top routers.
fn subtree(b: &mut Builder, depth: u32, pod: u32, down: u32, up: u32, half: u32) -> SubtreeTops {
    if depth == 1 {
        let leaf = b.router(0, pod, down);
        return SubtreeTops {
            routers: vec![leaf],
            up_ports: up,
        };
    }
    let children: Vec<SubtreeTops> = (0..half)
        .map(|_| subtree(b, depth - 1, pod, down, up, half))
        .collect();
    let level = (depth - 1) as u8;
    let t = children[0].routers.len();
    let u = children[0].up_ports;
    // Router (j, m) takes up-port m of top router j of every child.
    let mut tops = Vec::with_capacity(t * u as usize);
    for j in 0..t {
        for _ in 0..u {
            let r = b.router(level, pod, 0);
            tops.push(r);
            for child in &children {
                b.edges.links.push(super::edges::Link {
                    a: child.routers[j],
                    b: r,
                    class: level - 1,
                });
            }
        }
    }
    SubtreeTops {
        routers: tops,
        up_ports: half,
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Peer, Topology};

    fn counts(t: &PortGraph) -> (u32, u32, u64) {
        let mut links = 0u64;
        for r in 0..t.num_routers() {
            for p in 0..t.ports_per_router() {
                if let Peer::Router { .. } = t.peer(r, p) {
                    links += 1;
                }
            }
        }
        (t.num_endpoints(), t.num_routers(), links / 2)
    }

    #[test]
    fn a_taper_whose_terms_overflow_is_refused_by_key() {
        // radix x the taper's first term passes u32::MAX: refused, not an overflow panic
        // (u32::MAX:u32::MAX is 1:1, and is accepted).
        for taper in [[u32::MAX, 1], [1, u32::MAX], [u32::MAX - 1, u32::MAX]] {
            let params = FatTreeParams {
                levels: 3,
                radix: 8,
                pods: 8,
                taper,
                planes: 1,
                wiring: PlaneWiring::Separate,
            };
            let error = params
                .validate()
                .expect_err("no such split of 8 leaf ports");
            assert_eq!(error.key, "topology.taper");
        }
    }

    #[test]
    fn arithmetic_counts_match_the_built_trees_and_refuse_huge_ones_before_building() {
        for (levels, radix, pods, taper) in [
            (2, 8, 8, [1, 1]),
            (3, 40, 30, [1, 1]),
            (3, 40, 25, [3, 2]),
            (4, 6, 6, [1, 1]),
            (4, 8, 5, [3, 1]),
        ] {
            let params = FatTreeParams {
                levels,
                radix,
                pods,
                taper,
                planes: 1,
                wiring: PlaneWiring::Separate,
            };
            let (down, up) = params.validate().unwrap();
            let (routers, links) = params.counts(up);
            let built = counts(&fat_tree(params).unwrap());
            assert_eq!(
                (routers, links),
                (u64::from(built.1), built.2),
                "{params:?}"
            );
            assert_eq!(down + up, radix);
        }
        // The radix-1000 tree: 1,000,000 routers and 500,000,000 links, refused at
        // once instead of aborting on an allocation of gigabytes.
        let Err(error) = fat_tree(FatTreeParams {
            levels: 3,
            radix: 1000,
            pods: 1000,
            taper: [1, 1],
            planes: 1,
            wiring: PlaneWiring::Separate,
        }) else {
            panic!("a tree of 500,000,000 links was built");
        };
        assert_eq!(error.key, "topology.radix");
        assert!(
            error
                .expected
                .contains("1250000 routers and 500000000 links"),
            "{}",
            error.expected
        );
    }

    #[test]
    fn bhatele_trees_have_the_published_counts() {
        // 004 Table 2: 3-level, 40-port, 30 pods: 12,000 nodes, 1,500 routers, 24,000 links.
        let full = fat_tree(FatTreeParams {
            levels: 3,
            radix: 40,
            pods: 30,
            taper: [1, 1],
            planes: 1,
            wiring: PlaneWiring::Separate,
        })
        .unwrap();
        assert_eq!(counts(&full), (12_000, 1_500, 24_000));
        // 25 pods, 3:2 leaf taper: 1,100 routers and 16,000 links (the paper prints 12,012
        // nodes; 500 leaves x 24 endpoints is 12,000).
        let tapered = fat_tree(FatTreeParams {
            levels: 3,
            radix: 40,
            pods: 25,
            taper: [3, 2],
            planes: 1,
            wiring: PlaneWiring::Separate,
        })
        .unwrap();
        assert_eq!(counts(&tapered), (12_000, 1_100, 16_000));
    }

    #[test]
    fn full_trees_follow_the_k_ary_formulas_and_respect_the_radix() {
        for levels in 2..=4u32 {
            let k = 8u32;
            let t = fat_tree(FatTreeParams {
                levels,
                radix: k,
                pods: k,
                taper: [1, 1],
                planes: 1,
                wiring: PlaneWiring::Separate,
            })
            .unwrap();
            let h = k / 2;
            // 2 (k/2)^L endpoints; (2L - 1) (k/2)^(L-1) routers.
            assert_eq!(t.num_endpoints(), 2 * h.pow(levels));
            assert_eq!(t.num_routers(), (2 * levels - 1) * h.pow(levels - 1));
            assert!(t.ports_per_router() as u32 <= k);
            for r in 0..t.num_routers() {
                let used = (0..t.ports_per_router())
                    .filter(|&p| !matches!(t.peer(r, p), Peer::Unconnected))
                    .count() as u32;
                assert_eq!(used, k, "router {r} uses every port of a full tree");
            }
        }
    }

    #[test]
    fn impossible_trees_are_refused_with_the_parameter_named() {
        let bad = |levels, radix, pods, taper| {
            fat_tree(FatTreeParams {
                levels,
                radix,
                pods,
                taper,
                planes: 1,
                wiring: PlaneWiring::Separate,
            })
            .err()
            .unwrap()
        };
        assert_eq!(bad(5, 8, 8, [1, 1]).key, "topology.levels");
        assert_eq!(bad(3, 7, 7, [1, 1]).key, "topology.radix");
        assert_eq!(bad(3, 8, 9, [1, 1]).key, "topology.pods");
        let e = bad(3, 40, 30, [2, 1]);
        assert_eq!(e.key, "topology.taper");
        assert!(e.expected.contains("\"3:2\""), "{}", e.expected);
    }
}
