import pickle

from samples import REPORT, channel

from exanet.errors import ConfigError, DeadlockError, ExanetError


def test_config_error_attributes_and_message():
    error = ConfigError("router.vcs", "0", "an integer in 1..16")
    assert (error.key, error.value, error.expected) == ("router.vcs", "0", "an integer in 1..16")
    assert str(error) == "config key 'router.vcs' = 0 is invalid: an integer in 1..16"
    assert isinstance(error, ExanetError)
    assert isinstance(error, ValueError)


def test_errors_survive_pickling():
    config_error = pickle.loads(pickle.dumps(ConfigError("seed", "-1", "an integer >= 0")))
    assert (config_error.key, config_error.value) == ("seed", "-1")
    deadlock = pickle.loads(pickle.dumps(DeadlockError("stuck", REPORT, {"events": 3})))
    assert (str(deadlock), deadlock.report, deadlock.summary) == ("stuck", REPORT, {"events": 3})


def test_deadlock_report_names_cycle_and_stuck_channels():
    error = DeadlockError("no progress for 5000 ns", REPORT)
    assert error.summary is None
    text = error.format_report()
    assert text.startswith("deadlock at 1,234.500 ns")
    assert "42 packets in the network" in text
    assert "r0.dim0+.vc0: 3 packets queued, 0 B of credit" in text
    assert "cycle (2 channels" in text
    assert "stuck channels (3)" in text
    for name in ("r0.dim0+.vc0", "r1.dim0+.vc0", "r7.dim0+.vc0"):
        assert name in text
    cycle_part = text.split("stuck channels")[0]
    assert "r7.dim0+.vc0" not in cycle_part
    assert "back to r0.dim0+.vc0" in cycle_part


def test_deadlock_report_without_cycle_and_with_many_stuck_channels():
    stuck = [channel(f"r{i}.dim0+.vc0", i, i + 1, 1) for i in range(25)]
    report = {"time_ns": 10.0, "packets_in_network": 25, "stuck_channels": stuck, "cycle": []}
    text = DeadlockError("stuck", report).format_report()
    assert "no wait-for cycle found" in text
    assert "r19.dim0+.vc0" in text
    assert "r20.dim0+.vc0" not in text
    assert "and 5 more" in text


def test_config_error_with_several_problems():
    problems = [("topolgy", "{}", "unknown key"), ("topology", "(missing)", "a value is required")]
    error = ConfigError.of(problems)
    assert (error.key, error.value, error.expected) == problems[0]
    assert error.errors == problems
    assert str(error) == (
        "2 problems in the config:\n"
        "  config key 'topolgy' = {} is invalid: unknown key\n"
        "  config key 'topology' = (missing) is invalid: a value is required"
    )
    copied = pickle.loads(pickle.dumps(error))
    assert (copied.errors, str(copied)) == (problems, str(error))


def test_config_error_of_one_problem_lists_it():
    error = ConfigError("seed", "-1", "an integer >= 0")
    assert error.errors == [("seed", "-1", "an integer >= 0")]
    assert ConfigError.of(error.errors).errors == error.errors
