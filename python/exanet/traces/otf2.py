"""Import MPI traces in OTF2 (Open Trace Format 2, as Score-P writes them) and write programs as
OTF2 archives. Both need the optional `otf2` package: pip install "exanet[otf2]".

An OTF2 archive `<name>.otf2` (the anchor file) has `<name>.def` (global definitions) and a
directory `<name>/` (one event file per location) beside it. The reader takes the MPI ranks from
the group of type COMM_LOCATIONS of the MPI paradigm and reads each rank's location in order:

- MPI calls are the outermost regions of the MPI paradigm (Enter ... Leave). A rank computes
  outside them: from its first event to the Enter of its first MPI call, from each Leave of an
  MPI call to the next Enter, and from its last Leave to its last event; each such gap > 0 is a
  compute operation. An MPI event outside every MPI region counts as an MPI call of no length.
- MpiSend / MpiRecv: send / recv. The blocking sends and receives of one call (MPI_Sendrecv
  records one of each) run concurrently, so two or more become isend/irecv plus waits.
- MpiIsend: isend; MpiIrecvRequest: irecv, whose source, size and tag come from its completion
  (MpiIrecv). Request ids count from 0 on each rank in creation order.
- MpiIsendComplete / MpiIrecv: a wait for that request, after the call's other operations; a call
  named MPI_Waitall after which no request is outstanding is one waitall instead. A receive whose
  MpiRequestCancelled comes is dropped.
- MpiCollectiveEnd: a collective (see COLLECTIVES: every MPI collective Score-P records), its
  `bytes` read from the sizes by Score-P's convention (`_collective_bytes`). GATHERV, SCATTERV
  and ALLGATHERV become gather, scatter and allgather of one block per rank: the mean (rounded)
  of the blocks the members record, as exanet's collectives move the same block for every rank;
  ALLTOALLW becomes alltoallv, REDUCE_SCATTER_BLOCK reduce_scatter. The communicator creation
  and release Score-P records as collectives (CREATE_HANDLE, DESTROY_HANDLE, ...) and
  collectives over MPI_COMM_SELF move no data and are skipped.
- NonBlockingCollectiveRequest / NonBlockingCollectiveComplete (MPI_Ibcast ... MPI_Wait, every
  MPI_I* collective): exanet's collectives block, so a non-blocking collective runs, blocking,
  where its completion is recorded (inside the MPI_Wait or MPI_Test call that completes it),
  read like the blocking one. Before it runs every collective the rank requested earlier and
  has not run yet, in request order; a blocking collective counts as requested at its call. So
  every rank runs its collectives in the order it started them, the order MPI requires on each
  communicator; a collective that runs before its completion is recorded learns its sizes
  there. (A program whose ranks start non-blocking collectives of different communicators in
  different orders, which MPI allows, can wait forever in the replay.) A request never
  completed is an error naming the rank and the request.

Peers and roots are communicator ranks, translated to ranks of the job through the communicator's
group. MPI_COMM_WORLD (no parent, every rank in order) is communicator 0; every other MPI
communicator gets an id 1, 2, ... in definition order, declared (`comm`) by each member first.
Matched-probe receives, one-sided (RMA) operations, intercommunicators and cancelled sends are
refused; other events (OpenMP, I/O, metrics, probes, tests) are ignored.
"""

from __future__ import annotations

import shutil
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from exanet.errors import ConfigError
from exanet.program import (
    MAX_JOB_TIME_PS,
    MAX_MESSAGE_BYTES,
    Op,
    Program,
    check_operation_count,
)

if TYPE_CHECKING:
    import pandas as pd

TICKS_PER_S = 10**12
"""The writer's timer: picoseconds, the core's time unit, so compute times round-trip exactly."""

COLLECTIVES = {
    "BARRIER": "barrier",
    "BCAST": "bcast",
    "GATHER": "gather",
    "GATHERV": "gather",
    "SCATTER": "scatter",
    "SCATTERV": "scatter",
    "REDUCE": "reduce",
    "ALLREDUCE": "allreduce",
    "ALLGATHER": "allgather",
    "ALLGATHERV": "allgather",
    "ALLTOALL": "alltoall",
    "ALLTOALLV": "alltoallv",
    "ALLTOALLW": "alltoallv",
    "REDUCE_SCATTER": "reduce_scatter",
    "REDUCE_SCATTER_BLOCK": "reduce_scatter",
    "SCAN": "scan",
    "EXSCAN": "exscan",
}
"""OTF2 collective operations (CollectiveOp) read, and the exanet collective of each."""

