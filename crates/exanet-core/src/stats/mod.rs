//! Streaming statistics (constant memory per metric) and the result tables handed to callers.

mod latency;
mod table;

use serde::{Deserialize, Serialize};

pub use latency::LatencyStats;
pub use table::{Column, ColumnData, Summary, Table, Value};

/// Time-weighted mean of a piecewise-constant count (packets in flight) over a window, for the
/// Little's-law check. It keeps sums of the count's changes, not the count, so that the parts
/// of a count kept by several workers add up to the whole in any order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TimeAverage {
    window_start: u64,
    window_end: u64,
    /// The count at the window's start.
    at_start: i128,
    /// Changes inside the window: their sum and their sum weighted by time.
    changes: i128,
    changes_by_time: i128,
    /// Area added after the fact.
    spans: u128,
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

    /// Changes the count by `delta` at time `now`.
    #[inline]
    pub fn change(&mut self, now: u64, delta: i64) {
        if now <= self.window_start {
            self.at_start += i128::from(delta);
        } else if now < self.window_end {
            self.changes += i128::from(delta);
            self.changes_by_time += i128::from(delta) * i128::from(now);
        }
    }

    /// Adds `count` to the count over [from, to), after the fact.
    pub fn add_span(&mut self, from: u64, to: u64, count: u64) {
        let from = from.max(self.window_start);
        let to = to.min(self.window_end);
        if to > from {
            self.spans += u128::from(count) * u128::from(to - from);
        }
    }

    /// Adds another part of the same count.
    pub fn merge(&mut self, other: &TimeAverage) {
        self.at_start += other.at_start;
        self.changes += other.changes;
        self.changes_by_time += other.changes_by_time;
        self.spans += other.spans;
    }

    /// Mean over the window, taking the count as constant from the last change up to `now`
    /// (no change may come after `now`).
    pub fn mean(&self, now: u64) -> f64 {
        let span = self.window_end.saturating_sub(self.window_start);
        if span == 0 {
            return 0.0;
        }
        let end = now.min(self.window_end);
        let stepped = if end > self.window_start {
            self.at_start * i128::from(end - self.window_start) + self.changes * i128::from(end)
                - self.changes_by_time
        } else {
            0
        };
        (stepped as f64 + self.spans as f64) / span as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_clips_to_the_window() {
        let mut avg = TimeAverage::new(10, 20);
        avg.change(0, 4); // 4 from 0 to 15, only 10..15 counts
        avg.change(15, -2); // 2 from 15 to 30, only 15..20 counts
        avg.add_span(5, 12, 3); // 3 more from 5 to 12, only 10..12 counts
        assert!((avg.mean(30) - (4.0 * 5.0 + 2.0 * 5.0 + 3.0 * 2.0) / 10.0).abs() < 1e-12);
    }

    #[test]
    fn parts_merged_in_any_order_give_the_whole() {
        let mut whole = TimeAverage::new(10, 100);
        let mut a = TimeAverage::new(10, 100);
        let mut b = TimeAverage::new(10, 100);
        for (t, d, part) in [(5, 3, 0), (20, 2, 1), (40, -4, 0), (60, 1, 1), (90, -2, 1)] {
            whole.change(t, d);
            if part == 0 { &mut a } else { &mut b }.change(t, d);
        }
        let mut ba = b.clone();
        ba.merge(&a);
        a.merge(&b);
        // 3 on 10..20, 5 on 20..40, 1 on 40..60, 2 on 60..90, 0 after
        let expected = (3.0 * 10.0 + 5.0 * 20.0 + 20.0 + 2.0 * 30.0) / 90.0;
        for avg in [&whole, &a, &ba] {
            assert!((avg.mean(120) - expected).abs() < 1e-12);
        }
    }
}
