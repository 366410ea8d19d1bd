import math

import numpy as np
import pandas as pd
import pytest

from exanet.analysis import (
    aggregate_matrix,
    average_injection,
    binned_injection,
    bisection_fraction,
    capped_timeline,
    execution_time_ns,
    injection_time_ns,
    injection_timeline_bytes,
    instantaneous_injection_stats,
    loglog_fit,
    matrix_for_display,
    mean_packet_size_bytes,
    network_costs,
    normalized_p2p_traffic,
    p2p_cov_percent,
    packet_size_histogram,
    performance_per_cost,
    project_network_traffic,
    project_program_time,
    saturation_point,
    scaling_efficiency,
    self_inclusive,
    slowdown,
    stress_slowdown,
    throughput_table,
    traffic_matrix,
)
from exanet.cost import CostModel, network_cost
from exanet.errors import ConfigError

# Off-diagonal 1..6, diagonal 100: the diagonal must not count (eq. 4.3 sums over j != i).
SKEWED = np.array([[100.0, 1, 2], [3, 100, 4], [5, 6, 100]])


# --- traffic characterization ----------------------------------------------------------------


def test_normalized_traffic_divides_by_off_diagonal_mean():
    normalized = normalized_p2p_traffic(SKEWED)
    assert normalized[0, 1] == pytest.approx(1 / 3.5)
    assert normalized[2, 1] == pytest.approx(6 / 3.5)
    assert np.isnan(np.diag(normalized)).all()


def test_cov_by_hand():
    # mean 3.5; squared deviations 6.25 2.25 .25 .25 2.25 6.25 sum to 17.5 over 6 pairs
    assert p2p_cov_percent(SKEWED) == pytest.approx(math.sqrt(17.5 / 6) / 3.5 * 100)


def test_uniform_matrix_has_zero_cov_whatever_the_diagonal():
    uniform = np.full((8, 8), 42.0)
    np.fill_diagonal(uniform, 0.0)
    assert p2p_cov_percent(uniform) == 0.0
    np.fill_diagonal(uniform, 1e6)
    assert p2p_cov_percent(uniform) == 0.0


def test_sparse_rows_become_a_dense_matrix_with_repeats_summed():
    pairs = pd.DataFrame(
        {"src": [0, 0, 2], "dst": [1, 1, 0], "bytes": [10, 5, 7], "packets": [1, 1, 2]}
    )
    matrix = traffic_matrix(pairs, 3)
    assert matrix[0, 1] == 15 and matrix[2, 0] == 7 and matrix.sum() == 22
    assert traffic_matrix(pairs, 3, value="packets")[2, 0] == 2
    with pytest.raises(ConfigError, match=r"0\.\.1"):
        traffic_matrix(pairs, 2)


def test_bisection_of_uniform_traffic_is_n_over_2n_minus_2():
    uniform = np.ones((4, 4))
    assert bisection_fraction(uniform) == pytest.approx(8 / 12)  # = 4 / (2 * 3)


def test_bisection_by_hand_for_two_partitions():
    matrix = np.zeros((4, 4))
    matrix[0, 0] = 50  # self traffic: ignored
    matrix[0, 1], matrix[0, 2], matrix[3, 1], matrix[2, 3] = 10, 5, 2, 7
    # {0,1} | {2,3}: crossing 0->2 and 3->1
    assert bisection_fraction(matrix) == pytest.approx(7 / 24)
    # {0,2} | {1,3}: crossing 0->1 and 2->3
    assert bisection_fraction(matrix, half=[2, 0]) == pytest.approx(17 / 24)


@pytest.mark.parametrize("half", [[0], [0, 1, 2], [0, 7]])
def test_bisection_rejects_unequal_or_out_of_range_halves(half):
    with pytest.raises(ConfigError, match=r"bisection\.half"):
        bisection_fraction(np.ones((4, 4)), half=half)


