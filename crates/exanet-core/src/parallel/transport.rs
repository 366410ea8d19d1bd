//! Runs split across processes (MPI ranks, docs/architecture.md §4): the same windows as threads,
//! with each process one worker. Processes share no memory, so what crosses them travels as bytes
//! (bincode) through a [`Transport`], which needs only two collective operations: an all-to-all
//! exchange and an all-gather. The Python layer provides one over mpi4py (so exanet itself links no
//! MPI library); [`Loopback`] connects the threads of one process the same way, so that the whole
//! path, encoding included, is tested without MPI.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::Fabric;

/// Why the processes of a run could not go on together: a collective operation failed, or a
/// process sent what this one cannot read. The others may be waiting in a collective this one
/// will never join, so a launcher's job should end on it (the command line aborts the job).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the processes of the run could not go on together: {0}")]
pub struct TransportError(pub String);

/// The processes of a distributed run, seen from one of them.
pub trait Transport: Sync {
    /// This process's index, from 0.
    fn rank(&self) -> usize;
    /// The number of processes.
    fn size(&self) -> usize;
    /// Sends `outgoing[r]` to process r (every process calls it); returns what each process
    /// sent this one, in rank order.
    fn alltoall(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError>;
    /// Every process's `mine`, in rank order (every process calls it).
    fn allgather(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError>;
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::serialize(value).expect("simulation state encodes")
}

/// What every process sent, decoded.
fn decode_all<T: DeserializeOwned>(buffers: &[Vec<u8>]) -> Result<Vec<T>, TransportError> {
    buffers
        .iter()
        .enumerate()
        .map(|(from, bytes)| {
            bincode::deserialize(bytes).map_err(|e| {
                TransportError(format!(
                    "process {from} sent state this process cannot decode ({e}): every process \
                     must run the same exanet build"
                ))
            })
        })
        .collect()
}

/// The fabric of a run over a [`Transport`]: one worker per process.
pub struct Ranks<'a> {
    transport: &'a dyn Transport,
    waited_ns: AtomicU64,
}

impl<'a> Ranks<'a> {
    pub fn new(transport: &'a dyn Transport) -> Self {
        Ranks {
            transport,
            waited_ns: AtomicU64::new(0),
        }
    }

    /// This process's index, from 0.
    pub fn rank(&self) -> usize {
        self.transport.rank()
    }

    /// The number of processes.
    pub fn size(&self) -> usize {
        self.transport.size()
    }

    /// Seconds this process spent in collective operations (waiting for the others included).
    pub fn waited_s(&self) -> f64 {
        self.waited_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }

    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        self.waited_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out
    }

    /// Every process's `mine`, in rank order.
    pub fn share<T: Serialize + DeserializeOwned>(
        &self,
        mine: &T,
    ) -> Result<Vec<T>, TransportError> {
        decode_all(&self.timed(|| self.transport.allgather(encode(mine)))?)
    }
}

impl<M, R> Fabric<M, R> for Ranks<'_>
where
    M: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
{
    fn parts(&self) -> usize {
        self.transport.size()
    }

    fn exchange(&self, _me: usize, outgoing: Vec<M>) -> Result<Vec<M>, TransportError> {
        let bytes = outgoing.iter().map(encode).collect();
        decode_all(&self.timed(|| self.transport.alltoall(bytes))?)
    }

    fn gather(&self, _me: usize, report: R) -> Result<Vec<R>, TransportError> {
        self.share(&report)
    }
}

/// Processes stood in for by threads of one process (for tests): the same collective
/// operations, through shared memory.
pub struct Loopback {
    rank: usize,
    world: Arc<LoopbackWorld>,
}

struct LoopbackWorld {
    size: usize,
    barrier: Barrier,
    /// mail[from * size + to]
    mail: Vec<Mutex<Vec<u8>>>,
}

impl Loopback {
    /// One transport per process of a world of `size`, in rank order.
    pub fn world(size: usize) -> Vec<Loopback> {
        let world = Arc::new(LoopbackWorld {
            size,
            barrier: Barrier::new(size),
            mail: (0..size * size).map(|_| Mutex::new(Vec::new())).collect(),
        });
        (0..size)
            .map(|rank| Loopback {
                rank,
                world: Arc::clone(&world),
            })
            .collect()
    }
}

impl Transport for Loopback {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.world.size
    }

    fn alltoall(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        let w = &self.world;
        for (to, bytes) in outgoing.into_iter().enumerate() {
            *w.mail[self.rank * w.size + to]
                .lock()
                .expect("no rank panicked") = bytes;
        }
        w.barrier.wait();
        let incoming = (0..w.size)
            .map(|from| {
                std::mem::take(&mut *w.mail[from * w.size + self.rank].lock().expect("no panic"))
            })
            .collect();
        // Nobody writes the next round's mail before everyone has read this one's.
        w.barrier.wait();
        Ok(incoming)
    }

    fn allgather(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        self.alltoall(vec![mine; self.world.size])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ranks_exchange_and_gather_typed_values_in_rank_order() {
        let world = Loopback::world(3);
        type Got = (Vec<(u32, u32)>, Vec<String>);
        let results: Vec<Got> = std::thread::scope(|s| {
            let handles: Vec<_> = world
                .iter()
                .map(|t| {
                    s.spawn(move || {
                        let fabric = Ranks::new(t);
                        let me = t.rank() as u32;
                        let got: Vec<(u32, u32)> = Fabric::<(u32, u32), String>::exchange(
                            &fabric,
                            t.rank(),
                            (0..3).map(|to| (me, to)).collect(),
                        )
                        .unwrap();
                        (got, fabric.share(&format!("rank {me}")).unwrap())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (me, (got, names)) in results.into_iter().enumerate() {
            let me = me as u32;
            assert_eq!(got, vec![(0, me), (1, me), (2, me)]);
            assert_eq!(names, vec!["rank 0", "rank 1", "rank 2"]);
        }
    }
}
