"""Sample core outputs shared by the tests (shapes as in docs/core-interface.md)."""

import numpy as np


def channel(name, router, peer_router, queued_packets):
    return {
        "name": name,
        "router": router,
        "port": 1,
        "port_name": "dim0+",
        "vc": 0,
        "peer_router": peer_router,
        "queued_packets": queued_packets,
        "credits_bytes": 0,
    }


CYCLE = [channel("r0.dim0+.vc0", 0, 1, 3), channel("r1.dim0+.vc0", 1, 0, 2)]
REPORT = {
    "time_ns": 1234.5,
    "packets_in_network": 42,
    "stuck_channels": [*CYCLE, channel("r7.dim0+.vc0", 7, 0, 1)],
    "cycle": CYCLE,
}


def core_table(columns, categories=None):
    return {
        "columns": [
            [name, dtype, np.asarray(values, dtype=dtype).tobytes()]
            for name, dtype, values in columns
        ],
        "categories": categories or {},
    }


ENDPOINTS = core_table(
    [
        ("endpoint", "<u4", [0, 1, 2, 3]),
        ("injected_packets", "<u8", [10, 11, 12, 2**40]),
        ("accepted_gbps", "<f8", [1.5, 2.5, 3.5, 4.5]),
        ("offset", "<i8", [-1, 0, 1, 2]),
    ]
)
LINKS = core_table(
    [
        ("link", "<u4", [0, 1, 2]),
        ("class", "<u4", [1, 0, 1]),
        ("link_util", "<f8", [0.1, 0.2, 0.3]),
    ],
    categories={"class": ["dim0", "dim1"]},
)
SUMMARY = {
    "endpoints": 4,
    "mode": "windowed",
    "sim_time_ns": 12_500.0,
    "window_ns": 10_000.0,
    "drained": True,
    "latency_ns_mean": 123.5,
    "latency_ns_p50": 110.0,
    "latency_ns_p99": 321.0,
    "offered_load": 0.5,
    "offered_gbytes_per_s": 12.5,
    "accepted_load": 0.49,
    "accepted_gbytes_per_s": 12.25,
    "accepted_packets_per_ns": 0.0425,
    "packet_bytes_mean": 288.0,
    "hops_mean": 1.75,
    "link_util_mean": 0.25,
    "link_util_max": 0.5,
    "in_flight_packets_mean": 10.0,
    "littles_law_packets": 9.9,
    "littles_law_error": 0.01,
    "events": 99_000,
    "events_per_s": 12_345_678.0,
    "packet_hops": 5_000,
    "packet_hops_per_s": 2_500_000.0,
    "wall_s": 0.002,
}


class SampleRun:
    """Shaped like the RunResult that `exanet._core.run` returns; counts table requests."""

    def __init__(self, summary=None):
        self._summary = dict(SUMMARY if summary is None else summary)
        self.tables_built = []

    def summary(self):
        return dict(self._summary)

    def table(self, name):
        self.tables_built.append(name)
        return {"endpoints": ENDPOINTS, "links": LINKS}[name]


#: Summary keys that describe the engine (time, workers, windows), not the simulated network:
#: the only ones that may differ between threads, processes and one worker.
ENGINE_KEYS = frozenset(
    {
        "wall_s",
        "events_per_s",
        "packet_hops_per_s",
        "threads",
        "processes",
        "windows",
        "events_per_window",
        "barrier_wait_share",
        "lookahead_ns",
        "peak_packets",
    }
)
