"""The [traffic] kinds beyond open-loop synthetic traffic: burst-synchronized sources,
message-passing jobs (built-in applications, Python programs, traces) with their placement, and
closed-loop latency-tolerant threads.

docs/workloads.md documents every key; the core runs the programs (crates/exanet-core/src/workload).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PlainSerializer,
    PrivateAttr,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from exanet import _core
from exanet._types import (
    U32,
    FrequencyHz,
    PositiveTimePs,
    PositiveU32,
    SizeBytes,
    TimePs,
    _Section,
)
from exanet._validation import FieldError
from exanet.errors import ConfigError, core_errors
from exanet.program import ALGORITHMS as COLLECTIVE_ALGORITHMS
from exanet.program import MAX_JOB_TIME_PS, MAX_MESSAGE_BYTES, MAX_OPERATIONS_PER_JOB, MAX_RANKS
from exanet.traffic_matrix import FORMATS as MATRIX_FORMATS
from exanet.traffic_matrix import load_matrix
from exanet.units import (
    QuantityError,
    format_size_bytes,
    parse_size_bytes,
    quantity_json_schema,
)

if TYPE_CHECKING:
    from exanet.program import Program

TrafficPattern = Literal[
    "uniform",
    "transpose",
    "shuffle",
    "bit_reverse",
    "bit_complement",
    "tornado",
    "neighbor",
    "random_permutation",
    "group_shift",
    "hotspot",
    "matrix",
]
PACKET_EXPECTED = (
    'a size such as "256B", or a mix of sizes and weights such as '
    "{16B = 0.45, 32B = 0.35, 80B = 0.2}"
)


def _parse_packet(value: Any) -> int | dict[int, float]:
    """One message size, or a mix {size: weight} (weights > 0, relative)."""
    if not isinstance(value, Mapping):
        size = parse_size_bytes(value)
        if size == 0:
            raise QuantityError("size", value, "at least 1 byte")
        return size
    if not value:
        raise QuantityError("packet mix", dict(value), PACKET_EXPECTED)
    mix: dict[int, float] = {}
    for size_text, weight in value.items():
        size = _parse_packet(size_text)
        is_number = isinstance(weight, (int, float)) and not isinstance(weight, bool)
        if not is_number or not 0 < weight <= sys.float_info.max:
            raise QuantityError(
                "packet mix",
                dict(value),
                f"a finite weight > 0 for every size; {size_text} has {weight!r}",
            )
        mix[size] = mix.get(size, 0.0) + float(weight)
    return mix


def _format_packet(value: int | dict[int, float]) -> str | dict[str, float]:
    if isinstance(value, dict):
        return {format_size_bytes(size): weight for size, weight in value.items()}
    return format_size_bytes(value)


PacketSizes = Annotated[
    int | dict[int, float],
    BeforeValidator(_parse_packet),
    PlainSerializer(_format_packet),
    WithJsonSchema(
        {
            "anyOf": [
                quantity_json_schema("size"),
                {
                    "type": "object",
                    "additionalProperties": {"type": "number", "exclusiveMinimum": 0},
                },
            ]
        }
    ),
]


class _Destinations(_Section):
    """Where messages go: a pattern, with its hotspots or traffic matrix."""

    pattern: TrafficPattern = "uniform"
    hotspot_endpoints: list[U32] = Field(
        default_factory=lambda: [0], min_length=1, description="targets of the hotspot pattern"
    )
    hotspot_fraction: Annotated[StrictFloat, Field(ge=0, le=1)] = Field(
        0.1, description="share of messages sent to the hotspot endpoints, in [0, 1]"
    )
    matrix: StrictStr | list[list[StrictFloat | StrictInt]] | None = Field(
        None,
        description="the traffic matrix of pattern matrix: "
        + MATRIX_FORMATS
        + "; each source draws destinations by its row, and the busiest row offers the load",
    )

    _matrix: dict[str, Any] | None = PrivateAttr(None)

    @field_validator("matrix", mode="before")
    @classmethod
    def _plain_matrix(cls, value: Any) -> Any:
        """A path object as its text, a NumPy array as its rows."""
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        return value.tolist() if hasattr(value, "tolist") else value

    @model_validator(mode="after")
    def _read_matrix(self) -> _Destinations:
        if self.pattern == "matrix":
            if self.matrix is None:
                raise FieldError(
                    "matrix", f'a traffic matrix for pattern = "matrix": {MATRIX_FORMATS}'
                )
            self._matrix = load_matrix(self.matrix)
        elif self.matrix is not None:
            raise FieldError("matrix", 'only with pattern = "matrix"')
        return self

    def _destinations_core(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "hotspot_endpoints": list(self.hotspot_endpoints),
            "hotspot_fraction": self.hotspot_fraction,
            "matrix": self._matrix,
        }


class _PatternTraffic(_Destinations):
    packet: PacketSizes = Field(
        "256B",
        description="payload of each message (larger than nic.mtu means segmented), or a mix "
        "of sizes drawn per message with relative weights, {16B = 0.45, 32B = 0.35, 80B = 0.2}",
    )
    fixed_points: Literal["send", "silent"] = Field(
        "send",
        description="the fixed points of a permutation pattern (transpose's diagonal, shuffle's "
        "0 and N-1): send to themselves through their router, or stay silent as in Izu et al.",
    )

    def _pattern_core(self) -> dict[str, Any]:
        packet = self.packet
        return {
            "kind": self.kind,
            **self._destinations_core(),
            "packet_bytes": (
                [{"bytes": size, "weight": weight} for size, weight in packet.items()]
                if isinstance(packet, dict)
                else packet
            ),
            "fixed_points": self.fixed_points,
        }


class SyntheticTraffic(_PatternTraffic):
    """Open-loop traffic: every endpoint injects messages by a random process and pattern."""

    kind: Literal["synthetic"] = "synthetic"
    process: Literal["bernoulli", "poisson", "on_off", "pareto_on_off"] = Field(
        "bernoulli",
        description="injection process: bernoulli (one message per slot with probability "
        "load), poisson, on_off (geometric bursts of back-to-back messages and geometric idle "
        "periods) or pareto_on_off (Pareto bursts and idle periods: a self-similar aggregate)",
    )
    load: Annotated[StrictFloat, Field(gt=0, le=1)] = Field(
        description="offered load as a fraction of the injection bandwidth, 0 < load <= 1 "
        "(the long-run fraction for the on/off processes, which need load < 1)"
    )
    burst_length: Annotated[StrictFloat | StrictInt, Field(ge=1)] | None = Field(
        None,
        description="mean messages per burst of an on/off process (required with on_off and "
        "pareto_on_off); the idle periods average burst_length (1 - load) / load slots, at "
        "least one slot for on_off, so on_off needs burst_length >= load / (1 - load)",
    )
    pareto_alpha: Annotated[StrictFloat, Field(gt=1, lt=2)] | None = Field(
        None,
        description="shape of pareto_on_off's Pareto bursts and idle periods, in (1, 2) "
        "(required there): Hurst parameter H = (3 - pareto_alpha) / 2",
    )

    def to_core(self) -> dict[str, Any]:
        on_off = {
            key: float(value)
            for key, value in (
                ("burst_length", self.burst_length),
                ("pareto_alpha", self.pareto_alpha),
            )
            if value is not None
        }
        return {**self._pattern_core(), "process": self.process, "load": self.load, **on_off}


class BurstTraffic(_PatternTraffic):
    """Burst-synchronized sources (002): every endpoint sends the same budget of packets as
    fast as the network accepts; a burst ends when all have arrived, and the next starts
    `restart_delay` later. The run lasts until the last burst ends ([run] windows do not
    apply)."""

    kind: Literal["burst"] = "burst"
    packets_per_burst: PositiveU32 = Field(
        1000, description="packets each endpoint sends per burst (b)"
    )
    bursts: PositiveU32 = Field(5, description="bursts in the run (k)")
    restart_delay: PositiveTimePs = Field(
        "100ns",
        description="time from a burst's end to the next burst's start: the news of the end "
        "reaching every endpoint (> 0; it also bounds the parallel engine's windows)",
    )

    def to_core(self) -> dict[str, Any]:
        return {
            **self._pattern_core(),
            "packets_per_burst": self.packets_per_burst,
            "bursts": self.bursts,
            "restart_delay_ps": self.restart_delay,
        }


#: Built-in applications: the message size each uses by default, and whether its size is the
#: job's (the proxy applications of 004 Table 3 carry the paper's sizes).
APP_DEFAULT_MESSAGE = {
    "pingpong": "1KiB",
    "allpingpong": "1KiB",
    "allreduce": "1KiB",
    "allgather": "1KiB",
    "alltoall": "1KiB",
    "bcast": "1KiB",
    "reduce": "1KiB",
    "barrier": "0B",
    "halo2d": "1KiB",
    "halo3d": "1KiB",
    "random": "1KiB",
    "pairs": "4MiB",
    "spread": "2MiB",
    "umesh": "2MiB",
    "milc": "2MiB",
    "pf3d": "2MiB",
    "qbox": "1MiB",
}
App = Literal[
    "pingpong",
    "allpingpong",
    "allreduce",
    "allgather",
    "alltoall",
    "bcast",
    "reduce",
    "barrier",
    "halo2d",
    "halo3d",
    "random",
    "pairs",
    "spread",
    "umesh",
    "milc",
    "pf3d",
    "qbox",
]
#: Partners per rank by default (004 Table 3: Spread ~23, UMesh ~9).
APP_DEFAULT_PARTNERS = {"spread": 23, "umesh": 9}
#: The algorithms of the collective each app runs (docs/workloads.md lists message counts).
APP_ALGORITHMS = {
    app: COLLECTIVE_ALGORITHMS[collective]
    for app, collective in {
        "allreduce": "allreduce",
        "allgather": "allgather",
        "alltoall": "alltoall",
        "pf3d": "alltoall",
        "bcast": "bcast",
        "reduce": "reduce",
        "barrier": "barrier",
        "qbox": "allreduce",
    }.items()
}
GRID_DIMENSIONS = {"halo2d": 2, "halo3d": 3, "milc": 4, "pf3d": 3, "qbox": 2}
Placement = Literal["linear", "random_endpoints", "random_routers", "random_groups", "map"]
#: Bounds of job keys the core holds in 32 and 64 bits, and of the time and work they ask for.
JobRanks = Annotated[StrictInt, Field(ge=1, le=MAX_RANKS)]
JobTimePs = Annotated[TimePs, Field(le=MAX_JOB_TIME_PS)]
MessageBytes = Annotated[SizeBytes, Field(le=MAX_MESSAGE_BYTES)]
#: A host overhead is paid per operation: at most this, a job's overheads stay within
#: MAX_JOB_TIME_PS.
MAX_OVERHEAD_PS = MAX_JOB_TIME_PS // MAX_OPERATIONS_PER_JOB


class Job(_Section):
    """One job: what it runs (app, program or trace), on how many ranks, and where."""

    name: StrictStr | None = Field(None, description="defaults to job<index>")
    app: App | None = Field(None, description="a built-in application")
    program: StrictStr | None = Field(
        None, description="a Python file defining the generator program(rank, size, **params)"
    )
    trace: StrictStr | None = Field(
        None, description="a trace: .parquet/.csv exanet trace, .goal, or a Chakra prefix"
    )
    ranks: JobRanks | None = Field(None, description="ranks of the job (a trace gives its own)")
    message: MessageBytes | None = Field(
        None, description="message size, at most 1TiB (1099511627776 B); the app's default"
    )
    iterations: PositiveU32 = 1
    compute: JobTimePs = Field(
        "0ns", description="compute time before each iteration, in ps at most 10^6 s"
    )
    algorithm: StrictStr | None = Field(
        None,
        description='the collective\'s algorithm; "auto" chooses per call by message size and '
        "ranks as MPICH does (traffic.collective_thresholds)",
    )
    grid: list[JobRanks] | None = Field(
        None, description="process grid of halo2d/3d, milc, pf3d, qbox; a default shape"
    )
    partners: JobRanks | None = Field(
        None, description="partners per rank (spread: 23, umesh: 9), at most ranks - 1"
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="keyword arguments of a Python program"
    )
    placement: Placement = "linear"
    map: list[U32] | None = Field(None, description="rank i on endpoint map[i] (placement = map)")
    start: JobTimePs = Field("0ns", description="when the job starts, in ps at most 10^6 s")
    trace_compute_default: JobTimePs | None = Field(
        None,
        description="compute time of a trace's compute operations that carry none (a host "
        "trace converted without durations)",
    )
    eager_limit: MessageBytes | None = Field(
        None,
        description="the job's own eager limit: its messages up to this size go eagerly; "
        "default: what the job's trace producer assumed (Chakra: every message; GOAL: 65535 B), "
        "else traffic.eager_limit",
    )
    trace_comm_groups: StrictStr | None = Field(
        None,
        description="with a Chakra trace: ASTRA-sim's communicator-group file (JSON, group id "
        "-> ranks); collectives run over the group their pg_name names",
    )
    goal_collective_tag_base: Annotated[StrictInt, Field(ge=0, le=2**31)] | None = Field(
        None,
        description="with a .goal trace: messages tagged from this value up are collective "
        "messages, in a matching context of their own (default 1000000, Schedgen's); 2147483648 "
        "turns this off",
    )
    trace_compute_scale: float = Field(
        1.0,
        ge=0.0,
        le=1e6,
        allow_inf_nan=False,
        description="factor on every compute time of a trace (another machine's speed)",
    )

    @model_validator(mode="after")
    def _check(self) -> Job:
        given = [k for k in ("app", "program", "trace") if getattr(self, k) is not None]
        if len(given) != 1:
            raise FieldError(
                "app",
                "exactly one of app (a built-in application), program (a Python file) or "
                f"trace (a trace file); got {', '.join(given) or 'none'}",
            )
        if self.trace is None and self.ranks is None:
            raise FieldError("ranks", "the number of ranks of the job, >= 1")
        for name in ("trace_compute_default", "trace_compute_scale"):
            if self.trace is None and name in self.model_fields_set:
                raise FieldError(name, "only for a job that runs a trace")
        if self.goal_collective_tag_base is not None and not (self.trace or "").endswith(".goal"):
            raise FieldError("goal_collective_tag_base", "only for a job whose trace is a .goal")
        if self.map is not None and self.placement != "map":
            if "placement" in self.model_fields_set:
                raise FieldError("map", 'only with placement = "map" (or no placement)')
            object.__setattr__(self, "placement", "map")
        if self.placement == "map" and self.map is None:
            raise FieldError("map", "the endpoint of every rank: map = [e0, e1, ...]")
        if self.algorithm is not None:
            valid = APP_ALGORITHMS.get(self.app or "", ())
            if self.algorithm not in valid:
                raise FieldError(
                    "algorithm",
                    f"one of {', '.join(valid)}"
                    if valid
                    else f"no algorithm: {self.app or 'a program'} chooses per operation",
                )
        if self.grid is not None:
            dims = GRID_DIMENSIONS.get(self.app or "")
            if dims is None:
                raise FieldError("grid", "only for halo2d, halo3d, milc, pf3d and qbox")
            if len(self.grid) != dims:
                raise FieldError("grid", f"{dims} dimensions for {self.app}")
        if self.partners is not None and self.app not in APP_DEFAULT_PARTNERS:
            raise FieldError("partners", "only for spread and umesh")
        if self.app is not None:
            self._check_app_size()
        return self

    def _check_app_size(self) -> None:
        """What a built-in app asks of the core fits its bounds (the core checks the memory
        its operations take)."""
        if self.partners is not None and self.partners > self.ranks - 1:
            raise FieldError(
                "partners", f"at most ranks - 1 = {self.ranks - 1}: partners are other ranks"
            )
        if self.compute * self.iterations > MAX_JOB_TIME_PS:
            raise FieldError(
                "compute",
                f"compute x iterations of at most {MAX_JOB_TIME_PS} ps (10^6 s) per rank "
                f"(exanet.program.MAX_JOB_TIME_PS); {self.iterations} iterations",
            )

    def to_core(self, index: int, free_endpoints: int | None = None) -> dict[str, Any]:
        """The job in core form; `free_endpoints`, when known, bounds its ranks before its
        program is generated or checked."""
        core: dict[str, Any] = {
            "name": self.name or f"job{index}",
            "iterations": self.iterations,
            "compute_ps": self.compute,
            "placement": (
                {"kind": "map", "endpoints": list(self.map)}
                if self.placement == "map"
                else {"kind": self.placement}
            ),
            "start_ps": self.start,
        }
        if self.eager_limit is not None:
            core["eager_limit_bytes"] = self.eager_limit
        if self.app is not None:
            self._check_placement(index, self.ranks, free_endpoints, "")
            message = self.message
            if message is None:
                message = parse_size_bytes(APP_DEFAULT_MESSAGE[self.app])
            return {
                **core,
                "app": self.app,
                "ranks": self.ranks,
                "message_bytes": message,
                "algorithm": self.algorithm,
                "grid": list(self.grid or []),
                # the default, like an explicit value, is at most ranks - 1
                "partners": self.partners
                or min(APP_DEFAULT_PARTNERS.get(self.app, 0), self.ranks - 1),
            }
        program = self.load_program(index, free_endpoints)
        explicit = program.to_core()
        ops = explicit["ops"]
        ops["algorithm"] = [a or None for a in ops["algorithm"]]
        if self.eager_limit is None and program.eager_limit is not None:
            core["eager_limit_bytes"] = program.eager_limit
        return {**core, "app": "program", "ranks": explicit["ranks"], "ops": ops}

    def load_program(self, index: int, free_endpoints: int | None = None) -> Program:
        """The job's operations as a `Program` (a Python program or a trace), validated; with
        `free_endpoints`, a program is generated only if its ranks fit them."""
        from exanet.program import Program
        from exanet.traces import load_trace

        if self.program is not None:
            key = f"traffic.jobs[{index}].program"
            self._check_placement(index, self.ranks, free_endpoints, "")
            program = Program.from_file(self.program, self.ranks, self.params, key=key)
        elif self.trace is not None:
            key = f"traffic.jobs[{index}].trace"
            options: dict[str, Any] = {}
            if self.goal_collective_tag_base is not None:
                options["goal_collective_tag_base"] = self.goal_collective_tag_base
            if self.trace_comm_groups is not None:
                options["comm_groups"] = self.trace_comm_groups
                options["comm_groups_key"] = f"traffic.jobs[{index}].trace_comm_groups"
            trace = load_trace(self.trace, self.ranks, key=key, **options)
            program = self._trace_compute(trace, index)
            self._check_placement(index, program.ranks, free_endpoints, f" of {self.trace}")
        else:
            raise ConfigError(f"traffic.jobs[{index}].app", "(none)", "an app, program or trace")
        return program.validate(key)

    def _trace_compute(self, program: Program, index: int) -> Program:
        """The trace's compute times: those without a time take `trace_compute_default`, then
        all are scaled by `trace_compute_scale`. A trace whose compute operations all carry no
        time (and no default) runs with a warning: its job time is communication only."""
        ops = program.ops
        compute = ops["op"] == "compute"
        untimed = compute & (ops["compute_ns"] == 0)
        if self.trace_compute_default is not None:
            ops.loc[untimed, "compute_ns"] = self.trace_compute_default / 1000
        elif compute.any() and untimed[compute].all():
            warnings.warn(
                f"traffic.jobs[{index}].trace: {self.trace} has {int(compute.sum()):,} compute "
                "operations and none carries a time (a host trace converted without "
                "durations?): the job's time is communication only; give "
                f"traffic.jobs[{index}].trace_compute_default (a time per operation)",
                stacklevel=2,
            )
        ops.loc[compute, "compute_ns"] *= self.trace_compute_scale
        return program

    def _check_placement(
        self, index: int, ranks: int, free_endpoints: int | None, whose: str
    ) -> None:
        """The core's placement check, made before any work that grows with the ranks."""
        if free_endpoints is not None and ranks > free_endpoints:
            raise ConfigError(
                f"traffic.jobs[{index}].placement",
                f'"{self.placement}" for the {ranks} ranks{whose}',
                f"at most {max(free_endpoints, 0)} ranks: the endpoints not taken by earlier jobs",
            )


