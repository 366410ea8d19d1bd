"""The `exanet schema` and `exanet compare` commands (registered in exanet.cli)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from exanet.errors import ConfigError
from exanet.result import json_writer, write_files

stdout = Console()


def schema(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="JSON file to write (default: print it).", show_default=False
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of a config file, for editors that validate and complete TOML or
    JSON configs (README, Editor support)."""
    from exanet.config import json_schema

    document = json_schema()
    if output is None:
        print(json.dumps(document, indent=2))
        return
    write_files(output.parent, {output.name: json_writer(document)})
    stdout.print(f"schema written to {output}")


def compare(
    directories: Annotated[
        list[Path],
        typer.Argument(
            help="Two or more run directories (exanet run -o) or sweep directories (exanet "
            "sweep --out); the first is the reference.",
            show_default=False,
            metavar="DIRS...",
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="PNG file for the overlaid latency-vs-load curves of sweeps.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Compare runs or sweeps side by side: key figures with units and the ratio of each to
    the first; for sweeps, latency-vs-load curves overlaid in one figure (--output)."""
    from exanet import compare as comparing  # pandas and matplotlib load only for this command
    from exanet.stored import StoredResult

    opened = comparing.open_all(directories)
    names = comparing.labels(directories)
    if isinstance(opened[0], StoredResult):
        if output is not None:
            raise ConfigError(
                "--output", str(output), "sweep directories: runs have no curves to draw"
            )
        stdout.print(comparing.runs_table(opened, names))
        return
    stdout.print(comparing.sweeps_table(opened, names))
    if output is None:
        stdout.print("latency-vs-load curves: give --output FILE.png")
    else:
        stdout.print(f"curves written to {comparing.plot_sweeps(opened, names, output)}")
