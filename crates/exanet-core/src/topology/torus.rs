//! k-ary n-cube torus and mesh. Neighbours are computed from coordinates: no adjacency arrays,
//! so the topology costs a few bytes whatever its size.

use strength_reduce::StrengthReducedU32;

use super::{Grid, Peer, Shape, Topology};
use crate::error::ConfigError;

/// Router ports: `2d` goes up dimension `d`, `2d+1` goes down; then `concentration` endpoint ports.
#[derive(Debug, Clone)]
pub struct Torus {
    /// The radices, as the slice that partitioning, patterns and reports take (`axes` holds
    /// them again beside what a hop reads with them).
    dims: Vec<u32>,
    /// Each dimension's radix, stride and coordinate reader together: routing and neighbours
    /// read them on every hop, one entry (one bounds check) per dimension.
    axes: Vec<Axis>,
    concentration: u32,
    wrap: bool,
    routers: u32,
}

/// One dimension of the torus, as a hop reads it.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    pub radix: u32,
    stride: u32,
    digit: Digit,
}

impl Axis {
    /// The coordinate of `router` along this dimension.
    #[inline(always)]
    pub fn coord(&self, router: u32) -> u32 {
        self.digit.of(router)
    }
}

/// One dimension's coordinate of a router number, (router / stride) % radix: a shift and a mask
/// when the stride and the radix are powers of two (tori of 2^n routers a side, the common
/// case), else multiply-and-shift divisions.
#[derive(Debug, Clone, Copy)]
enum Digit {
    Bits {
        shift: u32,
        mask: u32,
    },
    Divide {
        stride: StrengthReducedU32,
        radix: StrengthReducedU32,
    },
}

impl Digit {
    fn new(stride: u32, radix: u32) -> Self {
        if stride.is_power_of_two() && radix.is_power_of_two() {
            Digit::Bits {
                shift: stride.trailing_zeros(),
                mask: radix - 1,
            }
        } else {
            Digit::Divide {
                stride: StrengthReducedU32::new(stride),
                radix: StrengthReducedU32::new(radix),
            }
        }
    }

    #[inline(always)]
    fn of(self, router: u32) -> u32 {
        match self {
            Digit::Bits { shift, mask } => (router >> shift) & mask,
            Digit::Divide { stride, radix } => (router / stride) % radix,
        }
    }
}

/// Dimension letters used in port names for up to four dimensions.
const DIM_LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Torus {
    /// `wrap = true` builds a torus, `false` a mesh.
    pub fn new(dims: &[u32], concentration: u32, wrap: bool) -> Result<Self, ConfigError> {
        if dims.is_empty() {
            return Err(ConfigError::new(
                "topology.dims",
                "[]",
                "at least one dimension, e.g. [8, 8]",
            ));
        }
        if let Some(&k) = dims.iter().find(|&&k| k < 2) {
            return Err(ConfigError::new(
                "topology.dims",
                format!("{dims:?}"),
                format!("every radix >= 2 (found {k}): a dimension of radix {k} has no links"),
            ));
        }
        if concentration == 0 {
            return Err(ConfigError::new(
                "topology.concentration",
                "0",
                "at least 1 endpoint per router",
            ));
        }
        let too_big = || {
            ConfigError::new(
                "topology.dims",
                format!("{dims:?} x concentration {concentration}"),
                "at most 2^32 - 1 routers and endpoints",
            )
        };
        let mut strides = Vec::with_capacity(dims.len());
        let mut routers: u32 = 1;
        for &k in dims {
            strides.push(routers);
            routers = routers.checked_mul(k).ok_or_else(too_big)?;
        }
        routers.checked_mul(concentration).ok_or_else(too_big)?;
        let ports = 2 * dims.len() as u64 + u64::from(concentration);
        if ports > u64::from(u16::MAX) {
            return Err(ConfigError::new(
                "topology.concentration",
                format!("{concentration} with {} dimensions", dims.len()),
                format!(
                    "at most {} ports per router: 2 per dimension plus the concentration",
                    u16::MAX
                ),
            ));
        }
        Ok(Torus {
            dims: dims.to_vec(),
            axes: strides
                .iter()
                .zip(dims)
                .map(|(&stride, &radix)| Axis {
                    radix,
                    stride,
                    digit: Digit::new(stride, radix),
                })
                .collect(),
            concentration,
            wrap,
            routers,
        })
    }

    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// The dimensions as a hop reads them, in dimension order.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    pub fn wraps(&self) -> bool {
        self.wrap
    }

    pub fn concentration(&self) -> u32 {
        self.concentration
    }

    /// Number of network (router-to-router) ports per router.
    pub fn network_ports(&self) -> u16 {
        2 * self.axes.len() as u16
    }

    #[inline]
    pub fn coord(&self, router: u32, dim: usize) -> u32 {
        self.axes[dim].coord(router)
    }

    /// The router at `coords`.
    pub fn router_at(&self, coords: impl Iterator<Item = u32>) -> u32 {
        coords
            .zip(&self.axes)
            .map(|(c, axis)| c * axis.stride)
            .sum()
    }

    /// The router one step along `port` (a network port), if that link exists.
    #[inline]
    fn step(&self, router: u32, port: u16) -> Option<u32> {
        let axis = &self.axes[usize::from(port / 2)];
        let (k, stride) = (axis.radix, axis.stride);
        let c = axis.coord(router);
        let up = port % 2 == 0;
        let next = match (up, self.wrap) {
            (true, _) if c + 1 < k => c + 1,
            (true, true) => 0,
            (false, _) if c > 0 => c - 1,
            (false, true) => k - 1,
            _ => return None,
        };
        Some(router - c * stride + next * stride)
    }

    /// Minimal hops between coordinates `a` and `b` of a ring (torus) or line (mesh) of radix k.
    fn dim_distance(&self, k: u32, a: u32, b: u32) -> u32 {
        let d = a.abs_diff(b);
        if self.wrap {
            d.min(k - d)
        } else {
            d
        }
    }

    /// Mean of `dim_distance` over independent uniform coordinate pairs (same coordinate included).
    fn dim_mean_distance(&self, k: u32) -> f64 {
        let k = f64::from(k);
        if self.wrap {
            // sum over offsets o of min(o, k - o), divided by k
            let kk = k as u64;
            let total: u64 = (0..kk).map(|o| o.min(kk - o)).sum();
            total as f64 / k
        } else {
            (k * k - 1.0) / (3.0 * k)
        }
    }
}

