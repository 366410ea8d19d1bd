import json

import pytest

from exanet.config import Config, apply_overrides, load, read_toml
from exanet.errors import ConfigError

MINIMAL = {"topology": {"kind": "torus", "dims": [8, 8]}, "traffic": {"load": 0.5}}

MINIMAL_CORE = {
    "seed": 1,
    "topology": {"kind": "torus", "dims": [8, 8], "concentration": 1},
    "routing": {"kind": "dor", "allow_unsafe": False, "vc_rule": "dateline"},
    "router": {
        "vcs": 2,
        "vc_buffer_bytes": 2048,
        "latency_ps": 50_000,
        "output_latency_ps": 0,
        "arbitration": "round_robin",
        "in_transit_priority": False,
        "packet_rate_per_s": 0,
        "packet_rate_window_ps": 50_000,
        "message_classes": 1,
        "priority": "none",
    },
    "links": {
        "default": {"latency_ps": 20_000, "bandwidth_bytes_per_s": 25_000_000_000},
        "classes": {},
    },
    "nic": {
        "injection_bandwidth_bytes_per_s": 25_000_000_000,
        "injection_latency_ps": 20_000,
        "mtu_bytes": 4096,
        "header_bytes": 32,
        "max_outstanding_packets": 0,
        "eligibility_delay_ps": 0,
        "injection_cap_bytes": 0,
        "injection_cap_window_ps": 50_000,
        "injection_vcs": 0,
        "packet_rate_per_s": 0,
        "striping": "message",
    },
    "traffic": {
        "kind": "synthetic",
        "pattern": "uniform",
        "process": "bernoulli",
        "load": 0.5,
        "packet_bytes": 256,
        "hotspot_endpoints": [0],
        "hotspot_fraction": 0.1,
        "matrix": None,
        "fixed_points": "send",
    },
    "run": {
        "warmup_ps": 10_000_000,
        "measure_ps": 50_000_000,
        "drain": "measured",
        "drain_limit_ps": None,
        "duration_ps": None,
        "deadlock_timeout_ps": None,
    },
    "record": {"traffic_matrix": "off", "injection_bin_ps": 0, "packet_sizes": False},
    "threads": 1,
}

FULL_TOML = """
seed = 7
[topology]
kind = "mesh"
dims = [4, 6, 2]
concentration = 2
[routing]
kind = "dor"
allow_unsafe = true
[router]
vcs = 4
vc_buffer = 8192
latency = "30ns"
arbitration = "age"
in_transit_priority = true
packet_rate = "800Mpps"
packet_rate_window = "100ns"
[links]
latency = "10ns"
bandwidth = "200Gb/s"
[links.dim1]
bandwidth = "50GB/s"
[links.dim2]
latency = "1.5us"
[nic]
injection_bandwidth = "12.5GB/s"
mtu = "1KiB"
header = "16B"
packet_rate = "120Mpps"
[traffic]
kind = "synthetic"
pattern = "hotspot"
process = "poisson"
load = 1
packet = "8KiB"
hotspot_endpoints = [3, 5]
hotspot_fraction = 0.25
[run]
warmup = "0ns"
measure = "2us"
drain = "all"
drain_limit = "1ms"
deadlock_timeout = "5us"
"""


def config_error(source, overrides=()) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load(source, overrides)
    return caught.value


def test_minimal_config_to_core_fills_every_default():
    assert Config.from_dict(MINIMAL).to_core() == MINIMAL_CORE


def test_to_core_is_json_serializable():
    assert json.loads(json.dumps(Config.from_dict(MINIMAL).to_core())) == MINIMAL_CORE


