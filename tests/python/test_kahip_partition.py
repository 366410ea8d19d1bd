"""KaHIP (the `partition` extra) beside exanet's own partitioners: the bisection bound of
`describe` and the parallel engine's partition (`partitioner = "kahip"`), and the fallback to
exanet's own, said, when KaHIP is missing."""

import json

import pytest
from samples import ENGINE_KEYS

import exanet
from exanet import _core, partitioning
from exanet.errors import core_errors

JELLYFISH = {"kind": "jellyfish", "routers": 64, "degree": 6, "p": 2, "seed": 1}
CONFIG = {
    "topology": JELLYFISH,
    "router": {"vcs": 4},
    "traffic": {"pattern": "uniform", "load": 0.4},
    "run": {"warmup": "1us", "measure": "3us"},
    "partitioner": "kahip",
}
needs_kahip = pytest.mark.skipif(not partitioning.available(), reason="KaHIP not installed")


@pytest.fixture
def without_kahip(monkeypatch):
    monkeypatch.setattr(partitioning, "available", lambda: False)


@needs_kahip
def test_slim_fly_5_bisection_lies_between_fiedler_and_exanets_own_cut():
    info = exanet.topology("slim_fly", q=5).describe()
    assert info["bisection_method"] == "partitioner"
    # Fiedler's bound: lambda_2 * n / 4 = 62.5 links for the 50 routers, so at least 63.
    assert 63 <= info["bisection_links"] <= 65
    assert 63 <= info["bisection_kahip_links"] <= 65
    assert info["bisection_links"] == min(
        info["bisection_kahip_links"], info["bisection_partitioner_links"]
    )
    assert info["bisection_partitioner"] in ("exanet", "kahip")


@needs_kahip
def test_kahip_bisection_is_balanced_and_its_cut_counted_link_by_link():
    graph = exanet.topology("slim_fly", q=5).router_graph()
    cut, side = partitioning.bisection(graph, runs=2, seed=1)
    assert sorted(set(side)) == [0, 1]
    # 50 routers of 4 endpoints each: exactly 25 routers a side.
    assert side.count(0) == side.count(1) == 25
    assert cut == sum(1 for a, b, _ in graph.edges if side[a] != side[b])


@needs_kahip
def test_torus_keeps_its_closed_form_and_kahip_finds_it():
    info = exanet.topology(kind="torus", dims=[8, 8]).describe()
    assert (info["bisection_links"], info["bisection_method"]) == (16, "closed_form")
    assert info["bisection_kahip_links"] == 16
    assert info["bisection_partitioner"] is None


@needs_kahip
def test_kahip_partition_cuts_fewer_links_than_breadth_first_runs():
    own = exanet.partition({**CONFIG, "partitioner": "exanet"}, 4)
    kahip = exanet.partition(CONFIG, 4)
    assert (own["method"], kahip["method"]) == ("bfs", "given")
    assert sum(kahip["endpoints_per_part"]) == 128
    # Within 3% of an equal share (32 endpoints, 16 routers of 2 each).
    assert max(kahip["endpoints_per_part"]) <= 32 * 1.03
    assert kahip["cut_links"] < own["cut_links"]


@needs_kahip
def test_a_run_on_kahip_partition_gives_the_sequential_summary():
    one = exanet.simulate({**CONFIG, "threads": 1}, progress=False)
    four = exanet.simulate({**CONFIG, "threads": 4}, progress=False)
    assert exanet.Config.from_dict({**CONFIG, "threads": 4}).to_core()["partition"]
    assert four.summary["threads"] == 4
    assert {k: v for k, v in four.summary.items() if k not in ENGINE_KEYS} == {
        k: v for k, v in one.summary.items() if k not in ENGINE_KEYS
    }
    assert four.endpoints.equals(one.endpoints)
    assert four.links.equals(one.links)


def test_without_kahip_describe_uses_exanets_partitioner_and_says_so(without_kahip):
    info = exanet.topology("slim_fly", q=5).describe()
    assert info["bisection_links"] == info["bisection_partitioner_links"] == 65
    assert info["bisection_kahip_links"] is None
    assert info["bisection_partitioner"].startswith("exanet (kahip not installed")


def test_without_kahip_a_run_falls_back_to_exanets_partition_with_a_warning(without_kahip):
    with pytest.warns(UserWarning, match="KaHIP is not installed"):
        core = exanet.Config.from_dict({**CONFIG, "threads": 4}).to_core()
    assert "partition" not in core
    with pytest.warns(UserWarning, match="KaHIP is not installed"):
        assert exanet.partition(CONFIG, 4)["method"] == "bfs"


def test_an_unknown_partitioner_is_refused_by_key():
    with pytest.raises(exanet.ConfigError) as error:
        exanet.Config.from_dict({**CONFIG, "partitioner": "metis"})
    assert error.value.key == "partitioner"
    assert "kahip" in str(error.value)


@pytest.mark.parametrize(
    ("partition", "key", "value"),
    [
        ([0] * 63, "partition", "63 entries"),
        ([0] * 63 + [4], "partition[63]", "4"),
        ([0] * 32 + [1] * 32, "partition", "no router in part 2"),
    ],
)
def test_the_core_checks_a_given_partition(partition, key, value):
    core = exanet.Config.from_dict({**CONFIG, "partitioner": "exanet"}).to_core()
    core["partition"] = partition
    with pytest.raises(exanet.ConfigError) as error, core_errors(core):
        _core.partition(json.dumps(core), 4)
    assert (error.value.key, error.value.value) == (key, value)
