import json
import math

from typer.testing import CliRunner

from exanet.bench import (
    QUICK_TIME_DIVISOR,
    SCENARIOS,
    app,
    compare_rows,
    cpu_ticks,
    run_benchmarks,
    scenario_config,
    steal_share,
)
from exanet.config import load


def test_scenarios_are_valid_configs():
    for scenario in SCENARIOS.values():
        for quick in (False, True):
            config = load(scenario_config(scenario, quick))
            # The fewest VCs each routing accepts: UGAL-L on a dragonfly needs 3.
            assert config.router.vcs == (3 if scenario.name in "eijk" else 2)
            assert config.links.bandwidth == 25_000_000_000
            if config.traffic.kind == "synthetic":
                assert config.traffic.packet == 256


def test_routing_cost_scenarios_carry_the_same_packets():
    # g and h differ only in routing, at a load both carry: their packet counts compare the
    # per-hop cost of the two routing functions.
    g, h = (load(SCENARIOS[name].config).to_core() for name in "gh")
    assert g["routing"]["kind"] == "minimal" and g["routing"]["escape"] == "bubble"
    assert h["routing"]["kind"] == "dor"
    assert {**g, "routing": None} == {**h, "routing": None}


def test_largest_scenario_has_a_million_endpoints_and_fixed_duration():
    config = load(SCENARIOS["d"].config)
    assert math.prod(config.topology.dims) * config.topology.concentration == 1_048_576
    assert config.run.duration == 1_000_000


def test_quick_divides_run_times():
    full = load(scenario_config(SCENARIOS["a"], quick=False))
    quick = load(scenario_config(SCENARIOS["a"], quick=True))
    assert quick.run.warmup * QUICK_TIME_DIVISOR == full.run.warmup
    assert quick.run.measure * QUICK_TIME_DIVISOR == full.run.measure
    assert quick.traffic == full.traffic


def test_quick_divides_job_messages():
    full = load(scenario_config(SCENARIOS["j"], quick=False))
    quick = load(scenario_config(SCENARIOS["j"], quick=True))
    for big, small in zip(full.traffic.jobs, quick.traffic.jobs, strict=True):
        assert small.message == big.message // QUICK_TIME_DIVISOR
        assert (small.app, small.ranks) == (big.app, big.ranks)


def _row(scenario, hops_per_s, wall_s, packet_hops=1000, threads=1):
    return {
        "scenario": scenario,
        "threads": threads,
        "packet_hops": packet_hops,
        "packet_hops_per_s": hops_per_s,
        "events_per_s": 2 * hops_per_s,
        "wall_s": wall_s,
        "bytes_per_endpoint": 500.0,
    }


def test_compare_gives_after_over_before_and_flags_changed_results():
    before = [_row("a", 1e6, 2.0), _row("b", 4e6, 1.0), _row("c", 1e6, 1.0)]
    after = [_row("a", 1.5e6, 1.5), _row("b", 2e6, 2.0, packet_hops=999), _row("d", 1e6, 1.0)]
    rows = compare_rows(before, after)
    assert [row["scenario"] for row in rows] == ["a", "b"]  # only scenarios in both
    a, b = rows
    assert a["packet_hops_per_s_ratio"] == 1.5
    assert a["events_per_s_ratio"] == 1.5
    assert a["wall_s_ratio"] == 0.75
    assert a["bytes_per_endpoint_ratio"] == 1.0
    assert a["same_work"] and not b["same_work"]
    assert b["packet_hops_per_s_ratio"] == 0.5
    # Another thread count is another measurement.
    assert compare_rows(before, [_row("a", 1e6, 1.0, threads=2)]) == []


# Two readings of /proc/stat as a 2-vCPU guest shows them: user nice system idle iowait irq
# softirq steal guest guest_nice, then one line per CPU.
_PROC_STAT_BEFORE = "cpu  1000 5 200 3000 10 0 5 80 0 0\ncpu0 500 2 100 1500 5 0 3 40 0 0\n"
_PROC_STAT_AFTER = "cpu  1600 5 260 3200 10 0 5 120 0 0\ncpu0 800 2 130 1600 5 0 3 60 0 0\n"


def test_the_host_steal_share_is_the_stolen_part_of_all_cpu_time_between_two_readings():
    before, after = cpu_ticks(_PROC_STAT_BEFORE), cpu_ticks(_PROC_STAT_AFTER)
    assert before == (80, 1000 + 5 + 200 + 3000 + 10 + 5 + 80)
    # 600 user + 60 system + 200 idle + 40 stolen ticks passed: the host took 40 of 900.
    assert math.isclose(steal_share(before, after), 40 / 900)
    # Where the system does not say (not Linux, an unreadable file), it is unknown, not zero.
    assert cpu_ticks("intr 1 2 3\n") is None
    # A kernel too old to count steal (7 fields), or a garbled line.
    assert cpu_ticks("cpu  1000 5 200 3000 10 0 5\n") is None
    assert cpu_ticks("cpu  1000 5 200 3000 10 0 5 x 0 0\n") is None
    assert math.isnan(steal_share(None, after))
    assert math.isnan(steal_share(after, after))


def test_a_comparison_shows_the_host_steal_of_both_runs(tmp_path):
    ref, new = tmp_path / "ref.json", tmp_path / "new.json"
    ref.write_text(json.dumps([{**_row("a", 1e6, 2.0), "host_steal_share": 0.18}]))
    # A run recorded before steal was recorded has none.
    new.write_text(json.dumps([_row("a", 1.25e6, 1.6)]))
    (row,) = compare_rows(json.loads(ref.read_text()), json.loads(new.read_text()))
    assert row["host_steal_share_before"] == 0.18 and math.isnan(row["host_steal_share_after"])
    done = CliRunner().invoke(app, ["--compare", str(ref), "--against", str(new)])
    assert done.exit_code == 0, done.output
    assert "18%, -" in done.output


def test_the_cli_compares_two_recorded_runs_without_simulating(tmp_path):
    ref, new = tmp_path / "ref.json", tmp_path / "new.json"
    ref.write_text(json.dumps([_row("a", 1e6, 2.0)]))
    new.write_text(json.dumps([_row("a", 1.25e6, 1.6)]))
    runner = CliRunner()
    done = runner.invoke(app, ["--compare", str(ref), "--against", str(new)])
    assert done.exit_code == 0, done.output
    assert "1.250x" in done.output and "0.800x" in done.output and "yes" in done.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "rows"}')
    done = runner.invoke(app, ["--compare", str(bad), "--against", str(new)])
    assert done.exit_code != 0
    assert "expected the JSON list that --json writes" in done.output
    done = runner.invoke(app, ["--against", str(new)])
    assert done.exit_code != 0 and "--against needs --compare" in done.output


def test_a_run_across_processes_simulates_the_same_work_in_less_memory_per_process():
    one, two = (run_benchmarks(["c"], quick=True, processes=p)[0] for p in (1, 2))
    assert (one["processes"], two["processes"]) == (1, 2)
    assert two["packet_hops"] == one["packet_hops"]
    # (c) holds 262,144 endpoints: each of two processes holds half of the network's state.
    assert two["bytes_per_endpoint"] < 0.75 * one["bytes_per_endpoint"]
