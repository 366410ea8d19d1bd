"""Structure of a topology without simulating it: counts, distances, path diversity, bisection,
balance and cost (`TopologyInfo.describe`), a drawing of its router graph (`TopologyInfo.draw`),
and topologies from edge lists and networkx graphs.

    >>> info = exanet.topology(kind="dragonfly", a=4, h=2)
    >>> info.describe()["diameter"]
    3

The measurements run in the Rust core (`exanet._core.describe_topology`); docs/topologies.md
explains each figure and how it is obtained (closed form, exact, sampled, partitioner).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError

from exanet import _core, partitioning
from exanet._validation import format_value, to_config_error
from exanet.config import LinksConfig, _Section, read_config_toml
from exanet.errors import ConfigError, core_errors
from exanet.topologies import (
    DEFAULT_LINK_CLASS,
    TOPOLOGY_DESCRIPTION,
    TOPOLOGY_KINDS,
    AnyTopology,
    CustomTopology,
    Topology,
    parse_topology,
)

if TYPE_CHECKING:
    import networkx
    import pandas

    from exanet.cost import CostModel

#: Most routers `TopologyInfo.draw` accepts: beyond, a drawing is a blot.
MAX_DRAW_ROUTERS = 2_000

#: The figures of `describe`, in the groups the command line shows them in.
DESCRIBE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Size",
        (
            "family",
            "endpoints",
            "ports_per_node",
            "routers",
            "radix",
            "groups",
            "ports_used_min",
            "ports_used_mean",
            "ports_used_max",
            "ports_free",
        ),
    ),
    ("Links", ("network_links", "injection_links", "links_by_class", "balance")),
    (
        "Distance",
        (
            "diameter",
            "diameter_method",
            "router_diameter",
            "average_router_distance",
            "average_endpoint_distance",
            "distance_method",
            "distance_exact",
            "distance_sources",
            "path_diversity_mean",
            "path_diversity_min",
            "path_diversity_max",
            "path_diversity_pairs",
            "path_diversity_sources",
        ),
    ),
    (
        "Bisection",
        (
            "bisection_links",
            "bisection_method",
            "bisection_partitioner_links",
            "bisection_kahip_links",
            "bisection_partitioner",
            "bisection_gbytes_per_s",
        ),
    ),
    ("Cost", ("cost", "cost_optical_links", "cost_copper_links")),
)

_DESCRIBE_OPTIONS = (
    "exact_limit",
    "samples",
    "path_sources",
    "partition_limit",
    "restarts",
    "seed",
)
# Options for a quick look (drawing, counting): closed forms, one BFS, no partitioner.
_QUICK_OPTIONS = {
    "exact_limit": 0,
    "samples": 1,
    "path_sources": 1,
    "partition_limit": 0,
    "restarts": 1,
    "seed": 1,
}


class _StructureDocument(_Section):
    """The parts of a config that describe a network's structure."""

    topology: Topology = Field(description=TOPOLOGY_DESCRIPTION)
    links: LinksConfig = Field(default_factory=LinksConfig)


@dataclass(frozen=True)
class RouterGraph:
    """The router graph of a topology: links as (a, b, class index), the class names and, for
    families that have groups, the group of every router."""

    routers: int
    endpoints: tuple[int, ...]
    edges: tuple[tuple[int, int, int], ...]
    class_names: tuple[str, ...]
    groups: tuple[int, ...] | None


