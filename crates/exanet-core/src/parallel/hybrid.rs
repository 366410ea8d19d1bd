//! Worker threads inside each of several processes (`threads = T` under `mpirun -np P`: P x T
//! workers). The threads of a process meet at a barrier; its first thread then exchanges for all
//! of them with the other processes, through the process-level [`Ranks`], and hands the mail
//! out. Mail between two threads of one process never leaves memory.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, Mutex, MutexGuard};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Fabric, Ranks, TransportError};

/// The fabric of the threads of one process of a run across processes. Worker w of the run
/// is thread w % threads of process w / threads; the fabric's `me` is the thread's index in
/// its process.
pub struct Hybrid<'a, M, R> {
    ranks: &'a Ranks<'a>,
    threads: usize,
    barrier: Barrier,
    /// Each thread's outboxes, one per worker of the run.
    outgoing: Vec<Mutex<Vec<M>>>,
    /// Each thread's mail: (the worker it came from, the message).
    incoming: Vec<Mutex<Vec<(usize, M)>>>,
    reports: Vec<Mutex<Option<R>>>,
    /// Every worker's report of the last gather, in worker order.
    gathered: Mutex<Vec<R>>,
    /// Why the last collective failed (every thread returns it).
    failure: Mutex<Option<TransportError>>,
    waited_ns: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked has already failed the run; its data is not read again.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<'a, M, R> Hybrid<'a, M, R> {
    pub fn new(ranks: &'a Ranks<'a>, threads: usize) -> Self {
        Hybrid {
            ranks,
            threads,
            barrier: Barrier::new(threads),
            outgoing: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            incoming: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            reports: (0..threads).map(|_| Mutex::new(None)).collect(),
            gathered: Mutex::new(Vec::new()),
            failure: Mutex::new(None),
            waited_ns: AtomicU64::new(0),
        }
    }

    fn wait(&self) {
        let started = Instant::now();
        self.barrier.wait();
        self.waited_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Seconds this process's threads spent waiting for each other and for the other
    /// processes, all added up.
    pub fn waited_s(&self) -> f64 {
        self.waited_ns.load(Ordering::Relaxed) as f64 * 1e-9 + self.ranks.waited_s()
    }

    /// The first worker of this process.
    fn first(&self) -> usize {
        self.ranks.rank() * self.threads
    }

    /// After the threads met: the last collective's failure, for every thread.
    fn outcome(&self) -> Result<(), TransportError> {
        lock(&self.failure).clone().map_or(Ok(()), Err)
    }
}

impl<M, R> Hybrid<'_, M, R>
where
    M: Serialize + DeserializeOwned + Send,
    R: Serialize + DeserializeOwned + Send + Clone,
{
    /// The first thread's part of an exchange: delivers the process's own mail, sends the rest
    /// to the other processes, and delivers what they sent.
    fn exchange_for_all(&self) -> Result<(), TransportError> {
        let processes = self.ranks.size();
        let first = self.first();
        let mut bundles: Vec<Vec<(u32, u32, M)>> = (0..processes).map(|_| Vec::new()).collect();
        for thread in 0..self.threads {
            let outboxes = std::mem::take(&mut *lock(&self.outgoing[thread]));
            for (to, message) in outboxes.into_iter().enumerate() {
                let from = first + thread;
                if to / self.threads == self.ranks.rank() {
                    lock(&self.incoming[to - first]).push((from, message));
                } else {
                    bundles[to / self.threads].push((from as u32, to as u32, message));
                }
            }
        }
        let received = Fabric::<Vec<(u32, u32, M)>, ()>::exchange(self.ranks, 0, bundles)?;
        for (from, to, message) in received.into_iter().flatten() {
            lock(&self.incoming[to as usize - first]).push((from as usize, message));
        }
        Ok(())
    }
}

impl<M, R> Fabric<M, R> for Hybrid<'_, M, R>
where
    M: Serialize + DeserializeOwned + Send,
    R: Serialize + DeserializeOwned + Send + Clone,
{
    fn parts(&self) -> usize {
        self.threads * self.ranks.size()
    }

    fn exchange(&self, me: usize, outgoing: Vec<M>) -> Result<Vec<M>, TransportError> {
        *lock(&self.outgoing[me]) = outgoing;
        self.wait();
        if me == 0 {
            *lock(&self.failure) = self.exchange_for_all().err();
        }
        self.wait();
        self.outcome()?;
        let mut mail = std::mem::take(&mut *lock(&self.incoming[me]));
        // In worker order, as the threads of one process get it.
        mail.sort_by_key(|&(from, _)| from);
        Ok(mail.into_iter().map(|(_, message)| message).collect())
    }

    fn gather(&self, me: usize, report: R) -> Result<Vec<R>, TransportError> {
        *lock(&self.reports[me]) = Some(report);
        self.wait();
        if me == 0 {
            let mine: Vec<R> = self
                .reports
                .iter()
                .map(|r| lock(r).take().expect("every thread reported"))
                .collect();
            *lock(&self.failure) = match self.ranks.share(&mine) {
                Ok(all) => {
                    *lock(&self.gathered) = all.into_iter().flatten().collect();
                    None
                }
                Err(e) => Some(e),
            };
        }
        self.wait();
        self.outcome()?;
        // Nobody gathers again before every thread has passed the next exchange's barriers,
        // which it reaches only after reading this.
        Ok(lock(&self.gathered).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::{Loopback, Transport};

    #[test]
    fn threads_of_processes_exchange_mail_and_gather_reports_in_worker_order() {
        let (processes, threads) = (2, 3);
        let workers = processes * threads;
        let world = Loopback::world(processes);
        type Mail = (usize, usize);
        let results: Vec<(usize, Vec<Mail>, Vec<usize>)> = std::thread::scope(|s| {
            let handles: Vec<_> = world
                .iter()
                .map(|t| {
                    s.spawn(move || {
                        let ranks = Ranks::new(t as &dyn Transport);
                        let fabric: Hybrid<Mail, usize> = Hybrid::new(&ranks, threads);
                        std::thread::scope(|inner| {
                            let handles: Vec<_> = (0..threads)
                                .map(|me| {
                                    let fabric = &fabric;
                                    let worker = t.rank() * threads + me;
                                    inner.spawn(move || {
                                        let mail = (0..workers).map(|to| (worker, to)).collect();
                                        let got = fabric.exchange(me, mail).unwrap();
                                        let reports = fabric.gather(me, worker * 10).unwrap();
                                        (worker, got, reports)
                                    })
                                })
                                .collect();
                            handles
                                .into_iter()
                                .map(|h| h.join().unwrap())
                                .collect::<Vec<_>>()
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        assert_eq!(results.len(), workers);
        for (worker, got, reports) in results {
            let expected: Vec<Mail> = (0..workers).map(|from| (from, worker)).collect();
            assert_eq!(got, expected, "worker {worker}'s mail, in worker order");
            assert_eq!(reports, (0..workers).map(|w| w * 10).collect::<Vec<_>>());
        }
    }
}
