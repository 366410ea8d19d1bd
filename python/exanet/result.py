"""The result of one simulation: summary statistics and per-endpoint and per-link tables."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from exanet.config import Config


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
    """Summary statistics (`summary`), per-endpoint (`endpoints`) and per-link (`links`) tables
    of one simulation of `config`."""

    def __init__(
        self,
        config: Config,
        summary: dict[str, Any],
        endpoints: pd.DataFrame,
        links: pd.DataFrame,
    ) -> None:
        self.config = config
        self.summary = summary
        self.endpoints = endpoints
        self.links = links

    @classmethod
    def from_core(cls, config: Config, output: dict[str, Any]) -> Result:
        """Build from the dict `exanet._core.run` returns."""
        return cls(
            config=config,
            summary=output["summary"],
            endpoints=table_to_dataframe(output["endpoints"]),
            links=table_to_dataframe(output["links"]),
        )

    def write(self, outdir: str | os.PathLike[str]) -> Path:
        """Write summary.json, config.json (core units), endpoints.parquet and links.parquet."""
        outdir = Path(outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        (outdir / "config.json").write_text(json.dumps(self.config.to_core(), indent=2) + "\n")
        self.endpoints.to_parquet(outdir / "endpoints.parquet", engine="pyarrow", index=False)
        self.links.to_parquet(outdir / "links.parquet", engine="pyarrow", index=False)
        return outdir

    def __repr__(self) -> str:
        topology = self.config.topology
        dims = "x".join(map(str, topology.dims))
        return (
            f"<Result {topology.kind} {dims}, load {self.config.traffic.load}: "
            f"{len(self.endpoints)} endpoints, {len(self.links)} links, "
            f"{len(self.summary)} summary statistics>"
        )
