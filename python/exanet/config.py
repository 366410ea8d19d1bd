"""The configuration schema (docs/architecture.md §10), its loading from TOML, and its core JSON
form.

Quantities are written with units ("50ns", "25GB/s", "4KiB") and held in core units: integer
picoseconds, bytes per second and bytes. Every invalid input raises one `ConfigError`.
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_serializer,
    model_validator,
)

from exanet._types import (
    U32,
    U32_MAX,
    U64,
    BandwidthBytesPerS,
    PacketRatePerS,
    PositiveSizeBytes,
    PositiveTimePs,
    SizeBytes,
    TimePs,
    _Section,
)
from exanet._validation import (
    MAX_NESTING,
    NESTED_TOO_DEEP,
    FieldError,
    check_nesting,
    format_key,
    format_value,
    to_config_error,
)
from exanet.errors import ConfigError
from exanet.topologies import (
    TOPOLOGY_DESCRIPTION,
    Topology,
    default_routing_kind,
    resolve_paths,
)
from exanet.topologies import MeshTopology as MeshTopology  # re-exported: they lived here
from exanet.topologies import TorusTopology as TorusTopology
from exanet.units import U64_MAX, format_time_ps
from exanet.workloads import (
    TRAFFIC_DESCRIPTION,
    Traffic,
    resolve_traffic_paths,
    traffic_to_core,
)
from exanet.workloads import SyntheticTraffic as SyntheticTraffic  # re-exported


class DorRouting(_Section):
    """Dimension-order routing (two VC classes on tori: dateline or digit-compare lanes)."""

    kind: Literal["dor"] = "dor"
    allow_unsafe: StrictBool = Field(
        False,
        description="accept deadlock-prone configurations (e.g. a torus with 1 VC) to exercise "
        "the deadlock watchdog",
    )
    vc_rule: Literal["dateline", "digit_compare"] = Field(
        "dateline",
        description="how a torus hop picks its VC class: dateline (class 0 until the packet "
        "takes the dimension's wrap-around link, class 1 from it on) or digit_compare (class 1 "
        "when the destination's coordinate in the hop's dimension is greater than the current "
        "router's, else class 0: the e-cube lanes of Liu et al.'s ROSS torus model); both are "
        "deadlock-free with 2 VCs (docs/routing.md)",
    )

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind, "allow_unsafe": self.allow_unsafe, "vc_rule": self.vc_rule}


class MinimalRouting(_Section):
    """Table-driven minimal routing on any topology: every hop takes a port on a shortest path
    (adaptive: the one with most credits; random: one by the packet's random bits, afresh at
    every hop; destination: one by the destination, D-mod-k on a fat-tree); on a fat-tree, whose
    routes climb then descend, every hop may take every VC (router.vcs >= 1), on dragonflies and
    Fishnets a VC block per global link taken, on other graphs hop i travels on VC i
    (router.vcs >= the diameter; docs/routing.md). On a torus or mesh,
    escape = dor or bubble instead keeps adaptive VCs plus an escape sub-network, and so does
    escape = bubble on a midimew (docs/routing.md)."""

    kind: Literal["minimal"] = "minimal"
    selection: Literal["adaptive", "random", "destination"] = Field(
        "adaptive",
        description="how a router picks among the ports one hop closer: adaptive (most "
        "credits), random (oblivious), destination (D-mod-k)",
    )
    escape: Literal["none", "dor", "bubble"] = Field(
        "none",
        description="deadlock avoidance: none (VC classes by the shape of the routes, any "
        "topology), dor "
        "(torus/mesh: Duato's escape sub-network of dimension-order routing on VCs 0-1), "
        "bubble (torus, midimew: one escape VC under bubble flow control)",
    )

    threshold: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="adaptive selection: the fraction of one VC buffer another port must have "
        "free beyond the oblivious choice (DOR, D-mod-k) before a router takes it; default 0.5, "
        "and 0 with escape = dor or bubble, where the oblivious choice is the escape's "
        "dimension order",
    )

    def to_core(self) -> dict[str, Any]:
        core = {"kind": self.kind, "selection": self.selection, "escape": self.escape}
        if self.threshold is not None:
            core["threshold"] = self.threshold
        return core


class ValiantRouting(_Section):
    """Valiant: minimal to a random intermediate router with endpoints (a random group on
    dragonflies and Fishnets), then minimal to the destination; VCs as in docs/routing.md (twice
    the diameter on flat topologies, 3 blocks on hierarchical ones)."""

    kind: Literal["valiant"]

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind}


class _WeighedRouting(_Section):
    """A scheme that weighs a minimal way against longer ones at the source."""

    threshold: float = Field(
        0.0,
        ge=0,
        allow_inf_nan=False,
        description="bias toward minimal routes: queued bytes (a fraction of one VC buffer) "
        "added to a longer way's queue before comparing",
    )

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind, "threshold": self.threshold}


class UgalLRouting(_WeighedRouting):
    """UGAL-L: at the source, the minimal or the Valiant way, whichever has the smaller queued
    bytes x hops on its first link (local information only); VCs as Valiant."""

    kind: Literal["ugal_l"]
    threshold: float = Field(
        0.1,
        ge=0,
        allow_inf_nan=False,
        description="bias toward minimal routes: queued bytes (a fraction of one VC buffer) "
        "added to the Valiant way's queue before comparing",
    )


class UgalGRouting(_WeighedRouting):
    """UGAL-G: UGAL-L's ways weighed by the queues along each whole route, read from every
    router: an idealized reference (no real router knows this), VCs as Valiant."""

    kind: Literal["ugal_g"]


class ParRouting(_WeighedRouting):
    """PAR (progressive adaptive, dragonflies and Fishnets): UGAL-L at the source, and once
    more after the first local hop while still in the source group; one VC more than UGAL-L."""

    kind: Literal["par"]


class FishnetAdaptiveRouting(_WeighedRouting):
    """The Fishnet-tailored scheme (Li et al. §3.1.2): minimal when a gateway into the
    destination subnet is at most one hop away (adaptive among such gateways), else Valiant
    through a subnet whose gateway is that close. Applies to every topology with groups
    (Fishnets, dragonflies)."""

    kind: Literal["fishnet_adaptive"]


PATH_FILE_FORMAT = "one path per line: the router ids a packet visits, first to last ('#' comments)"


def read_path_file(path: str) -> list[list[int]]:
    """Paths from a text file (`PATH_FILE_FORMAT`); a problem is a ConfigError naming the line."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError as exc:
        raise ConfigError(
            "routing.paths",
            format_value(path),
            f"a readable path file ({exc.strerror}): {PATH_FILE_FORMAT}",
        ) from None
    except UnicodeDecodeError:
        raise ConfigError("routing.paths", format_value(path), "a UTF-8 text file") from None
    paths = []
    for number, line in enumerate(lines, start=1):
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        if not all(token.isdigit() for token in tokens):
            raise ConfigError(
                "routing.paths",
                f"{format_value(path)} line {number}: {format_value(line.strip())}",
                PATH_FILE_FORMAT,
            )
        paths.append([int(token) for token in tokens])
    return paths


