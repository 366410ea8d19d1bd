"""Traffic characterization of one run (thesis seed 000, chapter 4).

Inputs:

- a traffic matrix: a dense N x N array (row = source endpoint, column = destination) of bytes
  or packets, or a sparse DataFrame with columns `src`, `dst`, `bytes`, `packets` turned into one
  by `traffic_matrix`;
- per-endpoint totals: the `endpoints` table of a Result (`endpoint`, `packets_injected`,
  `bytes_injected`, ...);
- a time series (the `injection_series` table): columns `endpoint`, `bin_start_ns`, `bytes`,
  `packets`, one row per endpoint and time bin (bins with no traffic may be left out);
- packet sizes: the `packet_sizes` table, columns `bytes` (one packet's wire size) and `packets`
  (how many packets had that size).

Bandwidths are in GB/s, which is bytes per ns; packet rates in Gpackets/s, packets per ns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from exanet.analysis._checks import (
    node_count,
    positive,
    require_columns,
    require_nonempty,
    square_matrix,
)
from exanet.errors import ConfigError

PERCENTILES = (90, 95, 99)  # the thesis reports avg, P90, P95 and P99 (§4.5.2)
DEFAULT_BIN_NS = 50.0  # thesis §4.5.2: slots of 100 cycles at 2 GHz


def traffic_matrix(pairs: pd.DataFrame, n_endpoints: int, value: str = "bytes") -> np.ndarray:
    """Dense N x N matrix of `value` ("bytes" or "packets") from sparse rows `src`, `dst`,
    `value`; repeated (src, dst) rows are summed and absent pairs are 0."""
    if value not in ("bytes", "packets"):
        raise ConfigError("analysis.traffic_matrix.value", repr(value), '"bytes" or "packets"')
    require_columns(pairs, ["src", "dst", value], "analysis.traffic_matrix.pairs")
    n = node_count(n_endpoints, "analysis.traffic_matrix.n_endpoints")
    src = pairs["src"].to_numpy()
    dst = pairs["dst"].to_numpy()
    if len(pairs) and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
        raise ConfigError(
            "analysis.traffic_matrix.pairs", "src/dst out of range", f"endpoints in 0..{n - 1}"
        )
    matrix = np.zeros((n, n))
    np.add.at(matrix, (src.astype(int), dst.astype(int)), pairs[value].to_numpy(dtype=float))
    return square_matrix(matrix, "analysis.traffic_matrix.pairs")


def _off_diagonal(matrix: np.ndarray) -> np.ndarray:
    """The N(N-1) entries x_ij with i != j: traffic an endpoint sends to itself never enters
    the network, so eq. 4.3 leaves it out."""
    return matrix[~np.eye(matrix.shape[0], dtype=bool)]


def normalized_p2p_traffic(matrix: object) -> np.ndarray:
    """Normalized point-to-point traffic, eq. 4.2-4.3 of seed 000:

        xbar_ij = x_ij / mu,   mu = 1 / (N (N-1)) * sum_i sum_{j != i} x_ij

    Returns an N x N array with NaN on the diagonal (not a point-to-point pair).
    """
    array = square_matrix(matrix, "analysis.matrix")
    mean = _off_diagonal(array).mean()
    if mean == 0:
        raise ConfigError("analysis.matrix", "no traffic between distinct endpoints", "traffic")
    normalized = array / mean
    np.fill_diagonal(normalized, np.nan)
    return normalized


def p2p_cov_percent(matrix: object) -> float:
    """Coefficient of variation of point-to-point traffic in percent, eq. 4.4-4.6 of seed 000:

        CoV = sigma / mu * 100%,   sigma = sqrt(1/N sum (x_i - mu)^2),   mu = 1/N sum x_i

    over the N(N-1) off-diagonal pairs (sigma is the population standard deviation). It equals the
    population standard deviation of the normalized traffic of eq. 4.2; 0 for uniform traffic.
    """
    values = _off_diagonal(normalized_p2p_traffic(matrix))
    return float(values.std(ddof=0) * 100.0)


def aggregate_matrix(matrix: object, groups: Sequence[object]) -> pd.DataFrame:
    """Sum an endpoint matrix into a group x group matrix (e.g. router or dragonfly group).

    `groups[i]` is the group of endpoint i. Rows and columns are the sorted group labels; the
    diagonal holds traffic within a group, including what endpoints send to themselves.
    """
    array = square_matrix(matrix, "analysis.matrix")
    labels = np.asarray(groups)
    if labels.shape != (array.shape[0],):
        raise ConfigError(
            "analysis.groups", f"{labels.size} labels", f"one group per endpoint ({len(array)})"
        )
    names, index = np.unique(labels, return_inverse=True)
    grouped = np.zeros((len(names), len(names)))
    np.add.at(grouped, (index[:, None], index[None, :]), array)
    return pd.DataFrame(grouped, index=names, columns=names)


def matrix_for_display(
    matrix: object, groups: Sequence[object], max_endpoints: int = 256
) -> pd.DataFrame:
    """The endpoint matrix while it has at most `max_endpoints` rows, else its aggregation by
    `groups`: a heat map of thousands of endpoints shows nothing."""
    array = square_matrix(matrix, "analysis.matrix")
    if len(array) <= max_endpoints:
        return pd.DataFrame(array)
    return aggregate_matrix(array, groups)


def bisection_fraction(matrix: object, half: Iterable[int] | None = None) -> float:
    """Fraction of network traffic that crosses a bisection (seed 000 §4.3.2).

    `half` lists the endpoints of one half; the other half is the rest, and both must have N/2
    endpoints. By default the first N/2 endpoints form one half. Returns

        (sum_{i in A, j in B} x_ij + sum_{i in B, j in A} x_ij) / sum_{i != j} x_ij

    Self traffic (the diagonal) is left out, so uniform traffic gives N / (2 (N-1)), which tends
    to the thesis's 0.5 as N grows.
    """
    array = square_matrix(matrix, "analysis.matrix")
    n = len(array)
    members = np.arange(n // 2) if half is None else np.unique(np.fromiter(half, dtype=int))
    if n % 2 or len(members) != n // 2 or members.min() < 0 or members.max() >= n:
        raise ConfigError(
            "analysis.bisection.half",
            f"{len(members)} of {n} endpoints",
            "N/2 distinct endpoints in 0..N-1 of an even N",
        )
    in_a = np.zeros(n, dtype=bool)
    in_a[members] = True
    crossing = array[in_a][:, ~in_a].sum() + array[~in_a][:, in_a].sum()
    total = _off_diagonal(array).sum()
    if total == 0:
        raise ConfigError("analysis.matrix", "no traffic between distinct endpoints", "traffic")
    return float(crossing / total)


def packet_size_histogram(sizes: pd.DataFrame, bin_bytes: int | None = None) -> pd.DataFrame:
    """Packet-size histogram (seed 000 §4.4, fig. 4.7) from the core's `packet_sizes` table:
    rows `bytes` (one packet's wire size) and `packets` (how many had that size).

    With `bin_bytes`, sizes are grouped into bins [k*bin_bytes, (k+1)*bin_bytes). Returns columns
    size_bytes (the size or bin start), packets, total_bytes, packet_fraction, byte_fraction.
    """
    require_columns(sizes, ["bytes", "packets"], "analysis.sizes")
    require_nonempty(sizes, "analysis.sizes")
    if (sizes["bytes"] <= 0).any() or (sizes["packets"] < 0).any():
        raise ConfigError("analysis.sizes", "sizes <= 0 or counts < 0", "sizes > 0, counts >= 0")
    size = sizes["bytes"].to_numpy(dtype=np.int64)
    count = sizes["packets"].to_numpy(dtype=np.int64)
    if bin_bytes is not None:
        width = int(positive(bin_bytes, "analysis.bin_bytes"))
        binned = size // width * width
    else:
        binned = size
    # total_bytes uses each packet's own size, not its bin start
    table = pd.DataFrame({"size_bytes": binned, "packets": count, "total_bytes": size * count})
    table = table.groupby("size_bytes", as_index=False)[["packets", "total_bytes"]].sum()
    if table["packets"].sum() == 0:
        raise ConfigError("analysis.sizes", "zero packets", "at least one packet")
    table["packet_fraction"] = table["packets"] / table["packets"].sum()
    table["byte_fraction"] = table["total_bytes"] / table["total_bytes"].sum()
    return table


def mean_packet_size_bytes(sizes: pd.DataFrame) -> float:
    """Average packet size sum size * count / sum count (seed 000 fig. 4.14, table 4.4)."""
    table = packet_size_histogram(sizes)
    return float(table["total_bytes"].sum() / table["packets"].sum())


def self_inclusive(value: float | np.ndarray, n_nodes: int) -> float | np.ndarray:
    """Self-inclusive bandwidth, traffic or packet rate, eq. 4.9 / 6.2 of seed 000:

        self-inclusive = n / (n-1) * network value

    With uniform traffic a node sends 1/n of its traffic to itself, which never enters the
    network; scaling the measured (network) value by n/(n-1) adds that local share back, so
    values at different n compare.
    """
    n = node_count(n_nodes, "analysis.n_nodes")
    return value * n / (n - 1)


def average_injection(endpoints: pd.DataFrame, execution_time_ns: float) -> pd.DataFrame:
    """Average injection bandwidth and packet rate per endpoint (seed 000 eq. 4.7 and 4.9).

    `endpoints` has `endpoint`, `bytes_injected`, `packets_injected`. Real bandwidth is bytes
    injected / execution time (eq. 4.7 per node: total traffic / (time * n) is its mean).
    Self-inclusive columns apply eq. 4.9 with n = the number of endpoints in the table.
    Returns endpoint, injection_gbytes_per_s, injection_gpackets_per_s and their
    self_inclusive_* versions.
    """
    require_columns(
        endpoints, ["endpoint", "bytes_injected", "packets_injected"], "analysis.endpoints"
    )
    time_ns = positive(execution_time_ns, "analysis.execution_time_ns")
    n = node_count(len(endpoints), "analysis.endpoints")
    table = pd.DataFrame({"endpoint": endpoints["endpoint"].to_numpy()})
    table["injection_gbytes_per_s"] = endpoints["bytes_injected"].to_numpy() / time_ns
    table["injection_gpackets_per_s"] = endpoints["packets_injected"].to_numpy() / time_ns
    for column in ("injection_gbytes_per_s", "injection_gpackets_per_s"):
        table[f"self_inclusive_{column}"] = self_inclusive(table[column], n)
    return table


def _require_series(series: pd.DataFrame) -> None:
    require_columns(
        series, ["endpoint", "bin_start_ns", "bytes", "packets"], "analysis.time_series"
    )
    require_nonempty(series, "analysis.time_series")
    if (series["bin_start_ns"] < 0).any():
        raise ConfigError("analysis.time_series", "bin_start_ns < 0", "bin starts >= 0")


def binned_injection(
    series: pd.DataFrame, bin_ns: float = DEFAULT_BIN_NS, end_ns: float | None = None
) -> pd.DataFrame:
    """Per-endpoint injection in fixed bins of `bin_ns`, with every empty bin filled with 0.

    Bins start at the earliest bin_start_ns of `series` (the core's series starts at the
    measurement window, not at 0) and rows are re-binned by floor((bin_start_ns - start) /
    bin_ns), so `bin_ns` should be a multiple of the recorded bin width. Bins run up to `end_ns`
    (absolute; default: the end of the last bin present); endpoints are those in `series`.
    Returns endpoint, bin_start_ns, bytes, packets, injection_gbytes_per_s and
    injection_gpackets_per_s.
    """
    _require_series(series)
    width = positive(bin_ns, "analysis.bin_ns")
    starts = series["bin_start_ns"].to_numpy(dtype=float)
    origin = starts.min()
    bins = ((starts - origin) // width).astype(int)
    n_bins = int(bins.max()) + 1
    if end_ns is not None:
        n_bins = max(n_bins, int(np.ceil((positive(end_ns, "analysis.end_ns") - origin) / width)))
    endpoints, row = np.unique(series["endpoint"].to_numpy(), return_inverse=True)
    totals = {}
    for column in ("bytes", "packets"):
        grid = np.zeros((len(endpoints), n_bins))
        np.add.at(grid, (row, bins), series[column].to_numpy(dtype=float))
        totals[column] = grid.ravel()
    table = pd.DataFrame(
        {
            "endpoint": np.repeat(endpoints, n_bins),
            "bin_start_ns": np.tile(origin + np.arange(n_bins) * width, len(endpoints)),
            **totals,
        }
    )
    table["injection_gbytes_per_s"] = table["bytes"] / width
    table["injection_gpackets_per_s"] = table["packets"] / width
    return table


def instantaneous_injection_stats(
    series: pd.DataFrame, bin_ns: float = DEFAULT_BIN_NS, end_ns: float | None = None
) -> pd.DataFrame:
    """Instantaneous injection bandwidth and packet rate per endpoint (seed 000 §4.5.2, §4.6.2).

    Each (endpoint, bin) of `binned_injection` is one sample, empty bins included (they are part
    of the distribution the thesis's histograms show). Returns one row per metric
    (injection_gbytes_per_s, injection_gpackets_per_s) with columns avg, p90, p95, p99.
    """
    binned = binned_injection(series, bin_ns, end_ns)
    rows = {}
    for metric in ("injection_gbytes_per_s", "injection_gpackets_per_s"):
        values = binned[metric].to_numpy()
        rows[metric] = {"avg": values.mean()} | {
            f"p{p}": np.percentile(values, p) for p in PERCENTILES
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def injection_timeline_bytes(
    series: pd.DataFrame,
    bin_ns: float = DEFAULT_BIN_NS,
    endpoint: object | None = None,
    end_ns: float | None = None,
) -> np.ndarray:
    """Bytes injected per bin by one endpoint, or by the mean endpoint when `endpoint` is None:
    the per-node timeline that `projection.capped_timeline` (Algorithm 1) takes."""
    binned = binned_injection(series, bin_ns, end_ns)
    if endpoint is not None:
        binned = binned[binned["endpoint"] == endpoint]
        if binned.empty:
            raise ConfigError("analysis.endpoint", repr(endpoint), "an endpoint in the series")
    return binned.groupby("bin_start_ns")["bytes"].mean().to_numpy()
