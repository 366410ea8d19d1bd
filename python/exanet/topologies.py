"""The topology library: one validated model per `topology.kind`, each with `to_core()`.

Every model is frozen and refuses unknown keys. Parameters whose default depends on other
parameters (a dragonfly's `g`, a Slim Fly's `p`) are filled in after validation but stay *unset*
(`model_fields_set`), so a config that overrides the parameter they derive from derives them
afresh. Mistakes raise `ConfigError` naming the key, the value and what would be valid; what only
the core can check (a prime power `q`, the number of dragonfly groups) is checked by the core with
the same kind of message. Counts are bounded by the core's 32-bit integers, and `router_ports()`
(the ports of a family's widest router, by the key that adds them) by its 16-bit port numbers.
docs/topologies.md describes every family.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from exanet import topology_files
from exanet._types import U16_MAX, U32, U32_MAX, U64, PositiveU32
from exanet._validation import FieldError, did_you_mean, format_value, to_config_error
from exanet.errors import ConfigError

AtLeastTwo = Annotated[StrictInt, Field(ge=2, le=U32_MAX)]
Arrangement = Literal["absolute", "relative", "circulant"]
ARRANGEMENT_DESCRIPTION = (
    "which global port of a group leads to which peer group: absolute (peers in increasing "
    "group number), relative (group i+1, i+2, ...) or circulant (i+1, i-1, i+2, ...)"
)

#: Kinds whose routers have coordinates and which route with dimension order by default.
GRID_KINDS = frozenset({"torus", "mesh"})

#: The class name of the links of an edge list whose lines give no class.
DEFAULT_LINK_CLASS = "network"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    def _derive(self, **values: Any) -> None:
        """Fill parameters the user left out with values derived from the others.

        They stay out of `model_fields_set`, so `model_dump(exclude_unset=True)` omits them and
        a re-validated copy with other parameters derives them again.
        """
        for name, value in values.items():
            if getattr(self, name) is None:
                if value is not None and value > U32_MAX:
                    raise FieldError(
                        name,
                        f"a value of at most {U32_MAX:,}: its default, derived from the other "
                        f"parameters, is {value:,}; give it, or smaller parameters",
                    )
                object.__setattr__(self, name, value)


def _ceil_half(value: int) -> int:
    return (value + 1) // 2


# ---------------------------------------------------------------------------------------------
# Grids


class _GridTopology(_Model):
    kind: str  # narrowed to one Literal tag by each topology
    dims: list[AtLeastTwo] = Field(
        min_length=1, description="routers along each dimension, each >= 2, e.g. [8, 8]"
    )
    concentration: PositiveU32 = Field(1, description="endpoints attached to each router")

    def router_ports(self) -> dict[str, int]:
        return {"dims": 2 * len(self.dims), "concentration": self.concentration}

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind, "dims": list(self.dims), "concentration": self.concentration}


class TorusTopology(_GridTopology):
    """k-ary n-cube: a grid of routers with wrap-around links in every dimension."""

    kind: Literal["torus"]


class MeshTopology(_GridTopology):
    """A grid of routers without wrap-around links."""

    kind: Literal["mesh"]


class MidimewTopology(_Model):
    """Midimew (Beivide et al.): the circulant graph of `nodes` routers in which router i links
    to i +- b and i +- (b - 1) mod nodes, b = ceil(sqrt(nodes / 2)): the least diameter of any
    degree-4 (2-D) network of that size."""

    kind: Literal["midimew"]
    nodes: Annotated[StrictInt, Field(ge=5, le=U32_MAX)] = Field(
        description="routers, >= 5, e.g. 1024"
    )
    concentration: PositiveU32 = Field(1, description="endpoints attached to each router")

    def router_ports(self) -> dict[str, int]:
        return {"nodes": 4, "concentration": self.concentration}

    def to_core(self) -> dict[str, Any]:
        return {"kind": "midimew", "nodes": self.nodes, "concentration": self.concentration}


def express_links_per_router(k: int, gap: int) -> int:
    """Links of the widest router along one dimension of an express mesh: positions 1 + gap,
    1 + 2 gap, ... away are linked, and position 1 reaches the most (1 behind it, the rest
    ahead)."""
    return 1 if k == 2 else (k - 3) // gap + 2


class ExpressMeshTopology(_Model):
    """A mesh whose routers also link to the routers 1 + gap, 1 + 2 gap, ... away along each
    dimension; gap 1 links every pair of a dimension (HyperX)."""

    kind: Literal["express_mesh"]
    dims: list[AtLeastTwo] = Field(
        min_length=1, description="routers along each dimension, each >= 2, e.g. [12, 10, 10]"
    )
    gap: PositiveU32 = Field(
        1, description="express links every gap positions: 1 is HyperX, largest dim - 1 a mesh"
    )
    concentration: PositiveU32 = Field(1, description="endpoints attached to each router")

    @model_validator(mode="after")
    def _check_gap(self) -> ExpressMeshTopology:
        largest = max(self.dims)
        if self.gap > max(largest - 1, 1):
            raise FieldError("gap", f"between 1 (HyperX) and {max(largest - 1, 1)} (a plain mesh)")
        return self

    def router_ports(self) -> dict[str, int]:
        links = sum(express_links_per_router(k, self.gap) for k in self.dims)
        return {"dims": links, "concentration": self.concentration}

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "express_mesh",
            "dims": list(self.dims),
            "gap": self.gap,
            "concentration": self.concentration,
        }


class HyperXTopology(_Model):
    """HyperX (Ahn et al.): every pair of routers along a dimension is linked (an express mesh
    with gap 1)."""

    kind: Literal["hyperx"]
    dims: list[AtLeastTwo] = Field(
        min_length=1, description="routers along each dimension, each >= 2, e.g. [12, 10, 10]"
    )
    concentration: PositiveU32 = Field(1, description="endpoints attached to each router")

    def router_ports(self) -> dict[str, int]:
        return {"dims": sum(k - 1 for k in self.dims), "concentration": self.concentration}

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "express_mesh",
            "dims": list(self.dims),
            "gap": 1,
            "concentration": self.concentration,
        }


class FlattenedButterflyTopology(_Model):
    """Flattened butterfly (Kim et al.): `dimensions` dimensions of k routers, each dimension
    fully connected (a HyperX of equal sizes), k endpoints per router by default."""

    kind: Literal["flattened_butterfly"]
    k: AtLeastTwo = Field(description="routers per dimension, >= 2")
    dimensions: PositiveU32 = Field(description="number of dimensions, >= 1")
    concentration: PositiveU32 | None = Field(
        None, description="endpoints attached to each router; default k"
    )

    @model_validator(mode="after")
    def _defaults(self) -> FlattenedButterflyTopology:
        self._derive(concentration=self.k)
        return self

    def router_ports(self) -> dict[str, int]:
        return {"k": (self.k - 1) * self.dimensions, "concentration": self.concentration}

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "express_mesh",
            "dims": [self.k] * self.dimensions,
            "gap": 1,
            "concentration": self.concentration,
        }


# ---------------------------------------------------------------------------------------------
# Fat-tree

_TAPER_RE = re.compile(r"\s*(\d+)\s*:\s*(\d+)\s*")


def valid_tapers(radix: int) -> list[str]:
    """Tapers endpoints:up-links that split `radix` leaf ports exactly (terms at most 8)."""
    tapers = []
    for down in range(radix - 1, 0, -1):
        up = radix - down
        divisor = math.gcd(down, up)
        if down >= up and down // divisor <= 8 and up // divisor <= 8:
            tapers.append(f'"{down // divisor}:{up // divisor}"')
    return sorted(set(tapers), key=lambda text: tapers.index(text))


class FatTreeTopology(_Model):
    """Fat-tree (folded Clos) of 2 to 4 levels of routers of one radix."""

    kind: Literal["fat_tree"]
    levels: Annotated[StrictInt, Field(ge=2, le=4)] = Field(3, description="router levels, 2 to 4")
    radix: Annotated[StrictInt, Field(ge=4, le=U32_MAX)] = Field(
        description="ports per router, even and >= 4"
    )
    pods: AtLeastTwo | None = Field(
        None, description="subtrees below the top level, 2 to radix; default radix"
    )
    taper: StrictStr = Field(
        "1:1",
        description='leaf ports to endpoints vs up-links as "a:b"; "1:1" is full bisection',
    )
    planes: Annotated[StrictInt, Field(ge=1, le=64)] = Field(
        1,
        description="NIC ports per node (network planes or rails), 1 to 64; see plane_wiring",
    )
    plane_wiring: Literal["separate", "rails"] = Field(
        "separate",
        description='"separate": planes disjoint copies of the tree, port p of every node in '
        'copy p; "rails": one rail-optimized tree, whose scalable units of planes consecutive '
        "leaves hold one rail each",
    )

    @field_validator("taper", mode="before")
    @classmethod
    def _taper_from_pair(cls, value: Any) -> Any:
        is_pair = isinstance(value, (list, tuple)) and len(value) == 2
        if is_pair and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            return f"{value[0]}:{value[1]}"
        return value

    @model_validator(mode="after")
    def _check(self) -> FatTreeTopology:
        if self.radix % 2:
            raise FieldError(
                "radix",
                "an even router radix >= 4 (half the ports of a non-leaf router go down, half up)",
            )
        self._derive(pods=self.radix)
        if self.pods > self.radix:
            raise FieldError(
                "pods",
                f"between 2 and the radix ({self.radix}): every pod needs a link to every top "
                "router of its plane",
            )
        match = _TAPER_RE.fullmatch(self.taper)
        down, up = (int(match[1]), int(match[2])) if match else (0, 0)
        if down == 0 or up == 0 or (self.radix * down) % (down + up):
            raise FieldError(
                "taper",
                f"a ratio endpoints:up-links that splits the {self.radix} leaf ports exactly, "
                f"e.g. {', '.join(valid_tapers(self.radix))}",
            )
        return self

    def router_ports(self) -> dict[str, int]:
        return {"radix": self.radix}

    @property
    def taper_pair(self) -> tuple[int, int]:
        match = _TAPER_RE.fullmatch(self.taper)
        assert match is not None  # checked by validation
        return int(match[1]), int(match[2])

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "fat_tree",
            "levels": self.levels,
            "radix": self.radix,
            "pods": self.pods,
            "taper": list(self.taper_pair),
            "planes": self.planes,
            "plane_wiring": self.plane_wiring,
        }


# ---------------------------------------------------------------------------------------------
# Dragonflies


class DragonflyTopology(_Model):
    """Dragonfly (Kim et al.): g groups of a routers, all-to-all inside a group, h global links
    per router between groups."""

    kind: Literal["dragonfly"]
    a: PositiveU32 = Field(description="routers per group")
    h: PositiveU32 = Field(description="global links per router")
    p: PositiveU32 | None = Field(
        None, description="endpoints per router; default h (balanced: a = 2p = 2h)"
    )
    g: AtLeastTwo | None = Field(
        None, description="groups, 2 to a*h + 1; default a*h + 1 (one global link per pair)"
    )
    arrangement: Arrangement = Field("absolute", description=ARRANGEMENT_DESCRIPTION)

    @model_validator(mode="after")
    def _defaults(self) -> DragonflyTopology:
        self._derive(p=self.h, g=self.a * self.h + 1)
        return self

    def router_ports(self) -> dict[str, int]:
        return {"p": self.p, "a": self.a - 1, "h": self.h}

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "dragonfly",
            "p": self.p,
            "a": self.a,
            "h": self.h,
            "g": self.g,
            "arrangement": self.arrangement,
        }


class DragonflyRcTopology(_Model):
    """Dragonfly with row-column groups (Cray Cascade): rows x cols routers per group, each
    router linked to every router of its row and of its column."""

    kind: Literal["dragonfly_rc"]
    p: PositiveU32 = Field(description="endpoints per router")
    rows: PositiveU32 = Field(description="rows of routers in a group")
    cols: PositiveU32 = Field(description="columns of routers in a group")
    local_links: PositiveU32 = Field(
        1, description="parallel links between two routers of a row or a column"
    )
    h: PositiveU32 = Field(description="global links per router")
    g: AtLeastTwo | None = Field(
        None, description="groups, 2 to rows*cols*h + 1; default rows*cols*h + 1"
    )
    arrangement: Arrangement = Field("absolute", description=ARRANGEMENT_DESCRIPTION)

    @model_validator(mode="after")
    def _defaults(self) -> DragonflyRcTopology:
        self._derive(g=self.rows * self.cols * self.h + 1)
        return self

    def router_ports(self) -> dict[str, int]:
        return {
            "p": self.p,
            "rows": (self.rows - 1) * self.local_links,
            "cols": (self.cols - 1) * self.local_links,
            "h": self.h,
        }

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "dragonfly_rc",
            "p": self.p,
            "rows": self.rows,
            "cols": self.cols,
            "local_links": self.local_links,
            "h": self.h,
            "g": self.g,
            "arrangement": self.arrangement,
        }


class _DragonflyPlusBase(_Model):
    leaves: PositiveU32 = Field(description="leaf routers per group (they hold the endpoints)")
    spines: PositiveU32 = Field(description="spine routers per group (they hold global links)")
    p: PositiveU32 | None = Field(None, description="endpoints per leaf; default spines")
    h: PositiveU32 | None = Field(None, description="global links per spine; default leaves")
    g: AtLeastTwo | None = Field(
        None, description="groups, 2 to spines*h + 1; default spines*h + 1"
    )
    arrangement: Arrangement = Field("absolute", description=ARRANGEMENT_DESCRIPTION)

    @model_validator(mode="after")
    def _defaults(self) -> _DragonflyPlusBase:
        self._derive(p=self.spines, h=self.leaves)
        self._derive(g=self.spines * self.h + 1)
        return self

    def router_ports(self) -> dict[str, int]:
        leaf = {"p": self.p, "spines": self.spines}
        spine = {"leaves": self.leaves, "h": self.h}
        return max(leaf, spine, key=lambda ports: sum(ports.values()))

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "dragonfly_plus",
            "p": self.p,
            "leaves": self.leaves,
            "spines": self.spines,
            "h": self.h,
            "g": self.g,
            "arrangement": self.arrangement,
        }


class DragonflyPlusTopology(_DragonflyPlusBase):
    """Dragonfly+ (Shpiner et al.): groups are two-level fat-trees of leaves and spines; only
    spines have global links."""

    kind: Literal["dragonfly_plus"]


class MegaflyTopology(_DragonflyPlusBase):
    """Megafly (Flajslik et al.): another name of Dragonfly+; the core builds a dragonfly_plus."""

    kind: Literal["megafly"]


# ---------------------------------------------------------------------------------------------
# Diameter-2 graphs, random graphs, Fishnets


def slim_fly_degree(q: int) -> int:
    """Network degree k' = (3q - delta)/2 of the Slim Fly of q = 4w + delta, delta in {-1, 0, 1}.

    For q = 2 mod 4 (no Slim Fly exists; the core says so) delta is taken as 0.
    """
    delta = {1: 1, 0: 0, 3: -1}.get(q % 4, 0)
    return (3 * q - delta) // 2


class SlimFlyTopology(_Model):
    """Slim Fly (Besta & Hoefler): the McKay-Miller-Siran graph of a prime power q, 2q^2
    routers of network degree (3q - delta)/2, diameter 2."""

    kind: Literal["slim_fly"]
    q: PositiveU32 = Field(description="a prime power q = 4w + delta, delta in {-1, 0, 1}")
    p: PositiveU32 | None = Field(
        None, description="endpoints per router; default ceil(k'/2), k' = (3q - delta)/2"
    )

    @model_validator(mode="after")
    def _defaults(self) -> SlimFlyTopology:
        self._derive(p=_ceil_half(slim_fly_degree(self.q)))
        return self

    def router_ports(self) -> dict[str, int]:
        return {"q": slim_fly_degree(self.q), "p": self.p}

    def to_core(self) -> dict[str, Any]:
        return {"kind": "slim_fly", "q": self.q, "p": self.p}


class PolarflyTopology(_Model):
    """PolarFly (Lakhotia et al.): the Erdos-Renyi polarity graph of a prime power q, q^2 + q + 1
    routers of degree q + 1, diameter 2."""

    kind: Literal["polarfly"]
    q: PositiveU32 = Field(description="a prime power >= 2")
    p: PositiveU32 | None = Field(None, description="endpoints per router; default ceil((q + 1)/2)")

    @model_validator(mode="after")
    def _defaults(self) -> PolarflyTopology:
        self._derive(p=_ceil_half(self.q + 1))
        return self

    def router_ports(self) -> dict[str, int]:
        return {"q": self.q + 1, "p": self.p}

    def to_core(self) -> dict[str, Any]:
        return {"kind": "polarfly", "q": self.q, "p": self.p}


class JellyfishTopology(_Model):
    """Jellyfish (Singla et al.): a random degree-regular connected graph, fixed by its seed."""

    kind: Literal["jellyfish"]
    routers: AtLeastTwo = Field(description="number of routers, >= 2")
    degree: PositiveU32 = Field(description="router-to-router links per router")
    p: PositiveU32 = Field(description="endpoints per router")
    seed: U64 = Field(1, description="seed of the random wiring")

    def router_ports(self) -> dict[str, int]:
        return {"degree": self.degree, "p": self.p}

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "jellyfish",
            "routers": self.routers,
            "degree": self.degree,
            "p": self.p,
            "seed": self.seed,
        }


# ---------------------------------------------------------------------------------------------
# User graphs


@dataclass(frozen=True)
class EdgeGraph:
    """A router graph read from an edge list: links as (a, b, class index)."""

    routers: int
    links: tuple[tuple[int, int, int], ...]
    class_names: tuple[str, ...]
    #: Endpoints per router, where the file says them (BookSim nodes, InfiniBand hosts).
    endpoints: tuple[int, ...] | None = None

    def degrees(self) -> list[int]:
        degree = [0] * self.routers
        for a, b, _ in self.links:
            degree[a] += 1
            degree[b] += 1
        return degree

    def to_core(self) -> dict[str, Any]:
        return {
            "routers": self.routers,
            "links": [list(link) for link in self.links],
            "class_names": list(self.class_names),
        }


#: Link classes the core tells apart (it keeps a link's class in a byte).
MAX_LINK_CLASSES = 255
EDGE_LIST_FORMAT = (
    'one link per line, "A B" or "A B CLASS": two different router ids 0..n-1 (integers '
    f"below {U32_MAX:,}) and an optional link class name; '#' starts a comment"
)


class _EdgeCollector:
    def __init__(self) -> None:
        self.links: list[tuple[int, int, int]] = []
        self.classes: dict[str, int] = {}

    def add(self, a: int, b: int, name: str) -> None:
        index = self.classes.setdefault(name, len(self.classes))
        self.links.append((a, b, index))

    def graph(
        self,
        routers: int | None,
        key: str,
        source: str,
        endpoints: Sequence[int] | None = None,
    ) -> EdgeGraph:
        if not self.links and endpoints is None:
            if routers is None:
                raise ConfigError(key, source, f"at least one link: {EDGE_LIST_FORMAT}")
            return EdgeGraph(routers, (), (DEFAULT_LINK_CLASS,))
        if len(self.classes) > MAX_LINK_CLASSES:
            raise ConfigError(
                key,
                source,
                f"at most {MAX_LINK_CLASSES} link class names, not {len(self.classes):,}",
            )
        needed = max(max(a, b) for a, b, _ in self.links) + 1
        if routers is not None and routers < needed:
            raise ConfigError(
                key.rsplit(".", 1)[0] + ".routers",
                str(routers),
                f"at least {needed}: the edge list names router {needed - 1}",
            )
        names = tuple(sorted(self.classes, key=self.classes.__getitem__)) or (DEFAULT_LINK_CLASS,)
        if endpoints is not None:
            needed = max(needed, len(endpoints))
            if routers is not None and routers != needed:
                raise ConfigError(
                    key.rsplit(".", 1)[0] + ".routers",
                    str(routers),
                    f"{needed}, the routers the file names (or leave routers out)",
                )
            return EdgeGraph(needed, tuple(self.links), names, tuple(endpoints))
        return EdgeGraph(routers or needed, tuple(self.links), names)


def _router_id(token: Any) -> int | None:
    if isinstance(token, str) and token.isdigit():
        token = int(token)
    if isinstance(token, bool) or not isinstance(token, int):
        return None
    return token if 0 <= token < U32_MAX else None


def _check_linked(graph: EdgeGraph, routers_given: bool) -> None:
    """Refuse more routers than the links can reach when every router holds endpoints (or
    must be linked, in a base graph): before anything is allocated per router."""
    links = len(graph.links)
    if graph.routers <= links + 1:
        return
    reach = f"{links:,} links reach at most {links + 1:,} routers"
    if routers_given:
        raise FieldError("routers", f"at most {links + 1:,}: {reach}, and each must be linked")
    raise FieldError(
        "edges", f"router ids up to {links:,}: the largest is {graph.routers - 1:,}, and {reach}"
    )


def read_edge_list(
    path: str | os.PathLike[str],
    *,
    key: str = "topology.edges",
    routers: int | None = None,
    file_format: str = "auto",
) -> EdgeGraph:
    """Read a topology file: an edge list (`EDGE_LIST_FORMAT`), or a BookSim anynet listing,
    ibnetdiscover output, an SST JSON config graph, GraphML or GML (`exanet.topology_files`),
    told apart by content unless `file_format` names one; a problem is a ConfigError naming
    `key`, the file and the line."""
    source = format_value(os.fspath(path))
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError as exc:
        raise ConfigError(
            key, source, f"a readable edge-list file ({exc.strerror}): {EDGE_LIST_FORMAT}"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(key, source, f"a UTF-8 text file: {EDGE_LIST_FORMAT}") from None
    text = "\n".join(lines)
    found = topology_files.detect(text) if file_format == "auto" else file_format
    if found != "edges":
        try:
            foreign = topology_files.READERS[found](text)
        except topology_files.TopologyFileError as error:
            raise ConfigError(key, f"{source} ({found}) {error.where}", error.expected) from None
        collector = _EdgeCollector()
        for a, b, name in foreign.links:
            collector.add(a, b, name)
        return collector.graph(routers, key, source, foreign.endpoints)
    collector = _EdgeCollector()
    for number, line in enumerate(lines, start=1):
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        a = _router_id(tokens[0])
        b = _router_id(tokens[1]) if len(tokens) > 1 else None
        if len(tokens) not in (2, 3) or a is None or b is None or a == b:
            problem = "a self-loop" if a is not None and a == b and len(tokens) in (2, 3) else ""
            raise ConfigError(
                key,
                f"{source} line {number}: {format_value(line.strip())}",
                f"{problem + ' is not allowed; ' if problem else ''}{EDGE_LIST_FORMAT}",
            )
        collector.add(a, b, tokens[2] if len(tokens) == 3 else DEFAULT_LINK_CLASS)
    return collector.graph(routers, key, source)


def edges_from_list(
    links: Sequence[Any], *, key: str = "topology.edges", routers: int | None = None
) -> EdgeGraph:
    """An EdgeGraph from inline links [[a, b], [a, b, "class"], ...]."""
    collector = _EdgeCollector()
    for index, link in enumerate(links):
        ok = isinstance(link, (list, tuple)) and len(link) in (2, 3)
        a = _router_id(link[0]) if ok else None
        b = _router_id(link[1]) if ok else None
        name = str(link[2]) if ok and len(link) == 3 else DEFAULT_LINK_CLASS
        if a is None or b is None or a == b or (ok and len(link) == 3 and not name.strip()):
            raise ConfigError(
                f"{key}[{index}]",
                format_value(link),
                'a link [A, B] or [A, B, "CLASS"] between two different router ids '
                "0..n-1 (integers)",
            )
        collector.add(a, b, name)
    return collector.graph(routers, key, "[]")


EdgesSource = StrictStr | list[list[StrictInt | StrictStr]]


def _load_edges(edges: Any, key: str, routers: int | None, file_format: str = "auto") -> EdgeGraph:
    if isinstance(edges, str):
        return read_edge_list(edges, key=key, routers=routers, file_format=file_format)
    return edges_from_list(edges, key=key, routers=routers)


class CustomTopology(_Model):
    """A router graph of the user's: an edge-list file or an inline list of links."""

    kind: Literal["custom"]
    edges: EdgesSource = Field(
        description='an edge-list file (one link per line, "A B" or "A B CLASS", \'#\' comments),'
        " a BookSim anynet file, ibnetdiscover output, an SST JSON config graph, GraphML or GML"
        " (docs/topologies.md),"
        ' or an inline list of links [[A, B], [A, B, "CLASS"], ...]'
    )
    format: Literal["auto", "edges", "anynet", "ibnetdiscover", "sst", "graphml", "gml"] = Field(
        "auto", description="the edges file's format; auto: told from its content"
    )
    routers: PositiveU32 | None = Field(
        None, description="number of routers; default the largest router id + 1"
    )
    concentration: U32 | None = Field(
        None, description="endpoints attached to each router; default 1"
    )
    endpoints: list[U32] | None = Field(
        None,
        description="endpoints of each router, one entry per router (instead of concentration)",
    )

    _graph: EdgeGraph = PrivateAttr()

    @model_validator(mode="after")
    def _read(self) -> CustomTopology:
        if self.concentration is not None and self.endpoints is not None:
            raise FieldError(
                "endpoints", "either concentration or endpoints (one count per router), not both"
            )
        self._graph = _load_edges(self.edges, "topology.edges", self.routers, self.format)
        if self._per_router() is None:
            _check_linked(self._graph, self.routers is not None)
        routers = self._graph.routers
        if self.endpoints is not None and len(self.endpoints) != routers:
            raise FieldError(
                "endpoints",
                f"one endpoint count per router: {routers} entries, not {len(self.endpoints)}",
            )
        self._derive(concentration=None if self._per_router() is not None else 1)
        return self

    def _per_router(self) -> Sequence[int] | None:
        """Endpoints per router: the user's list, else the file's (unless a concentration)."""
        if self.endpoints is not None or self.concentration is not None:
            return self.endpoints
        return self._graph.endpoints

    @property
    def graph(self) -> EdgeGraph:
        return self._graph

    def router_ports(self) -> dict[str, int]:
        endpoint_key = "concentration" if self._per_router() is None else "endpoints"
        counts = self.endpoint_counts()
        degrees = self._graph.degrees()
        widest = max(range(self._graph.routers), key=lambda r: degrees[r] + counts[r])
        return {"edges": degrees[widest], endpoint_key: counts[widest]}

    def endpoint_counts(self) -> list[int]:
        per_router = self._per_router()
        if per_router is not None:
            return list(per_router)
        return [self.concentration or 0] * self._graph.routers

    def to_core(self) -> dict[str, Any]:
        return {
            "kind": "custom",
            "graph": self._graph.to_core(),
            "endpoints": self.endpoint_counts(),
        }


