"""The topology library: models and their core form, defaults, errors, describe, draw."""

import json
import math

import pytest

import exanet
from exanet import _core
from exanet.config import Config, MinimalRouting, load
from exanet.errors import ConfigError
from exanet.structure import TopologyInfo, describe_rows
from exanet.topologies import (
    TOPOLOGY_KINDS,
    DragonflyTopology,
    parse_topology,
    read_edge_list,
    slim_fly_degree,
    valid_tapers,
)

# (user-facing [topology] table, the core JSON it must become)
ROUND_TRIPS = [
    (
        {"kind": "torus", "dims": [8, 8]},
        {"kind": "torus", "dims": [8, 8], "concentration": 1},
    ),
    (
        {"kind": "mesh", "dims": [4, 6, 2], "concentration": 2},
        {"kind": "mesh", "dims": [4, 6, 2], "concentration": 2},
    ),
    (
        {"kind": "fat_tree", "radix": 40, "pods": 30},
        {
            "kind": "fat_tree",
            "levels": 3,
            "radix": 40,
            "pods": 30,
            "taper": [1, 1],
            "planes": 1,
            "plane_wiring": "separate",
        },
    ),
    (
        {"kind": "fat_tree", "levels": 2, "radix": 8, "taper": "3:1"},
        {
            "kind": "fat_tree",
            "levels": 2,
            "radix": 8,
            "pods": 8,
            "taper": [3, 1],
            "planes": 1,
            "plane_wiring": "separate",
        },
    ),
    (
        {"kind": "dragonfly", "a": 4, "h": 2, "p": 2, "g": 9},
        {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9, "arrangement": "absolute"},
    ),
    (
        {"kind": "dragonfly", "a": 20, "h": 10, "p": 10, "g": 60, "arrangement": "circulant"},
        {"kind": "dragonfly", "p": 10, "a": 20, "h": 10, "g": 60, "arrangement": "circulant"},
    ),
    (
        {"kind": "dragonfly_rc", "p": 7, "rows": 5, "cols": 10, "local_links": 2, "h": 7, "g": 35},
        {
            "kind": "dragonfly_rc",
            "p": 7,
            "rows": 5,
            "cols": 10,
            "local_links": 2,
            "h": 7,
            "g": 35,
            "arrangement": "absolute",
        },
    ),
    (
        {"kind": "dragonfly_rc", "p": 2, "rows": 2, "cols": 3, "h": 1},
        {
            "kind": "dragonfly_rc",
            "p": 2,
            "rows": 2,
            "cols": 3,
            "local_links": 1,
            "h": 1,
            "g": 7,
            "arrangement": "absolute",
        },
    ),
    (
        {"kind": "dragonfly_plus", "leaves": 4, "spines": 2, "arrangement": "relative"},
        {
            "kind": "dragonfly_plus",
            "p": 2,
            "leaves": 4,
            "spines": 2,
            "h": 4,
            "g": 9,
            "arrangement": "relative",
        },
    ),
    (
        {"kind": "megafly", "leaves": 8, "spines": 8, "p": 8, "h": 8, "g": 33},
        {
            "kind": "dragonfly_plus",
            "p": 8,
            "leaves": 8,
            "spines": 8,
            "h": 8,
            "g": 33,
            "arrangement": "absolute",
        },
    ),
    ({"kind": "slim_fly", "q": 5}, {"kind": "slim_fly", "q": 5, "p": 4}),
    ({"kind": "slim_fly", "q": 7, "p": 3}, {"kind": "slim_fly", "q": 7, "p": 3}),
    ({"kind": "polarfly", "q": 7}, {"kind": "polarfly", "q": 7, "p": 4}),
    ({"kind": "midimew", "nodes": 1024}, {"kind": "midimew", "nodes": 1024, "concentration": 1}),
    (
        {"kind": "jellyfish", "routers": 20, "degree": 4, "p": 2},
        {"kind": "jellyfish", "routers": 20, "degree": 4, "p": 2, "seed": 1},
    ),
    (
        {"kind": "fishnet", "base": "petersen"},
        {"kind": "fishnet", "base": {"kind": "petersen"}, "p": 2},
    ),
    (
        {"kind": "fishnet_lite", "base": "hoffman_singleton", "p": 3},
        {"kind": "fishnet_lite", "base": {"kind": "hoffman_singleton"}, "p": 3},
    ),
    (
        {"kind": "fishnet", "base": {"kind": "slim_fly", "q": 5}},
        {"kind": "fishnet", "base": {"kind": "slim_fly", "q": 5}, "p": 4},
    ),
    (
        {"kind": "fishnet_lite", "base": {"kind": "custom", "edges": [[0, 1], [1, 2], [2, 0]]}},
        {
            "kind": "fishnet_lite",
            "base": {
                "kind": "custom",
                "graph": {
                    "routers": 3,
                    "links": [[0, 1, 0], [1, 2, 0], [2, 0, 0]],
                    "class_names": ["network"],
                },
            },
            "p": 1,
        },
    ),
    (
        {"kind": "express_mesh", "dims": [12, 10, 10], "gap": 2, "concentration": 10},
        {"kind": "express_mesh", "dims": [12, 10, 10], "gap": 2, "concentration": 10},
    ),
    (
        {"kind": "express_mesh", "dims": [4, 4]},
        {"kind": "express_mesh", "dims": [4, 4], "gap": 1, "concentration": 1},
    ),
    (
        {"kind": "hyperx", "dims": [4, 3], "concentration": 2},
        {"kind": "express_mesh", "dims": [4, 3], "gap": 1, "concentration": 2},
    ),
    (
        {"kind": "flattened_butterfly", "k": 4, "dimensions": 3},
        {"kind": "express_mesh", "dims": [4, 4, 4], "gap": 1, "concentration": 4},
    ),
    (
        {"kind": "custom", "edges": [[0, 1], [1, 2, "long"], [2, 0]], "concentration": 3},
        {
            "kind": "custom",
            "graph": {
                "routers": 3,
                "links": [[0, 1, 0], [1, 2, 1], [2, 0, 0]],
                "class_names": ["network", "long"],
            },
            "endpoints": [3, 3, 3],
        },
    ),
]


