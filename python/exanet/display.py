"""Rich rendering of results for the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

_SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def format_si(value: float, unit: str = "") -> str:
    """A number with an SI prefix: 12_345_678 -> "12.35 M"."""
    for scale, prefix in _SI_PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.2f} {prefix}{unit}"
    return f"{value:.4g} {unit}".rstrip()


def format_number(value: Any) -> str:
    """A value for a table cell: thousands separators, 4 significant digits below 1000."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_number(item) for item in value)
    return str(value)


def headline_table(summary: Mapping[str, Any], title: str | None = None) -> Table:
    """The key figures of a run summary; summary.json holds every statistic."""
    s = summary
    rows = (
        ("endpoints", f"{s['endpoints']:,}"),
        (
            "simulated",
            f"{s['sim_time_ns']:,.0f} ns ({s['mode']}, {s['window_ns']:,.0f} ns measured)",
        ),
        (
            "latency mean / p50 / p99",
            f"{s['latency_ns_mean']:,.1f} / {s['latency_ns_p50']:,.1f} / "
            f"{s['latency_ns_p99']:,.1f} ns",
        ),
        ("offered load", f"{s['offered_load']:.3f} ({s['offered_gbytes_per_s']:.2f} GB/s each)"),
        (
            "accepted load",
            f"{s['accepted_load']:.3f} ({s['accepted_gbytes_per_s']:.2f} GB/s each)",
        ),
        ("hops mean", f"{s['hops_mean']:.2f}"),
        ("link utilisation mean / max", f"{s['link_util_mean']:.1%} / {s['link_util_max']:.1%}"),
        (
            "Little's law",
            f"{s['in_flight_packets_mean']:,.1f} packets in flight vs "
            f"{s['littles_law_packets']:,.1f} = throughput x latency "
            f"({s['littles_law_error']:.1%} apart)",
        ),
        ("events", f"{s['events']:,} ({format_si(s['events_per_s'], '/s')})"),
        ("packet-hops", f"{s['packet_hops']:,} ({format_si(s['packet_hops_per_s'], '/s')})"),
        ("wall time", f"{s['wall_s']:.2f} s"),
    )
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    for label, value in rows:
        table.add_row(label, value)
    return table