class CollectiveThresholds(_Section):
    """Where algorithm "auto" changes algorithm: MPICH 3.2's defaults (its MPIR_CVAR_* control
    variables), docs/workloads.md (Collectives)."""

    allreduce_short: MessageBytes = Field(
        "2KiB",
        description="allreduce: recursive_doubling up to this size, rabenseifner above "
        "(MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE)",
    )
    allgather_long: MessageBytes = Field(
        "512KiB",
        description="allgather on a power-of-two rank count: recursive_doubling below this "
        "total (ranks x block), ring from it (MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE)",
    )
    allgather_short: MessageBytes = Field(
        "80KiB",
        description="allgather when recursive_doubling does not apply: bruck below this total "
        "(ranks x block), ring from it (MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE)",
    )
    alltoall_short: MessageBytes = Field(
        "256B",
        description="alltoall: bruck up to this block with at least alltoall_min_ranks ranks "
        "(MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE)",
    )
    alltoall_min_ranks: PositiveU32 = Field(
        8, description="alltoall: fewer ranks never use bruck (MPICH 3.2's alltoall.c)"
    )
    alltoall_medium: MessageBytes = Field(
        "32KiB",
        description="alltoall otherwise: scattered up to this block, pairwise above "
        "(MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE)",
    )
    reduce_scatter_long: MessageBytes = Field(
        "512KiB",
        description="reduce_scatter: recursive_halving below this size, pairwise from it "
        "(MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE)",
    )
    bcast_short: MessageBytes = Field(
        "12KiB",
        description="bcast: binomial below this size or with fewer than bcast_min_ranks ranks "
        "(MPIR_CVAR_BCAST_SHORT_MSG_SIZE)",
    )
    bcast_min_ranks: PositiveU32 = Field(
        8, description="bcast: fewer ranks always use binomial (MPIR_CVAR_BCAST_MIN_PROCS)"
    )
    bcast_long: MessageBytes = Field(
        "512KiB",
        description="bcast: scatter_doubling_allgather below this size on a power-of-two rank "
        "count, scatter_ring_allgather otherwise (MPIR_CVAR_BCAST_LONG_MSG_SIZE)",
    )
    reduce_short: MessageBytes = Field(
        "2KiB",
        description="reduce: binomial up to this size (or while size/8 < the largest power of "
        "two of the ranks), rabenseifner (reduce_scatter + gather) above "
        "(MPIR_CVAR_REDUCE_SHORT_MSG_SIZE)",
    )

    def to_core(self) -> dict[str, Any]:
        return {
            "reduce_short_bytes": self.reduce_short,
            "bcast_short_bytes": self.bcast_short,
            "bcast_min_ranks": self.bcast_min_ranks,
            "bcast_long_bytes": self.bcast_long,
            "allreduce_short_bytes": self.allreduce_short,
            "allgather_long_bytes": self.allgather_long,
            "allgather_short_bytes": self.allgather_short,
            "alltoall_short_bytes": self.alltoall_short,
            "alltoall_min_ranks": self.alltoall_min_ranks,
            "alltoall_medium_bytes": self.alltoall_medium,
            "reduce_scatter_long_bytes": self.reduce_scatter_long,
        }


