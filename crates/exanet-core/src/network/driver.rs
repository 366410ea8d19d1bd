//! The run driver: sources, the event loop with its measurement window and drain, the deadlock
//! watchdog, and progress reports.

use std::time::Instant;

use super::model::{NetEvent, Network};
use super::results::RunOutput;
use super::serialization_ps;
use crate::config::Drain;
use crate::engine::{Scheduler, Step, Time};
use crate::error::{SimError, StallReport, StalledRank};

/// Which part of a run the simulation is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Measure,
    Drain,
    /// Fixed-duration mode.
    Run,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Warmup => "warmup",
            Phase::Measure => "measure",
            Phase::Drain => "drain",
            Phase::Run => "run",
        }
    }
}

/// What a progress callback sees.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub sim_time_ps: Time,
    /// End of the measurement window (or of the fixed duration).
    pub target_time_ps: Time,
    pub phase: Phase,
    pub events: u64,
    pub wall_s: f64,
    pub packets_in_flight: u64,
}

impl Network {
    /// Largest one-hop time (router latency + link latency + serialization of the largest
    /// packet on the slowest link): the scale of the automatic deadlock timeout.
    fn largest_hop_ps(&self) -> Time {
        let largest_packet = self.config.nic.mtu_bytes + self.config.nic.header_bytes;
        self.class_links
            .iter()
            .chain(std::iter::once(&self.nic_link))
            .map(|l| l.latency_ps + serialization_ps(largest_packet, l.bytes_per_s))
            .max()
            .unwrap_or(0)
            + self.router_latency_ps
    }

    /// Runs the simulation to its end. `progress` is called about every `interval_s` seconds of
    /// wall time; returning false stops the run with [`SimError::Interrupted`].
    pub fn run(
        mut self,
        interval_s: f64,
        progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<RunOutput, SimError> {
        let wall_start = Instant::now();
        let run = self.config.run.clone();
        let mut sched: Scheduler<NetEvent> = Scheduler::new();
        self.start_sources(&mut sched);
        let window_end = self.stats.window_end;
        let stop_at = match run.duration_ps {
            _ if self.closed => Time::MAX,
            Some(duration) => duration,
            None if run.drain == Drain::None => window_end,
            None => window_end.saturating_add(
                run.drain_limit_ps
                    .unwrap_or(20 * (run.warmup_ps + run.measure_ps)),
            ),
        };
        let deadlock_timeout = run
            .deadlock_timeout_ps
            .unwrap_or_else(|| (1000 * self.largest_hop_ps()).max(1_000_000));
        let waits_for_measured =
            !self.closed && run.duration_ps.is_none() && run.drain == Drain::Measured;
        let mut last_report = Instant::now();
        let mut steps: u64 = 0;
        // Why the loop ended: the queue ran empty, every measured packet arrived, or the clock
        // reached `stop_at`.
        let (end, idle, all_measured_arrived) = loop {
            let Some(next) = sched.next_time() else {
                break (sched.now(), true, false);
            };
            if next >= stop_at {
                break (stop_at, false, false);
            }
            if let Step::Ran { time, .. } = sched.step(&mut self) {
                let in_network = self.stats.injected - self.stats.delivered;
                if in_network > 0
                    && time > self.stats.progress_until.saturating_add(deadlock_timeout)
                {
                    return Err(SimError::Deadlock(Box::new(self.deadlock_report(time))));
                }
                if waits_for_measured
                    && time >= window_end
                    && self.nics_owing_window == 0
                    && self.stats.measured_delivered == self.stats.measured_generated
                {
                    break (time, false, true);
                }
            }
            steps += 1;
            if steps % 4096 == 0 && last_report.elapsed().as_secs_f64() >= interval_s {
                last_report = Instant::now();
                let now = sched.now();
                let report = Progress {
                    sim_time_ps: now,
                    target_time_ps: window_end,
                    phase: self.phase(now),
                    events: sched.events(),
                    wall_s: wall_start.elapsed().as_secs_f64(),
                    packets_in_flight: self.packets_in_flight(),
                };
                if !progress(&report) {
                    return Err(SimError::Interrupted);
                }
            }
        };
        if idle && self.stats.injected > self.stats.delivered {
            return Err(SimError::Deadlock(Box::new(self.deadlock_report(end))));
        }
        if let Some(mpi) = self.mpi.as_ref().filter(|m| !m.finished()) {
            return Err(SimError::Stalled(Box::new(StallReport {
                time_ps: end,
                ranks: mpi
                    .stuck()
                    .into_iter()
                    .map(|(job, rank, operation, waiting_for)| StalledRank {
                        job: mpi.jobs[job as usize].name.clone(),
                        rank,
                        operation,
                        waiting_for,
                    })
                    .collect(),
            })));
        }
        if self.closed {
            self.stats.window_end = end.max(1);
            self.stats.in_flight.set_window_end(end.max(1));
        }
        let drained = match (run.duration_ps, run.drain) {
            _ if self.closed => self.packets_in_flight() == 0,
            (None, Drain::Measured) => all_measured_arrived || idle,
            (None, Drain::None) => false,
            _ => self.packets_in_flight() == 0,
        };
        let source_queue_packets = self.account_backlog(end);
        let wall_s = wall_start.elapsed().as_secs_f64();
        Ok(self.results(end, drained, sched.events(), wall_s, source_queue_packets))
    }

    fn phase(&self, now: Time) -> Phase {
        if self.config.run.duration_ps.is_some() {
            Phase::Run
        } else if now < self.stats.window_start {
            Phase::Warmup
        } else if now < self.stats.window_end {
            Phase::Measure
        } else {
            Phase::Drain
        }
    }
}
