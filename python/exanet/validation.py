"""The validation suite (`exanet validate-model`): named cases, each comparing exanet against a
reference computed without the simulator, listed with their references in docs/validation.md.

A case returns one or more `Check`s (a quantity, its reference, exanet's value, a tolerance and
how they are compared); it passes when every check does. References are closed forms (zero-load
latency per hop, the M/D/1 mean wait), exact channel loads computed here from the routes of the
routing's definition, Little's law between quantities the simulator measures separately, and
published tables (Liu et al., Izu et al., Bhatele et al., Su's Algorithm 1 as printed).

    >>> from exanet.validation import run_cases
    >>> [outcome.passed for outcome in run_cases(["md1_load_0.5"])]
    [True]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from exanet.errors import ConfigError

Mode = Literal["relative", "absolute", "at_most", "at_least"]


@dataclass(frozen=True)
class Check:
    """One compared quantity.

    `mode` says how `tolerance` applies: `relative` passes when |exanet / reference - 1| <=
    tolerance, `absolute` when |exanet - reference| <= tolerance, `at_most` when exanet <=
    reference x (1 + tolerance) (a bound that exanet must not exceed), `at_least` when exanet >=
    reference x (1 - tolerance) (a bound that exanet must reach).
    """

    quantity: str
    reference: float
    exanet: float
    tolerance: float
    mode: Mode = "relative"

    @property
    def error(self) -> float:
        """exanet against the reference: exanet - reference for `absolute`, else relative
        (exanet / reference - 1)."""
        if self.mode == "absolute":
            return self.exanet - self.reference
        if self.reference == 0:
            return 0.0 if self.exanet == 0 else math.inf
        return self.exanet / self.reference - 1

    def __post_init__(self) -> None:  # numpy scalars and ints become plain floats
        for name in ("reference", "exanet", "tolerance"):
            object.__setattr__(self, name, float(getattr(self, name)))

    @property
    def passed(self) -> bool:
        if not (math.isfinite(self.exanet) and math.isfinite(self.reference)):
            return False
        if self.mode == "at_most":
            return self.error <= self.tolerance
        if self.mode == "at_least":
            return self.error >= -self.tolerance
        return abs(self.error) <= self.tolerance


@dataclass(frozen=True)
class Case:
    """A named validation case: `run()` simulates (or not) and returns its checks."""

    name: str
    group: str
    reference: str
    short: bool
    run: Callable[[], list[Check]]


@dataclass(frozen=True)
class Outcome:
    """A case's checks, how long it took, and the error that stopped it (if one did)."""

    case: Case
    checks: list[Check] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.checks) and all(c.passed for c in self.checks)


CASES: dict[str, Case] = {}


def _register(name: str, group: str, reference: str, short: bool, run: Callable[[], list[Check]]):
    if name in CASES:
        raise ValueError(f"validation case {name!r} registered twice")
    CASES[name] = Case(name, group, reference, short, run)


def select(names: Sequence[str] | None = None, full: bool = False) -> list[Case]:
    """The cases to run: `names` (in that order), else the whole set (`full`) or the short set.
    An unknown name is a ConfigError listing the valid names."""
    if names:
        unknown = [n for n in names if n not in CASES]
        if unknown:
            raise ConfigError("--case", ", ".join(unknown), f"one of: {', '.join(CASES)}")
        return [CASES[n] for n in names]
    return [c for c in CASES.values() if full or c.short]


def run_case(case: Case) -> Outcome:
    """Run one case; an exanet error (or a wrong reference setup) becomes a failed outcome."""
    start = time.perf_counter()
    try:
        checks = case.run()
    except Exception as error:  # a case that cannot run is reported as failed, not raised
        return Outcome(case, [], time.perf_counter() - start, f"{type(error).__name__}: {error}")
    return Outcome(case, checks, time.perf_counter() - start)