def config_error(table) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_topology(table)
    return caught.value


@pytest.mark.parametrize(("table", "core"), ROUND_TRIPS, ids=lambda x: x.get("kind"))
def test_to_core_shape(table, core):
    assert parse_topology(table).to_core() == core
    # The same table inside a whole config gives the same core JSON, and survives JSON.
    config = Config.from_dict({"topology": table, "traffic": {"load": 0.1}})
    assert json.loads(json.dumps(config.to_core()))["topology"] == core


def test_every_kind_has_a_round_trip():
    assert {table["kind"] for table, _ in ROUND_TRIPS} == set(TOPOLOGY_KINDS)


@pytest.mark.parametrize(("table", "core"), ROUND_TRIPS, ids=lambda x: x.get("kind"))
def test_dump_and_reload_is_identical(table, core):
    topology = parse_topology(table)
    assert parse_topology(topology.model_dump()).to_core() == core
    assert parse_topology(topology.model_dump(exclude_unset=True)).to_core() == core


def test_slim_fly_default_p_is_half_the_network_degree():
    # q = 5 = 4*1 + 1: delta = 1, k' = (15 - 1)/2 = 7, p = ceil(7/2) = 4.
    assert slim_fly_degree(5) == 7
    assert parse_topology({"kind": "slim_fly", "q": 5}).p == 4
    assert slim_fly_degree(4) == 6  # delta 0
    assert slim_fly_degree(7) == 11  # delta -1: (21 + 1)/2
    assert parse_topology({"kind": "slim_fly", "q": 7}).p == 6


def test_dragonfly_defaults_are_balanced_and_maximal():
    topology = parse_topology({"kind": "dragonfly", "a": 6, "h": 3})
    assert (topology.p, topology.g) == (3, 19)
    assert parse_topology({"kind": "dragonfly", "a": 6, "h": 3, "g": 10}).g == 10


def test_derived_defaults_stay_unset_and_follow_overrides():
    config = Config.from_dict(
        {"topology": {"kind": "dragonfly", "a": 4, "h": 2}, "traffic": {"load": 0.1}}
    )
    assert "g" not in config.topology.model_fields_set
    wider = load(config, ["topology.a=6"])
    assert wider.topology.g == 6 * 2 + 1


def test_megafly_is_an_alias_of_dragonfly_plus():
    megafly = parse_topology({"kind": "megafly", "leaves": 4, "spines": 4})
    plus = parse_topology({"kind": "dragonfly_plus", "leaves": 4, "spines": 4})
    assert megafly.kind == "megafly"
    assert megafly.to_core() == plus.to_core()
    assert megafly.to_core()["kind"] == "dragonfly_plus"
    assert (megafly.p, megafly.h, megafly.g) == (4, 4, 17)


