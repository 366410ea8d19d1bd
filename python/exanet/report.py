"""A self-contained HTML report of a run directory (`exanet run`, `Result.write`) or a sweep
output directory (`exanet sweep`): plots embedded as base64 PNG, tables, config and metadata
in one file that opens offline."""

from __future__ import annotations

import base64
import html
import io
import json
import os
import platform
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

import exanet
from exanet import plots
from exanet.analysis import packet_size_histogram
from exanet.errors import ConfigError
from exanet.sweep.store import DATASET_FILE, load, load_table, point_dir

DEFAULT_NAME = "report.html"
LOAD_AXIS = "traffic.load"
POINT_COLUMNS = ("key", "status", "repetition", "seed")
CURVE_METRICS = (  # sweep metrics shown in the points table next to the axes
    "offered_load",
    "accepted_load",
    "latency_ns_mean",
    "latency_ns_p99",
    "hops_mean",
    "link_util_max",
    "sim_time_ns",
)
MAX_TABLE_ROWS = 200

# Records in the page how many images decoded (body data attributes and the title), so that a
# headless browser's DOM dump shows whether every plot rendered.
IMAGE_CHECK_SCRIPT = """
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const loaded = images.filter((image) => image.complete && image.naturalWidth > 0).length;
  document.body.dataset.imagesLoaded = loaded;
  document.body.dataset.imagesTotal = images.length;
  document.title += ` [${loaded}/${images.length} images]`;
});
"""
STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1, h2 { border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th { background: #f2f2f2; }
figure { display: inline-block; margin: 0.5em; }
figure img { max-width: 640px; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.8em; }
.meta td, .meta th { text-align: left; }
"""


def write_report(
    results: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Path:
    """Write the HTML report of `results` (a run or a sweep directory) to `output` (default
    RESULTS/report.html) and return its path."""
    results = Path(results)
    if (results / DATASET_FILE).is_file():
        kind, sections = "sweep", _sweep_sections(results)
    elif (results / "summary.json").is_file():
        kind, sections = "run", _run_sections(results)
    else:
        raise ConfigError(
            "report.results",
            str(results),
            f"a run directory (with summary.json) or a sweep directory (with {DATASET_FILE})",
        )
    title = f"exanet {kind} report: {results.resolve().name}"
    page = "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(title)}</title>",
            f"<style>{STYLE}</style>",
            f"<script>{IMAGE_CHECK_SCRIPT}</script>",
            "</head><body>",
            f"<h1>{html.escape(title)}</h1>",
            _metadata(results, kind),
            *sections,
            "</body></html>",
        ]
    )
    output = Path(output) if output is not None else results / DEFAULT_NAME
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(page, encoding="utf-8")
    return output


def _metadata(results: Path, kind: str) -> str:
    rows = {
        "results": str(results.resolve()),
        "kind": kind,
        "exanet version": exanet.__version__,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "python": platform.python_version(),
        "host": platform.node(),
    }
    body = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows.items()
    )
    return f'<table class="meta">{body}</table>'


def _figure(fig: Figure, caption: str) -> str:
    """`fig` as an <img> with its PNG inline."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    alt = html.escape(caption)
    return (
        f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">'
        f"<figcaption>{alt}</figcaption></figure>"
    )


def _plot(make: Callable[[], Figure], caption: str) -> str:
    """The figure `make` draws; a note instead when its input cannot be plotted."""
    try:
        return _figure(make(), caption)
    except (ConfigError, KeyError, ValueError) as exc:
        return f"<p>{html.escape(caption)}: not plotted ({html.escape(str(exc))})</p>"


def _table(df: pd.DataFrame, caption: str | None = None) -> str:
    shown = df.head(MAX_TABLE_ROWS)
    note = f"<p>first {MAX_TABLE_ROWS} of {len(df)} rows</p>" if len(df) > MAX_TABLE_ROWS else ""
    heading = f"<h3>{html.escape(caption)}</h3>" if caption else ""
    return (
        heading + shown.to_html(index=False, float_format=lambda x: f"{x:.4g}", na_rep="-") + note
    )


def _config(path: Path, heading: str) -> str:
    config = json.loads(path.read_text())
    text = html.escape(json.dumps(config, indent=2), quote=False)
    return f"<h2>{html.escape(heading)}</h2><pre>{text}</pre>"


def _read(directory: Path, name: str) -> pd.DataFrame:
    file = directory / f"{name}.parquet"
    return pd.read_parquet(file) if file.is_file() else pd.DataFrame()


def _run_sections(directory: Path) -> list[str]:
    """Summary, plots chosen by the tables present, tables and config of one run."""
    summary: dict[str, Any] = json.loads((directory / "summary.json").read_text())
    summary.pop("jobs_detail", None)  # shown as the jobs table
    endpoints, links = _read(directory, "endpoints"), _read(directory, "links")
    matrix, series = _read(directory, "traffic_matrix"), _read(directory, "injection_series")
    sizes, jobs, bursts = (_read(directory, n) for n in ("packet_sizes", "jobs", "bursts"))

    figures = []
    if {"coord0", "coord1"} <= set(endpoints.columns) and (endpoints["coord0"] >= 0).all():
        figures.append(
            _plot(lambda: plots.injection_map(endpoints), "accepted bandwidth per endpoint")
        )
        figures.append(
            _plot(
                lambda: plots.injection_map(endpoints, "offered_load"),
                "offered load per endpoint",
            )
        )
    if len(links):
        figures.append(
            _plot(lambda: plots.link_utilization_histogram(links), "network link utilisation")
        )
    if len(matrix):
        n = int(summary.get("endpoints") or len(endpoints))
        level = summary.get("traffic_matrix_level", "endpoints")
        figures.append(
            _plot(lambda: plots.traffic_matrix_heatmap(matrix, n), f"traffic matrix ({level})")
        )
    if len(series):
        bin_ns = _bin_width_ns(series)
        figures.append(
            _plot(lambda: plots.injection_timeseries(series, bin_ns), "injection bandwidth")
        )
        figures.append(
            _plot(
                lambda: plots.injection_histogram(series, bin_ns),
                "instantaneous injection bandwidth",
            )
        )
    if len(jobs):
        for metric in ("slowdown_vs_ideal", "communication_rate_gbytes_per_s"):
            if metric in jobs and jobs[metric].notna().any():
                figures.append(
                    _plot(lambda m=metric: plots.grouped_bars(jobs, "name", m), f"{metric}")
                )

    sections = [
        "<h2>Plots</h2>",
        *figures,
        "<h2>Summary</h2>",
        _table(pd.DataFrame({"statistic": list(summary), "value": list(summary.values())})),
        "<h2>Tables</h2>",
    ]
    if len(jobs):
        sections.append(_table(jobs, "jobs"))
    if len(bursts):
        sections.append(_table(bursts, "bursts"))
    if len(sizes):
        sections.append(_table(packet_size_histogram(sizes), "packet sizes"))
    sections.append(_table(endpoints, "endpoints"))
    sections.append(_table(links[links["kind"] == "network"], "network links"))
    sections.append(_config(directory / "config.json", "Config (core units)"))
    return sections


def _bin_width_ns(series: pd.DataFrame) -> float:
    """The recorded bin width: the smallest gap between bin starts (one bin: 50 ns)."""
    gaps = np.diff(np.unique(series["bin_start_ns"].to_numpy(dtype=float)))
    return float(gaps.min()) if len(gaps) else 50.0


def _sweep_sections(out: Path) -> list[str]:
    """Load curves per design (every axis but traffic.load), the points table, failures, jobs
    across designs and the first point's config."""
    points = load(out)
    axes = [c for c in points.columns if "." in c]  # axis columns are dotted config keys
    design_axes = [a for a in axes if a != LOAD_AXIS]
    ok = points[points["status"] == "ok"].copy()
    ok["design"] = _design_names(ok, design_axes)

    figures = []
    if len(ok) and {"offered_load", "accepted_load", "latency_ns_mean"} <= set(ok.columns):
        curves = _mean_over_repetitions(ok, axes)
        figures.append(_plot(lambda: plots.latency_load(curves), "latency vs offered load"))
        figures.append(_plot(lambda: plots.accepted_offered(curves), "accepted vs offered load"))
    jobs = load_table(out, "jobs")
    if len(jobs) and "slowdown_vs_ideal" in jobs:
        jobs = jobs.merge(ok[["key", "design"]].drop_duplicates("key"), on="key")
        figures.append(
            _plot(
                lambda: plots.grouped_bars(jobs, "name", "slowdown_vs_ideal", "design"),
                "job slowdown vs ideal per design",
            )
        )

    shown = [c for c in (*POINT_COLUMNS, *axes, *CURVE_METRICS) if c in points.columns]
    sections = [
        "<h2>Sweep</h2>",
        f"<p>{len(points)} points, {len(ok)} ok, {len(points) - len(ok)} failed; "
        f"axes: {html.escape(', '.join(axes) or 'none')}</p>",
        "<h2>Plots</h2>",
        *(figures or ["<p>no load curves: the points have no load statistics</p>"]),
        _table(points[shown], "points"),
    ]
    failed = points[points["status"] != "ok"]
    if len(failed):
        sections.append(_table(failed[["key", *axes, "error"]], "failed points"))
    if len(ok):
        config = point_dir(out, ok["key"].iloc[0]) / "config.json"
        sections.append(_config(config, "Config of the first ok point (core units)"))
    return sections


def _mean_over_repetitions(points: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """One row per design and axis values: the repetitions' metrics averaged, so a curve has
    one point per load, not one per seed."""
    metrics = ["offered_load", "accepted_load", "latency_ns_mean"]
    if not axes:
        return points.groupby("design", as_index=False)[metrics].mean()
    return points.groupby(["design", *axes], as_index=False, dropna=False)[metrics].mean()


def _design_names(points: pd.DataFrame, axes: list[str]) -> pd.Series:
    """One name per point from its non-load axis values ("all" when there are none)."""
    if not axes:
        return pd.Series("all", index=points.index)
    return (
        points[axes]
        .astype(str)
        .apply(lambda row: ", ".join(f"{a}={v}" for a, v in row.items()), axis=1)
    )
