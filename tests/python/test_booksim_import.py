"""`exanet import booksim`: BookSim 2 configs (written here in the shape of BookSim's own
examples) as exanet configs."""

import pytest
from typer.testing import CliRunner

import exanet
from exanet.booksim_import import import_booksim, parse
from exanet.cli import app
from exanet.config import load
from exanet.errors import ConfigError

# The shape of BookSim's examples/torus88, on a 4x4 torus.
TORUS = """// Topology
topology = torus;
k = 4;
n = 2;

// Routing
routing_function = dim_order;

// Flow control
num_vcs     = 2;
vc_buf_size = 8;
wait_for_tail_credit = 1;

// Router architecture
vc_allocator = islip;
credit_delay   = 2;
routing_delay  = 1;
vc_alloc_delay = 1;
sw_alloc_delay = 1;

// Traffic
traffic = uniform;
packet_size = 4;

// Simulation
sim_type       = latency;
injection_rate = 0.05;
warmup_periods = 1;
sample_period  = 10000;
seed = 7;
"""

# The shape of BookSim's examples/dragonflyconfig.
DRAGONFLY = """hold_switch_for_packet=1;
vc_buf_size = 256;
routing_delay  = 0;
vc_alloc_delay = 1;
sw_alloc_delay = 1;
st_final_delay = 1;
warmup_periods = 3;
sample_period  = 10000;
routing_function = min;
num_vcs     = 2;
traffic       = uniform;
injection_rate = 0.5;
const_flits_per_packet = 10;
injection_rate_uses_flits=1;
topology = dragonflynew;
k  = 4;
n  = 1;
watch_out=-;
"""


