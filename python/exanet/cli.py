"""The `exanet` command line."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer
from rich.console import Console
from rich.table import Table

import exanet
from exanet import api, cli_data, cli_import, cli_project, cli_validate, distributed
from exanet.bug_report import write_bug_report
from exanet.cli_topo import app as topo_app
from exanet.config import Config, load
from exanet.display import format_number, headline_table, jobs_table, steady_state_note
from exanet.errors import DeadlockError, DistributedError, ExanetError, InternalError
from exanet.exit_codes import EXIT_DEADLOCK, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_INVALID
from exanet.progress import activity
from exanet.result import undrained
from exanet.sweep import command as sweep_command
from exanet.units import format_bandwidth_bytes_per_s, format_size_bytes, format_time_ps

DEMO_CONFIG: dict[str, Any] = {
    "topology": {"kind": "torus", "dims": [8, 8]},
    "routing": {"kind": "dor"},
    "router": {"vcs": 2},
    "traffic": {"pattern": "uniform", "process": "bernoulli", "packet": "256B", "load": 0.1},
    "run": {"warmup": "2us", "measure": "10us"},
}
DEMO_LOADS = (0.1, 0.3, 0.5, 0.7, 0.9)
DEMO_COLUMNS = (  # (header, summary statistic, format)
    ("offered load", "offered_load", ".3f"),
    ("accepted load", "accepted_load", ".3f"),
    ("latency mean (ns)", "latency_ns_mean", ",.1f"),
    ("latency p99 (ns)", "latency_ns_p99", ",.1f"),
    ("mean hops", "hops_mean", ".2f"),
)

stdout = Console()
stderr = Console(stderr=True)

app = typer.Typer(
    name="exanet",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(topo_app, name="topo")

P = ParamSpec("P")


def reporting_errors(command: Callable[P, None]) -> Callable[P, None]:
    """Turn every failure of `command` into a short message on stderr and an exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except DeadlockError as exc:
            _print_error(exc.format_report())
            raise typer.Exit(EXIT_DEADLOCK) from None
        except DistributedError as exc:
            _print_error(f"error: process {distributed.rank()}: {exc}")
            # The other processes may wait in a collective this one will never join.
            distributed.abort(EXIT_INVALID)
            raise typer.Exit(EXIT_INVALID) from None
        except InternalError as exc:
            _report_bug(exc, kwargs)
            raise typer.Exit(EXIT_INTERNAL) from None
        except ExanetError as exc:
            _print_error(f"error: {exc}")
            raise typer.Exit(EXIT_INVALID) from None
        except KeyboardInterrupt:
            _print_error("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:
            _report_bug(exc, kwargs)
            raise typer.Exit(EXIT_INTERNAL) from None

    return wrapper


def _report_bug(error: Exception, arguments: dict[str, Any]) -> None:
    """One line for a failure of exanet itself (a core panic or a Python exception that is
    not an ExanetError), and a bug report next to the command's output."""
    # Commands name their config file `config` (sweeps: `spec`) and their output directory
    # `output`; outputs that are files (a report, a drawing) have other names.
    config_file = next(
        (arguments[k] for k in ("config", "spec") if isinstance(arguments.get(k), Path)), None
    )
    output = arguments.get("output")
    directory = output if isinstance(output, Path) else Path.cwd()
    core_config = error.config if isinstance(error, InternalError) else None
    what = str(error) if isinstance(error, InternalError) else f"{type(error).__name__}: {error}"
    report = write_bug_report(directory, error, config_file, core_config)
    where = (
        f"please report it with {report}, which holds the command, the config and the error"
        if report
        else "please report it with this command and its config"
    )
    _print_error(f"internal error (a bug in exanet {exanet.__version__}): {what}; {where}")


def _print_error(text: str) -> None:
    stderr.print(text, style="red", markup=False, highlight=False, soft_wrap=True)


ConfigArgument = Annotated[
    Path, typer.Argument(help="TOML config file.", show_default=False, metavar="CONFIG")
]
OverridesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="Override a config key, e.g. --set traffic.load=0.3 or --set "
        "topology.dims=[16,16]. Repeatable.",
        show_default=False,
    ),
]


