"""The `exanet validate-model` command (registered in exanet.cli): the validation suite of
exanet.validation, as a table (docs/validation.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from exanet.validation import Outcome

stdout = Console()


def _number(value: float) -> str:
    """Six significant digits, thousands separated."""
    return f"{value:,.6g}"


def validate_model(
    full: Annotated[
        bool, typer.Option("--full", help="Run every case (minutes), not only the short set.")
    ] = False,
    case: Annotated[
        list[str] | None,
        typer.Option(
            "--case",
            help="Run this case (repeatable); overrides --full. --list shows the names.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the outcomes as JSON instead of a table.")
    ] = False,
    list_cases: Annotated[
        bool, typer.Option("--list", help="List the cases and their references; run nothing.")
    ] = False,
) -> None:
    """Compare exanet against independent references (closed forms, exact channel loads,
    Little's law, published tables) case by case; exits with 1 when a case is outside its
    tolerance."""
    from exanet import validation

    if list_cases:
        table = Table("case", "group", "short", "reference", header_style="bold")
        for c in validation.CASES.values():
            table.add_row(c.name, c.group, "yes" if c.short else "", c.reference)
        stdout.print(table)
        return
    cases = validation.select(case, full)
    if as_json:
        outcomes = validation.run_cases(case, full)
        print(json.dumps(validation.to_json(outcomes), indent=2))
    else:
        table = Table(
            "case",
            "quantity",
            "reference",
            "exanet",
            "error",
            "tolerance",
            "ok",
            header_style="bold",
        )
        with stdout.status(f"running {len(cases)} validation cases") as status:

            def show(outcome: validation.Outcome) -> None:
                status.update(f"ran {outcome.case.name} ({outcome.seconds:.1f} s)")

            outcomes = validation.run_cases(case, full, on_done=show)
        for outcome in outcomes:
            _add_rows(table, outcome)
        stdout.print(table)
        failed = [o.case.name for o in outcomes if not o.passed]
        seconds = sum(o.seconds for o in outcomes)
        stdout.print(
            f"{len(outcomes) - len(failed)} of {len(outcomes)} cases passed in {seconds:.1f} s"
            + (f"; failed: {', '.join(failed)}" if failed else "")
        )
    if any(not o.passed for o in outcomes):
        raise typer.Exit(1)


def _add_rows(table: Table, outcome: Outcome) -> None:
    """One row per check of `outcome` (one row with the error when the case could not run)."""
    name = f"{outcome.case.name} ({outcome.seconds:.1f} s)"
    if outcome.error:
        table.add_row(
            name, "[red]could not run[/red]", "", "", outcome.error, "", "[red]FAIL[/red]"
        )
        return
    for i, check in enumerate(outcome.checks):
        if check.mode == "absolute":
            error, tolerance = _number(check.error), f"± {_number(check.tolerance)}"
        else:
            error = f"{check.error:+.2%}"
            sign = {"at_most": "<= +", "at_least": ">= -"}.get(check.mode, "± ")
            tolerance = f"{sign}{check.tolerance:.2%}"
        table.add_row(
            name if i == 0 else "",
            check.quantity,
            _number(check.reference),
            _number(check.exanet),
            error,
            tolerance,
            "ok" if check.passed else "[red]FAIL[/red]",
        )
