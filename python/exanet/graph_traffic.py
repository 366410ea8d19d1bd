"""Traffic from graph applications, from first principles (000 ch. 4): an RMAT graph (Graph500's
generator) or an edge-list file, its vertices partitioned across endpoints, and the remote edge
visits of a graph computation counted as operations from the endpoint that owns an edge's source
to the one that owns its destination. The result is a traffic matrix: for the characterization
functions of `exanet.analysis` (CoV, bisection share) and for `pattern = "matrix"` of synthetic
or closed-loop threads traffic (docs/workloads.md, "Traffic from graph applications").
"""

from __future__ import annotations

import os
from typing import Literal

import numpy as np

from exanet.errors import ConfigError

GraphApp = Literal["pagerank", "bfs", "tc"]
APPS: tuple[str, ...] = ("pagerank", "bfs", "tc")
PARTITIONS: tuple[str, ...] = ("block", "hash")
#: Graph500's RMAT quadrant probabilities (d = 1 - a - b - c) and edges per vertex (000 §4.2.1).
GRAPH500_ABC = (0.57, 0.19, 0.19)
GRAPH500_EDGE_FACTOR = 16
MAX_SCALE = 30

Edges = tuple[np.ndarray, np.ndarray]


def rmat_edges(
    scale: int,
    edge_factor: int = GRAPH500_EDGE_FACTOR,
    abc: tuple[float, float, float] = GRAPH500_ABC,
    seed: int = 1,
    permute: bool = True,
) -> Edges:
    """`edge_factor` x 2^scale directed edges of an RMAT graph on 2^scale vertices: each edge
    picks, bit by bit from the top, the quadrant of the adjacency matrix with probabilities
    a, b, c, d. As Graph500 does, the vertex labels are then permuted (`permute`), so that a
    block partition does not see the generator's skew by label. Self-loops and repeats are kept
    (Graph500 keeps them too); `graph_traffic` ignores self-loops."""
    if not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ConfigError("graph.scale", repr(scale), f"an integer from 1 to {MAX_SCALE}")
    if not isinstance(edge_factor, int) or edge_factor < 1:
        raise ConfigError("graph.edge_factor", repr(edge_factor), "an integer >= 1")
    a, b, c = abc
    if min(a, b, c) < 0 or a + b + c > 1:
        raise ConfigError(
            "graph.abc", repr(abc), "probabilities a, b, c >= 0 with a + b + c <= 1 (d is the rest)"
        )
    rng = np.random.default_rng(seed)
    count = edge_factor << scale
    src = np.zeros(count, dtype=np.int64)
    dst = np.zeros(count, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(count)
        down = r >= a + b  # quadrants c and d: the source's bit is 1
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)  # quadrants b and d
        src |= down.astype(np.int64) << (scale - 1 - bit)
        dst |= right.astype(np.int64) << (scale - 1 - bit)
    if permute:
        labels = rng.permutation(1 << scale)
        src, dst = labels[src], labels[dst]
    return src, dst


