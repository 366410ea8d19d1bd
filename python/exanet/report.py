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
from exanet.analysis import packet_size_histogram, saturation_rule
from exanet.analysis.curves import CURVE_COLUMNS
from exanet.errors import ConfigError
from exanet.sweep.store import DATASET_FILE, load, load_table, point_dir

DEFAULT_NAME = "report.html"
LOAD_AXIS = "traffic.load"
POINT_COLUMNS = ("key", "status", "repetition", "seed")
CURVE_METRICS = (  # sweep metrics shown in the points table next to the axes
    "drained",
    "steady_state",
    "saturated",
    "offered_load",
    "accepted_load",
    "latency_ns_mean",
    "latency_ns_p50",
    "latency_ns_p99",
    "hops_mean",
    "link_util_max",
    "sim_time_ns",
    "jobs_completion_ns_max",
    "burst_time_ns_mean",
)
# metrics drawn against the axes of a sweep without a load axis, when the points have them
AXIS_METRICS = (
    "accepted_load",
    "latency_ns_mean",
    "jobs_completion_ns_max",
    "communication_rate_gbytes_per_s",
    "burst_time_ns_mean",
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
# Sorts a table by the column whose header is clicked (numbers as numbers), again to reverse.
SORT_SCRIPT = """
document.addEventListener("click", (event) => {
  const th = event.target.closest("table.sortable th");
  if (!th) return;
  const table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
  const up = th.dataset.order !== "up";
  th.dataset.order = up ? "up" : "down";
  const key = (row) => {
    const text = row.cells[column].textContent.replace(/,/g, "");
    const number = Number.parseFloat(text);
    return Number.isNaN(number) ? text : number;
  };
  const rows = Array.from(body.rows).sort((a, b) => {
    const x = key(a), y = key(b);
    const same = typeof x === typeof y;
    const order = same ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === "number" ? -1 : 1;
    return up ? order : -order;
  });
  rows.forEach((row) => body.appendChild(row));
});
"""
STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1340px; padding: 0 1em; color: #222; }
h1, h2 { border-bottom: 1px solid #ccc; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; position: sticky; top: 0; }
table.sortable th { cursor: pointer; }
p.warning { background: #fff3e0; border-left: 4px solid #e65100; padding: 0.5em; }
figure { display: inline-block; margin: 0.5em; }
figure img { max-width: 100%; }
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
            f"<script>{IMAGE_CHECK_SCRIPT}{SORT_SCRIPT}</script>",
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


Plot = tuple[str, Callable[[], Figure]]  # caption, and what draws the figure


def figures(results: str | os.PathLike[str]) -> list[tuple[str, Figure]]:
    """The (caption, Figure) pairs the report of `results` (a run or a sweep directory) shows,
    drawn; a plot whose input cannot be plotted raises here, where the report shows a note."""
    results = Path(results)
    plots_of = _sweep_plots if (results / DATASET_FILE).is_file() else _run_plots
    return [(caption, make()) for caption, make in plots_of(results)]


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


def _number_format(column: pd.Series) -> Callable[[Any], str] | None:
    """One format for every number of `column`: integers as integers, other numbers with the
    decimals that give the column's largest value four significant digits (at most 6)."""
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        return None
    values = column.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    if not len(finite) or np.all(finite == np.round(finite)):
        digits = 0
    else:
        largest = float(np.abs(finite).max())
        digits = int(np.clip(3 - np.floor(np.log10(largest)), 0, 6)) if largest > 0 else 0
    return lambda x: "-" if pd.isna(x) else f"{x:.{digits}f}"


def _table(df: pd.DataFrame, caption: str | None = None) -> str:
    shown = df.head(MAX_TABLE_ROWS)
    note = f"<p>first {MAX_TABLE_ROWS} of {len(df)} rows</p>" if len(df) > MAX_TABLE_ROWS else ""
    heading = f"<h3>{html.escape(caption)}</h3>" if caption else ""
    formats = {c: f for c in shown.columns if (f := _number_format(shown[c])) is not None}
    table = shown.to_html(index=False, formatters=formats, na_rep="-", classes="sortable", border=0)
    return f'{heading}<div class="table-wrap">{table}</div>{note}'


def _config(path: Path, heading: str) -> str:
    config = json.loads(path.read_text())
    text = html.escape(json.dumps(config, indent=2), quote=False)
    return f"<h2>{html.escape(heading)}</h2><pre>{text}</pre>"


def _read(directory: Path, name: str) -> pd.DataFrame:
    file = directory / f"{name}.parquet"
    return pd.read_parquet(file) if file.is_file() else pd.DataFrame()


def _run_plots(directory: Path) -> list[Plot]:
    """The plots of one run, chosen by what it holds: synthetic traffic gets injection maps
    and the endpoints' latency CDF, a jobs run its per-job bars, a burst run its bursts; every
    run its link utilisation, and the recorded traffic matrix and injection series."""
    summary: dict[str, Any] = json.loads((directory / "summary.json").read_text())
    endpoints, links = _read(directory, "endpoints"), _read(directory, "links")
    matrix, series = _read(directory, "traffic_matrix"), _read(directory, "injection_series")
    jobs, bursts = _read(directory, "jobs"), _read(directory, "bursts")
    synthetic = jobs.empty and bursts.empty

    found: list[Plot] = []
    if len(jobs):
        found.append(("completion and slowdown per job", lambda: plots.jobs_bars(jobs)))
    if len(bursts):
        found.append(("time per burst", lambda: plots.bursts_bars(bursts)))
    has_coords = {"coord0", "coord1"} <= set(endpoints.columns)
    if synthetic and has_coords and (endpoints["coord0"] >= 0).all():
        bandwidth = summary.get("injection_bandwidth_gbytes_per_s")
        found.append(
            (
                "accepted bandwidth per endpoint (scale: 0 to the injection bandwidth)",
                lambda: plots.injection_map(endpoints, vmax=bandwidth),
            )
        )
        found.append(
            (
                "offered load per endpoint (scale: 0 to 1)",
                lambda: plots.injection_map(endpoints, "offered_load"),
            )
        )
    if synthetic and "latency_ns_mean" in endpoints:
        found.append(("mean latency per endpoint, CDF", lambda: plots.latency_cdf(endpoints)))
    if len(links):
        found.append(("utilisation per link class", lambda: plots.link_class_utilization(links)))
        found.append(("network link utilisation", lambda: plots.link_utilization_histogram(links)))
    if len(matrix):
        n = int(summary.get("endpoints") or len(endpoints))
        level = summary.get("traffic_matrix_level", "endpoints")
        found.append((f"traffic matrix ({level})", lambda: plots.traffic_matrix_heatmap(matrix, n)))
    if len(series):
        bin_ns = _bin_width_ns(series)
        found.append(("injection bandwidth", lambda: plots.injection_timeseries(series, bin_ns)))
        found.append(
            (
                "instantaneous injection bandwidth",
                lambda: plots.injection_histogram(series, bin_ns),
            )
        )
    return found


def _run_sections(directory: Path) -> list[str]:
    """Summary, plots chosen by the tables present, tables and config of one run."""
    summary: dict[str, Any] = json.loads((directory / "summary.json").read_text())
    summary.pop("jobs_detail", None)  # shown as the jobs table
    endpoints, links = _read(directory, "endpoints"), _read(directory, "links")
    sizes, jobs, bursts = (_read(directory, n) for n in ("packet_sizes", "jobs", "bursts"))

    sections = []
    if summary.get("drained") is False:
        sections.append(
            '<p class="warning">This run did not drain: packets were still in flight at the '
            "drain limit, so its latencies are not steady-state.</p>"
        )
    sections += [
        "<h2>Plots</h2>",
        *(_plot(make, caption) for caption, make in _run_plots(directory)),
        "<h2>Summary</h2>",
        _table(
            pd.DataFrame(
                {"statistic": list(summary), "value": [_text(v) for v in summary.values()]}
            )
        ),
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


def _text(value: Any) -> str:
    """A summary value as text: numbers with up to 6 significant digits."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _bin_width_ns(series: pd.DataFrame) -> float:
    """The recorded bin width: the smallest gap between bin starts (one bin: 50 ns)."""
    gaps = np.diff(np.unique(series["bin_start_ns"].to_numpy(dtype=float)))
    return float(gaps.min()) if len(gaps) else 50.0


def _axes(points: pd.DataFrame) -> list[str]:
    return [c for c in points.columns if "." in c]  # axis columns are dotted config keys


def _sorted_points(points: pd.DataFrame) -> pd.DataFrame:
    """The points sorted by the swept axes in order, then repetition: numbers as numbers,
    other values (lists, names) as their text."""
    by = [c for c in (*_axes(points), "repetition") if c in points.columns]
    return points.sort_values(
        by,
        key=lambda c: c if pd.api.types.is_numeric_dtype(c) else c.astype(str),
        kind="stable",
    ).reset_index(drop=True)


def _ok_points(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All points (sorted by the axes), and the ok ones with their design name (the non-load
    axes) and saturation rule."""
    points = _sorted_points(load(out))
    ok = points[points["status"] == "ok"].copy()
    ok["design"] = _design_names(ok, [a for a in _varying(ok) if a != LOAD_AXIS])
    if LOAD_AXIS in points and len(ok) and set(CURVE_COLUMNS) <= set(ok.columns):
        ok["saturated"] = _saturated(ok)
        points = points.join(ok["saturated"])
    return points, ok


def _varying(points: pd.DataFrame) -> list[str]:
    """The swept axes that take more than one value among `points`."""
    return [a for a in _axes(points) if points[a].astype(str).nunique() > 1]


def _saturated(ok: pd.DataFrame) -> pd.Series:
    """Per point, the saturation rule that marks it (analysis.saturation_rule), against the
    mean latency at its design's lowest offered load."""
    rules = []
    for _, curve in ok.groupby("design", observed=True):
        zero_load_ns = float(curve.sort_values("offered_load")["latency_ns_mean"].iloc[0])
        rules.append(saturation_rule(curve, zero_load_ns))
    return pd.concat(rules)


def _sweep_plots(out: Path) -> list[Plot]:
    """Load curves per design (every axis but traffic.load) when traffic.load is swept, else
    the metrics against each axis that takes more than one value; job slowdowns per design
    when the points ran jobs."""
    points, ok = _ok_points(out)
    axes = _axes(points)
    found: list[Plot] = []
    if LOAD_AXIS in axes and len(ok) and set(CURVE_COLUMNS) <= set(ok.columns):
        curves = _mean_over_repetitions(ok, axes)
        found.append(("latency vs offered load", lambda: plots.latency_load(curves)))
        found.append(("accepted vs offered load", lambda: plots.accepted_offered(curves)))
    elif len(ok):
        metrics = [m for m in AXIS_METRICS if m in ok and ok[m].notna().any()]
        for axis in _varying(ok):
            others = [a for a in _varying(ok) if a != axis]
            by_axis = _mean_over_repetitions(ok.assign(design=_design_names(ok, others)), axes)
            for metric in metrics:
                found.append(
                    (
                        f"{metric} by {axis}",
                        lambda a=axis, m=metric, c=by_axis: plots.metric_by_axis(c, a, m),
                    )
                )
    jobs = load_table(out, "jobs")
    if len(jobs) and "slowdown_vs_ideal" in jobs:
        jobs = jobs.merge(ok[["key", "design"]].drop_duplicates("key"), on="key")
        found.append(
            (
                "job slowdown vs ideal per design",
                lambda: plots.grouped_bars(jobs, "name", "slowdown_vs_ideal", "design"),
            )
        )
    return found


def _sweep_sections(out: Path) -> list[str]:
    """Plots chosen by the sweep's axes, the points table sorted by the axes, failures and
    the first point's config."""
    points, ok = _ok_points(out)
    axes = _axes(points)
    undrained = int((~ok["drained"].astype(bool)).sum()) if "drained" in ok else 0
    figures = [_plot(make, caption) for caption, make in _sweep_plots(out)]
    shown = [c for c in (*POINT_COLUMNS, *axes, *CURVE_METRICS) if c in points.columns]
    sections = [
        "<h2>Sweep</h2>",
        f"<p>{len(points)} points, {len(ok)} ok, {len(points) - len(ok)} failed, "
        f"{undrained} did not drain (hollow markers); "
        f"axes: {html.escape(', '.join(axes) or 'none')}</p>",
        "<h2>Plots</h2>",
        *(figures or ["<p>no plots: the points have no statistics to draw</p>"]),
        _table(points[shown], "points (sorted by the swept axes; click a header to sort)"),
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
    one point per load, not one per seed; `drained` only if every repetition drained."""
    metrics = {
        m: "mean"
        for m in (*CURVE_COLUMNS, "latency_ns_p50", "latency_ns_p99", *AXIS_METRICS)
        if m in points
    }
    if "drained" in points:
        metrics["drained"] = "all"
    keys = ["design", *axes]
    grouped = points.astype({a: str for a in axes if points[a].dtype == object})
    return grouped.groupby(keys, as_index=False, dropna=False, sort=False).agg(metrics)


def _design_names(points: pd.DataFrame, axes: list[str]) -> pd.Series:
    """One name per point from its values of `axes` ("all" when there are none)."""
    if not axes:
        return pd.Series("all", index=points.index)
    return (
        points[axes]
        .astype(str)
        .apply(lambda row: ", ".join(f"{a}={v}" for a, v in row.items()), axis=1)
    )
