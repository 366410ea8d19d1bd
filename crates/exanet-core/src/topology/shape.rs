//! The structure a topology offers routing, so that routes follow from arithmetic or small
//! per-group tables instead of a table over all router pairs.

/// What routing may rely on to compute hop distances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Groups (`Topology::group` of every router) joined by global links: a minimal route takes
    /// local hops, one global link, local hops (dragonflies, Fishnets).
    Groups,
    /// Tree levels of every router (0: the leaves, which hold the endpoints): links join
    /// adjacent levels, and every parent of a router reaches the same leaves going down
    /// (fat-trees).
    Levels(Vec<u8>),
    /// A grid of routers, dimension 0 varying fastest; links join routers that differ in one
    /// coordinate (tori, meshes, express meshes, HyperX).
    Grid(Grid),
    /// A midimew: distances from its routing records, in arithmetic.
    Midimew(super::Midimew),
    /// Any graph: routing stores distances.
    Graph,
}

/// The routers of a grid and the links along each dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub dims: Vec<u32>,
    /// Coordinates at distance d along a dimension are linked when (d - 1) is a multiple of
    /// `gap`: 1 links every pair (HyperX), u32::MAX only neighbours (tori, meshes).
    pub gap: u32,
    /// Whether each dimension is a ring (tori).
    pub wrap: bool,
}

impl Grid {
    /// The coordinate of `router` in dimension `dim`.
    pub fn coord(&self, router: u32, dim: usize) -> u32 {
        let stride: u32 = self.dims[..dim].iter().product();
        (router / stride) % self.dims[dim]
    }
}
