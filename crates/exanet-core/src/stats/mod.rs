//! Streaming statistics (constant memory per metric) and the result tables handed to callers.

mod latency;
mod table;

pub use latency::LatencyStats;
pub use table::{Column, ColumnData, Summary, Table, Value};

/// Time-weighted mean of a piecewise-constant count (packets in flight) over a window, for the
/// Little's-law check.
#[derive(Debug, Clone, Default)]
pub struct TimeAverage {
    window_start: u64,
    window_end: u64,
    last_ps: u64,
    value: u64,
    area: u128,
}

impl TimeAverage {
    pub fn new(window_start: u64, window_end: u64) -> Self {
        TimeAverage {
            window_start,
            window_end,
            ..Default::default()
        }
    }

    /// Moves the end of the window (a run whose window is the whole run ends when it ends).
    pub fn set_window_end(&mut self, window_end: u64) {
        self.window_end = window_end;
    }

    /// Sets the count at time `now` (times must not decrease).
    #[inline]
    pub fn set(&mut self, now: u64, value: u64) {
        self.advance(now);
        self.value = value;
    }

    /// Adds `count` to the count over [from, to), after the fact.
    pub fn add_span(&mut self, from: u64, to: u64, count: u64) {
        let from = from.max(self.window_start);
        let to = to.min(self.window_end);
        if to > from {
            self.area += u128::from(count) * u128::from(to - from);
        }
    }

    fn advance(&mut self, now: u64) {
        let from = self.last_ps.max(self.window_start);
        let to = now.min(self.window_end);
        if to > from {
            self.area += u128::from(self.value) * u128::from(to - from);
        }
        self.last_ps = now;
    }

    /// Mean over the window, taking the count as constant from the last change up to `now`.
    pub fn mean(&self, now: u64) -> f64 {
        let mut copy = self.clone();
        copy.advance(now.max(self.last_ps));
        let span = self.window_end.saturating_sub(self.window_start);
        if span == 0 {
            return 0.0;
        }
        copy.area as f64 / span as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_clips_to_the_window() {
        let mut avg = TimeAverage::new(10, 20);
        avg.set(0, 4); // 4 from 0 to 15, only 10..15 counts
        avg.set(15, 2); // 2 from 15 to 30, only 15..20 counts
        avg.add_span(5, 12, 3); // 3 more from 5 to 12, only 10..12 counts
        assert!((avg.mean(30) - (4.0 * 5.0 + 2.0 * 5.0 + 3.0 * 2.0) / 10.0).abs() < 1e-12);
    }
}
