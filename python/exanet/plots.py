"""Plots of simulation results: matplotlib Figures, built without pyplot (no display, no global
state), so they work headless and in threads.

Every function takes the DataFrames of a Result or a sweep (see docs/analysis.md for the
columns), returns a Figure, and leaves saving to `save` (PNG and SVG). Bandwidths are in GB/s
(bytes per ns), times in ns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from exanet.analysis import (
    binned_injection,
    performance_per_cost,
    saturation_point,
    traffic_matrix,
)
from exanet.analysis._checks import require_columns, require_nonempty
from exanet.analysis.traffic import DEFAULT_BIN_NS
from exanet.errors import ConfigError

FIGSIZE_IN = (6.4, 4.0)
MAX_MATRIX_CELLS = 256  # a traffic matrix with more endpoints is shown by blocks of endpoints
MAX_TICKS = 12  # a numeric swept axis with at most this many values gets a tick at each


def save(
    fig: Figure, path: str | os.PathLike[str], formats: Sequence[str] = ("png", "svg")
) -> list[Path]:
    """Write `fig` as PATH.png and PATH.svg (any suffix of `path` is replaced); returns the
    paths written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = path.with_suffix(f".{fmt}")
        fig.savefig(target, format=fmt, dpi=100)
        written.append(target)
    return written


LABELS = {  # column name -> axis label with its unit
    "offered_load": "Offered load (fraction of injection bandwidth)",
    "accepted_load": "Accepted load (fraction of injection bandwidth)",
    "injected_load": "Injected load (fraction of injection bandwidth)",
    "latency_ns_mean": "Mean latency (ns)",
    "latency_ns_p50": "Median latency (ns)",
    "latency_ns_p99": "p99 latency (ns)",
    "network_latency_ns_mean": "Mean network latency (ns)",
    "message_latency_ns_mean": "Mean message latency (ns)",
    "hops_mean": "Mean hops (router-to-router links)",
    "link_util_mean": "Mean link utilisation (fraction of time busy)",
    "link_util_max": "Max link utilisation (fraction of time busy)",
    "util": "Link utilisation (fraction of time busy)",
    "accepted_gbytes_per_s": "Accepted bandwidth (GB/s)",
    "offered_gbytes_per_s": "Offered bandwidth (GB/s)",
    "communication_rate_gbytes_per_s": "Communication rate (GB/s)",
    "sim_time_ns": "Simulated time (ns)",
    "completion_ns": "Completion time (ns)",
    "jobs_completion_ns_max": "Completion of the last job (ns)",
    "slowdown_vs_ideal": "Slowdown vs ideal network (x)",
    "slowdown_vs_alone": "Slowdown vs running alone (x)",
    "time_ns": "Burst time (ns)",
    "burst_time_ns_mean": "Mean burst time (ns)",
    "burst_throughput_packets_per_ns": "Burst throughput (packets/ns)",
    "traffic.load": "traffic.load (fraction of injection bandwidth)",
}
UNITS = (  # fallback for columns not in LABELS: a word of the name -> its unit
    ("gbytes_per_s", "GB/s"),
    ("packets_per_ns", "packets/ns"),
    ("ns", "ns"),
    ("load", "fraction of injection bandwidth"),
    ("util", "fraction of time busy"),
    ("bytes", "bytes"),
    ("hops", "hops"),
)
LOG_SPAN = 10.0  # a latency axis spanning more than this factor is drawn in log scale
HOLLOW = "none"  # marker face colour of points whose run did not drain


def label(column: str) -> str:
    """The axis label of `column` with its unit in parentheses: LABELS, else the name with
    the unit of a word in it (`burst_time_ns_max` -> "Burst time max (ns)"), else a count;
    a swept config key (dotted) is labelled as itself, "(config value)"."""
    if column in LABELS:
        return LABELS[column]
    if "." in column:
        return f"{column} (config value)"
    words = f"_{column}_"
    for token, unit in UNITS:
        if f"_{token}_" in words:
            name = words.replace(f"_{token}_", "_", 1).strip("_").replace("_", " ")
            return f"{name.capitalize()} ({unit})"
    return f"{column.replace('_', ' ').capitalize()} (count)"


