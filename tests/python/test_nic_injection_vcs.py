"""nic.injection_vcs: the router input VCs a NIC's packets may enter. With one-packet VC
buffers and a long injection link, each VC carries one packet per credit round trip, so the
accepted load is exactly proportional to the VCs a NIC may use."""

import pytest

import exanet
from exanet.errors import ConfigError

# 64 B packets at 1 GB/s: 64 ns on the wire. A VC's credit comes back when the tail has left
# the router (head at 200 ns, out after the 1 ns router latency, tail 64 ns later) plus the
# 200 ns injection link: one packet per 465 ns per VC, 64 / 465 of the link.
ROUND_TRIP_NS = 64 + 200 + 1 + 200


def accepted(injection_vcs):
    nic = {"injection_latency": "200ns", "mtu": "64B", "header": "0B"}
    if injection_vcs is not None:
        nic["injection_vcs"] = injection_vcs
    return exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4]},
            "router": {"vcs": 3, "vc_buffer": "64B", "latency": "1ns"},
            "routing": {"kind": "dor"},
            "links": {"latency": "1ns", "bandwidth": "1GB/s"},
            "nic": nic,
            "traffic": {"pattern": "tornado", "load": 1.0, "packet": "64B"},
            "run": {"warmup": "5us", "measure": "20us", "drain": "none"},
        }
    ).summary["accepted_load"]


@pytest.mark.parametrize(("injection_vcs", "vcs_used"), [(1, 1), (2, 2), (3, 3), (None, 3)])
def test_each_injection_vc_carries_one_packet_per_credit_round_trip(injection_vcs, vcs_used):
    assert accepted(injection_vcs) == pytest.approx(vcs_used * 64 / ROUND_TRIP_NS, rel=1e-3)


def test_more_injection_vcs_than_the_router_has_is_refused_naming_the_key():
    with pytest.raises(ConfigError, match=r"'nic\.injection_vcs' = 4 .*router\.vcs \(3\)"):
        exanet.simulate(
            {
                "topology": {"kind": "torus", "dims": [4]},
                "router": {"vcs": 3},
                "nic": {"injection_vcs": 4},
                "traffic": {"load": 0.1},
            }
        )
