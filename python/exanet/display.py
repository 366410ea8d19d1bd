"""Rich rendering of results for the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from exanet.result import accepted_short

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


def _workload_rows(s: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Rows of burst-synchronized, message-passing and closed-loop threads runs."""
    if "bursts" in s:
        return (
            (
                "time per burst min / mean / max",
                f"{s['burst_time_ns_min']:,.0f} / {s['burst_time_ns_mean']:,.0f} / "
                f"{s['burst_time_ns_max']:,.0f} ns ({s['bursts']} bursts)",
            ),
            ("burst throughput", f"{s['burst_throughput_packets_per_ns']:.4g} packets/ns"),
        )
    if "jobs" in s:
        return (
            (
                "jobs: last finished at",
                f"{s['jobs_completion_ns_max']:,.0f} ns ({s['jobs']} jobs)",
            ),
            (
                "messages / bytes sent",
                f"{s['messages_sent']:,} / {format_si(s['bytes_sent'], 'B')}",
            ),
            ("communication rate", f"{s['communication_rate_gbytes_per_s']:.3f} GB/s"),
        )
    if "requests_served" in s:
        return (
            (
                "threads: operations done at",
                f"{s['completion_ns']:,.0f} ns ({s['operations']:,} operations, "
                f"{s['operations_per_us_per_endpoint']:.4g} per us per endpoint)",
            ),
            (
                "operation latency mean / p50 / p99",
                f"{s['operation_latency_ns_mean']:,.1f} / {s['operation_latency_ns_p50']:,.1f} / "
                f"{s['operation_latency_ns_p99']:,.1f} ns",
            ),
            (
                "lanes busy / threads waiting",
                f"{s['lane_busy_fraction']:.1%} / {s['threads_waiting_mean']:.3g} per lane",
            ),
        )
    return ()


def steady_state_note(summary: Mapping[str, Any]) -> str | None:
    """A plain-words line for a run of synthetic traffic that is not in steady state (summary
    key `steady_state` false): it ran past saturation, or did not drain."""
    if summary.get("steady_state", True):
        return None
    if accepted_short(summary):
        return (
            f"saturated: accepted {summary['accepted_load']:.3f} of "
            f"{summary['offered_load']:.3f} offered; latency is not steady-state"
        )
    missing = summary["packets_measured"] - summary["packets_measured_delivered"]
    return (
        f"not steady-state: {missing:,} of {summary['packets_measured']:,} measured packets had "
        "not arrived when the drain stopped at run.drain_limit; their latency is missing"
    )


def headline_table(summary: Mapping[str, Any], title: str | None = None) -> Table:
    """The key figures of a run summary; summary.json holds every statistic."""
    s = summary
    planes = s.get("planes", 1)
    endpoints = f"{s['endpoints']:,}"
    if planes > 1:
        endpoints += (
            f" nodes x {planes} NIC ports (plane packets {s['plane_packets_injected_min']:,} to "
            f"{s['plane_packets_injected_max']:,})"
        )
    rows = (
        ("endpoints", endpoints),
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
        (
            "accepted packets",
            f"{s['accepted_packets_per_ns']:.4g} per ns each, {s['packet_bytes_mean']:.1f} B mean",
        ),
        ("hops mean", f"{s['hops_mean']:.2f}"),
        ("link utilisation mean / max", f"{s['link_util_mean']:.1%} / {s['link_util_max']:.1%}"),
        (
            "Little's law",
            f"{s['in_flight_packets_mean']:,.1f} packets in flight vs "
            f"{s['littles_law_packets']:,.1f} = throughput x latency "
            f"({s['littles_law_error']:.1%} apart)",
        ),
        *_workload_rows(s),
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


#: Columns of the per-job table: (header, column, format).
_JOB_COLUMNS = (
    ("job", "name", "{}"),
    ("app", "app", "{}"),
    ("ranks", "ranks", "{:,}"),
    ("completion ns", "completion_ns", "{:,.0f}"),
    ("GB/s", "communication_rate_gbytes_per_s", "{:.3f}"),
    ("vs ideal", "slowdown_vs_ideal", "{:.2f}x"),
    ("vs alone", "slowdown_vs_alone", "{:.2f}x"),
)


def jobs_table(jobs: Any) -> Table:
    """One row per message-passing job (a `Result.jobs` DataFrame); NaN shows as "-"."""
    table = Table(title="jobs", header_style="bold")
    for header, _, _ in _JOB_COLUMNS:
        table.add_column(header, justify="right")
    for row in jobs.to_dict(orient="records"):
        table.add_row(
            *(
                "-" if isinstance(row[c], float) and row[c] != row[c] else spec.format(row[c])
                for _, c, spec in _JOB_COLUMNS
            )
        )
    return table