impl Torus {
    /// Minimal number of router-to-router hops between two routers.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        (0..self.dims.len())
            .map(|d| self.dim_distance(self.dims[d], self.coord(a, d), self.coord(b, d)))
            .sum()
    }

    /// Largest minimal distance between two routers.
    pub fn diameter(&self) -> u32 {
        self.dims
            .iter()
            .map(|&k| if self.wrap { k / 2 } else { k - 1 })
            .sum()
    }

    /// Exact mean minimal distance over ordered pairs of distinct endpoints.
    pub fn average_endpoint_distance(&self) -> f64 {
        // Over all ordered endpoint pairs (self included) the mean is the sum of per-dimension
        // means; pairs of an endpoint with itself add distance 0, so rescale by N / (N - 1).
        let n = f64::from(self.num_endpoints());
        if n < 2.0 {
            return 0.0;
        }
        let mean_all: f64 = self.dims.iter().map(|&k| self.dim_mean_distance(k)).sum();
        mean_all * n / (n - 1.0)
    }
}

impl Topology for Torus {
    fn num_routers(&self) -> u32 {
        self.routers
    }

    fn num_endpoints(&self) -> u32 {
        self.routers * self.concentration
    }

    fn ports_per_router(&self) -> u16 {
        self.network_ports() + self.concentration as u16
    }

    fn peer(&self, router: u32, port: u16) -> Peer {
        let network = self.network_ports();
        if port < network {
            match self.step(router, port) {
                // The link back arrives on the opposite-direction port of the neighbour.
                Some(next) => Peer::Router {
                    router: next,
                    port: port ^ 1,
                },
                None => Peer::Unconnected,
            }
        } else {
            Peer::Endpoint(router * self.concentration + u32::from(port - network))
        }
    }

    fn endpoint_attachment(&self, endpoint: u32) -> (u32, u16) {
        (
            endpoint / self.concentration,
            self.network_ports() + (endpoint % self.concentration) as u16,
        )
    }

    fn link_class(&self, _router: u32, port: u16) -> u16 {
        port / 2
    }

    fn link_class_names(&self) -> Vec<String> {
        (0..self.dims.len()).map(|d| format!("dim{d}")).collect()
    }

    fn port_name(&self, _router: u32, port: u16) -> String {
        let network = self.network_ports();
        if port >= network {
            return format!("ep{}", port - network);
        }
        let dim = usize::from(port / 2);
        let sign = if port % 2 == 0 { '+' } else { '-' };
        if self.dims.len() <= DIM_LETTERS.len() {
            format!("{}{sign}", DIM_LETTERS[dim])
        } else {
            format!("dim{dim}{sign}")
        }
    }

    fn router_label(&self, router: u32) -> String {
        let coords: Vec<String> = (0..self.dims.len())
            .map(|d| self.coord(router, d).to_string())
            .collect();
        format!("({})", coords.join(","))
    }