def _print_version(value: bool) -> None:
    if value:
        stdout.print(f"exanet {exanet.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """exanet: packet-level interconnection-network simulator for HPC and AI systems.

    Exit codes: 0 success, 2 invalid input, 3 deadlock, 70 internal error (a bug in exanet:
    it writes exanet-bug-report.json), 130 interrupted.
    """


@app.command()
@reporting_errors
def run(
    config: ConfigArgument,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Directory for summary.json, config.json, endpoints.parquet and links.parquet "
            "(default: exanet-out/NAME for CONFIG NAME.toml).",
            show_default=False,
        ),
    ] = None,
    overrides: OverridesOption = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            "-j",
            help="Workers of the parallel engine (same as --set threads=N); the results do "
            "not depend on it.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Show no progress and no summary.")
    ] = False,
) -> None:
    """Simulate CONFIG, write its results and print a summary."""
    settings = list(overrides or ())
    if threads is not None:
        settings.append(f"threads={threads}")
    loaded = load(config, settings)
    outdir = output or Path("exanet-out") / config.stem
    # Checked before the simulation rather than after it. The other processes of a run across
    # processes take the first's verdict, else they would wait in the simulation forever.
    from exanet.result import check_output_directory

    problem = None
    if distributed.rank() == 0:
        try:
            check_output_directory(outdir, "--output")
        except ExanetError as exc:
            problem = exc
    if (comm := distributed.world()) is not None:
        problem = comm.bcast(problem, root=0)
    if problem is not None:
        raise problem
    result = api.simulate(loaded, progress=False if quiet else None)
    result.write(outdir)  # every process of a run across processes: the first writes
    if distributed.rank() != 0:
        return
    if quiet:
        return
    note = steady_state_note(result.summary)
    if note is not None:
        stdout.print(note, style="bold yellow", markup=False, highlight=False, soft_wrap=True)
    stdout.print(headline_table(result.summary, title=f"exanet run {config.name}"))
    if len(result.jobs):
        stdout.print(jobs_table(result.jobs))
    if note is None and undrained(result.summary, result.config.run):
        stderr.print(
            "warning: the network did not drain within run.drain_limit; packets still in "
            "flight are missing from the latency statistics",
            style="yellow",
        )
    stdout.print(f"all {len(result.summary)} statistics and the tables are in {outdir}")


@app.command()
@reporting_errors
def demo() -> None:
    """Sweep the offered load of a small torus and print how latency and throughput respond.

    The system: an 8x8 torus with 2 VCs, dimension-order routing, uniform Bernoulli traffic and
    256 B packets. Takes a few seconds.
    """
    stdout.print(_describe(load(DEMO_CONFIG)))
    table = Table(title="exanet demo: load sweep", header_style="bold")
    table.add_column("load", justify="right")
    for header, _, _ in DEMO_COLUMNS:
        table.add_column(header, justify="right")
    with stdout.status("simulating") as status:
        for load_fraction in DEMO_LOADS:
            status.update(f"simulating load {load_fraction}")
            config = load(DEMO_CONFIG, [f"traffic.load={load_fraction}"])
            summary = api.simulate(config, progress=False).summary
            table.add_row(
                f"{load_fraction}",
                *(format(summary[name], spec) for _, name, spec in DEMO_COLUMNS),
            )
    stdout.print(table)


def _describe(config: Config) -> str:
    topology, traffic, run = config.topology, config.traffic, config.run
    return (
        f"{'x'.join(map(str, topology.dims))} {topology.kind}, {config.router.vcs} VCs, "
        f"{config.routing.kind} routing, {traffic.pattern} {traffic.process} traffic, "
        f"{format_size_bytes(traffic.packet)} packets, "
        f"{format_bandwidth_bytes_per_s(config.links.bandwidth)} links; "
        f"{format_time_ps(run.warmup)} warm-up, {format_time_ps(run.measure)} measured"
    )


@app.command("validate")
@reporting_errors
def validate_config(
    config: ConfigArgument,
    overrides: OverridesOption = None,
    threads: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Also show how the parallel engine would split the network over this many "
            "threads: balance, cut links and lookahead.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Check CONFIG and print the structure of its network, without simulating."""
    loaded = load(config, overrides or ())
    structure = activity("validate", lambda: api.validate(loaded))
    table = Table(title=f"{config.name} is valid", header_style="bold")
    table.add_column("property")
    table.add_column("value", justify="right")
    for name, value in structure.items():
        table.add_row(name, format_number(value))
    if threads is not None:
        split = activity("partition", lambda: api.partition(loaded, threads))
        endpoints = split["endpoints_per_part"]
        lookahead = split["lookahead_ps"]
        table.add_row(f"partition ({threads} threads)", split["method"])
        table.add_row("endpoints per part min / max", f"{min(endpoints):,} / {max(endpoints):,}")
        table.add_row("cut links", format_number(split["cut_links"]))
        table.add_row("lookahead (window)", "-" if lookahead is None else format_time_ps(lookahead))
    stdout.print(table)


check_app = typer.Typer(help="Checks that need no simulation.", no_args_is_help=True)
app.add_typer(check_app, name="check")


@check_app.command("routing")
@reporting_errors
def check_routing(
    config: ConfigArgument,
    overrides: OverridesOption = None,
    sources: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="follow routes from this many evenly spaced source routers (default: every "
            "one, or as many as the work budget allows on large networks)",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Prove CONFIG's routing deadlock-free: build its channel-dependency graph and look for a
    cycle. Exits 0 when acyclic, 3 with the cycle printed when not."""
    loaded = load(config, overrides or ())
    reached: dict[str, Any] = {}
    result = activity(
        "check routing",
        lambda: api.check_routing(loaded, sources=sources, progress=reached.update),
        detail=lambda: (
            f"{reached['destinations_done']:,} of {reached['destinations_total']:,} "
            "destination routers"
            if reached
            else ""
        ),
    )
    draws = result["draws_per_pair"]
    followed = (
        f"every one of {result['sources_total']:,} source routers followed"
        if result["exhaustive"]
        else f"sampled {result['sources_followed']:,} of {result['sources_total']:,} source routers"
    )
    if as_json:
        stdout.print_json(data=result)
    elif result["acyclic"]:
        stdout.print(
            f"acyclic ({result['scope']}): {result['channels']:,} channels, "
            f"{result['dependencies']:,} dependencies over {result['pairs']:,} "
            f"source-destination pairs x {draws} random draw{'' if draws == 1 else 's'}; "
            f"{followed}"
        )
    else:
        stdout.print(
            f"cycle of {len(result['cycle'])} channels ({result['scope']}; {followed}; each "
            "waits for the next):"
        )
        for channel in result["cycle"]:
            stdout.print(f"  {channel['name']}")
    if not result["acyclic"]:
        raise typer.Exit(EXIT_DEADLOCK)


@app.command()
@reporting_errors
def report(
    results: Annotated[
        Path,
        typer.Argument(
            help="A run directory (exanet run) or a sweep output directory (exanet sweep).",
            show_default=False,
        ),
    ],
    page: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="HTML file to write (default: RESULTS/report.html).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML report (plots, tables, config) of RESULTS."""

    def write() -> Path:
        from exanet.report import write_report  # matplotlib loads only for this command

        return write_report(results, page)

    stdout.print(f"report written to {activity('report', write)}")


import_app = typer.Typer(
    help="Convert the experiments of other simulators into exanet configs.", no_args_is_help=True
)
app.add_typer(import_app, name="import")
import_app.command("booksim")(reporting_errors(cli_import.booksim))

app.command("sweep")(reporting_errors(sweep_command.sweep))
app.command("saturation")(reporting_errors(sweep_command.saturation))
app.command("compare")(reporting_errors(cli_data.compare))
app.command("project")(reporting_errors(cli_project.project))
app.command("schema")(reporting_errors(cli_data.schema))
app.command("validate-model")(reporting_errors(cli_validate.validate_model))


def main() -> None:
    """Entry point of the `exanet` command."""
    app()
