"""Router radix against system size, family by family (Li et al. 2019, Fig. 2): which radix a
family needs to reach N endpoints.

Each series steps one family through its sizes in the construction that gets the most endpoints
out of a radix: fat-trees of 2, 3 and 4 levels at full bisection (radix 4, 6, 8, ...), the
balanced dragonfly (a = 2p = 2h, g = ah + 1), Slim Fly and PolarFly over the prime powers q with
the default p = ceil(k'/2), and Fishnet and Fishnet-lite over Slim Fly bases. Every point is
built by the simulation core's structure builder (`exanet.topology(...)`), which reports the
radix (the most ports a router uses) and the endpoint count, so the figures follow the networks
exanet simulates rather than a formula.

    >>> table = radix_scaling(["fat_tree_3"], max_endpoints=1000)
    >>> table[["radix", "endpoints"]].values.tolist()[-1]
    [16, 1024]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from exanet.errors import ConfigError
from exanet.structure import _QUICK_OPTIONS, topology
from exanet.topologies import topology_label


def _prime_powers(start: int) -> Iterator[int]:
    """The prime powers >= `start`, in order."""
    for q in itertools.count(start):
        factor = next(f for f in range(2, q + 1) if q % f == 0)
        power = factor
        while power < q:
            power *= factor
        if power == q:
            yield q


def _slim_fly_qs() -> Iterator[int]:
    """Prime powers q for which a Slim Fly exists (q mod 4 != 2)."""
    return (q for q in _prime_powers(3) if q % 4 != 2)


def _fat_trees(levels: int) -> Iterator[dict[str, Any]]:
    return ({"kind": "fat_tree", "levels": levels, "radix": k} for k in itertools.count(4, 2))


def _fishnets(kind: str) -> Iterator[dict[str, Any]]:
    return ({"kind": kind, "base": {"kind": "slim_fly", "q": q}} for q in _slim_fly_qs())


#: Series name -> the topologies of the series, smallest first (radix and endpoints grow).
SERIES: dict[str, Callable[[], Iterator[dict[str, Any]]]] = {
    "fat_tree_2": lambda: _fat_trees(2),
    "fat_tree_3": lambda: _fat_trees(3),
    "fat_tree_4": lambda: _fat_trees(4),
    "dragonfly": lambda: (
        {"kind": "dragonfly", "a": 2 * h, "h": h, "p": h} for h in itertools.count(1)
    ),
    "slim_fly": lambda: ({"kind": "slim_fly", "q": q} for q in _slim_fly_qs()),
    "polarfly": lambda: ({"kind": "polarfly", "q": q} for q in _prime_powers(2)),
    "fishnet": lambda: _fishnets("fishnet"),
    "fishnet_lite": lambda: _fishnets("fishnet_lite"),
}

#: The families of Li et al.'s Fig. 2 that exanet builds.
DEFAULT_SERIES = ("fat_tree_3", "fat_tree_4", "dragonfly", "slim_fly", "fishnet", "fishnet_lite")


def radix_scaling(
    series: Sequence[str] = DEFAULT_SERIES, max_endpoints: int = 10**6, max_radix: int = 128
) -> pd.DataFrame:
    """Radix and size of every network of each series, from the core's structure builder.

    A series stops at its first network with at least `max_endpoints` endpoints (kept) or
    beyond `max_radix` ports per router (dropped). Returns one row per network: series,
    topology (a short label), radix (the most ports one router uses, endpoint ports included),
    routers, endpoints.
    """
    unknown = [name for name in series if name not in SERIES]
    if unknown or not series:
        raise ConfigError("radix.series", repr(list(series)), f"names among {list(SERIES)}")
    for key, value in (("radix.max_endpoints", max_endpoints), ("radix.max_radix", max_radix)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 2:
            raise ConfigError(key, repr(value), "an integer >= 2")
    rows = []
    for name in series:
        for spec in SERIES[name]():
            info = topology(**spec)
            built = info._describe_core(_QUICK_OPTIONS)
            if built["radix"] > max_radix:
                break
            rows.append(
                {
                    "series": name,
                    "topology": topology_label(info.topology),
                    "radix": built["radix"],
                    "routers": built["routers"],
                    "endpoints": built["endpoints"],
                }
            )
            if built["endpoints"] >= max_endpoints:
                break
    return pd.DataFrame(rows, columns=["series", "topology", "radix", "routers", "endpoints"])


def radix_needed(scaling: pd.DataFrame, endpoints: Sequence[int]) -> pd.DataFrame:
    """The smallest radix of each series that reaches each of `endpoints` (rows of
    `radix_scaling`); NaN where no network of the series within its limits does. Returns
    columns series, endpoints, radix_needed, topology (the network that reaches it)."""
    rows = []
    for name, networks in scaling.groupby("series", sort=False):
        for n in endpoints:
            reaching = networks[networks["endpoints"] >= n]
            best = reaching.loc[reaching["radix"].idxmin()] if len(reaching) else None
            rows.append(
                {
                    "series": name,
                    "endpoints": n,
                    "radix_needed": np.nan if best is None else best["radix"],
                    "topology": None if best is None else best["topology"],
                }
            )
    return pd.DataFrame(rows, columns=["series", "endpoints", "radix_needed", "topology"])
