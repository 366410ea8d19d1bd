"""On/off and Pareto on/off sources through the simulator: the offered load they measure, the
same numbers for a seed at any thread count, and errors naming the key. The burst and idle
length distributions are asserted on long draws in the core's unit tests
(crates/exanet-core/src/workload/synthetic.rs)."""

from __future__ import annotations

import math

import pytest

import exanet
from exanet.errors import ConfigError

ENDPOINTS = 16
#: 256 B messages with no header on a 25.6 GB/s injection link: a slot of 10 ns.
SLOT_NS = 10.0
MEASURE_NS = 200_000.0


def config(traffic: dict, threads: int = 1, seed: int = 3) -> dict:
    return {
        "topology": {"kind": "torus", "dims": [4, 4]},
        "routing": {"kind": "dor"},
        "router": {"vcs": 2},
        "nic": {"header": "0B", "injection_bandwidth": "25.6GB/s"},
        "traffic": {"pattern": "uniform", "packet": "256B", **traffic},
        "run": {"warmup": "2us", "measure": f"{MEASURE_NS:g}ns", "drain": "none"},
        "threads": threads,
        "seed": seed,
    }


def offered_load(traffic: dict) -> float:
    return exanet.simulate(config(traffic), progress=False).summary["offered_load"]


def test_on_off_offers_the_configured_load():
    load, b = 0.3, 8.0
    idle = b * (1 - load) / load
    measured = offered_load({"process": "on_off", "load": load, "burst_length": b})
    # Messages in T slots of a renewal source (cycles of b messages and b + idle slots) have
    # variance T sd^2 / (b + idle), sd^2 = Var(messages (1 - load) - idle slots load) with
    # geometric lengths (variance m (m - 1) for mean m); over 16 endpoints, 4 standard errors.
    var = (1 - load) ** 2 * b * (b - 1) + load**2 * idle * (idle - 1)
    slots = MEASURE_NS / SLOT_NS * ENDPOINTS
    tolerance = 4 * math.sqrt(var / (b + idle) / slots)
    assert tolerance < 0.011
    assert abs(measured - load) < tolerance, (measured, tolerance)


def test_pareto_on_off_offers_the_configured_load():
    load, b, alpha = 0.3, 8.0, 1.5
    measured = offered_load(
        {"process": "pareto_on_off", "load": load, "burst_length": b, "pareto_alpha": alpha}
    )
    # Infinite-variance periods: a sum of n of them is within O(n^(1/alpha)) of its mean (the
    # generalized central limit theorem); allow 5 n^(1/alpha - 1) of the load, n the cycles.
    cycles = MEASURE_NS / SLOT_NS * ENDPOINTS * load / b
    tolerance = 5 * load * cycles ** (1 / alpha - 1)
    assert abs(measured - load) < tolerance, (measured, tolerance)


@pytest.mark.parametrize(
    "process",
    [
        {"process": "on_off", "burst_length": 4},
        {"process": "pareto_on_off", "burst_length": 4, "pareto_alpha": 1.3},
    ],
)
def test_same_seed_same_numbers_at_any_thread_count(process):
    traffic = {"load": 0.4, **process}
    runs = [
        exanet.simulate(config(traffic, threads, seed), progress=False).summary
        for threads, seed in ((1, 3), (2, 3), (1, 4))
    ]
    keys = ("packets_generated", "packets_delivered", "latency_ns_mean", "latency_ns_max")
    one, two, other = ([run[key] for key in keys] for run in runs)
    assert one == two
    assert one != other


@pytest.mark.parametrize(
    ("traffic", "key"),
    [
        # At load 0.8 an idle period of at least one slot needs bursts of 4 messages or more.
        ({"process": "on_off", "load": 0.8, "burst_length": 3}, "traffic.burst_length"),
        ({"process": "on_off", "load": 0.5}, "traffic.burst_length"),
        ({"process": "on_off", "load": 1.0, "burst_length": 8}, "traffic.load"),
        ({"process": "bernoulli", "load": 0.5, "burst_length": 8}, "traffic.burst_length"),
        ({"process": "pareto_on_off", "load": 0.5, "burst_length": 8}, "traffic.pareto_alpha"),
        (
            {"process": "pareto_on_off", "load": 0.5, "burst_length": 8, "pareto_alpha": 2.0},
            "traffic.pareto_alpha",
        ),
    ],
)
def test_a_bad_parameter_names_the_key(traffic, key):
    with pytest.raises(ConfigError) as error:
        exanet.simulate(config(traffic), progress=False)
    assert error.value.key == key