_NO_DATA_COLLECTIVES = (  # communicator (and window) creation and release
    "CREATE_HANDLE",
    "DESTROY_HANDLE",
    "ALLOCATE",
    "DEALLOCATE",
    "CREATE_HANDLE_AND_ALLOCATE",
    "DESTROY_HANDLE_AND_DEALLOCATE",
)
_REFUSED_EVENTS = {
    "MpiMrecv": "matched-probe receives (MPI_Mrecv)",
    "MpiImrecvRequest": "matched-probe receives (MPI_Imrecv)",
    "MpiImrecv": "matched-probe receives (MPI_Imrecv)",
}
_AVERAGED = ("gather", "scatter", "allgather")  # one block per rank: the mean where they differ
_READ_COLLECTIVES = frozenset(COLLECTIVES.values())
_ROOTED = ("bcast", "reduce", "gather", "scatter")
_UNDEFINED_ROOT = 2**32 - 1  # OTF2_UNDEFINED_UINT32: the root of a collective without one
_MAX_TAG = 2**31 - 1  # tags are int32
_MAX_COMPUTE_NS = MAX_JOB_TIME_PS // 1000
_REGIONS = {  # exanet operation -> (MPI function, OTF2 region role) written for it
    "send": ("MPI_Send", "POINT2POINT"),
    "recv": ("MPI_Recv", "POINT2POINT"),
    "isend": ("MPI_Isend", "POINT2POINT"),
    "irecv": ("MPI_Irecv", "POINT2POINT"),
    "wait": ("MPI_Wait", "POINT2POINT"),
    "waitall": ("MPI_Waitall", "POINT2POINT"),
    "barrier": ("MPI_Barrier", "BARRIER"),
    "bcast": ("MPI_Bcast", "COLL_ONE2ALL"),
    "reduce": ("MPI_Reduce", "COLL_ALL2ONE"),
    "gather": ("MPI_Gather", "COLL_ALL2ONE"),
    "scatter": ("MPI_Scatter", "COLL_ONE2ALL"),
    "reduce_scatter": ("MPI_Reduce_scatter", "COLL_ALL2ALL"),
    "scan": ("MPI_Scan", "COLL_OTHER"),
    "exscan": ("MPI_Exscan", "COLL_OTHER"),
    "allreduce": ("MPI_Allreduce", "COLL_ALL2ALL"),
    "allgather": ("MPI_Allgather", "COLL_ALL2ALL"),
    "alltoall": ("MPI_Alltoall", "COLL_ALL2ALL"),
    "alltoallv": ("MPI_Alltoallv", "COLL_ALL2ALL"),
}


def archive_paths(anchor: str | Path) -> tuple[Path, Path, Path]:
    """The parts of the OTF2 archive `<name>.otf2`: the anchor file, `<name>.def` and `<name>/`."""
    anchor = Path(anchor)
    return anchor, anchor.with_suffix(".def"), anchor.with_suffix("")


def remove_archive(anchor: str | Path) -> None:
    """Remove the OTF2 archive `<name>.otf2` (its three parts) if it exists."""
    anchor_file, definitions, events = archive_paths(anchor)
    anchor_file.unlink(missing_ok=True)
    definitions.unlink(missing_ok=True)
    shutil.rmtree(events, ignore_errors=True)


def _import_otf2(key: str, path: Path) -> ModuleType:
    try:
        import otf2
    except ImportError:
        raise ConfigError(
            key, str(path), 'the optional OTF2 reader: pip install "exanet[otf2]"'
        ) from None
    return otf2


# --- reading --------------------------------------------------------------------------------


