"""Rich rendering of results for the terminal."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rich.table import Table

_SI_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def format_si(value: float, unit: str = "") -> str:
    """A number with an SI prefix: 12_345_678 -> "12.35 M"."""
    for scale, prefix in _SI_PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.2f} {prefix}{unit}"
    return f"{value:.4g} {unit}".rstrip()


def format_statistic(name: str, value: Any) -> str:
    """A summary value for display; rates (names ending in "_per_s") get an SI prefix."""
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if name.endswith("_per_s"):
            return format_si(value, "/s")
        return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_statistic(name, item) for item in value)
    return str(value)


def _flatten(summary: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for name, value in summary.items():
        if isinstance(value, Mapping):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def summary_table(summary: Mapping[str, Any], title: str | None = None) -> Table:
    """A two-column table of every summary statistic, named as in summary.json (units in names)."""
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for name, value in _flatten(summary):
        table.add_row(name, format_statistic(name, value))
    return table
