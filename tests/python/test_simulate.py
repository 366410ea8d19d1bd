"""End-to-end runs of the simulator through the Python API, each checking a number."""

import json
import threading

import pytest

import exanet
from exanet import ConfigError, DeadlockError, _core

BASE = {
    "seed": 7,
    "topology": {"kind": "torus", "dims": [8, 8]},
    "router": {"vcs": 2, "latency": "50ns", "vc_buffer": "2KiB"},
    "links": {"latency": "20ns", "bandwidth": "25GB/s"},
    "traffic": {"pattern": "uniform", "process": "bernoulli", "load": 0.3, "packet": "256B"},
    "run": {"warmup": "2us", "measure": "10us"},
}


def config(**sections):
    """BASE with some sections updated key by key."""
    merged = json.loads(json.dumps(BASE))
    for section, values in sections.items():
        if isinstance(values, dict):
            merged.setdefault(section, {}).update(values)
        else:
            merged[section] = values
    return merged


def test_lone_neighbour_packets_take_the_analytic_time():
    # 1 hop: 2 NIC links (20 ns) + 2 routers (50 ns) + 1 link (20 ns) + 288 B at 25 GB/s.
    result = exanet.simulate(
        config(traffic={"pattern": "neighbor", "load": 0.001}, run={"measure": "200us"})
    )
    summary = result.summary
    assert summary["hops_mean"] == 1.0
    assert round(summary["latency_ns_min"] * 1000) == 2 * 20_000 + 2 * 50_000 + 20_000 + 11_520
    assert summary["packets_measured_delivered"] > 50


def test_tables_and_summary_agree():
    result = exanet.simulate(config())
    summary, endpoints, links = result.summary, result.endpoints, result.links
    assert len(endpoints) == 64
    # 64 routers x 4 network ports, plus one injection and one ejection link per endpoint.
    assert (links["kind"] == "network").sum() == summary["network_links"] == 256
    assert (links["kind"] == "injection").sum() == (links["kind"] == "ejection").sum() == 64
    # Two routes to the same numbers: endpoint counters versus NIC link counters. A link counts
    # a packet when it starts sending it, an endpoint when the tail arrives 11.52 + 20 ns later:
    # at each edge of the window they disagree by the packets on the wire, at most 3 of 288 B.
    ejection = links[links["kind"] == "ejection"].sort_values("endpoint")
    injection = links[links["kind"] == "injection"].sort_values("endpoint")
    assert (injection["bytes"].to_numpy() == endpoints["bytes_injected"].to_numpy()).all()
    edge = ejection["bytes"].to_numpy().astype(int) - endpoints["bytes_received"].to_numpy()
    assert abs(edge).max() <= 3 * 288
    assert endpoints["accepted_load"].mean() == pytest.approx(summary["accepted_load"], rel=1e-12)
    network = links[links["kind"] == "network"]
    assert network["util"].mean() == pytest.approx(summary["link_util_mean"], rel=1e-12)
    assert network["util"].max() == pytest.approx(summary["link_util_max"], rel=1e-12)
    # Uniform traffic at 30% on an 8x8 torus: each link carries load x mean hops / 4 ports.
    expected_util = summary["accepted_load"] * summary["hops_mean"] / 4
    assert summary["link_util_mean"] == pytest.approx(expected_util, rel=0.03)
    assert summary["littles_law_error"] < 0.02


def test_same_seed_same_results_other_seed_differs():
    def stable(result):
        summary = {
            k: v
            for k, v in result.summary.items()
            if k not in ("wall_s", "events_per_s", "packet_hops_per_s")
        }
        return summary, result.endpoints, result.links

    a = stable(exanet.simulate(config(traffic={"process": "poisson"})))
    b = stable(exanet.simulate(config(traffic={"process": "poisson"})))
    assert a[0] == b[0]
    assert a[1].equals(b[1])
    assert a[2].equals(b[2])
    c = stable(exanet.simulate(config(seed=8, traffic={"process": "poisson"})))
    assert c[0] != a[0]


def test_drain_all_delivers_every_packet_once():
    summary = exanet.simulate(
        config(traffic={"pattern": "transpose", "load": 0.5}, run={"drain": "all"})
    ).summary
    assert summary["packets_delivered"] == summary["packets_generated"] > 1000
    assert summary["delivery_checksum_ok"] is True
    assert summary["packets_in_flight_end"] == 0


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"router": {"vcs": 1}}, "router.vcs"),
        ({"traffic": {"load": 1.5}}, "traffic.load"),
        ({"links": {"bandwidth": "-25GB/s"}}, "links.bandwidth"),
        ({"links": {"latency": "0ns"}}, "links.latency"),
        ({"router": {"buffers": 4}}, "router.buffers"),
        ({"router": {"vcs": "two"}}, "router.vcs"),
        ({"topology": {"dims": [6, 6]}, "traffic": {"pattern": "transpose"}}, "traffic.pattern"),
        ({"links": {"global": {"latency": "100ns"}}}, "links.global"),
    ],
)
def test_bad_input_names_the_key(changes, key):
    with pytest.raises(ConfigError) as caught:
        exanet.simulate(config(**changes))
    assert caught.value.key == key


def test_one_vc_torus_refusal_explains_datelines():
    with pytest.raises(ConfigError) as caught:
        exanet.validate(config(router={"vcs": 1}))
    assert "dateline" in caught.value.expected
    assert "allow_unsafe" in caught.value.expected


def test_unsafe_one_vc_torus_deadlock_is_reported():
    unsafe = config(
        routing={"kind": "dor", "allow_unsafe": True},
        router={"vcs": 1},
        traffic={"load": 1.0},
    )
    unsafe["run"] = {"duration": "1ms", "deadlock_timeout": "5us"}
    with pytest.raises(DeadlockError) as caught:
        exanet.simulate(unsafe)
    report = caught.value.report
    cycle = report["cycle"]
    assert len(cycle) >= 2
    for here, there in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert here["peer_router"] == there["router"]
    assert "cycle" in caught.value.format_report()


def test_the_simulation_releases_the_gil():
    long_run = json.dumps(
        exanet.Config.from_dict(
            config(topology={"dims": [16, 16]}, run={"warmup": "0us", "measure": "200us"})
        ).to_core()
    )
    done = threading.Event()
    thread = threading.Thread(target=lambda: (_core.run(long_run), done.set()))
    thread.start()
    spins = 0
    while not done.is_set():
        spins += 1
    thread.join()
    # With the GIL held for the whole run this thread could not have looped at all.
    assert spins > 10_000


def test_progress_reports_advance_and_an_exception_stops_the_run():
    core_json = json.dumps(exanet.Config.from_dict(config(run={"measure": "100us"})).to_core())
    reports = []
    _core.run(core_json, reports.append, 0.0)
    assert len(reports) >= 2
    times = [r["sim_time_ps"] for r in reports]
    assert times == sorted(times)
    assert {r["phase"] for r in reports} <= {"warmup", "measure", "drain"}
    assert all(r["target_time_ps"] == 102_000_000 for r in reports)

    def stop(_report):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _core.run(core_json, stop, 0.0)