def run_cases(
    names: Sequence[str] | None = None,
    full: bool = False,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run the selected cases in order (see `select`); `on_done` sees each outcome."""
    outcomes = []
    for case in select(names, full):
        outcome = run_case(case)
        if on_done is not None:
            on_done(outcome)
        outcomes.append(outcome)
    return outcomes


def to_json(outcomes: Iterable[Outcome]) -> list[dict[str, Any]]:
    """Outcomes as plain dicts (the `--json` output)."""
    return [
        {
            "case": o.case.name,
            "group": o.case.group,
            "short": o.case.short,
            "passed": o.passed,
            "seconds": o.seconds,
            "error": o.error,
            "checks": [
                {
                    "quantity": c.quantity,
                    "reference": c.reference,
                    "exanet": c.exanet,
                    "error": c.error,
                    "tolerance": c.tolerance,
                    "mode": c.mode,
                    "passed": c.passed,
                }
                for c in o.checks
            ],
        }
        for o in outcomes
    ]


# ---------------------------------------------------------------------------------------------
# Simulation helpers

#: The default network's timing (docs/configuration.md): NIC links and router-to-router links
#: 20 ns at 25 GB/s, routers 50 ns, 256 B payload + 32 B header.
LINK_NS = 20.0
ROUTER_NS = 50.0
WIRE_BYTES = 256 + 32
BANDWIDTH_BYTES_PER_NS = 25.0
SERIALIZATION_NS = WIRE_BYTES / BANDWIDTH_BYTES_PER_NS  # 11.52 ns


def _simulate(config: dict[str, Any]) -> Any:
    import exanet

    return exanet.simulate(config, progress=False)


def zero_load_latency_ns(hops: float) -> float:
    """A lone packet over `hops` router-to-router links on the default network: the injection
    and ejection links' latency, one router latency per router passed (hops + 1), one link
    latency per hop, and the serialization once (virtual cut-through with equal link speeds;
    docs/architecture.md, Link timing)."""
    return 2 * LINK_NS + (hops + 1) * ROUTER_NS + hops * LINK_NS + SERIALIZATION_NS


# ---------------------------------------------------------------------------------------------
# Patterns and routes, computed here from their definitions (docs/configuration.md,
# docs/routing.md), not by the simulator.


def _coords(router: int, dims: Sequence[int]) -> list[int]:
    out = []
    for k in dims:
        out.append(router % k)
        router //= k
    return out


def _index(coords: Sequence[int], dims: Sequence[int]) -> int:
    index, stride = 0, 1
    for c, k in zip(coords, dims, strict=True):
        index += c * stride
        stride *= k
    return index


def pattern_matrix(pattern: str, n: int, dims: Sequence[int] = ()) -> np.ndarray:
    """Rate from each source endpoint to each destination when every source offers 1: uniform
    (every other endpoint alike), transpose (the two halves of the index bits swapped),
    bit_complement (every bit flipped), tornado (every coordinate + ceil(k/2) - 1 on its ring;
    one endpoint per router). A permutation's fixed points send to themselves."""
    matrix = np.zeros((n, n))
    if pattern == "uniform":
        matrix[:] = 1.0 / (n - 1)
        np.fill_diagonal(matrix, 0.0)
        return matrix
    bits = n.bit_length() - 1
    for s in range(n):
        if pattern == "transpose":
            half = bits // 2
            d = ((s << half) | (s >> half)) & (n - 1)
        elif pattern == "bit_complement":
            d = (n - 1) ^ s
        elif pattern == "tornado":
            d = _index(
                [
                    (c + math.ceil(k / 2) - 1) % k
                    for c, k in zip(_coords(s, dims), dims, strict=True)
                ],
                dims,
            )
        else:
            raise ValueError(f"pattern {pattern!r} has no reference here")
        matrix[s, d] = 1.0
    return matrix


def grid_route(kind: str, dims: Sequence[int], src: int, dst: int) -> list[tuple[int, int, int]]:
    """Dimension-order route between routers of a torus, mesh or HyperX as channels (router,
    dimension, direction or target coordinate). On a torus ring the shorter way; an offset of
    exactly k/2 goes up from an even coordinate and down from an odd one (docs/routing.md)."""
    here = _coords(src, dims)
    target = _coords(dst, dims)
    channels = []
    for dim, k in enumerate(dims):
        while here[dim] != target[dim]:
            router = _index(here, dims)
            if kind == "hyperx":
                channels.append((router, dim, target[dim]))
                here[dim] = target[dim]
                continue
            offset = (target[dim] - here[dim]) % k
            if kind == "mesh":
                up = target[dim] > here[dim]
            else:
                up = 2 * offset < k or (2 * offset == k and here[dim] % 2 == 0)
            channels.append((router, dim, 1 if up else -1))
            here[dim] = (here[dim] + (1 if up else -1)) % k
    return channels


@dataclass(frozen=True)
class RouteStats:
    """Hops per packet (mean and variance over packets) and the largest channel load per unit of
    injection of a traffic matrix under a routing: exact (`exact_load`, the routes are fixed)
    or a lower bound (a cut that routes may cross on several channels, unevenly)."""

    hops_mean: float
    hops_var: float
    max_channel_load: float
    exact_load: bool


def grid_loads(kind: str, dims: Sequence[int], matrix: np.ndarray) -> RouteStats:
    """`matrix` (endpoints x endpoints, `matrix.shape[0] / routers` endpoints per router) routed
    in dimension order (`grid_route`)."""
    routers = math.prod(dims)
    per_router = matrix.shape[0] // routers
    loads: dict[tuple[int, int, int], float] = {}
    moments = np.zeros(3)
    for s, d in zip(*np.nonzero(matrix), strict=True):
        rate = matrix[s, d]
        route = grid_route(kind, dims, int(s) // per_router, int(d) // per_router)
        moments += rate * np.array([1, len(route), len(route) ** 2])
        for channel in route:
            loads[channel] = loads.get(channel, 0.0) + rate
    mean = moments[1] / moments[0]
    busiest = max(loads.values(), default=0.0)
    return RouteStats(mean, moments[2] / moments[0] - mean**2, busiest, exact_load=True)


# ---------------------------------------------------------------------------------------------
# Zero-load latency


def _low_load(topology: dict, routing: dict, pattern: str, vcs: int) -> dict[str, Any]:
    return {
        "seed": 1,
        "topology": topology,
        "routing": routing,
        "router": {"vcs": vcs},
        "traffic": {"pattern": pattern, "process": "bernoulli", "load": 0.01},
        "run": {"warmup": "5us", "measure": "1ms"},
    }


#: Queueing a packet meets at 1% load: an M/D/1 wait of 0.5% of a serialization per hop, far
#: below this share of the zero-load latency.
QUEUEING_ALLOWANCE = 0.002
#: Standard errors a sampled mean may stray before a check fails (a 1 in 15,000 chance).
STANDARD_ERRORS = 4.0


def _zero_load_checks(config: dict[str, Any], stats: RouteStats) -> list[Check]:
    """Mean latency and hops of a low-load run against the lone packet over the routes' hops.
    When hops vary, the measured means are samples: the tolerance is STANDARD_ERRORS standard
    errors of the mean over the measured packets (from the routes' exact hop variance)."""
    s = _simulate(config).summary
    latency = zero_load_latency_ns(stats.hops_mean)
    hops_se = math.sqrt(stats.hops_var / s["packets_measured_delivered"])
    checks = [
        Check(
            "latency_ns_mean",
            latency,
            s["latency_ns_mean"],
            QUEUEING_ALLOWANCE + STANDARD_ERRORS * (ROUTER_NS + LINK_NS) * hops_se / latency,
        ),
        Check(
            "hops_mean",
            stats.hops_mean,
            s["hops_mean"],
            STANDARD_ERRORS * hops_se / stats.hops_mean,
        ),
    ]
    if stats.hops_var == 0:  # every packet takes the same hops: the fastest is the lone packet
        checks.insert(1, Check("latency_ns_min", latency, s["latency_ns_min"], 1e-3, "absolute"))
    return checks


def _zero_load_grid(kind: str, dims: list[int], pattern: str) -> Callable[[], list[Check]]:
    def run() -> list[Check]:
        stats = grid_loads(kind, dims, pattern_matrix(pattern, math.prod(dims), dims))
        config = _low_load(
            {"kind": kind, "dims": dims}, {"kind": "dor"}, pattern, 2 if kind == "torus" else 1
        )
        return _zero_load_checks(config, stats)

    return run


def fat_tree_hops(radix: int, pods: int) -> RouteStats:
    """Hops between distinct endpoints of a full 3-level fat-tree (taper 1:1) under uniform
    traffic: 0 on the same leaf, 2 in the same pod, 4 across pods (channel load not computed)."""
    h = radix // 2
    n = pods * h * h
    weights = np.array([h - 1, h * h - h, n - h * h]) / (n - 1)
    hops = np.array([0.0, 2.0, 4.0])
    mean = float(weights @ hops)
    return RouteStats(mean, float(weights @ hops**2) - mean**2, math.nan, exact_load=False)


def _zero_load_fat_tree() -> list[Check]:
    topology = {"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 8}
    return _zero_load_checks(
        _low_load(topology, {"kind": "minimal"}, "uniform", 4), fat_tree_hops(8, 8)
    )


_ZERO_LOAD_REFERENCE = (
    "lone packet: 2 NIC links + (hops + 1) routers + hops links + one serialization; hops from "
    "routes computed here"
)
_register(
    "zero_load_torus_tornado",
    "zero-load latency",
    _ZERO_LOAD_REFERENCE,
    True,
    _zero_load_grid("torus", [8, 8], "tornado"),
)
_register(
    "zero_load_torus_uniform",
    "zero-load latency",
    _ZERO_LOAD_REFERENCE,
    True,
    _zero_load_grid("torus", [8, 8], "uniform"),
)
_register(
    "zero_load_mesh_uniform",
    "zero-load latency",
    _ZERO_LOAD_REFERENCE,
    True,
    _zero_load_grid("mesh", [6, 5], "uniform"),
)
_register(
    "zero_load_hyperx_bit_complement",
    "zero-load latency",
    _ZERO_LOAD_REFERENCE,
    True,
    _zero_load_grid("hyperx", [4, 4, 4], "bit_complement"),
)
_register(
    "zero_load_fat_tree_uniform",
    "zero-load latency",
    "lone packet as above; hops 0 / 2 / 4 for the same leaf / pod / other pods",
    True,
    _zero_load_fat_tree,
)


# ---------------------------------------------------------------------------------------------
# Channel-load bounds

#: A run's window edges: a link counts a packet when it starts sending it, an endpoint when it
#: arrives, so rates over a finite window can exceed a bound by a few packets' worth.
WINDOW_EDGE = 0.01


def _above_bound(config: dict[str, Any], stats: RouteStats) -> Check:
    """The channel-load bound: at an offered load 10% above 1 / (max channel load), not every
    endpoint can inject it, since the busiest channel would then carry more than its bandwidth;
    the slowest endpoint's injection must stay at or below the bound."""
    bound = min(1.0, 1.0 / stats.max_channel_load)
    high = json_copy(config)
    high["traffic"]["load"] = min(1.0, 1.1 * bound)
    high["run"]["drain"] = "none"
    slowest = float(_simulate(high).endpoints["injected_load"].min())
    return Check("injected_load_min at 1.1 x bound", bound, slowest, WINDOW_EDGE, "at_most")


#: Standard errors the busiest of a network's links may stray: the largest of a few hundred
#: sampled utilizations sits about 3 standard errors above its mean.
BUSIEST_LINK_STANDARD_ERRORS = 5.0


def _saturation_checks(config: dict[str, Any], stats: RouteStats) -> list[Check]:
    """At 5% load for 1 ms: the routes' mean hops (sampled: STANDARD_ERRORS standard errors)
    and the busiest link's utilization, which is the busiest channel's load x the offered load
    (every packet occupies a link for one serialization, as it occupies its injection link):
    equal to it where the routes are fixed, at least it where the load is a cut's. Its tolerance
    is BUSIEST_LINK_STANDARD_ERRORS standard errors of a count of packets on that link. Then
    the channel-load bound (`_above_bound`)."""
    low = json_copy(config)
    low["traffic"]["load"] = 0.05
    low["run"] = {"warmup": "10us", "measure": "1ms"}
    s = _simulate(low).summary
    hops_se = math.sqrt(stats.hops_var / s["packets_measured_delivered"])
    busiest = stats.max_channel_load * s["offered_load"]
    packets_on_busiest = busiest * s["window_ns"] / SERIALIZATION_NS
    return [
        Check(
            "hops_mean at 5% load",
            stats.hops_mean,
            s["hops_mean"],
            STANDARD_ERRORS * hops_se / stats.hops_mean,
        ),
        Check(
            "link_util_max at 5% load",
            busiest,
            s["link_util_max"],
            BUSIEST_LINK_STANDARD_ERRORS / math.sqrt(packets_on_busiest),
            "relative" if stats.exact_load else "at_least",
        ),
        _above_bound(config, stats),
    ]


def json_copy(config: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(config))


def _saturation_config(topology: dict, routing: str, pattern: str, vcs: int) -> dict[str, Any]:
    return {
        "seed": 1,
        "topology": topology,
        "routing": {"kind": routing},
        "router": {"vcs": vcs},
        "traffic": {"pattern": pattern, "process": "bernoulli", "load": 1.0},
        "run": {"warmup": "10us", "measure": "40us"},
    }


def _channel_load_grid(
    kind: str, dims: list[int], pattern: str, concentration: int = 1
) -> Callable[[], list[Check]]:
    def run() -> list[Check]:
        n = math.prod(dims) * concentration
        stats = grid_loads(kind, dims, pattern_matrix(pattern, n, dims))
        topology = {"kind": kind, "dims": dims, "concentration": concentration}
        return _saturation_checks(
            _saturation_config(topology, "dor", pattern, 2 if kind == "torus" else 1), stats
        )

    return run


def _flattened_butterfly_topology(k: int, dimensions: int) -> dict[str, Any]:
    return {"kind": "flattened_butterfly", "k": k, "dimensions": dimensions}


def _channel_load_flattened_butterfly(pattern: str) -> Callable[[], list[Check]]:
    def run() -> list[Check]:
        k, dimensions = 4, 2  # 16 routers, k = 4 endpoints each: 64 endpoints
        dims = [k] * dimensions
        stats = grid_loads("hyperx", dims, pattern_matrix(pattern, k ** (dimensions + 1)))
        config = _saturation_config(_flattened_butterfly_topology(k, dimensions), "dor", pattern, 1)
        return _saturation_checks(config, stats)

    return run


def fat_tree_cut(radix: int, pods: int, taper: tuple[int, int], pattern: str) -> RouteStats:
    """A 3-level fat-tree's leaf and pod up-link cuts: every packet leaving a leaf (a pod) takes
    one of its up-links, so the busiest up-link carries at least the leaf's (pod's) outgoing
    traffic over its up-links. Hops: 0 / 2 / 4 for the same leaf / pod / other pods. Uniform
    traffic or group_shift (every packet to the next pod)."""
    a, b = taper
    h = radix // 2
    per_leaf = radix * a // (a + b)
    up = radix - per_leaf
    per_pod = h * per_leaf
    pod_up = h * up  # the pod's h leaves' up-links meet h level-2 routers with h up-links each
    n = pods * per_pod
    if pattern == "uniform":
        weights = np.array([per_leaf - 1, per_pod - per_leaf, n - per_pod]) / (n - 1)
    elif pattern == "group_shift":
        weights = np.array([0.0, 0.0, 1.0])
    else:
        raise ValueError(f"pattern {pattern!r} has no fat-tree reference here")
    hops = np.array([0.0, 2.0, 4.0])
    mean = float(weights @ hops)
    leaving_leaf = per_leaf * (weights[1] + weights[2]) / up
    leaving_pod = per_pod * weights[2] / min(pod_up, h * h)
    busiest = max(leaving_leaf, leaving_pod)
    return RouteStats(mean, float(weights @ hops**2) - mean**2, busiest, exact_load=False)


def _channel_load_fat_tree(pattern: str) -> list[Check]:
    radix, pods, taper = 8, 8, (3, 1)
    topology = {"kind": "fat_tree", "levels": 3, "radix": radix, "pods": pods, "taper": "3:1"}
    stats = fat_tree_cut(radix, pods, taper, pattern)
    return _saturation_checks(_saturation_config(topology, "minimal", pattern, 4), stats)


def dragonfly_cut(topology: dict[str, Any], pattern: str) -> RouteStats:
    """An all-to-all dragonfly with one global link per pair of groups (g = a h + 1), uniform or
    group_shift traffic. Minimal routes are then unique: a local hop to the router holding the
    global link to the destination group (unless the source holds it), the global link, a local
    hop to the destination router (unless the link lands on it); within a group one local hop.
    Channel load: the cut of each pair of groups, whose one global link carries all the traffic
    between them (the local links are not counted, so this bounds the busiest channel from
    below). The wiring (which router holds which global link) is read from
    `exanet.topology(...).to_networkx()`."""
    import exanet

    graph = exanet.topology(**topology).to_networkx()
    group = {r: graph.nodes[r]["group"] for r in graph.nodes}
    groups = max(group.values()) + 1
    gateway: dict[tuple[int, int], tuple[int, int]] = {}
    for u, v, data in graph.edges(data=True):
        if data["link_class"] == "global":
            for a, b in ((u, v), (v, u)):
                if (group[a], group[b]) in gateway:
                    raise ValueError("the dragonfly reference needs one global link per group pair")
                gateway[group[a], group[b]] = (a, b)
    p = topology["p"]
    n = p * len(group)
    weights = np.zeros((len(group), len(group)))  # router to router, per source endpoint
    for r in group:
        for d in group:
            if pattern == "uniform":
                weights[r, d] = (p if r != d else p - 1) / (n - 1)
            elif pattern == "group_shift" and group[d] == (group[r] + 1) % groups:
                weights[r, d] = 1.0 / topology["a"]
    if pattern not in ("uniform", "group_shift"):
        raise ValueError(f"pattern {pattern!r} has no dragonfly reference here")
    hops = np.zeros_like(weights)
    group_traffic = np.zeros((groups, groups))
    for r, d in zip(*np.nonzero(weights), strict=True):
        if r == d:
            continue
        if group[r] == group[d]:
            hops[r, d] = 1
            continue
        out, into = gateway[group[r], group[d]]
        hops[r, d] = (r != out) + 1 + (into != d)
        group_traffic[group[r], group[d]] += p * weights[r, d]
    total = weights.sum()
    mean = float((weights * hops).sum() / total)
    var = float((weights * hops**2).sum() / total) - mean**2
    return RouteStats(mean, var, float(group_traffic.max()), exact_load=False)


def _channel_load_dragonfly(pattern: str) -> list[Check]:
    topology = {"kind": "dragonfly", "p": 4, "a": 4, "h": 2}
    stats = dragonfly_cut(topology, pattern)
    return _saturation_checks(_saturation_config(topology, "minimal", pattern, 2), stats)


_GRID_LOAD_REFERENCE = "exact channel loads of the dimension-order routes, computed here"
for _kind, _pattern, _short in (
    ("torus", "uniform", True),
    ("torus", "transpose", False),
    ("torus", "tornado", True),
    ("torus", "bit_complement", False),
    ("mesh", "uniform", False),
    ("mesh", "transpose", False),
    ("mesh", "bit_complement", False),
):
    _register(
        f"channel_load_{_kind}_{_pattern}",
        "channel-load bound",
        _GRID_LOAD_REFERENCE,
        _short,
        _channel_load_grid(_kind, [8, 8], _pattern),
    )
for _pattern, _short in (("uniform", False), ("transpose", False), ("bit_complement", True)):
    _register(
        f"channel_load_flattened_butterfly_{_pattern}",
        "channel-load bound",
        _GRID_LOAD_REFERENCE,
        _short,
        _channel_load_flattened_butterfly(_pattern),
    )
for _pattern, _short in (("uniform", False), ("group_shift", False)):
    _register(
        f"channel_load_fat_tree_{_pattern}",
        "channel-load bound",
        "leaf and pod up-link cuts (closed form)",
        _short,
        lambda pattern=_pattern: _channel_load_fat_tree(pattern),
    )
    _register(
        f"channel_load_dragonfly_{_pattern}",
        "channel-load bound",
        "global links between each pair of groups (counted in the wiring)",
        _pattern == "group_shift",
        lambda pattern=_pattern: _channel_load_dragonfly(pattern),
    )


# ---------------------------------------------------------------------------------------------
# M/D/1: one link


def md1_wait_ns(load: float, service_ns: float) -> float:
    """Mean wait in queue of an M/D/1 queue (Pollaczek-Khinchine with deterministic service):
    rho S / (2 (1 - rho))."""
    return load * service_ns / (2 * (1 - load))


#: Relative tolerance of the mean wait over 20 ms: ten seeds of 2 ms each scatter by 2.0%
#: (10% load), 0.8-1.2% (30-80%) and 2.5% (90%) around a mean within 0.25% of the closed
#: form, so 20 ms scatter by at most 0.8%; 3% is about 4 standard errors.
MD1_TOLERANCE = 0.03


def _md1(load: float) -> list[Check]:
    """Two endpoints on two routers of a 2-router mesh send to each other (bit_complement):
    Poisson arrivals of 288 B packets into the NIC's queue, served by the 25 GB/s injection link
    in 11.52 ns. Buffers of 64 KiB keep the network from pushing back, so packets wait only at
    the NIC: the wait is latency (from generation) minus network latency (from the head leaving
    the NIC), and network latency is the constant one-hop zero-load latency."""
    config = {
        "seed": 1,
        "topology": {"kind": "mesh", "dims": [2]},
        "routing": {"kind": "dor"},
        "router": {"vcs": 1, "vc_buffer": "64KiB"},
        "traffic": {"pattern": "bit_complement", "process": "poisson", "load": load},
        "run": {"warmup": "20us", "measure": "20ms"},
    }
    s = _simulate(config).summary
    wait = s["latency_ns_mean"] - s["network_latency_ns_mean"]
    return [
        Check("wait_ns_mean", md1_wait_ns(load, SERIALIZATION_NS), wait, MD1_TOLERANCE),
        Check(
            "network_latency_ns_max",
            zero_load_latency_ns(1),
            s["network_latency_ns_max"],
            1e-3,
            "absolute",
        ),
    ]


for _load in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
    _register(
        f"md1_load_{_load}",
        "M/D/1 single link",
        "Pollaczek-Khinchine mean wait rho S / (2 (1 - rho))",
        _load in (0.1, 0.5, 0.9),
        lambda load=_load: _md1(load),
    )


# ---------------------------------------------------------------------------------------------
# Little's law, and Liu et al.'s Tables 1-2 at reduced sizes

#: Little's law holds exactly in steady state; over a finite window the packets in flight at
#: its edges make L and lambda W differ by a little. 003's own simulations agree with it within
#: 0.01% to 3.2% (Table 1 8^8 at 4 packets/ns; 1.2% for the rest).
LITTLE_TOLERANCE = 0.02


def _little(dims: list[int], load: float, measure: str = "50us") -> list[Check]:
    """A torus with dimension-order routing on 2 VCs and Poisson uniform traffic (003's set-up):
    the time-average of packets in flight (L, counted by the simulator as packets are generated
    and delivered) against the accepted packet rate x the mean latency of the packets delivered
    in the window (lambda W, from the packets' own timestamps)."""
    config = {
        "seed": 1,
        "topology": {"kind": "torus", "dims": dims},
        "routing": {"kind": "dor"},
        "router": {"vcs": 2},
        "traffic": {"pattern": "uniform", "process": "poisson", "load": load},
        "run": {"warmup": "10us", "measure": measure, "drain": "none"},
    }
    s = _simulate(config).summary
    rate_per_ns = s["accepted_packets_per_ns"] * s["endpoints"]
    return [
        Check(
            "latency_ns (L / lambda vs measured)",
            s["in_flight_packets_mean"] / rate_per_ns,
            s["littles_law_packets"] / rate_per_ns,
            LITTLE_TOLERANCE,
        )
    ]


for _load, _short in ((0.05, False), (0.15, True), (0.25, False)):
    _register(
        f"littles_law_torus_8x8_load_{_load}",
        "Little's law",
        "L = lambda W between separately measured L, lambda and W",
        _short,
        lambda load=_load: _little([8, 8], load),
    )

# 003's tori, each reduced to a few thousand endpoints with its radix k kept (8^8 -> 8^4,
# 16^6 -> 16^3, 64^4 -> 64^2; 8^10 -> 8^4 is Table 2's first row, 32^6 -> 32^2, 64^5 -> 64^2),
# at a light load like theirs (0.5-50 packets/ns over 16 million or a billion nodes).
for _table, _k, _n, _short in (
    ("table1", 8, 4, False),
    ("table1", 16, 3, False),
    ("table1", 64, 2, False),
    ("table2", 32, 2, True),
):
    _register(
        f"liu2012_{_table}_{_k}ary_{_n}cube",
        "003 Little's law",
        "L / lambda against the measured latency, as Liu et al. Tables 1-2",
        _short,
        lambda k=_k, n=_n: _little([k] * n, 0.05, "20us"),
    )


# ---------------------------------------------------------------------------------------------
# Bhatele et al. (004): Table 2's structure and Table 4's costs


def _bhatele(index: int) -> list[Check]:
    """One Table 2 design built by the core (`exanet.topology(...).describe()`): nodes, routers
    and links must equal the published row; its cost (`exanet.cost` on the built network's links
    per class, with `exanet.iso.BHATELE2019_COST`) must equal Table 4 to the cent."""
    import exanet
    from exanet.cost import network_cost
    from exanet.iso import BHATELE2019_COST, bhatele2019

    design = bhatele2019()[index]
    built = exanet.topology(**design.topology).describe()
    cost = network_cost(
        design.topology, built["links_by_class"], built["routers"], BHATELE2019_COST
    )
    published = design.published
    return [
        Check("nodes", published["nodes"], built["endpoints"], 0, "absolute"),
        Check("routers", published["routers"], built["routers"], 0, "absolute"),
        Check("links", published["links"], built["network_links"], 0, "absolute"),
        Check("cost (Table 4)", published["cost"], cost["cost"], 0.5, "absolute"),
    ]


def _bhatele_names() -> list[tuple[str, int]]:
    from exanet.iso import bhatele2019

    return [(f"bhatele2019_iso_{d.constraint}_{d.family}", i) for i, d in enumerate(bhatele2019())]


for _name, _design in _bhatele_names():
    _register(
        _name,
        "004 Tables 2 and 4",
        "the published row of Table 2 and cost of Table 4",
        _name
        in (
            "bhatele2019_iso_N_dragonfly_rc",
            "bhatele2019_iso_N_express_mesh",
            "bhatele2019_iso_N_fat_tree",
        ),
        lambda index=_design: _bhatele(index),
    )


# ---------------------------------------------------------------------------------------------
# Su's Algorithm 1 (000), worked by hand from the printed listing

#: (timeline, cap, the listing traced by hand, slot by slot). The first keeps every slot read
#: by the loop; the second ends with 6 units still carried when the listing stops reading, which
#: the text amortizes over subsequent slots (4 then 2).
ALGORITHM1_WORKED = (
    ([5, 1, 0, 8, 2, 0, 0], 4, [4, 2, 0, 4, 4, 2, 0, 0]),
    ([10], 4, [4, 4, 2]),
)


def _algorithm1() -> list[Check]:
    """`exanet.analysis.capped_timeline` against the hand-traced listing: the slots that differ
    (a missing or extra slot counts as one), which must be none."""
    from exanet.analysis.projection import capped_timeline

    checks = []
    for timeline, cap, expected in ALGORITHM1_WORKED:
        got = [float(v) for v in capped_timeline(timeline, cap)]
        differing = abs(len(got) - len(expected)) + sum(
            abs(a - b) > 1e-12 for a, b in zip(got, expected, strict=False)
        )
        checks.append(
            Check(f"{timeline} cap {cap}: slots unlike {expected}", 0, differing, 0, "absolute")
        )
    return checks


_register(
    "su_algorithm1_worked",
    "000 Algorithm 1",
    "the printed listing traced by hand (docs/validation.md)",
    True,
    _algorithm1,
)


# ---------------------------------------------------------------------------------------------
# Izu, Miguel-Alonso and Gregorio (002): Tables 1 and 2

#: 002's network in exanet's units, 1 cycle = 1 ns and 1 phit = 1 B: a 32x32 torus, minimal
#: adaptive routing with a bubble escape channel on 3 VCs, buffers of 8 packets of 16 phits,
#: links of 1 phit per cycle and 1 cycle; throughput in phits/cycle/node is then the load. As in
#: 002, a permutation's fixed points stay silent (`traffic.fixed_points`).
IZU_NETWORK: dict[str, Any] = {
    "seed": 1,
    "topology": {"kind": "torus", "dims": [32, 32]},
    "routing": {"kind": "minimal", "escape": "bubble"},
    "router": {"vcs": 3, "vc_buffer": "128B", "latency": "1ns"},
    "links": {"latency": "1ns", "bandwidth": "1GB/s"},
    "nic": {
        "injection_bandwidth": "1GB/s",
        "injection_latency": "1ns",
        "mtu": "16B",
        "header": "0B",
    },
}
IZU_PATTERNS = {"UN": "uniform", "TR": "transpose", "SH": "shuffle"}
#: Table 1's average throughput beyond saturation, and Table 2's under 5 bursts (phits/cycle/node).
IZU_TABLE1 = {
    ("UN", 0): 0.205,
    ("UN", 1): 0.243,
    ("TR", 0): 0.132,
    ("TR", 1): 0.098,
    ("SH", 0): 0.125,
    ("SH", 1): 0.119,
}
IZU_TABLE2 = {
    ("UN", 0): 0.192,
    ("UN", 1): 0.220,
    ("TR", 0): 0.087,
    ("TR", 1): 0.123,
    ("SH", 0): 0.055,
    ("SH", 1): 0.060,
}
#: Both simulators model a VCT router, but not the same one (arbitration, pipeline, source
#: queues): agreement within 10% is what a reproduction at this level can claim.
IZU_TOLERANCE = 0.10


def _izu_table1(pattern: str, ipr: int) -> list[Check]:
    """Bernoulli sources at applied load 1 (beyond saturation), 20 us warm-up and 20 us (20,000
    cycles) measured: the mean accepted load over endpoints."""
    config = json_copy(IZU_NETWORK)
    config["router"]["in_transit_priority"] = float(ipr)
    config["traffic"] = {
        "pattern": IZU_PATTERNS[pattern],
        "process": "bernoulli",
        "load": 1.0,
        "packet": "16B",
        "fixed_points": "silent",
    }
    config["run"] = {"warmup": "20us", "measure": "20us", "drain": "none"}
    s = _simulate(config).summary
    return [
        Check(
            "accepted_load (phits/cycle/node)",
            IZU_TABLE1[pattern, ipr],
            s["accepted_load"],
            IZU_TOLERANCE,
        )
    ]


def _izu_table2(pattern: str, ipr: int) -> list[Check]:
    """5 bursts of 100 packets per node (the paper's are 1K: reduced 10x), restarted after 1
    cycle: all packets delivered over the completion time, per node."""
    config = json_copy(IZU_NETWORK)
    config["router"]["in_transit_priority"] = float(ipr)
    config["traffic"] = {
        "kind": "burst",
        "pattern": IZU_PATTERNS[pattern],
        "packet": "16B",
        "packets_per_burst": 100,
        "bursts": 5,
        "restart_delay": "1ns",
        "fixed_points": "silent",
    }
    s = _simulate(config).summary
    throughput = s["burst_throughput_packets_per_ns"] / s["endpoints"] * 16
    return [
        Check(
            "burst throughput (phits/cycle/node)",
            IZU_TABLE2[pattern, ipr],
            throughput,
            IZU_TOLERANCE,
        )
    ]


for _pattern, _ipr in IZU_TABLE1:
    _register(
        f"izu2004_table1_{_pattern}_ipr_{'on' if _ipr else 'off'}",
        "002 Tables 1 and 2",
        "Table 1, average throughput beyond saturation",
        False,
        lambda pattern=_pattern, ipr=_ipr: _izu_table1(pattern, ipr),
    )
for _pattern, _ipr in IZU_TABLE2:
    _register(
        f"izu2004_table2_{_pattern}_ipr_{'on' if _ipr else 'off'}",
        "002 Tables 1 and 2",
        "Table 2, throughput over 5 bursts (reduced to 100 packets each)",
        False,
        lambda pattern=_pattern, ipr=_ipr: _izu_table2(pattern, ipr),
    )
