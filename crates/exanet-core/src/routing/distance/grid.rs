//! Hop distances on grids (tori, meshes, express meshes, HyperX), in arithmetic: the sum over
//! dimensions of the distance along one line. Lines with express links whose distances have no
//! closed form keep a table of k x k bytes per dimension.

use super::Distances;
use crate::topology::{line_distances_from, Grid};

pub struct GridDistances {
    grid: Grid,
    strides: Vec<u32>,
    /// Per dimension, `line[a * k + b]` where the line has no closed form (express links).
    lines: Vec<Vec<u8>>,
}

impl GridDistances {
    pub fn new(grid: Grid) -> Self {
        let strides = grid
            .dims
            .iter()
            .scan(1u32, |stride, &k| {
                let s = *stride;
                *stride = stride.saturating_mul(k);
                Some(s)
            })
            .collect();
        let lines = grid
            .dims
            .iter()
            .map(|&k| {
                if grid.wrap || grid.gap == 1 || grid.gap >= k.saturating_sub(1) {
                    Vec::new()
                } else {
                    express_line(k, grid.gap)
                }
            })
            .collect();
        GridDistances {
            grid,
            strides,
            lines,
        }
    }

    fn line(&self, dim: usize, a: u32, b: u32) -> u8 {
        let k = self.grid.dims[dim];
        let d = a.abs_diff(b);
        let hops = if self.grid.wrap {
            d.min(k - d)
        } else if self.grid.gap == 1 {
            u32::from(d != 0)
        } else if self.lines[dim].is_empty() {
            d
        } else {
            return self.lines[dim][(a * k + b) as usize];
        };
        hops.min(u32::from(u8::MAX)) as u8
    }

    fn coord(&self, router: u32, dim: usize) -> u32 {
        (router / self.strides[dim]) % self.grid.dims[dim]
    }
}

/// Distances between the positions of a line of `k` routers whose positions at distance
/// 1 + j * gap are linked, `table[a * k + b]`.
fn express_line(k: u32, gap: u32) -> Vec<u8> {
    (0..k as usize)
        .flat_map(|src| line_distances_from(k, gap, src))
        .map(|d| d.min(u32::from(u8::MAX)) as u8)
        .collect()
}

impl Distances for GridDistances {
    fn hops(&self, from: u32, to: u32) -> u8 {
        (0..self.grid.dims.len())
            .map(|d| self.line(d, self.coord(from, d), self.coord(to, d)))
            .fold(0u8, u8::saturating_add)
    }

    fn diameter(&self) -> u8 {
        (0..self.grid.dims.len())
            .map(|d| match self.lines[d].iter().max() {
                Some(&largest) => largest,
                // Closed forms are farthest from position 0.
                None => (0..self.grid.dims[d])
                    .map(|b| self.line(d, 0, b))
                    .max()
                    .unwrap_or(0),
            })
            .fold(0u8, u8::saturating_add)
    }

    fn bytes(&self) -> u64 {
        self.lines.iter().map(|l| l.len() as u64).sum::<u64>() + 8 * self.strides.len() as u64
    }
}
