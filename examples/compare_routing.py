"""Shared by the routing examples: run a grid of (pattern, offered load) x routing columns
and print accepted load / mean latency (us) / mean hops in one table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from example_scale import sized
from rich.console import Console
from rich.table import Table

import exanet

RUN = sized(
    {"warmup": "10us", "measure": "40us", "drain": "none"},
    {"warmup": "1us", "measure": "2us", "drain": "none"},
)


def network_config(
    topology: dict[str, Any],
    routing: dict[str, Any],
    router: dict[str, Any],
    pattern: str,
    load: float,
) -> dict[str, Any]:
    """A config of 256 B packets under `pattern` at `load`, measured over RUN."""
    return {
        "topology": topology,
        "routing": routing,
        "router": router,
        "traffic": {"pattern": pattern, "load": load, "packet": "256B"},
        "run": RUN,
    }


def cell(summary: dict[str, Any]) -> str:
    """Accepted load / mean latency in microseconds / mean hops."""
    latency_us = summary["latency_ns_mean"] / 1000
    return f"{summary['accepted_load']:.3f} / {latency_us:.2f} / {summary['hops_mean']:.1f}"


def print_comparison(
    title: str,
    columns: Mapping[str, Callable[[str, float], dict[str, Any]]],
    loads: Mapping[str, Sequence[float]],
) -> None:
    """One row per (pattern, load), one column per routing: `columns[name](pattern, load)`
    gives that cell's config."""
    table = Table(
        title=f"{title}\naccepted load (fraction of injection bandwidth) / mean latency (us) "
        "/ mean hops",
        header_style="bold",
    )
    table.add_column("pattern")
    table.add_column("offered", justify="right")
    for name in columns:
        table.add_column(name, justify="right")
    for pattern, pattern_loads in loads.items():
        for load in pattern_loads:
            cells = [
                cell(exanet.simulate(make(pattern, load), progress=False).summary)
                for make in columns.values()
            ]
            table.add_row(pattern, f"{load:.1f}", *cells)
        table.add_section()
    Console(width=120).print(table)