def test_aggregation_by_group_sums_blocks_and_conserves_traffic():
    matrix = np.arange(16.0).reshape(4, 4)
    grouped = aggregate_matrix(matrix, ["r1", "r0", "r1", "r0"])
    assert list(grouped.index) == ["r0", "r1"]
    # r0 = endpoints {1, 3}, r1 = {0, 2}
    assert grouped.loc["r0", "r1"] == matrix[1, 0] + matrix[1, 2] + matrix[3, 0] + matrix[3, 2]
    assert grouped.to_numpy().sum() == matrix.sum()
    assert matrix_for_display(matrix, [0, 0, 1, 1], max_endpoints=4).shape == (4, 4)
    assert matrix_for_display(matrix, [0, 0, 1, 1], max_endpoints=3).shape == (2, 2)


def test_non_square_matrix_is_a_config_error():
    with pytest.raises(ConfigError, match="square"):
        p2p_cov_percent(np.ones((2, 3)))


def test_packet_size_histogram_and_mean():
    sizes = pd.DataFrame({"bytes": [16, 32, 80, 16], "packets": [10, 5, 1, 2]})
    table = packet_size_histogram(sizes)
    assert list(table["size_bytes"]) == [16, 32, 80]
    assert list(table["packets"]) == [12, 5, 1]
    assert table["packet_fraction"].iloc[0] == pytest.approx(12 / 18)
    assert table["byte_fraction"].iloc[0] == pytest.approx(192 / 432)
    assert mean_packet_size_bytes(sizes) == pytest.approx(432 / 18)
    binned = packet_size_histogram(sizes, bin_bytes=32)
    assert list(binned["size_bytes"]) == [0, 32, 64]
    assert list(binned["total_bytes"]) == [192, 160, 80]


def test_self_inclusive_scales_by_n_over_n_minus_1():
    assert self_inclusive(3.0, 4) == pytest.approx(4.0)
    with pytest.raises(ConfigError, match="n_nodes"):
        self_inclusive(3.0, 1)


def test_average_injection_real_and_self_inclusive():
    endpoints = pd.DataFrame(
        {"endpoint": [0, 1], "bytes_injected": [100, 200], "packets_injected": [10, 20]}
    )
    table = average_injection(endpoints, execution_time_ns=50.0)
    assert list(table["injection_gbytes_per_s"]) == [2.0, 4.0]  # bytes per ns
    assert list(table["injection_gpackets_per_s"]) == pytest.approx([0.2, 0.4])
    assert list(table["self_inclusive_injection_gbytes_per_s"]) == [4.0, 8.0]  # n/(n-1) = 2
    with pytest.raises(ConfigError, match="packets_injected"):
        average_injection(endpoints.drop(columns="packets_injected"), 50.0)


SERIES = pd.DataFrame(
    {
        "endpoint": [0, 0, 1],
        "bin_start_ns": [0.0, 100.0, 50.0],
        "bytes": [100, 50, 200],
        "packets": [2, 1, 4],
    }
)


def test_instantaneous_stats_count_empty_bins():
    stats = instantaneous_injection_stats(SERIES)  # 50 ns bins: 3 bins x 2 endpoints
    # GB/s samples: e0 [2, 0, 1], e1 [0, 4, 0]; sorted 0 0 0 1 2 4
    bandwidth = stats.loc["injection_gbytes_per_s"]
    assert bandwidth["avg"] == pytest.approx(7 / 6)
    assert bandwidth["p90"] == pytest.approx(3.0)  # rank 4.5: between 2 and 4
    assert bandwidth["p99"] == pytest.approx(3.9)
    assert stats.loc["injection_gpackets_per_s", "avg"] == pytest.approx(7 / 50 / 6)


def test_rebinning_and_timeline():
    stats = instantaneous_injection_stats(SERIES, bin_ns=100.0)
    # 100 ns bins: e0 has 100 B then 50 B, e1 200 B then 0 -> GB/s 1, .5, 2, 0
    assert stats.loc["injection_gbytes_per_s", "avg"] == pytest.approx(3.5 / 4)
    assert list(injection_timeline_bytes(SERIES, endpoint=0)) == [100, 0, 50]
    assert list(injection_timeline_bytes(SERIES, end_ns=200.0)) == [50, 100, 25, 0]


def test_bins_start_at_the_window_not_at_zero():
    shifted = SERIES.assign(bin_start_ns=SERIES["bin_start_ns"] + 10_000.0)
    binned = binned_injection(shifted)
    assert binned["bin_start_ns"].min() == 10_000.0
    assert len(binned) == 6  # no empty bins before the window
    assert instantaneous_injection_stats(shifted).equals(instantaneous_injection_stats(SERIES))


