"""Projection to larger systems (thesis seed 000, §5.3.2 and chapter 6).

- `capped_timeline`: Algorithm 1, the injection timeline under a per-node bandwidth cap;
- `injection_time_ns` and `execution_time_ns`: the execution-time estimate of eq. 6.7;
- `loglog_fit`, `project_network_traffic`, `project_program_time`: the log-log fits of
  eq. 6.3-6.6 and 6.8-6.9 extrapolated to larger node counts;
- `project_timeline`: a whole injection timeline projected to a larger system (§6.1.3), with
  the execution time under a bandwidth cap from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


TIMELINE_METHODS = ("average", "per_bin")


@dataclass(frozen=True)
class TimelineProjection:
    """An injection timeline projected to `target_nodes` (seed 000 §6.1.3), from
    `project_timeline`.

    `timeline` has bin_start_ns (from 0), bytes (per node and bin) and injection_gbytes_per_s;
    with a cap also capped_bytes and capped_injection_gbytes_per_s, the timeline after
    Algorithm 1, and the uncapped columns run on with zeros until the capped one ends.
    `bandwidth_fits` has one row per bin of the normalized timeline: bin, slope,
    coefficient_gbytes_per_s and r_squared of the power law bandwidth = coefficient * n^slope
    that projects it. `duration_fit` is the power law of the timeline's duration (eq. 6.8-6.9).
    `program_time_ns` is the projected duration in whole bins; with a cap, `injection_time_ns`
    is the capped timeline's length and `execution_time_ns` eq. 6.7's max of the two."""

    target_nodes: int
    bin_ns: float
    method: str
    timeline: pd.DataFrame
    bandwidth_fits: pd.DataFrame
    duration_fit: LogLogFit
    program_time_ns: float
    cap_gbytes_per_s: float | None = None
    injection_time_ns: float | None = None
    execution_time_ns: float | None = None

    @property
    def slowdown(self) -> float | None:
        """Execution time under the cap over the uncapped (program) time; None without cap."""
        if self.execution_time_ns is None:
            return None
        return self.execution_time_ns / self.program_time_ns


def _resample(values: np.ndarray, n_bins: int) -> np.ndarray:
    """A piecewise-constant series over normalized time [0, 1) averaged into `n_bins` equal
    bins: the integral (total traffic for a bandwidth) is kept. In units of 1 / (old x new
    bins), old bin j spans [j new, (j+1) new) and new bin k [k old, (k+1) old); each piece
    between two consecutive boundaries of either adds value x length to its new bin, exactly
    (no differences of running sums, which lose the small bins next to large ones)."""
    old = len(values)
    if n_bins == old:
        return values.copy()
    bounds = np.union1d(np.arange(old + 1) * n_bins, np.arange(n_bins + 1) * old)
    starts = bounds[:-1]
    weights = values[starts // n_bins] * np.diff(bounds)
    return np.bincount(starts // old, weights=weights, minlength=n_bins) / old


def _bin_fits(nodes: list[int], bandwidth: np.ndarray, method: str) -> pd.DataFrame:
    """Power laws (slope, coefficient, r_squared) projecting each column of `bandwidth` (one
    row per node count). per_bin: each bin's own log-log fit; a bin silent at every size stays
    0. average: the fit of the mean bandwidth, spread over the largest size's shape."""
    n_columns = bandwidth.shape[1]
    if method == "average":
        fit = loglog_fit(nodes, bandwidth.mean(axis=1))
        shape = bandwidth[-1] / bandwidth[-1].mean()
        return pd.DataFrame(
            {
                "bin": np.arange(n_columns),
                "slope": fit.slope,
                "coefficient_gbytes_per_s": fit.coefficient * shape,
                "r_squared": fit.r_squared,
            }
        )
    rows = []
    for column in range(n_columns):
        values = bandwidth[:, column]
        if not values.any():
            rows.append((column, 0.0, 0.0, 1.0))
            continue
        if not values.all():
            silent = [n for n, v in zip(nodes, values, strict=True) if v == 0]
            raise ConfigError(
                "analysis.timelines",
                f"bin {column} of the normalized timeline is 0 at {silent} nodes only",
                "traffic at every node count in a bin that has any (log-log fits), or a wider "
                "bin, or method='average'",
            )
        fit = loglog_fit(nodes, values)
        rows.append((column, fit.slope, fit.coefficient, fit.r_squared))
    return pd.DataFrame(rows, columns=["bin", "slope", "coefficient_gbytes_per_s", "r_squared"])


