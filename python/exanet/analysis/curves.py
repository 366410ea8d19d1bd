"""Load-latency curves and comparisons across runs: saturation, throughput, slowdowns, scaling
efficiency (seed 001 §5.3), stress-test slowdown (seed 001 §5.4) and performance per cost
(seed 004 §6).

A runs DataFrame has one row per simulation, with the summary keys as columns (offered_load,
accepted_load, latency_ns_mean, sim_time_ns, ...) plus a column naming the design (default
"design").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from exanet.analysis._checks import positive, require_columns, require_nonempty
from exanet.cost import CostModel, network_cost
from exanet.errors import ConfigError

CURVE_COLUMNS = ("offered_load", "accepted_load", "latency_ns_mean")


def _curves(runs: pd.DataFrame, design: str) -> pd.DataFrame:
    require_columns(runs, [design, *CURVE_COLUMNS], "analysis.runs")
    require_nonempty(runs, "analysis.runs")
    return runs.sort_values([design, "offered_load"], kind="stable")


SATURATION_LOAD_MARGIN = 0.05
SATURATION_LATENCY_FACTOR = 3.0


def saturation_rule(
    runs: pd.DataFrame,
    zero_load_latency_ns: float,
    load_margin: float = SATURATION_LOAD_MARGIN,
    latency_factor: float = SATURATION_LATENCY_FACTOR,
) -> pd.Series:
    """Which rule marks each run saturated: "throughput", "latency", "both" or "" (stable).

    The one definition of saturation in exanet (docs/analysis.md), used by `saturation_point`,
    the report's marker and `exanet saturation`. A run is saturated when

    - throughput: accepted_load < (1 - load_margin) * offered_load, the network no longer
      delivers what is offered; or
    - latency: latency_ns_mean > latency_factor * `zero_load_latency_ns`, queues have built
      up; a run in which no measured packet arrived (latency NaN) counts as saturated too.
    """
    if not 0 <= load_margin < 1:
        raise ConfigError("analysis.load_margin", repr(load_margin), "a fraction in [0, 1)")
    factor = positive(latency_factor, "analysis.latency_factor")
    require_columns(runs, CURVE_COLUMNS, "analysis.runs")
    by_load = runs["accepted_load"] < (1 - load_margin) * runs["offered_load"]
    latency = runs["latency_ns_mean"].astype(float)
    by_latency = ~np.isfinite(latency) | (latency > factor * zero_load_latency_ns)
    rule = np.select(
        [by_load & by_latency, by_load, by_latency], ["both", "throughput", "latency"], ""
    )
    return pd.Series(rule, index=runs.index, name="saturated")


def saturation_point(
    runs: pd.DataFrame,
    design: str = "design",
    load_margin: float = SATURATION_LOAD_MARGIN,
    latency_factor: float = SATURATION_LATENCY_FACTOR,
) -> pd.DataFrame:
    """The offered load at which each design's curve saturates, by `saturation_rule`.

    Zero-load latency is the mean latency at the design's lowest offered load (the sweep's
    closest point to zero load).

    Returns one row per design: zero_load_latency_ns, saturation_offered_load (the lowest
    saturated offered load, NaN if none), last_stable_offered_load (the highest offered load
    below it that is not saturated, NaN if none) and rule ("throughput", "latency", "both" or
    None).
    """
    rows = []
    for name, curve in _curves(runs, design).groupby(design, sort=True, observed=True):
        zero_load_ns = float(curve["latency_ns_mean"].iloc[0])
        rules = saturation_rule(curve, zero_load_ns, load_margin, latency_factor).to_numpy()
        saturated = rules != ""
        row = {
            design: name,
            "zero_load_latency_ns": zero_load_ns,
            "saturation_offered_load": np.nan,
            "last_stable_offered_load": np.nan,
            "rule": None,
        }
        if saturated.any():
            first = int(np.argmax(saturated))
            row["saturation_offered_load"] = float(curve["offered_load"].iloc[first])
            row["rule"] = str(rules[first])
            if first > 0:
                row["last_stable_offered_load"] = float(curve["offered_load"].iloc[first - 1])
        else:
            row["last_stable_offered_load"] = float(curve["offered_load"].iloc[-1])
        rows.append(row)
    return pd.DataFrame(rows)


def throughput_table(runs: pd.DataFrame, design: str = "design", **rules: Any) -> pd.DataFrame:
    """Per design: the highest accepted load of the sweep (its saturation throughput), the
    offered load that reached it, and the columns of `saturation_point` (`rules` are passed on:
    load_margin, latency_factor)."""
    curves = _curves(runs, design)
    best = curves.loc[curves.groupby(design, observed=True)["accepted_load"].idxmax()]
    table = best[[design, "accepted_load", "offered_load"]].rename(
        columns={"accepted_load": "max_accepted_load", "offered_load": "at_offered_load"}
    )
    return table.merge(saturation_point(runs, design, **rules), on=design).reset_index(drop=True)


def slowdown(
    runs: pd.DataFrame,
    baseline: str,
    metric: str = "latency_ns_mean",
    on: Sequence[str] = ("offered_load",),
    design: str = "design",
) -> pd.DataFrame:
    """`metric` of every run divided by the baseline design's at the same `on` values.

    slowdown = metric(design) / metric(baseline); > 1 means slower for time-like metrics
    (latency, execution time). Runs with no baseline counterpart get NaN.
    Returns `runs` with a `slowdown` column.
    """
    keys = list(on)
    require_columns(runs, [design, metric, *keys], "analysis.runs")
    base = runs[runs[design] == baseline]
    if base.empty:
        raise ConfigError(
            "analysis.baseline", repr(baseline), f"one of {sorted(runs[design].unique())}"
        )
    if base.duplicated(keys).any():
        raise ConfigError("analysis.on", repr(keys), "columns that identify one baseline run")
    reference = base[[*keys, metric]].rename(columns={metric: "_baseline"})
    merged = runs.merge(reference, on=keys, how="left")
    merged["slowdown"] = merged[metric] / merged["_baseline"]
    return merged.drop(columns="_baseline")


def scaling_efficiency(
    small: pd.DataFrame,
    large: pd.DataFrame,
    on: Sequence[str],
    time: str = "sim_time_ns",
    by: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Scaling efficiency between two system sizes, seed 001 §5.3.

    Runs of `small` and `large` with equal `on` columns (the same configuration except the node
    count) are paired, and

        efficiency = execution time (small system) / execution time (large system)

    < 1 means the same workload takes longer on the larger system; closer to 1 is better. With
    `by` (the paper uses workload, topology, routing) the pairs are averaged per group into
    columns efficiency_mean, efficiency_std (population) and pairs; otherwise one row per pair
    with time_small, time_large and efficiency.
    """
    keys = list(on)
    for key, frame in (("analysis.small", small), ("analysis.large", large)):
        require_columns(frame, [*keys, time], key)
        if frame.duplicated(keys).any():
            raise ConfigError(key, "repeated configurations", f"one run per value of {keys}")
    pairs = small[[*keys, time]].merge(large[[*keys, time]], on=keys, suffixes=("_small", "_large"))
    if pairs.empty:
        raise ConfigError("analysis.on", repr(keys), "columns on which some runs pair up")
    pairs = pairs.rename(columns={f"{time}_small": "time_small", f"{time}_large": "time_large"})
    pairs["efficiency"] = pairs["time_small"] / pairs["time_large"]
    if by is None:
        return pairs
    groups = list(by)
    if not set(groups) <= set(keys):
        raise ConfigError("analysis.by", repr(groups), f"a subset of on = {keys}")
    stats = pairs.groupby(groups, observed=True)["efficiency"]
    return pd.DataFrame(
        {
            "efficiency_mean": stats.mean(),
            "efficiency_std": stats.std(ddof=0),
            "pairs": stats.size(),
        }
    ).reset_index()


