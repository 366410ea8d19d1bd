"""Traffic from graph applications (000 ch. 4 from first principles): RMAT statistics, partitions,
each app's operations counted two ways, the thesis's falling CoV, and the matrix driving a run."""

import numpy as np
import pytest

import exanet
from exanet.analysis import p2p_cov_percent
from exanet.errors import ConfigError
from exanet.graph_traffic import (
    graph_traffic,
    partition_vertices,
    read_edge_list,
    rmat_edges,
)


def test_rmat_draws_its_quadrants_with_graph500s_probabilities():
    scale, factor = 12, 16
    src, dst = rmat_edges(scale, factor, seed=3, permute=False)
    count = factor << scale
    assert len(src) == len(dst) == count
    assert src.max() < 1 << scale and dst.max() < 1 << scale
    top = scale - 1
    share = np.mean(((src >> top) & 1 == 0) & ((dst >> top) & 1 == 0))
    sigma = np.sqrt(0.57 * 0.43 / count)
    assert abs(share - 0.57) < 4 * sigma
    # Skewed degrees: the busiest vertex has far more than the mean of 2 x 16.
    degree = np.bincount(np.concatenate([src, dst]))
    assert degree.max() > 20 * degree.mean()
    # The permutation relabels vertices and keeps the degree distribution.
    psrc, pdst = rmat_edges(scale, factor, seed=3)
    pdegree = np.bincount(np.concatenate([psrc, pdst]), minlength=1 << scale)
    assert sorted(pdegree) == sorted(np.bincount(np.concatenate([src, dst]), minlength=1 << scale))


def test_partitions_balance_vertex_counts():
    block = partition_vertices(1000, 16, "block")
    counts = np.bincount(block)
    assert counts.max() - counts.min() <= 1 and (np.diff(block) >= 0).all()
    assert (partition_vertices(1000, 16, "hash") == np.arange(1000) % 16).all()


def loop_counts(src, dst, endpoints, owner_of, app):
    """The same counts as graph_traffic, by a plain loop over a set of undirected edges."""
    edges = {(min(u, v), max(u, v)) for u, v in zip(src, dst, strict=True) if u != v}
    neighbours = {}
    for u, v in edges:
        neighbours.setdefault(u, set()).add(v)
        neighbours.setdefault(v, set()).add(u)
    matrix = np.zeros((endpoints, endpoints))
    if app == "pagerank":
        directed = [(u, v) for u, v in edges] + [(v, u) for u, v in edges]
    else:  # tc
        degree = {x: len(n) for x, n in neighbours.items()}
        directed = [(u, v) if (degree[u], u) < (degree[v], v) else (v, u) for u, v in edges]
    for u, v in directed:
        if owner_of(u) != owner_of(v):
            matrix[owner_of(u), owner_of(v)] += 1
    return matrix


@pytest.mark.parametrize("app", ["pagerank", "tc"])
@pytest.mark.parametrize("partition", ["block", "hash"])
def test_each_apps_remote_visits_match_a_plain_count(app, partition):
    src, dst = rmat_edges(8, 8, seed=5)
    vertices = int(max(src.max(), dst.max())) + 1
    owner = partition_vertices(vertices, 6, partition)
    matrix = graph_traffic(src, dst, 6, app, partition)
    expected = loop_counts(src, dst, 6, lambda x: owner[x], app)
    assert (matrix == expected).all()
    assert np.trace(matrix) == 0


def test_bfs_examines_the_edges_of_the_reached_component_only():
    # A path 0-1-2-3 and a separate edge 4-5; the search from 0 never sees 4-5.
    src = np.array([0, 1, 2, 4])
    dst = np.array([1, 2, 3, 5])
    matrix = graph_traffic(src, dst, 6, "bfs", "hash", root=0)
    # Every vertex its own endpoint: each of the 3 path edges examined from both ends.
    expected = np.zeros((6, 6))
    for u, v in [(0, 1), (1, 2), (2, 3)]:
        expected[u, v] = expected[v, u] = 1
    assert (matrix == expected).all()


def test_point_to_point_traffic_evens_out_as_the_graph_grows():
    # 000 Fig. 4.12: the CoV of point-to-point traffic falls with the input size.
    cov = [
        p2p_cov_percent(graph_traffic(*rmat_edges(scale, seed=7), 16, "pagerank", "block"))
        for scale in (9, 12, 15)
    ]
    assert cov[0] > cov[1] > cov[2]
    assert cov[2] < 0.5 * cov[0]


def test_a_graphs_matrix_drives_closed_loop_threads():
    matrix = graph_traffic(*rmat_edges(10, seed=2), 16, "pagerank", "hash")
    summary = exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "traffic": {
                "kind": "threads",
                "pattern": "matrix",
                "matrix": matrix.tolist(),
                "threads_per_lane": 16,
                "compute": "10ns",
                "operations_per_thread": 5,
            },
        },
        progress=False,
    ).summary
    assert summary["operations"] == summary["requests_served"] == 16 * 16 * 5


def test_edge_lists_read_snap_style_files(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a comment\n% another\n0 1\n1\t2\n2,0\n\n")
    src, dst = read_edge_list(path)
    assert list(src) == [0, 1, 2] and list(dst) == [1, 2, 0]
    (tmp_path / "bad.txt").write_text("0 1\n1 x\n")
    with pytest.raises(ConfigError) as error:
        read_edge_list(tmp_path / "bad.txt")
    assert "graph.edge_list" in str(error.value) and "bad.txt:2" in str(error.value)


@pytest.mark.parametrize(
    ("call", "key"),
    [
        (lambda: rmat_edges(0), "graph.scale"),
        (lambda: rmat_edges(4, abc=(0.6, 0.3, 0.3)), "graph.abc"),
        (lambda: graph_traffic(np.array([0]), np.array([1]), 4, "sssp"), "graph.app"),
        (lambda: graph_traffic(np.array([0]), np.array([1]), 1), "graph.endpoints"),
        (lambda: partition_vertices(10, 4, "metis"), "graph.partition"),
    ],
)
def test_bad_graph_inputs_name_their_key(call, key):
    with pytest.raises(ConfigError) as error:
        call()
    assert key in str(error.value)
