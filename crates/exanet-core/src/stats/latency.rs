use hdrhistogram::Histogram;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Latencies above this (about 18 simulated minutes) are recorded as this.
const MAX_RECORDED_PS: u64 = 1 << 50;

/// Latency distribution: exact count, sum, min and max, and percentiles from a histogram with
/// three significant digits (relative error below 0.1%), in constant memory.
#[derive(Clone)]
pub struct LatencyStats {
    histogram: Histogram<u64>,
    count: u64,
    sum_ps: u128,
    min_ps: u64,
    max_ps: u64,
}

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats {
            histogram: Histogram::new_with_bounds(1, MAX_RECORDED_PS, 3)
                .expect("bounds and precision are valid"),
            count: 0,
            sum_ps: 0,
            min_ps: u64::MAX,
            max_ps: 0,
        }
    }
}

/// A [`LatencyStats`] as it travels between processes: the histogram as (value, count) pairs of
/// its non-empty buckets, which rebuild the same buckets.
#[derive(Serialize, Deserialize)]
struct LatencyParts {
    buckets: Vec<(u64, u64)>,
    count: u64,
    sum_ps: u128,
    min_ps: u64,
    max_ps: u64,
}

impl Serialize for LatencyStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LatencyParts {
            buckets: self
                .histogram
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect(),
            count: self.count,
            sum_ps: self.sum_ps,
            min_ps: self.min_ps,
            max_ps: self.max_ps,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LatencyStats {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = LatencyParts::deserialize(deserializer)?;
        let mut stats = LatencyStats {
            count: parts.count,
            sum_ps: parts.sum_ps,
            min_ps: parts.min_ps,
            max_ps: parts.max_ps,
            ..LatencyStats::default()
        };
        for (value, count) in parts.buckets {
            stats.histogram.saturating_record_n(value, count);
        }
        Ok(stats)
    }
}

impl LatencyStats {
    #[inline]
    pub fn record(&mut self, latency_ps: u64) {
        self.histogram.saturating_record(latency_ps);
        self.count += 1;
        self.sum_ps += u128::from(latency_ps);
        self.min_ps = self.min_ps.min(latency_ps);
        self.max_ps = self.max_ps.max(latency_ps);
    }

    /// Adds another part's latencies (the histograms have the same bounds).
    pub fn merge(&mut self, other: &LatencyStats) {
        self.histogram
            .add(&other.histogram)
            .expect("histograms with the same bounds");
        self.count += other.count;
        self.sum_ps += other.sum_ps;
        self.min_ps = self.min_ps.min(other.min_ps);
        self.max_ps = self.max_ps.max(other.max_ps);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_ps(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum_ps as f64 / self.count as f64
        }
    }

    pub fn min_ps(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.min_ps as f64
        }
    }

    pub fn max_ps(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.max_ps as f64
        }
    }

    pub fn quantile_ps(&self, q: f64) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            // The histogram reports a bucket's upper edge; never above the true maximum.
            (self.histogram.value_at_quantile(q) as f64).min(self.max_ps as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_moments_and_close_percentiles() {
        let mut s = LatencyStats::default();
        for v in 1..=100_000u64 {
            s.record(v * 1000);
        }
        assert_eq!(s.count(), 100_000);
        assert!((s.mean_ps() - 50_000_500.0).abs() < 1e-6);
        assert_eq!(s.min_ps(), 1000.0);
        assert_eq!(s.max_ps(), 100_000_000.0);
        let p99 = s.quantile_ps(0.99);
        assert!((p99 / 99_000_000.0 - 1.0).abs() < 1e-3, "{p99}");
        assert!(LatencyStats::default().mean_ps().is_nan());
    }
}
