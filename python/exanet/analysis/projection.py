"""Projection to larger systems (thesis seed 000, §5.3.2 and chapter 6).

- `capped_timeline`: Algorithm 1, the injection timeline under a per-node bandwidth cap;
- `injection_time_ns` and `execution_time_ns`: the execution-time estimate of eq. 6.7;
- `loglog_fit`, `project_network_traffic`, `project_program_time`: the log-log fits of
  eq. 6.3-6.6 and 6.8-6.9 extrapolated to larger node counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from exanet.analysis._checks import positive
from exanet.analysis.traffic import self_inclusive
from exanet.errors import ConfigError


def capped_timeline(timeline: Sequence[float], cap: float) -> np.ndarray:
    """Algorithm 1 of seed 000 (§5.3.2): a traffic-per-slot timeline under an upper limit.

    `timeline` holds the traffic of equal time slots (bytes per slot, or bandwidth; `cap` in the
    same unit). Traffic above the cap is carried over (`tmp_traffic`) and injected in later
    slots at the cap; slots at or below the cap while nothing is carried are unchanged:

        while idx < len - 1:
            if tmp < cap: idx += 1; tmp += timeline[idx]
                          if tmp > cap: emit cap; tmp -= cap
                          else:         emit tmp; tmp = 0
            else:         emit cap; tmp -= cap

    The printed listing stops once the last input slot is read, dropping traffic still carried;
    the text says the excess is amortized over subsequent slots and §6.1.3 needs those slots
    for the injection time, so this keeps emitting min(cap, tmp) until tmp is 0. Total traffic
    is therefore conserved and the output is at least as long as the input.
    """
    values = np.asarray(timeline, dtype=float)
    limit = positive(cap, "analysis.cap")
    if values.ndim != 1 or values.size == 0:
        raise ConfigError("analysis.timeline", f"shape {values.shape}", "a non-empty 1-D series")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ConfigError("analysis.timeline", "negative or non-finite values", "values >= 0")
    out = []
    idx = -1
    tmp = 0.0
    while idx < len(values) - 1:
        if tmp < limit:
            idx += 1
            tmp += values[idx]
            if tmp > limit:
                out.append(limit)
                tmp -= limit
            else:
                out.append(tmp)
                tmp = 0.0
        else:
            out.append(limit)
            tmp -= limit
    while tmp > 0:  # the drain described above
        out.append(min(limit, tmp))
        tmp -= out[-1]
    return np.asarray(out)


def injection_time_ns(
    timeline_bytes: Sequence[float], bin_ns: float, cap_gbytes_per_s: float
) -> float:
    """Network injection time under a per-node cap (seed 000 §6.1.3): the number of slots of
    `capped_timeline` times the slot width. GB/s is bytes per ns, so the cap per slot is
    cap_gbytes_per_s * bin_ns bytes."""
    width = positive(bin_ns, "analysis.bin_ns")
    cap_bytes = positive(cap_gbytes_per_s, "analysis.cap_gbytes_per_s") * width
    return len(capped_timeline(timeline_bytes, cap_bytes)) * width


def execution_time_ns(program_time_ns: float, injection_time_ns: float) -> float:
    """Eq. 6.7 of seed 000: execution time = max(program execution time, network injection
    time): whichever of compute and injection bandwidth is the bottleneck sets the time."""
    return max(
        positive(program_time_ns, "analysis.program_time_ns"),
        positive(injection_time_ns, "analysis.injection_time_ns"),
    )


@dataclass(frozen=True)
class LogLogFit:
    """log2(y) = slope * log2(n) + intercept_log2, i.e. y = coefficient * n^slope with
    coefficient = 2^intercept_log2 (eq. 6.3-6.4, 6.8-6.9 of seed 000). r_squared is computed in
    log space; it is 1 for an exact power law and for a two-point fit."""

    slope: float
    intercept_log2: float
    coefficient: float
    r_squared: float
    n_points: int

    def predict(self, n_nodes: Sequence[float] | float) -> np.ndarray:
        n = np.asarray(n_nodes, dtype=float)
        return self.coefficient * n**self.slope


def loglog_fit(n_nodes: Sequence[float], values: Sequence[float]) -> LogLogFit:
    """Least-squares line through (log2 n, log2 value), eq. 6.3 / 6.8 of seed 000. The thesis
    fits the two largest simulated sizes (32 and 64 nodes); pass those for its projection."""
    n = np.asarray(n_nodes, dtype=float)
    y = np.asarray(values, dtype=float)
    if n.ndim != 1 or n.shape != y.shape or len(np.unique(n)) < 2:
        raise ConfigError(
            "analysis.n_nodes", f"{n.size} sizes, {y.size} values", "matching lists, >= 2 sizes"
        )
    if np.any(n <= 0) or np.any(y <= 0) or not np.all(np.isfinite(y)):
        raise ConfigError("analysis.values", "values <= 0", "positive sizes and values (logs)")
    x, z = np.log2(n), np.log2(y)
    slope, intercept = np.polyfit(x, z, 1)
    residual = float(np.sum((z - (slope * x + intercept)) ** 2))
    total = float(np.sum((z - z.mean()) ** 2))
    # A constant series is fitted exactly by slope 0, so it counts as explained.
    r_squared = 1.0 - residual / total if total > 0 else 1.0
    return LogLogFit(float(slope), float(intercept), float(2.0**intercept), r_squared, len(n))


def project_network_traffic(
    n_nodes: Sequence[int], network_traffic_bytes: Sequence[float], target_nodes: Sequence[int]
) -> tuple[pd.DataFrame, LogLogFit]:
    """Project total network traffic to `target_nodes` (seed 000 eq. 6.2-6.6).

    Measured (cross-node) traffic becomes self-inclusive by n/(n-1) (eq. 6.2), is fitted in
    log-log space (6.3-6.4, self-inclusive = n^k * b), and projected back to network traffic by
    (n-1)/n (6.5-6.6: n^(k-1) * (n-1) * b). Returns a table with n_nodes,
    self_inclusive_traffic_bytes and network_traffic_bytes, and the fit.
    """
    measured = np.asarray(network_traffic_bytes, dtype=float)
    if len(measured) != len(n_nodes):
        raise ConfigError(
            "analysis.network_traffic_bytes", f"{len(measured)} values", "one per node count"
        )
    inclusive = [self_inclusive(t, int(n)) for n, t in zip(n_nodes, measured, strict=True)]
    fit = loglog_fit(n_nodes, inclusive)
    targets = np.asarray(target_nodes, dtype=float)
    if np.any(targets < 2):
        raise ConfigError("analysis.target_nodes", "sizes < 2", "node counts >= 2")
    projected = fit.predict(targets)
    table = pd.DataFrame(
        {
            "n_nodes": targets.astype(int),
            "self_inclusive_traffic_bytes": projected,
            "network_traffic_bytes": projected * (targets - 1) / targets,
        }
    )
    return table, fit


def project_program_time(
    n_nodes: Sequence[int], program_time_ns: Sequence[float], target_nodes: Sequence[int]
) -> tuple[pd.DataFrame, LogLogFit]:
    """Project program execution time (seed 000 eq. 6.8-6.9: time = n^a * c) to
    `target_nodes`. Returns a table with n_nodes and program_time_ns, and the fit."""
    fit = loglog_fit(n_nodes, program_time_ns)
    targets = np.asarray(target_nodes, dtype=float)
    if np.any(targets < 1):
        raise ConfigError("analysis.target_nodes", "sizes < 1", "node counts >= 1")
    table = pd.DataFrame({"n_nodes": targets.astype(int), "program_time_ns": fit.predict(targets)})
    return table, fit
