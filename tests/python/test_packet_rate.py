"""Packet-rate limits (000 §2.3's NIC and switch forwarding rates): `nic.packet_rate` and
`router.packet_rate`, enforced per window; counted exactly against the rate x the window."""

import pytest

import exanet
from exanet.errors import ConfigError

WINDOW_NS = 10_000


def run(nic=None, router=None, threads=1):
    # 16 B packets on 25 GB/s links: 1.56 G packets/s per link, far above the limits here.
    return exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "router": router or {},
            "nic": {"header": "0B", **(nic or {})},
            "traffic": {"pattern": "uniform", "load": 1.0, "packet": "16B"},
            "run": {"warmup": "1us", "measure": f"{WINDOW_NS}ns", "drain": "none"},
            "threads": threads,
        }
    )


def router_forwards(result):
    """Packets each router sent on its network and ejection links in the window."""
    links = result.links
    return links[links.kind != "injection"].groupby("router", observed=True).packets.sum()


@pytest.mark.parametrize(("rate", "per_s"), [("100Mpps", 100_000_000), ("150Mpps", 150_000_000)])
def test_a_saturated_nic_starts_exactly_its_packet_rate(rate, per_s):
    # 150 Mpps is 7.5 packets per 50 ns window: windows take 7 and 8 in turn, the long-run
    # rate stays exact.
    endpoints = run(nic={"packet_rate": rate}).endpoints
    expected = per_s * WINDOW_NS // 10**9
    assert (endpoints.packets_injected == expected).all()


def test_a_router_forwards_at_most_its_packet_rate_and_the_busiest_reach_it():
    free = router_forwards(run())
    limited = router_forwards(run(router={"packet_rate": "200Mpps"}))
    budget = 200_000_000 * WINDOW_NS // 10**9
    assert free.max() > 1.5 * budget
    assert limited.max() == budget
    assert (limited <= budget).all()


def test_packet_rate_limits_give_the_same_results_on_two_threads():
    limits = {"nic": {"packet_rate": "150Mpps"}, "router": {"packet_rate": "200Mpps"}}
    one = run(**limits)
    two = run(**limits, threads=2)
    assert one.summary["accepted_load"] == two.summary["accepted_load"]
    assert (router_forwards(one) == router_forwards(two)).all()


@pytest.mark.parametrize(
    ("section", "value", "key"),
    [
        ("nic", "150Mbps", "nic.packet_rate"),
        ("nic", "0pps", "nic.packet_rate"),
        ("router", "fast", "router.packet_rate"),
        ("router", "2000Tpps", "router.packet_rate"),
    ],
)
def test_a_bad_packet_rate_names_its_key_and_the_units(section, value, key):
    with pytest.raises(ConfigError) as error:
        run(**{section: {"packet_rate": value}})
    assert key in str(error.value)


def test_a_packet_rate_reads_and_writes_in_its_units():
    config = exanet.config.load(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "router": {"packet_rate": "1.5Gpps"},
            "traffic": {"load": 0.1},
        }
    )
    assert config.router.packet_rate == 1_500_000_000
    assert config.to_core()["router"]["packet_rate_per_s"] == 1_500_000_000
    assert config.model_dump(mode="json")["router"]["packet_rate"] == "1.5Gpps"