# --- projection --------------------------------------------------------------------------------


def test_algorithm1_by_hand():
    # slot 1 carries 3 over the cap of 2: one extra slot at the cap, then 1 + 1 = 2
    assert list(capped_timeline([1, 5, 1, 0, 0], 2)) == [1, 2, 2, 2, 0, 0]
    assert list(capped_timeline([0, 0, 10, 0, 0], 4)) == [0, 0, 4, 4, 2, 0]


def test_algorithm1_drains_what_is_carried_past_the_last_slot():
    assert list(capped_timeline([5], 2)) == [2, 2, 1]


def test_algorithm1_keeps_low_regions_caps_peaks_and_conserves_traffic():
    rng = np.random.default_rng(7)
    low = rng.uniform(0, 1, 200)
    assert np.array_equal(capped_timeline(low, 1.0), low)
    bursty = np.concatenate([low, [30.0], low])
    capped = capped_timeline(bursty, 1.5)
    assert capped.max() <= 1.5
    assert capped.sum() == pytest.approx(bursty.sum())
    assert np.array_equal(capped[:200], low)  # before the peak nothing changes
    assert len(capped) > len(bursty)


def test_injection_and_execution_time():
    # 4 GB/s x 50 ns = 200 B per slot: [1, 5, 1, 0, 0] x 100 B against a cap of 2 x 100 B
    assert injection_time_ns([100, 500, 100, 0, 0], 50.0, 4.0) == 300.0
    assert execution_time_ns(250.0, 300.0) == 300.0
    assert execution_time_ns(400.0, 300.0) == 400.0


def test_loglog_fit_recovers_power_law():
    n = [2, 4, 8, 16, 64]
    fit = loglog_fit(n, [3 * x**1.5 for x in n])
    assert fit.slope == pytest.approx(1.5)
    assert fit.coefficient == pytest.approx(3.0)
    assert fit.intercept_log2 == pytest.approx(math.log2(3))
    assert fit.r_squared == pytest.approx(1.0)
    assert fit.predict(1024) == pytest.approx(3 * 1024**1.5)
    noisy = loglog_fit(n, [3 * x**1.5 * f for x, f in zip(n, [1, 1.3, 0.8, 1.2, 1], strict=True)])
    assert noisy.r_squared < 1.0


def test_traffic_projection_goes_through_self_inclusive_traffic():
    n = [32, 64]
    measured = [(x - 1) / x * 5 * x**1.2 for x in n]  # self-inclusive traffic 5 n^1.2
    table, fit = project_network_traffic(n, measured, [16384])
    assert fit.slope == pytest.approx(1.2) and fit.coefficient == pytest.approx(5.0)
    assert table["self_inclusive_traffic_bytes"].iloc[0] == pytest.approx(5 * 16384**1.2)
    assert table["network_traffic_bytes"].iloc[0] == pytest.approx(16383 * 5 * 16384**0.2)


def test_program_time_projection_of_flat_weak_scaling():
    table, fit = project_program_time([32, 64], [1e6, 1e6], [16384])
    assert fit.slope == pytest.approx(0.0)
    assert table["program_time_ns"].iloc[0] == pytest.approx(1e6)


def test_loglog_fit_rejects_non_positive_values():
    with pytest.raises(ConfigError, match="values"):
        loglog_fit([2, 4], [1.0, 0.0])


# --- curves ------------------------------------------------------------------------------------

LOADS = [0.1, 0.2, 0.3, 0.4, 0.5]
RUNS = pd.DataFrame(
    {
        "design": ["a"] * 5 + ["b"] * 5 + ["c"] * 5,
        "offered_load": LOADS * 3,
        "accepted_load": [0.1, 0.2, 0.3, 0.32, 0.33, *LOADS, *LOADS],
        "latency_ns_mean": [
            *[100, 110, 150, 250, 900],
            *[100, 120, 200, 350, 800],
            *[100, 101, 102, 103, 104],
        ],
    }
)