def _node_counts(timelines: Mapping[int, Sequence[float]]) -> list[int]:
    nodes = sorted(timelines)
    if len(nodes) < 2 or any(not float(n).is_integer() or n < 1 for n in nodes):
        raise ConfigError(
            "analysis.timelines",
            f"node counts {nodes}",
            "timelines at two or more distinct node counts, each a whole number >= 1",
        )
    return [int(n) for n in nodes]


def _timeline_values(timeline: Sequence[float], key: str) -> np.ndarray:
    values = np.asarray(timeline, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ConfigError(key, f"shape {values.shape}", "a non-empty 1-D series of bytes per bin")
    if not np.all(np.isfinite(values)) or np.any(values < 0) or not values.any():
        raise ConfigError(key, "negative, non-finite or all-zero values", "bytes >= 0, some > 0")
    return values


def project_timeline(
    timelines: Mapping[int, Sequence[float]],
    bin_ns: float,
    target_nodes: int,
    cap_gbytes_per_s: float | None = None,
    method: str = "average",
) -> TimelineProjection:
    """Project per-node injection timelines measured at two or more node counts to
    `target_nodes` (seed 000 §6.1.3; the thesis takes 32 and 64 nodes to 16,384).

    `timelines` maps a node count to the bytes one node injects per bin of `bin_ns` (the mean
    endpoint of `injection_timeline_bytes`, say), from the start of the run to its end. The
    time axis follows the projected duration: the durations (bins x bin_ns) are fitted in
    log-log space (eq. 6.8-6.9) and the projected timeline has that many whole bins of
    `bin_ns`. The magnitude follows log-log fits of the bandwidth over normalized time (each
    timeline averaged onto the bins of the largest size's timeline, traffic kept):

    - "average" (the thesis's rescaling): the largest size's timeline scaled by the ratio of
      the projected to its measured average bandwidth (one fit of the mean);
    - "per_bin": each bin of normalized time has its own fit, so a family whose every bin
      scales as a_j * n^b_j is recovered exactly, whatever the b_j; bin-to-bin noise is
      extrapolated too, so it suits timelines whose phases repeat from size to size.

    With `cap_gbytes_per_s` (per node), the projected timeline goes through Algorithm 1
    (`capped_timeline`), its length is the network injection time, and eq. 6.7 gives the
    execution time (`execution_time_ns`); `slowdown` is that over the uncapped duration.
    """
    nodes = _node_counts(timelines)
    width = positive(bin_ns, "analysis.bin_ns")
    if not float(target_nodes).is_integer() or target_nodes < 1:
        raise ConfigError("analysis.target_nodes", repr(target_nodes), "a whole number >= 1")
    if method not in TIMELINE_METHODS:
        raise ConfigError("analysis.method", repr(method), f"one of {', '.join(TIMELINE_METHODS)}")
    series = [_timeline_values(timelines[n], f"analysis.timelines[{n}]") for n in nodes]
    duration_fit = loglog_fit(nodes, [len(values) * width for values in series])
    n_bins = max(1, round(float(duration_fit.predict(target_nodes)) / width))
    shape_bins = len(series[-1])
    bandwidth = np.array([_resample(values / width, shape_bins) for values in series])
    fits = _bin_fits(nodes, bandwidth, method)
    profile = (
        fits["coefficient_gbytes_per_s"].to_numpy()
        * float(target_nodes) ** fits["slope"].to_numpy()
    )
    projected_bytes = _resample(profile, n_bins) * width
    program_time = n_bins * width
    columns = {"bytes": projected_bytes}
    injection = execution = cap = None
    if cap_gbytes_per_s is not None:
        cap = positive(cap_gbytes_per_s, "analysis.cap_gbytes_per_s")
        capped = capped_timeline(projected_bytes, cap * width)
        injection = len(capped) * width
        execution = execution_time_ns(program_time, injection)
        columns = {
            "bytes": np.pad(projected_bytes, (0, len(capped) - n_bins)),
            "capped_bytes": capped,
        }
    timeline = pd.DataFrame({"bin_start_ns": np.arange(len(columns["bytes"])) * width, **columns})
    timeline["injection_gbytes_per_s"] = timeline["bytes"] / width
    if cap is not None:
        timeline["capped_injection_gbytes_per_s"] = timeline["capped_bytes"] / width
    return TimelineProjection(
        target_nodes=int(target_nodes),
        bin_ns=width,
        method=method,
        timeline=timeline,
        bandwidth_fits=fits,
        duration_fit=duration_fit,
        program_time_ns=program_time,
        cap_gbytes_per_s=cap,
        injection_time_ns=injection,
        execution_time_ns=execution,
    )
