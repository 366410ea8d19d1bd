"""`exanet topo`: describe and draw topologies, and search iso-constraint designs."""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer
from rich.console import Console
from rich.table import Table

from exanet._validation import format_key, format_value
from exanet.display import format_number
from exanet.errors import ConfigError
from exanet.progress import activity
from exanet.structure import DESCRIBE_GROUPS, TopologyInfo, describe_rows, json_safe, topology
from exanet.topologies import TOPOLOGY_KINDS

stdout = Console()

app = typer.Typer(
    name="topo",
    help="Describe and draw topologies; search and compare iso-constraint designs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

P = ParamSpec("P")


def reporting_errors(command: Callable[P, None]) -> Callable[P, None]:
    """`exanet.cli.reporting_errors` (imported when the command runs: exanet.cli mounts this
    sub-app, so importing it here at load time would be circular)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        from exanet.cli import reporting_errors as report

        report(command)(*args, **kwargs)

    return wrapper


SpecArgument = Annotated[
    list[str],
    typer.Argument(
        help="A TOML config (its \\[topology] and \\[links]) or a kind, then KEY=VALUE topology "
        "keys, e.g. kind=dragonfly a=4 h=2 p=2, dragonfly a=4 h=2, kind=torus dims=12,10,10, "
        "fishnet base.kind=slim_fly base.q=5. KEY=VALUE tokens after a config override its "
        "\\[topology].",
        metavar="SPEC...",
        show_default=False,
    ),
]

_KEY_RE = re.compile(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*")
SPEC_FORMAT = (
    "KEY=VALUE topology keys such as kind=dragonfly a=4 h=2 (lists as dims=12,10,10 or "
    "dims=[12,10,10], nested keys as base.q=5), optionally after one TOML config path"
)


def _parse_value(text: str) -> Any:
    """A TOML value when it is one (4, [12, 10], "x", true), a comma list of such values, or a
    bare string."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        pass
    if "," in text:
        return [_parse_value(item.strip()) for item in text.split(",") if item.strip()]
    return text


def parse_spec(tokens: Sequence[str]) -> tuple[Path | None, dict[str, Any]]:
    """Split SPEC tokens into an optional config path (first token, no '=') and a nested dict
    of topology keys."""
    path = None
    params: dict[str, Any] = {}
    for position, token in enumerate(tokens):
        key, separator, text = token.partition("=")
        key = key.strip()
        if not separator:
            if position == 0:
                path = Path(token)
                continue
            raise ConfigError("SPEC", format_value(token), SPEC_FORMAT)
        if key.startswith("topology."):
            key = key.removeprefix("topology.")
        if not _KEY_RE.fullmatch(key):
            raise ConfigError("SPEC", format_value(token), SPEC_FORMAT)
        parts = key.split(".")
        table = params
        for depth, part in enumerate(parts[:-1]):
            child = table.setdefault(part, {})
            if not isinstance(child, dict):
                raise ConfigError(
                    "topology." + format_key(parts[: depth + 1]),
                    format_value(child),
                    f"a table, since '{key}' sets a key inside it",
                )
            table = child
        table[parts[-1]] = _parse_value(text.strip())
    if path is None and not params:
        raise ConfigError("SPEC", "(missing)", SPEC_FORMAT)
    return path, params


def load_spec(tokens: Sequence[str]) -> TopologyInfo:
    """The topology SPEC tokens name; a first token that is a kind (dragonfly) stands for
    kind=dragonfly."""
    path, params = parse_spec(tokens)
    if path is not None and str(path) in TOPOLOGY_KINDS and not path.exists():
        return topology({"kind": str(path), **params})
    if path is None:
        return topology(params)
    return topology(path, **params)


# ---------------------------------------------------------------------------------------------
# describe

_LABELS = {
    "ports_used_min": "ports used min",
    "ports_used_mean": "ports used mean",
    "ports_used_max": "ports used max",
    "average_router_distance": "average router distance (hops)",
    "average_endpoint_distance": "average endpoint distance (hops)",
    "diameter": "diameter (hops)",
    "router_diameter": "router diameter (hops)",
    "bisection_gbytes_per_s": "bisection GB/s (per direction)",
    "cost": "cost (optical cables)",
    "cost_optical_links": "optical links",
    "cost_copper_links": "copper links",
}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value != value:
        return "n/a"
    return format_number(value)


def describe_table(info: Mapping[str, Any], title: str) -> Table:
    table = Table(title=title, header_style="bold")
    table.add_column("group", style="bold")
    table.add_column("figure")
    table.add_column("value", justify="right")
    last_group = None
    for group, metric, value in describe_rows(info):
        if last_group is not None and group != last_group:
            table.add_section()
        label = _LABELS.get(metric, metric.replace("_", " "))
        if metric.startswith("links_") and group == "Links":
            label = f"  {metric.removeprefix('links_')} links"
        table.add_row(group if group != last_group else "", label, _cell(value))
        last_group = group
    return table


@app.command("describe")
@reporting_errors
def describe(
    spec: SpecArgument,
    exact_limit: Annotated[
        int,
        typer.Option("--exact-limit", min=0, help="Distances are exact up to this many routers."),
    ] = 100_000,
    samples: Annotated[
        int, typer.Option(min=0, help="Sampled BFS sources beyond --exact-limit.")
    ] = 256,
    path_sources: Annotated[
        int, typer.Option("--path-sources", min=0, help="Sources for minimal-path counts.")
    ] = 32,
    partition_limit: Annotated[
        int,
        typer.Option(
            "--partition-limit", min=0, help="The bisection partitioner runs up to this size."
        ),
    ] = 5_000,
    restarts: Annotated[int, typer.Option(min=1, help="Partitioner restarts.")] = 4,
    seed: Annotated[int, typer.Option(min=0, help="Seed of sampling and partitioning.")] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
) -> None:
    """Describe a topology: size, links, distances, bisection and cost, without simulating.

    Figures without a closed form are measured: distances exactly up to --exact-limit routers
    (sampled beyond), the bisection by a graph partitioner (an upper bound on the minimum).
    """
    info = load_spec(spec)
    result = activity(
        "topo describe",
        lambda: info.describe(
            exact_limit=exact_limit,
            samples=samples,
            path_sources=path_sources,
            partition_limit=partition_limit,
            restarts=restarts,
            seed=seed,
        ),
    )
    if as_json:
        _print_json({"topology": info.topology.model_dump(exclude_none=True), **result})
        return
    stdout.print(describe_table(result, title=_spec_title(info)))


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(json_safe(data), indent=2))


