"""The Python API: validate and run simulations through `exanet._core`."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from exanet import _core, distributed
from exanet.config import Config, load
from exanet.errors import ConfigError, core_errors
from exanet.program import Program
from exanet.progress import ProgressDisplay
from exanet.result import Result, table_to_dataframe

ConfigSource = Config | Mapping[str, Any] | str | os.PathLike[str]

U32_MAX = 2**32 - 1
DRAIN_LIMIT_WINDOWS = 20
"""run.drain_limit defaults to this many times warmup + measure (as in the core)."""
SPARSE_WINDOW_EVENTS = 100
"""A run on several workers whose windows held fewer events per worker than this is warned
about: at 0.25 to 0.4 us per event, a window's work is then no longer than its two barriers
(a few us each), so fewer workers would likely run faster (BENCHMARKS.md, parallel engine)."""


def _count(name: str, value: Any, least: int) -> int:
    """`value` as an argument the core takes as a 32-bit count, or a ConfigError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= U32_MAX:
        raise ConfigError(name, repr(value), f"an integer between {least} and {U32_MAX}")
    return value


def validate(config: ConfigSource) -> dict[str, Any]:
    """Check a config against its topology without simulating; returns the structural summary
    (routers, endpoints, network_links, ports_per_router, link_classes, diameter_hops,
    average_distance_hops, topology_state_bytes, routing_state_bytes). Raises ConfigError."""
    core = load(config).to_core()
    config_json = json.dumps(core)
    with core_errors(core):
        return _core.validate(config_json)


def partition(config: ConfigSource, parts: int) -> dict[str, Any]:
    """How the parallel engine would split the network of `config` into `parts`: the method
    (slabs, blocks, groups or bfs), routers_per_part, endpoints_per_part, cut_links and lookahead_ps
    (the smallest latency of a cut link: the width of the synchronous windows; None when
    nothing is cut); with `partitioner = "kahip"`, KaHIP's partition (method given). Raises
    ConfigError."""
    parts = _count("parts", parts, 1)
    core = load(config).model_copy(update={"threads": parts}).to_core()
    config_json = json.dumps(core)
    with core_errors(core):
        return _core.partition(config_json, parts)


def simulate(config: ConfigSource, *, progress: bool | None = None) -> Result:
    """Run one simulation of `config` (a Config, a mapping of config keys or a TOML path).

    `progress`: True shows a progress display on stderr, False never; None (default) shows it
    once the run has lasted SHOW_AFTER_S (2 s): a bar on a terminal, otherwise a line every
    LOG_INTERVAL_S (10 s; exanet.progress).
    Started by an MPI launcher, every process runs one worker of the simulation (see
    `exanet.distributed`) and gets the whole summary, but the endpoints and links rows of its
    own part only (`Result.write`, called by every process, writes them all); only the first
    shows progress.
    Raises ConfigError for an invalid config, DeadlockError when the network deadlocks,
    ProgramStalledError when a message-passing program can never finish and DistributedError
    when the processes of a run across processes cannot go on together.
    """
    config = load(config)
    core = config.to_core()
    config_json = json.dumps(core)
    with core_errors(core):
        comm = distributed.world()
        if comm is None:
            # Across processes the run checks its process's share of the network instead: the
            # whole may be too large for one machine.
            _core.validate(config_json)
        shown = progress if distributed.rank() == 0 else False
        with ProgressDisplay(shown, drain_limit_ps=_drain_limit_ps(config)) as callback:
            run = _core.run(config_json, callback, comm=comm)
    result = Result(config, run)
    if distributed.rank() == 0:
        _warn_if_sparse(result.summary)
    return result


def _warn_if_sparse(summary: Mapping[str, Any]) -> None:
    """Warns when a parallel run's windows were too sparse to pay for their synchronisation."""
    workers = summary["threads"] * summary["processes"]
    if workers < 2:
        return
    per_worker = summary["events_per_window"] / workers
    if per_worker < SPARSE_WINDOW_EVENTS:
        warnings.warn(
            f"the parallel run's windows held {per_worker:.0f} events per worker on average "
            f"({workers} workers, lookahead {summary['lookahead_ns']:g} ns), fewer than "
            f"{SPARSE_WINDOW_EVENTS}: synchronising each window costs about as much as its work, "
            "so fewer workers would likely be faster (docs/parallel.md, When it pays)",
            stacklevel=3,
        )


def _drain_limit_ps(config: Config) -> int | None:
    """How long after the window the run may drain (the core's default when run.drain_limit is
    unset: 20 x (warmup + measure)); None when it does not drain."""
    run = config.run
    if run.duration is not None or run.drain == "none":
        return None
    return run.drain_limit or DRAIN_LIMIT_WINDOWS * (run.warmup + run.measure)


def job_program(config: ConfigSource, job: int = 0) -> Program:
    """The operations of job `job` of a `kind = "jobs"` config, as the core runs them (a built-in
    application expanded, a program or trace as given): a `Program` that `write_trace` can save.
    """
    job = _count("job", job, 0)
    config = load(config)
    core = config.to_core()
    with core_errors(core):
        table = table_to_dataframe(_core.job_program(json.dumps(core), job))
    for name in ("op", "algorithm"):
        table[name] = table[name].astype(str)
    ranks = int(table["rank"].max()) + 1 if len(table) else 0
    return Program(table, ranks)


def check_routing(
    config: ConfigSource,
    *,
    sources: int | None = None,
    max_draws: int = 1024,
    progress: Callable[[dict[str, Any]], object] | None = None,
) -> dict[str, Any]:
    """Prove (or refute) deadlock freedom of a config's routing: build the channel-dependency
    graph over every source router with endpoints (or `sources` evenly spaced ones; on networks
    too large to follow every one, as many evenly spaced ones as the core's work budget allows)
    and every destination, with as many random draws per pair as reach every route the scheme
    can take (one per Valiant intermediate, one for deterministic schemes; at most
    `max_draws`), and check it for cycles.

    `progress`, if given, is called about every 0.5 s with {"destinations_done",
    "destinations_total", "wall_s"}; if it raises, the check stops and the exception
    propagates (so does Ctrl-C).

    Returns {"acyclic", "scope", "channels", "dependencies", "pairs", "draws_per_pair",
    "sources_followed", "sources_total", "exhaustive", "cycle"}; `scope` says which channels
    the graph holds (every channel, or an escape sub-network's under Duato's condition);
    `exhaustive` is true when every source router was followed; `cycle` lists channels
    {"router", "port", "vc", "name"}, each depending on the next. Raises ConfigError."""
    sources = None if sources is None else _count("sources", sources, 1)
    max_draws = _count("max_draws", max_draws, 1)
    core = load(config).to_core()
    config_json = json.dumps(core)
    with core_errors(core):
        return _core.check_routing(config_json, sources, max_draws, progress)
