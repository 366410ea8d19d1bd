"""One run's traffic characterisation in the terms of Su's UpDown study (ch. 4), from the tables
a run records (`[record]`): one flat dict whose keys carry their units."""

from __future__ import annotations

from typing import Any

from exanet.analysis.traffic import (
    average_injection,
    bisection_fraction,
    instantaneous_injection_stats,
    mean_packet_size_bytes,
    p2p_cov_percent,
    traffic_matrix,
)


def characterize(result: Any, bin_ns: float | None = None) -> dict[str, float]:
    """The traffic characterisation of `result` (an `exanet.Result`): what its recorded tables
    allow. Always: average injection bandwidth and packet rate per endpoint over the window
    (real and self-inclusive, eq. 4.7 and 4.9). With an endpoint traffic matrix: the
    coefficient of variation of normalised point-to-point traffic (eq. 4.2-4.6) and the share of
    traffic crossing the bisection between the first and second half of the endpoints. With an
    injection series: instantaneous injection bandwidth and packet rate per endpoint, avg / p90 /
    p95 / p99 over bins of `bin_ns` (default: the recorded bin). With packet sizes: the mean
    delivered packet size."""
    window_ns = result.summary["window_ns"]
    out: dict[str, float] = {}
    average = average_injection(result.endpoints, window_ns).mean(numeric_only=True)
    for column in (
        "injection_gbytes_per_s",
        "injection_gpackets_per_s",
        "self_inclusive_injection_gbytes_per_s",
        "self_inclusive_injection_gpackets_per_s",
    ):
        out[f"{column}_mean"] = float(average[column])
    pairs = result.traffic_matrix
    if len(pairs) and result.summary["traffic_matrix_level"] == "endpoints":
        matrix = traffic_matrix(pairs, result.summary["endpoints"])
        out["p2p_cov_percent"] = p2p_cov_percent(matrix)
        out["bisection_fraction"] = bisection_fraction(matrix)
    series = result.injection_series
    if len(series):
        stats = instantaneous_injection_stats(
            series,
            bin_ns or result.config.record.injection_bin / 1000,
            end_ns=series["bin_start_ns"].min() + window_ns,
        )
        for metric, row in stats.iterrows():
            for statistic, value in row.items():
                out[f"instantaneous_{metric}_{statistic}"] = float(value)
    if len(result.packet_sizes):
        out["packet_bytes_mean"] = mean_packet_size_bytes(result.packet_sizes)
    return out
