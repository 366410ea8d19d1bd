"""Long commands show progress on stderr, off a terminal as a line every few seconds, and a
Ctrl-C stops them at once with exit 130."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def test_topo_describe_shows_progress_when_slow(monkeypatch):
    from exanet.structure import TopologyInfo

    describe = TopologyInfo.describe

    def slow_describe(self, **options):
        time.sleep(2.5)
        return describe(self, **options)

    monkeypatch.setattr(TopologyInfo, "describe", slow_describe)
    result = runner.invoke(cli.app, ["topo", "describe", "torus", "dims=4,4"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "topo describe: 2 s elapsed"


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