def _figure() -> tuple[Figure, Axes]:
    fig = Figure(figsize=FIGSIZE_IN, layout="constrained")
    return fig, fig.add_subplot()


def _drained(curve: pd.DataFrame) -> np.ndarray:
    """Per row, whether its run drained (every row, without a `drained` column)."""
    if "drained" not in curve:
        return np.ones(len(curve), dtype=bool)
    return curve["drained"].fillna(True).astype(bool).to_numpy()


def _points(
    ax: Axes, x: pd.Series, y: pd.Series, drained: np.ndarray, name: str, joined: bool = True
) -> str:
    """Filled markers at x, y (joined by a line unless `joined` is false), the points whose
    run did not drain hollow and larger; returns the colour used."""
    (line,) = ax.plot(x, y, marker="o", linestyle="-" if joined else "", label=name)
    if not drained.all():
        ax.plot(
            x[~drained],
            y[~drained],
            marker="o",
            markersize=12,
            markeredgewidth=1.5,
            linestyle="",
            markerfacecolor=HOLLOW,
            markeredgecolor=line.get_color(),
            color=line.get_color(),
            label=f"{name}: did not drain" if name else "did not drain",
            zorder=3,
        )
        line.set_markevery(list(np.flatnonzero(drained)))
    return line.get_color()


def _log_if_wide(ax: Axes, values: pd.Series | np.ndarray) -> None:
    """Log y scale when the positive `values` span more than LOG_SPAN."""
    positive_values = np.asarray(values, dtype=float)
    positive_values = positive_values[np.isfinite(positive_values) & (positive_values > 0)]
    if len(positive_values) and positive_values.max() > LOG_SPAN * positive_values.min():
        ax.set_yscale("log")


def latency_load(
    runs: pd.DataFrame, design: str = "design", latency: str = "latency_ns_mean", **rules: float
) -> Figure:
    """Mean latency against offered load, one line per design, with each design's saturation
    point (analysis.saturation_point; `rules` are its load_margin and latency_factor) marked
    X, a p50-p99 band where the runs have latency_ns_p50 and latency_ns_p99, hollow markers
    for runs that did not drain, and a log latency axis when latency spans more than 10x."""
    require_columns(runs, [design, "offered_load", latency], "plots.runs")
    require_nonempty(runs, "plots.runs")
    fig, ax = _figure()
    saturation = saturation_point(runs, design, **rules).set_index(design)
    band = {"latency_ns_p50", "latency_ns_p99"} <= set(runs.columns)
    for name, curve in runs.sort_values("offered_load").groupby(design, observed=True):
        color = _points(ax, curve["offered_load"], curve[latency], _drained(curve), str(name))
        if band:
            ax.fill_between(
                curve["offered_load"],
                curve["latency_ns_p50"],
                curve["latency_ns_p99"],
                color=color,
                alpha=0.15,
                linewidth=0,
            )
        load = saturation.loc[name, "saturation_offered_load"]
        if np.isfinite(load):
            at = curve.loc[curve["offered_load"] == load, latency].iloc[0]
            ax.plot(load, at, marker="X", markersize=8, color=color, linestyle="", zorder=2)
            ax.axvline(load, color=color, linestyle=":", linewidth=1)
    shown = [latency, *(["latency_ns_p50", "latency_ns_p99"] if band else [])]
    _log_if_wide(ax, runs[shown].to_numpy().ravel())
    ax.set_xlabel(label("offered_load"))
    ax.set_ylabel(label(latency))
    title = "latency vs load (X: saturation"
    ax.set_title(title + (", band: p50 to p99)" if band else ")"))
    ax.legend(title=design, fontsize="small")
    ax.grid(alpha=0.3, which="both")
    return fig


