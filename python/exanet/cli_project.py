"""The `exanet project` command (registered in exanet.cli): recorded injection timelines
projected to a larger system, seed 000 §6.1.3 (exanet.analysis.project_timeline)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from exanet.errors import ConfigError
from exanet.units import QuantityError, format_time_ps, parse_bandwidth_bytes_per_s, parse_time_ps

stdout = Console()


def _recorded_bin_ps(run: Any) -> int:
    """The run's record.injection_bin in ps; ConfigError when it recorded no series."""
    bin_ps = run.config.get("record", {}).get("injection_bin_ps", 0)
    if not bin_ps or run.injection_series.empty:
        raise ConfigError(
            "record.injection_bin",
            f"unset in {run.path}",
            'a bin width such as "50ns" in the run\'s [record], so that it records '
            "an injection_series",
        )
    return int(bin_ps)


def _bin_ps(runs: list[Any], rebin: str | None) -> int:
    """The bin width the timelines use: --bin (a multiple of every recorded bin) or the
    recorded bin, which must then be the same in every run."""
    recorded = [_recorded_bin_ps(run) for run in runs]
    shown = ", ".join(
        f"{format_time_ps(b)} in {run.path}" for b, run in zip(recorded, runs, strict=True)
    )
    if rebin is None:
        if len(set(recorded)) > 1:
            raise ConfigError(
                "record.injection_bin",
                shown,
                "the same bin in every run, or --bin a multiple of each",
            )
        return recorded[0]
    try:
        bin_ps = parse_time_ps(rebin)
    except QuantityError as error:
        raise ConfigError("--bin", repr(rebin), error.expected) from None
    if bin_ps == 0 or any(bin_ps % b for b in recorded):
        raise ConfigError("--bin", repr(rebin), f"a multiple of every recorded bin ({shown})")
    return bin_ps


def _cap_gbytes_per_s(cap: str | None) -> float | None:
    if cap is None:
        return None
    try:
        bytes_per_s = parse_bandwidth_bytes_per_s(cap)
    except QuantityError as error:
        raise ConfigError("--cap", repr(cap), error.expected) from None
    if bytes_per_s <= 0:
        raise ConfigError("--cap", repr(cap), 'a bandwidth per node > 0, such as "100GB/s"')
    return bytes_per_s / 1e9


def _timelines(runs: list[Any], bin_ns: float) -> dict[int, Any]:
    """{endpoints: the mean endpoint's bytes per bin over the run's window} of every run."""
    from exanet.analysis import injection_timeline_bytes

    timelines: dict[int, Any] = {}
    owner: dict[int, Path] = {}
    for run in runs:
        nodes = int(run.summary["endpoints"])
        if nodes in timelines:
            raise ConfigError(
                "RUN_DIRS",
                f"{owner[nodes]} and {run.path} both have {nodes} endpoints",
                "runs at two or more distinct endpoint counts",
            )
        series = run.injection_series
        end_ns = series["bin_start_ns"].min() + run.summary["window_ns"]
        timelines[nodes] = injection_timeline_bytes(series, bin_ns, end_ns=end_ns)
        owner[nodes] = run.path
    return timelines


def project(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Two or more run directories (exanet run -o) at different endpoint counts, "
            "each recorded with record.injection_bin.",
            show_default=False,
            metavar="RUN_DIRS...",
        ),
    ],
    nodes: Annotated[
        int,
        typer.Option(
            "--nodes",
            "-n",
            min=1,
            help="The node count to project to, e.g. 16384.",
            show_default=False,
        ),
    ],
    cap: Annotated[
        str | None,
        typer.Option(
            "--cap",
            help='Injection bandwidth cap per node, e.g. "100GB/s": adds the capped timeline '
            "(Algorithm 1), the execution time and the slowdown.",
            show_default=False,
        ),
    ] = None,
    rebin: Annotated[
        str | None,
        typer.Option(
            "--bin",
            help='Bin width, e.g. "100ns": a multiple of every run\'s record.injection_bin '
            "(default: the recorded bin, the same in every run).",
            show_default=False,
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="average: the largest run's timeline scaled by the log-log fit of the mean "
            "bandwidth (the thesis's); per_bin: a log-log fit per bin of normalized time.",
        ),
    ] = "average",
    parquet: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Parquet file for the projected timeline (bin_start_ns, bytes, "
            "injection_gbytes_per_s, with --cap capped_bytes and "
            "capped_injection_gbytes_per_s).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Project the injection timelines of runs at two or more sizes to --nodes (seed 000
    §6.1.3): duration and bandwidth fitted in log-log space; with --cap, the execution time
    under that injection bandwidth per node."""
    from exanet.analysis import project_timeline
    from exanet.result import parquet_writer, write_files
    from exanet.stored import StoredResult
    from exanet.stored import open as open_stored

    if len(runs) < 2:
        raise ConfigError(
            "RUN_DIRS", f"{len(runs)} directory", "two or more run directories to fit"
        )
    opened = [open_stored(path) for path in runs]
    for path, run in zip(runs, opened, strict=True):
        if not isinstance(run, StoredResult):
            raise ConfigError("RUN_DIRS", str(path), "run directories (exanet run -o), not sweeps")
    cap_gbytes_per_s = _cap_gbytes_per_s(cap)
    bin_ns = _bin_ps(opened, rebin) / 1000
    timelines = _timelines(opened, bin_ns)
    projection = project_timeline(timelines, bin_ns, nodes, cap_gbytes_per_s, method)

    table = Table(
        title=f"injection per node, bins of {bin_ns:g} ns, projected to {nodes:,} nodes ({method})",
        header_style="bold",
    )
    for name in ("nodes", "", "bins", "duration ns", "mean GB/s", "peak GB/s"):
        table.add_column(name, justify="right")
    for count, timeline in sorted(timelines.items()):
        rate = timeline / bin_ns
        table.add_row(
            f"{count:,}",
            "measured",
            f"{len(rate):,}",
            f"{len(rate) * bin_ns:,.0f}",
            f"{rate.mean():,.2f}",
            f"{rate.max():,.2f}",
        )
    rate = projection.timeline["injection_gbytes_per_s"].to_numpy()[
        : round(projection.program_time_ns / bin_ns)
    ]
    table.add_row(
        f"{nodes:,}",
        "projected",
        f"{len(rate):,}",
        f"{projection.program_time_ns:,.0f}",
        f"{rate.mean():,.2f}",
        f"{rate.max():,.2f}",
    )
    stdout.print(table)
    slopes = projection.bandwidth_fits["slope"]
    stdout.print(
        f"duration ~ n^{projection.duration_fit.slope:.3f}; bandwidth slopes over "
        f"{len(slopes):,} bins: min {slopes.min():.3f}, median {slopes.median():.3f}, "
        f"max {slopes.max():.3f}"
    )
    if projection.execution_time_ns is not None:
        stdout.print(
            f"cap {cap} per node: injection time {projection.injection_time_ns:,.0f} ns, "
            f"execution time {projection.execution_time_ns:,.0f} ns, slowdown "
            f"{projection.slowdown:.3f}"
        )
    if parquet is not None:
        write_files(parquet.parent, {parquet.name: parquet_writer(projection.timeline)})
        stdout.print(f"projected timeline written to {parquet}")