def read_otf2(path: str | Path, ranks: int | None = None, *, key: str = "trace") -> Program:
    """The program of the OTF2 archive whose anchor file is `path` (`<name>.otf2`); `ranks`, if
    given, must be its number of MPI ranks. Not validated: call `validate` on the result."""
    path = Path(path)
    otf2 = _import_otf2(key, path)
    if not path.is_file():
        raise ConfigError(key, str(path), "an OTF2 archive: its anchor file <name>.otf2 (missing)")
    try:
        reader = otf2.reader.Reader(str(path))
    except Exception as exc:  # the library raises assorted types on malformed archives
        raise _unreadable(key, path, exc) from None
    with closing(reader):
        definitions = reader.definitions
        worlds = [
            group
            for group in definitions.groups
            if group.group_type == otf2.GroupType.COMM_LOCATIONS
            and group.paradigm == otf2.Paradigm.MPI
        ]
        if len(worlds) != 1:
            raise ConfigError(
                key,
                f"{path} ({len(worlds)} groups of type COMM_LOCATIONS for MPI)",
                "an OTF2 trace of an MPI program: one such group, the locations of its ranks",
            )
        locations = list(worlds[0].members)
        if ranks is not None and len(locations) != ranks:
            raise ConfigError(key, f"{path} ({len(locations)} ranks)", f"a trace of {ranks} ranks")
        if reader.timer_resolution < 1:
            raise ConfigError(
                key, f"{path}: timer resolution {reader.timer_resolution}", "ticks per second >= 1"
            )
        context = _Context(otf2, definitions, locations, key, path, reader.timer_resolution)
        readers = {location: _RankReader(context, r) for r, location in enumerate(locations)}
        events = iter(reader.events(locations))
        while True:
            try:
                location, event = next(events)
            except StopIteration:
                break
            except Exception as exc:  # as above: a damaged event file
                raise _unreadable(key, path, exc) from None
            readers[location].event(event)
        programs = [rank_reader.finish() for rank_reader in readers.values()]
    _average_blocks(programs, [list(range(len(locations))), *context.declared])
    for k, members in reversed(list(enumerate(context.declared, start=1))):
        for rank in members:
            programs[rank].insert(0, Op("comm", communicator=k))
    return Program.from_ops(programs, len(locations))


def _unreadable(key: str, path: Path, exc: Exception) -> ConfigError:
    return ConfigError(key, str(path), f"a readable OTF2 archive ({type(exc).__name__}: {exc})")


class _Context:
    """What every rank's reader shares: the MPI communicators, the clock and where errors go."""

    def __init__(
        self, otf2: ModuleType, definitions: Any, locations: list, key: str, path: Path, ticks: int
    ) -> None:
        self.key, self.path = key, path
        self.operations = 0  # of every rank, the MPI call in progress included
        self.mpi = otf2.Paradigm.MPI
        self.ticks_per_s = ticks
        self.offset_ticks = definitions.clock_properties.global_offset
        rank_of = {location: rank for rank, location in enumerate(locations)}
        # Comm -> the job ranks of its members in communicator-rank order; None for MPI_COMM_SELF
        self.members: dict[Any, list[int] | None] = {}
        # Comm -> {job rank: its rank in the communicator}, and in exanet's order (by job rank)
        self.comm_ranks: dict[Any, dict[int, int]] = {}
        self.exanet_ranks: dict[Any, dict[int, int]] = {}
        self.ids: dict[Any, int] = {}  # Comm -> exanet communicator
        self.declared: list[list[int]] = []  # members of communicators 1, 2, ...
        for comm in definitions.comms:
            if isinstance(comm, otf2.definitions.InterComm) or comm.group.paradigm != self.mpi:
                continue
            group = comm.group
            if group.group_type == otf2.GroupType.COMM_SELF:
                self.members[comm] = None
                continue
            members = [rank_of[location] for location in group.members]
            self.members[comm] = members
            self.comm_ranks[comm] = {rank: i for i, rank in enumerate(members)}
            self.exanet_ranks[comm] = {rank: i for i, rank in enumerate(sorted(members))}
            if comm.parent is None and members == list(range(len(locations))):
                self.ids[comm] = 0
            else:
                self.declared.append(sorted(members))
                self.ids[comm] = len(self.declared)

    def ns(self, ticks: int) -> float:
        return ticks * 10**9 / self.ticks_per_s


@dataclass
class _Irecv:
    """An irecv: its source, size and tag come with its completion (MpiIrecv)."""

    request: int
    op: Op | None = None
    cancelled: bool = False


@dataclass(eq=False)
class _Icoll:
    """A non-blocking collective (OTF2 `request` id, started by the MPI call `call`): what it is
    comes with its completion (NonBlockingCollectiveComplete); `op` stays None for one that
    moves no data."""

    request: int
    call: str
    completed: bool = False
    op: Op | None = None


