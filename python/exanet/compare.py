"""`exanet compare`: runs or sweeps side by side, the first as the reference.

Runs: one column per run and one row per key figure with its unit, and a ratio column of
every other run to the first. Sweeps: per sweep its point counts, highest accepted load and
lowest-load latency; and latency-vs-load curves of every sweep overlaid in one figure.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from rich.table import Table

from exanet.display import format_number
from exanet.errors import ConfigError
from exanet.result import write_files
from exanet.stored import StoredResult, StoredSweep
from exanet.stored import open as open_results
from exanet.summaries import axis_columns, is_shown, key_metrics

LOAD_AXIS = "traffic.load"
"""The sweep axis whose values the latency curves follow."""


def open_all(paths: Sequence[str | os.PathLike[str]]) -> list[StoredResult] | list[StoredSweep]:
    """Every directory of `paths` read back, all runs or all sweeps (ConfigError otherwise)."""
    if len(paths) < 2:
        raise ConfigError("DIRS", " ".join(map(str, paths)) or "(none)", "two directories or more")
    try:
        opened = [open_results(path) for path in paths]
    except ConfigError as error:
        raise ConfigError("DIRS", error.value, error.expected) from None
    kinds = {type(item) for item in opened}
    if len(kinds) > 1:
        listed = ", ".join(
            f"{p} ({'sweep' if isinstance(o, StoredSweep) else 'run'})"
            for p, o in zip(paths, opened, strict=True)
        )
        raise ConfigError("DIRS", listed, "all run directories or all sweep directories")
    return opened  # type: ignore[return-value]


def labels(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """A short name per directory: its own name, or the whole path when two names clash."""
    names = [Path(path).resolve().name for path in paths]
    if len(set(names)) == len(names):
        return names
    return [str(path) for path in paths]


def ratio(value: Any, reference: Any) -> str:
    """`value / reference` as "1.23x"; "-" where either is not a number or the reference 0."""
    numbers = [v for v in (value, reference) if is_shown(v) and not isinstance(v, bool)]
    if len(numbers) < 2 or reference == 0:
        return "-"
    return f"{value / reference:.3g}x"


def runs_table(runs: Sequence[StoredResult], names: Sequence[str]) -> Table:
    """Key figures of `runs` side by side, with ratios to the first run."""
    table = Table(header_style="bold")
    table.add_column("metric", style="bold")
    table.add_column("unit")
    for name in names:
        table.add_column(name, justify="right")
    for name in names[1:]:
        table.add_column(f"{name} / {names[0]}", justify="right")
    summaries = [run.summary for run in runs]
    for label, key, unit in key_metrics(summaries):
        values = [summary.get(key) for summary in summaries]
        cells = ["-" if not is_shown(v) else format_number(v) for v in values]
        table.add_row(label, unit, *cells, *(ratio(v, values[0]) for v in values[1:]))
    return table


def sweep_figures(points: pd.DataFrame) -> dict[str, Any]:
    """A sweep's counts and headline numbers: ok points, highest accepted load, and mean
    latency at its lowest offered load (NaN when no point is ok)."""
    ok = points[points["status"] == "ok"] if len(points) else points
    has_load = len(ok) and "offered_load" in ok.columns
    lowest = ok.loc[ok["offered_load"].idxmin()] if has_load else None
    return {
        "points": len(points),
        "ok points": len(ok),
        "accepted load max": float(ok["accepted_load"].max()) if has_load else math.nan,
        "latency mean at lowest load (ns)": (
            float(lowest["latency_ns_mean"]) if lowest is not None else math.nan
        ),
    }


def sweeps_table(sweeps: Sequence[StoredSweep], names: Sequence[str]) -> Table:
    """Headline numbers of `sweeps` side by side, with ratios to the first sweep."""
    figures = [sweep_figures(sweep.points) for sweep in sweeps]
    table = Table(header_style="bold")
    table.add_column("", style="bold")
    for name in names:
        table.add_column(name, justify="right")
    for name in names[1:]:
        table.add_column(f"{name} / {names[0]}", justify="right")
    for row in figures[0]:
        values = [figure[row] for figure in figures]
        cells = [format_number(v) if is_shown(v) else "-" for v in values]
        table.add_row(row, *cells, *(ratio(v, values[0]) for v in values[1:]))
    return table


def latency_curves(points: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """A sweep's latency-vs-load curves: one per combination of its axes other than the load
    axis, each with columns offered_load, latency_ns_mean and steady, repetitions
    averaged, sorted by load. Empty without ok points or a load axis."""
    if LOAD_AXIS not in points.columns or "latency_ns_mean" not in points.columns:
        return []
    ok = points[points["status"] == "ok"]
    others = [axis for axis in axis_columns(points) if axis != LOAD_AXIS]
    # steady_state: accepted what was offered and drained (runs of synthetic traffic)
    flag = next((c for c in ("steady_state", "drained") if c in ok.columns), None)
    steady = ok[flag].astype(bool) if flag else True
    ok = ok.assign(steady=steady, **{axis: ok[axis].astype(str) for axis in others})
    groups = ok.groupby(others, sort=True) if others else [((), ok)]
    curves = []
    for values, group in groups:
        curve = group.groupby(LOAD_AXIS).agg(
            offered_load=("offered_load", "mean"),
            latency_ns_mean=("latency_ns_mean", "mean"),
            steady=("steady", "all"),
        )
        values = values if isinstance(values, tuple) else (values,)
        label = ", ".join(f"{axis}={value}" for axis, value in zip(others, values, strict=True))
        curves.append((label, curve.sort_values("offered_load")))
    return curves


def plot_sweeps(sweeps: Sequence[StoredSweep], names: Sequence[str], output: Path) -> Path:
    """Overlay the latency-vs-load curves of `sweeps` in one PNG at `output`; points not in
    steady state (saturated or undrained) are hollow. Raises ConfigError naming --output when
    no sweep has a curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = [
        (name if not label else f"{name}: {label}", curve)
        for sweep, name in zip(sweeps, names, strict=True)
        for label, curve in latency_curves(sweep.points)
    ]
    if not curves:
        raise ConfigError(
            "--output",
            str(output),
            f"sweeps with a {LOAD_AXIS} axis and ok points, to draw latency against load",
        )
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=150, layout="constrained")
    for label, curve in curves:
        (line,) = axes.plot(curve["offered_load"], curve["latency_ns_mean"], "-", label=label)
        for steady, marker_face in ((True, line.get_color()), (False, "none")):
            part = curve[curve["steady"] == steady]
            axes.plot(
                part["offered_load"],
                part["latency_ns_mean"],
                "o",
                color=line.get_color(),
                markerfacecolor=marker_face,
            )
    axes.set_yscale("log")
    axes.set_xlabel("offered load (fraction of injection bandwidth)")
    axes.set_ylabel("mean packet latency (ns)")
    axes.set_title("latency vs load (hollow: not steady state, saturated or undrained)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small")
    try:
        write_files(output.parent, {output.name: lambda file: figure.savefig(file, format="png")})
    finally:
        plt.close(figure)
    return output
