import json

import pytest

from exanet.config import Config, apply_overrides, load, read_toml
from exanet.errors import ConfigError

MINIMAL = {"topology": {"kind": "torus", "dims": [8, 8]}, "traffic": {"load": 0.5}}

MINIMAL_CORE = {
    "seed": 1,
    "topology": {"kind": "torus", "dims": [8, 8], "concentration": 1},
    "routing": {"kind": "dor", "allow_unsafe": False},
    "router": {
        "vcs": 2,
        "vc_buffer_bytes": 2048,
        "latency_ps": 50_000,
        "arbitration": "round_robin",
        "in_transit_priority": False,
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
    assert core["routing"] == {"kind": "dor", "allow_unsafe": True}
    assert core["router"] == {
        "vcs": 4,
        "vc_buffer_bytes": 8192,
        "latency_ps": 30_000,
        "arbitration": "age",
        "in_transit_priority": True,
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
