"""exanet: a packet-level interconnection-network simulator and design-space explorer."""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

# Public names and their modules, imported on first use: `import exanet` stays light, so that
# the command line starts at once and a Ctrl-C while it loads pandas is an ordinary interrupt.
_PUBLIC = {
    "check_routing": "exanet.api",
    "job_program": "exanet.api",
    "partition": "exanet.api",
    "simulate": "exanet.api",
    "validate": "exanet.api",
    "Config": "exanet.config",
    "ConfigError": "exanet.errors",
    "DeadlockError": "exanet.errors",
    "DistributedError": "exanet.errors",
    "ExanetError": "exanet.errors",
    "InternalError": "exanet.errors",
    "OutputError": "exanet.errors",
    "ProgramStalledError": "exanet.errors",
    "Program": "exanet.program",
    "Result": "exanet.result",
    "TopologyInfo": "exanet.structure",
    "from_edge_list": "exanet.structure",
    "from_networkx": "exanet.structure",
    "topology": "exanet.structure",
    "Sweep": "exanet.sweep",
    "load": "exanet.sweep",
    "open": "exanet.stored",
    "saturation": "exanet.sweep.saturation",
    "write_report": "exanet.report",
}

try:
    __version__ = version("exanet")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__", *sorted(_PUBLIC)]


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'exanet' has no attribute {name!r}")
    value = getattr(import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
