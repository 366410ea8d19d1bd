//! Destinations drawn from a traffic matrix (000 ch. 4: a source-by-destination table of bytes
//! or packets). Each source draws from its own row in proportion to the weights; the diagonal
//! is ignored, since a node's traffic to itself never enters the network. The rows' totals give
//! each source's share of the offered load.

use rand::RngExt;

use crate::config::TrafficMatrix;
use crate::engine::EntityRng;
use crate::error::ConfigError;

#[derive(Debug, Clone)]
pub struct MatrixRows {
    /// Source s's entries are `starts[s]..starts[s + 1]` of `dsts` and `cumulative`.
    starts: Vec<usize>,
    dsts: Vec<u32>,
    /// Running sum of the row's weights, entry by entry (the last is the row's total).
    cumulative: Vec<f64>,
}

impl MatrixRows {
    /// Checks a matrix against `endpoints` and indexes its rows.
    pub fn build(matrix: &TrafficMatrix, endpoints: u32) -> Result<Self, ConfigError> {
        const KEY: &str = "traffic.matrix";
        if let Some(side) = matrix.endpoints.filter(|&side| side != endpoints) {
            return Err(ConfigError::new(
                KEY,
                format!("a {side} x {side} matrix"),
                format!("one row and one column per endpoint: {endpoints} x {endpoints}"),
            ));
        }
        let entries = matrix.src.len();
        if matrix.dst.len() != entries || matrix.weight.len() != entries {
            return Err(ConfigError::new(
                KEY,
                format!(
                    "{} sources, {} destinations, {} weights",
                    entries,
                    matrix.dst.len(),
                    matrix.weight.len()
                ),
                "as many destinations and weights as sources",
            ));
        }
        let mut order: Vec<usize> = Vec::with_capacity(entries);
        for i in 0..entries {
            let (src, dst, weight) = (matrix.src[i], matrix.dst[i], matrix.weight[i]);
            if src >= endpoints || dst >= endpoints {
                return Err(ConfigError::new(
                    KEY,
                    format!("an entry ({src}, {dst})"),
                    format!("endpoint ids between 0 and {}", endpoints - 1),
                ));
            }
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(ConfigError::new(
                    KEY,
                    format!("weight {weight} at ({src}, {dst})"),
                    "finite weights >= 0",
                ));
            }
            if src != dst && weight > 0.0 {
                order.push(i);
            }
        }
        if order.is_empty() {
            return Err(ConfigError::new(
                KEY,
                "no weight off the diagonal",
                "at least one entry > 0 between two different endpoints",
            ));
        }
        order.sort_by_key(|&i| (matrix.src[i], matrix.dst[i]));
        let mut starts = vec![0usize; endpoints as usize + 1];
        let mut dsts = Vec::with_capacity(order.len());
        let mut cumulative: Vec<f64> = Vec::with_capacity(order.len());
        let mut row = 0u32;
        for &i in &order {
            let (src, dst, weight) = (matrix.src[i], matrix.dst[i], matrix.weight[i]);
            while row < src {
                row += 1;
                starts[row as usize] = dsts.len();
            }
            let row_start = starts[row as usize];
            let before = if dsts.len() > row_start {
                cumulative[cumulative.len() - 1]
            } else {
                0.0
            };
            if dsts.len() > row_start && dsts[dsts.len() - 1] == dst {
                // A repeated entry adds to the one before it.
                *cumulative.last_mut().expect("an entry") += weight;
            } else {
                dsts.push(dst);
                cumulative.push(before + weight);
            }
        }
        for s in &mut starts[row as usize + 1..] {
            *s = dsts.len();
        }
        Ok(MatrixRows {
            starts,
            dsts,
            cumulative,
        })
    }

    /// Total weight of source `src`'s row, the diagonal left out.
    pub fn row_total(&self, src: u32) -> f64 {
        let (lo, hi) = (self.starts[src as usize], self.starts[src as usize + 1]);
        if hi > lo {
            self.cumulative[hi - 1]
        } else {
            0.0
        }
    }

    /// Sources whose row is empty (they send nothing).
    pub fn silent_sources(&self) -> impl Iterator<Item = u32> + '_ {
        self.starts
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0] == w[1])
            .map(|(s, _)| s as u32)
    }

    /// A destination for source `src`, whose row must not be empty.
    pub fn destination(&self, src: u32, rng: &mut EntityRng) -> u32 {
        let (lo, hi) = (self.starts[src as usize], self.starts[src as usize + 1]);
        let row = &self.cumulative[lo..hi];
        let r = rng.random::<f64>() * row[row.len() - 1];
        let k = row.partition_point(|&c| c <= r).min(row.len() - 1);
        self.dsts[lo + k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::entity_stream;

    fn matrix(endpoints: u32, entries: &[(u32, u32, f64)]) -> TrafficMatrix {
        TrafficMatrix {
            endpoints: Some(endpoints),
            src: entries.iter().map(|e| e.0).collect(),
            dst: entries.iter().map(|e| e.1).collect(),
            weight: entries.iter().map(|e| e.2).collect(),
        }
    }

    #[test]
    fn rows_merge_repeats_skip_the_diagonal_and_draw_in_proportion() {
        let m = matrix(
            4,
            &[
                (2, 3, 1.0),
                (0, 1, 1.0),
                (0, 0, 50.0),
                (0, 2, 2.0),
                (0, 1, 1.0),
                (3, 0, 0.0),
            ],
        );
        let rows = MatrixRows::build(&m, 4).unwrap();
        assert_eq!(rows.row_total(0), 4.0);
        assert_eq!(rows.row_total(1), 0.0);
        assert_eq!(rows.row_total(2), 1.0);
        assert_eq!(rows.silent_sources().collect::<Vec<_>>(), vec![1, 3]);
        let mut rng = entity_stream(7, 0);
        let draws = 40_000;
        let to_one = (0..draws)
            .filter(|_| rows.destination(0, &mut rng) == 1)
            .count();
        // Half the row's weight: 20,000 ± 3 sigma (sigma = 100).
        assert!((to_one as i64 - 20_000).abs() < 300, "{to_one}");
        assert!((0..100).all(|_| rows.destination(2, &mut rng) == 3));
    }

    #[test]
    fn bad_matrices_name_the_problem() {
        let cases = [
            (matrix(3, &[(0, 1, 1.0)]), "3 x 3"),
            (matrix(4, &[(0, 4, 1.0)]), "(0, 4)"),
            (matrix(4, &[(0, 1, -1.0)]), "-1"),
            (matrix(4, &[(1, 1, 1.0)]), "diagonal"),
        ];
        for (m, needle) in cases {
            let e = MatrixRows::build(&m, 4).unwrap_err();
            assert_eq!(e.key, "traffic.matrix");
            assert!(e.value.contains(needle), "{} lacks {needle}", e.value);
        }
    }
}
