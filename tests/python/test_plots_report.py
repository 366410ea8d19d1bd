"""Plots and the HTML report: each plot of a real run and sweep, the CLI, offline rendering in
headless Chromium."""

import re
import shutil
import subprocess

import matplotlib.image
import pandas as pd
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

import exanet
from exanet import plots
from exanet.cli import app
from exanet.errors import ConfigError

BASE = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "traffic": {"load": 0.3},
    "run": {"warmup": "1us", "measure": "2us"},
}
RECORD = {"traffic_matrix": "endpoints", "injection_bin": "50ns", "packet_sizes": True}
# injection map (x2), link utilisation, traffic matrix, injection time series and histogram
RUN_PLOTS = 6
IMG = re.compile(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)">')
CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


@pytest.fixture(scope="module")
def result():
    return exanet.simulate(BASE | {"record": RECORD}, progress=False)


@pytest.fixture(scope="module")
def run_report(result, tmp_path_factory):
    run_dir = result.write(tmp_path_factory.mktemp("run") / "run")
    out = run_dir.parent / "run-report.html"
    cli = CliRunner().invoke(app, ["report", str(run_dir), "-o", str(out)])
    assert cli.exit_code == 0, cli.output
    return out


@pytest.fixture(scope="module")
def sweep_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "out"
    exanet.Sweep(BASE, grid={"traffic.load": [0.1, 0.4]}).run(out, jobs=1, progress=False)
    cli = CliRunner().invoke(app, ["report", str(out)])
    assert cli.exit_code == 0, cli.output
    return out / "report.html"


def images(page):
    return [data for data in IMG.findall(page) if data]


def assert_offline(page):
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page)
    assert not re.search(r"https?://", page)


def test_every_plot_returns_a_figure_and_saves_png_and_svg(result, tmp_path):
    runs = pd.DataFrame(
        {
            "design": ["a"] * 3 + ["b"] * 3,
            "offered_load": [0.1, 0.5, 0.9] * 2,
            "accepted_load": [0.1, 0.5, 0.6, 0.1, 0.5, 0.9],
            "latency_ns_mean": [100.0, 150, 900, 100, 120, 140],
        }
    )
    jobs = pd.DataFrame(
        {"name": ["j0", "j1"] * 2, "design": ["a", "a", "b", "b"], "s": [1, 2, 3, 4]}
    )
    figures = [
        plots.latency_load(runs),
        plots.accepted_offered(runs),
        plots.injection_map(result.endpoints),
        plots.traffic_matrix_heatmap(result.traffic_matrix, len(result.endpoints)),
        plots.link_utilization_histogram(result.links),
        plots.injection_timeseries(result.injection_series, 50),
        plots.injection_histogram(result.injection_series, 100),
        plots.grouped_bars(jobs, "name", "s", "design"),
        plots.grouped_bars(jobs[jobs["design"] == "a"], "name", "s"),
    ]
    assert all(isinstance(fig, Figure) for fig in figures)
    written = plots.save(figures[0], tmp_path / "latency.png")
    assert [p.name for p in written] == ["latency.png", "latency.svg"]
    assert all(p.stat().st_size > 1000 for p in written)


def test_latency_load_marks_the_saturated_design_only():
    runs = pd.DataFrame(
        {
            "design": ["a", "a", "b", "b"],
            "offered_load": [0.1, 0.9] * 2,
            "accepted_load": [0.1, 0.5, 0.1, 0.9],
            "latency_ns_mean": [100.0, 900, 100, 110],
        }
    )
    ax = plots.latency_load(runs).axes[0]
    markers = [line for line in ax.lines if line.get_marker() == "X"]
    assert len(markers) == 1 and list(markers[0].get_xdata()) == [0.9]


def test_traffic_matrix_above_256_endpoints_is_shown_by_blocks():
    pairs = pd.DataFrame({"src": [0, 299], "dst": [299, 0], "bytes": [10, 20], "packets": [1, 1]})
    image = plots.traffic_matrix_heatmap(pairs, 300).axes[0].images[0].get_array()
    assert image.shape == (150, 150) and image.sum() == 30


def test_plots_reject_missing_columns():
    with pytest.raises(ConfigError, match=r"plots\.endpoints"):
        plots.injection_map(pd.DataFrame({"endpoint": [0]}))


def test_run_report_embeds_every_plot_and_is_offline(run_report):
    page = run_report.read_text()
    assert len(images(page)) == RUN_PLOTS
    assert_offline(page)
    for text in ("exanet version", exanet.__version__, "latency_ns_mean", "packet sizes"):
        assert text in page
    assert '"topology"' in page  # the config


def test_sweep_report_has_load_curves_points_and_config(sweep_report):
    page = sweep_report.read_text()
    assert len(images(page)) == 2  # latency-load and accepted-offered
    assert_offline(page)
    assert "2 points, 2 ok, 0 failed" in page and "traffic.load" in page


def test_report_of_a_directory_without_results_is_an_invalid_input(tmp_path):
    cli = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert cli.exit_code == 2
    assert "report.results" in cli.output


def chromium(*args):
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


@needs_chromium
@pytest.mark.parametrize("report", ["run_report", "sweep_report"])
def test_report_renders_in_headless_chromium(report, request, tmp_path):
    path = request.getfixturevalue(report)
    total = len(images(path.read_text()))
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", path.as_uri()).stdout
    assert f'data-images-loaded="{total}"' in dom and f'data-images-total="{total}"' in dom
    shot = tmp_path / "shot.png"
    chromium(f"--screenshot={shot}", "--window-size=1200,3000", path.as_uri())
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (3000, 1200) and pixels[..., :3].std() > 0.05


def test_sweep_curves_average_the_repetitions_of_a_point():
    import pandas as pd

    from exanet.report import _mean_over_repetitions

    points = pd.DataFrame(
        {
            "design": ["a"] * 4,
            "traffic.load": [0.1, 0.1, 0.2, 0.2],
            "repetition": [0, 1, 0, 1],
            "offered_load": [0.1, 0.1, 0.2, 0.2],
            "accepted_load": [0.09, 0.11, 0.18, 0.2],
            "latency_ns_mean": [100.0, 120.0, 200.0, 260.0],
        }
    )
    curves = _mean_over_repetitions(points, ["traffic.load"])
    assert curves["traffic.load"].tolist() == [0.1, 0.2]
    assert curves["latency_ns_mean"].tolist() == [110.0, 230.0]
    assert curves["accepted_load"].tolist() == pytest.approx([0.10, 0.19])
