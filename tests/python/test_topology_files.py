"""Topology files written by other tools: BookSim anynet listings, ibnetdiscover output, SST
JSON config graphs, GraphML and GML, read as `kind = "custom"` edges, told apart by their
content."""

import json

import networkx as nx
import pytest

import exanet
from exanet.config import load
from exanet.errors import ConfigError

# BookSim 2's own example (src/examples/anynet/anynet_file): three routers, three nodes each; a
# link is listed from one end or both.
ANYNET = """router 0 node 0 node 1 node 2 router 1
router 1 node 3 node 4 node 5
router 2 node 6 node 7 node 8 router 1 router 0
"""

# ibnetdiscover's shape: two switches joined by two cables (each listed from both ends), two
# hosts on each, and the hosts' own blocks.
IBNETDISCOVER = """#
# Topology file: generated on Tue Nov 24 2026
#
vendid=0x2c9
devid=0xc738
sysimgguid=0xf452140300174ae0
switchguid=0xf452140300174ae0(f452140300174ae0)
Switch	36 "S-f452140300174ae0"		# "switch-1" enhanced port 0 lid 1 lmc 0
[1]	"S-f452140300174b20"[1]		# "switch-2" lid 2 4xFDR
[2]	"S-f452140300174b20"[2]		# "switch-2" lid 2 4xFDR
[3]	"H-0002c903004a4b40"[1](2c903004a4b41) 		# "node1 HCA-1" lid 5 4xQDR
[4]	"H-0002c903004a4b50"[1](2c903004a4b51) 		# "node2 HCA-1" lid 6 4xQDR

vendid=0x2c9
devid=0xc738
switchguid=0xf452140300174b20(f452140300174b20)
Switch	36 "S-f452140300174b20"		# "switch-2" enhanced port 0 lid 2 lmc 0
[1]	"S-f452140300174ae0"[1]		# "switch-1" lid 1 4xFDR
[2]	"S-f452140300174ae0"[2]		# "switch-1" lid 1 4xFDR
[5]	"H-0002c903004a4b60"[1](2c903004a4b61) 		# "node3 HCA-1" lid 7 4xQDR
[6]	"H-0002c903004a4b70"[1](2c903004a4b71) 		# "node4 HCA-1" lid 8 4xQDR

vendid=0x2c9
devid=0x1003
caguid=0x2c903004a4b40
Ca	2 "H-0002c903004a4b40"		# "node1 HCA-1"
[1](2c903004a4b41) 	"S-f452140300174ae0"[3]		# lid 5 lmc 0 "switch-1" lid 1 4xQDR
"""


def custom(tmp_path, name, text, **extra):
    path = tmp_path / name
    path.write_text(text)
    config = {
        "topology": {"kind": "custom", "edges": str(path), **extra},
        "traffic": {"kind": "synthetic", "load": 0.1},
        "run": {"warmup": "0.5us", "measure": "1us", "drain": "all"},
    }
    return config


def test_a_booksim_anynet_file_gives_routers_links_and_its_nodes_as_endpoints(tmp_path):
    config = custom(tmp_path, "anynet_file", ANYNET)
    described = exanet.validate(config)
    assert described["routers"] == 3
    assert described["endpoints"] == 9
    # 0-1, 1-2, 0-2 (listed once or twice), each counted in both directions.
    assert described["network_links"] == 2 * 3
    summary = exanet.simulate(config).summary
    assert summary["packets_delivered"] == summary["packets_injected"] > 0


def test_anynet_latencies_become_link_classes_and_conflicting_ones_are_refused(tmp_path):
    latencies = "Router 0 Router 1 10 Router 2 5 node 0\nrouter 1 node 1\nrouter 2 node 2\n"
    config = custom(tmp_path, "lat", latencies)
    topology = load(config).topology
    assert sorted(topology.graph.class_names) == ["cycles10", "cycles5"]
    conflicting = latencies + "router 1 router 0 3\n"
    with pytest.raises(ConfigError) as caught:
        exanet.validate(custom(tmp_path, "conflict", conflicting))
    assert caught.value.key == "topology.edges"
    assert "line 4" in caught.value.value
    assert "line 1 gives 10 cycles" in caught.value.expected