def test_full_toml_to_core(tmp_path):
    path = tmp_path / "full.toml"
    path.write_text(FULL_TOML)
    core = Config.from_toml(path).to_core()
    assert core["seed"] == 7
    assert core["topology"] == {"kind": "mesh", "dims": [4, 6, 2], "concentration": 2}
    assert core["routing"] == {"kind": "dor", "allow_unsafe": True, "vc_rule": "dateline"}
    assert core["router"] == {
        "vcs": 4,
        "vc_buffer_bytes": 8192,
        "latency_ps": 30_000,
        "output_latency_ps": 0,
        "arbitration": "age",
        "in_transit_priority": True,
        "packet_rate_per_s": 800_000_000,
        "packet_rate_window_ps": 100_000,
        "message_classes": 1,
        "priority": "none",
    }
    assert core["links"] == {
        "default": {"latency_ps": 10_000, "bandwidth_bytes_per_s": 25_000_000_000},
        "classes": {
            "dim1": {"latency_ps": 10_000, "bandwidth_bytes_per_s": 50_000_000_000},
            "dim2": {"latency_ps": 1_500_000, "bandwidth_bytes_per_s": 25_000_000_000},
        },
    }
    assert core["nic"] == {
        "injection_bandwidth_bytes_per_s": 12_500_000_000,
        "injection_latency_ps": 10_000,
        "mtu_bytes": 1024,
        "header_bytes": 16,
        "max_outstanding_packets": 0,
        "eligibility_delay_ps": 0,
        "injection_cap_bytes": 0,
        "injection_cap_window_ps": 50_000,
        "injection_vcs": 0,
        "packet_rate_per_s": 120_000_000,
        "striping": "message",
    }
    assert core["traffic"] == {
        "kind": "synthetic",
        "pattern": "hotspot",
        "process": "poisson",
        "load": 1.0,
        "packet_bytes": 8192,
        "hotspot_endpoints": [3, 5],
        "hotspot_fraction": 0.25,
        "matrix": None,
        "fixed_points": "send",
    }
    assert core["run"] == {
        "warmup_ps": 0,
        "measure_ps": 2_000_000,
        "drain": "all",
        "drain_limit_ps": 1_000_000_000,
        "duration_ps": None,
        "deadlock_timeout_ps": 5_000_000,
    }


def test_fixed_duration_mode():
    config = load(MINIMAL, ["run.duration=1us"])
    assert config.run.duration == 1_000_000
    assert config.to_core()["run"]["duration_ps"] == 1_000_000


@pytest.mark.parametrize("window_key", ["warmup", "measure"])
def test_duration_excludes_explicit_window(window_key):
    error = config_error(MINIMAL, ["run.duration=1us", f"run.{window_key}=2us"])
    assert error.key == f"run.{window_key}"
    assert error.value == '"2us"'
    assert "run.duration" in error.expected


def test_unknown_key_names_it_and_lists_valid_keys():
    error = config_error({**MINIMAL, "router": {"vcs": 2, "vc_bufer": "4KiB"}})
    assert error.key == "router.vc_bufer"
    assert error.value == '"4KiB"'
    for valid in ("vcs", "vc_buffer", "latency", "arbitration", "in_transit_priority"):
        assert valid in error.expected
    assert "router.vc_bufer" in str(error)


def test_unknown_section_lists_sections():
    error = config_error({**MINIMAL, "routers": {}})
    assert error.key == "routers"
    for section in ("topology", "routing", "router", "links", "nic", "traffic", "run"):
        assert section in error.expected


def test_unknown_key_in_tagged_section_lists_that_kinds_keys():
    error = config_error({**MINIMAL, "topology": {"kind": "mesh", "dims": [4], "k": 4}})
    assert error.key == "topology.k"
    assert "dims" in error.expected
    assert "concentration" in error.expected


def test_unknown_scalar_key_in_links_mentions_class_tables():
    error = config_error({**MINIMAL, "links": {"latncy": "5ns"}})
    assert error.key == "links.latncy"
    assert "bandwidth" in error.expected
    assert "[links.dim0]" in error.expected


def test_error_inside_link_class_table_names_the_class():
    error = config_error({**MINIMAL, "links": {"dim1": {"bandwidth": "fast"}}})
    assert error.key == "links.dim1.bandwidth"
    assert error.value == '"fast"'
    assert "GB/s" in error.expected


def test_unknown_link_classes_are_passed_to_the_core():
    config = Config.from_dict({**MINIMAL, "links": {"global": {"latency": "100ns"}}})
    assert config.to_core()["links"]["classes"]["global"]["latency_ps"] == 100_000