@dataclass(frozen=True)
class TopologyInfo:
    """A validated topology, with the link parameters of its config (for bandwidths)."""

    topology: AnyTopology
    links: LinksConfig = field(default_factory=LinksConfig)

    @property
    def kind(self) -> str:
        return self.topology.kind

    def to_core(self) -> dict[str, Any]:
        """The `[topology]` table in core form."""
        return self.topology.to_core()

    def __repr__(self) -> str:
        params = self.topology.model_dump(exclude={"kind"})
        if isinstance(self.topology, CustomTopology) and not isinstance(params["edges"], str):
            params["edges"] = f"<{len(params['edges'])} links>"
        text = ", ".join(f"{key}={format_value(value)}" for key, value in params.items())
        return f"<TopologyInfo {self.kind}: {text}>"

    # -- measurement ------------------------------------------------------------------------

    def _describe_core(self, options: Mapping[str, Any]) -> dict[str, Any]:
        topology_json = json.dumps(self.to_core())
        with core_errors():
            return _core.describe_topology(topology_json, json.dumps(dict(options)))

    def describe(
        self,
        exact_limit: int = 100_000,
        samples: int = 256,
        path_sources: int = 32,
        partition_limit: int = 5_000,
        restarts: int = 4,
        seed: int = 1,
        cost: CostModel | None = None,
    ) -> dict[str, Any]:
        """Counts, distances, path diversity, bisection, balance and cost, as a flat dict.

        Distances are exact (a breadth-first search from every router) up to `exact_limit`
        routers and sampled from `samples` random routers beyond, unless the family has a
        closed form; minimal paths are counted from `path_sources` routers; without a closed
        form the bisection comes from a graph partitioner (best of `restarts` runs, up to
        `partition_limit` routers), an upper bound on the minimum: exanet's own, and KaHIP's
        when the partition extra is installed (`bisection_kahip_links`), the smaller kept and
        named in `bisection_partitioner`. `bisection_gbytes_per_s` is
        bisection_links x the config's default link bandwidth, per direction. `cost` (default
        `exanet.cost.CostModel()`) prices the links and routers: `cost`, `cost_optical_links`,
        `cost_copper_links`. Raises ConfigError for a topology that cannot exist.
        """
        options = {
            "exact_limit": exact_limit,
            "samples": samples,
            "path_sources": path_sources,
            "partition_limit": partition_limit,
            "restarts": restarts,
            "seed": seed,
        }
        for name, value in options.items():
            limit = 2**64 if name == "seed" else 2**32
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
                raise ConfigError(name, format_value(value), f"an integer from 0 to {limit - 1}")
        info = self._describe_core(options)
        # The router graph's links and groups come only with "with_edges" (router_graph()).
        info.pop("edges", None)
        info.pop("router_groups", None)
        # Exanet's partitioner ran (up to partition_limit routers): KaHIP gets the same graph.
        ran = info["bisection_partitioner_links"] is not None
        graph = self.router_graph() if ran and partitioning.available() else None
        info.update(_library_bisection(info, graph, restarts, seed))
        bisection = info.get("bisection_links")
        bandwidth = self.links.bandwidth / 1e9
        info["bisection_gbytes_per_s"] = None if bisection is None else bisection * bandwidth
        info.update(self._cost(info, cost))
        return info

    def _cost(self, info: Mapping[str, Any], model: CostModel | None) -> dict[str, Any]:
        from exanet.cost import CostModel, network_cost

        result = network_cost(
            self.to_core(), info["links_by_class"], info["routers"], model or CostModel()
        )
        return {
            "cost": result["cost"],
            "cost_optical_links": result["optical_links"],
            "cost_copper_links": result["copper_links"],
        }

    def describe_frame(self, **options: Any) -> pandas.DataFrame:
        """`describe` as a DataFrame with one row per figure: columns group (Size, Links,
        Distance, Bisection, Cost), metric and value; each link class is a row
        `links_CLASS`."""
        import pandas

        return pandas.DataFrame(
            describe_rows(self.describe(**options)), columns=["group", "metric", "value"]
        )

    def router_graph(self) -> RouterGraph:
        """The router graph (links, classes, groups) as the core builds it."""
        info = self._describe_core({**_QUICK_OPTIONS, "with_edges": True})
        return self._router_graph(info)

    def _router_graph(self, info: Mapping[str, Any]) -> RouterGraph:
        groups = info.get("router_groups")
        return RouterGraph(
            routers=info["routers"],
            endpoints=tuple(self._endpoint_counts(info)),
            edges=tuple(tuple(edge) for edge in info["edges"]),
            class_names=tuple(info["links_by_class"]),
            groups=None if groups is None else tuple(groups),
        )

    def _endpoint_counts(self, info: Mapping[str, Any]) -> list[int]:
        if isinstance(self.topology, CustomTopology):
            return self.topology.endpoint_counts()
        routers, endpoints = info["routers"], info["endpoints"]
        if routers and endpoints % routers == 0:
            return [endpoints // routers] * routers
        return [0] * routers  # irregular (fat-tree leaves): not known per router here

    def to_networkx(self) -> networkx.MultiGraph:
        """The router graph as a networkx MultiGraph: nodes 0..n-1 with attribute `group` (when
        the family has groups), one edge per link with attribute `link_class`."""
        import networkx

        graph = self.router_graph()
        result = networkx.MultiGraph()
        for router in range(graph.routers):
            attributes = {} if graph.groups is None else {"group": graph.groups[router]}
            result.add_node(router, **attributes)
        for a, b, cls in graph.edges:
            result.add_edge(a, b, link_class=graph.class_names[cls])
        return result

    # -- drawing ----------------------------------------------------------------------------

    def draw(
        self,
        path: str | os.PathLike[str],
        *,
        layout: str = "auto",
        dpi: int = 150,
        size_inches: float = 9.0,
        title: str | None = None,
    ) -> Path:
        """Write a PNG of the router graph (at most 2,000 routers) and return its path.

        `layout`: "auto" (coordinates for grids, levels for fat-trees, groups on a circle for
        families with groups, a circle otherwise), "grid", "tree", "groups", "circle" or
        "spring". Links are coloured by
        class; routers by group.
        """
        layouts = ("auto", "grid", "groups", "tree", "circle", "spring")
        if layout not in layouts:
            raise ConfigError(
                "layout", format_value(layout), "one of " + ", ".join(map(format_value, layouts))
            )
        quick = self._describe_core(_QUICK_OPTIONS)
        if quick["routers"] > MAX_DRAW_ROUTERS:
            raise ConfigError(
                "topology",
                f"{quick['routers']:,} routers",
                f"at most {MAX_DRAW_ROUTERS:,} routers to draw (a drawing of more is "
                "unreadable); describe() reports on networks of any size",
            )
        graph = self.router_graph()
        core = self.to_core()
        dims = core.get("dims") if core["kind"] in ("torus", "mesh", "express_mesh") else None
        if layout == "auto" and core["kind"] == "fat_tree":
            layout = "tree"
        heading = title or _title(self, quick)
        return _render(graph, Path(path), layout, dims, heading, dpi, size_inches)


def _library_bisection(
    info: Mapping[str, Any], graph: RouterGraph | None, runs: int, seed: int
) -> dict[str, Any]:
    """KaHIP's bisection beside exanet's own (`graph` is None without KaHIP): its cut in
    `bisection_kahip_links` and, when no closed form exists, the smaller of the two in
    `bisection_links` with its partitioner named in `bisection_partitioner` (exanet's on a tie).
    KaHIP runs only where exanet's partitioner ran and the endpoints of every router are known
    (they balance the halves)."""
    own = info["bisection_partitioner_links"]
    if own is None:
        return {"bisection_kahip_links": None, "bisection_partitioner": None}
    named = info["bisection_method"] == "partitioner"
    if graph is None:
        fallback = f"exanet (kahip not installed: {partitioning.INSTALL_HINT})"
        return {"bisection_kahip_links": None, "bisection_partitioner": fallback if named else None}
    known = sum(graph.endpoints) == info["endpoints"]
    found = partitioning.bisection(graph, runs, seed) if known else None
    result: dict[str, Any] = {
        "bisection_kahip_links": None if found is None else found[0],
        "bisection_partitioner": "exanet" if named else None,
    }
    if named and found is not None and found[0] < own:
        result.update(bisection_links=found[0], bisection_partitioner=partitioning.LIBRARY)
    return result


def _grid_positions(routers: int, dims: Sequence[int]) -> list[tuple[float, float]]:
    """Router positions of a grid: dimension 0 along x, 1 along y; dimensions 2, 3, ... tile
    copies of the plane side by side (even) and on top of each other (odd), one unit apart."""
    step = [1.0, 1.0]
    scale = []
    for d, k in enumerate(dims):
        axis = d % 2
        scale.append((axis, step[axis]))
        step[axis] = step[axis] * k + 1  # the next dimension on this axis: copies 1 unit apart
    positions = []
    for router in range(routers):
        xy = [0.0, 0.0]
        rest = router
        for d, k in enumerate(dims):
            coordinate = rest % k
            rest //= k
            axis, step = scale[d]
            xy[axis] += coordinate * step
        positions.append((xy[0], xy[1]))
    return positions


def _circle(count: int, radius: float, center: tuple[float, float] = (0.0, 0.0), phase=0.0):
    return [
        (
            center[0] + radius * math.cos(phase + 2 * math.pi * i / max(count, 1)),
            center[1] + radius * math.sin(phase + 2 * math.pi * i / max(count, 1)),
        )
        for i in range(count)
    ]


def _group_positions(groups: Sequence[int]) -> list[tuple[float, float]]:
    """Groups on a circle, the routers of each group on a small circle around its place."""
    members: dict[int, list[int]] = {}
    for router, group in enumerate(groups):
        members.setdefault(group, []).append(router)
    order = sorted(members)
    centers = _circle(len(order), 1.0, phase=math.pi / 2)
    radius = 0.8 * math.sin(math.pi / len(order)) if len(order) > 1 else 0.8
    positions: list[tuple[float, float]] = [(0.0, 0.0)] * len(groups)
    for center, group in zip(centers, order, strict=True):
        routers = members[group]
        angle = math.atan2(center[1], center[0]) + math.pi  # first router faces the middle
        small = radius * min(1.0, 0.15 + len(routers) / 40) if len(routers) > 1 else 0.0
        for router, xy in zip(routers, _circle(len(routers), small, center, angle), strict=True):
            positions[router] = xy
    return positions


def _tree_positions(graph: RouterGraph) -> list[tuple[float, float]]:
    """Fat-tree levels as rows: the top routers (the last group) on top, each router one row
    below its nearest top router; within a row, by group then id."""
    from collections import deque

    adjacency: list[list[int]] = [[] for _ in range(graph.routers)]
    for a, b, _ in graph.edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    top = max(graph.groups) if graph.groups else 0
    depth = [-1] * graph.routers
    queue = deque(r for r in range(graph.routers) if graph.groups and graph.groups[r] == top)
    for router in queue:
        depth[router] = 0
    while queue:
        router = queue.popleft()
        for peer in adjacency[router]:
            if depth[peer] < 0:
                depth[peer] = depth[router] + 1
                queue.append(peer)
    rows: dict[int, list[int]] = {}
    for router in range(graph.routers):
        rows.setdefault(depth[router], []).append(router)
    width = max(len(row) for row in rows.values())
    positions: list[tuple[float, float]] = [(0.0, 0.0)] * graph.routers
    for level, row in rows.items():
        row.sort(key=lambda r: (graph.groups[r] if graph.groups else 0, r))
        spacing = width / len(row)
        for i, router in enumerate(row):
            positions[router] = ((i + 0.5) * spacing, -level * max(width / 6, 1.0))
    return positions


def _render(
    graph: RouterGraph,
    path: Path,
    layout: str,
    dims: Sequence[int] | None,
    title: str,
    dpi: int,
    size_inches: float,
) -> Path:
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    if layout == "auto":
        layout = "grid" if dims else "groups" if graph.groups else "circle"
    if layout == "grid" and not dims:
        raise ConfigError(
            "layout",
            '"grid"',
            "a topology with coordinates (torus, mesh, express mesh, HyperX, flattened butterfly)",
        )
    if layout in ("groups", "tree") and not graph.groups:
        raise ConfigError(
            "layout",
            format_value(layout),
            'a family whose routers have groups (fat_tree for "tree")',
        )
    if layout == "grid":
        positions = _grid_positions(graph.routers, dims)
    elif layout == "groups":
        positions = _group_positions(graph.groups)
    elif layout == "tree":
        positions = _tree_positions(graph)
    elif layout == "spring":
        import networkx

        nx_graph = networkx.Graph()
        nx_graph.add_nodes_from(range(graph.routers))
        nx_graph.add_edges_from((a, b) for a, b, _ in graph.edges)
        layout_map = networkx.spring_layout(nx_graph, seed=1)
        positions = [tuple(layout_map[r]) for r in range(graph.routers)]
    else:
        positions = _circle(graph.routers, 1.0, phase=math.pi / 2)
    xy = np.asarray(positions, dtype=float).reshape(-1, 2)

    segments_by_class: dict[int, list[np.ndarray]] = {}
    for a, b, cls in graph.edges:
        start, end = xy[a], xy[b]
        delta = end - start
        length = float(np.hypot(*delta))
        if layout == "grid" and length > 1.01:
            # Wrap-around and express links arc away from the row they span.
            normal = np.array([-delta[1], delta[0]]) / length
            control = (start + end) / 2 + normal * min(0.15 * length, 0.9)
            t = np.linspace(0.0, 1.0, 16)[:, None]
            curve = (1 - t) ** 2 * start + 2 * (1 - t) * t * control + t**2 * end
            segments_by_class.setdefault(cls, []).append(curve)
        else:
            segments_by_class.setdefault(cls, []).append(np.array([start, end]))

    figure = Figure(figsize=(size_inches, size_inches), dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    colors = [
        "#1f77b4",
        "#d62728",
        "#2ca02c",
        "#ff7f0e",
        "#9467bd",
        "#8c564b",
        "#e377c2",
        "#17becf",
    ]
    links = max(len(graph.edges), 1)
    alpha = max(0.08, min(0.85, 400 / links))
    width = 1.2 if links < 500 else 0.6
    handles = []
    for cls, segments in sorted(segments_by_class.items()):
        color = colors[cls % len(colors)]
        axes.add_collection(
            LineCollection(segments, colors=color, linewidths=width, alpha=alpha, zorder=1)
        )
        name = graph.class_names[cls] if cls < len(graph.class_names) else f"class {cls}"
        handles.append(
            Line2D([], [], color=color, linewidth=2, label=f"{name} ({len(segments):,})")
        )
    node_size = max(4.0, min(80.0, 6000 / max(graph.routers, 1)))
    if graph.groups:
        node_colors = [graph.groups[r] % 20 for r in range(graph.routers)]
        axes.scatter(
            xy[:, 0],
            xy[:, 1],
            s=node_size,
            c=node_colors,
            cmap="tab20",
            vmin=0,
            vmax=19,
            zorder=2,
            edgecolors="black",
            linewidths=0.3,
        )
    else:
        axes.scatter(
            xy[:, 0],
            xy[:, 1],
            s=node_size,
            color="#444444",
            zorder=2,
            edgecolors="black",
            linewidths=0.3,
        )
    if graph.routers <= 64:
        for router, (x, y) in enumerate(xy):
            axes.annotate(
                str(router), (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7
            )
    if handles:
        axes.legend(
            handles=handles,
            title="link class",
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
            fontsize=8,
            frameon=False,
        )
    axes.set_title(title, fontsize=10)
    if layout != "tree":
        axes.set_aspect("equal")
    axes.autoscale_view()
    axes.margins(0.08)
    axes.set_axis_off()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", bbox_inches="tight")
    return path


def _title(info: TopologyInfo, quick: Mapping[str, Any]) -> str:
    params = info.topology.model_dump(exclude={"kind"})
    params.pop("edges", None)
    shown = ", ".join(f"{k}={format_value(v)}" for k, v in params.items() if v is not None)
    return (
        f"{info.kind} ({shown})\n{quick['routers']:,} routers, {quick['endpoints']:,} endpoints, "
        f"{quick['network_links']:,} links"
    )


def describe_rows(info: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(group, metric, value) rows of a `describe` dict, groups in DESCRIBE_GROUPS order; each
    link class becomes `links_CLASS`; figures of no group come last under "Other"."""
    rows: list[tuple[str, str, Any]] = []
    seen = set()
    for group, keys in DESCRIBE_GROUPS:
        for key in keys:
            if key not in info:
                continue
            seen.add(key)
            if key == "links_by_class":
                rows.extend((group, f"links_{name}", n) for name, n in info[key].items())
            else:
                rows.append((group, key, info[key]))
    rows.extend(("Other", key, value) for key, value in info.items() if key not in seen)
    return rows


# ---------------------------------------------------------------------------------------------
# Constructors


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `override`'s keys set; nested tables are merged, not replaced."""
    result = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = _merge(result[key], value)
        else:
            result[key] = value
    return result


def _is_kind_name(spec: str) -> bool:
    return spec in TOPOLOGY_KINDS or (
        not spec.endswith(".toml") and os.sep not in spec and not os.path.exists(spec)
    )


def topology(
    spec: Mapping[str, Any] | str | os.PathLike[str] | AnyTopology | None = None, **params: Any
) -> TopologyInfo:
    """A topology to describe or draw, from

    - a mapping of `[topology]` keys: ``exanet.topology({"kind": "dragonfly", "a": 4, "h": 2})``,
    - keyword parameters: ``exanet.topology(kind="torus", dims=[8, 8])``,
    - a kind and parameters: ``exanet.topology("slim_fly", q=5)``,
    - a TOML config path: its `[topology]` and `[links]` tables (the rest is ignored);
      keyword parameters override the `[topology]` keys.

    Raises ConfigError naming the key, the value and what would be valid.
    """
    if isinstance(spec, TopologyInfo):
        spec = spec.topology
    if hasattr(spec, "to_core") and not params:
        return TopologyInfo(parse_topology(spec))
    if hasattr(spec, "model_dump"):
        spec = spec.model_dump(exclude_unset=True)
    links: Any = {}
    if spec is None:
        table: Any = {}
    elif isinstance(spec, Mapping):
        table = spec
    elif isinstance(spec, str) and _is_kind_name(spec):
        table = {"kind": spec}
    elif isinstance(spec, (str, os.PathLike)):
        raw = read_config_toml(spec)
        if "topology" not in raw:
            raise ConfigError(
                "topology", "(missing)", f"a [topology] table in {format_value(os.fspath(spec))}"
            )
        table, links = raw["topology"], raw.get("links", {})
    else:
        raise TypeError(
            f"expected a mapping, a kind, a TOML path or None, not {type(spec).__name__}"
        )
    if isinstance(table, Mapping):
        table = _merge(table, params)
    raw_document = {"topology": table, "links": links}
    try:
        document = _StructureDocument.model_validate(raw_document)
    except ValidationError as exc:
        raise to_config_error(exc, _StructureDocument, raw_document) from None
    return TopologyInfo(document.topology, document.links)


def from_edge_list(
    path: str | os.PathLike[str], concentration: int = 1, **params: Any
) -> TopologyInfo:
    """A custom topology from an edge-list file: one link per line, "A B" or "A B CLASS",
    router ids 0..n-1, '#' comments; `concentration` endpoints per router."""
    return topology(
        {"kind": "custom", "edges": os.fspath(path), "concentration": concentration, **params}
    )


def from_networkx(
    graph: networkx.Graph,
    endpoints_per_router: int | Mapping[Any, int] | Sequence[int] = 1,
    class_attr: str | None = None,
) -> TopologyInfo:
    """A custom topology from a networkx graph (parallel edges of a MultiGraph are parallel
    links). Nodes become routers 0..n-1 in sorted order; `endpoints_per_router` is one count for
    every router, a mapping node -> count or a sequence in sorted node order; `class_attr` names
    the edge attribute holding the link class (default: every link is of class "network")."""
    nodes = _sorted_nodes(graph.nodes)
    index = {node: i for i, node in enumerate(nodes)}
    edges = []
    for u, v, data in graph.edges(data=True):
        name = DEFAULT_LINK_CLASS
        if class_attr is not None and data.get(class_attr) is not None:
            name = str(data[class_attr])
        edges.append([index[u], index[v], name])
    params: dict[str, Any] = {"kind": "custom", "edges": edges, "routers": max(len(nodes), 1)}
    if isinstance(endpoints_per_router, Mapping):
        params["endpoints"] = [endpoints_per_router.get(node, 0) for node in nodes]
    elif isinstance(endpoints_per_router, int):
        params["concentration"] = endpoints_per_router
    else:
        params["endpoints"] = list(endpoints_per_router)
    return topology(params)


def _sorted_nodes(nodes: Iterable[Any]) -> list[Any]:
    nodes = list(nodes)
    try:
        return sorted(nodes)
    except TypeError:  # mixed types: sort by their text, then type name
        return sorted(nodes, key=lambda node: (str(node), type(node).__name__))


def json_safe(value: Any) -> Any:
    """A `describe` value with NaN and infinities as None, for strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value
