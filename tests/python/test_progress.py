import io
import re
import time

import pytest
from rich.console import Console

from exanet import progress
from exanet.progress import SHOW_AFTER_S, ProgressDisplay, activity


def update(sim_time_ps, wall_s, phase="measure", events=0, in_flight=10):
    return {
        "sim_time_ps": sim_time_ps,
        "target_time_ps": 60_000_000,
        "phase": phase,
        "events": events,
        "wall_s": wall_s,
        "packets_in_flight": in_flight,
    }


def console_on(output, terminal):
    return Console(file=output, force_terminal=terminal, width=120)


def shown(mode, updates, terminal=True, drain_limit_ps=None):
    output = io.StringIO()
    console = console_on(output, terminal)
    with ProgressDisplay(mode, console=console, drain_limit_ps=drain_limit_ps) as callback:
        for item in updates:
            callback(item)
    return output.getvalue()


def test_automatic_progress_waits_before_showing():
    assert shown(None, [update(1_000_000, SHOW_AFTER_S / 4)]) == ""


def test_automatic_progress_shows_time_phase_rate_and_eta_on_a_terminal():
    text = shown(
        None,
        [
            update(1_000_000, SHOW_AFTER_S / 4, events=1_000),
            update(30_000_000, SHOW_AFTER_S + 1, events=6_000_000),
        ],
    )
    assert "measure" in text
    assert "30.00 / 60.00 us simulated" in text
    assert "M events/s" in text
    assert "ETA 0:00:03" in text


def test_off_a_terminal_progress_is_a_line_after_show_after_s_then_every_log_interval():
    updates = [
        update(1_000_000, SHOW_AFTER_S / 4, events=1_000),
        update(20_000_000, SHOW_AFTER_S + 1, events=2_000_000),
        update(25_000_000, SHOW_AFTER_S + 2, events=3_000_000),  # within LOG_INTERVAL_S
        update(45_000_000, SHOW_AFTER_S + 2 + progress.LOG_INTERVAL_S, events=9_000_000),
    ]
    lines = shown(None, updates, terminal=False).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("run: measure, 20.00 / 60.00 us simulated, ")
    assert lines[0].endswith("k events/s, ETA 0:00:06")  # 40 us left at 20 us per 3 s
    assert lines[1].startswith("run: measure, 45.00 / 60.00 us simulated")


def test_progress_can_be_forced_on_and_off():
    assert "warmup" in shown(True, [update(1_000_000, 0.1, phase="warmup")])
    assert shown(False, [update(30_000_000, SHOW_AFTER_S + 1)]) == ""
    assert shown(False, [update(30_000_000, SHOW_AFTER_S + 1)], terminal=False) == ""


def test_drain_shows_packets_in_flight_and_the_limit_without_a_limit_eta():
    text = shown(True, [update(70_000_000, 5.0, phase="drain", in_flight=1234)])
    assert "drain" in text
    assert "1,234 packets in flight, 10.00 us past the window" in text
    assert "ETA" not in text


def test_drain_counts_down_to_its_limit():
    # 1,200 us of drain allowed; the drain simulates 10 us per wall second.
    updates = [
        update(70_000_000, 5.0, phase="drain", in_flight=1234),
        update(80_000_000, 6.0, phase="drain", in_flight=1000),
    ]
    lines = shown(True, updates, terminal=False, drain_limit_ps=1_200_000_000).splitlines()
    assert lines == [
        "run: drain, 1,234 packets in flight, 10.00 us past the window (limit 1,200.00 us), "
        "0 events/s",
    ]
    text = shown(True, updates, drain_limit_ps=1_200_000_000)
    assert "1,000 packets in flight, 20.00 us past the window (limit 1,200.00 us)" in text
    # (1,260 - 80) us left at 10 us per second.
    assert "at most 0:01:58 to the limit" in text


def slow(seconds, value="done"):
    def call():
        time.sleep(seconds)
        return value

    return call


@pytest.fixture
def short_interval(monkeypatch):
    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.3)
    monkeypatch.setattr(progress, "LOG_INTERVAL_S", 0.5)


def test_activity_logs_a_line_periodically_off_a_terminal(short_interval):
    output = io.StringIO()
    assert activity("check routing", slow(1.2), console_on(output, False)) == "done"
    lines = output.getvalue().splitlines()
    # Lines at 0.3, 0.8 s (and maybe 1.2 s), then the closing line.
    assert 3 <= len(lines) <= 4, lines
    assert all(line.startswith("check routing: ") for line in lines)
    assert re.fullmatch(r"check routing: \d+ s elapsed", lines[0])
    assert re.fullmatch(r"check routing: done in \d+ s", lines[-1])


def test_activity_shows_a_spinner_with_the_elapsed_time_on_a_terminal(short_interval):
    output = io.StringIO()
    activity("topo describe", slow(0.8), console_on(output, True))
    assert "topo describe: 1 s elapsed" in output.getvalue()


def test_activity_is_silent_for_fast_calls():
    for terminal in (False, True):
        output = io.StringIO()
        assert activity("validate", slow(0.01, 42), console_on(output, terminal)) == 42
        assert output.getvalue() == ""


def test_activity_raises_what_its_call_raises():
    def fail():
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        activity("validate", fail, console_on(io.StringIO(), False))


def test_a_sweep_logs_its_points_off_a_terminal_while_points_run(short_interval, capsys):
    from exanet.sweep.progress import SweepProgress

    with SweepProgress(total=4, done=1, failed=0, workers=2) as bar:
        time.sleep(1.0)  # a long point: lines go on
        bar.advance(False)
        bar.advance(True)
        time.sleep(0.8)
    lines = capsys.readouterr().err.splitlines()
    assert 3 <= len(lines) <= 5, lines
    assert all(re.fullmatch(r"sweep: .*, 0:00:0\d elapsed", line) for line in lines)
    assert lines[0].startswith("sweep: 1 of 4 points done, 2 running, 0 failed, ")
    assert lines[1].startswith("sweep: 1 of 4 points done, 2 running, 0 failed, ")
    assert lines[-1].startswith("sweep: 3 of 4 points done, 1 running, 1 failed, ")


def test_a_short_sweep_logs_nothing(capsys):
    from exanet.sweep.progress import SweepProgress

    with SweepProgress(total=2, done=0, failed=0, workers=2) as bar:
        bar.advance(False)
        bar.advance(False)
    assert capsys.readouterr().err == ""


def test_a_run_without_an_end_shows_simulated_time_without_a_target_or_eta():
    # Message-passing jobs run until they finish: the core's window ends at 2^64 - 1 ps.
    endless = [
        {**update(1_000_000, SHOW_AFTER_S / 4), "target_time_ps": 2**64 - 1},
        {**update(2_000_000, SHOW_AFTER_S + 1), "target_time_ps": 2**64 - 1},
    ]
    for terminal in (True, False):
        text = shown(True, endless, terminal=terminal)
        assert re.search(r"\d\.00 us simulated", text)
        assert "18,446" not in text and "ETA" not in text


def test_an_eta_beyond_any_duration_says_so_instead_of_overflowing():
    text = shown(True, [update(1, SHOW_AFTER_S / 4), update(2, 10**9)])
    assert "ETA more than 1,000 days" in text
