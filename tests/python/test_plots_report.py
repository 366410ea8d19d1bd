"""Plots and the HTML report: each plot of a real run and sweep, the CLI, offline rendering in
headless Chromium, and what a person checks on every kind of report (run, sweep with and
without a load axis, jobs, bursts): images decode, no plot is empty, undrained points are
hollow, every axis label has its unit, the points table is sorted by the swept axes."""

import base64
import io
import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

import exanet
from exanet import plots
from exanet.analysis import saturation_point
from exanet.cli import app
from exanet.errors import ConfigError
from exanet.report import figures
from exanet.sweep.store import load

BASE = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "traffic": {"load": 0.3},
    "run": {"warmup": "1us", "measure": "2us"},
}
RECORD = {"traffic_matrix": "endpoints", "injection_bin": "50ns", "packet_sizes": True}
# injection map (x2), latency CDF, link classes, link utilisation, traffic matrix, injection
# time series and histogram
RUN_PLOTS = 8
# transpose past saturation with a short drain limit: the 0.6 point does not drain
SATURATING = BASE | {
    "traffic": {"load": 0.3, "pattern": "transpose"},
    "run": {"warmup": "1us", "measure": "2us", "drain_limit": "2us"},
}
JOBS = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "router": {"vc_buffer": "16KiB"},
    "traffic": {
        "kind": "jobs",
        "alone": True,
        "jobs": [
            {"name": "reduce", "app": "allreduce", "ranks": 8, "message": "4KiB"},
            {"name": "a2a", "app": "alltoall", "ranks": 8, "message": "2KiB"},
        ],
    },
}
BURSTS = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "traffic": {"kind": "burst", "packets_per_burst": 50, "bursts": 3},
}
UNIT = re.compile(r"\(.+\)")
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


def report_of(directory):
    cli = CliRunner().invoke(app, ["report", str(directory)])
    assert cli.exit_code == 0, cli.output
    return directory / "report.html"


@pytest.fixture(scope="module")
def sweep_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "out"
    # listed out of order: the points table sorts them
    grid = {"traffic.load": [0.6, 0.1, 0.3]}
    exanet.Sweep(SATURATING, grid=grid).run(out, jobs=1, progress=False)
    return report_of(out)


@pytest.fixture(scope="module")
def axis_sweep_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("axis-sweep") / "out"
    grid = {"traffic.pattern": ["uniform", "tornado", "transpose"], "router.vcs": [4, 2]}
    exanet.Sweep(SATURATING | {"traffic": {"load": 0.4}}, grid=grid).run(
        out, jobs=1, progress=False
    )
    return report_of(out)


@pytest.fixture(scope="module")
def jobs_report(tmp_path_factory):
    result = exanet.simulate(JOBS, progress=False)
    return report_of(result.write(tmp_path_factory.mktemp("jobs") / "run"))


@pytest.fixture(scope="module")
def bursts_report(tmp_path_factory):
    result = exanet.simulate(BURSTS, progress=False)
    return report_of(result.write(tmp_path_factory.mktemp("bursts") / "run"))


def results_of(report):
    """The run or sweep directory of a report (run_report is written beside its run)."""
    return report.parent if report.name == "report.html" else report.parent / "run"


REPORTS = ["run_report", "sweep_report", "axis_sweep_report", "jobs_report", "bursts_report"]


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
        plots.link_class_utilization(result.links),
        plots.latency_cdf(result.endpoints),
        plots.metric_by_axis(runs, "offered_load", "accepted_load"),
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


def test_axis_labels_carry_units_from_the_mapping_or_the_name():
    assert plots.label("latency_ns_mean") == "Mean latency (ns)"
    assert plots.label("accepted_gbytes_per_s") == "Accepted bandwidth (GB/s)"
    assert plots.label("burst_time_ns_max") == "Burst time max (ns)"
    assert plots.label("events") == "Events (count)"
    assert plots.label("router.vcs") == "router.vcs (config value)"


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
    assert "3 points, 3 ok, 0 failed" in page and "traffic.load" in page


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
@pytest.mark.parametrize("report", REPORTS)
def test_report_renders_in_headless_chromium(report, request, tmp_path):
    path = request.getfixturevalue(report)
    total = len(images(path.read_text()))
    assert total >= 1
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", path.as_uri()).stdout
    assert f'data-images-loaded="{total}"' in dom and f'data-images-total="{total}"' in dom
    shot = tmp_path / "shot.png"
    chromium(f"--screenshot={shot}", "--window-size=1400,3000", path.as_uri())
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (3000, 1400) and pixels[..., :3].std() > 0.05


@pytest.mark.parametrize("report", REPORTS)
def test_every_image_of_every_report_decodes(report, request):
    page = request.getfixturevalue(report).read_text()
    assert "not plotted" not in page
    for data in images(page):
        pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100
        assert pixels[..., :3].std() > 0.01  # not a blank image


def drawn(ax):
    """What an axes shows: lines, bars, filled areas, images."""
    return len(ax.lines) + len(ax.patches) + len(ax.collections) + len(ax.images)


@pytest.mark.parametrize("report", REPORTS)
def test_every_plot_has_data_and_units_on_every_axis(report, request):
    shown = figures(results_of(request.getfixturevalue(report)))
    assert shown
    for caption, fig in shown:
        for ax in fig.axes:
            if not ax.axison:
                continue
            is_colorbar = hasattr(ax, "_colorbar")
            labels = [ax.get_ylabel()] if is_colorbar else [ax.get_xlabel(), ax.get_ylabel()]
            labels = [text for text in labels if text or not is_colorbar]
            assert all(UNIT.search(text) for text in labels), (caption, labels)
            assert is_colorbar or drawn(ax) > 0, caption


