"""`exanet import`: experiments of other simulators as exanet configs (registered in
exanet.cli)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from exanet.booksim_import import DEFAULT_CYCLE, DEFAULT_FLIT, import_booksim
from exanet.config import apply_overrides, load
from exanet.result import write_files

stdout = Console()
stderr = Console(stderr=True)


def booksim(
    config: Annotated[
        Path,
        typer.Argument(
            help="BookSim 2 config file ('key = value;' lines, '//' comments).",
            metavar="BOOKSIM_CONFIG",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="TOML file to write (default: print it).", show_default=False
        ),
    ] = None,
    cycle: Annotated[
        str, typer.Option(help="Length of one BookSim cycle: link latencies, router delays, run.")
    ] = DEFAULT_CYCLE,
    flit: Annotated[
        str,
        typer.Option(
            help="Width of one BookSim flit: packet size, VC buffers; links carry one flit per "
            "cycle."
        ),
    ] = DEFAULT_FLIT,
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="Set an exanet key in the result, e.g. --set router.vcs=4. Repeatable.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Convert a BookSim 2 config into an exanet config: topology, routing, router, traffic and
    run windows. Keys with no exanet meaning are listed as warnings (and in the file's header);
    a topology, routing function or traffic pattern exanet lacks is an error. The result is
    checked as exanet would load it (docs/configuration.md, Importing a BookSim experiment)."""
    imported = import_booksim(config, cycle, flit)
    raw = apply_overrides(imported.config, overrides or ())
    load(raw)
    for warning in imported.warnings:
        stderr.print(f"warning: {warning}", style="yellow", markup=False, highlight=False)
    text = dataclasses.replace(imported, config=raw).to_toml()
    if output is None:
        print(text, end="")
        return
    write_files(output.parent, {output.name: lambda file: file.write(text.encode())})
    stdout.print(f"exanet config written to {output} ({len(imported.warnings)} warnings)")
