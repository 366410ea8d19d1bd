"""The [record] tables: traffic matrix, injection time series and packet sizes, checked against
the endpoint counters they must agree with and against each other."""

import numpy as np
import pytest

import exanet
from exanet.errors import ConfigError

BASE = {
    "topology": {"kind": "torus", "dims": [4, 4], "concentration": 2},
    "traffic": {"load": 0.3},
    "run": {"warmup": "1us", "measure": "3us"},
}
RECORD_ALL = {"traffic_matrix": "endpoints", "injection_bin": "50ns", "packet_sizes": True}
TIMING_KEYS = {"wall_s", "events_per_s", "packet_hops_per_s", "traffic_matrix_level"}


def run(record, **changes):
    return exanet.simulate({**BASE, **changes, "record": record}, progress=False)


def test_recording_changes_nothing_it_observes():
    plain = exanet.simulate(BASE, progress=False).summary
    recorded = run(RECORD_ALL).summary
    assert recorded["traffic_matrix_level"] == "endpoints"
    assert plain["traffic_matrix_level"] == "off"
    for key, value in plain.items():
        if key not in TIMING_KEYS:
            assert recorded[key] == value or (value != value and recorded[key] != recorded[key])


def test_the_matrix_rows_are_the_endpoints_injections():
    result = run(RECORD_ALL)
    matrix = result.traffic_matrix
    endpoints = result.endpoints
    rows = matrix.groupby("src")[["packets", "bytes"]].sum()
    rows = rows.reindex(range(len(endpoints)), fill_value=0)
    assert (rows["packets"].to_numpy() == endpoints["packets_injected"].to_numpy()).all()
    assert (rows["bytes"].to_numpy() == endpoints["bytes_injected"].to_numpy()).all()
    # Uniform traffic never sends to itself.
    assert not (matrix["src"] == matrix["dst"]).any()


def test_the_router_matrix_is_the_endpoint_matrix_summed_by_router():
    by_endpoint = run(RECORD_ALL).traffic_matrix
    by_router = run({"traffic_matrix": "routers"}).traffic_matrix
    # Concentration 2: endpoint e sits on router e // 2.
    summed = (
        by_endpoint.assign(src=by_endpoint["src"] // 2, dst=by_endpoint["dst"] // 2)
        .groupby(["src", "dst"], as_index=False)[["packets", "bytes"]]
        .sum()
    )
    merged = summed.merge(by_router, on=["src", "dst"], suffixes=("_e", "_r"), how="outer")
    assert len(merged) == len(by_router)
    assert (merged["packets_e"] == merged["packets_r"]).all()
    assert (merged["bytes_e"] == merged["bytes_r"]).all()


def test_a_permutation_fills_one_cell_per_row():
    result = run(
        {"traffic_matrix": "endpoints"},
        topology={"kind": "torus", "dims": [4, 4]},
        traffic={"load": 0.3, "pattern": "bit_complement"},
    )
    matrix = result.traffic_matrix
    assert len(matrix) == 16
    assert (matrix["dst"] == 15 - matrix["src"]).all()


def test_the_series_adds_up_to_each_endpoints_bytes_over_the_window():
    result = run(RECORD_ALL)
    series = result.injection_series
    bins = 3_000 // 50
    assert len(series) == 32 * bins
    assert series["bin_start_ns"].min() == 1000.0
    assert series["bin_start_ns"].max() == 1000.0 + (bins - 1) * 50
    per_endpoint = series.groupby("endpoint")[["bytes", "packets"]].sum()
    assert (per_endpoint["bytes"].to_numpy() == result.endpoints["bytes_injected"]).all()
    assert (per_endpoint["packets"].to_numpy() == result.endpoints["packets_injected"]).all()
    # A 288 B packet takes 11.52 ns at 25 GB/s: at most 5 start in a 50 ns bin.
    assert series["packets"].max() <= 5


def test_packet_sizes_count_every_delivery_by_its_wire_size():
    mix = {"16B": 0.45, "32B": 0.35, "80B": 0.2}
    result = run(
        {"packet_sizes": True},
        nic={"header": "0B"},
        traffic={"load": 0.3, "packet": mix},
    )
    sizes = result.packet_sizes
    assert sizes["bytes"].tolist() == [16, 32, 80]
    total = sizes["packets"].sum()
    assert total == result.endpoints["packets_received"].sum()
    shares = sizes["packets"].to_numpy() / total
    sigma = np.sqrt(np.array([0.45, 0.35, 0.2]) * (1 - np.array([0.45, 0.35, 0.2])) / total)
    assert (np.abs(shares - [0.45, 0.35, 0.2]) < 4 * sigma).all()


def test_closed_runs_record_until_the_workload_ends(tmp_path):
    result = exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "router": {"vc_buffer": "16KiB"},
            "traffic": {
                "kind": "jobs",
                "jobs": [{"app": "alltoall", "ranks": 16, "message": "8KiB"}],
            },
            "record": {"traffic_matrix": "auto", "injection_bin": "100ns"},
        },
        progress=False,
    )
    matrix = result.traffic_matrix
    # Pairwise alltoall: every rank sends 8 KiB (2 packets of 4 KiB + 32 B) to each other rank.
    assert len(matrix) == 16 * 15
    assert (matrix["bytes"] == 2 * (4096 + 32)).all()
    assert result.injection_series["bytes"].sum() == matrix["bytes"].sum()
    written = result.write(tmp_path / "out")
    assert (written / "traffic_matrix.parquet").is_file()
    assert (written / "injection_series.parquet").is_file()
    assert not (written / "packet_sizes.parquet").exists()


def test_groups_need_a_topology_with_groups():
    with pytest.raises(ConfigError) as error:
        run({"traffic_matrix": "groups"})
    assert error.value.key == "record.traffic_matrix"
    assert "no groups" in str(error.value)


def test_characterize_agrees_with_the_summary_and_the_pattern():
    from exanet.analysis import characterize

    result = run(
        RECORD_ALL,
        topology={"kind": "torus", "dims": [4, 4]},
        traffic={"load": 0.3, "pattern": "bit_complement"},
    )
    traffic = characterize(result)
    s = result.summary
    injected_gbytes_per_s = s["injected_load"] * s["injection_bandwidth_gbytes_per_s"]
    assert traffic["injection_gbytes_per_s_mean"] == pytest.approx(injected_gbytes_per_s)
    # The bins tile the window, so their mean is the window's mean.
    assert traffic["instantaneous_injection_gbytes_per_s_avg"] == pytest.approx(
        injected_gbytes_per_s
    )
    assert traffic["instantaneous_injection_gbytes_per_s_p99"] >= injected_gbytes_per_s
    # bit_complement sends endpoint s to 15 - s: all traffic crosses the halves 0-7 | 8-15.
    assert traffic["bisection_fraction"] == 1.0
    assert traffic["packet_bytes_mean"] == 288.0