def _spec_title(info: TopologyInfo) -> str:
    params = info.topology.model_dump(exclude={"kind"})
    if not isinstance(params.get("edges", ""), str):
        params["edges"] = f"<{len(params['edges'])} links>"
    shown = " ".join(f"{k}={format_value(v)}" for k, v in params.items() if v is not None)
    return f"{info.kind} {shown}"


# ---------------------------------------------------------------------------------------------
# draw


@app.command("draw")
@reporting_errors
def draw(
    spec: SpecArgument,
    image: Annotated[
        Path,
        typer.Option("--output", "-o", help="PNG file to write.", show_default=False),
    ],
    layout: Annotated[
        str,
        typer.Option(
            help="auto (grids by coordinates, groups on a circle), grid, groups, circle or spring."
        ),
    ] = "auto",
    dpi: Annotated[int, typer.Option(min=20, max=1200, help="Resolution.")] = 150,
) -> None:
    """Draw the router graph of a topology (at most 2,000 routers) as a PNG."""
    info = load_spec(spec)
    path = activity("topo draw", lambda: info.draw(image, layout=layout, dpi=dpi))
    stdout.print(f"wrote {path}")


# ---------------------------------------------------------------------------------------------
# iso

_ISO_COLUMNS = (  # (header, Design attribute, format)
    ("nodes", "nodes", ","),
    ("routers", "routers", ","),
    ("links", "links", ","),
    ("nodes/ router", "nodes_per_router", ","),
    ("diam.", "diameter", ","),
    ("balance", "balance", ".2f"),
    ("cost", "cost", ",.0f"),
)
_ISO_ERROR_RE = re.compile(r"(?P<key>\w+) = (?P<value>.+?): (?P<expected>.+)", re.DOTALL)


def _parameters(design: Any) -> str:
    return ", ".join(
        f"{key}={format_value(value)}"
        for key, value in design.topology.items()
        if key != "kind" and value is not None
    )


def _design_json(design: Any) -> dict[str, Any]:
    data = {"constraint": design.constraint, "family": design.family, "topology": design.topology}
    for _, name, _ in _ISO_COLUMNS:
        data[name] = getattr(design, name, None)
    for name in ("links_by_class", "published", "notes"):
        if hasattr(design, name):
            data[name] = getattr(design, name)
    return json_safe(data)


def _format(value: Any, spec: str) -> str:
    if value is None:
        return "-"
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return str(value)


def _iso_table(title: str, first_columns: Sequence[str]) -> Table:
    table = Table(title=title, header_style="bold")
    for index, header in enumerate(first_columns):
        if header == "parameters":
            table.add_column(header, overflow="fold", min_width=20)
        else:
            table.add_column(header, style="bold" if index == 0 else None, no_wrap=True)
    for header, _, _ in _ISO_COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    return table


