"""`hops_mean` covers every packet generated in the measurement window, in every drain mode.

Beyond saturation a run that stops at the end of the window (`run.drain = "none"`) has most of
its measured packets still in the network or at their source, and the ones that did arrive are
the short routes: the mean over arrived packets alone was 1.26 hops on an 8x8 torus under
transpose whose routes average 4.00. Every check here compares the summary with a number
computed independently from the pattern and the topology.
"""

import numpy as np
import pytest

import exanet

DIMS = 8
BASE = {
    "seed": 7,
    "router": {"latency": "50ns", "vc_buffer": "2KiB"},
    "links": {"latency": "20ns", "bandwidth": "25GB/s"},
    # Offered 0.9 against 0.27-0.31 accepted under dimension order and 0.68 adaptive: beyond
    # saturation.
    "traffic": {"pattern": "transpose", "process": "bernoulli", "load": 0.9, "packet": "256B"},
    "run": {"warmup": "2us", "measure": "10us"},
}
DRAINS = ["none", "all", "measured"]


def simulate(kind, routing, vcs, drain):
    config = {
        **BASE,
        "topology": {"kind": kind, "dims": [DIMS, DIMS]},
        "routing": routing,
        "router": {**BASE["router"], "vcs": vcs},
        "run": {**BASE["run"], "drain": drain},
    }
    return exanet.simulate(config)


def transpose_hops(endpoints, wraps):
    """Minimal router hops from each endpoint to its transpose partner (one endpoint per
    router, endpoint = x + 8 y: transpose swaps the 3-bit halves, i.e. x and y)."""
    x = endpoints["coord0"].to_numpy()
    y = endpoints["coord1"].to_numpy()
    assert (endpoints["endpoint"].to_numpy() == x + DIMS * y).all()
    offset = np.abs(x - y)
    per_dimension = np.minimum(offset, DIMS - offset) if wraps else offset
    # Both dimensions differ by the same offset (x -> y, y -> x).
    return 2 * per_dimension


MINIMAL_ROUTINGS = [
    ("torus", {"kind": "dor"}, 2, True),
    ("torus", {"kind": "minimal", "escape": "bubble"}, 3, True),
    ("mesh", {"kind": "dor"}, 1, False),
]


@pytest.mark.parametrize("drain", DRAINS)
@pytest.mark.parametrize(("kind", "routing", "vcs", "wraps"), MINIMAL_ROUTINGS)
def test_hops_mean_of_minimal_routes_is_the_mean_distance_of_the_measured_packets(
    kind, routing, vcs, wraps, drain
):
    result = simulate(kind, routing, vcs, drain)
    summary, endpoints = result.summary, result.endpoints.sort_values("endpoint")
    # Beyond saturation: without a drain many measured packets have not arrived.
    assert summary["accepted_load"] < 0.8 * summary["offered_load"]
    if drain == "none":
        assert summary["packets_measured_delivered"] < 0.8 * summary["packets_measured"]
    hops = transpose_hops(endpoints, wraps)
    generated = endpoints["packets_generated"].to_numpy()
    assert generated.sum() == summary["packets_measured"]
    # Exact: every measured packet counts its source-destination distance, arrived or not.
    expected = (generated * hops).sum() / generated.sum()
    assert summary["hops_mean"] == pytest.approx(expected, rel=1e-12)
    # And the pattern's analytic mean distance (8x8 torus: 2 x E[min(d, 8 - d)] = 4; mesh:
    # 2 x E|x - y| = 2 x 63 / 24 = 5.25), over the endpoints that send, each weighted
    # alike: the sources' packet counts differ by a few percent (Bernoulli), which moves the
    # weighted mean by well under 1%.
    senders = generated > 0
    assert summary["hops_mean"] == pytest.approx(hops[senders].mean(), rel=0.01)


def test_hops_mean_of_unfinished_valiant_routes_lies_between_minimal_and_finished():
    # Under a routing that may leave minimal routes a packet that has not arrived counts its
    # minimal route, those that arrived the hops they took: a lower bound of the finished
    # routes, above the minimal mean (8x8 torus: about 5.36 against 6.99 drained and 4.00).
    stopped = simulate("torus", {"kind": "valiant"}, 16, "none")
    drained = simulate("torus", {"kind": "valiant"}, 16, "all")
    assert stopped.summary["packets_measured"] == drained.summary["packets_measured"]
    assert stopped.summary["packets_measured_delivered"] < drained.summary["packets_measured"]
    endpoints = drained.endpoints.sort_values("endpoint")
    generated = endpoints["packets_generated"].to_numpy()
    minimal = (generated * transpose_hops(endpoints, True)).sum() / generated.sum()
    # Valiant routes through a random intermediate: well above the minimal 4 hops.
    assert drained.summary["hops_mean"] > 1.5 * minimal
    assert minimal < stopped.summary["hops_mean"] < drained.summary["hops_mean"]
