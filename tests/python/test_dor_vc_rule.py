"""routing.vc_rule on dimension-order routing: dateline classes (the default) or digit_compare
lanes (class 1 when the destination's digit in the hop's dimension is greater than the
current router's), docs/routing.md."""

import pytest

import exanet
from exanet import ConfigError
from exanet.config import Config

TORUS = {
    "seed": 7,
    "topology": {"kind": "torus", "dims": [8, 8]},
    "router": {"vcs": 2},
    "traffic": {"pattern": "uniform", "load": 0.4, "packet": "256B"},
    "run": {"warmup": "2us", "measure": "10us", "drain": "all"},
}


def with_rule(rule: str, **sections) -> dict:
    return {**TORUS, "routing": {"kind": "dor", "vc_rule": rule}, **sections}


def test_dateline_is_the_default_and_the_rule_reaches_the_core():
    assert Config(**TORUS).to_core()["routing"]["vc_rule"] == "dateline"
    core = Config(**with_rule("digit_compare")).to_core()
    assert core["routing"] == {"kind": "dor", "allow_unsafe": False, "vc_rule": "digit_compare"}


def test_an_unknown_rule_names_the_key_and_the_valid_values():
    with pytest.raises(ConfigError) as caught:
        Config(**with_rule("digits"))
    assert caught.value.key == "routing.vc_rule"
    assert "digit_compare" in caught.value.expected and "dateline" in caught.value.expected


def test_digit_compare_is_refused_where_dor_has_no_two_lanes():
    express = with_rule(
        "digit_compare", topology={"kind": "express_mesh", "dims": [4, 4], "gap": 1}
    )
    with pytest.raises(ConfigError) as caught:
        exanet.validate(express)
    assert caught.value.key == "routing.vc_rule"
    assert "dateline" in caught.value.expected


@pytest.mark.parametrize("dims", [[5], [4, 6], [3, 4, 5]])
def test_the_check_proves_digit_compare_lanes_deadlock_free(dims):
    check = exanet.check_routing(
        with_rule("digit_compare", topology={"kind": "torus", "dims": dims})
    )
    assert check["acyclic"] and check["exhaustive"]
    one_lane = with_rule("digit_compare", topology={"kind": "torus", "dims": [6, 6]})
    one_lane["router"] = {"vcs": 1}
    with pytest.raises(ConfigError) as caught:
        exanet.validate(one_lane)
    assert caught.value.key == "router.vcs"


@pytest.mark.parametrize("load", [0.4, 1.0])
def test_every_packet_is_delivered_on_an_8x8_torus_under_uniform_traffic(load):
    summary = exanet.simulate(
        with_rule("digit_compare", traffic={**TORUS["traffic"], "load": load}), progress=False
    ).summary
    assert summary["packets_generated"] > 20_000
    assert summary["packets_injected"] == summary["packets_generated"]
    assert summary["packets_delivered"] == summary["packets_injected"]
    assert summary["packets_in_flight_end"] == 0
    assert summary["packets_misdelivered"] == 0


def test_zero_load_latency_and_hops_equal_the_dateline_rule():
    quiet = {"traffic": {**TORUS["traffic"], "load": 0.002}, "run": {"measure": "100us"}}
    dateline, digit = (
        exanet.simulate(with_rule(rule, **quiet), progress=False).summary
        for rule in ("dateline", "digit_compare")
    )
    assert dateline["packets_measured_delivered"] > 100
    for key in ("packets_measured_delivered", "hops_mean", "latency_ns_min", "latency_ns_mean"):
        assert digit[key] == dateline[key], key
