//! Structural description of a topology: the figures an architect asks for before any traffic
//! runs. Closed forms where the family has them; measured on the router graph otherwise (exact up
//! to a size, sampled beyond, with the sample size reported).

use serde::Deserialize;

use crate::analysis::{self, RouterGraph};
use crate::config::TopologyConfig;
use crate::error::ConfigError;
use crate::topology::{self, Peer, Topology};

/// How much work describing may do.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DescribeOptions {
    /// Distances are exact (every router a source) up to this many routers.
    pub exact_limit: u32,
    /// Sampled breadth-first-search sources beyond `exact_limit`.
    pub samples: u32,
    /// Sources for the minimal-path counts.
    pub path_sources: u32,
    /// The graph partitioner runs up to this many routers.
    pub partition_limit: u32,
    pub restarts: u32,
    pub seed: u64,
    /// Return the router graph's links and groups too (for drawing).
    pub with_edges: bool,
}

impl Default for DescribeOptions {
    fn default() -> Self {
        DescribeOptions {
            exact_limit: 100_000,
            samples: 256,
            path_sources: 32,
            partition_limit: 20_000,
            restarts: 4,
            seed: 1,
            with_edges: false,
        }
    }
}

/// Largest graph built for measurement; beyond it only closed forms are reported.
const MAX_MEASURED_ROUTERS: u32 = 4_000_000;

/// How a figure was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    ClosedForm,
    Exact,
    Sampled,
    Partitioner,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::ClosedForm => "closed_form",
            Method::Exact => "exact",
            Method::Sampled => "sampled",
            Method::Partitioner => "partitioner",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescription {
    pub family: &'static str,
    /// Nodes (each with `ports_per_node` NIC ports).
    pub endpoints: u32,
    pub ports_per_node: u32,
    pub routers: u32,
    pub radix: u16,
    pub network_links: u64,
    pub links_by_class: Vec<(String, u64)>,
    pub ports_used_min: u32,
    pub ports_used_max: u32,
    pub ports_used_mean: f64,
    pub ports_free: u64,
    pub groups: Option<u32>,
    pub diameter: u32,
    pub diameter_method: Method,
    pub router_diameter: Option<u32>,
    pub average_router_distance: Option<f64>,
    pub average_endpoint_distance: f64,
    pub distance_method: Method,
    pub distance_sources: u32,
    pub path_diversity: Option<analysis::PathDiversity>,
    pub bisection_links: Option<u64>,
    pub bisection_method: Method,
    pub bisection_partitioner_links: Option<u64>,
    pub balance: f64,
    /// (a, b, class) per link and the group of every router, when asked for.
    pub edges: Option<Vec<[u32; 3]>>,
    pub router_groups: Option<Vec<u32>>,
}

