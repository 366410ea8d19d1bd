import itertools
from collections import deque

import pytest
from pydantic import ValidationError

from exanet.cost import CostModel, link_media, network_cost
from exanet.iso import (
    BHATELE2019_COST,
    CONSTRAINTS,
    FAMILIES,
    bhatele2019,
    counts,
    fat_tree_tapers,
    iso_designs,
)

DESIGNS = {(d.constraint, d.family): d for d in bhatele2019()}
GAP2_ROWS = {("NR", "express_mesh"), ("RL", "express_mesh")}


def test_table2_has_twenty_designs_in_order():
    designs = bhatele2019()
    assert len(designs) == 20
    assert [d.constraint for d in designs] == [c for c in CONSTRAINTS for _ in FAMILIES]
    assert [d.family for d in designs] == list(FAMILIES) * 5
    assert all(counts(d.topology)["ports_per_router"] <= 40 for d in designs)


@pytest.mark.parametrize("key", sorted(DESIGNS))
def test_table2_routers_nodes_links_and_balance(key):
    design = DESIGNS[key]
    published = design.published
    assert design.routers == published["routers"]
    if key in GAP2_ROWS:
        return  # links and balance are documented mismatches, checked below
    assert design.links == published["links"]
    assert abs(design.balance - published["balance"]) <= 0.01
    if published["nodes"] == 12012:  # Table 2's misprint for 25 pods x 20 leaves x 24
        assert design.nodes == 12000
        assert "12,012" in design.notes
    else:
        assert design.nodes == published["nodes"]


def test_express_mesh_gap_2_links_are_the_documented_mismatch():
    for key, (links, nodes, cost) in {
        ("NR", "express_mesh"): (9600, 12000, 30576),
        ("RL", "express_mesh"): (13100, 12000, 39320),
    }.items():
        design = DESIGNS[key]
        assert (design.links, design.nodes, design.diameter) == (links, nodes, 6)
        assert design.links != design.published["links"]
        assert design.cost == pytest.approx(cost)
        assert "CODES rule" in design.notes


@pytest.mark.parametrize(
    "key",
    sorted(
        k
        for k in DESIGNS
        if k[1] in ("dragonfly_rc", "fat_tree", "express_mesh") and k not in GAP2_ROWS
    ),
)
def test_table4_costs_of_rc_dragonfly_fat_tree_and_gap_1_express_mesh(key):
    design = DESIGNS[key]
    assert round(design.cost) == design.published["cost"]


def test_all_to_all_dragonfly_costs_stay_as_documented():
    ours = {"N": 31824, "NR": 29424, "NL": 32424, "NRL": 42030, "RL": 40530}
    for constraint, cost in ours.items():
        design = DESIGNS[(constraint, "dragonfly")]
        assert design.cost == pytest.approx(cost)
        assert design.published["cost"] != cost
        assert f"{cost:,}" in design.notes


def test_diameters_are_the_paper_bounds():
    expected = {"dragonfly": 3, "dragonfly_rc": 5, "fat_tree": 4}
    for (_, family), design in DESIGNS.items():
        if family in expected:
            assert design.diameter == expected[family]
    assert DESIGNS[("N", "express_mesh")].diameter == 3
    assert DESIGNS[("NR", "express_mesh")].diameter == 6


# --- cost model -------------------------------------------------------------------------------


def test_cost_model_defaults_and_validation():
    model = CostModel()
    assert (model.optical_cost, model.copper_ratio, model.router_ratio) == (1.0, 0.16, 20.0)
    with pytest.raises(ValidationError):
        CostModel(copper_fraction=0.2)
    with pytest.raises(ValidationError):
        CostModel(express_mesh_cabinet=[1, 0, 2])
    with pytest.raises(ValidationError):
        model.copper_ratio = 0.5


def test_dragonfly_local_links_are_copper():
    topology = {"kind": "dragonfly", "p": 10, "a": 20, "h": 10, "g": 60}
    assert link_media(topology, {"local": 11400, "global": 6000}) == (6000, 11400)
    result = network_cost(topology, {"local": 11400, "global": 6000}, 1200)
    assert result["cost"] == pytest.approx(6000 + 0.16 * 11400 + 20 * 1200)
    assert result["optical_links"] == 6000 and result["copper_links"] == 11400
    assert result["routers"] == 1200 and result["router_ratio"] == 20.0


