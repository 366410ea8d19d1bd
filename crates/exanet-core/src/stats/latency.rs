use hdrhistogram::Histogram;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Latencies above this (about 18 simulated minutes) are recorded as this.
const MAX_RECORDED_PS: u64 = 1 << 50;
/// The histogram's significant digits: relative error below 0.1%.
const SIGNIFICANT_DIGITS: u8 = 3;
/// Its layout at three significant digits and a lowest value of 1: buckets of 1,024 slots
/// (2,048 in the first), each twice as wide as the one before; the slots of a value are its
/// leading 11 bits.
const HALF_SLOTS_LOG2: u32 = 10;
const SLOT_BITS: u32 = HALF_SLOTS_LOG2 + 1;

/// The histogram's slot of `value`: its bucket (how many bits it has beyond the first 11) and
/// its leading 11 bits within that bucket. The histogram holds slots up to twice
/// `MAX_RECORDED_PS`; larger values count as `MAX_RECORDED_PS` (see `LatencyStats::record`).
#[inline]
fn slot_of(value: u64) -> usize {
    let bucket = (u64::BITS - SLOT_BITS) - (value | ((1 << SLOT_BITS) - 1)).leading_zeros();
    ((bucket as usize) << HALF_SLOTS_LOG2) + (value >> bucket) as usize
}

/// The lowest value of slot `slot` (`slot_of` of it is `slot`).
fn slot_value(slot: usize) -> u64 {
    let bucket = (slot >> HALF_SLOTS_LOG2).saturating_sub(1);
    ((slot - (bucket << HALF_SLOTS_LOG2)) as u64) << bucket
}

/// An empty histogram of the bounds and precision the slots follow.
fn empty_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_RECORDED_PS, SIGNIFICANT_DIGITS)
        .expect("bounds and precision are valid")
}

/// Latency distribution: exact count, sum, min and max, and percentiles from a histogram with
/// three significant digits (relative error below 0.1%), in constant memory.
///
/// A latency is counted in its slot of that histogram, not recorded through the histogram
/// library: the library's `record` also keeps its own count, minimum and maximum and checks
/// its range, 40-odd instructions per call on the path of every delivered packet, where a slot
/// is a few. The library's histogram is built from the slots when percentiles are read, with
/// the same counts in the same slots (a unit test checks the slots against the library's).
#[derive(Clone)]
pub struct LatencyStats {
    slots: Vec<u64>,
    count: u64,
    sum_ps: u128,
    min_ps: u64,
    max_ps: u64,
}

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats {
            slots: vec![0; empty_histogram().distinct_values()],
            count: 0,
            sum_ps: 0,
            min_ps: u64::MAX,
            max_ps: 0,
        }
    }
}

/// A [`LatencyStats`] as it travels between processes: (lowest value, count) of its non-empty
/// slots.
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
                .slots
                .iter()
                .enumerate()
                .filter(|&(_, &count)| count != 0)
                .map(|(slot, &count)| (slot_value(slot), count))
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
            let slot = stats.slot(value);
            stats.slots[slot] = stats.slots[slot].saturating_add(count);
        }
        Ok(stats)
    }
}

impl LatencyStats {
    #[inline]
    pub fn record(&mut self, latency_ps: u64) {
        let slot = self.slot(latency_ps);
        self.slots[slot] = self.slots[slot].saturating_add(1);
        self.count += 1;
        self.sum_ps += u128::from(latency_ps);
        self.min_ps = self.min_ps.min(latency_ps);
        self.max_ps = self.max_ps.max(latency_ps);
    }

    /// The slot `value` counts in: its own, or `MAX_RECORDED_PS`'s beyond the last one.
    #[inline]
    fn slot(&self, value: u64) -> usize {
        match slot_of(value) {
            slot if slot < self.slots.len() => slot,
            _ => slot_of(MAX_RECORDED_PS),
        }
    }

    /// Adds another part's latencies (the slots are the same).
    pub fn merge(&mut self, other: &LatencyStats) {
        for (mine, theirs) in self.slots.iter_mut().zip(&other.slots) {
            *mine = mine.saturating_add(*theirs);
        }
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

    /// The latencies at quantiles `qs`, in their order.
    pub fn quantiles_ps<const N: usize>(&self, qs: [f64; N]) -> [f64; N] {
        if self.count == 0 {
            return [f64::NAN; N];
        }
        let histogram = self.histogram();
        // The histogram reports a bucket's upper edge; never above the true maximum.
        qs.map(|q| (histogram.value_at_quantile(q) as f64).min(self.max_ps as f64))
    }

    /// The library's histogram of these latencies: each slot's count at its lowest value.
    fn histogram(&self) -> Histogram<u64> {
        let mut histogram = empty_histogram();
        for (slot, &count) in self.slots.iter().enumerate().filter(|&(_, &c)| c != 0) {
            histogram.saturating_record_n(slot_value(slot), count);
        }
        histogram
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
        let [p99] = s.quantiles_ps([0.99]);
        assert!((p99 / 99_000_000.0 - 1.0).abs() < 1e-3, "{p99}");
        assert!(LatencyStats::default().mean_ps().is_nan());
    }

    /// Values at the slots' edges and spread over the whole range, beyond it too.
    fn edge_values() -> Vec<u64> {
        let mut values = vec![0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, u64::MAX];
        for bit in 0..64 {
            let power = 1u64 << bit;
            values.extend([power - 1, power, power + 1, power | (power >> 1)]);
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            // xorshift: values of every magnitude
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        values
    }

    #[test]
    fn latencies_land_in_the_slots_the_library_records_them_in() {
        let mut mine = LatencyStats::default();
        let mut library = empty_histogram();
        for value in edge_values() {
            mine.record(value);
            library.saturating_record(value);
        }
        let recorded = |h: &Histogram<u64>| {
            h.iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect::<Vec<_>>()
        };
        assert_eq!(recorded(&mine.histogram()), recorded(&library));
        let qs = [0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0];
        let expected = qs.map(|q| (library.value_at_quantile(q) as f64).min(mine.max_ps()));
        assert_eq!(mine.quantiles_ps(qs), expected);
    }

    #[test]
    fn a_slots_lowest_value_lies_in_it() {
        let library = empty_histogram();
        for slot in 0..library.distinct_values() {
            assert_eq!(slot_of(slot_value(slot)), slot, "slot {slot}");
        }
        for value in edge_values().into_iter().filter(|&v| v <= MAX_RECORDED_PS) {
            let lowest = slot_value(slot_of(value));
            assert_eq!(lowest, library.lowest_equivalent(value), "value {value}");
        }
    }

    #[test]
    fn parts_merged_or_sent_between_processes_keep_every_slot() {
        let (mut a, mut b) = (LatencyStats::default(), LatencyStats::default());
        for (i, value) in edge_values().into_iter().enumerate() {
            if i % 3 == 0 { &mut a } else { &mut b }.record(value);
        }
        let mut merged = a.clone();
        merged.merge(&b);
        let sent: LatencyStats =
            serde_json::from_str(&serde_json::to_string(&merged).unwrap()).unwrap();
        assert_eq!(sent.slots, merged.slots);
        assert_eq!(merged.count(), a.count() + b.count());
        let sums: Vec<u64> = a.slots.iter().zip(&b.slots).map(|(x, y)| x + y).collect();
        assert_eq!(merged.slots, sums);
    }
}
