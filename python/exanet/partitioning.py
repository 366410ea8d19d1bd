"""Partitions of a router graph by KaHIP (the `partition` extra: ``pip install
'exanet[partition]'``), for the bisection bound of `describe` and the workers of the parallel
engine (`partitioner = "kahip"`). Without KaHIP, exanet's own partitioners are used and the
results say so (docs/topologies.md, docs/parallel.md).

Parts are balanced by endpoints, as exanet's own partitioners balance them (by routers when no
router has endpoints); parallel links count one each in a cut.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from exanet.structure import RouterGraph

#: The library that partitions graphs when the `partition` extra is installed.
LIBRARY = "kahip"
#: What to install to get it.
INSTALL_HINT = "pip install 'exanet[partition]'"
#: Allowed excess of a worker's endpoints over an equal share in `parallel_partition`.
PARALLEL_IMBALANCE = 0.03


def available() -> bool:
    """Whether KaHIP can be imported."""
    return importlib.util.find_spec(LIBRARY) is not None


def balance_weights(graph: RouterGraph) -> list[int]:
    """The balance weight of every router: its endpoints, or 1 each when no router has any."""
    weights = list(graph.endpoints)
    return weights if any(weights) else [1] * len(weights)


def bisection_slack(weights: Sequence[int]) -> int:
    """The most the two sides' weights may differ by, as in exanet's own partitioner: 0 when
    every weighted router has the same weight and there is an even number of them, else the
    largest weight."""
    weighted = [w for w in weights if w > 0]
    largest = max(weighted, default=0)
    if all(w == largest for w in weighted) and len(weighted) % 2 == 0:
        return 0
    return largest


def cut_links(graph: RouterGraph, part_of: Sequence[int]) -> int:
    """Links between routers of different parts (parallel links count one each)."""
    return sum(1 for a, b, _ in graph.edges if part_of[a] != part_of[b])


def _csr(graph: RouterGraph) -> tuple[list[int], list[int], list[int]]:
    """The graph as KaHIP takes it: offsets, neighbours and edge weights (parallel links
    merged into one edge weighing their number; self-loops dropped)."""
    neighbours: list[dict[int, int]] = [{} for _ in range(graph.routers)]
    for a, b, _ in graph.edges:
        if a != b:
            neighbours[a][b] = neighbours[a].get(b, 0) + 1
            neighbours[b][a] = neighbours[b].get(a, 0) + 1
    offsets, adjacent, weights = [0], [], []
    for row in neighbours:
        for router, count in sorted(row.items()):
            adjacent.append(router)
            weights.append(count)
        offsets.append(len(adjacent))
    return offsets, adjacent, weights


def _kaffpa(graph: RouterGraph, parts: int, imbalance: float, seed: int) -> tuple[int, list[int]]:
    import kahip

    offsets, adjacent, edge_weights = _csr(graph)
    _, blocks = kahip.kaffpa(
        balance_weights(graph),
        offsets,
        edge_weights,
        adjacent,
        parts,
        imbalance,
        True,
        seed % 2**31,
        kahip.STRONG,
    )
    part_of = [int(block) for block in blocks]
    return cut_links(graph, part_of), part_of


def bisection(graph: RouterGraph, runs: int, seed: int) -> tuple[int, list[int]] | None:
    """KaHIP's best balanced bisection over `runs` seeds from `seed` (cut links, side of every
    router), balanced as exanet's own partitioner balances; None when no run is balanced or
    the graph has fewer than two routers."""
    if graph.routers < 2:
        return None
    weights = balance_weights(graph)
    total, slack = sum(weights), bisection_slack(weights)
    half = (total + 1) // 2
    imbalance = ((total + slack) // 2) / half - 1
    best: tuple[int, list[int]] | None = None
    for run in range(max(runs, 1)):
        cut, side = _kaffpa(graph, 2, imbalance, seed + run)
        first = sum(w for w, s in zip(weights, side, strict=True) if s == 0)
        if abs(total - 2 * first) <= slack and (best is None or cut < best[0]):
            best = (cut, side)
    return best


def parallel_partition(graph: RouterGraph, parts: int, seed: int = 1) -> list[int]:
    """KaHIP's partition of the routers into `parts` workers, every part within
    PARALLEL_IMBALANCE of an equal share of endpoints: the part of every router."""
    return _kaffpa(graph, parts, PARALLEL_IMBALANCE, seed)[1]