def test_fat_tree_leaf_up_links_are_optical_and_the_rest_copper():
    topology = {"kind": "fat_tree", "levels": 4, "radix": 8, "pods": 4, "taper": "1:1"}
    assert link_media(topology, {"level1": 256, "level2": 256, "level3": 256}) == (256, 512)


def test_express_mesh_copper_rules():
    topology = {"kind": "express_mesh", "dims": [12, 10, 10], "gap": 1, "concentration": 10}
    classes = counts(topology)["links_by_class"]
    # Nearest neighbours only: 11 x 100 + 9 x 120 + 9 x 120.
    assert link_media(topology, classes) == (17400 - 3260, 3260)
    # Cabinets of 1 x 10 x 2 routers: 5 copper links per router.
    assert link_media(topology, classes, BHATELE2019_COST) == (11400, 6000)
    with pytest.raises(ValueError, match="one cabinet size per dimension"):
        link_media(topology, classes, CostModel(express_mesh_cabinet=[10, 2]))
    with pytest.raises(ValueError, match="do not belong to this topology"):
        link_media(topology, {"dim0": 1, "dim1": 1, "dim2": 1})


def test_other_families_and_copper_class_override():
    assert link_media({"kind": "slim_fly", "q": 5, "p": 3}, {"local": 50, "global": 75}) == (75, 50)
    assert link_media({"kind": "torus", "dims": [4, 4]}, {"dim0": 16, "dim1": 16}) == (32, 0)
    model = CostModel(copper_classes=["dim1"])
    assert link_media({"kind": "torus", "dims": [4, 4]}, {"dim0": 16, "dim1": 16}, model) == (
        16,
        16,
    )
    with pytest.raises(ValueError, match=r"its link classes are \['dim0', 'dim1'\]"):
        link_media({"kind": "torus"}, {"dim0": 16, "dim1": 16}, CostModel(copper_classes=["x"]))
    with pytest.raises(ValueError, match="routers"):
        network_cost({"kind": "torus"}, {"dim0": 1}, -1)


# --- closed-form counts against explicit constructions -------------------------------------------


def _express_mesh_graph(dims, gap):
    routers = list(itertools.product(*(range(n) for n in dims)))
    edges = set()
    for r in routers:
        for d, n in enumerate(dims):
            for j in range(r[d] + 1, n):
                if (j - r[d] - 1) % gap == 0:
                    edges.add((r, (*r[:d], j, *r[d + 1 :])))
    return routers, edges


def _diameter(routers, edges):
    neighbours = {r: [] for r in routers}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    longest = 0
    for source in routers:
        hops = {source: 0}
        queue = deque([source])
        while queue:
            x = queue.popleft()
            for y in neighbours[x]:
                if y not in hops:
                    hops[y] = hops[x] + 1
                    queue.append(y)
        longest = max(longest, *hops.values())
    return longest


@pytest.mark.parametrize(("dims", "gap"), [([5, 4, 3], 1), ([6, 5, 3], 2), ([7, 4], 3), ([9], 2)])
def test_express_mesh_counts_match_an_explicit_graph(dims, gap):
    routers, edges = _express_mesh_graph(dims, gap)
    c = counts({"kind": "express_mesh", "dims": dims, "gap": gap, "concentration": 2})
    assert (c["routers"], c["nodes"], c["links"]) == (len(routers), 2 * len(routers), len(edges))
    assert c["diameter"] == _diameter(routers, edges)
    assert c["ports_per_router"] == 2 + max(sum(1 for e in edges if r in e) for r in routers)