def test_fishnet_default_p_follows_the_base_degree():
    assert parse_topology({"kind": "fishnet", "base": "hoffman_singleton"}).p == 4  # k' = 7
    assert parse_topology({"kind": "fishnet", "base": {"kind": "slim_fly", "q": 4}}).p == 3


def test_models_are_frozen():
    topology = parse_topology({"kind": "dragonfly", "a": 4, "h": 2})
    assert isinstance(topology, DragonflyTopology)
    with pytest.raises(ValueError):
        topology.a = 5


# -- errors ------------------------------------------------------------------------------------


def test_unknown_kind_lists_every_kind():
    error = config_error({"kind": "hypercube"})
    assert error.key == "topology.kind"
    for kind in ("dragonfly", "slim_fly", "megafly", "custom"):
        assert f'"{kind}"' in error.expected


def test_fat_tree_taper_that_does_not_split_the_radix():
    error = config_error({"kind": "fat_tree", "radix": 40, "taper": "2:1"})
    assert error.key == "topology.taper"
    assert error.value == '"2:1"'
    assert '"3:1"' in error.expected and '"1:1"' in error.expected
    assert valid_tapers(40)[0] == '"7:1"'


def test_fat_tree_odd_radix_and_too_many_pods():
    assert config_error({"kind": "fat_tree", "radix": 7}).key == "topology.radix"
    error = config_error({"kind": "fat_tree", "radix": 8, "pods": 9})
    assert (error.key, error.value) == ("topology.pods", "9")
    assert config_error({"kind": "fat_tree", "radix": 8, "levels": 5}).key == "topology.levels"


def test_unknown_key_names_the_valid_ones():
    error = config_error({"kind": "slim_fly", "q": 5, "k": 3})
    assert error.key == "topology.k"
    assert "q, p" in error.expected


def test_missing_required_key():
    error = config_error({"kind": "dragonfly", "a": 4})
    assert error.key == "topology.h"
    assert error.value == "(missing)"


def test_bad_arrangement():
    error = config_error({"kind": "dragonfly", "a": 4, "h": 2, "arrangement": "random"})
    assert error.key == "topology.arrangement"
    assert "circulant" in error.expected


def test_bad_fishnet_base_names_the_choices():
    error = config_error({"kind": "fishnet", "base": "octahedron"})
    assert (error.key, error.value) == ("topology.base", '"octahedron"')
    assert "petersen" in error.expected and "hoffman_singleton" in error.expected
    assert "did you mean" not in error.expected
    misspelt = config_error({"kind": "fishnet", "base": "petersn"})
    assert misspelt.expected.startswith('did you mean "petersen"?')


def test_polarfly_is_no_fishnet_base():
    # PolarFly is not regular (its q + 1 self-orthogonal points have degree q), and the core's
    # Fishnet joins subnets by base-neighbour order, which needs a regular base.
    error = config_error({"kind": "fishnet", "base": {"kind": "polarfly", "q": 3}})
    assert (error.key, error.value) == ("topology.base.kind", '"polarfly"')
    assert '"slim_fly"' in error.expected and "polarfly" not in error.expected


def test_express_mesh_gap_too_large():
    error = config_error({"kind": "express_mesh", "dims": [4, 4], "gap": 4})
    assert error.key == "topology.gap"
    assert "3" in error.expected


def test_slim_fly_q_not_a_prime_power_is_refused_by_the_core():
    config = Config.from_dict({"topology": {"kind": "slim_fly", "q": 6}, "traffic": {"load": 0.1}})
    with pytest.raises(ConfigError) as caught:
        exanet.validate(config)
    assert caught.value.key == "topology.q"
    assert caught.value.value == "6"
    assert "5, 7" in caught.value.expected


def test_custom_missing_edge_file(tmp_path):
    missing = tmp_path / "absent.edges"
    error = config_error({"kind": "custom", "edges": str(missing)})
    assert error.key == "topology.edges"
    assert str(missing) in error.value
    assert "readable" in error.expected and '"A B"' in error.expected


def test_custom_bad_edge_line_names_the_line(tmp_path):
    path = tmp_path / "bad.edges"
    path.write_text("# a triangle\n0 1\n1 2\n2 zero\n")
    error = config_error({"kind": "custom", "edges": str(path)})
    assert error.key == "topology.edges"
    assert "line 4" in error.value and '"2 zero"' in error.value
    assert "router ids" in error.expected


