"""One schema: every config the Python layer accepts, the core accepts too (its own validation,
`exanet._core.validate` through `exanet.validate`), or refuses naming a key the user wrote.

The configs: the TOML snippets of README.md and docs/, the configs the examples build, the round
trips of the config and topology tests, and configs generated over the schema's models.
"""

from __future__ import annotations

import re
import shutil
import sys
import tomllib
import types
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import exanet
from exanet.config import Config, read_config_toml
from exanet.errors import ConfigError
from exanet.topologies import TOPOLOGY_KINDS, valid_tapers
from exanet.traces.samples import SAMPLES_DIRECTORY
from exanet.workloads import TrafficPattern

ROOT = Path(__file__).resolve().parents[2]
U64_MAX = 2**64 - 1

# -- what counts as a user key ------------------------------------------------------------------


def _models(annotation: Any) -> list[Any]:
    """The models and tables an annotation may hold (Annotated, Optional, unions and lists
    opened: list indices are not parts of a dotted key here)."""
    origin = get_origin(annotation)
    if origin is Annotated or origin is list:
        return _models(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return [member for arg in get_args(annotation) for member in _models(arg)]
    return [annotation]


def _child(annotation: Any, part: str) -> list[Any]:
    children = []
    for member in _models(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            inline = getattr(member, "_inline_tables_field", None)
            if part in member.model_fields and part != inline:
                children.append(member.model_fields[part].annotation)
            elif inline is not None:  # [links.CLASS]: any name is a class table
                children.append(get_args(member.model_fields[inline].annotation)[1])
        elif get_origin(member) is dict:
            children.append(get_args(member)[1])
        elif member is Any:
            children.append(Any)
    return children


def schema_has_key(key: str) -> bool:
    """Whether a dotted key ("topology.dims[1]", "links.dim0.latency", "traffic.jobs[0].ranks")
    names a place in the config schema, as a user writes it."""
    if key == "config":  # the whole file or document
        return True
    parts = [part for part in re.sub(r"\[\d+\]", "", key).split(".")]
    annotations: list[Any] = [Config]
    for part in parts:
        annotations = [child for a in annotations for child in _child(a, part)]
        if not annotations:
            return False
    return True


def assert_user_key(error: ConfigError) -> None:
    for key, value, _ in error.errors:
        assert schema_has_key(key), f"{key!r} is no user key: {error}"
        assert value != "(core JSON)", str(error)


def test_schema_has_key():
    keys = ("seed", "topology.dims[1]", "topology.base.q", "links.dim0.latency", "config")
    for key in (*keys, "traffic.jobs[0].app", "traffic.jobs[1].params.anything"):
        assert schema_has_key(key), key
    for key in ("router.latency_ps", "topology.graph", "traffic.packet_bytes", "routing.paths.str"):
        assert not schema_has_key(key), key


# -- the contract -------------------------------------------------------------------------------


def check_contract(raw: Any, *, must_run: bool) -> dict[str, Any] | None:
    """Validate `raw` in Python and in the core. A config the examples and docs give (`must_run`)
    must pass both; any other may be refused by the core, naming a user key."""
    config = Config.from_dict(raw) if not isinstance(raw, Config) else raw
    try:
        summary = exanet.validate(config)
    except ConfigError as error:
        assert not must_run, str(error)
        assert_user_key(error)
        return None
    ports = sum(config.topology.router_ports().values())
    assert ports == summary["ports_per_router"], config.topology
    return summary


# -- the configs of the docs and examples --------------------------------------------------------

RING_PROGRAM = """\
from exanet.program import irecv, isend, wait


def program(rank, size, bytes="4KiB"):
    r = yield irecv((rank - 1) % size, bytes)
    yield isend((rank + 1) % size, bytes)
    yield wait(r)
"""


def toml_snippets() -> list[tuple[str, str]]:
    snippets = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^```toml\n(.*?)^```", text, flags=re.S | re.M):
            line = text[: match.start()].count("\n") + 1
            snippets.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return snippets


#: Snippets that show what an error looks like (docs/errors.md): refused as the page says.
ERROR_SNIPPETS = [(where, text) for where, text in toml_snippets() if "errors.md" in where]
SNIPPETS = [(where, text) for where, text in toml_snippets() if "errors.md" not in where]


def test_the_docs_have_toml_snippets():
    assert len(SNIPPETS) >= 8
    assert len(ERROR_SNIPPETS) == 1


def test_the_error_page_shows_the_errors_of_its_snippet():
    ((_, text),) = ERROR_SNIPPETS
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    shown = page[page.index("error: 3 problems") :].split("```")[0].splitlines()
    with pytest.raises(ConfigError) as caught:
        Config.from_dict(tomllib.loads(text))
    assert f"error: {caught.value}".splitlines()[0] == shown[0]
    for line, (key, value, expected) in zip(shown[1:], caught.value.errors, strict=True):
        assert line.startswith(f"  config key '{key}' = {value} is invalid: ")
        documented = line.split(" is invalid: ", 1)[1]
        assert documented == expected or expected.startswith(documented.removesuffix(", ...)"))


@pytest.mark.parametrize(("where", "text"), SNIPPETS, ids=[where for where, _ in SNIPPETS])
def test_doc_snippets_run(tmp_path, where, text):
    """A snippet completed with what it leaves out (a 4x4 torus, 10% load; a sweep's table
    dropped) and the files it names, next to it (the sample traces in traces/, as the README's
    tour writes them)."""
    path = tmp_path / "snippet.toml"
    path.write_text(text)
    raw = read_config_toml(path)
    raw.pop("sweep", None)
    raw.setdefault("topology", {"kind": "torus", "dims": [4, 4]})
    raw.setdefault("traffic", {"load": 0.1})
    (tmp_path / "ring.py").write_text(RING_PROGRAM)
    shutil.copytree(SAMPLES_DIRECTORY, tmp_path / "traces")
    endpoints = exanet.topology(raw["topology"]).describe()["endpoints"]
    rows = [",".join("1" for _ in range(endpoints))] * endpoints
    (tmp_path / "traffic.csv").write_text("\n".join(rows) + "\n")
    check_contract(raw, must_run=True)


def example_configs() -> list[tuple[str, dict[str, Any]]]:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import bursts_ipr
        import compare_routing
        import jobs_mix
        import littles_law_torus
        import routing_dragonfly
        import routing_torus
        import updown_injection
        import updown_latency_tolerance as tolerance
    finally:
        sys.path.remove(str(ROOT / "examples"))
    configs = [
        (f"bursts_ipr {pattern} {column}", bursts_ipr.burst_config(pattern, *settings_))
        for pattern in bursts_ipr.PATTERNS
        for column, settings_ in bursts_ipr.COLUMNS.items()
    ]
    configs += [
        (f"jobs_mix {routing} {placement}", jobs_mix.jobs_config(routing, placement, 1))
        for routing in jobs_mix.ROUTINGS
        for placement in jobs_mix.PLACEMENTS
    ]
    configs += [
        (f"littles_law {size}", littles_law_torus.torus_config(dims, 0.01, "2us", "5us", 2))
        for size, dims in (("16^3", [16] * 3), ("8^5", [8] * 5))
    ]
    configs += [
        (
            f"routing_dragonfly {kind}",
            compare_routing.network_config(
                routing_dragonfly.TOPOLOGY, {"kind": kind}, routing_dragonfly.ROUTER, "uniform", 0.3
            ),
        )
        for kind in routing_dragonfly.ROUTINGS
    ]
    configs += [
        (
            f"routing_torus {name}",
            compare_routing.network_config(
                routing_torus.TOPOLOGY, routing, {"vcs": vcs, "vc_buffer": "4KiB"}, "tornado", 0.3
            ),
        )
        for name, (routing, vcs) in routing_torus.ROUTINGS.items()
    ]
    caps = [
        {} if cap is None else {"injection_cap": f"{cap:g}TB/s"}
        for cap in updown_injection.CAPS_TB_PER_S
    ]
    delays = [{"eligibility_delay": delay} for delay in updown_injection.DELAYS]
    configs += [(f"updown {nic}", updown_injection.with_nic(**nic)) for nic in caps + delays]
    configs += [
        (f"updown_latency_tolerance {app[0]} {cap}", tolerance.config(app, 2, 2, 500_000, cap))
        for app in tolerance.APPS
        for cap in (None, 3.0)
    ]
    return configs


EXAMPLES = example_configs()


@pytest.mark.parametrize(("name", "raw"), EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_example_configs_run(name, raw):
    check_contract(raw, must_run=True)


def round_trips() -> list[tuple[str, Any]]:
    from test_config import FULL_TOML, MINIMAL
    from test_topologies import ROUND_TRIPS

    cases: list[tuple[str, Any]] = [("minimal", MINIMAL), ("full", tomllib.loads(FULL_TOML))]
    cases += [
        (table["kind"], {"topology": table, "traffic": {"load": 0.1}}) for table, _ in ROUND_TRIPS
    ]
    return cases


ROUND_TRIPS = round_trips()


@pytest.mark.parametrize(("name", "raw"), ROUND_TRIPS, ids=[name for name, _ in ROUND_TRIPS])
def test_round_trips_reach_the_core(name, raw):
    config = Config.from_dict(raw)
    # every form Python writes back is a config Python reads, with the same core JSON
    for dumped in (config.model_dump(), config.model_dump(exclude_unset=True)):
        assert Config.from_dict(dumped).to_core() == config.to_core()
    # minimal routing on some families needs more VCs than the default 2, which only the core
    # knows: refused naming router.vcs
    check_contract(config, must_run=False)


# -- generated configs ----------------------------------------------------------------------------

small = st.integers


def optional(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


def table(required: dict[str, Any], **maybe: st.SearchStrategy) -> st.SearchStrategy:
    """A table with the `required` keys and any of `maybe` (left out when None)."""
    return st.fixed_dictionaries(
        {k: v if isinstance(v, st.SearchStrategy) else st.just(v) for k, v in required.items()},
        optional=maybe,
    )


def _fat_tree(radix: int) -> st.SearchStrategy:
    tapers = [taper.strip('"') for taper in valid_tapers(radix)]
    return table(
        {"kind": "fat_tree", "radix": radix},
        levels=small(2, 3),
        pods=small(2, radix),
        taper=st.sampled_from(tapers),
    )


ARRANGEMENTS = st.sampled_from(["absolute", "relative", "circulant"])
RING = [[0, 1], [1, 2], [2, 0]]
K4 = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]


@st.composite
def custom_graph(draw: Any) -> dict[str, Any]:
    routers = draw(small(2, 12))
    links = [[i, i + 1] for i in range(routers - 1)]  # a path keeps it connected
    extra = draw(st.lists(st.tuples(small(0, routers - 1), small(0, routers - 1)), max_size=8))
    links += [[a, b, draw(st.sampled_from(["network", "optical"]))] for a, b in extra if a != b]
    graph: dict[str, Any] = {"kind": "custom", "edges": links}
    if draw(st.booleans()):
        graph["endpoints"] = draw(st.lists(small(0, 3), min_size=routers, max_size=routers))
    else:
        graph["concentration"] = draw(small(1, 3))
    return graph


def grid(kind: str) -> st.SearchStrategy:
    return table(
        {"kind": kind, "dims": st.lists(small(2, 5), min_size=1, max_size=3)},
        concentration=small(1, 3),
    )


def dragonfly_plus(kind: str) -> st.SearchStrategy:
    return table(
        {"kind": kind, "leaves": small(1, 3), "spines": small(1, 3)},
        p=small(1, 2),
        h=small(1, 3),
        g=small(2, 10),
        arrangement=ARRANGEMENTS,
    )


def fishnet(kind: str) -> st.SearchStrategy:
    bases = ["petersen", {"kind": "slim_fly", "q": 3}]
    bases += [{"kind": "custom", "edges": RING}, {"kind": "custom", "edges": K4}]
    return table({"kind": kind, "base": st.sampled_from(bases)}, p=small(1, 2))


TOPOLOGY_STRATEGIES = {
    "torus": grid("torus"),
    "mesh": grid("mesh"),
    "express_mesh": st.lists(small(2, 6), min_size=1, max_size=2).flatmap(
        lambda dims: table(
            {"kind": "express_mesh", "dims": dims},
            gap=small(1, max(max(dims) - 1, 1)),
            concentration=small(1, 2),
        )
    ),
    "hyperx": table(
        {"kind": "hyperx", "dims": st.lists(small(2, 5), min_size=1, max_size=2)},
        concentration=small(1, 2),
    ),
    "flattened_butterfly": table(
        {"kind": "flattened_butterfly", "k": small(2, 4), "dimensions": small(1, 2)},
        concentration=small(1, 3),
    ),
    "fat_tree": st.sampled_from([4, 6, 8]).flatmap(_fat_tree),
    "dragonfly": table(
        {"kind": "dragonfly", "a": small(2, 4), "h": small(1, 2)},
        p=small(1, 2),
        g=small(2, 9),
        arrangement=ARRANGEMENTS,
    ),
    "dragonfly_rc": table(
        {
            "kind": "dragonfly_rc",
            "p": small(1, 2),
            "rows": small(1, 2),
            "cols": small(1, 3),
            "h": small(1, 2),
        },
        local_links=small(1, 2),
        g=small(2, 7),
        arrangement=ARRANGEMENTS,
    ),
    "dragonfly_plus": dragonfly_plus("dragonfly_plus"),
    "megafly": dragonfly_plus("megafly"),
    "slim_fly": table({"kind": "slim_fly", "q": st.sampled_from([3, 4, 5, 6, 7])}, p=small(1, 4)),
    "polarfly": table({"kind": "polarfly", "q": st.sampled_from([2, 3, 4, 5, 6])}, p=small(1, 3)),
    "midimew": table({"kind": "midimew", "nodes": small(5, 40)}, concentration=small(1, 3)),
    "jellyfish": table(
        {"kind": "jellyfish", "routers": small(4, 20), "degree": small(2, 3), "p": small(1, 2)},
        seed=st.sampled_from([0, 1, U64_MAX]),
    ),
    "fishnet": fishnet("fishnet"),
    "fishnet_lite": fishnet("fishnet_lite"),
    "custom": custom_graph(),
}
TOPOLOGIES = st.one_of(*TOPOLOGY_STRATEGIES.values())


def test_every_topology_kind_is_generated():
    assert set(TOPOLOGY_STRATEGIES) == set(TOPOLOGY_KINDS)


TIMES = st.sampled_from(["1ps", "500ps", "20ns", "1.5us", "18446744.073709551615s"])
SIZES = st.sampled_from(["1B", "64B", "256B", "4KiB", "64KiB"])
BANDWIDTHS = st.sampled_from(["1B/s", "200Gb/s", "25GB/s", "18446744073709551615B/s"])
ROUTINGS = st.one_of(
    table(
        {"kind": "dor"},
        allow_unsafe=st.booleans(),
        vc_rule=st.sampled_from(["dateline", "digit_compare"]),
    ),
    table(
        {"kind": "minimal"},
        selection=st.sampled_from(["adaptive", "random", "destination"]),
        escape=st.sampled_from(["none", "dor", "bubble"]),
        threshold=st.floats(0, 4),
    ),
    st.sampled_from(["valiant", "ugal_l", "ugal_g", "par", "fishnet_adaptive"]).flatmap(
        lambda kind: (
            table({"kind": kind})
            if kind == "valiant"
            else table({"kind": kind}, threshold=st.floats(0, 2))
        )
    ),
)
# Every pattern but "matrix", which needs a matrix of its own.
PATTERNS = st.sampled_from([p for p in get_args(TrafficPattern) if p != "matrix"])
TRAFFIC = st.one_of(
    table(
        {"load": st.floats(0.001, 1)},
        pattern=PATTERNS,
        process=st.sampled_from(["bernoulli", "poisson"]),
        packet=SIZES | st.just({"16B": 0.45, "32B": 0.35, "80B": 0.2}),
        hotspot_fraction=st.floats(0, 1),
    ),
    table(
        {"kind": "burst"},
        pattern=PATTERNS,
        packet=st.sampled_from(["16B", "256B"]),
        packets_per_burst=small(1, 1000),
        bursts=small(1, 5),
        restart_delay=TIMES,
    ),
)
CONFIGS = st.fixed_dictionaries(
    {"topology": TOPOLOGIES, "traffic": TRAFFIC},
    optional={
        "seed": st.sampled_from([0, 7, U64_MAX]),
        "routing": ROUTINGS,
        "router": table(
            {},
            vcs=small(1, 16),
            vc_buffer=SIZES | st.just(2**32 - 1),
            latency=TIMES,
            arbitration=st.sampled_from(["round_robin", "age"]),
            in_transit_priority=st.booleans() | st.floats(0, 1),
        ),
        "links": table({}, latency=TIMES, bandwidth=BANDWIDTHS),
        "nic": table(
            {},
            injection_bandwidth=BANDWIDTHS,
            injection_latency=TIMES,
            mtu=SIZES,
            header=st.sampled_from(["0B", "32B"]),
            max_outstanding_packets=st.sampled_from([0, 1, 2**32 - 1]),
            eligibility_delay=TIMES,
        ),
        "run": st.one_of(
            table(
                {}, warmup=TIMES, measure=TIMES, drain=st.sampled_from(["measured", "all", "none"])
            ),
            table({"duration": TIMES}),
        ),
        "record": table(
            {},
            traffic_matrix=st.sampled_from(["off", "endpoints", "routers", "groups", "auto"]),
            injection_bin=st.sampled_from(["50ns", "1us"]),
            packet_sizes=st.booleans(),
        ),
        "threads": small(1, 4),
    },
)


@settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(CONFIGS)
def test_generated_configs(raw):
    """Python may refuse a generated config (a combination it checks, such as a gap wider than
    the mesh); whatever it accepts, the core accepts or refuses naming a user key."""
    try:
        config = Config.from_dict(raw)
    except ConfigError as error:
        assert_user_key(error)
        return
    check_contract(config, must_run=False)
