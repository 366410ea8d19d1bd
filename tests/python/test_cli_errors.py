"""The command line's behaviour on errors, without running the simulator core."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from samples import REPORT, SUMMARY, SampleRun
from typer.testing import CliRunner

from exanet import _core, api, cli
from exanet.errors import DeadlockError
from exanet.result import Result

runner = CliRunner()

CONFIG_TOML = '[topology]\nkind = "torus"\ndims = [2, 2]\n[traffic]\nload = 0.5\n'


@pytest.fixture
def config_path(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(CONFIG_TOML)
    return path


def fake_simulate(config, *, progress=None):
    return Result(config, SampleRun())


def test_help_lists_commands():
    result = runner.invoke(cli.app, ["--help"])
    assert result.exit_code == 0
    for command in ("run", "demo", "validate"):
        assert command in result.output


def test_missing_config_file_exits_2_without_traceback(tmp_path):
    missing = tmp_path / "absent.toml"
    result = runner.invoke(cli.app, ["run", str(missing)])
    assert result.exit_code == 2
    assert "config key 'config'" in result.stderr
    assert str(missing) in result.stderr
    assert "Traceback" not in result.output


def test_toml_syntax_error_exits_2(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[topology\n")
    result = runner.invoke(cli.app, ["validate", str(path)])
    assert result.exit_code == 2
    assert "valid TOML" in result.stderr


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("traffic.lod=0.3", "config key 'traffic.lod'"),
        ("traffic.load", "KEY=VALUE"),
        ("traffic.load=2", "config key 'traffic.load' = 2"),
        ("router.latency=fast", "config key 'router.latency' = \"fast\""),
    ],
)
def test_bad_set_exits_2(config_path, override, message):
    result = runner.invoke(cli.app, ["run", str(config_path), "--set", override])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_deadlock_prints_report_and_exits_3(config_path, monkeypatch):
    def deadlocking_simulate(config, *, progress=None):
        raise DeadlockError("no progress for 5000 ns", REPORT)

    monkeypatch.setattr(api, "simulate", deadlocking_simulate)
    result = runner.invoke(cli.app, ["run", str(config_path)])
    assert result.exit_code == 3
    assert "r1.dim0+.vc0" in result.stderr
    assert "wait-for cycle" in result.stderr


def test_interrupt_exits_130(config_path, monkeypatch):
    def interrupted_simulate(config, *, progress=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "simulate", interrupted_simulate)
    result = runner.invoke(cli.app, ["run", str(config_path)])
    assert result.exit_code == 130
    assert "interrupted" in result.stderr


def test_unexpected_python_error_exits_70_with_a_bug_report(config_path, monkeypatch, tmp_path):
    def broken_simulate(config, *, progress=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "simulate", broken_simulate)
    outdir = tmp_path / "out"
    result = runner.invoke(cli.app, ["run", str(config_path), "-o", str(outdir)])
    assert result.exit_code == 70
    assert "internal error (a bug in exanet" in result.stderr
    assert "RuntimeError: boom" in result.stderr
    assert "Traceback" not in result.output
    report = json.loads((outdir / "exanet-bug-report.json").read_text())
    assert report["error"] == "RuntimeError: boom"
    assert report["config_text"] == CONFIG_TOML
    assert any("broken_simulate" in line for line in report["traceback"])


def test_a_sweep_s_bug_report_goes_to_its_out_directory_with_its_spec(tmp_path, monkeypatch):
    # The report looked for arguments named config and output only: a sweep's went to the
    # current directory without its spec.
    from exanet.sweep import Sweep

    def broken_run(self, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(Sweep, "run", broken_run)
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "load.toml"
    spec.write_text(CONFIG_TOML + '[[sweep.grid]]\nkey = "traffic.load"\nvalues = [0.1]\n')
    out = tmp_path / "sweep-out"
    out.mkdir()
    result = runner.invoke(cli.app, ["sweep", str(spec), "--out", str(out)])
    assert result.exit_code == 70, result.output
    report = json.loads((out / "exanet-bug-report.json").read_text())
    assert report["config_text"] == spec.read_text()
    assert not (tmp_path / "exanet-bug-report.json").exists()


def test_a_bug_report_never_turns_an_output_file_into_a_directory(tmp_path, monkeypatch):
    import exanet.report

    def broken_report(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(exanet.report, "write_report", broken_report)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").mkdir()
    page = tmp_path / "page.html"
    result = runner.invoke(cli.app, ["report", str(tmp_path / "run"), "-o", str(page)])
    assert result.exit_code == 70, result.output
    assert not page.exists()
    assert (tmp_path / "exanet-bug-report.json").exists()


def test_a_core_panic_is_an_internal_error_naming_where_it_happened(
    config_path, monkeypatch, tmp_path
):
    """A panic in the Rust core reaches the command line as one line and exit 70, never as a
    PanicException traceback, and the bug report holds the core config."""

    def panicking_validate(config_json):
        _core._raise_panic("index out of range")

    monkeypatch.setattr(_core, "validate", panicking_validate)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli.app, ["validate", str(config_path)])
    assert result.exit_code == 70
    line = result.stderr.strip()
    assert line.startswith("internal error (a bug in exanet")
    assert "_raise_panic: index out of range (at crates/exanet-py/src/lib.rs:" in line
    assert "Traceback" not in result.output and "panicked" not in result.output
    report = json.loads((tmp_path / "exanet-bug-report.json").read_text())
    assert report["core_config"]["topology"]["dims"] == [2, 2]


def test_a_core_panic_reaches_python_callers_as_internal_error():
    with pytest.raises(_core.InternalError, match="_raise_panic: boom"):
        _core._raise_panic("boom")
    # The guard resets between calls: the next panic reports its own message.
    with pytest.raises(_core.InternalError, match="_raise_panic: again"):
        _core._raise_panic("again")


def test_run_writes_outputs_and_prints_summary(config_path, tmp_path, monkeypatch):
    calls = []

    def recording_simulate(config, *, progress=None):
        calls.append((config, progress))
        return fake_simulate(config)

    monkeypatch.setattr(api, "simulate", recording_simulate)
    outdir = tmp_path / "out"
    result = runner.invoke(
        cli.app, ["run", str(config_path), "-o", str(outdir), "--set", "traffic.load=0.25"]
    )
    assert result.exit_code == 0, result.output
    ((config, progress),) = calls
    assert config.traffic.load == 0.25
    assert progress is None
    for name in ("summary.json", "config.json", "endpoints.parquet", "links.parquet"):
        assert (outdir / name).is_file()
    assert "123.5 / 110.0 / 321.0 ns" in result.stdout
    assert "12.35 M/s" in result.stdout


def test_run_defaults_output_to_exanet_out_and_quiet_prints_nothing(
    config_path, tmp_path, monkeypatch
):
    monkeypatch.setattr(api, "simulate", fake_simulate)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli.app, ["run", str(config_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "exanet-out" / "small" / "summary.json").is_file()
    assert result.stdout == ""


def test_demo_sweeps_loads(monkeypatch):
    loads = []

    def recording_simulate(config, *, progress=None):
        loads.append(config.traffic.load)
        return fake_simulate(config)

    monkeypatch.setattr(api, "simulate", recording_simulate)
    result = runner.invoke(cli.app, ["demo"])
    assert result.exit_code == 0, result.output
    assert loads == list(cli.DEMO_LOADS)
    assert "latency mean" in result.stdout
    assert result.stdout.count("123.5") == len(cli.DEMO_LOADS)
    assert result.stdout.count("0.490") == len(cli.DEMO_LOADS)


def test_python_dash_m_exanet_reports_missing_file(tmp_path):
    source_tree = str(Path(cli.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([source_tree, os.environ.get("PYTHONPATH", "")]),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "exanet", "run", str(tmp_path / "absent.toml")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert completed.returncode == 2
    assert "config key 'config'" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_run_says_first_that_the_network_did_not_drain(config_path, tmp_path, monkeypatch):
    def undrained_simulate(config, *, progress=None):
        summary = {
            **SUMMARY,
            "drained": False,
            "packets_measured": 1_000,
            "packets_measured_delivered": 990,
        }
        return Result(config, SampleRun(summary))

    monkeypatch.setattr(api, "simulate", undrained_simulate)
    result = runner.invoke(cli.app, ["run", str(config_path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "not steady-state: 10 of 1,000 measured packets had not arrived when the drain stopped "
        "at run.drain_limit; their latency is missing"
    )
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["steady_state"] is False


def test_ctrl_c_while_the_command_loads_exits_130_without_a_traceback():
    # A Ctrl-C a second after starting `exanet` landed in pandas' import and printed a
    # KeyboardInterrupt traceback; the interrupt is raised here where the command line loads.
    script = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def interrupted(name, *args, **kwargs):\n"
        "    if name == 'exanet.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupted\n"
        "from exanet.launcher import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 130
    assert done.stderr == "interrupted\n"


def test_importing_exanet_loads_none_of_its_heavy_libraries():
    heavy = "{'pandas', 'pyarrow', 'exanet._core'}"
    script = f"import sys, exanet; print(sorted({heavy} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
    import exanet

    # Every public name still resolves, on first use.
    assert all(getattr(exanet, name) is not None for name in exanet.__all__)