def test_custom_self_loop_and_too_many_tokens(tmp_path):
    path = tmp_path / "loop.edges"
    path.write_text("0 1\n1 1\n")
    assert "self-loop" in config_error({"kind": "custom", "edges": str(path)}).expected
    path.write_text("0 1 a b\n")
    assert "line 1" in config_error({"kind": "custom", "edges": str(path)}).value


def test_custom_base_errors_name_the_base_key(tmp_path):
    path = tmp_path / "bad.edges"
    path.write_text("0 -1\n")
    error = config_error({"kind": "fishnet", "base": {"kind": "custom", "edges": str(path)}})
    assert error.key == "topology.base.edges"
    assert "line 1" in error.value


def test_edge_list_file_format(tmp_path):
    path = tmp_path / "ring.edges"
    path.write_text("# ring of four\n0 1\n1 2 optical  # a comment\n\n2 3\n3 0\n")
    graph = read_edge_list(path)
    assert graph.routers == 4
    assert graph.class_names == ("network", "optical")
    assert graph.links == ((0, 1, 0), (1, 2, 1), (2, 3, 0), (3, 0, 0))


def test_custom_routers_endpoints_and_concentration(tmp_path):
    path = tmp_path / "line.edges"
    path.write_text("0 1\n1 2\n")
    spare = {"kind": "custom", "edges": str(path), "routers": 5, "endpoints": [1, 1, 1, 0, 0]}
    assert parse_topology(spare).to_core()["graph"]["routers"] == 5
    # Without endpoints every router holds `concentration` endpoints, so each must be linked:
    # refused before a list of a count per router is built (routers = 2^32 - 1 would not fit).
    for routers in (5, 2**32 - 1):
        error = config_error({"kind": "custom", "edges": str(path), "routers": routers})
        assert (error.key, error.value) == ("topology.routers", str(routers))
        assert error.expected.startswith("at most 3: 2 links reach at most 3 routers")
    error = config_error({"kind": "custom", "edges": [[0, 1], [1, 4_000_000_000]]})
    assert (error.key, error.expected) == (
        "topology.edges",
        "router ids up to 2: the largest is 4,000,000,000, and 2 links reach at most 3 routers",
    )
    error = config_error({"kind": "custom", "edges": str(path), "routers": 2})
    assert (error.key, error.value) == ("topology.routers", "2")
    custom = parse_topology({"kind": "custom", "edges": str(path), "endpoints": [2, 0, 2]})
    assert custom.to_core()["endpoints"] == [2, 0, 2]
    error = config_error({"kind": "custom", "edges": str(path), "endpoints": [1, 1]})
    assert error.key == "topology.endpoints"
    both = {"kind": "custom", "edges": str(path), "endpoints": [1, 1, 1], "concentration": 1}
    assert "not both" in config_error(both).expected


def test_relative_edge_list_in_a_toml_is_next_to_the_file(tmp_path, monkeypatch):
    (tmp_path / "ring.edges").write_text("0 1\n1 2\n2 0\n")
    (tmp_path / "ring.toml").write_text(
        '[topology]\nkind = "custom"\nedges = "ring.edges"\n[traffic]\nload = 0.1\n'
    )
    monkeypatch.chdir("/")
    config = Config.from_toml(tmp_path / "ring.toml")
    assert config.to_core()["topology"]["graph"]["routers"] == 3
    assert load(str(tmp_path / "ring.toml")).to_core() == config.to_core()


# -- routing -----------------------------------------------------------------------------------


def test_default_routing_is_dor_on_grids_and_minimal_elsewhere():
    torus = Config.from_dict(
        {"topology": {"kind": "torus", "dims": [4, 4]}, "traffic": {"load": 0.1}}
    )
    assert torus.to_core()["routing"] == {
        "kind": "dor",
        "allow_unsafe": False,
        "vc_rule": "dateline",
    }
    dragonfly = Config.from_dict(
        {"topology": {"kind": "dragonfly", "a": 4, "h": 2}, "traffic": {"load": 0.1}}
    )
    # No threshold given: the core's default (0.5; 0 with an escape sub-network).
    assert dragonfly.to_core()["routing"] == {
        "kind": "minimal",
        "selection": "adaptive",
        "escape": "none",
    }
    # A [routing] table without a kind takes the topology's default kind.
    unsafe = Config.from_dict(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "routing": {"allow_unsafe": True},
            "traffic": {"load": 0.1},
        }
    )
    assert unsafe.to_core()["routing"] == {
        "kind": "dor",
        "allow_unsafe": True,
        "vc_rule": "dateline",
    }
    explicit = Config.from_dict(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "routing": {"kind": "minimal"},
            "traffic": {"load": 0.1},
        }
    )
    assert explicit.to_core()["routing"] == dragonfly.to_core()["routing"]


