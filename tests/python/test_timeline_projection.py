"""A whole injection timeline projected to a larger system (seed 000 §6.1.3): the function
`exanet.analysis.project_timeline` and the command `exanet project`."""

import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import exanet
from exanet import cli
from exanet.analysis import capped_timeline, injection_timeline_bytes, project_timeline
from exanet.errors import ConfigError

TARGET = 16_384
RNG = np.random.default_rng(7)
#: per bin of normalized time: bandwidth = A * n^B GB/s, a different exponent in every bin
A = RNG.uniform(0.5, 40.0, 24)
B = RNG.uniform(-0.8, 1.2, 24)


def family(n, bin_ns=50.0, repeat=1):
    """Bytes per bin of the synthetic family at n nodes; `repeat` bins per bin of the law."""
    return np.repeat(A * n**B * bin_ns, repeat)


def test_per_bin_fits_recover_a_different_power_law_in_every_bin():
    projection = project_timeline({32: family(32), 64: family(64)}, 50.0, TARGET, method="per_bin")
    expected = A * TARGET**B
    got = projection.timeline["injection_gbytes_per_s"].to_numpy()
    assert len(got) == 24
    assert np.max(np.abs(got / expected - 1)) < 1e-9
    fits = projection.bandwidth_fits
    assert np.max(np.abs(fits["slope"] - B)) < 1e-9
    assert np.max(np.abs(fits["coefficient_gbytes_per_s"] / A - 1)) < 1e-9
    assert projection.program_time_ns == 24 * 50.0
    assert abs(projection.duration_fit.slope) < 1e-12
    assert projection.execution_time_ns is None and projection.slowdown is None


