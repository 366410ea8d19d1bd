"""Fine-grained traffic through the Python front end: packet-size mixes, traffic matrices in every
accepted form, the injection-limited NIC's keys, and their errors."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import exanet
from exanet.config import load
from exanet.errors import ConfigError

TORUS = {"kind": "torus", "dims": [4, 4]}
RUN = {"warmup": "1us", "measure": "4us"}


def ring_matrix(n=16):
    """Every endpoint sends weight 3 to the next and 1 to the one 5 further on; the last four
    send nothing; a diagonal entry that must be ignored."""
    m = np.zeros((n, n))
    for s in range(n - 4):
        m[s, (s + 1) % n] = 3
        m[s, (s + 5) % n] = 1
    m[0, 0] = 100
    return m


def matrix_config(matrix, **traffic):
    return {
        "topology": TORUS,
        "traffic": {"pattern": "matrix", "matrix": matrix, "load": 0.4, **traffic},
        "run": RUN,
    }


def test_a_packet_mix_round_trips_and_reaches_the_core_as_sizes_and_weights():
    config = load({"topology": TORUS, "traffic": {"load": 0.2, "packet": {"16B": 9, "80B": 1}}})
    assert config.traffic.packet == {16: 9.0, 80: 1.0}
    assert config.model_dump()["traffic"]["packet"] == {"16B": 9.0, "80B": 1.0}
    assert config.to_core()["traffic"]["packet_bytes"] == [
        {"bytes": 16, "weight": 9.0},
        {"bytes": 80, "weight": 1.0},
    ]
    # An override re-validates the dumped config: the mix survives.
    again = load(config, ["traffic.load=0.3"])
    assert again.traffic.packet == config.traffic.packet
    assert (
        load({"topology": TORUS, "traffic": {"load": 0.2}}).to_core()["traffic"]["packet_bytes"]
        == 256
    )


def test_a_mix_offers_the_load_in_bytes_and_delivers_its_mean_size():
    result = exanet.simulate(
        {
            "topology": TORUS,
            "nic": {"header": "0B"},
            "traffic": {"load": 0.3, "packet": {"16B": 0.45, "32B": 0.35, "80B": 0.2}},
            "run": {"warmup": "1us", "measure": "20us"},
        },
        progress=False,
    )
    s = result.summary
    # 16 endpoints x 20 us x 0.3 x 25 GB/s / 34.4 B ~ 69,800 packets; sigma of a draw 23.9 B.
    assert abs(s["packet_bytes_mean"] - 34.4) < 4 * 23.9 / np.sqrt(60_000)
    assert abs(s["offered_load"] - 0.3) < 0.01
    per_endpoint_rate = s["accepted_gbytes_per_s"] / s["packet_bytes_mean"]
    assert s["accepted_packets_per_ns"] == pytest.approx(per_endpoint_rate, rel=1e-9)


def test_every_matrix_form_gives_the_same_run(tmp_path):
    m = ring_matrix()
    np.save(tmp_path / "m.npy", m)
    np.savetxt(tmp_path / "dense.csv", m, delimiter=",")
    rows, cols = np.nonzero(m)
    sparse = pd.DataFrame({"src": rows, "dst": cols, "bytes": m[rows, cols]})
    sparse.to_csv(tmp_path / "sparse.csv", index=False)
    sparse.to_parquet(tmp_path / "sparse.parquet")
    forms = [
        m.tolist(),
        m,
        str(tmp_path / "m.npy"),
        str(tmp_path / "dense.csv"),
        str(tmp_path / "sparse.csv"),
        tmp_path / "sparse.parquet",
    ]
    summaries = [exanet.simulate(matrix_config(f), progress=False).summary for f in forms]
    reference = summaries[0]
    for s in summaries[1:]:
        for key in ("packets_delivered", "latency_ns_mean", "accepted_load", "events"):
            assert s[key] == reference[key], key
    endpoints = exanet.simulate(matrix_config(m), progress=False).endpoints
    # The silent rows (12-15) send nothing; the diagonal weight of endpoint 0 is ignored, so
    # it is not a hot source.
    assert (endpoints["packets_generated"][12:] == 0).all()
    busiest = endpoints["packets_generated"][:12]
    assert busiest.max() / busiest.min() < 1.5


def test_a_matrix_path_is_relative_to_its_config_file(tmp_path, monkeypatch):
    np.savetxt(tmp_path / "tm.csv", ring_matrix(), delimiter=",")
    (tmp_path / "run.toml").write_text(
        '[topology]\nkind = "torus"\ndims = [4, 4]\n'
        '[traffic]\npattern = "matrix"\nmatrix = "tm.csv"\nload = 0.2\n'
    )
    monkeypatch.chdir("/")
    config = load(tmp_path / "run.toml")
    assert config.to_core()["traffic"]["matrix"]["endpoints"] == 16


@pytest.mark.parametrize(
    ("traffic", "key", "needle"),
    [
        ({"packet": {"16B": 0}}, "traffic.packet", "weight > 0"),
        ({"packet": {}}, "traffic.packet", "mix of sizes"),
        ({"packet": {"lots": 1}}, "traffic.packet", "number of bytes"),
        ({"pattern": "matrix"}, "traffic.matrix", "a traffic matrix"),
        ({"matrix": [[0, 1], [1, 0]]}, "traffic.matrix", 'only with pattern = "matrix"'),
        ({"pattern": "matrix", "matrix": [[0, 1], [1, 0]]}, "traffic.matrix", "16 x 16"),
        ({"pattern": "matrix", "matrix": [[0, 1], [1]]}, "traffic.matrix", "square"),
        ({"pattern": "matrix", "matrix": [[0, -1], [1, 0]]}, "traffic.matrix", ">= 0"),
        ({"pattern": "matrix", "matrix": [[0, 0], [0, 0]]}, "traffic.matrix", "16 x 16"),
        ({"pattern": "matrix", "matrix": "m.txt"}, "traffic.matrix", ".parquet"),
        ({"pattern": "matrix", "matrix": "absent.csv"}, "traffic.matrix", "readable"),
    ],
)
def test_bad_packet_mixes_and_matrices_name_their_key(traffic, key, needle):
    with pytest.raises(ConfigError) as error:
        exanet.simulate(
            {"topology": TORUS, "traffic": {"load": 0.2, **traffic}, "run": RUN}, progress=False
        )
    assert error.value.key == key
    assert needle in str(error.value)


def test_a_sparse_file_without_its_columns_is_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("src,to,bytes\n0,1,5\n")
    with pytest.raises(ConfigError, match="columns src, dst"):
        load(matrix_config(str(path)))
    path.write_text("src,dst,bytes\n0,1,-5\n")
    with pytest.raises(ConfigError, match=">= 0"):
        load(matrix_config(str(path)))
    path.write_text("src,dst,bytes\n0,99,5\n")
    with pytest.raises(ConfigError, match=r"\(0, 99\)"):
        exanet.simulate(matrix_config(str(path)), progress=False)


def test_the_injection_cap_is_a_bandwidth_enforced_per_window():
    config = load(
        {
            "topology": TORUS,
            "nic": {"header": "0B", "injection_cap": "5.12GB/s", "injection_cap_window": "100ns"},
            "traffic": {"load": 0.5},
            "run": {"warmup": "2us", "measure": "10us"},
        }
    )
    assert config.to_core()["nic"]["injection_cap_bytes"] == 512
    endpoints = exanet.simulate(config, progress=False).endpoints
    # Backlogged sources inject exactly two 256 B packets per 100 ns window: 5.12 / 25 GB/s.
    assert np.allclose(endpoints["injected_load"], 0.2048, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("nic", "needle"),
    [
        ({"injection_cap": "1B/s"}, "at least one byte per injection_cap_window"),
        ({"injection_cap": "1GB/s"}, "room for the largest packet, 288 B"),
        ({"injection_cap_window": "0ns"}, "greater than 0"),
        ({"eligibility_delay": "-1ns"}, "time"),
    ],
)
def test_bad_nic_limits_name_their_key(nic, needle):
    with pytest.raises(ConfigError) as error:
        exanet.simulate({"topology": TORUS, "traffic": {"load": 0.2}, "nic": nic}, progress=False)
    assert error.value.key.startswith("nic.")
    assert needle in str(error.value)


def test_the_command_line_reports_a_bad_matrix_without_a_traceback(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(
        '[topology]\nkind = "torus"\ndims = [4, 4]\n'
        '[traffic]\npattern = "matrix"\nmatrix = "absent.csv"\nload = 0.2\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "exanet", "run", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "traffic.matrix" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