@pytest.mark.parametrize(
    ("overrides", "key", "value"),
    [
        (['router.vcs="2"'], "router.vcs", '"2"'),
        (["router.vcs=2.0"], "router.vcs", "2.0"),
        (["router.vcs=true"], "router.vcs", "true"),
        (['traffic.load="0.5"'], "traffic.load", '"0.5"'),
        (["topology.dims=8"], "topology.dims", "8"),
        (['topology.dims=[8, "8"]'], "topology.dims[1]", '"8"'),
        (["router.latency=50"], "router.latency", "50"),
        (["routing.allow_unsafe=1"], "routing.allow_unsafe", "1"),
        (["router=4"], "router", "4"),
    ],
)
def test_wrong_type(overrides, key, value):
    error = config_error(MINIMAL, overrides)
    assert (error.key, error.value) == (key, value)


def test_negative_bandwidth():
    error = config_error(MINIMAL, ['links.bandwidth="-25GB/s"'])
    assert error.key == "links.bandwidth"
    assert error.value == '"-25GB/s"'
    assert "non-negative" in error.expected


def test_zero_bandwidth():
    error = config_error(MINIMAL, ["nic.injection_bandwidth=0GB/s"])
    assert (error.key, error.value) == ("nic.injection_bandwidth", '"0GB/s"')
    assert "greater than 0" in error.expected


@pytest.mark.parametrize("load_value", ["1.5", "0", "0.0", "-0.1", "nan"])
def test_load_out_of_range(load_value):
    error = config_error(MINIMAL, [f"traffic.load={load_value}"])
    assert error.key == "traffic.load"
    assert error.value == load_value
    assert "0 < load <= 1" in error.expected


def test_missing_required_key():
    error = config_error({"topology": {"kind": "torus", "dims": [4]}, "traffic": {}})
    assert (error.key, error.value) == ("traffic.load", "(missing)")
    assert "required" in error.expected


@pytest.mark.parametrize(
    ("overrides", "key", "value"),
    [
        (["router.vcs=0"], "router.vcs", "0"),
        (["router.vcs=17"], "router.vcs", "17"),
        (["topology.dims=[8, 1]"], "topology.dims[1]", "1"),
        (["topology.dims=[]"], "topology.dims", "[]"),
        (["topology.concentration=0"], "topology.concentration", "0"),
        (["router.vc_buffer=0"], "router.vc_buffer", "0"),
        (["router.vc_buffer=1.5B"], "router.vc_buffer", '"1.5B"'),
        (["run.measure=0ns"], "run.measure", '"0ns"'),
        (["traffic.hotspot_fraction=1.5"], "traffic.hotspot_fraction", "1.5"),
        (["traffic.pattern=zigzag"], "traffic.pattern", '"zigzag"'),
        (["run.drain=never"], "run.drain", '"never"'),
        (["seed=-1"], "seed", "-1"),
    ],
)
def test_out_of_range_values(overrides, key, value):
    error = config_error(MINIMAL, overrides)
    assert (error.key, error.value) == (key, value)


def test_bad_topology_kind_lists_valid_kinds():
    error = config_error(MINIMAL, ["topology.kind=hypercube"])
    assert (error.key, error.value) == ("topology.kind", '"hypercube"')
    assert '"torus"' in error.expected
    assert '"mesh"' in error.expected


def test_missing_topology_kind():
    error = config_error({"topology": {"dims": [4]}, "traffic": {"load": 0.5}})
    assert (error.key, error.value) == ("topology.kind", "(missing)")
    assert '"torus"' in error.expected


def test_bad_routing_kind_lists_valid_kinds():
    error = config_error(MINIMAL, ["routing.kind=ugal"])
    assert (error.key, error.value) == ("routing.kind", '"ugal"')
    assert "dor" in error.expected


def test_missing_file(tmp_path):
    path = tmp_path / "absent.toml"
    error = config_error(path)
    assert (error.key, error.value) == ("config", str(path))
    assert "TOML" in error.expected


