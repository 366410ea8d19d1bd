//! How the workers of a windowed run meet at the end of each window: they hand each other the
//! events that cross parts, then share a report from which each decides, identically, what
//! comes next. One worker needs no meeting; threads meet at a barrier, with a mailbox per pair
//! of workers (no lock is taken while events are handled).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use super::TransportError;

/// The meeting point of the workers of one run. Only processes can fail to meet.
pub trait Fabric<M, R>: Sync {
    fn parts(&self) -> usize;
    /// Sends `outgoing[w]` to every worker w; returns what the others sent worker `me`.
    fn exchange(&self, me: usize, outgoing: Vec<M>) -> Result<Vec<M>, TransportError>;
    /// Every worker's report, in worker order.
    fn gather(&self, me: usize, report: R) -> Result<Vec<R>, TransportError>;
}

/// A single worker: nothing to exchange.
pub struct Solo;

impl<M, R> Fabric<M, R> for Solo {
    fn parts(&self) -> usize {
        1
    }

    fn exchange(&self, _me: usize, _outgoing: Vec<M>) -> Result<Vec<M>, TransportError> {
        Ok(Vec::new())
    }

    fn gather(&self, _me: usize, report: R) -> Result<Vec<R>, TransportError> {
        Ok(vec![report])
    }
}

/// Worker threads of one process.
pub struct Threads<M, R> {
    parts: usize,
    barrier: Barrier,
    /// mail[from * parts + to]
    mail: Vec<Mutex<Vec<M>>>,
    reports: Vec<Mutex<Option<R>>>,
    /// Nanoseconds each worker spent waiting at the barrier.
    waited_ns: Vec<AtomicU64>,
}

impl<M, R> Threads<M, R> {
    pub fn new(parts: usize) -> Self {
        Threads {
            parts,
            barrier: Barrier::new(parts),
            mail: (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
            reports: (0..parts).map(|_| Mutex::new(None)).collect(),
            waited_ns: (0..parts).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn wait(&self, me: usize) {
        let started = Instant::now();
        self.barrier.wait();
        self.waited_ns[me].fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Seconds all workers together spent waiting at the barrier.
    pub fn waited_s(&self) -> f64 {
        self.waited_ns
            .iter()
            .map(|w| w.load(Ordering::Relaxed) as f64 * 1e-9)
            .sum()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked has already failed the run; its data is not read again.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<M: Send, R: Send + Clone> Fabric<M, R> for Threads<M, R> {
    fn parts(&self) -> usize {
        self.parts
    }

    fn exchange(&self, me: usize, outgoing: Vec<M>) -> Result<Vec<M>, TransportError> {
        for (to, message) in outgoing.into_iter().enumerate() {
            lock(&self.mail[me * self.parts + to]).push(message);
        }
        self.wait(me);
        Ok((0..self.parts)
            .flat_map(|from| std::mem::take(&mut *lock(&self.mail[from * self.parts + me])))
            .collect())
    }

    fn gather(&self, me: usize, report: R) -> Result<Vec<R>, TransportError> {
        *lock(&self.reports[me]) = Some(report);
        self.wait(me);
        // Nobody writes a report again before every worker has passed the next exchange's
        // barrier, which it reaches only after reading these.
        Ok(self
            .reports
            .iter()
            .map(|r| lock(r).clone().expect("every worker reported"))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_exchange_mail_and_gather_reports_in_worker_order() {
        type Mail = (usize, usize);
        let fabric: Threads<Mail, usize> = Threads::new(3);
        let results: Vec<(Vec<Mail>, Vec<usize>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|me| {
                    let fabric = &fabric;
                    s.spawn(move || {
                        let got = fabric.exchange(me, (0..3).map(|to| (me, to)).collect());
                        (got.unwrap(), fabric.gather(me, me * 10).unwrap())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (me, (got, reports)) in results.into_iter().enumerate() {
            assert_eq!(got, vec![(0, me), (1, me), (2, me)]);
            assert_eq!(reports, vec![0, 10, 20]);
        }
    }
}
