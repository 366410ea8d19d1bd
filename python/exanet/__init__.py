"""exanet: a packet-level interconnection-network simulator and design-space explorer."""

from importlib.metadata import PackageNotFoundError, version

from exanet.api import simulate, validate
from exanet.config import Config
from exanet.errors import ConfigError, DeadlockError, ExanetError
from exanet.result import Result

try:
    __version__ = version("exanet")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "Config",
    "ConfigError",
    "DeadlockError",
    "ExanetError",
    "Result",
    "__version__",
    "simulate",
    "validate",
]