class _RankReader:
    """Turns one rank's events, in order, into its operations."""

    def __init__(self, context: _Context, rank: int) -> None:
        self.context, self.rank = context, rank
        self.ops: list[Op | _Irecv | _Icoll] = []
        self.call: list[Op | _Irecv | _Icoll] = []  # operations of the MPI call in progress
        self.call_name = ""
        self.completed: list[int] = []  # requests completed in the call in progress
        self.depth = 0  # nesting of MPI regions
        self.idle_since: int | None = None  # tick of the last Leave of an MPI call
        self.last_tick = 0
        self.requests: dict[int, int | _Irecv] = {}  # OTF2 request id -> isend request / irecv
        self.outstanding: set[int] = set()
        self.next_request = 0
        self.icolls: dict[int, _Icoll] = {}  # OTF2 request id -> collective not completed yet
        self.not_run: list[_Icoll] = []  # requested collectives not placed yet, in request order
        self.kind = ""  # the event being read, for errors
        self.handlers = {
            "MpiSend": self._send,
            "MpiRecv": self._recv,
            "MpiIsend": self._isend,
            "MpiIrecvRequest": self._irecv_request,
            "MpiIsendComplete": self._isend_complete,
            "MpiIrecv": self._irecv_complete,
            "MpiRequestCancelled": self._cancelled,
            "MpiCollectiveEnd": self._collective,
            "NonBlockingCollectiveRequest": self._icoll_request,
            "NonBlockingCollectiveComplete": self._icoll_complete,
        }

    def error(self, value: str, expected: str) -> ConfigError:
        where = f"{self.context.path} rank {self.rank}, {self.kind} at "
        ns = self.context.ns(self.last_tick - self.context.offset_ticks)
        return ConfigError(self.context.key, f"{where}{ns:g} ns: {value}", expected)

    def event(self, event: Any) -> None:
        before = len(self.ops) + len(self.call)
        self._read(event)
        self.context.operations += len(self.ops) + len(self.call) - before
        check_operation_count(
            self.context.operations, self.context.key, f"{self.context.path} up to rank {self.rank}"
        )

    def _read(self, event: Any) -> None:
        self.kind = type(event).__name__
        if self.idle_since is None:
            self.idle_since = event.time
        self.last_tick = event.time
        if self.kind in ("Enter", "Leave"):
            if event.region.paradigm == self.context.mpi:
                if self.kind == "Enter":
                    self._enter(event)
                else:
                    self._leave(event)
            return
        if self.kind in _REFUSED_EVENTS or self.kind.startswith("Rma"):
            what = _REFUSED_EVENTS.get(self.kind, "one-sided communication (MPI RMA)")
            raise self.error(self.kind, f"an event exanet reads: it has no {what}")
        handler = self.handlers.get(self.kind)
        if handler is None:
            return
        if self.depth == 0:  # not inside an MPI region: a call of its own, of no length
            self._begin(event.time, "")
            handler(event)
            self._end(event.time)
        else:
            handler(event)

    def _enter(self, event: Any) -> None:
        if self.depth == 0:
            self._begin(event.time, event.region.name)
        self.depth += 1

    def _leave(self, event: Any) -> None:
        if self.depth == 0:
            raise self.error(event.region.name, "a Leave after the Enter of its region")
        self.depth -= 1
        if self.depth == 0:
            self._end(event.time)

    def _begin(self, tick: int, name: str) -> None:
        self._compute(tick)
        self.call, self.call_name, self.completed = [], name, []

    def _compute(self, tick: int) -> None:
        if tick > self.idle_since:
            ns = self.context.ns(tick - self.idle_since)
            if ns > _MAX_COMPUTE_NS:
                raise self.error(f"compute of {ns:g} ns", f"at most {_MAX_COMPUTE_NS} ns (10^6 s)")
            self.ops.append(Op("compute", compute_ns=ns))

    def _end(self, tick: int) -> None:
        blocking = [
            i for i, op in enumerate(self.call) if isinstance(op, Op) and op.op in ("send", "recv")
        ]
        if len(blocking) > 1:  # e.g. MPI_Sendrecv: one after the other could deadlock
            for i in blocking:
                request = self._new_request()
                self.call[i] = self.call[i]._replace(op=f"i{self.call[i].op}", request=request)
                self.completed.append(request)
        self.ops += self.call
        if self.call_name == "MPI_Waitall" and not self.outstanding:
            self.ops.append(Op("waitall"))
        else:
            self.ops += [Op("wait", request=request) for request in self.completed]
        self.idle_since = tick

    def finish(self) -> list[Op]:
        if self.depth > 0:  # the trace stops inside an MPI call
            self._end(self.last_tick)
        elif self.idle_since is not None:
            self._compute(self.last_tick)
        if self.icolls:  # the first in request order
            icoll = next(iter(self.icolls.values()))
            raise ConfigError(
                self.context.key,
                f"{self.context.path} rank {self.rank}: non-blocking collective request "
                f"{icoll.request} of {icoll.call}",
                "a NonBlockingCollectiveComplete completing each NonBlockingCollectiveRequest "
                "(exanet runs a non-blocking collective where it completes)",
            )
        ops = []
        for op in self.ops:
            if isinstance(op, _Icoll):
                if op.op is None:  # it moves no data
                    continue
                op = op.op
            elif isinstance(op, _Irecv):
                if op.cancelled:
                    continue
                if op.op is None:
                    raise ConfigError(
                        self.context.key,
                        f"{self.context.path} rank {self.rank}: irecv request {op.request}",
                        "an MpiIrecv completing each MpiIrecvRequest (or MpiRequestCancelled)",
                    )
                op = op.op
            ops.append(op)
        return ops

    def _new_request(self) -> int:
        self.next_request += 1
        return self.next_request - 1

    def _peer(self, comm: Any, rank: int) -> int:
        members = self._members(comm)
        if members is None:
            return self.rank
        if not 0 <= rank < len(members):
            raise self.error(f"rank {rank} of {comm.name}", f"a rank in 0..{len(members) - 1}")
        return members[rank]

    def _members(self, comm: Any) -> list[int] | None:
        if comm not in self.context.members:
            raise self.error(
                f"communicator {comm.name!r}",
                "an MPI intracommunicator (intercommunicators and other paradigms' "
                "communicators are not read)",
            )
        return self.context.members[comm]

    def _point_to_point(self, op: str, event: Any, peer: int, request: int = -1) -> Op:
        peer = self._peer(event.communicator, peer)
        self._check_bytes(event.msg_length)
        if event.msg_tag > _MAX_TAG:
            raise self.error(f"tag {event.msg_tag}", f"a tag in 0..{_MAX_TAG}")
        return Op(op, peer=peer, bytes=event.msg_length, tag=event.msg_tag, request=request)

    def _check_bytes(self, size: int) -> None:
        if size > MAX_MESSAGE_BYTES:
            raise self.error(f"{size} bytes", f"at most {MAX_MESSAGE_BYTES} bytes (1TiB)")

    def _send(self, event: Any) -> None:
        self.call.append(self._point_to_point("send", event, event.receiver))

    def _recv(self, event: Any) -> None:
        self.call.append(self._point_to_point("recv", event, event.sender))

    def _isend(self, event: Any) -> None:
        request = self._new_request()
        self.requests[event.request_id] = request
        self.outstanding.add(request)
        self.call.append(self._point_to_point("isend", event, event.receiver, request))

    def _irecv_request(self, event: Any) -> None:
        irecv = _Irecv(self._new_request())
        self.requests[event.request_id] = irecv
        self.outstanding.add(irecv.request)
        self.call.append(irecv)

    def _take(self, request_id: int, irecv: bool) -> Any:
        request = self.requests.get(request_id)
        if request is None or isinstance(request, _Irecv) != irecv:
            started = "an MpiIrecvRequest" if irecv else "an MpiIsend"
            raise self.error(f"request {request_id}", f"a request started by {started} before")
        del self.requests[request_id]
        self.outstanding.discard(request.request if irecv else request)
        return request

    def _isend_complete(self, event: Any) -> None:
        self.completed.append(self._take(event.request_id, irecv=False))

    def _irecv_complete(self, event: Any) -> None:
        irecv = self._take(event.request_id, irecv=True)
        irecv.op = self._point_to_point("irecv", event, event.sender, irecv.request)
        self.completed.append(irecv.request)

    def _cancelled(self, event: Any) -> None:
        if not isinstance(self.requests.get(event.request_id), _Irecv):
            raise self.error(f"request {event.request_id}", "a cancelled receive (not a send)")
        self._take(event.request_id, irecv=True).cancelled = True

    def _collective(self, event: Any) -> None:
        op = self._collective_op(event)
        self._run_collectives(len(self.not_run))  # those requested before run first
        if op is not None:
            self.call.append(op)

    def _icoll_request(self, event: Any) -> None:
        if event.request_id in self.icolls or event.request_id in self.requests:
            raise self.error(
                f"request {event.request_id}", "a request id not held by an outstanding request"
            )
        icoll = _Icoll(event.request_id, self.call_name or "no MPI call")
        self.icolls[event.request_id] = icoll
        self.not_run.append(icoll)

    def _icoll_complete(self, event: Any) -> None:
        icoll = self.icolls.pop(event.request_id, None)
        if icoll is None:
            raise self.error(
                f"request {event.request_id}",
                "a request started by a NonBlockingCollectiveRequest before",
            )
        icoll.op, icoll.completed = self._collective_op(event), True
        if icoll in self.not_run:  # it runs here, after those requested before it
            self._run_collectives(self.not_run.index(icoll) + 1)

    def _run_collectives(self, count: int) -> None:
        """Place the first `count` requested collectives not placed yet, in request order;
        those not completed yet learn what they are when they complete."""
        self.call += self.not_run[:count]
        del self.not_run[:count]

    def _collective_op(self, event: Any) -> Op | None:
        """The exanet collective of an MpiCollectiveEnd or NonBlockingCollectiveComplete; None
        for one that moves no data."""
        name = str(event.collective_op).rsplit(".", 1)[-1]
        if name in _NO_DATA_COLLECTIVES:
            return None
        if name not in COLLECTIVES:
            raise self.error(
                f"collective {name}", f"a collective exanet has: {', '.join(COLLECTIVES)}"
            )
        op = COLLECTIVES[name]
        comm = event.communicator
        members = self._members(comm)
        if members is None:
            return None
        me = self.context.comm_ranks[comm].get(self.rank)
        if me is None:
            raise self.error(f"communicator {comm.name!r}", "a communicator this rank belongs to")
        root = -1
        if op in _ROOTED:  # a rank of the communicator, counted in exanet's order (by job rank)
            root = self.context.exanet_ranks[comm][self._peer(comm, event.root)]
        size = _collective_bytes(name, event.size_sent, event.size_received, len(members), me)
        self._check_bytes(size)
        return Op(op, peer=root, bytes=size, communicator=self.context.ids[comm])


