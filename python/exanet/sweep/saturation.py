"""Saturation search: the highest offered load a config accepts, by bisection on traffic.load.

A probe is saturated by `exanet.analysis.saturation_rule`, the definition the reports use:
accepted_load < (1 - accepted_margin) x offered_load, or mean packet latency above
latency_factor x the zero-load latency (the mean latency of a probe at `zero_load`), or no
measured packet arrived at all. Bisection keeps the highest unsaturated load and the lowest
saturated one and stops once they are `tolerance` apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from exanet import api
from exanet.analysis.curves import (
    SATURATION_LATENCY_FACTOR,
    SATURATION_LOAD_MARGIN,
    saturation_rule,
)
from exanet.config import Config, load
from exanet.errors import ConfigError

PROBE_COLUMNS = ("offered_load", "accepted_load", "latency_ns_mean")


@dataclass(frozen=True)
class Saturation:
    """`load`: the highest probed load that did not saturate; `upper`: the lowest that did
    (None if even `high` did not). `probes`: one row per probe, in the order run."""

    load: float
    upper: float | None
    zero_load_latency_ns: float
    probes: pd.DataFrame


def saturation(
    config: Config | Any,
    *,
    zero_load: float = 0.05,
    high: float = 1.0,
    tolerance: float = 0.01,
    accepted_margin: float = SATURATION_LOAD_MARGIN,
    latency_factor: float = SATURATION_LATENCY_FACTOR,
    on_probe: Callable[[dict[str, Any], int], None] | None = None,
) -> Saturation:
    """Find the saturation load of `config` (synthetic traffic), varying traffic.load between
    `zero_load` and `high` (fractions of the injection bandwidth); see the module docstring
    for the stop rules. `on_probe(row, at_most)`, when given, is called as each probe ends
    with its row of `probes` and the most probes the search can take. A probe that runs for
    more than a couple of seconds shows its progress like `simulate`. Raises ConfigError for
    a config without synthetic traffic."""
    config = load(config)
    if config.traffic.kind != "synthetic":
        raise ConfigError(
            "traffic.kind",
            f'"{config.traffic.kind}"',
            '"synthetic": the saturation search varies traffic.load',
        )
    if not 0 < zero_load < high:
        raise ConfigError("zero_load", str(zero_load), f"a load in (0, high = {high})")
    if not tolerance > 0:
        raise ConfigError("tolerance", str(tolerance), "a load difference above 0")
    probes: list[dict[str, Any]] = []
    at_most = 2 + max(0, math.ceil(math.log2((high - zero_load) / tolerance)))

    def probe(offered: float, zero_latency_ns: float) -> bool:
        summary = api.simulate(load(config, [f"traffic.load={offered}"])).summary
        row = pd.DataFrame([{"load": offered, **{name: summary[name] for name in PROBE_COLUMNS}}])
        rule = saturation_rule(row, zero_latency_ns, accepted_margin, latency_factor)
        probes.append(row.iloc[0].to_dict() | {"saturated": rule.iloc[0]})
        if on_probe is not None:
            on_probe(probes[-1], max(at_most, len(probes)))
        return bool(rule.iloc[0])

    if probe(zero_load, float("inf")):
        return Saturation(0.0, zero_load, probes[0]["latency_ns_mean"], pd.DataFrame(probes))
    zero_latency_ns = probes[0]["latency_ns_mean"]
    lower, upper = zero_load, high
    if not probe(high, zero_latency_ns):
        return Saturation(high, None, zero_latency_ns, pd.DataFrame(probes))
    while upper - lower > tolerance:
        middle = (lower + upper) / 2
        if probe(middle, zero_latency_ns):
            upper = middle
        else:
            lower = middle
    return Saturation(lower, upper, zero_latency_ns, pd.DataFrame(probes))