/// Describes the topology a config names.
pub fn describe_topology(
    config: &TopologyConfig,
    options: &DescribeOptions,
) -> Result<TopologyDescription, ConfigError> {
    if let Some((plane, planes)) = config.single_plane() {
        // Built whole once, for its checks (the planes' count and size).
        topology::build(config)?;
        return Ok(describe_topology(&plane, options)?.replicated(planes));
    }
    let topo = topology::build(config)?;
    let t = topo.as_ref();
    let routers = t.num_routers();
    let radix = t.ports_per_router();
    let class_names = t.link_class_names();
    let mut by_class = vec![0u64; class_names.len()];
    let (mut used_min, mut used_max, mut used_sum) = (u32::MAX, 0u32, 0u64);
    let mut groups = std::collections::BTreeSet::new();
    for r in 0..routers {
        let mut used = 0;
        for p in 0..radix {
            match t.peer(r, p) {
                Peer::Router { router, port } => {
                    used += 1;
                    if (r, p) < (router, port) {
                        by_class[usize::from(t.link_class(r, p))] += 1;
                    }
                }
                Peer::Endpoint(_) => used += 1,
                Peer::Unconnected => {}
            }
        }
        used_min = used_min.min(used);
        used_max = used_max.max(used);
        used_sum += u64::from(used);
        if let Some(g) = t.group(r) {
            groups.insert(g);
        }
    }
    let network_links: u64 = by_class.iter().sum();
    let endpoints = t.num_endpoints() / t.ports_per_node();

    let graph = (routers <= MAX_MEASURED_ROUTERS).then(|| RouterGraph::from_topology(t));
    let closed = t.known_diameter().zip(t.known_average_endpoint_distance());
    let measure_distances = graph.is_some() && (closed.is_none() || routers <= options.exact_limit);
    let stats = if measure_distances {
        graph.as_ref().map(|g| {
            analysis::distance_stats(g, options.exact_limit, options.samples, options.seed)
        })
    } else {
        None
    };
    if let Some(s) = &stats {
        if !s.connected {
            return Err(ConfigError::new(
                "topology",
                format!("a {} that falls apart", t.family()),
                "a connected network: some routers cannot reach each other",
            ));
        }
    }
    let sampled = stats.as_ref().is_some_and(|s| !s.exact);
    let (diameter, diameter_method) = match (t.known_diameter(), &stats) {
        (Some(d), _) => (d, Method::ClosedForm),
        (None, Some(s)) => (
            s.diameter,
            if s.exact {
                Method::Exact
            } else {
                Method::Sampled
            },
        ),
        (None, None) => (0, Method::Sampled),
    };
    let (average_endpoint_distance, distance_method) =
        match (t.known_average_endpoint_distance(), &stats) {
            (Some(a), _) => (a, Method::ClosedForm),
            (None, Some(s)) => (
                s.avg_endpoint_distance,
                if s.exact {
                    Method::Exact
                } else {
                    Method::Sampled
                },
            ),
            (None, None) => (f64::NAN, Method::Sampled),
        };
    let path_diversity = graph
        .as_ref()
        .map(|g| analysis::path_diversity(g, options.path_sources, options.seed));

    let closed_bisection = t.known_bisection_links();
    let partitioned = graph
        .as_ref()
        .filter(|_| routers <= options.partition_limit)
        .map(|g| {
            let initial = group_halves(t, g);
            analysis::min_bisection(g, options.restarts.max(1), options.seed, initial.as_deref())
                .cut_links
        });
    let (bisection_links, bisection_method) = match closed_bisection {
        Some(b) => (Some(b), Method::ClosedForm),
        None => (partitioned, Method::Partitioner),
    };
    let balance = if endpoints == 0 || diameter == 0 {
        0.0
    } else {
        2.0 * network_links as f64 / (f64::from(endpoints) * f64::from(diameter))
    };
    let edges = options.with_edges.then(|| {
        let mut list = Vec::new();
        for r in 0..routers {
            for p in 0..radix {
                if let Peer::Router { router, port } = t.peer(r, p) {
                    if (r, p) < (router, port) {
                        list.push([r, router, u32::from(t.link_class(r, p))]);
                    }
                }
            }
        }
        list
    });
    let router_groups = options
        .with_edges
        .then(|| {
            (0..routers)
                .map(|r| t.group(r))
                .collect::<Option<Vec<u32>>>()
        })
        .flatten();
    Ok(TopologyDescription {
        family: t.family(),
        endpoints,
        ports_per_node: t.ports_per_node(),
        routers,
        radix,
        network_links,
        links_by_class: class_names.into_iter().zip(by_class).collect(),
        ports_used_min: used_min,
        ports_used_max: used_max,
        ports_used_mean: used_sum as f64 / f64::from(routers.max(1)),
        ports_free: u64::from(radix) * u64::from(routers) - used_sum,
        groups: (!groups.is_empty()).then_some(groups.len() as u32),
        diameter,
        diameter_method: if sampled && diameter_method != Method::ClosedForm {
            Method::Sampled
        } else {
            diameter_method
        },
        router_diameter: stats.as_ref().map(|s| s.router_diameter),
        average_router_distance: stats.as_ref().map(|s| s.avg_router_distance),
        average_endpoint_distance,
        distance_method,
        distance_sources: stats.as_ref().map_or(0, |s| s.sources),
        path_diversity,
        bisection_links,
        bisection_method,
        bisection_partitioner_links: partitioned,
        balance,
        edges,
        router_groups,
    })
}

impl TopologyDescription {
    /// The description of `planes` disjoint copies of this network, port p of every node in
    /// copy p: P times the routers and links, the same distances.
    fn replicated(mut self, planes: u32) -> Self {
        let p64 = u64::from(planes);
        let routers = self.routers;
        self.routers *= planes;
        self.ports_per_node = planes;
        self.network_links *= p64;
        for (_, links) in &mut self.links_by_class {
            *links *= p64;
        }
        self.ports_free *= p64;
        self.bisection_links = self.bisection_links.map(|b| b * p64);
        self.bisection_partitioner_links = self.bisection_partitioner_links.map(|b| b * p64);
        self.balance *= f64::from(planes);
        self.edges = self.edges.map(|edges| {
            (0..planes)
                .flat_map(|p| {
                    edges
                        .iter()
                        .map(move |&[a, b, c]| [a + p * routers, b + p * routers, c])
                })
                .collect()
        });
        self.router_groups = self.router_groups.map(|g| g.repeat(planes as usize));
        self
    }
}

/// A starting split for the partitioner: the lower half of the groups on one side, when the
/// halves hold equal endpoints.
fn group_halves(t: &dyn Topology, g: &RouterGraph) -> Option<Vec<bool>> {
    let groups: Vec<u32> = (0..t.num_routers())
        .map(|r| t.group(r))
        .collect::<Option<_>>()?;
    let count = groups.iter().copied().max()? + 1;
    let side: Vec<bool> = groups.iter().map(|&x| x < count / 2).collect();
    let weight = |s: bool| -> u64 {
        side.iter()
            .zip(&g.endpoints)
            .filter(|(&x, _)| x == s)
            .map(|(_, &e)| u64::from(e))
            .sum()
    };
    (weight(true) == weight(false)).then_some(side)
}

/// Mean router hops between distinct endpoints: the closed form when the family has one, else
/// measured (exact up to 20,000 routers, 64 sampled sources beyond).
pub fn average_endpoint_distance(t: &dyn Topology) -> f64 {
    t.known_average_endpoint_distance().unwrap_or_else(|| {
        let g = RouterGraph::from_topology(t);
        analysis::distance_stats(&g, 20_000, 64, 1).avg_endpoint_distance
    })
}