def test_default_routing_follows_a_topology_override():
    torus = Config.from_dict(
        {"topology": {"kind": "torus", "dims": [4, 4]}, "traffic": {"load": 0.1}}
    )
    slim = load(torus, ['topology={kind = "slim_fly", q = 5}'])
    assert slim.to_core()["routing"] == MinimalRouting().to_core()


def test_unknown_routing_kind():
    with pytest.raises(ConfigError) as caught:
        Config.from_dict(
            {
                "topology": {"kind": "torus", "dims": [4, 4]},
                "routing": {"kind": "ugal"},
                "traffic": {"load": 0.1},
            }
        )
    assert caught.value.key == "routing.kind"
    assert '"minimal"' in caught.value.expected


def test_the_vcs_a_routing_needs_follow_the_shape_of_its_routes():
    # A fat-tree's minimal routes climb, then descend: one VC, whatever its diameter of 4.
    tree = Config.from_dict(
        {
            "topology": {"kind": "fat_tree", "levels": 3, "radix": 4},
            "router": {"vcs": 1},
            "traffic": {"load": 0.1},
        }
    )
    assert exanet.validate(tree)["diameter_hops"] == 4
    # Valiant climbs again after its intermediate: a VC per leg.
    with pytest.raises(ConfigError) as caught:
        exanet.validate(load(tree, ["routing.kind=valiant"]))
    assert (caught.value.key, caught.value.value) == ("router.vcs", "1")
    assert "at least 2 VCs" in caught.value.expected
    # On a mesh minimal routing puts hop i on VC i: as many VCs as the diameter.
    mesh = Config.from_dict(
        {
            "topology": {"kind": "mesh", "dims": [4, 4]},
            "routing": {"kind": "minimal"},
            "traffic": {"load": 0.1},
        }
    )
    with pytest.raises(ConfigError) as caught:
        exanet.validate(mesh)
    assert (caught.value.key, caught.value.value) == ("router.vcs", "2")
    assert "at least 6 VCs" in caught.value.expected
    # A dragonfly's minimal route takes one global link: two VC classes, whatever its
    # diameter of 3.
    dragonfly = Config.from_dict(
        {"topology": {"kind": "dragonfly", "a": 4, "h": 2}, "traffic": {"load": 0.1}}
    )
    assert exanet.validate(dragonfly)["diameter_hops"] == 3


# -- exanet.topology and describe --------------------------------------------------------------


def test_topology_accepts_a_mapping_keywords_a_kind_or_a_toml(tmp_path):
    expected = {"kind": "torus", "dims": [4, 4], "concentration": 1}
    assert exanet.topology({"kind": "torus", "dims": [4, 4]}).to_core() == expected
    assert exanet.topology(kind="torus", dims=[4, 4]).to_core() == expected
    assert exanet.topology("torus", dims=[4, 4]).to_core() == expected
    path = tmp_path / "t.toml"
    path.write_text('[topology]\nkind = "torus"\ndims = [4, 2]\n[links]\nbandwidth = "50GB/s"\n')
    info = exanet.topology(path, dims=[4, 4])
    assert info.to_core() == expected
    assert info.links.bandwidth == 50_000_000_000


