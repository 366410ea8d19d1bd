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

from exanet.analysis import binned_injection, saturation_point, traffic_matrix
from exanet.analysis._checks import require_columns, require_nonempty
from exanet.analysis.traffic import DEFAULT_BIN_NS

FIGSIZE_IN = (6.4, 4.0)
MAX_MATRIX_CELLS = 256  # a traffic matrix with more endpoints is shown by blocks of endpoints


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


def _figure() -> tuple[Figure, Axes]:
    fig = Figure(figsize=FIGSIZE_IN, layout="constrained")
    return fig, fig.add_subplot()


def latency_load(
    runs: pd.DataFrame, design: str = "design", latency: str = "latency_ns_mean", **rules: float
) -> Figure:
    """Mean latency against offered load, one line per design, with each design's saturation
    point (analysis.saturation_point; `rules` are its load_margin and latency_factor) marked."""
    require_columns(runs, [design, "offered_load", latency], "plots.runs")
    require_nonempty(runs, "plots.runs")
    fig, ax = _figure()
    saturation = saturation_point(runs, design, **rules).set_index(design)
    for name, curve in runs.sort_values("offered_load").groupby(design, observed=True):
        (line,) = ax.plot(curve["offered_load"], curve[latency], marker="o", label=str(name))
        load = saturation.loc[name, "saturation_offered_load"]
        if np.isfinite(load):
            at = curve.loc[curve["offered_load"] == load, latency].iloc[0]
            ax.plot(load, at, marker="X", markersize=12, color=line.get_color(), linestyle="")
            ax.axvline(load, color=line.get_color(), linestyle=":", linewidth=1)
    ax.set_xlabel("offered load (fraction of injection bandwidth)")
    ax.set_ylabel(f"{latency.replace('_', ' ')}")
    ax.set_title("latency vs load (X: saturation)")
    ax.legend(title=design, fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def accepted_offered(runs: pd.DataFrame, design: str = "design") -> Figure:
    """Accepted against offered load, one line per design, with the ideal y = x."""
    require_columns(runs, [design, "offered_load", "accepted_load"], "plots.runs")
    require_nonempty(runs, "plots.runs")
    fig, ax = _figure()
    for name, curve in runs.sort_values("offered_load").groupby(design, observed=True):
        ax.plot(curve["offered_load"], curve["accepted_load"], marker="o", label=str(name))
    top = float(runs[["offered_load", "accepted_load"]].max().max())
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1, label="ideal")
    ax.set_xlabel("offered load")
    ax.set_ylabel("accepted load")
    ax.set_title("accepted vs offered load")
    ax.legend(title=design, fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def injection_map(
    endpoints: pd.DataFrame, value: str = "accepted_gbytes_per_s", label: str | None = None
) -> Figure:
    """Per-endpoint `value` as a heat map on the torus coordinates coord0 x coord1 (Izu et al.,
    Fig. 3); endpoints sharing a (coord0, coord1) cell (higher dimensions, several endpoints
    per router) are averaged."""
    require_columns(endpoints, ["coord0", "coord1", value], "plots.endpoints")
    require_nonempty(endpoints, "plots.endpoints")
    grid = endpoints.pivot_table(index="coord1", columns="coord0", values=value, aggfunc="mean")
    fig, ax = _figure()
    image = ax.imshow(grid.to_numpy(), origin="lower", cmap="viridis", aspect="equal")
    fig.colorbar(image, ax=ax, label=label or value.replace("_", " "))
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
    ax.set_yticks(range(len(grid.index)), [str(c) for c in grid.index])
    ax.set_xlabel("coord0")
    ax.set_ylabel("coord1")
    ax.set_title(f"{value.replace('_', ' ')} per endpoint")
    return fig


def traffic_matrix_heatmap(pairs: pd.DataFrame, n_endpoints: int, value: str = "bytes") -> Figure:
    """The (src, dst) traffic matrix of `value` ("bytes" or "packets"); above 256 endpoints,
    summed over blocks of consecutive endpoints."""
    matrix = traffic_matrix(pairs, n_endpoints, value)
    block = -(-n_endpoints // MAX_MATRIX_CELLS)  # endpoints per displayed cell
    if block > 1:
        cells = -(-n_endpoints // block)
        padded = np.zeros((cells * block, cells * block))
        padded[:n_endpoints, :n_endpoints] = matrix
        matrix = padded.reshape(cells, block, cells, block).sum(axis=(1, 3))
    fig, ax = _figure()
    image = ax.imshow(matrix, cmap="magma", aspect="equal", interpolation="nearest")
    fig.colorbar(image, ax=ax, label=value)
    unit = f" (blocks of {block})" if block > 1 else ""
    ax.set_xlabel(f"destination endpoint{unit}")
    ax.set_ylabel(f"source endpoint{unit}")
    ax.set_title(f"traffic matrix ({value})")
    return fig


def link_utilization_histogram(links: pd.DataFrame, bins: int = 20) -> Figure:
    """Histogram of the utilisation (busy fraction of the window) of network links."""
    require_columns(links, ["kind", "util"], "plots.links")
    util = links.loc[links["kind"] == "network", "util"].to_numpy(dtype=float)
    fig, ax = _figure()
    ax.hist(util, bins=bins, range=(0.0, max(1.0, float(util.max(initial=0.0)))))
    ax.set_xlabel("link utilisation (fraction of time busy)")
    ax.set_ylabel("network links")
    ax.set_title(f"network link utilisation ({len(util)} links, mean {util.mean():.3f})")
    ax.grid(alpha=0.3)
    return fig


def injection_timeseries(series: pd.DataFrame, bin_ns: float = DEFAULT_BIN_NS) -> Figure:
    """Injection bandwidth over time in bins of `bin_ns`: the mean endpoint and the busiest."""
    binned = binned_injection(series, bin_ns)
    per_bin = binned.groupby("bin_start_ns")["injection_gbytes_per_s"]
    fig, ax = _figure()
    ax.step(per_bin.mean().index, per_bin.mean(), where="post", label="mean endpoint")
    ax.step(per_bin.max().index, per_bin.max(), where="post", alpha=0.6, label="max endpoint")
    ax.set_xlabel("time (ns)")
    ax.set_ylabel("injection bandwidth (GB/s)")
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
    ax.set_xlabel(f"injection bandwidth per {bin_ns:g} ns bin (GB/s)")
    ax.set_ylabel("(endpoint, bin) samples")
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
    width = 0.8 / len(wide.columns)
    x = np.arange(len(wide.index))
    for i, column in enumerate(wide.columns):
        ax.bar(x + (i - (len(wide.columns) - 1) / 2) * width, wide[column], width, label=column)
    ax.set_xticks(x, [str(name) for name in wide.index])
    ax.set_xlabel(group)
    ax.set_ylabel(value.replace("_", " "))
    ax.set_title(f"{value.replace('_', ' ')} per {group}")
    if series:
        ax.legend(title=series, fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    return fig
