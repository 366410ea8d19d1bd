"""Long commands show progress on stderr, off a terminal as a line every few seconds, and a
Ctrl-C stops them at once with exit 130."""

import importlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from exanet import api, cli

runner = CliRunner()

CONFIG_TOML = '[topology]\nkind = "torus"\ndims = [4, 4]\n[traffic]\nload = 0.2\n'


@pytest.fixture
def config_path(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(CONFIG_TOML)
    return path


def test_a_slow_check_routing_logs_its_elapsed_time(config_path, monkeypatch):
    # The real command took 84 s on a 338-router Slim Fly with nothing printed.
    check_routing = api.check_routing

    def slow_check_routing(config, **options):
        time.sleep(2.5)
        return check_routing(config, **options)

    monkeypatch.setattr(api, "check_routing", slow_check_routing)
    result = runner.invoke(cli.app, ["check", "routing", str(config_path)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "check routing: 2 s elapsed"  # at SHOW_AFTER_S
    assert re.fullmatch(r"check routing: done in [23] s", lines[-1])
    assert result.stdout.startswith("acyclic")


@pytest.mark.parametrize(
    "command",
    [["check", "routing"], ["validate"], ["validate", "--threads", "2"]],
)
def test_fast_commands_print_no_progress(config_path, command):
    result = runner.invoke(cli.app, [*command, str(config_path)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("command", "owner", "name"),
    [
        (["describe", "torus", "dims=4,4"], "exanet.structure:TopologyInfo", "describe"),
        (
            ["draw", "torus", "dims=4,4", "-o", "{tmp}/t.png"],
            "exanet.structure:TopologyInfo",
            "draw",
        ),
        (
            ["iso", "--radix", "16", "--constraint", "N", "--nodes", "512"],
            "exanet.iso",
            "iso_designs",
        ),
    ],
)
def test_slow_topo_commands_show_progress(command, owner, name, monkeypatch, tmp_path):
    module, _, attribute = owner.partition(":")
    target = importlib.import_module(module)
    target = getattr(target, attribute) if attribute else target
    original = getattr(target, name)

    def slow(*args, **kwargs):
        time.sleep(2.5)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, slow)
    args = [arg.format(tmp=tmp_path) for arg in command]
    result = runner.invoke(cli.app, ["topo", *args])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"topo {command[0]}: 2 s elapsed"


def test_ctrl_c_stops_a_long_core_call_at_once_with_exit_130(config_path):
    # The core's calls hold no GIL and do not look at signals: the command waits for them in
    # Python, so the interrupt is not delayed until the call ends.
    script = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from exanet import api, cli\n"
        "api.check_routing = lambda config, **options: time.sleep(60)\n"
        "print('ready', file=sys.stderr, flush=True)\n"
        f"sys.argv = ['exanet', 'check', 'routing', {str(config_path)!r}]\n"
        "cli.main()\n"
    )
    source_tree = str(Path(cli.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": source_tree}
    process = subprocess.Popen(
        [sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stderr.readline() == "ready\n"
    time.sleep(0.5)
    interrupted_at = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert time.monotonic() - interrupted_at < 10
    assert stderr.strip() == "interrupted"


SATURATING_TOML = """
[topology]
kind = "torus"
dims = [8, 8]
[traffic]
pattern = "transpose"
load = 0.5
packet = "256B"
[run]
warmup = "1us"
measure = "3us"
"""


def test_saturation_shows_each_probe_as_it_ends(tmp_path):
    (tmp_path / "transpose.toml").write_text(SATURATING_TOML)
    result = runner.invoke(cli.app, ["saturation", str(tmp_path / "transpose.toml")])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    # 0.05, 1.0, then bisection to 0.01 over 0.95: 7 more.
    assert [line.split(":")[0] for line in lines] == [
        f"probe {n} of at most 9" for n in range(1, 10)
    ]
    assert lines[0].startswith("probe 1 of at most 9: load 0.0500, accepted 0.04")
    assert lines[0].endswith(" ns, not saturated")
    assert lines[1].startswith("probe 2 of at most 9: load 1.0000, accepted 0.3")
    assert lines[1].endswith(" ns, saturated (both)")
    # The table on stdout lists the same probes.
    table = result.stdout.splitlines()
    assert len(table) == 1 + 9 + 1
    assert table[-1].startswith("saturation load: ")


def fake_simulate(interrupt_at):
    """A network that accepts up to 0.3; the probe number `interrupt_at` is interrupted."""
    probes = []

    def simulate(config, *, progress=None):
        probes.append(config.traffic.load)
        if len(probes) == interrupt_at:
            raise KeyboardInterrupt
        offered = config.traffic.load
        summary = {"offered_load": offered, "accepted_load": min(offered, 0.3)}
        return SimpleNamespace(summary={**summary, "latency_ns_mean": 100.0})

    return simulate


def test_ctrl_c_during_saturation_prints_the_probes_done_and_exits_130(config_path, monkeypatch):
    monkeypatch.setattr(api, "simulate", fake_simulate(interrupt_at=4))
    result = runner.invoke(cli.app, ["saturation", str(config_path)])
    assert result.exit_code == 130
    assert result.stderr.splitlines()[-1] == "interrupted"
    assert len(result.stderr.splitlines()) == 3 + 1
    table = result.stdout.splitlines()
    assert table[0].split() == [
        "load",
        "offered_load",
        "accepted_load",
        "latency_ns_mean",
        "saturated",
    ]
    assert [float(line.split()[0]) for line in table[1:4]] == [0.05, 1.0, 0.525]
    assert table[4] == "after 3 probes: highest load not saturated 0.0500, lowest saturated 0.5250"


def test_a_slow_report_shows_progress(tmp_path, monkeypatch):
    import exanet.report

    def slow_report(results, page=None):
        time.sleep(2.5)
        return tmp_path / "report.html"

    monkeypatch.setattr(exanet.report, "write_report", slow_report)
    result = runner.invoke(cli.app, ["report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "report: 2 s elapsed"
    assert result.stdout.strip().endswith("report.html")


def test_ctrl_c_during_a_sweep_says_where_its_points_are_and_exits_130(tmp_path, monkeypatch):
    from exanet.sweep.runner import Sweep

    def interrupted_run(self, out, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(Sweep, "run", interrupted_run)
    spec = tmp_path / "sweep.toml"
    spec.write_text(CONFIG_TOML + '[sweep]\ngrid = {"traffic.load" = [0.1, 0.2]}\n')
    result = runner.invoke(cli.app, ["sweep", str(spec), "--out", str(tmp_path / "out")])
    assert result.exit_code == 130
    assert result.stderr.splitlines() == [
        f"the points finished so far are stored in {tmp_path / 'out'}; the same command resumes "
        "the sweep",
        "interrupted",
    ]
