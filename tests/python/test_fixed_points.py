"""The fixed points of permutation patterns: sending to themselves (the default) or silent, as
in Izu et al.'s sources (traffic.fixed_points)."""

import pytest

import exanet
from exanet.errors import ConfigError

TORUS = {"kind": "torus", "dims": [4, 4]}  # 16 endpoints; transpose swaps the 2-bit halves
DIAGONAL = [0, 5, 10, 15]


def synthetic(fixed_points, pattern="transpose"):
    return exanet.simulate(
        {
            "topology": TORUS,
            "traffic": {
                "kind": "synthetic",
                "pattern": pattern,
                "load": 0.4,
                "fixed_points": fixed_points,
            },
            "run": {"warmup": "1us", "measure": "4us"},
        }
    )


def test_transposes_diagonal_stays_silent_and_the_rest_offer_the_load():
    silent = synthetic("silent")
    generated = silent.endpoints["packets_generated"]
    assert [e for e in range(16) if generated[e] == 0] == DIAGONAL
    # 12 of 16 endpoints offer 0.4; the mean over all endpoints is 0.3
    assert silent.summary["offered_load"] == pytest.approx(0.4 * 12 / 16, rel=0.05)
    sending = synthetic("send")
    assert (sending.endpoints["packets_generated"] > 0).all()
    assert sending.summary["offered_load"] == pytest.approx(0.4, rel=0.05)
    # the senders draw the same stream either way: their offered traffic is unchanged
    others = [e for e in range(16) if e not in DIAGONAL]
    assert (
        silent.endpoints["packets_generated"][others].tolist()
        == sending.endpoints["packets_generated"][others].tolist()
    )


def test_a_burst_ends_when_the_endpoints_that_send_are_done():
    result = exanet.simulate(
        {
            "topology": TORUS,
            "traffic": {
                "kind": "burst",
                "pattern": "shuffle",  # fixed points 0 and 15
                "packets_per_burst": 20,
                "bursts": 3,
                "fixed_points": "silent",
            },
        }
    )
    assert result.summary["packets_delivered"] == 14 * 20 * 3
    assert result.endpoints["packets_generated"][[0, 15]].tolist() == [0, 0]


def test_a_burst_where_every_endpoint_is_a_fixed_point_is_refused():
    config = {
        "topology": {"kind": "torus", "dims": [2], "concentration": 1},
        "traffic": {"kind": "burst", "pattern": "bit_reverse", "fixed_points": "silent"},
    }
    with pytest.raises(ConfigError) as info:
        exanet.simulate(config)
    assert info.value.key == "traffic.fixed_points"