class SourceRouting(_Section):
    """Source routing, for experiments: a packet whose source and destination routers are the
    first and last of one or more given paths takes one of them (by its random bits); other
    pairs route minimally. VC i carries hop i, so router.vcs must cover the longest path."""

    kind: Literal["source"]
    paths: StrictStr | list[list[U32]] = Field(
        description=f"a path file ({PATH_FILE_FORMAT}) or an inline list [[A, B, C], ...]"
    )

    _paths: list[list[int]] = PrivateAttr()

    @model_validator(mode="after")
    def _read(self) -> SourceRouting:
        paths = self.paths
        self._paths = read_path_file(paths) if isinstance(paths, str) else paths
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind, "paths": self._paths}


Routing = Annotated[
    DorRouting
    | MinimalRouting
    | ValiantRouting
    | UgalLRouting
    | UgalGRouting
    | ParRouting
    | FishnetAdaptiveRouting
    | SourceRouting,
    Field(discriminator="kind"),
]
ROUTING_DESCRIPTION = (
    "the routing; kind = dor (dimension order, torus and mesh), minimal, valiant, ugal_l, ugal_g "
    "(any topology), par (dragonflies, Fishnets), fishnet_adaptive (Fishnets, dragonflies) or "
    "source (given router paths); default dor "
    "on a torus or mesh, minimal on every other topology (docs/routing.md)"
)