class PetersenBase(_Model):
    """The Petersen graph: 10 routers of degree 3."""

    kind: Literal["petersen"]
    degree: ClassVar[int] = 3

    def to_core(self) -> dict[str, Any]:
        return {"kind": "petersen"}


class HoffmanSingletonBase(_Model):
    """The Hoffman-Singleton graph: 50 routers of degree 7."""

    kind: Literal["hoffman_singleton"]
    degree: ClassVar[int] = 7

    def to_core(self) -> dict[str, Any]:
        return {"kind": "hoffman_singleton"}


class SlimFlyBase(_Model):
    """A Slim Fly graph of prime power q."""

    kind: Literal["slim_fly"]
    q: PositiveU32 = Field(description="a prime power q = 4w + delta, delta in {-1, 0, 1}")

    @property
    def degree(self) -> int:
        return slim_fly_degree(self.q)

    def to_core(self) -> dict[str, Any]:
        return {"kind": "slim_fly", "q": self.q}


class CustomBase(_Model):
    """A diameter-2 regular graph of the user's, as an edge list."""

    kind: Literal["custom"]
    edges: EdgesSource = Field(
        description='an edge-list file (one link per line, "A B") or an inline list of links'
    )
    routers: PositiveU32 | None = Field(
        None, description="number of routers; default the largest router id + 1"
    )

    _graph: EdgeGraph = PrivateAttr()

    @model_validator(mode="after")
    def _read(self) -> CustomBase:
        self._graph = _load_edges(self.edges, "topology.base.edges", self.routers)
        _check_linked(self._graph, self.routers is not None)
        return self

    @property
    def graph(self) -> EdgeGraph:
        return self._graph

    @property
    def degree(self) -> int:
        return max(self._graph.degrees(), default=0)

    def to_core(self) -> dict[str, Any]:
        return {"kind": "custom", "graph": self._graph.to_core()}