@app.command("iso")
@reporting_errors
def iso(
    radix: Annotated[
        int | None, typer.Option(min=2, help="Router radix (ports per router).")
    ] = None,
    constraint: Annotated[
        str | None,
        typer.Option(help="What is held fixed: N (nodes), NR, NL, NRL or RL (R routers, L links)."),
    ] = None,
    nodes: Annotated[int | None, typer.Option(min=1, help="Target number of nodes.")] = None,
    routers: Annotated[int | None, typer.Option(min=1, help="Target number of routers.")] = None,
    links: Annotated[int | None, typer.Option(min=1, help="Target number of links.")] = None,
    family: Annotated[
        list[str] | None,
        typer.Option(help="Restrict to these families (repeatable).", show_default=False),
    ] = None,
    top: Annotated[int, typer.Option(min=1, help="Candidates per family.")] = 3,
    paper: Annotated[
        str | None,
        typer.Option(help="Print a paper's published designs next to ours: bhatele2019."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Find designs of several families under one constraint, or reproduce a paper's designs.

    --constraint N fixes the number of nodes (--nodes), NR nodes and routers, NL nodes and
    links, NRL all three, RL routers and links. --paper bhatele2019 prints the twenty designs of
    Bhatele et al. (PADS '19) with our counts next to the published ones.
    """
    from exanet import iso as iso_module

    if paper is not None:
        papers = {"bhatele2019": iso_module.bhatele2019}
        if paper not in papers:
            raise ConfigError(
                "--paper", format_value(paper), "one of " + ", ".join(map(format_value, papers))
            )
        designs = activity("topo iso", papers[paper])
        if as_json:
            _print_json([_design_json(d) for d in designs])
        else:
            _print_paper(designs, paper)
        return
    if radix is None or constraint is None:
        raise ConfigError(
            "--radix" if radix is None else "--constraint",
            "(missing)",
            "--radix and --constraint with the targets the constraint fixes (e.g. --radix 40 "
            "--constraint N --nodes 12000), or --paper bhatele2019",
        )
    kwargs: dict[str, Any] = {"nodes": nodes, "routers": routers, "links": links, "top": top}
    if family:
        kwargs["families"] = tuple(family)
    try:
        designs = activity("topo iso", lambda: iso_module.iso_designs(radix, constraint, **kwargs))
    except ConfigError:
        raise
    except ValueError as exc:
        raise _iso_error(exc, constraint) from None
    if as_json:
        _print_json([_design_json(d) for d in designs])
        return
    targets = (("nodes", nodes), ("routers", routers), ("links", links))
    title = f"iso-{constraint} designs from radix-{radix} routers" + "".join(
        f", {name} {value:,}" for name, value in targets if value is not None
    )
    if not designs:
        stdout.print(f"{title}: no design found")
        return
    table = _iso_table(title, ("family", "parameters"))
    last = None
    for design in designs:
        if last is not None and design.family != last:
            table.add_section()
        table.add_row(
            design.family if design.family != last else "",
            _parameters(design),
            *(_format(getattr(design, name, None), spec) for _, name, spec in _ISO_COLUMNS),
        )
        last = design.family
    _print_wide(table)


def _print_wide(table: Table) -> None:
    """Print a wide table: at least 150 columns when the output is not a terminal (a pipe or
    a file has no width to respect; 80 would truncate the numbers)."""
    console = stdout if stdout.is_terminal else Console(width=max(stdout.width, 150))
    console.print(table)


def _iso_error(exc: ValueError, constraint: str) -> ConfigError:
    """The search's "name = value: expected ..." errors as ConfigErrors on the option."""
    text = str(exc)
    match = _ISO_ERROR_RE.fullmatch(text)
    if match and match["key"] in ("radix", "constraint", "nodes", "routers", "links", "top"):
        return ConfigError(f"--{match['key']}", match["value"], match["expected"])
    if match and match["key"] == "families":
        return ConfigError("--family", match["value"], match["expected"])
    return ConfigError("--constraint", format_value(constraint), text)


def _print_paper(designs: Sequence[Any], paper: str) -> None:
    table = _iso_table(
        f"{paper}: our designs, (published) where the paper differs",
        ("iso", "family", "parameters"),
    )
    table.add_column("note", justify="right", no_wrap=True)
    notes: list[str] = []
    last = None
    for design in designs:
        if last is not None and design.constraint != last:
            table.add_section()
        published = getattr(design, "published", {}) or {}
        cells = []
        for _, name, spec in _ISO_COLUMNS:
            ours = _format(getattr(design, name, None), spec)
            theirs = published.get(name)
            if theirs is not None and _format(theirs, spec) != ours:
                ours = f"{ours}\n({_format(theirs, spec)})"
            cells.append(ours)
        note = getattr(design, "notes", "")
        if note:
            notes.append(note)
        table.add_row(
            design.constraint if design.constraint != last else "",
            design.family,
            _parameters(design),
            *cells,
            f"[{len(notes)}]" if note else "",
        )
        last = design.constraint
    _print_wide(table)
    for number, note in enumerate(notes, start=1):
        stdout.print(f"[{number}] {note}", markup=False, highlight=False)


__all__ = ["DESCRIBE_GROUPS", "app", "load_spec", "parse_spec"]
