"""Relative network cost (Bhatele et al., PADS '19, §6): optical cables, copper cables, routers.

cost = x * (N_optical + c * N_copper + r * N_routers), where x is the price of one optical cable
(10-30 m), c the price ratio of a copper cable (1-3 m) and r that of a router. The paper uses
x = 1, c = 0.16, r = 20. Which links are copper is a packaging assumption per family; see
docs/iso-designs.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

# Families whose class "local" is copper (inside a group, rack or subnet) and "global" optical.
_LOCAL_COPPER_FAMILIES = frozenset(
    {"dragonfly", "dragonfly_rc", "dragonfly_plus", "slim_fly", "fishnet", "fishnet_lite"}
)


class CostModel(BaseModel):
    """Prices relative to one optical cable, and which links are copper.

    `express_mesh_cabinet` gives the routers of one cabinet along each dimension: links whose two
    routers sit in the same cabinet are copper. None makes only nearest-neighbour links
    (distance 1) copper. `copper_classes`, when given, replaces every family rule: links of those
    classes are copper, all others optical.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    optical_cost: float = Field(1.0, gt=0, description="price of one optical cable (x)")
    copper_ratio: float = Field(0.16, ge=0, description="copper cable price / optical (c)")
    router_ratio: float = Field(20.0, ge=0, description="router price / optical cable (r)")
    express_mesh_cabinet: list[Annotated[int, Field(ge=1)]] | None = Field(
        None, min_length=1, description="routers per cabinet along each express-mesh dimension"
    )
    copper_classes: list[str] | None = Field(
        None, description="link classes that are copper; overrides the family rule"
    )


def _checked_classes(links_by_class: Mapping[str, int]) -> dict[str, int]:
    counts = dict(links_by_class)
    for name, count in counts.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"links_by_class[{name!r}] = {count!r}: expected a count >= 0")
    return counts


def _line_copper_pairs(size: int, gap: int, block: int | None) -> int:
    """Linked position pairs i < j of one express-mesh line that are copper.

    Positions i < j are linked iff (j - i - 1) % gap == 0; a linked pair is copper when both
    positions fall in the same block of `block` positions, or, with no block, when j - i == 1.
    """
    copper = 0
    for i in range(size):
        for j in range(i + 1, size):
            if (j - i - 1) % gap != 0:
                continue
            if (j - i == 1) if block is None else (i // block == j // block):
                copper += 1
    return copper


def _express_mesh_copper(topology: Mapping[str, Any], model: CostModel) -> dict[str, int]:
    """Copper links per class ("dim0", "dim1", ...) of an express mesh."""
    try:
        dims: Sequence[int] = topology["dims"]
        gap: int = topology["gap"]
    except KeyError as missing:
        raise ValueError(f"an express_mesh topology needs the key {missing}") from None
    if not isinstance(gap, int) or gap < 1 or not all(isinstance(n, int) and n >= 1 for n in dims):
        raise ValueError(f"express_mesh dims = {dims!r}, gap = {gap!r}: expected positive integers")
    cabinet = model.express_mesh_cabinet
    if cabinet is not None and len(cabinet) != len(dims):
        raise ValueError(
            f"express_mesh_cabinet has {len(cabinet)} sizes but the topology has {len(dims)} "
            f"dimensions {list(dims)}: give one cabinet size per dimension"
        )
    routers = math.prod(dims)
    copper = {}
    for d, size in enumerate(dims):
        lines = routers // size
        block = None if cabinet is None else cabinet[d]
        copper[f"dim{d}"] = lines * _line_copper_pairs(size, gap, block)
    return copper


def link_media(
    topology: Mapping[str, Any],
    links_by_class: Mapping[str, int],
    model: CostModel | None = None,
) -> tuple[int, int]:
    """Returns (optical links, copper links) of a network.

    `topology` is the topology section of a config (at least "kind"; an express mesh also needs
    "dims" and "gap"); `links_by_class` the link count of each class as `describe` reports it.
    """
    model = model or CostModel()
    counts = _checked_classes(links_by_class)
    kind = topology.get("kind")
    if model.copper_classes is not None:
        unknown = sorted(set(model.copper_classes) - set(counts))
        if unknown:
            raise ValueError(
                f"copper_classes names {unknown}, which this network does not have; its link "
                f"classes are {sorted(counts)}"
            )
        copper_by_class = {name: counts[name] for name in model.copper_classes}
    elif kind in _LOCAL_COPPER_FAMILIES:
        copper_by_class = {"local": counts.get("local", 0)}
    elif kind == "fat_tree":  # leaf up-links run to director switches; inside those, copper
        copper_by_class = {name: n for name, n in counts.items() if name != "level1"}
    elif kind == "express_mesh":
        copper_by_class = _express_mesh_copper(topology, model)
        for name, copper in copper_by_class.items():
            if copper > counts.get(name, 0):
                raise ValueError(
                    f"links_by_class[{name!r}] = {counts.get(name, 0)} is fewer than the "
                    f"{copper} copper links this express mesh has in that dimension: the link "
                    "counts do not belong to this topology"
                )
    else:
        copper_by_class = {}
    copper = sum(copper_by_class.values())
    return sum(counts.values()) - copper, copper


def network_cost(
    topology: Mapping[str, Any],
    links_by_class: Mapping[str, int],
    routers: int,
    model: CostModel | None = None,
) -> dict[str, Any]:
    """Cost of a network in units of one optical cable's price times `optical_cost`.

    Returns optical_links, copper_links, routers, cost and the model's parameters.
    """
    model = model or CostModel()
    if not isinstance(routers, int) or isinstance(routers, bool) or routers < 0:
        raise ValueError(f"routers = {routers!r}: expected a count >= 0")
    optical, copper = link_media(topology, links_by_class, model)
    cost = model.optical_cost * (
        optical + model.copper_ratio * copper + model.router_ratio * routers
    )
    return {
        "optical_links": optical,
        "copper_links": copper,
        "routers": routers,
        "cost": cost,
        **model.model_dump(),
    }
