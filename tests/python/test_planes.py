"""Nodes with several NIC ports from the Python side: multi-plane and rail-optimized fat-trees
(topology.planes, plane_wiring) and the NIC's striping (nic.striping)."""

import pytest

import exanet
from exanet.config import load
from exanet.errors import ConfigError


def tree(planes=1, wiring="separate", pods=8):
    return {
        "kind": "fat_tree",
        "levels": 2,
        "radix": 8,
        "pods": pods,
        "planes": planes,
        "plane_wiring": wiring,
    }


def config(topology, striping="message", load_fraction=0.8):
    return {
        "topology": topology,
        "routing": {"kind": "minimal"},
        "nic": {"striping": striping},
        "traffic": {"pattern": "uniform", "load": load_fraction, "packet": "256B"},
        "run": {"warmup": "1us", "measure": "5us"},
    }


def test_the_keys_reach_the_core_and_describe_counts_nodes_and_ports():
    core = load(config(tree(2, "rails"), "packet")).to_core()
    assert core["topology"]["planes"] == 2
    assert core["topology"]["plane_wiring"] == "rails"
    assert core["nic"]["striping"] == "packet"
    one = exanet.topology(tree()).describe()
    two = exanet.topology(tree(2)).describe()
    assert (one["endpoints"], one["ports_per_node"], one["routers"]) == (32, 1, 12)
    assert (two["endpoints"], two["ports_per_node"], two["routers"]) == (32, 2, 24)
    assert two["injection_links"] == 64
    assert two["network_links"] == 2 * one["network_links"]
    assert two["bisection_links"] == 2 * one["bisection_links"]
    rails = exanet.validate(config(tree(2, "rails")))
    assert (rails["endpoints"], rails["ports_per_node"], rails["routers"]) == (16, 2, 12)


def test_two_planes_carry_twice_a_nodes_traffic():
    single = exanet.simulate(config(tree()), progress=False)
    double = exanet.simulate(config(tree(2), "packet"), progress=False)
    one, two = single.summary, double.summary
    assert two["planes"] == 2 and two["endpoints"] == 32
    assert one["accepted_load"] == pytest.approx(0.8, rel=0.03)
    assert two["accepted_load"] == pytest.approx(0.8, rel=0.03)
    assert two["accepted_gbytes_per_s"] == pytest.approx(2 * one["accepted_gbytes_per_s"], rel=0.03)
    # One row per node; the injection links are per port, numbered plane by plane.
    assert len(double.endpoints) == 32
    links = double.links
    injection = links[links["kind"] == "injection"]
    assert sorted(injection["endpoint"]) == list(range(64))
    per_plane = injection.groupby(injection["endpoint"] // 32)["packets"].sum()
    assert per_plane.min() == two["plane_packets_injected_min"]
    assert per_plane.max() == two["plane_packets_injected_max"]
    assert per_plane.max() - per_plane.min() <= 32


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"topology": tree(0)}, "topology.planes"),
        ({"topology": tree(65)}, "topology.planes"),
        ({"topology": tree(2, "ribbons")}, "topology.plane_wiring"),
        ({"nic": {"striping": "flow"}}, "nic.striping"),
    ],
)
def test_bad_values_are_refused_by_key(change, key):
    with pytest.raises(ConfigError) as error:
        load({**config(tree(2)), **change})
    assert error.value.key == key


def test_rails_that_do_not_fill_whole_units_are_refused_by_the_core():
    # 2-level trees have pods of one leaf: units of 3 rails cannot cover 8 pods.
    with pytest.raises(ConfigError) as error:
        exanet.validate(config(tree(3, "rails")))
    assert error.value.key == "topology.planes"
    assert "leaves per pod" in str(error.value)