def stress_slowdown(
    runs: pd.DataFrame,
    by: Sequence[str] = ("design",),
    size: str = "message_size_bytes",
    time: str = "sim_time_ns",
    baseline_size_bytes: float | None = None,
) -> pd.DataFrame:
    """Stress-test slowdown versus message size, seed 001 §5.4.

    Within each `by` group (a configuration: topology, routing, workload), the execution time at
    `baseline_size_bytes` (default: the group's smallest size; the paper uses 512 B) is 1, and

        slowdown(size) = time(size) / time(baseline size)

    Returns by, size, time and slowdown, sorted by group and size.
    """
    groups = list(by)
    require_columns(runs, [*groups, size, time], "analysis.runs")
    require_nonempty(runs, "analysis.runs")
    table = runs[[*groups, size, time]].sort_values([*groups, size], kind="stable")
    if table.duplicated([*groups, size]).any():
        raise ConfigError("analysis.by", repr(groups), "columns that leave one run per size")
    if baseline_size_bytes is None:  # sorted by size, so each group's first row is its smallest
        base_rows = table.groupby(groups, observed=True).head(1)
    else:
        base_rows = table[table[size] == baseline_size_bytes]
    reference = base_rows[[*groups, time]].rename(columns={time: "_baseline"})
    table = table.merge(reference, on=groups, how="left")
    if table["_baseline"].isna().any():
        raise ConfigError(
            "analysis.baseline_size_bytes", repr(baseline_size_bytes), "a size every group ran"
        )
    table["slowdown"] = table[time] / table["_baseline"]
    table = table.drop(columns="_baseline")
    return table.reset_index(drop=True)


def network_costs(
    networks: Mapping[str, Mapping[str, Any]], model: CostModel | None = None
) -> dict[str, float]:
    """Cost of each design with `exanet.cost.network_cost` (seed 004 §6: N_o + c N_c + r N_r,
    in units of one optical cable). `networks[design]` has keys topology, links_by_class and
    routers, as network_cost takes them."""
    costs = {}
    for name, network in networks.items():
        missing = {"topology", "links_by_class", "routers"} - set(network)
        if missing:
            raise ConfigError(
                f"analysis.networks.{name}", f"keys {sorted(network)}", f"also {sorted(missing)}"
            )
        costs[name] = network_cost(
            network["topology"], network["links_by_class"], network["routers"], model
        )["cost"]
    return costs


def performance_per_cost(
    runs: pd.DataFrame,
    costs: Mapping[str, float],
    metric: str = "communication_rate_gbytes_per_s",
    design: str = "design",
) -> pd.DataFrame:
    """Performance per dollar, seed 004 §6 (fig. 8): `metric` / network cost of the run's design.

    `costs` maps design to cost (e.g. from `network_costs`, relative to one optical cable);
    the paper's metric is the communication rate sum_j V_j / T_j in GB/s. Returns `runs` with
    columns cost and `<metric>_per_cost`.
    """
    require_columns(runs, [design, metric], "analysis.runs")
    missing = sorted(set(runs[design]) - set(costs))
    if missing:
        raise ConfigError("analysis.costs", f"no cost for {missing}", "a cost for every design")
    for name, cost in costs.items():
        positive(cost, f"analysis.costs.{name}")
    table = runs.copy()
    table["cost"] = table[design].map(costs).astype(float)
    table[f"{metric}_per_cost"] = table[metric] / table["cost"]
    return table