def accepted_offered(runs: pd.DataFrame, design: str = "design") -> Figure:
    """Accepted against offered load, one line per design, with the ideal y = x; hollow
    markers for runs that did not drain."""
    require_columns(runs, [design, "offered_load", "accepted_load"], "plots.runs")
    require_nonempty(runs, "plots.runs")
    fig, ax = _figure()
    for name, curve in runs.sort_values("offered_load").groupby(design, observed=True):
        _points(ax, curve["offered_load"], curve["accepted_load"], _drained(curve), str(name))
    top = float(runs[["offered_load", "accepted_load"]].max().max())
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1, label="ideal")
    ax.set_xlabel(label("offered_load"))
    ax.set_ylabel(label("accepted_load"))
    ax.set_title("accepted vs offered load")
    ax.legend(title=design, fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def metric_by_axis(points: pd.DataFrame, axis: str, metric: str, design: str = "design") -> Figure:
    """`metric` against a swept `axis` (numbers on a linear axis joined by lines, other values
    as unjoined categories in their first-seen order), one series per design; hollow markers
    for runs that did not drain, a log axis for latencies that span more than 10x. For sweeps
    without a load axis."""
    require_columns(points, [design, axis, metric], "plots.points")
    require_nonempty(points, "plots.points")
    numeric = pd.api.types.is_numeric_dtype(points[axis]) and not pd.api.types.is_bool_dtype(
        points[axis]
    )
    ordered = points.sort_values(axis, kind="stable")
    categories = list(dict.fromkeys(ordered[axis].astype(str)))
    designs = list(dict.fromkeys(ordered[design]))
    fig, ax = _figure()
    for name, curve in ordered.groupby(design, observed=True, sort=False):
        if numeric:
            x = curve[axis]
        else:  # categories side by side, so that equal values of two designs both show
            dodge = (designs.index(name) - (len(designs) - 1) / 2) * min(0.1, 0.6 / len(designs))
            x = curve[axis].astype(str).map(categories.index) + dodge
        _points(ax, x, curve[metric], _drained(curve), str(name), joined=numeric)
    if not numeric:
        ax.set_xticks(range(len(categories)), categories)
    elif points[axis].nunique() <= MAX_TICKS:
        ax.set_xticks(sorted(points[axis].unique()))
    if "latency" in metric:
        _log_if_wide(ax, points[metric])
    top = float(np.nanmax(points[metric].to_numpy(dtype=float)))
    if ax.get_yscale() == "linear" and top > 0:
        ax.set_ylim(0, 1.1 * top)  # from zero, with room above the highest point
    ax.set_xlabel(label(axis))
    ax.set_ylabel(label(metric))
    ax.set_title(f"{label(metric).split(' (')[0]} by {axis}")
    if points[design].nunique() > 1 or not _drained(points).all():
        ax.legend(title=design, fontsize="small")
    ax.grid(alpha=0.3, which="both")
    return fig


def injection_map(
    endpoints: pd.DataFrame,
    value: str = "accepted_gbytes_per_s",
    vmax: float | None = None,
) -> Figure:
    """Per-endpoint `value` as a heat map on the torus coordinates coord0 x coord1 (Izu et al.,
    Fig. 3); endpoints sharing a (coord0, coord1) cell (higher dimensions, several endpoints
    per router) are averaged. The colour scale is fixed from 0 to `vmax` (default: 1 for a
    load, a fraction of the injection bandwidth; else the largest value), so a uniform run
    looks uniform instead of noise stretched over the whole scale."""
    require_columns(endpoints, ["coord0", "coord1", value], "plots.endpoints")
    require_nonempty(endpoints, "plots.endpoints")
    grid = endpoints.pivot_table(index="coord1", columns="coord0", values=value, aggfunc="mean")
    if vmax is None:
        vmax = 1.0 if value.endswith("_load") else float(np.nanmax(grid.to_numpy()))
    fig, ax = _figure()
    image = ax.imshow(
        grid.to_numpy(), origin="lower", cmap="viridis", aspect="equal", vmin=0.0, vmax=vmax or 1
    )
    fig.colorbar(image, ax=ax, label=label(value))
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
    ax.set_yticks(range(len(grid.index)), [str(c) for c in grid.index])
    ax.set_xlabel("coord0 (router coordinate)")
    ax.set_ylabel("coord1 (router coordinate)")
    ax.set_title(f"{label(value).split(' (')[0]} per endpoint (scale 0 to {vmax:.3g})")
    return fig


def traffic_matrix_heatmap(pairs: pd.DataFrame, n_endpoints: int, value: str = "bytes") -> Figure:
    """The (src, dst) traffic matrix of `value` ("bytes" or "packets"); above 256 endpoints,
    summed over blocks of consecutive endpoints. Colours from 0 to the largest cell."""
    matrix = traffic_matrix(pairs, n_endpoints, value)
    block = -(-n_endpoints // MAX_MATRIX_CELLS)  # endpoints per displayed cell
    if block > 1:
        cells = -(-n_endpoints // block)
        padded = np.zeros((cells * block, cells * block))
        padded[:n_endpoints, :n_endpoints] = matrix
        matrix = padded.reshape(cells, block, cells, block).sum(axis=(1, 3))
    fig, ax = _figure()
    image = ax.imshow(
        matrix, cmap="magma", aspect="equal", interpolation="nearest", vmin=0, vmax=matrix.max()
    )
    fig.colorbar(image, ax=ax, label=f"{value.capitalize()} injected ({value})")
    unit = f"blocks of {block} endpoints" if block > 1 else "endpoint id"
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"Destination ({unit})")
    ax.set_ylabel(f"Source ({unit})")
    ax.set_title(f"traffic matrix ({value})")
    return fig


def link_utilization_histogram(links: pd.DataFrame, bins: int = 20) -> Figure:
    """Histogram of the utilisation (busy fraction of the window) of network links."""
    require_columns(links, ["kind", "util"], "plots.links")
    util = links.loc[links["kind"] == "network", "util"].to_numpy(dtype=float)
    fig, ax = _figure()
    ax.hist(util, bins=bins, range=(0.0, max(1.0, float(util.max(initial=0.0)))))
    ax.set_xlabel(label("util"))
    ax.set_ylabel("Network links (count)")
    ax.set_title(f"network link utilisation ({len(util)} links, mean {util.mean():.3f})")
    ax.grid(alpha=0.3)
    return fig


def link_class_utilization(links: pd.DataFrame) -> Figure:
    """Mean and maximum utilisation per link class: each network class (dim0, dim1, ...,
    local, global) and the NICs' injection and ejection links, on a fixed 0-1 scale."""
    require_columns(links, ["kind", "class", "util"], "plots.links")
    require_nonempty(links, "plots.links")
    named = links.assign(group=np.where(links["kind"] == "network", links["class"], links["kind"]))
    stats = named.groupby("group")["util"].agg(["mean", "max"])
    nic = [kind for kind in ("injection", "ejection") if kind in stats.index]
    stats = stats.loc[[*stats.index.difference(nic), *nic]]
    fig, ax = _figure()
    x = np.arange(len(stats))
    ax.bar(x - 0.2, stats["mean"], 0.4, label="mean")
    ax.bar(x + 0.2, stats["max"], 0.4, label="max")
    ax.set_xticks(x, [str(name) for name in stats.index])
    ax.set_ylim(0, max(1.0, float(stats["max"].max())))
    ax.set_xlabel("Link class (network classes, then NIC links)")
    ax.set_ylabel(label("util"))
    ax.set_title("utilisation per link class")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    return fig


def latency_cdf(endpoints: pd.DataFrame, value: str = "latency_ns_mean") -> Figure:
    """Cumulative distribution over endpoints of their mean packet latency (the packets each
    endpoint sent), with the median and the slowest endpoint marked; a log axis when the
    endpoints' latencies span more than 10x."""
    require_columns(endpoints, [value], "plots.endpoints")
    values = np.sort(endpoints[value].to_numpy(dtype=float))
    values = values[np.isfinite(values)]
    if not len(values):
        raise ValueError("no endpoint delivered a measured packet")
    fig, ax = _figure()
    ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post")
    ax.axvline(np.median(values), color="black", linestyle="--", linewidth=1, label="median")
    ax.axvline(values[-1], color="black", linestyle=":", linewidth=1, label="slowest endpoint")
    if values[0] > 0 and values[-1] > LOG_SPAN * values[0]:
        ax.set_xscale("log")
    ax.set_xlabel(label(value).replace(" (", " of an endpoint's packets ("))
    ax.set_ylabel("Endpoints at or below (fraction)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"latency CDF over {len(values)} endpoints")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def injection_timeseries(series: pd.DataFrame, bin_ns: float = DEFAULT_BIN_NS) -> Figure:
    """Injection bandwidth over time in bins of `bin_ns`: the mean endpoint and the busiest."""
    binned = binned_injection(series, bin_ns)
    per_bin = binned.groupby("bin_start_ns")["injection_gbytes_per_s"]
    fig, ax = _figure()
    ax.step(per_bin.mean().index, per_bin.mean(), where="post", label="mean endpoint")
    ax.step(per_bin.max().index, per_bin.max(), where="post", alpha=0.6, label="max endpoint")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Time (ns)")
    ax.set_ylabel("Injection bandwidth (GB/s)")
    ax.set_title(f"injection bandwidth, {bin_ns:g} ns bins")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def injection_histogram(
    series: pd.DataFrame, bin_ns: float = DEFAULT_BIN_NS, bins: int = 30
) -> Figure:
    """Distribution of instantaneous injection bandwidth: one sample per (endpoint, bin of
    `bin_ns`), empty bins included (seed 000 §4.5.2)."""
    values = binned_injection(series, bin_ns)["injection_gbytes_per_s"].to_numpy()
    fig, ax = _figure()
    ax.hist(values, bins=bins)
    for p, style in ((50, "--"), (99, ":")):
        ax.axvline(np.percentile(values, p), color="black", linestyle=style, label=f"p{p}")
    ax.set_xlabel(f"Injection bandwidth per {bin_ns:g} ns bin (GB/s)")
    ax.set_ylabel("(endpoint, bin) samples (count)")
    ax.set_title("instantaneous injection bandwidth")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def grouped_bars(table: pd.DataFrame, group: str, value: str, series: str | None = None) -> Figure:
    """Bars of `value` per `group` (e.g. job), side by side per `series` (e.g. design) when
    given: slowdowns or communication rates of jobs across designs."""
    require_columns(table, [group, value, *([series] if series else [])], "plots.table")
    require_nonempty(table, "plots.table")
    wide = (
        table.pivot_table(index=group, columns=series, values=value, aggfunc="mean")
        if series
        else table.set_index(group)[[value]]
    )
    fig, ax = _figure()
    _bars(ax, wide)
    ax.set_xlabel(f"{group.capitalize()} (name)")
    ax.set_ylabel(label(value))
    ax.set_title(f"{label(value).split(' (')[0]} per {group}")
    if series:
        ax.legend(title=series, fontsize="small")
    return fig


def _bars(ax: Axes, wide: pd.DataFrame, labels: Sequence[str] | None = None) -> None:
    """One group of bars per row of `wide`, one bar per column, side by side."""
    width = 0.8 / len(wide.columns)
    x = np.arange(len(wide.index))
    for i, column in enumerate(wide.columns):
        name = labels[i] if labels else str(column)
        ax.bar(x + (i - (len(wide.columns) - 1) / 2) * width, wide[column], width, label=name)
    ax.set_xticks(x, [str(name) for name in wide.index])
    ax.grid(alpha=0.3, axis="y")


JOB_TIMES = {
    "completion_ns": "in this run",
    "ideal_completion_ns": "on the ideal network",
    "alone_completion_ns": "alone",
}
JOB_SLOWDOWNS = {"slowdown_vs_ideal": "vs ideal network", "slowdown_vs_alone": "vs alone"}


def jobs_bars(jobs: pd.DataFrame) -> Figure:
    """Per job: its completion time next to its ideal and alone times (left), and its
    slowdowns vs the ideal network and vs running alone (right, 1 = no slowdown). Columns
    with no positive value (no `alone = true`, an ideal time of 0) are left out."""
    require_columns(jobs, ["name", "completion_ns"], "plots.jobs")
    require_nonempty(jobs, "plots.jobs")
    fig = Figure(figsize=(FIGSIZE_IN[0] * 1.6, FIGSIZE_IN[1]), layout="constrained")
    times_ax, slow_ax = fig.subplots(1, 2)
    times = [c for c in JOB_TIMES if c in jobs and jobs[c].fillna(0).gt(0).any()]
    _bars(times_ax, jobs.set_index("name")[times], [JOB_TIMES[c] for c in times])
    times_ax.set_xlabel("Job (name)")
    times_ax.set_ylabel(label("completion_ns"))
    times_ax.set_title("completion time per job")
    times_ax.legend(fontsize="small")
    slowdowns = [c for c in JOB_SLOWDOWNS if c in jobs and jobs[c].notna().any()]
    if slowdowns:
        _bars(slow_ax, jobs.set_index("name")[slowdowns], [JOB_SLOWDOWNS[c] for c in slowdowns])
        slow_ax.axhline(1.0, color="black", linewidth=1)
        slow_ax.set_ylim(0, 1.15 * max(1.0, float(jobs[slowdowns].max().max())))
        slow_ax.legend(fontsize="small")
    else:
        slow_ax.set_axis_off()
    slow_ax.set_xlabel("Job (name)")
    slow_ax.set_ylabel("Slowdown (x)")
    slow_ax.set_title("slowdown per job (1: none)")
    return fig


def bursts_bars(bursts: pd.DataFrame) -> Figure:
    """Each burst's time from its start to the last delivery, with the mean."""
    require_columns(bursts, ["burst", "time_ns"], "plots.bursts")
    require_nonempty(bursts, "plots.bursts")
    fig, ax = _figure()
    ax.bar(bursts["burst"], bursts["time_ns"], color="tab:blue")
    mean = float(bursts["time_ns"].mean())
    ax.axhline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:.4g} ns")
    ax.set_xticks(bursts["burst"], [str(b) for b in bursts["burst"]])
    ax.set_xlabel("Burst (index, in order)")
    ax.set_ylabel(label("time_ns"))
    ax.set_title(f"{len(bursts)} bursts")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    return fig


def radix_vs_size(scaling: pd.DataFrame) -> Figure:
    """Router radix needed against system size, one step line per series (Li et al., Fig. 2),
    from `exanet.radix.radix_scaling`: a marker at each network built, and between two
    networks of a series the radix of the larger one, the smallest that reaches those sizes."""
    require_columns(scaling, ["series", "radix", "endpoints"], "plots.scaling")
    require_nonempty(scaling, "plots.scaling")
    fig, ax = _figure()
    for name, networks in scaling.sort_values("endpoints").groupby("series", sort=False):
        ax.step(networks["endpoints"], networks["radix"], where="pre", marker=".", label=name)
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("System size (endpoints)")
    ax.set_ylabel("Router radix needed (ports per router)")
    ax.set_title("router radix vs system size")
    ax.legend(title="series", fontsize="small")
    ax.grid(alpha=0.3, which="both")
    return fig


#: Bhatele et al.'s Fig. 9 colours per family; other families take the next default colours.
FAMILY_COLORS = {
    "dragonfly": "tab:red",
    "dragonfly_rc": "tab:green",
    "express_mesh": "tab:blue",
    "fat_tree": "gold",
}
CONSTRAINT_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def performance_per_dollar(
    runs: pd.DataFrame,
    designs: pd.DataFrame,
    metric: str = "communication_rate_gbytes_per_s",
    design: str = "design",
) -> Figure:
    """Performance per dollar against balance (Bhatele et al., Fig. 9): each run's `metric`
    divided by its design's cost (`analysis.performance_per_cost`), at the design's balance
    (diameter-normalized links per node, `iso.balance`); colour per family, marker per
    constraint. `designs` has `design`, `family`, `constraint`, `balance` and `cost` (e.g.
    `iso.designs_frame`); repeated runs of a design are averaged. Cost is relative to one
    optical cable's price (`exanet.cost`)."""
    require_columns(runs, [design, metric], "plots.runs")
    require_columns(designs, [design, "family", "constraint", "balance", "cost"], "plots.designs")
    require_nonempty(runs, "plots.runs")
    costs = designs.set_index(design)["cost"].to_dict()
    ratio = f"{metric}_per_cost"
    per_cost = performance_per_cost(runs, costs, metric, design).groupby(design)[ratio].mean()
    table = designs.drop(columns="cost").merge(per_cost.reset_index(), on=design)
    constraints = list(dict.fromkeys(table["constraint"]))
    fig, ax = _figure()
    for (family, constraint), points in table.groupby(["family", "constraint"], sort=False):
        marker = CONSTRAINT_MARKERS[constraints.index(constraint) % len(CONSTRAINT_MARKERS)]
        ax.plot(
            points["balance"],
            points[ratio],
            marker=marker,
            linestyle="",
            color=FAMILY_COLORS.get(family),
            label=f"{family}, iso-{constraint}",
        )
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1.1 * float(table[ratio].max()))
    ax.set_xlabel("Balance (unidirectional links per node per diameter hop)")
    quantity, unit = label(metric)[:-1].split(" (")
    ax.set_ylabel(f"{quantity} per cost\n({unit} per optical-cable price)")
    ax.set_title("performance per dollar vs balance (dashed: balanced)")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    return fig


def injected_packets_map(
    endpoints: pd.DataFrame,
    groups: Sequence[int] | None = None,
    value: str = "packets_injected",
    dims: tuple[int, int] = (0, 1),
) -> Figure:
    """Packets each place injected (Izu et al., Figs. 3-4). With coordinate columns (torus,
    mesh, express mesh): a heat map over coord`dims[0]` x coord`dims[1]`, each cell the sum of
    `value` over the endpoints there (the router's concentration and, above two dimensions,
    the other coordinates), colours from 0 to the largest cell. Without them: a bar per group,
    the sum over the endpoints of its routers; `groups` gives each router's group
    (`exanet.topology(...).router_graph().groups`)."""
    require_columns(endpoints, ["router", value], "plots.endpoints")
    require_nonempty(endpoints, "plots.endpoints")
    coords = [c for c in endpoints.columns if c.startswith("coord")]
    if coords and (endpoints[coords] >= 0).all().all():
        return _coordinate_map(endpoints, value, dims, coords)
    if groups is None:
        raise ConfigError(
            "plots.groups",
            "None",
            "each router's group, e.g. exanet.topology(...).router_graph().groups: the "
            "endpoints have no coordinates to draw a map on",
        )
    routers = int(endpoints["router"].max()) + 1
    if len(groups) < routers:
        raise ConfigError("plots.groups", f"{len(groups)} groups", f"one per router ({routers})")
    per_group = endpoints.groupby(np.asarray(groups)[endpoints["router"]])[value].sum()
    fig, ax = _figure()
    ax.bar(per_group.index, per_group.to_numpy(), color="tab:blue")
    ax.axhline(per_group.mean(), color="black", linestyle="--", linewidth=1, label="mean group")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Group (index)")
    ax.set_ylabel(f"{label(value).split(' (')[0]} per group (count)")
    ax.set_title(f"{value.replace('_', ' ')} per group ({len(per_group)} groups)")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    return fig


def _coordinate_map(
    endpoints: pd.DataFrame, value: str, dims: tuple[int, int], coords: list[str]
) -> Figure:
    columns = [f"coord{d}" for d in dims] if len(dims) == 2 else []
    if len(set(columns)) != 2 or not set(columns) <= set(coords):
        raise ConfigError(
            "plots.dims", repr(dims), f"two different dimensions among 0 to {len(coords) - 1}"
        )
    x, y = columns
    grid = endpoints.pivot_table(index=y, columns=x, values=value, aggfunc="sum", fill_value=0)
    grid = grid.reindex(  # every coordinate from 0, so that column i is coordinate i
        index=range(int(endpoints[y].max()) + 1),
        columns=range(int(endpoints[x].max()) + 1),
        fill_value=0,
    )
    fig, ax = _figure()
    image = ax.imshow(
        grid.to_numpy(), origin="lower", cmap="viridis", vmin=0, vmax=max(grid.to_numpy().max(), 1)
    )
    fig.colorbar(image, ax=ax, label=f"{label(value).split(' (')[0]} per cell (count)")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=MAX_TICKS, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=MAX_TICKS, integer=True))
    ax.set_xlabel(f"{x} (router coordinate)")
    ax.set_ylabel(f"{y} (router coordinate)")
    ax.set_title(f"{value.replace('_', ' ')} per ({x}, {y}), summed over its endpoints")
    return fig