def test_saturation_by_throughput_latency_or_never():
    table = saturation_point(RUNS).set_index("design")
    # a: at 0.4, 0.32 < 0.95 * 0.4 while 250 ns < 3 x 100 ns
    assert table.loc["a", "saturation_offered_load"] == 0.4
    assert table.loc["a", "rule"] == "throughput"
    assert table.loc["a", "last_stable_offered_load"] == 0.3
    # b: delivers all it is offered but 350 ns > 3 x 100 ns at 0.4
    assert table.loc["b", "rule"] == "latency"
    assert table.loc["b", "saturation_offered_load"] == 0.4
    assert math.isnan(table.loc["c", "saturation_offered_load"])
    assert table.loc["c", "last_stable_offered_load"] == 0.5
    assert table.loc["c", "zero_load_latency_ns"] == 100
    # a looser latency rule moves b's saturation point
    looser = saturation_point(RUNS, latency_factor=5).set_index("design")
    assert looser.loc["b", "saturation_offered_load"] == 0.5


def test_throughput_table_reports_max_accepted_load():
    table = throughput_table(RUNS).set_index("design")
    assert table.loc["a", "max_accepted_load"] == 0.33
    assert table.loc["c", "at_offered_load"] == 0.5


def test_slowdown_against_baseline_design():
    table = slowdown(RUNS, baseline="c")
    a = table[table["design"] == "a"]["slowdown"].to_numpy()
    assert a == pytest.approx([1.0, 110 / 101, 150 / 102, 250 / 103, 900 / 104])
    assert (table[table["design"] == "c"]["slowdown"] == 1.0).all()
    with pytest.raises(ConfigError, match="baseline"):
        slowdown(RUNS, baseline="z")


def test_scaling_efficiency_is_small_time_over_large_time():
    small = pd.DataFrame(
        {
            "workload": ["random", "random", "halo"],
            "routing": ["min", "adaptive", "min"],
            "sim_time_ns": [100.0, 100.0, 50.0],
        }
    )
    large = small.assign(sim_time_ns=[125.0, 100.0, 40.0])
    pairs = scaling_efficiency(small, large, on=["workload", "routing"])
    assert list(pairs["efficiency"]) == [0.8, 1.0, 1.25]
    grouped = scaling_efficiency(small, large, on=["workload", "routing"], by=["workload"])
    grouped = grouped.set_index("workload")
    assert grouped.loc["random", "efficiency_mean"] == pytest.approx(0.9)
    assert grouped.loc["random", "efficiency_std"] == pytest.approx(0.1)
    assert grouped.loc["halo", "pairs"] == 1


def test_stress_slowdown_relative_to_smallest_message():
    runs = pd.DataFrame(
        {
            "design": ["x", "x", "x", "y", "y", "y"],
            "message_size_bytes": [2048, 512, 1024, 512, 1024, 2048],
            "sim_time_ns": [200.0, 10.0, 30.0, 5.0, 5.0, 10.0],
        }
    )
    table = stress_slowdown(runs)
    assert list(table["slowdown"]) == [1.0, 3.0, 20.0, 1.0, 1.0, 2.0]
    at_1024 = stress_slowdown(runs, baseline_size_bytes=1024)
    assert list(at_1024["slowdown"]) == pytest.approx([1 / 3, 1.0, 20 / 3, 1.0, 1.0, 2.0])
    with pytest.raises(ConfigError, match="baseline_size_bytes"):
        stress_slowdown(runs, baseline_size_bytes=4096)


def test_performance_per_cost_uses_cost_model():
    networks = {
        "df": {
            "topology": {"kind": "dragonfly"},
            "links_by_class": {"local": 100, "global": 50},
            "routers": 10,
        }
    }
    costs = network_costs(networks)
    # 50 optical + 0.16 x 100 copper + 20 x 10 routers (seed 004 §6)
    assert costs["df"] == pytest.approx(266.0)
    network = networks["df"]
    pricier = CostModel(router_ratio=30)
    direct = network_cost(network["topology"], network["links_by_class"], 10, pricier)
    assert network_costs(networks, pricier)["df"] == direct["cost"] == pytest.approx(366.0)
    runs = pd.DataFrame({"design": ["df"], "communication_rate_gbytes_per_s": [532.0]})
    table = performance_per_cost(runs, costs)
    assert table["communication_rate_gbytes_per_s_per_cost"].iloc[0] == pytest.approx(2.0)
    with pytest.raises(ConfigError, match="costs"):
        performance_per_cost(runs.assign(design="ft"), costs)
