"""The parallel engine from Python and the CLI: `threads` changes how the run is computed, never
its answer; the keys it cannot take are refused by name."""

import json
import warnings

import pytest
from samples import ENGINE_KEYS
from typer.testing import CliRunner

import exanet
from exanet import cli

CONFIG = {
    "topology": {"kind": "torus", "dims": [8, 8]},
    "routing": {"kind": "minimal", "selection": "adaptive", "escape": "dor"},
    "router": {"vcs": 3},
    "traffic": {"pattern": "transpose", "load": 0.6},
    "run": {"warmup": "1us", "measure": "3us"},
}


def network_figures(summary):
    return {k: v for k, v in summary.items() if k not in ENGINE_KEYS}


def test_two_and_three_threads_give_the_sequential_summary_and_tables():
    one = exanet.simulate({**CONFIG, "threads": 1}, progress=False)
    assert one.summary["threads"] == 1 and one.summary["lookahead_ns"] == 0
    for threads in (2, 3):
        other = exanet.simulate({**CONFIG, "threads": threads}, progress=False)
        assert other.summary["threads"] == threads
        assert other.summary["lookahead_ns"] == 20.0  # the default link latency
        assert network_figures(other.summary) == network_figures(one.summary)
        assert other.endpoints.equals(one.endpoints)
        assert other.links.equals(one.links)


def test_the_cli_flag_sets_the_workers(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        '[topology]\nkind = "torus"\ndims = [8, 8]\n[traffic]\nload = 0.3\n'
        '[run]\nwarmup = "1us"\nmeasure = "2us"\n'
    )
    runner = CliRunner()
    summaries = []
    for threads in ("1", "2"):
        out = tmp_path / f"out{threads}"
        result = runner.invoke(
            cli.app, ["run", str(path), "-q", "--threads", threads, "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        summaries.append(json.loads((out / "summary.json").read_text()))
    assert [s["threads"] for s in summaries] == [1, 2]
    assert network_figures(summaries[0]) == network_figures(summaries[1])


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"threads": 0}, "threads"),
        ({"threads": 65}, "threads"),  # more workers than the 64 routers
        ({"threads": 2, "routing": {"kind": "ugal_g"}}, "threads"),
    ],
)
def test_thread_counts_the_engine_cannot_use_are_refused_by_key(changes, key):
    config = {**CONFIG, **changes}
    if "routing" in changes:
        config["topology"] = {"kind": "dragonfly", "p": 2, "a": 4, "h": 2, "g": 9}
        config["router"] = {"vcs": 4}
        config["traffic"] = {"pattern": "uniform", "load": 0.3}
    with pytest.raises(exanet.ConfigError) as error:
        exanet.simulate(config, progress=False)
    assert error.value.key == key


def test_bursts_need_a_positive_restart_delay_and_count_it_between_bursts():
    traffic = {"kind": "burst", "packets_per_burst": 20, "bursts": 3, "packet": "256B"}
    with pytest.raises(exanet.ConfigError) as error:
        exanet.simulate({**CONFIG, "traffic": {**traffic, "restart_delay": "0ns"}}, progress=False)
    assert error.value.key == "traffic.restart_delay"
    result = exanet.simulate(
        {**CONFIG, "traffic": {**traffic, "restart_delay": "250ns"}, "threads": 2},
        progress=False,
    )
    bursts = result.bursts
    gaps = bursts["start_ns"].iloc[1:].to_numpy() - bursts["end_ns"].iloc[:-1].to_numpy()
    assert gaps == pytest.approx([250.0, 250.0], abs=1e-9)
    assert result.summary["sim_time_ns"] == bursts["end_ns"].iloc[-1]


def test_message_passing_jobs_give_the_sequential_jobs_table_on_two_threads():
    config = {
        "topology": {"kind": "torus", "dims": [4, 4]},
        "router": {"vc_buffer": "16KiB"},
        "traffic": {
            "kind": "jobs",
            "jobs": [
                {"app": "allpingpong", "ranks": 8, "message": "24KiB", "iterations": 2},
                {"app": "alltoall", "ranks": 8, "message": "2KiB", "placement": "random_endpoints"},
            ],
            "alone": True,
            "send_overhead": "50ns",
        },
    }
    one = exanet.simulate({**config, "threads": 1}, progress=False)
    two = exanet.simulate({**config, "threads": 2}, progress=False)
    assert two.summary["threads"] == 2
    assert network_figures(two.summary) == network_figures(one.summary)
    assert two.jobs.equals(one.jobs)
    # Rendezvous messages (24 KiB, above the 16 KiB eager limit) and eager ones both finished.
    assert (one.jobs["bytes_sent"] > 0).all()


def test_a_run_whose_windows_are_too_sparse_for_its_workers_is_warned_about():
    # 8x8 torus, 20 ns lookahead: at load 0.6 a window holds thousands of events per worker;
    # at 0.002 a handful, and synchronising the windows costs more than their work.
    sparse = {**CONFIG, "traffic": {"pattern": "uniform", "load": 0.002}, "threads": 2}
    with pytest.warns(UserWarning, match="fewer workers would likely be faster") as caught:
        result = exanet.simulate(sparse, progress=False)
    s = result.summary
    assert s["events_per_window"] / 2 < exanet.api.SPARSE_WINDOW_EVENTS
    assert f"{s['events_per_window'] / 2:.0f} events per worker" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dense = exanet.simulate({**CONFIG, "threads": 2}, progress=False).summary
        exanet.simulate({**sparse, "threads": 1}, progress=False)
    assert dense["events_per_window"] / 2 >= exanet.api.SPARSE_WINDOW_EVENTS