class JobsTraffic(_Section):
    """Message-passing jobs sharing the machine. The run lasts until every job has finished
    ([run] windows do not apply)."""

    kind: Literal["jobs"] = "jobs"
    jobs: list[Job] = Field(min_length=1, description="the jobs, each a [[traffic.jobs]] table")
    eager_limit: MessageBytes = Field(
        "16KiB", description="largest message sent eagerly; larger ones use rendezvous"
    )
    send_overhead: Annotated[TimePs, Field(le=MAX_OVERHEAD_PS)] = Field(
        "0ns", description="host CPU time to post a send"
    )
    recv_overhead: Annotated[TimePs, Field(le=MAX_OVERHEAD_PS)] = Field(
        "0ns", description="host CPU time from a message's arrival to its receive completing"
    )
    alone: StrictBool = Field(
        False, description="also run every job alone (same placement) for slowdown_vs_alone"
    )
    collective_thresholds: CollectiveThresholds = Field(
        default_factory=CollectiveThresholds,
        description='where algorithm "auto" changes algorithm (MPICH\'s defaults)',
    )

    @model_validator(mode="after")
    def _unique_names(self) -> JobsTraffic:
        names = [job.name or f"job{i}" for i, job in enumerate(self.jobs)]
        for i, name in enumerate(names):
            if names.index(name) != i:
                raise FieldError("jobs", f"distinct job names; {name!r} is used twice")
        return self

    def to_core(self, endpoints: int | None = None) -> dict[str, Any]:
        """The jobs in core form; `endpoints`, the network's endpoint count when known, bounds
        each job's ranks (by the endpoints earlier jobs left) before its program is made."""
        jobs = []
        for i, job in enumerate(self.jobs):
            free = None if endpoints is None else endpoints - sum(j["ranks"] for j in jobs)
            jobs.append(job.to_core(i, free))
        return {
            "kind": "jobs",
            "jobs": jobs,
            "eager_limit_bytes": self.eager_limit,
            "send_overhead_ps": self.send_overhead,
            "recv_overhead_ps": self.recv_overhead,
            "alone": self.alone,
            "collective_thresholds": self.collective_thresholds.to_core(),
        }


