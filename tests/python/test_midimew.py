"""Midimews (002 §2.1) from the Python side: the config, describe's figures against a
breadth-first search of the circulant written here, and uniform traffic under 002's adaptive
routing with a bubble escape delivering every packet at the exact mean distance."""

import math
from collections import deque

import pytest

import exanet
from exanet.config import load
from exanet.errors import ConfigError


def circulant_distances(nodes):
    """Hops from router 0 of C_N(b, b - 1), b = ceil(sqrt(N/2)), by breadth-first search."""
    b = math.ceil(math.sqrt(nodes / 2))
    dist = [-1] * nodes
    dist[0] = 0
    todo = deque([0])
    while todo:
        r = todo.popleft()
        for jump in (b, -b, b - 1, 1 - b):
            n = (r + jump) % nodes
            if dist[n] < 0:
                dist[n] = dist[r] + 1
                todo.append(n)
    return dist


def config(nodes, load_fraction, vcs=3):
    return {
        "seed": 3,
        "topology": {"kind": "midimew", "nodes": nodes},
        "routing": {"kind": "minimal", "escape": "bubble"},
        "router": {"vcs": vcs, "vc_buffer": "4KiB", "latency": "50ns"},
        "links": {"latency": "20ns", "bandwidth": "25GB/s"},
        "traffic": {"pattern": "uniform", "load": load_fraction, "packet": "256B"},
        "run": {"warmup": "1us", "measure": "4us", "drain": "all"},
    }


@pytest.mark.parametrize("nodes", [5, 64, 100, 1024])
def test_describe_matches_breadth_first_search(nodes):
    dist = circulant_distances(nodes)
    info = exanet.validate(config(nodes, 0.1))
    assert info["routers"] == nodes
    # 2N cables, each counted in both directions
    assert info["network_links"] == 4 * nodes
    assert info["diameter_hops"] == max(dist)
    assert info["diameter_hops"] == math.ceil((math.sqrt(2 * nodes - 1) - 1) / 2)
    assert info["average_distance_hops"] == pytest.approx(sum(dist) / (nodes - 1), abs=1e-12)


@pytest.mark.parametrize("nodes", [64, 1024])
def test_uniform_traffic_is_delivered_at_the_exact_mean_distance(nodes):
    result = exanet.simulate(config(nodes, 0.05))
    s = result.summary
    assert s["packets_delivered"] == s["packets_injected"] > 0
    exact = sum(circulant_distances(nodes)) / (nodes - 1)
    noise = 4 * exact / math.sqrt(s["packets_delivered"]) + 0.02
    assert s["hops_mean"] == pytest.approx(exact, abs=noise)


def test_too_few_nodes_and_dor_escape_are_refused_by_key():
    with pytest.raises(ConfigError) as error:
        load({"topology": {"kind": "midimew", "nodes": 4}})
    assert error.value.key == "topology.nodes"
    bad = config(64, 0.1)
    bad["routing"] = {"kind": "minimal", "escape": "dor"}
    with pytest.raises(ConfigError) as error:
        exanet.validate(bad)
    assert error.value.key == "routing.escape"