class RouterConfig(_Section):
    """Router microarchitecture."""

    vcs: Annotated[StrictInt, Field(ge=1, le=16)] = Field(
        2, description="virtual channels per port, 1..16"
    )
    vc_buffer: Annotated[PositiveSizeBytes, Field(le=U32_MAX)] = Field(
        "2KiB", description="buffer of each VC of an input port, at most 4 GiB"
    )
    latency: TimePs = Field(
        "50ns",
        description="input side: from head arrival to the earliest departure (route, allocate, "
        "cross)",
    )
    output_latency: TimePs = Field(
        "0ns",
        description="output side: from the grant to the head's departure onto the output link; "
        "delays packets, not the link (Merlin's output_latency)",
    )
    arbitration: Literal["round_robin", "age"] = "round_robin"
    in_transit_priority: StrictBool | Annotated[StrictFloat, Field(ge=0, le=1)] = Field(
        0.0,
        description="in-transit-priority restriction (IPR): the probability, per arbitration, "
        "that packets already in the network win over newly injected ones; 0 (off) to 1 "
        "(always), true = 1",
    )
    packet_rate: PacketRatePerS | None = Field(
        None,
        description="packets a router may forward per second over all its outputs, ejection "
        "included, enforced per packet_rate_window (000 §2.3's switch rates; none: no limit)",
    )
    packet_rate_window: PositiveTimePs = Field(
        "50ns", description="window of the router's packet-rate limit"
    )
    message_classes: Literal[1, 2] = Field(
        1,
        description="message classes with VCs of their own: 1 (all share the VCs) or 2 "
        "(requests on the lower half of the VCs, responses of closed-loop threads on the upper "
        "half; the routing plans its VC classes within each half)",
    )
    priority: Literal["none", "responses"] = Field(
        "none",
        description="responses: at every output, responses win over requests whatever the "
        "arbitration (strict priority); none: arbitration ignores the message class",
    )

    @model_validator(mode="after")
    def _classes_divide_vcs(self) -> RouterConfig:
        if self.vcs % self.message_classes:
            raise FieldError(
                "message_classes",
                f"a divisor of vcs ({self.vcs}): each message class gets an equal share",
            )
        return self

    def to_core(self) -> dict[str, Any]:
        return {
            "message_classes": self.message_classes,
            "priority": self.priority,
            "packet_rate_per_s": self.packet_rate or 0,
            "packet_rate_window_ps": self.packet_rate_window,
            "vcs": self.vcs,
            "vc_buffer_bytes": self.vc_buffer,
            "latency_ps": self.latency,
            "output_latency_ps": self.output_latency,
            "arbitration": self.arbitration,
            "in_transit_priority": float(self.in_transit_priority),
        }


class LinkClassConfig(_Section):
    """Overrides of the default link parameters for one link class; unset values inherit."""

    latency: TimePs | None = None
    bandwidth: BandwidthBytesPerS | None = None


def _class_tables_schema(schema: dict[str, Any]) -> None:
    """In a config file, link class tables sit beside latency and bandwidth: [links.dim0]."""
    schema["additionalProperties"] = schema["properties"]["classes"]["additionalProperties"]


