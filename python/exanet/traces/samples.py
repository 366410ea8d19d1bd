"""The generator programs behind the sample traces in exanet/data/traces.

`python -m exanet.traces.samples [DIRECTORY]` writes them again (default: the package's own
data/traces; ring_exchange.otf2 needs the otf2 extra). halo.goal is written by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

from exanet.program import (
    Program,
    allreduce,
    compute,
    irecv,
    isend,
    recv,
    send,
    wait,
    waitall,
)
from exanet.traces.chakra import write_chakra
from exanet.traces.exanet_format import write_trace
from exanet.traces.otf2 import remove_archive, write_otf2

SAMPLES_DIRECTORY = Path(__file__).resolve().parent.parent / "data" / "traces"


def pingpong(rank, size, bytes="4KiB", iterations=3):
    """Rank 0 and rank 1 bounce one message back and forth; other ranks idle."""
    for _ in range(iterations):
        if rank == 0:
            yield send(1, bytes)
            yield recv(1, bytes, tag=0)
        elif rank == 1:
            yield recv(0, bytes, tag=0)
            yield send(0, bytes)


def ring_allreduce(rank, size, bytes=65536, reduce_bytes_per_ns=10):
    """Ring allreduce by hand: size-1 reduce-scatter steps then size-1 allgather steps, each
    passing one chunk to the right neighbour; reduce-scatter steps also reduce the chunk."""
    chunk_bytes = bytes // size
    left, right = (rank - 1) % size, (rank + 1) % size
    for step in range(2 * (size - 1)):
        receive = yield irecv(left, chunk_bytes, tag=step)
        yield isend(right, chunk_bytes, tag=step)
        yield wait(receive)
        if step < size - 1:
            yield compute(chunk_bytes / reduce_bytes_per_ns)
    yield waitall()


def train_step(rank, size):
    """A data-parallel training step: forward compute, a pipeline exchange with the neighbours,
    backward compute, then a gradient allreduce."""
    yield compute("5us")
    incoming = yield irecv((rank - 1) % size, "16KiB", tag=7)
    yield isend((rank + 1) % size, "16KiB", tag=7)
    yield compute("8us")
    yield wait(incoming)
    yield allreduce("1MiB")
    yield compute("2us")
    yield waitall()


def ring_exchange(rank, size, bytes="8KiB", iterations=2):
    """Each iteration computes, passes a message to the right around the ring and sums a small
    result over every rank (an allreduce)."""
    left, right = (rank - 1) % size, (rank + 1) % size
    for step in range(iterations):
        yield compute("3us")
        incoming = yield irecv(left, bytes, tag=step)
        yield isend(right, bytes, tag=step)
        yield wait(incoming)
        yield allreduce("1KiB")
    yield waitall()
    yield compute("500ns")


def write_samples(directory: str | Path = SAMPLES_DIRECTORY) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_trace(Program.from_generator(pingpong, 2), directory / "pingpong.csv")
    write_trace(Program.from_generator(ring_allreduce, 4), directory / "ring_allreduce.parquet")
    write_chakra(Program.from_generator(train_step, 2), directory / "train_step")
    remove_archive(directory / "ring_exchange.otf2")  # OTF2 archives are not overwritten
    write_otf2(Program.from_generator(ring_exchange, 4), directory / "ring_exchange.otf2")


if __name__ == "__main__":
    write_samples(*sys.argv[1:2])