def test_a_node_on_two_routers_is_refused_naming_the_line(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.validate(custom(tmp_path, "twice", "router 0 node 7 router 1\nrouter 1 node 7\n"))
    assert "(anynet) line 2" in caught.value.value
    assert "node 7 on one router only" in caught.value.expected


def test_ibnetdiscover_output_gives_switches_cables_and_hosts(tmp_path):
    config = custom(tmp_path, "fabric.topo", IBNETDISCOVER)
    described = exanet.validate(config)
    assert described["routers"] == 2
    # Two cables, each listed from both switches, counted in both directions.
    assert described["network_links"] == 2 * 2
    assert described["endpoints"] == 4
    summary = exanet.simulate(config).summary
    assert summary["packets_delivered"] == summary["packets_injected"] > 0


@pytest.mark.parametrize("writer", ["graphml", "gml"])
def test_graphml_and_gml_give_nodes_edges_classes_and_endpoints(tmp_path, writer):
    graph = nx.Graph()
    for name, endpoints in [("leaf-a", 2), ("leaf-b", 2), ("spine", 0)]:
        graph.add_node(name, endpoints=endpoints)
    graph.add_edge("leaf-a", "spine", **{"class": "up"})
    graph.add_edge("leaf-b", "spine", **{"class": "up"})
    graph.add_edge("leaf-a", "leaf-b", **{"class": "side"})
    path = tmp_path / f"net.{writer}"
    (nx.write_graphml if writer == "graphml" else nx.write_gml)(graph, path)
    config = custom(tmp_path, path.name, path.read_text())
    topology = load(config).topology
    assert topology.endpoint_counts() == [2, 2, 0]
    assert sorted(topology.graph.class_names) == ["side", "up"]
    described = exanet.validate(config)
    assert (described["routers"], described["endpoints"], described["network_links"]) == (3, 4, 6)


def test_a_named_format_that_does_not_fit_the_file_is_refused(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.validate(custom(tmp_path, "anynet_file", ANYNET, format="edges"))
    assert caught.value.key == "topology.edges"
    with pytest.raises(ConfigError) as caught:
        exanet.validate(custom(tmp_path, "anynet_file", ANYNET, format="graphml"))
    assert "GraphML" in caught.value.expected


def test_the_users_concentration_wins_over_the_files_endpoints(tmp_path):
    described = exanet.validate(custom(tmp_path, "anynet_file", ANYNET, concentration=1))
    assert described["endpoints"] == 3


def sst_graph(latency_right="20 ns"):
    """The shape of `sst --output-json`: four merlin.hr_router components in a ring (one pair
    linked twice), a test NIC per router whose linkcontrol subcomponent holds the port, and a
    NIC-to-NIC link that is no part of the network."""
    routers = [
        {
            "name": f"rtr.{r}",
            "type": "merlin.hr_router",
            "params": {"id": str(r), "num_ports": "4", "link_bw": "1GB/s", "xbar_bw": "1GB/s"},
            "subcomponents": [
                {
                    "slot_name": "topology",
                    "slot_number": 0,
                    "type": "merlin.torus",
                    "params": {"torus.shape": "4", "torus.width": "1", "torus.local_ports": "1"},
                }
            ],
        }
        for r in range(4)
    ]
    nics = [
        {
            "name": f"nic.{r}",
            "type": "merlin.test_nic",
            "params": {"id": str(r), "num_peers": "4"},
            "subcomponents": [
                {"slot_name": "networkIF", "slot_number": 0, "type": "merlin.linkcontrol"}
            ],
        }
        for r in range(4)
    ]

    def link(name, left, left_port, right, right_port, right_latency="20 ns"):
        return {
            "name": name,
            "left": {"component": left, "port": left_port, "latency": "20 ns"},
            "right": {"component": right, "port": right_port, "latency": right_latency},
        }

    links = [
        link(f"link.{r}", f"rtr.{r}", "port0", f"rtr.{(r + 1) % 4}", "port1") for r in range(4)
    ]
    links.append(link("link.extra", "rtr.0", "port2", "rtr.1", "port2", latency_right))
    links.append({**link("nic01", "nic.0", "peer", "nic.1", "peer"), "noCut": True})
    links += [
        link(f"nic.{r}.link", f"nic.{r}:networkIF", "rtr_port", f"rtr.{r}", "port3")
        for r in range(4)
    ]
    document = {
        "program_options": {"verbose": "0", "stopAtCycle": "10us", "timebase": "1 ps"},
        "components": nics + routers,
        "links": links,
    }
    return json.dumps(document, indent=2)


def test_an_sst_config_graph_gives_routers_links_latency_classes_and_nics(tmp_path):
    config = custom(tmp_path, "config.json", sst_graph())
    config["links"] = {"latency_20ns": {"latency": "20ns"}}
    topology = load(config).topology
    assert list(topology.graph.class_names) == ["latency_20ns"]
    assert topology.endpoint_counts() == [1, 1, 1, 1]
    described = exanet.validate(config)
    # The ring's 4 links and the second rtr.0-rtr.1 link, each counted in both directions; the
    # NIC-to-NIC link is no network link.
    assert (described["routers"], described["endpoints"]) == (4, 4)
    assert described["network_links"] == 2 * 5
    summary = exanet.simulate(config).summary
    assert summary["packets_delivered"] == summary["packets_injected"] > 0


def test_an_sst_link_with_two_latencies_is_refused_naming_it(tmp_path):
    with pytest.raises(ConfigError) as caught:
        exanet.validate(custom(tmp_path, "config.json", sst_graph(latency_right="1.5 ns")))
    assert caught.value.key == "topology.edges"
    assert "(sst) link link.extra" in caught.value.value
    assert "one latency at both ends" in caught.value.expected