class LinksConfig(_Section):
    """Default link parameters, and per-class overrides written as tables such as [links.dim0]."""

    model_config = ConfigDict(json_schema_extra=_class_tables_schema)
    _inline_tables_field: ClassVar[str] = "classes"

    latency: TimePs = Field("20ns", description="propagation latency of a link")
    bandwidth: BandwidthBytesPerS = Field("25GB/s", description="bandwidth of a link")
    classes: dict[str, LinkClassConfig] = Field(
        default_factory=dict,
        description="a table of latency/bandwidth overrides per link class, e.g. [links.dim0]",
    )

    @model_validator(mode="before")
    @classmethod
    def _collect_class_tables(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or "classes" in data:
            return data
        tables = {
            key: value
            for key, value in data.items()
            if isinstance(value, (Mapping, LinkClassConfig))
        }
        scalars = {key: value for key, value in data.items() if key not in tables}
        return {**scalars, "classes": tables} if tables else scalars

    @model_serializer(mode="wrap")
    def _inline_class_tables(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        data.update(data.pop("classes", {}))
        return data

    def _core_link(self, overrides: LinkClassConfig | None = None) -> dict[str, int]:
        latency = overrides.latency if overrides else None
        bandwidth = overrides.bandwidth if overrides else None
        return {
            "latency_ps": self.latency if latency is None else latency,
            "bandwidth_bytes_per_s": self.bandwidth if bandwidth is None else bandwidth,
        }

    def to_core(self) -> dict[str, Any]:
        return {
            "default": self._core_link(),
            "classes": {name: self._core_link(cls) for name, cls in self.classes.items()},
        }


class NicConfig(_Section):
    """Network interface: injection link, packetisation."""

    injection_bandwidth: BandwidthBytesPerS | None = Field(
        None, description="defaults to links.bandwidth"
    )
    injection_latency: TimePs | None = Field(None, description="defaults to links.latency")
    mtu: PositiveSizeBytes = Field("4KiB", description="largest packet payload")
    header: SizeBytes = Field("32B", description="header bytes added to every packet")
    max_outstanding_packets: U32 = Field(
        0,
        description="injection throttle: packets a NIC may have in the network at once "
        "(0: no limit)",
    )
    eligibility_delay: TimePs = Field(
        "0ns",
        description="injection-limited NIC (Su, UpDown §3.5): a queued message may leave only this "
        "long after it was queued",
    )
    injection_cap: BandwidthBytesPerS | None = Field(
        None,
        description="injection-limited NIC: bytes per second a NIC may start sending, enforced "
        "per injection_cap_window (none: only the injection link limits)",
    )
    injection_cap_window: PositiveTimePs = Field(
        "50ns",
        description="window of the injection cap and of packet_rate (Su, UpDown §5.3: 100 cycles "
        "at 2 GHz)",
    )
    packet_rate: PacketRatePerS | None = Field(
        None,
        description="packets a NIC may start per second, enforced per injection_cap_window "
        "(000 §2.3's NIC rates; none: no limit)",
    )
    injection_vcs: Annotated[StrictInt, Field(ge=1, le=16)] | None = Field(
        None,
        description="router input VCs a NIC's packets may enter, VCs 0 to n-1, at most "
        "router.vcs (none: every VC, the freest first); 1 models a router with one injection "
        "queue per node, as 002's",
    )

    striping: Literal["message", "packet"] = Field(
        "message",
        description="how a node with several NIC ports (topology.planes > 1) spreads its "
        'messages: "message" sends each whole message on the next port in turn, "packet" '
        "sends each packet on the next port in turn; a port sends to the same port of the "
        "destination node",
    )

    def to_core(self, links: LinksConfig) -> dict[str, Any]:
        bandwidth = self.injection_bandwidth
        latency = self.injection_latency
        return {
            "injection_bandwidth_bytes_per_s": links.bandwidth if bandwidth is None else bandwidth,
            "injection_latency_ps": links.latency if latency is None else latency,
            "mtu_bytes": self.mtu,
            "header_bytes": self.header,
            "max_outstanding_packets": self.max_outstanding_packets,
            "eligibility_delay_ps": self.eligibility_delay,
            "injection_cap_bytes": self.injection_cap_bytes(),
            "injection_cap_window_ps": self.injection_cap_window,
            "injection_vcs": self.injection_vcs or 0,
            "packet_rate_per_s": self.packet_rate or 0,
            "striping": self.striping,
        }

    def injection_cap_bytes(self) -> int:
        """Wire bytes a NIC may start per window (0: no cap)."""
        if self.injection_cap is None:
            return 0
        return self.injection_cap * self.injection_cap_window // 10**12

    @model_validator(mode="after")
    def _cap_fits(self) -> NicConfig:
        window = format_time_ps(self.injection_cap_window)
        if self.injection_cap is not None and self.injection_cap_bytes() == 0:
            raise FieldError(
                "injection_cap",
                f"at least one byte per injection_cap_window ({window}): raise either",
            )
        if self.injection_cap_bytes() > U64_MAX:
            raise FieldError(
                "injection_cap",
                f"at most 2^64 - 1 bytes per injection_cap_window ({window}): lower either",
            )
        return self


class RunConfig(_Section):
    """Run control: warm-up, measurement window and drain, or one fixed duration."""

    _WINDOW_FIELDS: ClassVar[tuple[str, str]] = ("warmup", "measure")

    warmup: TimePs = Field("10us", description="simulated time before statistics start")
    measure: PositiveTimePs = Field("50us", description="length of the measurement window")
    drain: Literal["measured", "all", "none"] = "measured"
    drain_limit: PositiveTimePs | None = Field(
        None, description="longest drain; defaults to 20 x (warmup + measure)"
    )
    duration: PositiveTimePs | None = Field(
        None, description="fixed-duration mode: statistics over the whole run"
    )
    deadlock_timeout: PositiveTimePs | None = Field(
        None, description="time without progress reported as a deadlock; automatic by default"
    )

    @model_validator(mode="after")
    def _check_fixed_duration(self) -> RunConfig:
        if self.duration is None:
            return self
        for name in self._WINDOW_FIELDS:
            if name in self.model_fields_set:
                raise FieldError(
                    name,
                    "not allowed together with run.duration (fixed-duration mode has no "
                    "warm-up or measurement window); remove one of them",
                )
        return self

    @model_serializer(mode="wrap")
    def _omit_unused_window(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        if self.duration is not None:
            for name in self._WINDOW_FIELDS:
                data.pop(name, None)
        return data

    def to_core(self) -> dict[str, Any]:
        return {
            "warmup_ps": self.warmup,
            "measure_ps": self.measure,
            "drain": self.drain,
            "drain_limit_ps": self.drain_limit,
            "duration_ps": self.duration,
            "deadlock_timeout_ps": self.deadlock_timeout,
        }


class RecordConfig(_Section):
    """What to record beyond the summary and the endpoint and link tables, for traffic
    characterisation (docs/analysis.md). Everything counts the measurement window."""

    traffic_matrix: Literal["off", "endpoints", "routers", "groups", "auto"] = Field(
        "off",
        description="source x destination packets and bytes injected, by endpoint, router or "
        "group; auto: endpoints up to 1,024, else routers up to 4,096, else groups",
    )
    injection_bin: PositiveTimePs | None = Field(
        None, description="per-endpoint injected bytes and packets in bins of this width"
    )
    packet_sizes: StrictBool = Field(
        False, description="a histogram of the wire sizes of the packets delivered"
    )

    def to_core(self) -> dict[str, Any]:
        return {
            "traffic_matrix": self.traffic_matrix,
            "injection_bin_ps": self.injection_bin or 0,
            "packet_sizes": self.packet_sizes,
        }


@contextmanager
def _config_errors(raw: Any) -> Iterator[None]:
    check_nesting(raw)
    try:
        yield
    except ValidationError as exc:
        raise to_config_error(exc, Config, raw) from None


class Config(_Section):
    """A complete, validated simulation configuration."""

    seed: U64 = Field(1, description="master seed of all random streams")
    topology: Topology = Field(description=TOPOLOGY_DESCRIPTION)
    routing: Routing | None = Field(None, description=ROUTING_DESCRIPTION)
    router: RouterConfig = Field(default_factory=RouterConfig)
    links: LinksConfig = Field(default_factory=LinksConfig)
    nic: NicConfig = Field(default_factory=NicConfig)
    traffic: Traffic = Field(description=TRAFFIC_DESCRIPTION)
    run: RunConfig = Field(default_factory=RunConfig)
    record: RecordConfig = Field(default_factory=RecordConfig)
    threads: Annotated[StrictInt, Field(ge=1, le=4096)] = Field(
        1,
        description="workers of the parallel engine (1: sequential); the results are the "
        "same for any number (docs/parallel.md)",
    )
    partitioner: Literal["exanet", "kahip"] = Field(
        "exanet",
        description="who splits the routers among the threads: exanet (slabs, groups or "
        "breadth-first runs) or kahip (fewer cut links on graphs without a regular shape; needs "
        "the partition extra, else exanet's is used with a warning; docs/parallel.md)",
    )

    def __init__(self, /, **data: Any) -> None:
        with _config_errors(data):
            super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _routing_kind(cls, data: Any) -> Any:
        """A [routing] table without a kind takes the topology's default routing kind; a
        [traffic] table without a kind is synthetic."""
        if not isinstance(data, Mapping):
            return data
        traffic = data.get("traffic")
        if isinstance(traffic, Mapping) and "kind" not in traffic:
            data = {**data, "traffic": {"kind": "synthetic", **traffic}}
        routing = data.get("routing")
        if isinstance(routing, Mapping) and "kind" not in routing:
            kind = default_routing_kind(_topology_kind(data.get("topology")))
            return {**data, "routing": {"kind": kind, **routing}}
        return data

    @model_validator(mode="after")
    def _default_routing(self) -> Config:
        """No routing given: dimension order on a torus or mesh, minimal elsewhere. The default
        stays unset, so a copy with another topology kind gets that kind's default."""
        if self.routing is None:
            kind = default_routing_kind(self.topology.kind)
            routing = DorRouting() if kind == "dor" else MinimalRouting()
            object.__setattr__(self, "routing", routing)
        return self

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Config:
        """Validate a mapping of user-facing keys; raises ConfigError."""
        with _config_errors(obj):
            return super().model_validate(obj, **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Config:
        """Validate a mapping of user-facing keys (as parsed from TOML); raises ConfigError."""
        return cls.model_validate(data)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Config:
        """Read and validate a TOML config file; raises ConfigError. Relative edge-list paths
        in its [topology] are taken relative to the file's directory."""
        return cls.from_dict(read_config_toml(path))

    def to_core(self) -> dict[str, Any]:
        """The config in core units, as the JSON document `exanet._core` takes."""
        topology = self.topology.to_core()
        core = {
            "seed": self.seed,
            "topology": topology,
            "routing": self.routing.to_core(),
            "router": self.router.to_core(),
            "links": self.links.to_core(),
            "nic": self.nic.to_core(self.links),
            "traffic": traffic_to_core(self.traffic, topology),
            "run": self.run.to_core(),
            "record": self.record.to_core(),
            "threads": self.threads,
        }
        partition = self._partition()
        if partition:
            core["partition"] = partition
        return core

    def _partition(self) -> list[int]:
        """The part of every router for `partitioner = "kahip"` with threads > 1; empty (the
        core's default partition) otherwise, or when KaHIP is not installed (with a warning)."""
        if self.partitioner == "exanet" or self.threads == 1:
            return []
        from exanet import partitioning
        from exanet.structure import TopologyInfo

        if not partitioning.available():
            warnings.warn(
                f"partitioner = 'kahip' but KaHIP is not installed ({partitioning.INSTALL_HINT}): "
                "exanet's own partition is used",
                stacklevel=3,
            )
            return []
        graph = TopologyInfo(self.topology).router_graph()
        if self.threads > graph.routers:
            return []  # the core reports the thread count that cannot be
        return partitioning.parallel_partition(graph, self.threads, self.seed)


def _topology_kind(topology: Any) -> str | None:
    if isinstance(topology, Mapping):
        kind = topology.get("kind")
        return kind if isinstance(kind, str) else None
    return getattr(topology, "kind", None)


def read_config_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """`read_toml`, with relative edge-list paths of [topology] and path files of [routing]
    made relative to the file."""
    raw = read_toml(path)
    base_dir = os.path.dirname(os.path.abspath(path))
    if "topology" in raw:
        raw["topology"] = resolve_paths(raw["topology"], base_dir)
    if "traffic" in raw:
        raw["traffic"] = resolve_traffic_paths(raw["traffic"], base_dir)
    routing = raw.get("routing")
    if isinstance(routing, Mapping) and isinstance(routing.get("paths"), str):
        raw["routing"] = {**routing, "paths": os.path.join(base_dir, routing["paths"])}
    return raw


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse a TOML file into a dict; a missing, unreadable or malformed file is a ConfigError."""
    try:
        with open(path, "rb") as file:
            return tomllib.load(file)
    except OSError as exc:
        raise ConfigError("config", str(path), f"a readable TOML file ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError("config", str(path), f"valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError("config", str(path), _NESTED_TOML) from None


_NESTED_TOML = f"TOML with tables and arrays nested at most {MAX_NESTING} deep"


OVERRIDE_KEY_RE = re.compile(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*")


def apply_overrides(raw: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """A copy of `raw` with each "dotted.key=value" override set.

    The value is read as a TOML value when it is one (0.3, [16, 16], "30ns", true), else taken
    as a bare string (30ns, mesh).
    """
    check_nesting(raw)
    result = copy.deepcopy(dict(raw))
    for override in overrides:
        key, separator, text = override.partition("=")
        key = key.strip()
        if not separator or not OVERRIDE_KEY_RE.fullmatch(key):
            raise ConfigError(
                key or override,
                format_value(text) if separator else "(no value)",
                "an override of the form KEY=VALUE with a dotted KEY, e.g. traffic.load=0.3 or "
                "topology.dims=[16,16]",
            )
        set_dotted(result, key.split("."), _parse_override_value(key, text.strip()))
    return result


def _parse_override_value(key: str, text: str) -> Any:
    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise ConfigError(key, NESTED_TOO_DEEP, _NESTED_TOML) from None
    return document["value"] if len(document) == 1 else text


def set_dotted(table: dict[str, Any], parts: list[str], value: Any) -> None:
    for depth, part in enumerate(parts[:-1]):
        child = table.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(
                format_key(parts[: depth + 1]),
                format_value(child),
                f"a table, since the override of '{format_key(parts)}' sets a key inside it",
            )
        table = child
    table[parts[-1]] = value


def load(
    source: Config | Mapping[str, Any] | str | os.PathLike[str], overrides: Iterable[str] = ()
) -> Config:
    """A Config from a Config, a mapping of user-facing keys or a TOML path, with overrides."""
    overrides = list(overrides)
    if isinstance(source, Config):
        if not overrides:
            return source
        raw = source.model_dump(exclude_unset=True)
    elif isinstance(source, Mapping):
        raw = source
    elif isinstance(source, (str, os.PathLike)):
        raw = read_config_toml(source)
    else:
        raise TypeError(f"expected a Config, a mapping or a path, not {type(source).__name__}")
    return Config.from_dict(apply_overrides(raw, overrides))


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a config file, TOML or JSON, as `exanet schema`
    prints it for editors that validate and complete configs: quantities are their strings
    ("100ns", "25GB/s", "4KiB"), link class tables sit in [links] ([links.dim0])."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **Config.model_json_schema()}
