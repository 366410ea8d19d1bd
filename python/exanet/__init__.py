"""exanet: a packet-level interconnection-network simulator and design-space explorer."""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from exanet.api import check_routing, job_program, partition, simulate, validate
from exanet.config import Config
from exanet.errors import (
    ConfigError,
    DeadlockError,
    DistributedError,
    ExanetError,
    InternalError,
    OutputError,
    ProgramStalledError,
)
from exanet.program import Program
from exanet.result import Result
from exanet.structure import TopologyInfo, from_edge_list, from_networkx, topology
from exanet.sweep import Sweep, load
from exanet.sweep.saturation import saturation

try:
    __version__ = version("exanet")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "Config",
    "ConfigError",
    "DeadlockError",
    "DistributedError",
    "ExanetError",
    "InternalError",
    "OutputError",
    "Program",
    "ProgramStalledError",
    "Result",
    "Sweep",
    "TopologyInfo",
    "__version__",
    "check_routing",
    "from_edge_list",
    "from_networkx",
    "job_program",
    "load",
    "partition",
    "saturation",
    "simulate",
    "topology",
    "validate",
    "write_report",
]


def __getattr__(name: str) -> Any:
    """`write_report` loads matplotlib, so it is imported only when first used."""
    if name == "write_report":
        from exanet.report import write_report

        return write_report
    raise AttributeError(f"module 'exanet' has no attribute {name!r}")
