"""Results read back (exanet.open), their notebook HTML, `exanet compare` and `exanet schema`."""

import importlib.resources
import json
import math
import re
import tomllib
from pathlib import Path

import jsonschema
import matplotlib.image
import pandas as pd
import pytest
from test_fuzz_config import BASES
from typer.testing import CliRunner

import exanet
from exanet import cli
from exanet.config import json_schema
from exanet.errors import ConfigError
from exanet.stored import StoredResult, StoredSweep

BASE = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "traffic": {"load": 0.2},
    "run": {"warmup": "1us", "measure": "2us"},
}


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    low = exanet.simulate(BASE)
    high = exanet.simulate({**BASE, "traffic": {"load": 0.4}})
    return low, low.write(root / "low"), high, high.write(root / "high")


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweeps")
    grid = {"traffic.load": [0.1, 0.3]}
    uniform = exanet.Sweep(BASE, grid=grid).run(root / "uniform", progress=False)
    transpose = {**BASE, "traffic": {"load": 0.2, "pattern": "transpose"}}
    exanet.Sweep(transpose, grid=grid).run(root / "transpose", progress=False)
    return uniform, root / "uniform", root / "transpose"


def invoke(*args):
    return CliRunner().invoke(cli.app, [str(arg) for arg in args])


def test_open_reads_back_a_run_as_written(two_runs):
    result, directory, _, _ = two_runs
    opened = exanet.open(directory)
    assert isinstance(opened, StoredResult)
    written = {
        k: None if isinstance(v, float) and math.isnan(v) else v for k, v in result.summary.items()
    }
    assert opened.summary == written
    assert opened.config == result.config.to_core()
    pd.testing.assert_frame_equal(opened.endpoints, result.endpoints)
    pd.testing.assert_frame_equal(opened.links, result.links)
    assert opened.endpoints["packets_received"].dtype == "int64"
    assert opened.jobs.empty  # a synthetic run writes no jobs table
    with pytest.raises(ConfigError, match="endpoints"):
        opened.table("endpoint")


def test_open_reads_tables_on_first_access_only(two_runs, monkeypatch):
    _, directory, _, _ = two_runs
    opened = exanet.open(directory)
    read = []
    read_parquet = pd.read_parquet
    monkeypatch.setattr(
        pd, "read_parquet", lambda file, **kw: read.append(file) or read_parquet(file, **kw)
    )
    assert opened.summary["endpoints"] == 16
    assert read == []
    assert len(opened.links) == len(opened.links) > 0
    assert [file.name for file in read] == ["links.parquet"]


def test_open_reads_back_a_sweep(two_sweeps):
    run, directory, _ = two_sweeps
    opened = exanet.open(directory)
    assert isinstance(opened, StoredSweep)
    pd.testing.assert_frame_equal(opened.points, exanet.load(directory))
    assert opened.points["traffic.load"].tolist() == [0.1, 0.3]
    counters = opened.points[["packets_generated", "packets_delivered"]]
    assert counters.dtypes.tolist() == ["int64", "int64"]
    assert (counters["packets_delivered"] - counters["packets_generated"]).lt(0).any()
    assert opened.failures.empty
    assert set(opened.table("endpoints")["key"]) == set(run.points["key"])


def test_open_refuses_a_directory_without_results(tmp_path):
    with pytest.raises(ConfigError) as error:
        exanet.open(tmp_path)
    assert error.value.key == "path"
    assert "summary.json" in error.value.expected


def test_html_shows_the_key_numbers(two_runs, two_sweeps):
    result, directory, _, _ = two_runs
    for shown in (result, exanet.open(directory)):
        page = shown._repr_html_()
        assert f"{result.summary['latency_ns_mean']:.4g}" in page
        assert f"{result.summary['offered_load']:.4g}" in page
        assert "<td>latency p99</td>" in page
    run, sweep_directory, _ = two_sweeps
    for shown in (run, exanet.open(sweep_directory)):
        page = shown._repr_html_()
        assert "2 points: 2 ok, 0 failed" in page
        latencies = [f"{v:.4g}" for v in run.points["latency_ns_mean"]]
        assert all(f"<td>{v}</td>" in page for v in latencies)
    assert "2 run, 0 stored" in run._repr_html_()


def test_compare_runs_side_by_side_with_ratios(two_runs):
    low, low_dir, high, high_dir = two_runs
    done = invoke("compare", low_dir, high_dir)
    assert done.exit_code == 0, done.output
    line = next(line for line in done.output.splitlines() if "accepted load" in line)
    cells = [cell.strip() for cell in line.split("│") if cell.strip()]
    expected = high.summary["accepted_load"] / low.summary["accepted_load"]
    assert cells[-1] == f"{expected:.3g}x"
    assert cells[1] == "fraction"
    assert "high / low" in done.output


def test_compare_sweeps_draws_overlaid_curves(two_sweeps, tmp_path):
    _, uniform, transpose = two_sweeps
    done = invoke("compare", uniform, transpose, "--output", tmp_path / "curves.png")
    assert done.exit_code == 0, done.output
    assert "ok points" in done.output
    image = matplotlib.image.imread(tmp_path / "curves.png")
    assert image.shape[0] > 300 and image.std() > 0.05  # a drawn figure, not a blank one


def test_compare_refuses_bad_directories(two_runs, two_sweeps, tmp_path):
    _, run_dir, _, _ = two_runs
    _, sweep_dir, _ = two_sweeps
    mixed = invoke("compare", run_dir, sweep_dir)
    assert mixed.exit_code == 2
    assert "all run directories or all sweep directories" in mixed.output
    empty = invoke("compare", run_dir, tmp_path)
    assert empty.exit_code == 2
    assert "DIRS" in empty.output and "Traceback" not in empty.output
    curves = invoke("compare", run_dir, run_dir, "--output", tmp_path / "x.png")
    assert curves.exit_code == 2 and "--output" in curves.output


def test_schema_validates_the_configs_exanet_accepts():
    done = invoke("schema")
    assert done.exit_code == 0, done.output
    schema = json.loads(done.output)
    assert schema == json_schema()
    assert {"topology", "routing", "router", "links", "traffic", "run"} <= set(schema["properties"])
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    example = tomllib.loads(re.search(r"```toml\n(.*?)```", readme, re.S)[1])
    for config in [*BASES, example]:
        exanet.Config.from_dict(config)
        assert list(validator.iter_errors(config)) == []
    bad = [
        {**BASES[0], "topolgy": {}},
        {**BASES[0], "links": {"latency": "20 parsecs"}},
        {**BASES[0], "router": {"vcs": "two"}},
    ]
    for config in bad:
        assert list(validator.iter_errors(config)) != []


def test_schema_output_file(tmp_path):
    done = invoke("schema", "--output", tmp_path / "exanet.schema.json")
    assert done.exit_code == 0, done.output
    assert json.loads((tmp_path / "exanet.schema.json").read_text()) == json_schema()


def test_the_package_ships_py_typed():
    assert importlib.resources.files("exanet").joinpath("py.typed").is_file()
