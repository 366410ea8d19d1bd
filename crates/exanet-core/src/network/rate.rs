//! Packet-rate limits (000 §2.3: switch and NIC forwarding rates in Mpps), enforced per window
//! as the injection cap is: windows of a fixed length aligned at time 0, each admitting the
//! packets that the rate accrues by its end and the earlier windows did not take a share of.
//! Windows 0..=w admit at most floor((w + 1) x window x rate) packets in all, so the long-run
//! rate is exact even where a window holds a fraction of a packet.

use crate::engine::Time;

const PS_PER_S: u128 = 1_000_000_000_000;

/// The fastest limit a config may set (one packet per femtosecond): time x rate, both in 64
/// bits and time below 2^64 ps, then stays far inside the 128 bits `accrued` computes in.
pub const MAX_PACKET_RATE_PER_S: u64 = 1_000_000_000_000_000;

/// A limit of `per_s` packets per second, enforced per window of `window_ps`.
#[derive(Debug, Clone, Copy)]
pub(super) struct PacketRate {
    pub per_s: u64,
    pub window_ps: Time,
}

impl PacketRate {
    /// The limit a config gives (`per_s` 0: none).
    pub fn new(per_s: u64, window_ps: Time) -> Option<Self> {
        (per_s > 0 && window_ps > 0).then_some(PacketRate { per_s, window_ps })
    }

    /// Packets accrued by the start of window `w`.
    fn accrued(self, w: u64) -> u128 {
        u128::from(w) * u128::from(self.window_ps) * u128::from(self.per_s) / PS_PER_S
    }

    /// Packets window `w` admits.
    fn admits(self, w: u64) -> u64 {
        (self.accrued(w + 1) - self.accrued(w)) as u64
    }

    /// The start of the first window after `w` that admits a packet.
    fn next_open(self, w: u64) -> Time {
        // The least n with accrued(n + 1) > accrued(w + 1): that window's end is where the
        // next packet has accrued.
        let target = self.accrued(w + 1) + 1;
        let per_window = u128::from(self.window_ps) * u128::from(self.per_s);
        let ends = (target * PS_PER_S).div_ceil(per_window);
        (ends as u64 - 1).max(w + 1) * self.window_ps
    }
}

/// An entity's use of its limit: the current window and the packets started in it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RateWindow {
    window: u64,
    used: u64,
}

impl RateWindow {
    /// When the entity's next packet may start under `rate` (`now` if it may now).
    pub fn allows_at(&mut self, now: Time, rate: PacketRate) -> Time {
        let w = now / rate.window_ps;
        if self.window != w {
            self.window = w;
            self.used = 0;
        }
        if self.used < rate.admits(w) {
            now
        } else {
            rate.next_open(w)
        }
    }

    /// Counts a packet started now (after [`Self::allows_at`] said it may).
    pub fn take(&mut self) {
        self.used += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts packets as early as the limit lets them, from time 0, until `until`.
    fn starts(rate: PacketRate, until: Time) -> Vec<Time> {
        let (mut window, mut now, mut out) = (RateWindow::default(), 0, Vec::new());
        while now < until {
            let at = window.allows_at(now, rate);
            if at == now {
                window.take();
                out.push(now);
            } else {
                assert!(at > now);
                now = at;
            }
        }
        out
    }

    #[test]
    fn a_whole_number_per_window_starts_that_many_at_each_window_start() {
        // 200 Mpps over 50 ns windows: 10 per window.
        let rate = PacketRate::new(200_000_000, 50_000).unwrap();
        let s = starts(rate, 1_000_000);
        assert_eq!(s.len(), 200);
        assert!(s
            .chunks(10)
            .enumerate()
            .all(|(i, c)| c.iter().all(|&t| t == i as u64 * 50_000)));
    }

    #[test]
    fn a_fraction_per_window_keeps_the_long_run_rate_exact() {
        // 150 Mpps over 50 ns windows: 7.5 per window, alternately 7 and 8.
        let rate = PacketRate::new(150_000_000, 50_000).unwrap();
        let s = starts(rate, 1_000_000);
        assert_eq!(s.len(), 150);
        let first = s.iter().filter(|&&t| t == 0).count();
        let second = s.iter().filter(|&&t| t == 50_000).count();
        assert_eq!((first, second), (7, 8));
        // 3 Mpps over 50 ns windows: one packet every 6.67 windows, in the window where it
        // has accrued (exactly 3 in 1 us).
        let slow = PacketRate::new(3_000_000, 50_000).unwrap();
        let s = starts(slow, 1_000_000);
        assert_eq!(s, vec![300_000, 650_000, 950_000]);
    }

    #[test]
    fn no_rate_or_no_window_is_no_limit() {
        assert!(PacketRate::new(0, 50_000).is_none());
        assert!(PacketRate::new(1, 0).is_none());
    }
}
