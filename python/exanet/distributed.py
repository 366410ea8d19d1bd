"""Runs across processes. Started by an MPI launcher (`mpirun -np 4 exanet run CONFIG`, `srun`,
`mpiexec`), every process runs one worker of the same simulation, holding the state of its own
part of the network only; each gets the whole summary, identical to a run in one process, and
the endpoints and links rows of its own part (`Result.write` puts them together); the command
line writes files and prints from the first process only. mpi4py does the communication:
`pip install 'exanet[mpi]'` brings it with an MPI from PyPI, or build mpi4py against the site's
MPI (docs/parallel.md)."""

from __future__ import annotations

import functools
import os
from typing import Any

from exanet.errors import ExanetError

#: Variables MPI launchers set in every process they start: the number of processes (Open MPI;
#: MPICH, Intel MPI, MVAPICH and Slurm's PMI).
SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def launched_processes() -> int:
    """How many processes the MPI launcher that started this one started (1: none)."""
    for name in SIZE_VARIABLES:
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 1


@functools.cache
def world() -> Any | None:
    """The MPI communicator of this run's processes, or None when this process runs alone."""
    processes = launched_processes()
    if processes <= 1:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise ExanetError(
            f"exanet was started by an MPI launcher ({processes} processes), but mpi4py is not "
            "installed: pip install 'exanet[mpi]', or build mpi4py against your MPI "
            "(docs/parallel.md)"
        ) from None
    comm = MPI.COMM_WORLD
    return comm if comm.Get_size() > 1 else None


def abort(code: int) -> None:
    """Ends every process of this run's MPI job with exit `code` (nothing when it runs alone):
    after a failure some processes saw and others did not, the others would wait forever."""
    comm = world()
    if comm is not None:
        comm.Abort(code)


def rank() -> int:
    """This process's index among the run's processes (0 when it runs alone)."""
    comm = world()
    return 0 if comm is None else comm.Get_rank()