def test_toml_syntax_error(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[topology]\nkind = torus\n")
    error = config_error(path)
    assert (error.key, error.value) == ("config", str(path))
    assert "line 2" in error.expected


def test_config_error_message_format():
    error = config_error(MINIMAL, ["router.vcs=0"])
    assert str(error) == f"config key 'router.vcs' = 0 is invalid: {error.expected}"
    assert isinstance(error, ValueError)


def test_constructor_and_model_validate_raise_config_error():
    with pytest.raises(ConfigError) as constructed:
        Config(topology={"kind": "torus", "dims": [4]}, traffic={"load": 2})
    assert constructed.value.key == "traffic.load"
    with pytest.raises(ConfigError) as validated:
        Config.model_validate({"topology": {"kind": "torus", "dims": [4]}})
    assert validated.value.key == "traffic"


def test_python_api_accepts_tuples_and_builds_equal_configs():
    built = Config(topology={"kind": "torus", "dims": (8, 8)}, traffic={"load": 0.5})
    assert built == Config.from_dict(MINIMAL)


def test_config_is_immutable():
    config = Config.from_dict(MINIMAL)
    with pytest.raises(ValueError):
        config.router.vcs = 4


def test_model_dump_round_trips(tmp_path):
    path = tmp_path / "full.toml"
    path.write_text(FULL_TOML)
    config = Config.from_toml(path)
    dumped = config.model_dump()
    assert dumped["links"]["dim1"]["bandwidth"] == "50GB/s"
    assert dumped["router"]["latency"] == "30ns"
    assert Config.model_validate(dumped) == config
    fixed = load(MINIMAL, ["run.duration=1us"])
    assert Config.model_validate(fixed.model_dump()) == fixed


def test_load_accepts_config_dict_and_path(tmp_path):
    path = tmp_path / "minimal.toml"
    path.write_text('[topology]\nkind = "torus"\ndims = [8, 8]\n[traffic]\nload = 0.5\n')
    config = Config.from_dict(MINIMAL)
    assert load(config) is config
    assert load(MINIMAL) == config
    assert load(path) == config
    assert load(str(path)) == config
    with pytest.raises(TypeError):
        load(42)


def test_load_applies_overrides_to_a_config():
    windowed = load(MINIMAL, ["run.warmup=1us"])
    changed = load(windowed, ["traffic.load=0.25", "topology.dims=[4,4,4]"])
    assert changed.traffic.load == 0.25
    assert changed.topology.dims == [4, 4, 4]
    assert changed.run.warmup == 1_000_000
    # defaults are not frozen into explicit values: a fixed duration can still be chosen
    assert load(Config.from_dict(MINIMAL), ["run.duration=1us"]).run.duration == 1_000_000


def test_apply_overrides_parses_toml_values_and_bare_strings():
    raw = {"topology": {"kind": "torus", "dims": [8, 8]}}
    result = apply_overrides(
        raw,
        [
            "traffic.load=0.3",
            "topology.dims=[16,16]",
            'router.latency="30ns"',
            "links.bandwidth=200Gb/s",
            "topology.kind = mesh",
            "routing.allow_unsafe=true",
            "links.dim0.latency=5ns",
            "traffic.pattern=",
        ],
    )
    assert result == {
        "topology": {"kind": "mesh", "dims": [16, 16]},
        "traffic": {"load": 0.3, "pattern": ""},
        "router": {"latency": "30ns"},
        "links": {"bandwidth": "200Gb/s", "dim0": {"latency": "5ns"}},
        "routing": {"allow_unsafe": True},
    }
    assert raw == {"topology": {"kind": "torus", "dims": [8, 8]}}


def test_apply_overrides_takes_the_value_after_the_first_equals_sign():
    assert apply_overrides({}, ["a.b=x=y"]) == {"a": {"b": "x=y"}}


@pytest.mark.parametrize("override", ["traffic.load", "=0.3", "traffic..load=1", ".x=1"])
def test_malformed_override(override):
    with pytest.raises(ConfigError) as caught:
        apply_overrides(MINIMAL, [override])
    assert "KEY=VALUE" in caught.value.expected


def test_override_inside_a_value_that_is_not_a_table():
    with pytest.raises(ConfigError) as caught:
        apply_overrides(MINIMAL, ["traffic.load.x=1"])
    assert (caught.value.key, caught.value.value) == ("traffic.load", "0.5")


def test_read_toml(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('seed = 3\n[links.dim0]\nlatency = "1ns"\n')
    assert read_toml(path) == {"seed": 3, "links": {"dim0": {"latency": "1ns"}}}


# -- every problem at once, with suggestions (issue 17) ----------------------------------------


def test_misspelled_section_is_reported_with_the_missing_one_and_a_suggestion():
    error = config_error({"topolgy": {"kind": "torus", "dims": [4]}, "traffic": {"load": 0.5}})
    assert [key for key, _, _ in error.errors] == ["topolgy", "topology"]
    assert (error.key, error.value) == ("topolgy", '{kind = "torus", dims = [4]}')
    assert error.expected.startswith("unknown key — did you mean 'topology'? valid keys here")
    assert error.errors[1][1:] == ("(missing)", error.errors[1][2])
    assert str(error).splitlines() == [
        "2 problems in the config:",
        *(f"  config key '{k}' = {v} is invalid: {e}" for k, v, e in error.errors),
    ]


def test_every_problem_of_a_config_is_reported():
    raw = {
        "topology": {"kind": "tours", "dims": [4]},
        "router": {"vcs": 0, "latncy": "5ns", "arbitration": "round-robin"},
        "links": {"bandwidth": "fast"},
        "traffic": {"load": 2},
    }
    error = config_error(raw)
    by_key = {key: (value, expected) for key, value, expected in error.errors}
    assert set(by_key) == {
        "topology.kind",
        "router.vcs",
        "router.latncy",
        "router.arbitration",
        "links.bandwidth",
        "traffic.load",
    }
    assert by_key["topology.kind"][1].startswith('did you mean "torus"? the kind must be one of')
    assert "did you mean 'latency'?" in by_key["router.latncy"][1]
    assert by_key["router.arbitration"][1].startswith('did you mean "round_robin"?')
    assert (error.key, error.value, error.expected) == ("topology.kind", '"tours"', error.expected)
    assert len(str(error).splitlines()) == 7


def test_no_suggestion_when_nothing_is_close():
    error = config_error({**MINIMAL, "zzz": 1})
    assert error.expected.startswith("unknown key — valid keys here are seed, topology")
    assert "did you mean" not in config_error(MINIMAL, ["topology.kind=octahedron"]).expected


@pytest.mark.parametrize(
    ("raw", "key", "expected"),
    [
        (
            {"routing": {"kind": "source", "paths": 5}},
            "routing.paths",
            "input should be a valid string or a valid list (a path file",
        ),
        (
            {"routing": {"kind": "source", "paths": [[1, "a"]]}},
            "routing.paths[0][1]",
            "input should be a valid integer (a path file",
        ),
        (
            {"router": {"in_transit_priority": 2.0}},
            "router.in_transit_priority",
            "input should be a valid boolean or less than or equal to 1 (in-transit",
        ),
        (
            {"topology": {"kind": "custom", "edges": [[0, 1, 2.5]]}},
            "topology.edges[0][2]",
            "input should be a valid integer or a valid string (an edge-list file",
        ),
        (
            {"traffic": {"load": 0.5, "matrix": 3, "pattern": "matrix"}},
            "traffic.matrix",
            "input should be a valid string or a valid list",
        ),
    ],
)
def test_untagged_unions_name_the_user_key_once(raw, key, expected):
    # pydantic tries each member of `str | list` and names them in its location ("str",
    # "list[...]"): neither may reach the user, and the alternatives make one problem.
    error = config_error({**MINIMAL, **raw})
    assert [error_key for error_key, _, _ in error.errors] == [key]
    assert error.expected.startswith(expected)


def test_the_first_problem_is_the_old_single_error():
    error = config_error({**MINIMAL, "router": {"vcs": 2, "vc_bufer": "4KiB"}})
    assert error.errors == [(error.key, error.value, error.expected)]
    assert str(error) == f"config key 'router.vc_bufer' = \"4KiB\" is invalid: {error.expected}"


# -- nesting and integers that cannot reach the core -------------------------------------------


def nested(depth: int) -> dict:
    value: dict = {"x": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("raw", "key_start"),
    [
        ({**MINIMAL, "extra": nested(10_000)}, "extra.a.a"),
        ({**MINIMAL, "traffic": {"load": 0.5, "hotspot_endpoints": nested(10_000)}}, "traffic."),
        ({**MINIMAL, "links": {"dim0": nested(10_000)}}, "links.dim0.a"),
    ],
)
def test_deep_nesting_is_refused_naming_where(raw, key_start):
    error = config_error(raw)
    assert error.key.startswith(key_start)
    assert error.key.count(".") == 32  # the 33rd level
    assert error.value == "(tables or arrays nested more than 32 deep)"
    assert error.expected == "at most 32 levels of nested tables and arrays"


def test_a_config_nested_in_itself_is_refused():
    raw = {**MINIMAL, "router": {}}
    raw["router"]["self"] = raw["router"]
    assert config_error(raw).key.startswith("router.self.self.self")


def test_deeply_nested_toml_file_and_override(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    error = config_error(path)
    assert (error.key, error.value) == ("config", str(path))
    assert "nested at most 32 deep" in error.expected
    error = config_error(MINIMAL, ["router.x=" + "[" * 5000 + "]" * 5000])
    assert (error.key, error.value) == ("router.x", "(tables or arrays nested more than 32 deep)")


@pytest.mark.parametrize("threads", [10**30, 2**63, -(10**30)])
def test_threads_beyond_a_c_long(threads):
    assert config_error({**MINIMAL, "threads": threads}).key == "threads"
    assert config_error(MINIMAL, [f"threads={threads}"]).key == "threads"


BURST = {"topology": {"kind": "torus", "dims": [4]}, "traffic": {"kind": "burst"}}


def with_topology(topology: dict) -> dict:
    return {"topology": topology, "traffic": {"load": 0.5}}


def topology_keys(topology: dict, *names: str) -> list[tuple]:
    """(config, key, override, blamed key) of topology keys set to 2^32 by `key=4294967296`."""
    return [(with_topology(topology), f"topology.{name}", None, None) for name in names]


def list_key(base: dict, key: str, override: str, blamed: str) -> tuple:
    """A key whose list holds 2^32 somewhere, blamed at that item."""
    return (base, key, f"{key}={override}", blamed)


# Every integer the core holds in 32 bits, each given 2^32: refused by the schema naming the
# user's key, never by the core's JSON parser as key 'config'.
U32_KEYS = [
    list_key(MINIMAL, "topology.dims", "[4, 4294967296]", "topology.dims[1]"),
    (MINIMAL, "topology.concentration", None, None),
    (MINIMAL, "nic.max_outstanding_packets", None, None),
    list_key(MINIMAL, "traffic.hotspot_endpoints", "[4294967296]", "traffic.hotspot_endpoints[0]"),
    (BURST, "traffic.packets_per_burst", None, None),
    (BURST, "traffic.bursts", None, None),
    *topology_keys({"kind": "fat_tree", "radix": 4}, "radix", "pods"),
    *topology_keys({"kind": "dragonfly", "a": 2, "h": 1}, "a", "h", "p", "g"),
    *topology_keys(
        {"kind": "dragonfly_rc", "p": 1, "rows": 2, "cols": 2, "h": 1},
        *("p", "rows", "cols", "local_links", "h", "g"),
    ),
    *topology_keys(
        {"kind": "dragonfly_plus", "leaves": 2, "spines": 2}, "leaves", "spines", "p", "h", "g"
    ),
    *topology_keys({"kind": "slim_fly", "q": 5}, "q", "p"),
    *topology_keys({"kind": "polarfly", "q": 5}, "q", "p"),
    *topology_keys(
        {"kind": "jellyfish", "routers": 8, "degree": 3, "p": 1}, "routers", "degree", "p"
    ),
    *topology_keys({"kind": "fishnet", "base": "petersen"}, "p"),
    *topology_keys({"kind": "fishnet", "base": {"kind": "slim_fly", "q": 5}}, "base.q"),
    list_key(
        with_topology({"kind": "express_mesh", "dims": [4, 4]}),
        "topology.dims",
        "[4294967296, 2]",
        "topology.dims[0]",
    ),
    *topology_keys({"kind": "express_mesh", "dims": [4, 4]}, "gap", "concentration"),
    *topology_keys(
        {"kind": "flattened_butterfly", "k": 4, "dimensions": 2}, "k", "dimensions", "concentration"
    ),
    *topology_keys({"kind": "custom", "edges": [[0, 1]]}, "routers", "concentration"),
    list_key(
        with_topology({"kind": "custom", "edges": [[0, 1]]}),
        "topology.endpoints",
        "[1, 4294967296]",
        "topology.endpoints[1]",
    ),
    list_key(
        with_topology({"kind": "custom", "edges": [[0, 1]]}),
        "topology.edges",
        "[[0, 4294967296]]",
        "topology.edges[0]",
    ),
    list_key(
        {**MINIMAL, "routing": {"kind": "source", "paths": [[0, 1]]}},
        "routing.paths",
        "[[0, 4294967296]]",
        "routing.paths[0][1]",
    ),
]


@pytest.mark.parametrize(
    ("base", "key", "override", "blamed"),
    U32_KEYS,
    ids=[f"{base['topology']['kind']}-{key}" for base, key, _, _ in U32_KEYS],
)
def test_integers_beyond_the_core_types_are_refused_by_the_schema(base, key, override, blamed):
    error = config_error(base, [override or f"{key}=4294967296"])
    assert error.key == (blamed or key)
    assert "4294967296" in error.value


@pytest.mark.parametrize("key", ["seed", "topology.seed"])
def test_seeds_take_every_64_bit_value_and_no_more(key):
    base = with_topology({"kind": "jellyfish", "routers": 8, "degree": 3, "p": 1})
    assert load(base, [f"{key}={2**64 - 1}"]).to_core()
    assert config_error(base, [f"{key}={2**64}"]).key == key


@pytest.mark.parametrize(
    "key",
    [
        "router.latency",
        "links.latency",
        "links.dim0.latency",
        "nic.injection_latency",
        "nic.eligibility_delay",
        "nic.injection_cap_window",
        "run.warmup",
        "run.measure",
        "run.drain_limit",
        "run.deadlock_timeout",
        "record.injection_bin",
    ],
)
def test_times_beyond_64_bits_of_picoseconds(key):
    assert load(MINIMAL, [f"{key}=18446744073709551615ps"])
    for value in ("18446744073709551616ps", "1e400ns", "1e999999999s"):
        error = config_error(MINIMAL, [f"{key}={value}"])
        assert (error.key, error.value) == (key, f'"{value}"')
        assert "at most 18446744.073709551615s" in error.expected


def test_sizes_and_bandwidths_beyond_64_bits():
    assert config_error(MINIMAL, ["links.bandwidth=1e30Tb/s"]).key == "links.bandwidth"
    assert config_error(MINIMAL, ["nic.header=18446744073709551616"]).key == "nic.header"
    error = config_error(MINIMAL, ["router.vc_buffer=5GiB"])
    assert (error.key, error.value) == ("router.vc_buffer", '"5GiB"')
    assert "4294967295" in error.expected


def test_injection_cap_that_overflows_a_window_of_bytes():
    error = config_error(
        MINIMAL, ["nic.injection_cap=18446744073709551615B/s", "nic.injection_cap_window=2s"]
    )
    assert error.key == "nic.injection_cap"
    assert "at most 2^64 - 1 bytes per injection_cap_window (2s)" in error.expected


@pytest.mark.parametrize(
    "weight", [10**400, float("inf"), float("nan")], ids=["10^400", "inf", "nan"]
)
def test_packet_mix_weight_that_is_no_finite_float(weight):
    error = config_error({**MINIMAL, "traffic": {"load": 0.5, "packet": {"16B": weight}}})
    assert error.key == "traffic.packet"
    assert "a finite weight > 0 for every size" in error.expected
