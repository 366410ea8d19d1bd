"""Closed-loop threads (`traffic.kind = "threads"`, 000 ch. 5): the configuration in its
units, Little's law over the waiting threads, the closed form of a lane that never idles, and
errors that name their key. (The closed forms to the picosecond: crates/exanet-core/tests.)"""

import pytest

import exanet
import exanet.config
from exanet.errors import ConfigError


def config(**traffic):
    return {
        "topology": {"kind": "torus", "dims": [4, 4]},
        "traffic": {"kind": "threads", "operations_per_thread": 20, **traffic},
    }


def run(**traffic):
    return exanet.simulate(config(**traffic), progress=False).summary


def test_instructions_at_a_clock_and_ipc_become_the_compute_time():
    traffic = exanet.config.load(
        config(instructions=74.1, clock="2GHz", ipc=1.0, threads_per_lane=128)
    ).to_core()["traffic"]
    assert traffic["compute_ps"] == 37_050
    assert traffic["threads_per_lane"] == 128
    assert traffic["operations"] == [
        {"weight": 1.0, "request_bytes": 16, "response_bytes": 64, "service_ps": 0}
    ]
    dumped = exanet.config.load(config(instructions=50, clock="1.5GHz", ipc=2)).model_dump(
        mode="json"
    )
    assert dumped["traffic"]["clock"] == "1.5GHz"
    assert exanet.config.load(config(compute="10ns")).to_core()["traffic"]["compute_ps"] == 10_000


def test_waiting_threads_obey_littles_law():
    # With one operation in flight per thread, a thread waits exactly its operation's latency:
    # mean waiting threads x lane-time = operations x mean latency.
    s = run(threads_per_lane=8, compute="37ns")
    lanes = 16
    assert s["operations"] == s["requests_served"] == lanes * 8 * 20
    waiting = s["threads_waiting_mean"] * lanes * s["completion_ns"]
    assert waiting == pytest.approx(s["operations"] * s["operation_latency_ns_mean"], rel=1e-9)
    busy = s["lane_busy_fraction"] * lanes * s["completion_ns"]
    assert busy == pytest.approx(s["operations"] * 37.0, rel=1e-9)


def test_enough_threads_keep_every_lane_busy():
    # 64 threads of 37 ns hide a round trip of about 0.5 us: the lanes never idle, and the run
    # is all compute but the last operation's round trip.
    s = run(threads_per_lane=64, compute="37ns", operations_per_thread=10)
    compute_ns = 64 * 10 * 37.0
    assert compute_ns < s["completion_ns"] < compute_ns + 1.2 * s["operation_latency_ns_max"]
    assert s["lane_busy_fraction"] > 0.95


@pytest.mark.parametrize(
    ("traffic", "key"),
    [
        ({"compute": "10ns", "instructions": 20}, "traffic.compute"),
        ({}, "traffic.compute"),
        ({"compute": "10ns", "outstanding_per_thread": 65}, "traffic.outstanding_per_thread"),
        ({"compute": "10ns", "operations_total": 100}, "traffic.operations_per_thread"),
        ({"compute": "10ns", "operations": []}, "traffic.operations"),
        ({"compute": "10ns", "clock": "2GHzz", "instructions": 3}, "traffic.clock"),
        ({"instructions": 1e15, "clock": "1Hz"}, "traffic.instructions"),
        ({"compute": "1000000s", "threads_per_lane": 1000}, "traffic.compute"),
        (
            {
                "compute": "10ns",
                "lanes_per_endpoint": 4096,
                "threads_per_lane": 1024,
                "outstanding_per_thread": 64,
            },
            "traffic.threads_per_lane",
        ),
        (
            {"compute": "10ns", "operations": [{"request": "16B", "latency": "1ns"}]},
            "traffic.operations[0].latency",
        ),
    ],
)
def test_a_bad_threads_config_names_its_key(traffic, key):
    with pytest.raises(ConfigError) as error:
        run(**traffic)
    assert key in str(error.value)


def test_message_classes_and_priority_run_alike_on_two_workers():
    cfg = config(threads_per_lane=32, outstanding_per_thread=4, compute="0ns")
    cfg["router"] = {"vcs": 4, "message_classes": 2, "priority": "responses"}
    one = exanet.simulate(cfg, progress=False).summary
    two = exanet.simulate({**cfg, "threads": 2}, progress=False).summary
    assert one["operations"] == one["requests_served"] == 16 * 32 * 20
    for key in ("completion_ns", "operation_latency_ns_mean", "threads_waiting_mean"):
        assert one[key] == two[key], key


def test_message_classes_must_split_the_vcs_evenly():
    cfg = config(compute="10ns")
    cfg["router"] = {"vcs": 3, "message_classes": 2}
    with pytest.raises(ConfigError) as error:
        exanet.simulate(cfg, progress=False)
    assert "router.message_classes" in str(error.value)
    cfg["router"] = {"vcs": 2, "message_classes": 2}  # DOR on a torus needs 2 per class
    with pytest.raises(ConfigError) as error:
        exanet.simulate(cfg, progress=False)
    assert "router.vcs" in str(error.value) and "2 message classes" in str(error.value)


def test_the_endpoints_table_adds_up_to_the_summary():
    result = exanet.simulate(config(threads_per_lane=8, compute="20ns"), progress=False)
    s, endpoints = result.summary, result.endpoints
    assert endpoints.completion_ns.max() == pytest.approx(s["completion_ns"], rel=1e-12)
    assert endpoints.completion_ns.mean() == pytest.approx(
        s["endpoint_completion_ns_mean"], rel=1e-9
    )
    # Every endpoint completes the same number of operations: the mean of the endpoints'
    # mean latencies is the run's mean latency.
    assert endpoints.operation_latency_ns_mean.mean() == pytest.approx(
        s["operation_latency_ns_mean"], rel=1e-9
    )
    per_endpoint = 8 * 20
    assert endpoints.operations_per_us.to_numpy() == pytest.approx(
        per_endpoint / (endpoints.completion_ns.to_numpy() / 1000)
    )


def test_a_total_of_operations_is_shared_by_every_thread():
    cfg = config(threads_per_lane=3, compute="10ns")
    del cfg["traffic"]["operations_per_thread"]
    cfg["traffic"]["operations_total"] = 1000
    result = exanet.simulate(cfg, progress=False)
    assert result.summary["operations"] == result.summary["requests_served"] == 1000
    # 48 threads: the first 40 do 21, the others 20; endpoint e holds threads 3e to 3e + 2.
    done = (result.endpoints.completion_ns / 1000 * result.endpoints.operations_per_us).round()
    assert list(done) == [63] * 13 + [21 + 20 + 20] + [60] * 2