def test_report_plots_follow_what_the_run_or_sweep_holds(
    run_report, sweep_report, axis_sweep_report, jobs_report, bursts_report
):
    def captions(report):
        return [caption for caption, _ in figures(results_of(report))]

    assert "latency vs offered load" in captions(sweep_report)
    axis_captions = captions(axis_sweep_report)
    assert not any("offered load" in c for c in axis_captions)
    assert "latency_ns_mean by traffic.pattern" in axis_captions
    assert "latency_ns_mean by router.vcs" in axis_captions
    jobs = captions(jobs_report)
    assert jobs[0] == "completion and slowdown per job"
    assert not any("per endpoint" in c for c in jobs)  # no synthetic-traffic heat maps
    assert captions(bursts_report)[0] == "time per burst"
    assert any("per endpoint" in c for c in captions(run_report))


def test_undrained_points_are_hollow_in_the_load_curves(sweep_report):
    points = load(sweep_report.parent)
    undrained = sorted(points.loc[~points["drained"], "offered_load"])
    assert len(undrained) == 1 and len(points) == 3  # the 0.6 point only
    shown = dict(figures(sweep_report.parent))
    for caption in ("latency vs offered load", "accepted vs offered load"):
        hollow = [
            line for line in shown[caption].axes[0].lines if line.get_markerfacecolor() == "none"
        ]
        assert len(hollow) == 1, caption
        assert list(hollow[0].get_xdata()) == pytest.approx(undrained)
    page = sweep_report.read_text()
    assert "<th>drained</th>" in page and "1 did not drain" in page


def test_undrained_points_are_hollow_against_a_swept_axis(axis_sweep_report):
    points = load(axis_sweep_report.parent)
    assert (~points["drained"]).sum() >= 1  # transpose at 0.4 with a 2 us drain limit
    fig = dict(figures(axis_sweep_report.parent))["accepted_load by traffic.pattern"]
    hollow = [line for line in fig.axes[0].lines if line.get_markerfacecolor() == "none"]
    assert sum(len(line.get_xdata()) for line in hollow) == (~points["drained"]).sum()


class Tables(HTMLParser):
    """The cell texts of every <table> of a page: tables[i] is a list of rows."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def points_table(page):
    parser = Tables()
    parser.feed(page)
    header, *rows = next(t for t in parser.tables if t and "key" in t[0])
    return pd.DataFrame(rows, columns=header)


def test_points_table_is_sorted_by_the_swept_axes_in_one_format(sweep_report, axis_sweep_report):
    table = points_table(sweep_report.read_text())
    assert table["traffic.load"].astype(float).tolist() == [0.1, 0.3, 0.6]
    assert table["drained"].tolist() == ["True", "True", "False"]
    # 0.6 offered accepts 0.48 (< 0.95 x offered); its latency stays under 3x zero-load
    assert table["saturated"].tolist() == ["", "", "throughput"]
    # one number format per column: as many decimals in every cell
    for column in ("accepted_load", "latency_ns_mean"):
        decimals = {len(text.partition(".")[2]) for text in table[column]}
        assert len(decimals) == 1, (column, table[column].tolist())
    table = points_table(axis_sweep_report.read_text())
    assert (
        table["traffic.pattern"].tolist() == ["tornado"] * 2 + ["transpose"] * 2 + ["uniform"] * 2
    )
    assert table["router.vcs"].tolist() == ["2", "4"] * 3


def test_injection_maps_have_a_fixed_scale_from_zero(run_report):
    summary = json.loads((results_of(run_report) / "summary.json").read_text())
    shown = figures(results_of(run_report))
    accepted = next(fig for caption, fig in shown if caption.startswith("accepted"))
    offered = next(fig for caption, fig in shown if caption.startswith("offered"))
    bandwidth = summary["injection_bandwidth_gbytes_per_s"]
    assert accepted.axes[0].images[0].get_clim() == (0, bandwidth)
    assert offered.axes[0].images[0].get_clim() == (0, 1)


def test_latency_axis_is_logarithmic_only_when_latency_spans_more_than_tenfold():
    runs = pd.DataFrame(
        {
            "design": ["a"] * 3,
            "offered_load": [0.1, 0.5, 0.9],
            "accepted_load": [0.1, 0.5, 0.6],
            "latency_ns_mean": [100.0, 150, 5000],
            "latency_ns_p50": [90.0, 140, 4000],
            "latency_ns_p99": [200.0, 300, 9000],
        }
    )
    wide = plots.latency_load(runs).axes[0]
    assert wide.get_yscale() == "log"
    assert len(wide.collections) == 1  # the p50-p99 band
    narrow = runs[["design", "offered_load", "accepted_load"]].assign(
        latency_ns_mean=[100.0, 150, 900]
    )
    assert plots.latency_load(narrow).axes[0].get_yscale() == "linear"


def test_report_and_saturation_command_agree_on_the_same_probes():
    config = SATURATING | {"run": {"warmup": "1us", "measure": "2us"}}
    found = exanet.saturation(config, tolerance=0.05)
    assert found.upper is not None
    probes = found.probes.assign(design="transpose")
    point = saturation_point(probes).iloc[0]
    upper_offered = float(probes.loc[probes["load"] == found.upper, "offered_load"].iloc[0])
    assert point["saturation_offered_load"] == upper_offered
    stable = float(probes.loc[probes["load"] == found.load, "offered_load"].iloc[0])
    assert point["last_stable_offered_load"] == stable
    marker = next(
        line for line in plots.latency_load(probes).axes[0].lines if line.get_marker() == "X"
    )
    assert list(marker.get_xdata()) == [upper_offered]
    assert not math.isnan(point["zero_load_latency_ns"])
    assert np.isclose(point["zero_load_latency_ns"], found.zero_load_latency_ns)


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