BaseGraph = Annotated[
    PetersenBase | HoffmanSingletonBase | SlimFlyBase | CustomBase,
    Field(discriminator="kind"),
]
_NAMED_BASES = ("petersen", "hoffman_singleton")
BASE_DESCRIPTION = (
    'the diameter-2 regular base graph: "petersen", "hoffman_singleton", '
    '{kind = "slim_fly", q = Q} or {kind = "custom", edges = "FILE"}'
)


class _FishnetBase(_Model):
    base: BaseGraph = Field(description=BASE_DESCRIPTION)
    p: PositiveU32 | None = Field(
        None, description="endpoints per router; default ceil(k'/2), k' the base graph's degree"
    )

    @field_validator("base", mode="before")
    @classmethod
    def _named_base(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value not in _NAMED_BASES:
                raise ValueError(did_you_mean(value, _NAMED_BASES, quote='"') + BASE_DESCRIPTION)
            return {"kind": value}
        return value

    @model_validator(mode="after")
    def _defaults(self) -> _FishnetBase:
        self._derive(p=max(_ceil_half(self.base.degree), 1))
        return self

    def router_ports(self) -> dict[str, int]:
        degree = self.base.degree
        # Fishnet joins each pair of subnets by k' links, Fishnet-lite by one
        return {"base": 2 * degree if self.kind == "fishnet" else degree + 1, "p": self.p}

    def to_core(self) -> dict[str, Any]:
        return {"kind": self.kind, "base": self.base.to_core(), "p": self.p}


class FishnetTopology(_FishnetBase):
    """Fishnet (Li et al.): n + 1 copies of a diameter-2 base graph of n routers and degree k',
    every pair of copies joined by k' links; router degree 2k', diameter 4."""

    kind: Literal["fishnet"]


class FishnetLiteTopology(_FishnetBase):
    """Fishnet-lite: like Fishnet, but one link joins each pair of copies; router degree k' + 1,
    diameter 5."""

    kind: Literal["fishnet_lite"]


# ---------------------------------------------------------------------------------------------
# The union

TOPOLOGY_MODELS: tuple[type[_Model], ...] = (
    TorusTopology,
    MeshTopology,
    MidimewTopology,
    FatTreeTopology,
    DragonflyTopology,
    DragonflyRcTopology,
    DragonflyPlusTopology,
    MegaflyTopology,
    SlimFlyTopology,
    PolarflyTopology,
    JellyfishTopology,
    FishnetTopology,
    FishnetLiteTopology,
    ExpressMeshTopology,
    HyperXTopology,
    FlattenedButterflyTopology,
    CustomTopology,
)
TOPOLOGY_KINDS: tuple[str, ...] = tuple(
    model.model_fields["kind"].annotation.__args__[0] for model in TOPOLOGY_MODELS
)

AnyTopology = (
    TorusTopology
    | MeshTopology
    | MidimewTopology
    | FatTreeTopology
    | DragonflyTopology
    | DragonflyRcTopology
    | DragonflyPlusTopology
    | MegaflyTopology
    | SlimFlyTopology
    | PolarflyTopology
    | JellyfishTopology
    | FishnetTopology
    | FishnetLiteTopology
    | ExpressMeshTopology
    | HyperXTopology
    | FlattenedButterflyTopology
    | CustomTopology
)


def check_router_ports(topology: AnyTopology) -> AnyTopology:
    """Refuse a router with more ports than the core can number, blaming the parameter that
    gives it the most (one the user gave, of equals: a derived one follows it)."""
    ports = topology.router_ports()
    total = sum(ports.values())
    if total > U16_MAX:
        terms = " + ".join(f"{count:,} ({key})" for key, count in ports.items())
        raise FieldError(
            max(ports, key=lambda key: (ports[key], key in topology.model_fields_set)),
            f"at most {U16_MAX:,} ports per router (the core numbers them in 16 bits); "
            f"these parameters give {total:,} = {terms}",
        )
    return topology


Topology = Annotated[AnyTopology, Field(discriminator="kind"), AfterValidator(check_router_ports)]
TOPOLOGY_DESCRIPTION = "the network topology; kind = " + ", ".join(TOPOLOGY_KINDS)

#: Link classes of each core family (custom graphs name their own).
LINK_CLASSES: dict[str, str] = {
    "torus": "dim0, dim1, ... (one per dimension)",
    "mesh": "dim0, dim1, ... (one per dimension)",
    "express_mesh": "dim0, dim1, ... (one per dimension)",
    "midimew": "dim0 (jumps of b), dim1 (jumps of b - 1)",
    "fat_tree": "level1 (leaf to level 2), level2, level3 (one per level above the leaves)",
    "dragonfly": "local, global",
    "dragonfly_rc": "local, global",
    "dragonfly_plus": "local, global",
    "slim_fly": "local (inside a rack), global",
    "polarfly": "network",
    "jellyfish": "network",
    "fishnet": "local (inside a subnet), global",
    "fishnet_lite": "local (inside a subnet), global",
    "custom": "the class names of the edge list (network when a line gives none)",
}


class _TopologyDocument(_Model):
    topology: Topology = Field(description=TOPOLOGY_DESCRIPTION)


def parse_topology(data: Mapping[str, Any] | AnyTopology) -> AnyTopology:
    """Validate one `[topology]` table (user-facing keys); raises ConfigError."""
    if isinstance(data, BaseModel):
        return data  # already validated
    raw = {"topology": data}
    try:
        return _TopologyDocument.model_validate(raw).topology
    except ValidationError as exc:
        raise to_config_error(exc, _TopologyDocument, raw) from None


def topology_label(topology: AnyTopology) -> str:
    """A short human name: "8x8 torus", "dragonfly a=4 h=2 p=2 g=9", "custom (12 routers)"."""
    if isinstance(topology, _GridTopology):
        return f"{'x'.join(map(str, topology.dims))} {topology.kind}"
    if isinstance(topology, CustomTopology):
        return f"custom ({topology.graph.routers} routers, {len(topology.graph.links)} links)"
    params = topology.model_dump(exclude={"kind", "arrangement"}, exclude_none=True)
    text = " ".join(f"{key}={format_value(value)}" for key, value in params.items())
    return f"{topology.kind} {text}"


def core_kind(topology: AnyTopology) -> str:
    """The core family a topology builds (hyperx and flattened_butterfly are express meshes,
    megafly is dragonfly_plus)."""
    return topology.to_core()["kind"]


def default_routing_kind(topology_kind: str | None) -> str:
    """Dimension order on a torus or mesh, table-driven minimal routing on every other kind."""
    return "dor" if topology_kind in GRID_KINDS or topology_kind is None else "minimal"


def resolve_paths(topology: Any, base_dir: str | os.PathLike[str]) -> Any:
    """A copy of a raw `[topology]` table with relative edge-list paths taken relative to
    `base_dir` (the directory of the TOML file they were written in)."""
    if not isinstance(topology, Mapping):
        return topology
    result = dict(topology)
    edges = result.get("edges")
    if isinstance(edges, str) and not os.path.isabs(edges):
        result["edges"] = os.path.join(base_dir, edges)
    base = result.get("base")
    if isinstance(base, Mapping):
        result["base"] = resolve_paths(base, base_dir)
    return result
