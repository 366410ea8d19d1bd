//! Runs across processes from Python: a [`Transport`] over an mpi4py communicator, so that the
//! processes of `mpirun -np N exanet run CONFIG` each run one worker of the same simulation.
//! exanet links no MPI library itself: mpi4py (built against the site's MPI, or installed with
//! an MPI from PyPI) does the communication, a few collective calls per window.

use exanet_core::parallel::{Transport, TransportError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

/// An mpi4py communicator (`MPI.COMM_WORLD`) as the transport of a run.
pub struct Comm {
    comm: Py<PyAny>,
    rank: usize,
    size: usize,
}

impl Comm {
    pub fn new(py: Python<'_>, comm: Py<PyAny>) -> PyResult<Comm> {
        let rank = comm.call_method0(py, "Get_rank")?.extract(py)?;
        let size = comm.call_method0(py, "Get_size")?.extract(py)?;
        Ok(Comm { comm, rank, size })
    }

    /// Calls the communicator's `method` with `arg`; its answer as one buffer per process.
    fn collective(
        &self,
        method: &str,
        arg: impl FnOnce(Python<'_>) -> PyResult<Py<PyAny>>,
    ) -> Result<Vec<Vec<u8>>, TransportError> {
        Python::attach(|py| -> PyResult<Vec<Vec<u8>>> {
            let answer = self.comm.call_method1(py, method, (arg(py)?,))?;
            answer
                .bind(py)
                .try_iter()?
                .map(|item| Ok(item?.cast::<PyBytes>()?.as_bytes().to_vec()))
                .collect()
        })
        .map_err(|e| TransportError(format!("MPI {method} failed on process {}: {e}", self.rank)))
    }
}

impl Transport for Comm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn alltoall(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        self.collective("alltoall", |py| {
            let buffers = outgoing.iter().map(|b| PyBytes::new(py, b));
            Ok(PyList::new(py, buffers)?.into_any().unbind())
        })
    }

    fn allgather(&self, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, TransportError> {
        self.collective("allgather", |py| {
            Ok(PyBytes::new(py, &mine).into_any().unbind())
        })
    }
}