#: Limits of the core's threads host: a message names its operation slot in 27 bits.
MAX_OUTSTANDING_PER_THREAD = 64
MAX_OPERATION_CLASSES = 16
MAX_OPERATION_SLOTS = 2**27


class OperationClass(_Section):
    """One kind of request/response operation: a remote load is a small request answered by
    a data response; a remote store, a data request answered by a small acknowledgement."""

    weight: Annotated[StrictFloat | StrictInt, Field(gt=0, le=sys.float_info.max)] = Field(
        1.0, description="relative share of operations of this class"
    )
    request: MessageBytes = Field("16B", description="payload of the request")
    response: MessageBytes = Field("64B", description="payload of the response")
    service: JobTimePs = Field(
        "0ns",
        description="time from the request's arrival to the response leaving (a remote memory "
        "access; no lane computes it)",
    )

    def to_core(self) -> dict[str, Any]:
        return {
            "weight": float(self.weight),
            "request_bytes": self.request,
            "response_bytes": self.response,
            "service_ps": self.service,
        }


class ThreadsTraffic(_Destinations):
    """Closed-loop, latency-tolerant threads (the UpDown study of 000 ch. 5): every endpoint
    runs lanes of hardware threads; a lane computes for one thread at a time, and a thread
    issues a request/response operation after each compute and waits for it once it has
    `outstanding_per_thread` in flight. The run lasts until every thread has completed its
    operations ([run] windows do not apply), so a slower network makes it slower."""

    kind: Literal["threads"] = "threads"
    lanes_per_endpoint: PositiveU32 = Field(
        1, description="lanes (cores) per endpoint, each running its own threads"
    )
    threads_per_lane: PositiveU32 = Field(
        1, description="hardware threads per lane; the lane switches thread at each operation"
    )
    outstanding_per_thread: Annotated[StrictInt, Field(ge=1, le=MAX_OUTSTANDING_PER_THREAD)] = (
        Field(
            1,
            description="operations a thread may have in flight before it waits (intra-thread "
            f"parallelism), 1 to {MAX_OUTSTANDING_PER_THREAD}",
        )
    )
    operations_per_thread: PositiveU32 | None = Field(
        None, description="operations each thread completes (or give operations_total)"
    )
    operations_total: Annotated[StrictInt, Field(ge=1, le=2**64 - 1)] | None = Field(
        None,
        description="operations of the whole run, dealt out evenly over every thread of every "
        "endpoint, the first threads one more (fixed work for strong scaling; instead of "
        "operations_per_thread)",
    )
    compute: JobTimePs | None = Field(
        None, description="compute time before each operation (or give instructions)"
    )
    instructions: Annotated[StrictFloat | StrictInt, Field(gt=0, le=1e15)] | None = Field(
        None,
        description="instructions before each operation, run at clock x ipc (instead of compute)",
    )
    clock: FrequencyHz = Field("2GHz", description="lane clock, for instructions")
    ipc: Annotated[StrictFloat | StrictInt, Field(gt=0, le=1e6)] = Field(
        1.0, description="instructions per cycle of a lane, for instructions"
    )
    operations: list[OperationClass] = Field(
        default_factory=lambda: [OperationClass()],
        min_length=1,
        max_length=MAX_OPERATION_CLASSES,
        description="operation classes drawn per operation by weight (default: 16B requests "
        "answered at once by 64B responses)",
    )

    @model_validator(mode="after")
    def _one_compute_and_slots_fit(self) -> ThreadsTraffic:
        if (self.operations_per_thread is None) == (self.operations_total is None):
            raise FieldError(
                "operations_per_thread",
                "either operations_per_thread or operations_total (the run's), not both",
            )
        if (self.compute is None) == (self.instructions is None):
            raise FieldError(
                "compute",
                "either compute (a time) or instructions (run at clock x ipc), not both",
            )
        if self.compute_ps > MAX_JOB_TIME_PS:
            raise FieldError(
                "instructions",
                f"at most {MAX_JOB_TIME_PS} ps (10^6 s) of compute per operation at clock x ipc, "
                f"not {self.compute_ps} ps",
            )
        slots = self.lanes_per_endpoint * self.threads_per_lane * self.outstanding_per_thread
        if slots >= MAX_OPERATION_SLOTS:
            raise FieldError(
                "threads_per_lane",
                f"lanes_per_endpoint x threads_per_lane x outstanding_per_thread below "
                f"{MAX_OPERATION_SLOTS} (now {slots}): a message names its operation in 27 bits",
            )
        return self

    @property
    def compute_ps(self) -> int:
        """Compute time before each operation, in picoseconds."""
        if self.compute is not None:
            return self.compute
        assert self.instructions is not None
        return round(self.instructions * 1e12 / (self.clock * self.ipc))

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "threads",
            **self._destinations_core(),
            "lanes_per_endpoint": self.lanes_per_endpoint,
            "threads_per_lane": self.threads_per_lane,
            "outstanding_per_thread": self.outstanding_per_thread,
            "compute_ps": self.compute_ps,
            "operations_per_thread": self.operations_per_thread or 0,
            "operations_total": self.operations_total or 0,
            "operations": [c.to_core() for c in self.operations],
        }