def test_three_sizes_and_a_duration_that_grows_with_the_system():
    """Durations 16, 32, 64 nodes: 12, 24, 48 bins of 50 ns (duration = 0.75 n bins), so 16,384
    nodes last 12,288 bins; each timeline repeats every bin of the law n / 16 times."""
    timelines = {n: family(n, repeat=n // 16) * n / 16 for n in (16, 32, 64)}
    timelines = {n: t[: len(t) // 2] for n, t in timelines.items()}  # 12 of the 24 law bins
    projection = project_timeline(timelines, 50.0, TARGET, method="per_bin")
    assert abs(projection.duration_fit.slope - 1) < 1e-12
    assert projection.program_time_ns == 12_288 * 50.0
    # the bins at 16,384 nodes: each of the 12 laws (scaled by n/16 over n/16 bins) 1,024 times
    expected = np.repeat(A[:12] * TARGET ** (B[:12] + 1) / 16, 1024)
    got = projection.timeline["injection_gbytes_per_s"].to_numpy()
    assert np.max(np.abs(got / expected - 1)) < 1e-9


def test_average_method_scales_the_largest_timeline_by_the_mean_bandwidth():
    """The thesis's rescaling: one shape, magnitude c * n^k. 32 nodes: [1, 3, 2, 0] x 2 GB/s
    x (32/64)^0.5; 64 nodes: [1, 3, 2, 0] x 2 GB/s."""
    shape = np.array([1.0, 3.0, 2.0, 0.0])
    timelines = {n: shape * 2.0 * (n / 64) ** 0.5 * 10.0 for n in (32, 64)}
    projection = project_timeline(timelines, 10.0, TARGET, method="average")
    expected = shape * 2.0 * (TARGET / 64) ** 0.5
    got = projection.timeline["injection_gbytes_per_s"].to_numpy()
    assert np.allclose(got, expected, rtol=1e-9, atol=0)
    assert np.allclose(projection.bandwidth_fits["slope"], 0.5, rtol=1e-9)


def test_the_capped_execution_time_is_algorithm_1_by_hand():
    """At 16,384 nodes the timeline is [10, 50, 10, 0, 0] bytes per 10 ns bin (from 32 and 64
    nodes scaling as n^0.5; bins 3-4 silent at both sizes). A cap of 2.2 GB/s is 22 bytes a
    bin: 10 -> 10; 50 -> 22 carrying 28; 22 carrying 6; 6 + 10 -> 16; 0; 0. Six bins: 60 ns
    of injection against 50 ns of program, execution time 60 ns (eq. 6.7), slowdown 1.2."""
    base = np.array([10.0, 50.0, 10.0, 0.0, 0.0])
    timelines = {n: base * (n / TARGET) ** 0.5 for n in (32, 64)}
    projection = project_timeline(timelines, 10.0, TARGET, cap_gbytes_per_s=2.2)
    assert np.allclose(projection.timeline["capped_bytes"], [10, 22, 22, 16, 0, 0], rtol=1e-9)
    assert np.allclose(projection.timeline["bytes"], [10, 50, 10, 0, 0, 0], rtol=1e-9)
    assert projection.program_time_ns == 50.0
    assert projection.injection_time_ns == 60.0
    assert projection.execution_time_ns == 60.0
    assert projection.slowdown == pytest.approx(1.2)
    capped = capped_timeline(projection.timeline["bytes"].to_numpy()[:5], 22.0)
    assert np.allclose(projection.timeline["capped_bytes"], capped)


def test_a_cap_above_every_bin_costs_nothing():
    projection = project_timeline({32: family(32), 64: family(64)}, 50.0, TARGET, 1e12)
    assert projection.execution_time_ns == projection.program_time_ns
    assert projection.slowdown == 1.0


@pytest.mark.parametrize(
    ("kwargs", "key", "words"),
    [
        ({"timelines": {32: [1.0, 2.0]}}, "analysis.timelines", "two or more distinct"),
        ({"cap_gbytes_per_s": 0.0}, "analysis.cap_gbytes_per_s", "> 0"),
        ({"cap_gbytes_per_s": -5.0}, "analysis.cap_gbytes_per_s", "> 0"),
        ({"bin_ns": 0.0}, "analysis.bin_ns", "> 0"),
        ({"target_nodes": 0}, "analysis.target_nodes", ">= 1"),
        ({"method": "median"}, "analysis.method", "average, per_bin"),
        (
            {"timelines": {32: [1.0, 0.0], 64: [1.0, 2.0]}, "method": "per_bin"},
            "analysis.timelines",
            "bin 1",
        ),
        ({"timelines": {32: [], 64: [1.0]}}, "analysis.timelines[32]", "non-empty"),
        ({"timelines": {32: [0.0], 64: [1.0]}}, "analysis.timelines[32]", "some > 0"),
    ],
)
def test_bad_input_names_the_argument(kwargs, key, words):
    arguments = {
        "timelines": {32: [1.0, 2.0], 64: [2.0, 3.0]},
        "bin_ns": 50.0,
        "target_nodes": TARGET,
    } | kwargs
    with pytest.raises(ConfigError) as error:
        project_timeline(**arguments)
    assert error.value.key == key
    assert words in str(error.value)


def test_timelines_of_different_lengths_are_averaged_onto_the_largest_grid():
    """32 nodes: 2 bins; 64 nodes: 4 bins. The 32-node bins each cover two 64-node bins, so
    each is repeated and the fits pair them; traffic per bin at 64 nodes is kept exactly."""
    projection = project_timeline({32: [4.0, 8.0], 64: [4.0, 4.0, 8.0, 8.0]}, 1.0, 64)
    assert np.allclose(projection.timeline["bytes"], [4.0, 4.0, 8.0, 8.0])
    assert pd.Series(projection.bandwidth_fits["slope"]).abs().max() < 1e-12


def record_run(directory, dims, bin_="50ns"):
    """A uniform run on a `dims` torus at 0.3 load with its injection series, written out."""
    config = {
        "topology": {"kind": "torus", "dims": dims},
        "traffic": {"pattern": "uniform", "load": 0.3, "packet": "64B"},
        "run": {"warmup": "200ns", "measure": "1us"},
        "record": {"injection_bin": bin_},
    }
    return exanet.simulate(config, progress=False).write(directory)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {
        "32": record_run(root / "32", [4, 8]),
        "64": record_run(root / "64", [8, 8]),
        "64_100ns": record_run(root / "64_100ns", [8, 8], "100ns"),
    }


def invoke(*args):
    return CliRunner().invoke(cli.app, ["project", *(str(arg) for arg in args)])


def test_the_command_writes_the_projection_of_two_recorded_runs(runs, tmp_path):
    out = tmp_path / "projected.parquet"
    done = invoke(runs["32"], runs["64"], "--nodes", 16384, "--cap", "5GB/s", "-o", out)
    assert done.exit_code == 0, done.output
    written = pd.read_parquet(out)
    timelines = {}
    for n in (32, 64):
        run = exanet.open(runs[str(n)])
        series = run.injection_series
        end_ns = series["bin_start_ns"].min() + run.summary["window_ns"]
        timelines[n] = injection_timeline_bytes(series, 50.0, end_ns=end_ns)
    expected = project_timeline(timelines, 50.0, 16384, 5.0)
    pd.testing.assert_frame_equal(written, expected.timeline)
    assert list(written.columns) == [
        "bin_start_ns",
        "bytes",
        "capped_bytes",
        "injection_gbytes_per_s",
        "capped_injection_gbytes_per_s",
    ]
    # Uniform traffic projects to about 6.2 GB/s in every bin, above the cap of 5 GB/s (250
    # bytes a bin): Algorithm 1 then injects 250 bytes a bin until the total is out.
    projected = expected.timeline["bytes"].to_numpy()[:20]
    assert projected.min() > 250
    assert expected.injection_time_ns == math.ceil(projected.sum() / 250) * 50
    assert expected.slowdown == expected.injection_time_ns / 1000 > 1.2
    assert written["capped_injection_gbytes_per_s"].max() <= 5.0 + 1e-9
    assert f"slowdown {expected.slowdown:.3f}" in " ".join(done.output.split())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--cap", "0GB/s"], "'--cap' = '0GB/s' is invalid: a bandwidth per node > 0"),
        (["--cap", "fast"], "'--cap' = 'fast' is invalid"),
        (["--bin", "70ns"], "'--bin' = '70ns' is invalid: a multiple of every recorded bin"),
        (["--method", "median"], "'analysis.method' = 'median' is invalid: one of average"),
    ],
)
def test_the_command_refuses_bad_options(runs, args, words):
    done = invoke(runs["32"], runs["64"], "--nodes", 16384, *args)
    assert done.exit_code == 2
    assert words in " ".join(done.output.split())


def test_the_command_refuses_mismatched_bins_fewer_sizes_and_unrecorded_runs(runs, tmp_path):
    mismatched = invoke(runs["32"], runs["64_100ns"], "--nodes", 1024)
    assert mismatched.exit_code == 2
    assert "'record.injection_bin' = 50ns in" in mismatched.output
    assert "the same bin in every run, or --bin" in " ".join(mismatched.output.split())
    rebinned = invoke(runs["32"], runs["64_100ns"], "--nodes", 1024, "--bin", "100ns")
    assert rebinned.exit_code == 0, rebinned.output
    alone = invoke(runs["32"], "--nodes", 1024)
    assert alone.exit_code == 2 and "two or more run directories" in alone.output
    same = invoke(runs["64"], runs["64_100ns"], "--nodes", 1024, "--bin", "100ns")
    assert same.exit_code == 2 and "both have 64 endpoints" in " ".join(same.output.split())
    plain = exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "traffic": {"load": 0.1},
            "run": {"measure": "200ns"},
        },
        progress=False,
    ).write(tmp_path / "plain")
    unrecorded = invoke(plain, runs["64"], "--nodes", 1024)
    assert unrecorded.exit_code == 2
    assert "'record.injection_bin' = unset in" in " ".join(unrecorded.output.split())