def _collective_bytes(name: str, sent: int, received: int, ranks: int, me: int) -> int:
    """An exanet collective's `bytes` from the sizes Score-P records on one rank for the OTF2
    collective `name` (`ranks` N in the communicator, `me` this rank's rank in it).

    Score-P's convention (its scorep_mpi_coll byte counts, the same for the blocking,
    non-blocking and persistent forms), with B the block of one rank:

    - BARRIER: 0 sent, 0 received.
    - BCAST: the root N·B sent, B received; the others 0, B.
    - SCATTER: as BCAST; an in-place root (N - 1)·B, 0. SCATTERV: the root the sum of the
      blocks sent and its own received, the others 0 and their own; an in-place root the sum
      but its own, 0.
    - GATHER and REDUCE: the root B sent, N·B received, in place 0, (N - 1)·B; the others B, 0.
      GATHERV: the root its own block sent and the sum received, in place 0 and the sum but its
      own; the others their own, 0.
    - ALLREDUCE, ALLGATHER, ALLTOALL: N·B both (B to each rank for ALLTOALL); ALLGATHERV: N
      times its own block sent, the sum received.
    - ALLTOALLV, ALLTOALLW: all it sends, all it receives.
    - REDUCE_SCATTER, REDUCE_SCATTER_BLOCK: the input buffer S (n blocks) sent, n times its own
      block received.
    - SCAN: (N - me)·B sent, (me + 1)·B received, in place (N - me - 1)·B and me·B; EXSCAN
      always as an in-place SCAN.

    Read back: a rooted collective's block is what a rank sends to or receives from the root,
    and an in-place root's the root's total over N - 1 (so GATHERV and SCATTERV blocks are each
    rank's own; `_average_blocks` makes them one); ALLREDUCE, ALLGATHER(V), ALLTOALL the sent
    bytes over N; ALLTOALLV and REDUCE_SCATTER the sent bytes; SCAN the sum of both over N + 1,
    or over N - 1 where the two are not in the ratio a SCAN records without MPI_IN_PLACE.
    MPI_IN_PLACE in ALLREDUCE, ALLGATHER(V), ALLTOALL and REDUCE_SCATTER records the same
    sizes less this rank's own block, which the sizes cannot tell apart: such a collective
    reads one block per N (ALLREDUCE ...) or one block (REDUCE_SCATTER) short.
    """
    others = max(ranks - 1, 1)
    if name in ("GATHER", "GATHERV", "REDUCE"):
        return sent if sent else received // others
    if name in ("BCAST", "SCATTER", "SCATTERV"):
        return received if received else sent // others
    if name in ("ALLTOALLV", "ALLTOALLW", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"):
        return sent
    if name == "SCAN" and received * (ranks - me) == sent * (me + 1):
        return (sent + received) // (ranks + 1)
    if name in ("SCAN", "EXSCAN"):
        return (sent + received) // others
    return sent // ranks  # BARRIER, ALLREDUCE, ALLGATHER, ALLGATHERV, ALLTOALL


def _collective_sizes(op: str, size: int, ranks: int, me: int, root: int) -> tuple[int, int]:
    """(sent, received) as Score-P records them on communicator rank `me` (of `ranks`) for the
    collective the writer records for the exanet collective `op`, without MPI_IN_PLACE: the
    inverse of `_collective_bytes`. reduce_scatter is an MPI_Reduce_scatter whose blocks split
    the buffer evenly, the first S mod N one byte larger."""
    if op in ("bcast", "scatter"):
        return (ranks * size if me == root else 0), size
    if op in ("reduce", "gather"):
        return size, (ranks * size if me == root else 0)
    if op == "alltoallv":
        return size, size
    if op == "reduce_scatter":
        return size, ranks * (size // ranks + (me < size % ranks))
    if op == "scan":
        return (ranks - me) * size, (me + 1) * size
    if op == "exscan":
        return (ranks - me - 1) * size, me * size
    return ranks * size, ranks * size


def _average_blocks(programs: list[list[Op]], members: list[list[int]]) -> None:
    """Give each gather, scatter and allgather the mean (rounded) of the blocks its members
    read, in place: they differ where the trace has a GATHERV, SCATTERV or ALLGATHERV.
    `members[k]` are the ranks of communicator k; the i-th collective on a communicator is the
    same on each member (validate reports the traces where it is not)."""
    positions: list[dict[int, list[int]]] = []  # rank -> communicator -> its collectives
    for ops in programs:
        on: dict[int, list[int]] = {}
        for i, op in enumerate(ops):
            if op.op in _READ_COLLECTIVES:
                on.setdefault(op.communicator, []).append(i)
        positions.append(on)
    for k, ranks in enumerate(members):
        for at in zip(*(positions[r].get(k, []) for r in ranks), strict=False):
            ops = [programs[r][i] for r, i in zip(ranks, at, strict=True)]
            if ops[0].op not in _AVERAGED or any(op.op != ops[0].op for op in ops):
                continue
            mean = (sum(op.bytes for op in ops) + len(ops) // 2) // len(ops)
            for r, i in zip(ranks, at, strict=True):
                programs[r][i] = programs[r][i]._replace(bytes=mean)


# --- writing --------------------------------------------------------------------------------


def write_otf2(program: Program, path: str | Path) -> None:
    """Write `program` as the OTF2 archive whose anchor file is `path` (`<name>.otf2`; `<name>.def`
    and the directory `<name>/` are written beside it). No part of the archive may exist yet.

    Each rank is one location in a region `main`, and each operation an MPI call of no length
    with the events read_otf2 maps back to it, on a clock in picoseconds that only compute
    advances; collectives record Score-P's sizes (reduce_scatter as an MPI_Reduce_scatter, see
    `_collective_sizes`). Reading the archive back gives the same program when no two compute
    operations follow each other, none is 0 and all are whole picoseconds, when its
    communicators are 1, 2, ..., declared first on each member, when each gather, scatter and
    allgather has the same bytes on every member and no exscan runs on a communicator of one
    rank (Score-P records no bytes for it). OTF2
    records the matched source and tag of a receive and has no collective algorithms: wildcard
    receives and algorithms raise ConfigError.
    """
    path = Path(path)
    otf2 = _import_otf2("trace", path)
    if path.suffix != ".otf2":
        raise ConfigError("trace", str(path), "an OTF2 anchor file name ending in .otf2")
    if existing := [str(part) for part in archive_paths(path) if part.exists()]:
        raise ConfigError("trace", str(path), f"a new archive ({', '.join(existing)} exists)")
    ops = program.validate(str(path)).sorted()
    wildcard = ops["op"].isin(("recv", "irecv")) & ((ops["peer"] == -1) | (ops["tag"] == -1))
    refused = wildcard | (ops["algorithm"] != "")
    if refused.any():
        row = ops[refused].iloc[0]
        raise ConfigError(
            str(path),
            f"rank {row['rank']} seq {row['seq']} {row['op']}",
            "an operation OTF2 can record: no wildcard receives, no collective algorithms",
        )
    members = {0: list(range(program.ranks))}
    for k, group in ops[ops["op"] == "comm"].groupby("communicator"):
        members[int(k)] = sorted(group["rank"].tolist())
    with otf2.writer.open(
        str(path.parent), archive_name=path.stem, timer_resolution=TICKS_PER_S
    ) as trace:
        _write(otf2, trace, ops, program.ranks, members)


def _write(
    otf2: ModuleType, trace: Any, ops: pd.DataFrame, ranks: int, members: dict[int, list[int]]
) -> None:
    definitions = trace.definitions
    machine = definitions.system_tree_node("exanet")
    locations = [
        definitions.location(
            "Master thread",
            group=definitions.location_group(f"MPI Rank {r}", system_tree_parent=machine),
        )
        for r in range(ranks)
    ]
    mpi = otf2.Paradigm.MPI
    definitions.group(
        "MPI locations", group_type=otf2.GroupType.COMM_LOCATIONS, paradigm=mpi, members=locations
    )
    comms: dict[int, Any] = {}
    for k, ranks_of_k in members.items():
        name = "MPI_COMM_WORLD" if k == 0 else f"exanet communicator {k}"
        group = definitions.group(
            name,
            group_type=otf2.GroupType.COMM_GROUP,
            paradigm=mpi,
            members=[locations[r] for r in ranks_of_k],
        )
        comms[k] = definitions.comm(name, group=group, parent=comms.get(0))
    regions = {
        op: definitions.region(name, region_role=getattr(otf2.RegionRole, role), paradigm=mpi)
        for op, (name, role) in _REGIONS.items()
    }
    main = definitions.region("main")
    collective_ops = {  # MPI_Reduce_scatter -> REDUCE_SCATTER
        op: getattr(otf2.CollectiveOp, name.removeprefix("MPI_").upper())
        for op, (name, _) in _REGIONS.items()
        if op in _READ_COLLECTIVES
    }
    events = otf2.events
    world = comms[0]
    for rank, location in enumerate(locations):
        write = trace.event_writer_from_location(location)
        tick = 0
        write(events.Enter(tick, main))
        outstanding: dict[int, tuple[int, Any]] = {}  # request -> (OTF2 request id, irecv row)
        request_ids = 0
        for row in ops[ops["rank"] == rank].itertuples(index=False):
            if row.op == "compute":
                tick += round(row.compute_ns * 1000)
                continue
            if row.op == "comm":
                continue  # the communicator's group says who belongs to it
            write(events.Enter(tick, regions[row.op]))
            if row.op in ("send", "recv"):
                event = events.MpiSend if row.op == "send" else events.MpiRecv
                write(event(tick, row.peer, world, row.tag, row.bytes))
            elif row.op == "isend":
                write(events.MpiIsend(tick, row.peer, world, row.tag, row.bytes, request_ids))
                outstanding[row.request] = (request_ids, None)
                request_ids += 1
            elif row.op == "irecv":
                write(events.MpiIrecvRequest(tick, request_ids))
                outstanding[row.request] = (request_ids, row)
                request_ids += 1
            elif row.op in ("wait", "waitall"):
                waited = [row.request] if row.op == "wait" else list(outstanding)
                for request in waited:
                    request_id, irecv = outstanding.pop(request)
                    if irecv is None:
                        write(events.MpiIsendComplete(tick, request_id))
                    else:
                        write(
                            events.MpiIrecv(
                                tick, irecv.peer, world, irecv.tag, irecv.bytes, request_id
                            )
                        )
            else:
                ranks_of_k = members[row.communicator]
                sent, received = _collective_sizes(
                    row.op, row.bytes, len(ranks_of_k), ranks_of_k.index(rank), row.peer
                )
                root = row.peer if row.op in _ROOTED else _UNDEFINED_ROOT
                write(events.MpiCollectiveBegin(tick))
                write(
                    events.MpiCollectiveEnd(
                        tick,
                        collective_ops[row.op],
                        comms[row.communicator],
                        root,
                        sent,
                        received,
                    )
                )
            write(events.Leave(tick, regions[row.op]))
        write(events.Leave(tick, main))
