"""Analysis of simulation results: pure functions over numpy arrays and pandas DataFrames.

`curves` compares runs (saturation, slowdown, scaling efficiency, performance per cost),
`traffic` characterizes one run's traffic (matrices, packet sizes, injection bandwidth) and
`projection` extrapolates to larger systems. See docs/analysis.md for the expected columns.
"""

from exanet.analysis.characterize import characterize
from exanet.analysis.curves import (
    network_costs,
    performance_per_cost,
    saturation_point,
    saturation_rule,
    scaling_efficiency,
    slowdown,
    stress_slowdown,
    throughput_table,
)
from exanet.analysis.projection import (
    TIMELINE_METHODS,
    LogLogFit,
    TimelineProjection,
    capped_timeline,
    execution_time_ns,
    injection_time_ns,
    loglog_fit,
    project_network_traffic,
    project_program_time,
    project_timeline,
)
from exanet.analysis.traffic import (
    aggregate_matrix,
    average_injection,
    binned_injection,
    bisection_fraction,
    injection_timeline_bytes,
    instantaneous_injection_stats,
    matrix_for_display,
    mean_packet_size_bytes,
    normalized_p2p_traffic,
    p2p_cov_percent,
    packet_size_histogram,
    self_inclusive,
    traffic_matrix,
)

__all__ = [
    "TIMELINE_METHODS",
    "LogLogFit",
    "TimelineProjection",
    "aggregate_matrix",
    "average_injection",
    "binned_injection",
    "bisection_fraction",
    "capped_timeline",
    "characterize",
    "execution_time_ns",
    "injection_time_ns",
    "injection_timeline_bytes",
    "instantaneous_injection_stats",
    "loglog_fit",
    "matrix_for_display",
    "mean_packet_size_bytes",
    "network_costs",
    "normalized_p2p_traffic",
    "p2p_cov_percent",
    "packet_size_histogram",
    "performance_per_cost",
    "project_network_traffic",
    "project_program_time",
    "project_timeline",
    "saturation_point",
    "saturation_rule",
    "scaling_efficiency",
    "self_inclusive",
    "slowdown",
    "stress_slowdown",
    "throughput_table",
    "traffic_matrix",
]
