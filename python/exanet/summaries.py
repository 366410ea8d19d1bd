"""The key figures of runs and sweeps, with their units: the rows `exanet compare` shows, and
the HTML Jupyter displays for a Result, a run or sweep directory read back with exanet.open,
and a SweepRun."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from exanet.display import format_number

KEY_METRICS = (  # (label, summary statistic, unit)
    ("offered load", "offered_load", "fraction"),
    ("accepted load", "accepted_load", "fraction"),
    ("accepted bandwidth per endpoint", "accepted_gbytes_per_s", "GB/s"),
    ("latency mean", "latency_ns_mean", "ns"),
    ("latency p50", "latency_ns_p50", "ns"),
    ("latency p99", "latency_ns_p99", "ns"),
    ("hops mean", "hops_mean", "hops"),
    ("link utilisation mean", "link_util_mean", "fraction"),
    ("link utilisation max", "link_util_max", "fraction"),
    ("jobs: last finished at", "jobs_completion_ns_max", "ns"),
    ("communication rate", "communication_rate_gbytes_per_s", "GB/s"),
    ("time per burst mean", "burst_time_ns_mean", "ns"),
    ("burst throughput", "burst_throughput_packets_per_ns", "packets/ns"),
    ("steady state", "steady_state", ""),
    ("drained", "drained", ""),
    ("wall time", "wall_s", "s"),
)
"""Only the rows a summary has (a number or a flag, not null) are shown."""

SWEEP_COLUMNS = (
    "offered_load",
    "accepted_load",
    "latency_ns_mean",
    "latency_ns_p99",
    "steady_state",
    "drained",
)
"""The statistics of a sweep's points table, after its axes."""
MAX_HTML_ROWS = 50


def is_shown(value: Any) -> bool:
    """Whether a summary value is a number or a flag to show (not null, not NaN)."""
    if isinstance(value, bool):
        return True
    return isinstance(value, (int, float)) and not math.isnan(value)


def key_metrics(summaries: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str]]:
    """The rows of KEY_METRICS that at least one of `summaries` has."""
    summaries = list(summaries)
    return [row for row in KEY_METRICS if any(is_shown(s.get(row[1])) for s in summaries)]


def axis_columns(points: pd.DataFrame) -> list[str]:
    """A sweep dataset's axes: its dotted-key columns (summary statistics have no dots)."""
    return [column for column in points.columns if "." in column]


def _table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def summary_html(summary: Mapping[str, Any], title: str) -> str:
    """A run's key figures as an HTML table under `title`; summary.json holds every statistic."""
    rows = [
        (label, format_number(summary[key]), unit) for label, key, unit in key_metrics([summary])
    ]
    return f"<div><strong>{html.escape(title)}</strong>{_table(('', 'value', 'unit'), rows)}</div>"


def sweep_html(points: pd.DataFrame, title: str) -> str:
    """A sweep's point counts and its points table (axes, then key statistics), sorted by
    the axes; at most MAX_HTML_ROWS rows, the dataset holds them all."""
    ok = int((points["status"] == "ok").sum()) if len(points) else 0
    counts = f"{len(points):,} points: {ok:,} ok, {len(points) - ok:,} failed"
    axes = axis_columns(points)
    columns = [*axes, *(c for c in SWEEP_COLUMNS if c in points.columns), "status"]
    shown = points[columns].sort_values(axes, kind="stable") if axes else points[columns]
    rows = [[format_number(value) for value in row] for row in shown.head(MAX_HTML_ROWS).values]
    more = len(points) - len(rows)
    tail = f"<p>... and {more:,} more points</p>" if more > 0 else ""
    return (
        f"<div><strong>{html.escape(title)}</strong><p>{counts}</p>"
        f"{_table(columns, rows)}{tail}</div>"
    )
