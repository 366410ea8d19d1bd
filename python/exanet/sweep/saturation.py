"""Saturation search: the highest offered load a config accepts, by bisection on traffic.load.

A probe at load x is saturated when the network accepts less than it is offered,
accepted_load < (1 - accepted_margin) x offered_load, or when its mean packet latency exceeds
latency_factor x the zero-load latency (the mean latency of a probe at `zero_load`), or when no
measured packet arrived at all. Bisection keeps the highest unsaturated load and the lowest
saturated one and stops once they are `tolerance` apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from exanet import api
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
    accepted_margin: float = 0.05,
    latency_factor: float = 5.0,
) -> Saturation:
    """Find the saturation load of `config` (synthetic traffic), varying traffic.load between
    `zero_load` and `high` (fractions of the injection bandwidth); see the module docstring
    for the stop rules. Raises ConfigError for a config without synthetic traffic."""
    config = load(config)
    if config.traffic.kind != "synthetic":
        raise ConfigError(
            "traffic.kind",
            f'"{config.traffic.kind}"',
            '"synthetic": the saturation search varies traffic.load',
        )
    if not 0 < zero_load < high:
        raise ConfigError("zero_load", str(zero_load), f"a load in (0, high = {high})")
    probes: list[dict[str, Any]] = []

    def probe(offered: float, zero_latency_ns: float) -> bool:
        summary = api.simulate(load(config, [f"traffic.load={offered}"]), progress=False).summary
        row = {"load": offered, **{name: summary[name] for name in PROBE_COLUMNS}}
        latency_ns = row["latency_ns_mean"]
        if row["accepted_load"] < (1 - accepted_margin) * row["offered_load"]:
            row["saturated"] = "accepted < offered"
        elif not math.isfinite(latency_ns) or latency_ns > latency_factor * zero_latency_ns:
            row["saturated"] = "latency"
        else:
            row["saturated"] = ""
        probes.append(row)
        return bool(row["saturated"])

    if probe(zero_load, math.inf):
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