def _fat_tree_graph(levels, radix, pods, down):
    """Routers and links per class, built like the core: recursive pods, then the top level."""
    half, up = radix // 2, radix - down
    routers, links = [0], {}

    def subtree(depth):
        if depth == 1:
            routers[0] += 1
            return 1, up
        children = [subtree(depth - 1) for _ in range(half)]
        tops, ports = children[0]
        routers[0] += tops * ports
        name = f"level{depth - 1}"
        links[name] = links.get(name, 0) + tops * ports * len(children)
        return tops * ports, half

    pod_tops = [subtree(levels - 1) for _ in range(pods)]
    top_links = sum(tops * ports for tops, ports in pod_tops)
    links[f"level{levels - 1}"] = top_links
    routers[0] += -(-top_links // radix)
    return routers[0], links


@pytest.mark.parametrize(
    ("levels", "radix", "pods", "taper", "down"),
    [(2, 8, 5, "1:1", 4), (3, 8, 3, "3:1", 6), (4, 8, 4, "1:1", 4), (4, 12, 5, "2:1", 8)],
)
def test_fat_tree_counts_match_an_explicit_construction(levels, radix, pods, taper, down):
    c = counts({"kind": "fat_tree", "levels": levels, "radix": radix, "pods": pods, "taper": taper})
    routers, links = _fat_tree_graph(levels, radix, pods, down)
    assert (c["routers"], c["links_by_class"]) == (routers, links)
    assert c["nodes"] == pods * (radix // 2) ** (levels - 2) * down
    assert c["diameter"] == 2 * (levels - 1)


def test_dragonfly_counts():
    c = counts(
        {"kind": "dragonfly_rc", "p": 2, "rows": 2, "cols": 3, "local_links": 2, "h": 2, "g": 6}
    )
    assert c["links_by_class"] == {"local": 6 * 2 * (2 * 3 + 3 * 1), "global": 6 * 6 * 2 // 2}
    assert (c["nodes"], c["routers"], c["ports_per_router"]) == (72, 36, 2 + 2 * 3 + 2)


def test_counts_errors_name_the_option():
    with pytest.raises(ValueError, match="counts supports dragonfly, dragonfly_rc"):
        counts({"kind": "slim_fly", "q": 5})
    with pytest.raises(ValueError, match=r"topology.g = 202: expected between 2 and 201"):
        counts({"kind": "dragonfly", "p": 10, "a": 20, "h": 10, "g": 202})
    with pytest.raises(ValueError, match="even number of groups"):
        counts({"kind": "dragonfly", "p": 1, "a": 3, "h": 1, "g": 3})
    with pytest.raises(ValueError, match=r"splits the 40 leaf ports exactly, e\.g\. 1:1, 3:2"):
        counts({"kind": "fat_tree", "levels": 3, "radix": 40, "pods": 4, "taper": "2:5"})
    with pytest.raises(ValueError, match=r"topology\.a is missing"):
        counts({"kind": "dragonfly", "p": 1, "h": 1, "g": 2})
    assert fat_tree_tapers(40) == ["1:1", "3:2", "5:3", "7:3", "3:1", "4:1", "7:1"]


# --- search ------------------------------------------------------------------------------------


def test_iso_nodes_search_finds_a_balanced_design_per_family():
    designs = iso_designs(40, "N", nodes=12000)
    for family in FAMILIES:
        found = [d for d in designs if d.family == family]
        assert 1 <= len(found) <= 3
        best = found[0]
        assert 12000 <= best.nodes <= 12600
        assert abs(best.balance - 1) <= 0.15
        assert counts(best.topology)["ports_per_router"] <= 40
        assert best.constraint == "N" and best.published == {}


def test_iso_nrl_search_finds_the_paper_fat_tree_and_express_mesh():
    designs = iso_designs(40, "NRL", nodes=12000, routers=1500, links=24000, top=1)
    by_family = {d.family: d.topology for d in designs}
    assert by_family["fat_tree"] == DESIGNS[("NRL", "fat_tree")].topology
    assert by_family["express_mesh"] == DESIGNS[("NRL", "express_mesh")].topology
    for d in designs:
        assert (d.nodes, d.routers, d.links) == (12000, 1500, 24000)


def test_search_skips_dragonflies_denser_than_their_diameter_bound():
    for d in iso_designs(40, "N", nodes=500, families=["dragonfly"]):
        a, h, g = d.topology["a"], d.topology["h"], d.topology["g"]
        assert a * h // (g - 1) < a


def test_iso_rl_search_keeps_routers_and_links():
    for d in iso_designs(40, "RL", routers=1500, links=24000, families=["dragonfly_rc"]):
        assert abs(d.routers - 1500) <= 15 and abs(d.links - 24000) <= 1200


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"constraint": "NX", "nodes": 1}, "expected one of N, NR, NL, NRL, RL"),
        ({"constraint": "NR", "nodes": 12000}, "missing routers"),
        ({"constraint": "N", "nodes": 12000, "links": 5}, "not fixed by N: links"),
        ({"constraint": "N", "nodes": 0}, "nodes = 0: expected a positive integer"),
        ({"constraint": "N", "nodes": 100, "families": ["torus"]}, "express_mesh, fat_tree"),
        ({"constraint": "N", "nodes": 100, "top": 0}, "top = 0"),
    ],
)
def test_iso_designs_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        iso_designs(40, **kwargs)