def read_edge_list(path: str | os.PathLike[str]) -> Edges:
    """Edges of a text edge list: one `src dst` pair per line (spaces, tabs or commas), lines
    starting with `#` or `%` ignored (SNAP's and Matrix Market's comments); vertex ids are
    non-negative integers."""
    pairs: list[tuple[int, int]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text[0] in "#%":
                continue
            fields = text.replace(",", " ").split()
            try:
                u, v = int(fields[0]), int(fields[1])
            except (IndexError, ValueError):
                raise ConfigError(
                    "graph.edge_list", f"{os.fspath(path)}:{number}: {text!r}", "`src dst` integers"
                ) from None
            if u < 0 or v < 0:
                raise ConfigError(
                    "graph.edge_list", f"{os.fspath(path)}:{number}: {text!r}", "ids >= 0"
                )
            pairs.append((u, v))
    if not pairs:
        raise ConfigError("graph.edge_list", os.fspath(path), "at least one `src dst` line")
    array = np.asarray(pairs, dtype=np.int64)
    return array[:, 0], array[:, 1]


def partition_vertices(vertices: int, endpoints: int, method: str = "block") -> np.ndarray:
    """The endpoint that owns each vertex: `block` gives endpoint e the e-th run of about
    vertices / endpoints consecutive ids; `hash` deals them round-robin (vertex mod endpoints)."""
    if not isinstance(endpoints, int) or endpoints < 2:
        raise ConfigError("graph.endpoints", repr(endpoints), "an integer >= 2")
    ids = np.arange(vertices, dtype=np.int64)
    if method == "block":
        return ids * endpoints // max(vertices, 1)
    if method == "hash":
        return ids % endpoints
    raise ConfigError("graph.partition", repr(method), " or ".join(PARTITIONS))


def _undirected(src: np.ndarray, dst: np.ndarray) -> Edges:
    """Both directions of every edge but self-loops, each distinct directed pair once."""
    keep = src != dst
    both = np.concatenate([np.stack([src[keep], dst[keep]]), np.stack([dst[keep], src[keep]])], 1)
    unique = np.unique(both, axis=1)
    return unique[0], unique[1]


def _bfs_visits(src: np.ndarray, dst: np.ndarray, vertices: int, root: int) -> np.ndarray:
    """Mask of the directed edges a level-synchronous BFS from `root` examines: every edge out of
    every vertex it reaches, once."""
    order = np.argsort(src, kind="stable")
    starts = np.searchsorted(src[order], np.arange(vertices + 1))
    reached = np.zeros(vertices, dtype=bool)
    reached[root] = True
    frontier = np.array([root])
    examined = np.zeros(len(src), dtype=bool)
    while frontier.size:
        spans = [order[starts[v] : starts[v + 1]] for v in frontier]
        edges = np.concatenate(spans) if spans else np.array([], dtype=np.int64)
        examined[edges] = True
        nxt = np.unique(dst[edges])
        frontier = nxt[~reached[nxt]]
        reached[frontier] = True
    return examined


def graph_traffic(
    src: np.ndarray,
    dst: np.ndarray,
    endpoints: int,
    app: str = "pagerank",
    partition: str = "block",
    root: int | None = None,
) -> np.ndarray:
    """Endpoints x endpoints matrix of the operations one pass of `app` sends over the network
    on the undirected graph of the edges (self-loops and repeats dropped), vertices partitioned
    by `partition`:

    - `pagerank`: one iteration; every vertex pushes its contribution along each of its edges,
      an operation from its owner to each neighbour's;
    - `bfs`: a search from `root` (default: the vertex of highest degree); each edge out of a
      reached vertex is examined once, an operation from its owner to the neighbour's;
    - `tc`: triangle counting by neighbour-list intersection; for each edge u-v, oriented from
      the lower degree to the higher (ties by id), u's owner reads v's list from v's owner.

    Visits between vertices of one endpoint stay local and are not counted (the diagonal is 0).
    """
    if app not in APPS:
        raise ConfigError("graph.app", repr(app), " or ".join(APPS))
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    vertices = int(max(src.max(initial=0), dst.max(initial=0))) + 1
    owner = partition_vertices(vertices, endpoints, partition)
    u, v = _undirected(src, dst)
    if app == "bfs":
        degree = np.bincount(u, minlength=vertices)
        start = int(np.argmax(degree)) if root is None else root
        if not 0 <= start < vertices:
            raise ConfigError("graph.root", repr(root), f"a vertex id from 0 to {vertices - 1}")
        mask = _bfs_visits(u, v, vertices, start)
        u, v = u[mask], v[mask]
    elif app == "tc":
        degree = np.bincount(u, minlength=vertices)
        forward = (degree[u] < degree[v]) | ((degree[u] == degree[v]) & (u < v))
        u, v = u[forward], v[forward]
    matrix = np.zeros((endpoints, endpoints))
    np.add.at(matrix, (owner[u], owner[v]), 1.0)
    np.fill_diagonal(matrix, 0.0)
    return matrix