def booksim(tmp_path, text, name="booksim.cfg"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_torus_config_maps_topology_routing_router_traffic_and_run(tmp_path):
    imported = import_booksim(booksim(tmp_path, TORUS), cycle="2ns", flit="8B")
    config = imported.config
    assert config["topology"] == {"kind": "torus", "dims": [4, 4]}
    assert config["routing"] == {"kind": "dor"}
    # 8 flits of 8 B; routing + VC + switch allocation + switch traversal = 4 cycles of 2 ns.
    assert config["router"] == {"vcs": 2, "vc_buffer": "64B", "latency": "8ns"}
    # BookSim's torus channels take 2 cycles (use_noc_latency); one 8 B flit per 2 ns cycle.
    assert config["links"] == {"latency": "4ns", "bandwidth": "4GB/s"}
    assert config["traffic"]["packet"] == "32B"
    assert config["traffic"]["load"] == pytest.approx(0.05 * 4)
    assert config["run"] == {"warmup": "20us", "measure": "20us"}
    assert config["seed"] == 7


def test_a_converted_torus_offers_the_booksim_injection_rate(tmp_path):
    cycle_ns, flit_bytes, rate, packet_flits = 1, 16, 0.05, 4
    config = load(import_booksim(booksim(tmp_path, TORUS)).config)
    summary = exanet.simulate(config, progress=False).summary
    # injection_rate packets per cycle, each packet_size flits: a fraction of one flit per cycle.
    assert summary["offered_load"] == pytest.approx(rate * packet_flits, rel=0.01)
    bytes_per_ns = rate * packet_flits * flit_bytes / cycle_ns
    assert summary["offered_gbytes_per_s"] == pytest.approx(bytes_per_ns, rel=0.01)
    assert summary["packets_delivered"] > 0


def test_keys_without_an_exanet_meaning_are_warnings_naming_key_and_value(tmp_path):
    warnings = import_booksim(booksim(tmp_path, TORUS)).warnings
    assert "wait_for_tail_credit = 1: no exanet meaning; left out" in warnings
    assert "credit_delay = 2: no exanet meaning; left out" in warnings
    assert not any(w.startswith(("topology", "k ", "num_vcs", "injection_rate")) for w in warnings)


def test_a_buffer_smaller_than_a_packet_holds_one_packet_with_a_warning(tmp_path):
    imported = import_booksim(
        booksim(tmp_path, TORUS.replace("packet_size = 4", "packet_size = 20"))
    )
    assert imported.config["router"]["vc_buffer"] == "320B"
    assert any(w.startswith("vc_buf_size = 8: smaller than a packet") for w in imported.warnings)


def test_a_per_class_list_takes_class_0_with_a_warning(tmp_path):
    text = TORUS.replace("injection_rate = 0.05", "injection_rate = {0.05, 0.1}")
    imported = import_booksim(booksim(tmp_path, text))
    assert imported.config["traffic"]["load"] == pytest.approx(0.2)
    assert any(w.startswith("injection_rate = {0.05, 0.1}: a value per") for w in imported.warnings)


def test_a_dragonfly_config_is_balanced_with_booksims_channel_latencies(tmp_path):
    imported = import_booksim(booksim(tmp_path, DRAGONFLY))
    config = imported.config
    assert config["topology"] == {"kind": "dragonfly", "p": 4, "a": 8, "h": 4}
    assert config["links"]["local"] == {"latency": "10ns"}
    assert config["links"]["global"] == {"latency": "100ns"}
    # injection_rate_uses_flits: the rate is already flits per cycle.
    assert config["traffic"]["load"] == 0.5
    assert config["traffic"]["packet"] == "160B"
    described = exanet.validate(config)
    # BookSim: a = 2p routers per group, g = a*p + 1 groups, p nodes per router.
    assert (described["routers"], described["endpoints"]) == (8 * 33, 4 * 8 * 33)
    assert "watch_out = -: no exanet meaning; left out" in imported.warnings


@pytest.mark.parametrize(
    ("text", "topology", "routers", "endpoints"),
    [
        (
            "topology = fattree; k = 4; n = 3; routing_function = nca; num_vcs = 4;",
            {"kind": "fat_tree", "levels": 3, "radix": 8, "pods": 4},
            16 + 16 + 8,
            4**3,
        ),
        (
            "topology = flatfly; k = 4; n = 2; c = 4; routing_function = ran_min; num_vcs = 4;",
            {"kind": "hyperx", "dims": [4, 4], "concentration": 4},
            16,
            64,
        ),
        (
            "topology = mesh; k = 4; n = 3; routing_function = min_adapt; num_vcs = 4;",
            {"kind": "mesh", "dims": [4, 4, 4]},
            64,
            64,
        ),
    ],
)
def test_other_families_convert_and_validate(tmp_path, text, topology, routers, endpoints):
    config = import_booksim(booksim(tmp_path, text)).config
    assert config["topology"] == topology
    described = exanet.validate(config)
    assert (described["routers"], described["endpoints"]) == (routers, endpoints)


def test_an_anynet_config_reads_its_network_file_and_latency_classes(tmp_path):
    (tmp_path / "anynet_file").write_text(
        "router 0 node 0 node 1 router 1 2\nrouter 1 node 2 node 3 router 2\n"
        "router 2 node 4 node 5 router 0 3\n"
    )
    text = (
        "topology = anynet;\nrouting_function = min;\nnetwork_file = anynet_file;\n"
        "traffic = hotspot({0,3});\nnum_vcs = 4;\ninjection_rate = 0.01;\n"
    )
    config = import_booksim(booksim(tmp_path, text)).config
    assert config["topology"]["edges"] == str(tmp_path / "anynet_file")
    assert config["links"]["cycles2"] == {"latency": "2ns"}
    assert config["links"]["cycles3"] == {"latency": "3ns"}
    assert config["traffic"]["hotspot_endpoints"] == [0, 3]
    assert config["traffic"]["hotspot_fraction"] == 1.0
    described = exanet.validate(config)
    assert (described["routers"], described["endpoints"]) == (3, 6)


@pytest.mark.parametrize(
    ("line", "key", "value", "valid"),
    [
        ("topology = fly;", "topology", '"fly"', "torus, mesh, flatfly"),
        ("routing_function = chaos;", "routing_function", '"chaos"', "dim_order"),
        ("traffic = diagonal;", "traffic", '"diagonal"', "bitcomp"),
        ("injection_process = on_off;", "injection_process", '"on_off"', "bernoulli"),
        ("injection_rate = 0.5;", "injection_rate", '"0.5"', "at most 1 flit per cycle"),
        ("seed = time;", "seed", '"time"', "an integer"),
    ],
)
def test_values_exanet_cannot_express_are_errors_naming_key_value_and_valid_ones(
    tmp_path, line, key, value, valid
):
    with pytest.raises(ConfigError) as caught:
        import_booksim(booksim(tmp_path, TORUS + line))
    assert (caught.value.key, caught.value.value) == (key, value)
    assert valid in caught.value.expected


def test_a_statement_without_an_equals_sign_names_its_line():
    with pytest.raises(ConfigError) as caught:
        parse("// comment\ntopology = torus;\n\nk 4;\n")
    assert caught.value.key == "line 4"
    assert "key = value" in caught.value.expected


def test_the_cli_writes_a_toml_file_that_loads_as_the_import(tmp_path):
    source = booksim(tmp_path, TORUS)
    output = tmp_path / "torus.toml"
    result = CliRunner().invoke(
        app, ["import", "booksim", str(source), "-o", str(output), "--set", "router.vcs=4"]
    )
    assert result.exit_code == 0, result.output
    assert "warning: wait_for_tail_credit = 1" in result.output
    text = output.read_text()
    assert "# BookSim has no physical units: 1 cycle = 1ns (--cycle), 1 flit = 16B" in text
    assert "#   credit_delay = 2: no exanet meaning; left out" in text
    expected = {**import_booksim(source).config}
    expected["router"] = {**expected["router"], "vcs": 4}
    assert load(output) == load(expected)


def test_the_cli_refuses_a_topology_exanet_lacks_with_exit_code_2(tmp_path):
    source = booksim(tmp_path, TORUS + "topology = cmesh;")
    result = CliRunner().invoke(app, ["import", "booksim", str(source)])
    assert result.exit_code == 2
    assert "config key 'topology' = \"cmesh\" is invalid" in result.output


def test_a_batch_simulation_becomes_bursts(tmp_path):
    text = TORUS + "sim_type = batch;\nbatch_size = 20;\nbatch_count = 2;\n"
    imported = import_booksim(booksim(tmp_path, text))
    traffic = imported.config["traffic"]
    assert (traffic["kind"], traffic["packets_per_burst"], traffic["bursts"]) == ("burst", 20, 2)
    assert "run" not in imported.config
    assert any(w.startswith("injection_rate = 0.05: exanet's bursts") for w in imported.warnings)
    summary = exanet.simulate(load(imported.config), progress=False).summary
    assert summary["packets_delivered"] == 16 * 20 * 2
