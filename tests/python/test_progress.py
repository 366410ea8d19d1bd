import io

from rich.console import Console

from exanet.progress import SHOW_AFTER_S, ProgressDisplay


def update(sim_time_ps, wall_s, phase="measure", events=0):
    return {
        "sim_time_ps": sim_time_ps,
        "target_time_ps": 60_000_000,
        "phase": phase,
        "events": events,
        "wall_s": wall_s,
        "packets_in_flight": 10,
    }


def shown(mode, updates, terminal=True):
    output = io.StringIO()
    console = Console(file=output, force_terminal=terminal, width=120)
    with ProgressDisplay(mode, console=console) as callback:
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


def test_automatic_progress_is_silent_when_stderr_is_not_a_terminal():
    assert shown(None, [update(30_000_000, SHOW_AFTER_S + 1)], terminal=False) == ""


def test_progress_can_be_forced_on_and_off():
    assert "warmup" in shown(True, [update(1_000_000, 0.1, phase="warmup")])
    assert shown(False, [update(30_000_000, SHOW_AFTER_S + 1)]) == ""


def test_no_eta_while_draining():
    text = shown(True, [update(70_000_000, 5.0, phase="drain")])
    assert "drain" in text
    assert "70.00 us simulated, window ended at 60.00 us" in text
    assert "ETA" not in text
