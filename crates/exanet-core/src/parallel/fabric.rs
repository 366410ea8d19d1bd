//! How the workers of a windowed run meet at the end of each window: they hand each other the
//! events that cross parts, then share a report from which each decides, identically, what
//! comes next. One worker needs no meeting; threads meet at a barrier, with a mailbox per pair
//! of workers (no lock is taken while events are handled).

use std::sync::{Barrier, Condvar, Mutex};
use std::time::Instant;

use super::TransportError;

/// The meeting point of the workers of one run. Only processes can fail to meet.
pub trait Fabric<M, R>: Sync {
    fn parts(&self) -> usize;
    /// Sends `outgoing[w]` to every worker w; returns what the others sent worker `me`.
    fn exchange(&self, me: usize, outgoing: Vec<M>) -> Result<Vec<M>, TransportError>;
    /// Every worker's report, in worker order.
    fn gather(&self, me: usize, report: R) -> Result<Vec<R>, TransportError>;
    /// A worker starts running (where workers outnumber cores, it waits for one here).
    fn begin(&self) {}
    /// A worker has stopped running.
    fn finish(&self) {}
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

/// The cores that a run's worker threads take turns on: at most `count` workers hold one at
/// once. It also counts the time cores stand idle: free while no worker waits for one.
struct Cores {
    state: Mutex<CoreState>,
    freed: Condvar,
}

struct CoreState {
    free: usize,
    waiting: usize,
    since: Instant,
    idle_ns: u128,
}

impl CoreState {
    /// Adds the idle core time since the last change of state.
    fn account(&mut self) {
        let now = Instant::now();
        if self.waiting == 0 {
            self.idle_ns += now.duration_since(self.since).as_nanos() * self.free as u128;
        }
        self.since = now;
    }
}

impl Cores {
    fn new(count: usize) -> Self {
        Cores {
            state: Mutex::new(CoreState {
                free: count,
                waiting: 0,
                since: Instant::now(),
                idle_ns: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// Waits for a free core, and takes it.
    fn take(&self) {
        let mut state = lock(&self.state);
        state.account();
        state.waiting += 1;
        while state.free == 0 {
            state = self
                .freed
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state.account();
        state.waiting -= 1;
        state.free -= 1;
    }

    /// Gives a core back.
    fn give(&self) {
        let mut state = lock(&self.state);
        state.account();
        state.free += 1;
        drop(state);
        self.freed.notify_one();
    }
}

/// Worker threads of one process, one per part, of which at most `cores` run at once: a
/// worker gives its core up at each meeting and waits for one after it. With more parts than
/// cores, a core whose worker reached the meeting runs one that has not, so a core slowed by
/// other load holds the run back by less than a whole part.
pub struct Threads<M, R> {
    parts: usize,
    cores: Cores,
    barrier: Barrier,
    /// mail[from * parts + to]
    mail: Vec<Mutex<Vec<M>>>,
    reports: Vec<Mutex<Option<R>>>,
}

impl<M, R> Threads<M, R> {
    pub fn new(parts: usize, cores: usize) -> Self {
        Threads {
            parts,
            cores: Cores::new(cores.clamp(1, parts.max(1))),
            barrier: Barrier::new(parts),
            mail: (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect(),
            reports: (0..parts).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn wait(&self) {
        self.cores.give();
        self.barrier.wait();
        self.cores.take();
    }

    /// Core-seconds the cores stood idle while workers waited for each other.
    pub fn waited_s(&self) -> f64 {
        lock(&self.cores.state).idle_ns as f64 * 1e-9
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
        self.wait();
        Ok((0..self.parts)
            .flat_map(|from| std::mem::take(&mut *lock(&self.mail[from * self.parts + me])))
            .collect())
    }

    fn gather(&self, me: usize, report: R) -> Result<Vec<R>, TransportError> {
        *lock(&self.reports[me]) = Some(report);
        self.wait();
        // Nobody writes a report again before every worker has passed the next exchange's
        // barrier, which it reaches only after reading these.
        Ok(self
            .reports
            .iter()
            .map(|r| lock(r).clone().expect("every worker reported"))
            .collect())
    }

    fn begin(&self) {
        self.cores.take();
    }

    fn finish(&self) {
        self.cores.give();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_exchange_mail_and_gather_reports_in_worker_order() {
        type Mail = (usize, usize);
        // Three workers on two cores.
        let fabric: Threads<Mail, usize> = Threads::new(3, 2);
        let results: Vec<(Vec<Mail>, Vec<usize>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|me| {
                    let fabric = &fabric;
                    s.spawn(move || {
                        fabric.begin();
                        let got = fabric.exchange(me, (0..3).map(|to| (me, to)).collect());
                        let reports = fabric.gather(me, me * 10);
                        fabric.finish();
                        (got.unwrap(), reports.unwrap())
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

    #[test]
    fn no_more_workers_run_at_once_than_there_are_cores() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (parts, cores) = (6, 2);
        let fabric: Threads<(), ()> = Threads::new(parts, cores);
        let (running, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for me in 0..parts {
                let (fabric, running, most) = (&fabric, &running, &most);
                s.spawn(move || {
                    fabric.begin();
                    for _ in 0..20 {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        running.fetch_sub(1, Ordering::SeqCst);
                        fabric.exchange(me, vec![(); parts]).unwrap();
                    }
                    fabric.finish();
                });
            }
        });
        assert!(most.load(Ordering::SeqCst) <= cores);
    }

    #[test]
    fn a_core_left_without_a_worker_to_run_counts_as_waiting() {
        let fabric: Threads<(), ()> = Threads::new(2, 2);
        std::thread::scope(|s| {
            for me in 0..2 {
                let fabric = &fabric;
                s.spawn(move || {
                    fabric.begin();
                    if me == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    fabric.exchange(me, vec![(), ()]).unwrap();
                    fabric.finish();
                });
            }
        });
        // Worker 1 reached the meeting at once: its core stood idle for worker 0's 50 ms.
        let waited = fabric.waited_s();
        assert!((0.045..1.0).contains(&waited), "{waited} s");
    }
}