Traffic = Annotated[
    SyntheticTraffic | BurstTraffic | JobsTraffic | ThreadsTraffic, Field(discriminator="kind")
]
TRAFFIC_DESCRIPTION = (
    "the workload; kind = synthetic (needs load), burst, jobs or threads (docs/workloads.md)"
)

# describe_topology options that only count: no distances, paths or partitions
_COUNT_ONLY = {
    "exact_limit": 0,
    "samples": 0,
    "path_sources": 0,
    "partition_limit": 0,
    "restarts": 0,
    "seed": 1,
}


def traffic_to_core(traffic: Traffic, topology_core: dict[str, Any]) -> dict[str, Any]:
    """[traffic] in core form. Jobs that run a Python program or a trace are made here, in
    Python: they learn the endpoints of the network (`topology_core`, the [topology] in core
    form) first, so that a job the network cannot place is refused before its ranks are
    generated or checked."""
    if not isinstance(traffic, JobsTraffic):
        return traffic.to_core()
    if all(job.app is not None for job in traffic.jobs):
        return traffic.to_core()  # the core checks where apps go; _check_app_size their size
    with core_errors():
        info = _core.describe_topology(json.dumps(topology_core), json.dumps(_COUNT_ONLY))
    return traffic.to_core(info["endpoints"])


def resolve_traffic_paths(traffic: Any, base_dir: str) -> Any:
    """[traffic] with its matrix file and its jobs' program, trace and trace_comm_groups paths
    made relative to `base_dir`."""
    if not isinstance(traffic, Mapping):
        return traffic
    if isinstance(traffic.get("matrix"), str):
        traffic = {**traffic, "matrix": os.path.join(base_dir, traffic["matrix"])}
    if not isinstance(traffic.get("jobs"), list):
        return traffic
    jobs = []
    for job in traffic["jobs"]:
        if isinstance(job, Mapping):
            job = {
                **job,
                **{
                    k: os.path.join(base_dir, job[k])
                    for k in ("program", "trace", "trace_comm_groups")
                    if isinstance(job.get(k), str)
                },
            }
        jobs.append(job)
    return {**traffic, "jobs": jobs}
