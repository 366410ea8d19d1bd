"""The result of one simulation: summary statistics and per-endpoint and per-link tables."""

from __future__ import annotations

import json
import math
import os
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from exanet.config import Config
from exanet.topologies import topology_label


class CoreRunResult(Protocol):
    """What `exanet._core.run` returns: the summary, and column tables built on request."""

    def summary(self) -> dict[str, Any]: ...

    def table(self, name: str) -> dict[str, Any]: ...


def table_to_dataframe(table: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame from a core column table; columns listed in `categories` become Categorical."""
    categories = table["categories"]
    columns = {}
    for name, dtype, buffer in table["columns"]:
        values = np.frombuffer(buffer, dtype=np.dtype(dtype))
        if name in categories:
            columns[name] = pd.Categorical.from_codes(values, categories=categories[name])
        else:
            columns[name] = values
    return pd.DataFrame(columns)


class Result:
    """One simulation of `config`: `summary` (a flat dict whose keys carry their units) and the
    `endpoints` and `links` DataFrames, built on first access."""

    def __init__(self, config: Config, run: CoreRunResult) -> None:
        self.config = config
        self.summary = run.summary()
        self._run = run

    @cached_property
    def endpoints(self) -> pd.DataFrame:
        """One row per endpoint: traffic counters, loads and latencies."""
        return table_to_dataframe(self._run.table("endpoints"))

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link (network, injection and ejection): bytes, packets, utilisation."""
        return table_to_dataframe(self._run.table("links"))

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """One row per message-passing job: completion, bytes, communication rate, slowdowns
        versus an ideal network and versus running alone (empty for other workloads)."""
        return self._workload_table("jobs")

    @cached_property
    def bursts(self) -> pd.DataFrame:
        """One row per burst of burst-synchronized sources: start, end, time (else empty)."""
        return self._workload_table("burst")

    @cached_property
    def traffic_matrix(self) -> pd.DataFrame:
        """Packets and bytes injected in the window per (src, dst), non-zero cells only, at the
        level `summary["traffic_matrix_level"]` (record.traffic_matrix; empty when off)."""
        return self._recorded("traffic_matrix", self.config.record.traffic_matrix != "off")

    @cached_property
    def injection_series(self) -> pd.DataFrame:
        """Every endpoint's injected bytes and packets per record.injection_bin, zero bins
        included (empty when off)."""
        return self._recorded("injection_series", self.config.record.injection_bin is not None)

    @cached_property
    def packet_sizes(self) -> pd.DataFrame:
        """Packets delivered in the window by wire size (record.packet_sizes; empty when
        off)."""
        return self._recorded("packet_sizes", self.config.record.packet_sizes)

    def _recorded(self, name: str, recorded: bool) -> pd.DataFrame:
        return table_to_dataframe(self._run.table(name)) if recorded else pd.DataFrame()

    def _workload_table(self, kind: str) -> pd.DataFrame:
        """The table of traffic kind `kind` ("jobs" or "burst"), empty under other kinds."""
        if self.config.traffic.kind != kind:
            return pd.DataFrame()
        return table_to_dataframe(self._run.table("jobs" if kind == "jobs" else "bursts"))

    def write(self, outdir: str | os.PathLike[str]) -> Path:
        """Write summary.json (NaN written as null), config.json (core units), endpoints.parquet
        and links.parquet, and each non-empty workload or recorded table as NAME.parquet."""
        outdir = Path(outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        summary: dict[str, Any] = {
            key: _finite_or_none(value) for key, value in self.summary.items()
        }
        if len(self.jobs):
            summary["jobs_detail"] = [
                {key: _finite_or_none(value) for key, value in row.items()}
                for row in self.jobs.astype(object).to_dict(orient="records")
            ]
        (outdir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        (outdir / "config.json").write_text(json.dumps(self.config.to_core(), indent=2) + "\n")
        self.endpoints.to_parquet(outdir / "endpoints.parquet", engine="pyarrow", index=False)
        self.links.to_parquet(outdir / "links.parquet", engine="pyarrow", index=False)
        for name in ("jobs", "bursts", "traffic_matrix", "injection_series", "packet_sizes"):
            table = getattr(self, name)
            if len(table):
                table.to_parquet(outdir / f"{name}.parquet", engine="pyarrow", index=False)
        return outdir

    def __repr__(self) -> str:
        traffic = self.config.traffic
        workload = f"load {traffic.load}" if traffic.kind == "synthetic" else traffic.kind
        return (
            f"<Result {topology_label(self.config.topology)}, {workload}: "
            f"{len(self.summary)} summary statistics>"
        )


def _finite_or_none(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value