    fn family(&self) -> &'static str {
        if self.wrap {
            "torus"
        } else {
            "mesh"
        }
    }

    fn known_diameter(&self) -> Option<u32> {
        Some(self.diameter())
    }

    fn known_average_endpoint_distance(&self) -> Option<f64> {
        Some(self.average_endpoint_distance())
    }

    /// A cut across the largest dimension, when even: every line of it crosses once (mesh) or
    /// twice (torus).
    fn known_bisection_links(&self) -> Option<u64> {
        let k = *self.dims.iter().max()?;
        let lines = u64::from(self.routers / k);
        (k % 2 == 0).then_some(if self.wrap { 2 * lines } else { lines })
    }

    fn shape(&self) -> Shape {
        Shape::Grid(Grid {
            dims: self.dims.clone(),
            gap: u32::MAX,
            wrap: self.wrap,
        })
    }

    fn coordinates(&self) -> Option<&Torus> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Breadth-first distances from `src`, following `peer` only: an independent route to the
    /// distances the arithmetic gives.
    fn bfs(t: &Torus, src: u32) -> Vec<u32> {
        let mut dist = vec![u32::MAX; t.num_routers() as usize];
        dist[src as usize] = 0;
        let mut todo = VecDeque::from([src]);
        while let Some(r) = todo.pop_front() {
            for p in 0..t.network_ports() {
                if let Peer::Router { router, .. } = t.peer(r, p) {
                    if dist[router as usize] == u32::MAX {
                        dist[router as usize] = dist[r as usize] + 1;
                        todo.push_back(router);
                    }
                }
            }
        }
        dist
    }

    fn check_against_bfs(t: &Torus) {
        let mut total = 0u64;
        let mut diameter = 0;
        let c = u64::from(t.concentration());
        for a in 0..t.num_routers() {
            let dist = bfs(t, a);
            for b in 0..t.num_routers() {
                assert_eq!(t.distance(a, b), dist[b as usize], "{a}->{b}");
                total += u64::from(dist[b as usize]) * c * c;
                diameter = diameter.max(dist[b as usize]);
            }
        }
        let n = f64::from(t.num_endpoints());
        let avg = total as f64 / (n * (n - 1.0));
        assert!((avg - t.average_endpoint_distance()).abs() < 1e-12);
        assert_eq!(diameter, t.diameter());
    }

    #[test]
    fn distances_match_breadth_first_search() {
        check_against_bfs(&Torus::new(&[4, 3], 1, true).unwrap());
        check_against_bfs(&Torus::new(&[5, 2, 3], 2, true).unwrap());
        check_against_bfs(&Torus::new(&[4, 5], 3, false).unwrap());
        check_against_bfs(&Torus::new(&[7], 1, true).unwrap());
    }

    #[test]
    fn links_are_symmetric() {
        for wrap in [true, false] {
            let t = Torus::new(&[4, 2, 3], 2, wrap).unwrap();
            for r in 0..t.num_routers() {
                for p in 0..t.ports_per_router() {
                    match t.peer(r, p) {
                        Peer::Router { router, port } => {
                            assert_eq!(t.peer(router, port), Peer::Router { router: r, port: p })
                        }
                        Peer::Endpoint(e) => assert_eq!(t.endpoint_attachment(e), (r, p)),
                        Peer::Unconnected => assert!(!wrap),
                    }
                }
            }
        }
    }

    #[test]
    fn eight_by_eight_torus_known_figures() {
        let t = Torus::new(&[8, 8], 1, true).unwrap();
        assert_eq!(t.diameter(), 8);
        // Ring of 8: mean distance 2 over all pairs; 2 dims -> 4; rescaled by 64/63.
        assert!((t.average_endpoint_distance() - 4.0 * 64.0 / 63.0).abs() < 1e-12);
        assert_eq!(t.port_name(0, 3), "y-");
        assert_eq!(t.router_label(9), "(1,1)");
    }

    #[test]
    fn huge_torus_costs_no_memory_and_impossible_ones_are_refused() {
        let t = Torus::new(&[16; 6], 1, true).unwrap();
        assert_eq!(t.num_routers(), 16_777_216);
        assert!(std::mem::size_of_val(&t) < 128);
        assert!(Torus::new(&[8, 1], 1, true).is_err());
        assert!(Torus::new(&[], 1, true).is_err());
        assert!(Torus::new(&[65536, 65536], 1, true).is_err());
        assert!(Torus::new(&[8], 0, true).is_err());
        // Ports, not routers, are what a 65,534-endpoint router lacks.
        let e = Torus::new(&[2, 2], 65_534, true).err().unwrap();
        assert_eq!(e.key, "topology.concentration");
        assert!(e.expected.contains("ports per router"), "{}", e.expected);
    }
}
