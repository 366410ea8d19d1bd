"""Design-space sweeps (docs/sweeps.md): a base config and axes, run resumably on a local
process pool, Slurm (submitit) or dask; and the saturation search."""

from exanet.sweep.executors import DaskExecutor, LocalExecutor, SubmititExecutor
from exanet.sweep.keys import config_key
from exanet.sweep.runner import Sweep, SweepRun
from exanet.sweep.store import load, load_table

__all__ = [
    "DaskExecutor",
    "LocalExecutor",
    "SubmititExecutor",
    "Sweep",
    "SweepRun",
    "config_key",
    "load",
    "load_table",
]