def test_topology_errors_are_config_errors(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.topology(kind="dragonfly", a=0, h=2)
    assert caught.value.key == "topology.a"
    path = tmp_path / "no_topology.toml"
    path.write_text("seed = 1\n")
    with pytest.raises(ConfigError) as caught:
        exanet.topology(path)
    assert caught.value.key == "topology"


def test_describe_torus_4x4():
    info = exanet.topology(kind="torus", dims=[4, 4]).describe()
    assert info["routers"] == 16 and info["endpoints"] == 16
    assert info["diameter"] == 4
    assert info["bisection_links"] == 8
    assert info["bisection_gbytes_per_s"] == pytest.approx(8 * 25.0)
    assert info["links_by_class"] == {"dim0": 16, "dim1": 16}
    assert "edges" not in info and "router_groups" not in info
    assert info["cost"] > 0
    assert info["cost_optical_links"] + info["cost_copper_links"] == 32


def test_describe_dragonfly():
    info = exanet.topology(kind="dragonfly", p=2, a=4, h=2, g=9).describe()
    assert info["routers"] == 36
    assert info["endpoints"] == 72
    assert info["links_by_class"] == {"local": 54, "global": 36}
    assert info["diameter"] == 3
    assert info["groups"] == 9
    assert info["distance_exact"] is True
    assert info["cost_copper_links"] == 54 and info["cost_optical_links"] == 36


def test_describe_uses_the_config_link_bandwidth(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('[topology]\nkind = "torus"\ndims = [4, 4]\n[links]\nbandwidth = "50GB/s"\n')
    assert exanet.topology(path).describe()["bisection_gbytes_per_s"] == pytest.approx(400.0)


def test_describe_rejects_bad_options():
    with pytest.raises(ConfigError) as caught:
        exanet.topology(kind="torus", dims=[4, 4]).describe(samples=-1)
    assert caught.value.key == "samples"


def test_describe_frame_has_one_row_per_metric():
    info = exanet.topology(kind="dragonfly", p=2, a=4, h=2, g=9)
    frame = info.describe_frame()
    assert list(frame.columns) == ["group", "metric", "value"]
    values = dict(zip(frame["metric"], frame["value"], strict=True))
    assert values["links_local"] == 54 and values["links_global"] == 36
    assert values["diameter"] == 3
    assert set(frame["group"]) >= {"Size", "Links", "Distance", "Bisection", "Cost"}
    assert frame["metric"].is_unique


def test_from_networkx_petersen_equals_the_fishnet_base():
    networkx = pytest.importorskip("networkx")
    info = exanet.from_networkx(networkx.petersen_graph())
    described = info.describe()
    assert described["routers"] == 10
    assert described["diameter"] == 2
    assert described["links_by_class"] == {"network": 15}
    # The same graph as the core's Petersen base: a Fishnet of either has the same structure.
    custom_base = {"kind": "custom", "edges": info.topology.edges}
    ours = exanet.topology(kind="fishnet", base=custom_base).describe()
    sanity = exanet.topology(kind="fishnet", base="petersen").describe()
    for key in ("routers", "endpoints", "network_links", "diameter", "radix"):
        assert ours[key] == sanity[key]
    assert ours["routers"] == 110


def test_from_networkx_classes_labels_and_endpoints():
    networkx = pytest.importorskip("networkx")
    graph = networkx.Graph()
    graph.add_edge("b", "a", medium="optical")
    graph.add_edge("b", "c", medium="copper")
    info = exanet.from_networkx(graph, endpoints_per_router={"a": 2}, class_attr="medium")
    core = info.to_core()
    assert core["graph"]["links"] == [[1, 0, 0], [1, 2, 1]]  # a=0, b=1, c=2
    assert core["graph"]["class_names"] == ["optical", "copper"]
    assert core["endpoints"] == [2, 0, 0]
    back = info.to_networkx()
    assert sorted(back.edges()) == [(0, 1), (1, 2)]


def test_from_edge_list(tmp_path):
    path = tmp_path / "ring.edges"
    path.write_text("\n".join(f"{i} {(i + 1) % 6}" for i in range(6)) + "\n")
    info = exanet.from_edge_list(path, concentration=2)
    described = info.describe()
    assert (described["routers"], described["endpoints"], described["diameter"]) == (6, 12, 3)
    assert described["bisection_links"] == 2


def test_describe_core_error_is_a_config_error():
    with pytest.raises(ConfigError) as caught:
        exanet.topology(kind="slim_fly", q=6).describe()
    assert caught.value.key == "topology.q"


def test_describe_rows_group_every_figure():
    info = exanet.topology(kind="torus", dims=[4, 4]).describe()
    rows = describe_rows(info)
    assert [group for group, _, _ in rows if group == "Other"] == []
    assert ("Distance", "diameter", 4) in rows


# -- draw --------------------------------------------------------------------------------------

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "table",
    [
        {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9},
        {"kind": "torus", "dims": [4, 4, 2]},
        {"kind": "fat_tree", "radix": 4},
        {"kind": "polarfly", "q": 3},
    ],
    ids=lambda table: table["kind"],
)
def test_draw_writes_a_png(tmp_path, table):
    pytest.importorskip("matplotlib")
    path = exanet.topology(table).draw(tmp_path / "out" / "net.png")
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 5_000


def test_draw_refuses_large_networks(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.topology(kind="torus", dims=[64, 64]).draw(tmp_path / "big.png")
    assert caught.value.key == "topology"
    assert "4,096 routers" in caught.value.value
    assert "2,000" in caught.value.expected
    assert not (tmp_path / "big.png").exists()


def test_draw_rejects_an_unknown_layout(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.topology(kind="torus", dims=[4, 4]).draw(tmp_path / "x.png", layout="radial")
    assert caught.value.key == "layout"


def test_topology_info_repr_names_the_kind():
    info = TopologyInfo(parse_topology({"kind": "slim_fly", "q": 5}))
    assert repr(info) == "<TopologyInfo slim_fly: q=5, p=4>"
    assert not math.isnan(info.links.bandwidth)


def test_the_core_builds_bhateles_twenty_designs_with_the_counted_figures():
    """Two routes to one number: iso.counts by formula, the core by building every link."""
    from exanet.iso import bhatele2019

    for design in bhatele2019():
        core = parse_topology(design.topology).to_core()
        options = {"exact_limit": 0, "samples": 1, "path_sources": 1, "partition_limit": 0}
        facts = _core.describe_topology(json.dumps(core), json.dumps(options))
        assert (facts["endpoints"], facts["routers"], facts["network_links"]) == (
            design.nodes,
            design.routers,
            design.links,
        ), (design.constraint, design.family)
        assert facts["links_by_class"] == design.links_by_class, (design.constraint, design.family)


def test_valiant_and_ugal_l_reach_the_core_and_need_twice_the_vcs():
    base = {
        "topology": {"kind": "dragonfly", "a": 4, "h": 2, "p": 2},
        "traffic": {"load": 0.1},
        "run": {"warmup": "1us", "measure": "2us"},
    }
    for kind in ("valiant", "ugal_l"):
        config = Config.from_dict({**base, "routing": {"kind": kind}, "router": {"vcs": 5}})
        assert config.to_core()["routing"]["kind"] == kind
        assert exanet.simulate(config).summary["packets_delivered"] > 0
        # Hierarchical Valiant on an all-to-all dragonfly: a VC class per global link
        # taken, 3 in all (Kim et al.).
        with pytest.raises(ConfigError) as err:
            exanet.validate(
                Config.from_dict({**base, "routing": {"kind": kind}, "router": {"vcs": 2}})
            )
        assert err.value.key == "router.vcs"
        assert "at least 3 VCs" in err.value.expected


def test_source_routing_reads_a_path_file_relative_to_the_config(tmp_path):
    (tmp_path / "ring.edges").write_text("".join(f"{i} {(i + 1) % 6}\n" for i in range(6)))
    (tmp_path / "paths.txt").write_text("# the long way round\n0 1 2 3 4 5\n")
    (tmp_path / "run.toml").write_text(
        '[topology]\nkind = "custom"\nedges = "ring.edges"\n'
        '[routing]\nkind = "source"\npaths = "paths.txt"\n'
        "[router]\nvcs = 5\n[traffic]\nload = 0.1\n"
    )
    config = load(str(tmp_path / "run.toml"))
    assert config.to_core()["routing"] == {"kind": "source", "paths": [[0, 1, 2, 3, 4, 5]]}
    assert exanet.check_routing(config)["acyclic"]
    # The core checks the paths against the topology, naming the path.
    with pytest.raises(ConfigError) as caught:
        exanet.validate(load(config, ["routing.paths=[[0, 2]]"]))
    assert caught.value.key == "routing.paths[0]"
    assert "not linked" in caught.value.expected
    (tmp_path / "paths.txt").write_text("0 1 x\n")
    with pytest.raises(ConfigError) as caught:
        load(str(tmp_path / "run.toml"))
    assert caught.value.key == "routing.paths"
    assert "line 1" in caught.value.value


@pytest.mark.parametrize(
    ("topology", "routing", "key", "expected"),
    [
        ({"kind": "torus", "dims": [4, 4]}, {"kind": "par"}, "routing.kind", "dragonfly"),
        (
            {"kind": "slim_fly", "q": 5},
            {"kind": "fishnet_adaptive"},
            "routing.kind",
            "groups",
        ),
        (
            {"kind": "mesh", "dims": [4, 4]},
            {"kind": "minimal", "escape": "bubble"},
            "routing.escape",
            "torus",
        ),
        (
            {"kind": "slim_fly", "q": 5},
            {"kind": "minimal", "escape": "dor"},
            "routing.escape",
            "torus",
        ),
        (
            {"kind": "torus", "dims": [4, 4]},
            {"kind": "minimal", "escape": "dor"},
            "router.vcs",
            "at least 3",
        ),
        (
            {"kind": "torus", "dims": [4, 4]},
            {"kind": "minimal", "threshold": -1},
            "routing.threshold",
            "",
        ),
        (
            {"kind": "torus", "dims": [4, 4]},
            {"kind": "minimal", "escape": "dor", "selection": "random"},
            "routing.selection",
            "adaptive",
        ),
    ],
)
def test_routing_that_does_not_fit_is_refused_naming_the_key(topology, routing, key, expected):
    config = {"topology": topology, "routing": routing, "traffic": {"load": 0.1}}
    with pytest.raises(ConfigError) as caught:
        exanet.validate(config)
    assert caught.value.key == key
    assert expected in caught.value.expected


# -- ports per router: at most 65,535, checked by the schema naming the key ---------------------


@pytest.mark.parametrize(
    ("table", "key", "ports"),
    [
        ({"kind": "torus", "dims": [4, 4], "concentration": 100_000}, "concentration", 100_004),
        ({"kind": "mesh", "dims": [2] * 40_000}, "dims", 80_001),
        ({"kind": "hyperx", "dims": [40_000, 30_000]}, "dims", 69_999),
        ({"kind": "express_mesh", "dims": [140_000], "gap": 2}, "dims", 70_001),
        ({"kind": "flattened_butterfly", "k": 40_000, "dimensions": 2}, "k", 119_998),
        ({"kind": "fat_tree", "radix": 65_536, "levels": 2}, "radix", 65_536),
        ({"kind": "dragonfly", "a": 2, "h": 70_000}, "h", 140_001),
        ({"kind": "dragonfly_rc", "p": 1, "rows": 40_000, "cols": 40_000, "h": 1}, "rows", 80_000),
        ({"kind": "dragonfly_plus", "leaves": 70_000, "spines": 2}, "leaves", 140_000),
        ({"kind": "slim_fly", "q": 50_000}, "q", 75_000 + 37_500),
        ({"kind": "polarfly", "q": 49_999}, "q", 50_000 + 25_000),
        ({"kind": "jellyfish", "routers": 100, "degree": 3, "p": 70_000}, "p", 70_003),
        ({"kind": "fishnet", "base": "petersen", "p": 65_530}, "p", 65_536),
        ({"kind": "custom", "edges": [[0, 1]], "endpoints": [70_000, 1]}, "endpoints", 70_001),
    ],
    ids=lambda x: x["kind"] if isinstance(x, dict) else None,
)
def test_routers_with_more_ports_than_the_core_numbers(table, key, ports):
    error = config_error(table)
    assert error.key == f"topology.{key}"
    assert error.expected.startswith(
        "at most 65,535 ports per router (the core numbers them in 16 bits); these parameters "
        f"give {ports:,} = "
    )
    assert f"({key})" in error.expected


def test_a_router_of_exactly_65535_ports_is_accepted():
    assert parse_topology({"kind": "torus", "dims": [4, 4], "concentration": 65_531})
    error = config_error({"kind": "torus", "dims": [4, 4], "concentration": 65_532})
    assert error.expected.endswith(
        "these parameters give 65,536 = 4 (dims) + 65,532 (concentration)"
    )


def test_derived_defaults_beyond_32_bits_name_the_derived_key():
    table = {"kind": "dragonfly_rc", "p": 1, "rows": 20_000, "cols": 20_000, "h": 20_000}
    error = config_error(table)
    assert error.key == "topology.g"
    assert "8,000,000,000,001" in error.expected


def test_edge_lists_with_more_link_classes_than_the_core_tells_apart():
    ring = [[i, (i + 1) % 300, f"c{i}"] for i in range(300)]
    error = config_error({"kind": "custom", "edges": ring})
    assert error.key == "topology.edges"
    assert error.expected == "at most 255 link class names, not 300"
    assert parse_topology({"kind": "custom", "edges": ring[:255]})
