"""The `exanet sweep` and `exanet saturation` commands (registered in exanet.cli)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from exanet.config import load
from exanet.result import check_output_directory
from exanet.sweep.runner import Sweep
from exanet.sweep.saturation import saturation as find_saturation

MAX_ERROR_CHARS = 160
"""Failure messages are cut in the table; the dataset's error column has them whole."""

stdout = Console()
stderr = Console(stderr=True)


class ExecutorChoice(StrEnum):
    local = "local"
    submitit = "submitit"
    dask = "dask"


def sweep(
    spec: Annotated[
        Path,
        typer.Argument(help="TOML config file with a \\[sweep] section.", metavar="SWEEP"),
    ],
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Points run at once (default: every core)."),
    ] = None,
    executor: Annotated[
        ExecutorChoice, typer.Option(help="Where points run: a local process pool, Slurm or dask.")
    ] = ExecutorChoice.local,
    output: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Output directory (default: exanet-out/NAME for SWEEP NAME.toml)."
        ),
    ] = None,
    address: Annotated[
        str | None, typer.Option(help="dask scheduler address (default: a LocalCluster).")
    ] = None,
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a key of the base config."),
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option(help="Run again the points stored as failed.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Show no progress.")] = False,
) -> None:
    """Run every point of SWEEP not yet stored in the output directory, and write the dataset
    (points.parquet, one row per point). A failing point is recorded and the sweep goes on."""
    planned = Sweep.from_toml(spec, overrides or ())
    outdir = check_output_directory(output or Path("exanet-out") / spec.stem, "--out")
    try:
        run = planned.run(
            outdir,
            executor=executor.value,
            jobs=jobs,
            address=address,
            retry_failed=retry_failed,
            progress=False if quiet else None,
        )
    except KeyboardInterrupt:
        stderr.print(
            f"the points finished so far are stored in {outdir}; the same command resumes "
            "the sweep",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise
    failures = run.failures.drop_duplicates("key")
    stdout.print(
        f"{len(run.points)} points: {run.ran} run, {run.skipped} already stored, "
        f"{len(failures)} failed; dataset {run.path}"
    )
    if len(failures):
        table = Table(title="failed points", header_style="bold")
        table.add_column("key")
        table.add_column("error")
        for key, error in zip(failures["key"], failures["error"], strict=True):
            table.add_row(key, error[:MAX_ERROR_CHARS])
        stdout.print(table)


def saturation(
    config: Annotated[Path, typer.Argument(help="TOML config file.", metavar="CONFIG")],
    tolerance: Annotated[
        float, typer.Option(min=0.0001, help="Stop when the bracket is this narrow.")
    ] = 0.01,
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a config key."),
    ] = None,
) -> None:
    """Find the saturation load of CONFIG by bisection on traffic.load (docs/sweeps.md).

    Each probe is shown on stderr as it ends; after a Ctrl-C the probes done so far are
    printed with the bracket they leave."""
    probes: list[dict[str, Any]] = []

    def show(row: dict[str, Any], at_most: int) -> None:
        probes.append(row)
        verdict = f"saturated ({row['saturated']})" if row["saturated"] else "not saturated"
        stderr.print(
            f"probe {len(probes)} of at most {at_most}: load {row['load']:.4f}, accepted "
            f"{row['accepted_load']:.4f}, latency {row['latency_ns_mean']:,.1f} ns, {verdict}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    try:
        found = find_saturation(load(config, overrides or ()), tolerance=tolerance, on_probe=show)
    except KeyboardInterrupt:
        if probes:
            stdout.print(pd.DataFrame(probes).to_string(index=False))
            stdout.print(_bracket(probes))
        raise
    stdout.print(found.probes.to_string(index=False))
    upper = "not reached" if found.upper is None else f"{found.upper:.4f}"
    stdout.print(f"saturation load: {found.load:.4f} (first saturated probe: {upper})")


def _bracket(probes: list[dict[str, Any]]) -> str:
    """Where an interrupted search had got: the highest load that did not saturate and the
    lowest that did."""
    stable = [row["load"] for row in probes if not row["saturated"]]
    saturated = [row["load"] for row in probes if row["saturated"]]
    found = ([f"highest load not saturated {max(stable):.4f}"] if stable else []) + (
        [f"lowest saturated {min(saturated):.4f}"] if saturated else []
    )
    return f"after {len(probes)} probes: " + ", ".join(found)
