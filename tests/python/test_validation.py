"""The validation suite (exanet.validation, `exanet validate-model`): its short set passes, and
its checks can fail: a wrong reference is reported as a failure, on the command line too."""

import json
import math

import pytest
from typer.testing import CliRunner

from exanet import validation
from exanet.cli import app


def test_the_short_set_passes():
    outcomes = validation.run_cases()
    failed = {
        o.case.name: o.error or [c for c in o.checks if not c.passed]
        for o in outcomes
        if not o.passed
    }
    assert not failed
    names = {o.case.name for o in outcomes}
    # Every group of the suite is represented in the short set.
    assert {o.case.group for o in outcomes} == {c.group for c in validation.CASES.values()} - {
        "002 Tables 1 and 2"
    }
    assert {"md1_load_0.1", "md1_load_0.9", "su_algorithm1_worked"} <= names


def test_checks_compare_as_their_mode_says():
    assert validation.Check("x", 100.0, 102.0, 0.03).passed
    assert not validation.Check("x", 100.0, 104.0, 0.03).passed
    assert not validation.Check("x", 100.0, 96.0, 0.03).passed
    assert validation.Check("x", 0.5, 0.2, 0.01, "at_most").passed
    assert not validation.Check("x", 0.5, 0.51, 0.01, "at_most").passed
    assert validation.Check("x", 0.15, 0.2, 0.05, "at_least").passed
    assert not validation.Check("x", 0.15, 0.14, 0.05, "at_least").passed
    assert validation.Check("x", 12000, 12000, 0, "absolute").passed
    assert not validation.Check("x", 12012, 12000, 0, "absolute").passed
    assert not validation.Check("x", 1.0, math.nan, 0.5).passed


def test_closed_forms_match_hand_computed_values():
    # M/D/1 at 50% load, 11.52 ns service: 0.5 x 11.52 / (2 x 0.5) = 5.76 ns.
    assert validation.md1_wait_ns(0.5, 11.52) == pytest.approx(5.76)
    # A lone packet over 6 hops: 2 x 20 + 7 x 50 + 6 x 20 + 11.52 ns.
    assert validation.zero_load_latency_ns(6) == pytest.approx(521.52)
    # Uniform on an 8x8 torus: ring distances 0,1,2,3,4,3,2,1 sum to 16 per dimension, so
    # 2 x 8 x 16 / 63 hops between distinct endpoints. An x+ link is crossed by the sources of
    # its row 1, 2 or 3 places before it (6 source-offset pairs) and, for offset 4 (a tie, up
    # from even coordinates), by the 2 even ones of the 4 before it: 8 pairs x 8 destinations
    # (any y) at 1/63 each.
    stats = validation.grid_loads("torus", [8, 8], validation.pattern_matrix("uniform", 64))
    assert stats.hops_mean == pytest.approx(256 / 63)
    assert stats.max_channel_load == pytest.approx(64 / 63)
    # Tornado on 8x8: every packet 3 + 3 hops; each x+ link carries the 3 packets passing it.
    tornado = validation.grid_loads(
        "torus", [8, 8], validation.pattern_matrix("tornado", 64, [8, 8])
    )
    assert (tornado.hops_mean, tornado.hops_var, tornado.max_channel_load) == (6, 0, 3)
    # Fat-tree radix 8, taper 3:1: a leaf's 6 endpoints share 2 up-links; under group_shift all
    # their traffic leaves the leaf.
    assert validation.fat_tree_cut(8, 8, (3, 1), "group_shift").max_channel_load == 3
    # Dragonfly p=4, a=4, h=2 (g=9, one global link per group pair) under group_shift: a group's
    # 16 endpoints share the one link to the next group; 3 of 4 sources and 3 of 4 destinations
    # are not on the link's routers, so 0.75 + 1 + 0.75 hops.
    shift = validation.dragonfly_cut({"kind": "dragonfly", "p": 4, "a": 4, "h": 2}, "group_shift")
    assert (shift.hops_mean, shift.max_channel_load) == (pytest.approx(2.5), pytest.approx(16))


def test_a_wrong_reference_fails(monkeypatch):
    case = validation.CASES["md1_load_0.5"]
    assert validation.run_case(case).passed
    # A service time 5% too long makes the closed form 5% too high: outside the 3% tolerance.
    monkeypatch.setattr(validation, "SERIALIZATION_NS", validation.SERIALIZATION_NS * 1.05)
    outcome = validation.run_case(case)
    assert not outcome.passed
    wait = outcome.checks[0]
    assert wait.quantity == "wait_ns_mean" and wait.error == pytest.approx(-0.05, abs=0.01)


def test_command_exit_codes_and_json(monkeypatch):
    runner = CliRunner()
    done = runner.invoke(app, ["validate-model", "--case", "md1_load_0.5", "--json"])
    assert done.exit_code == 0, done.output
    (record,) = json.loads(done.output)
    assert record["case"] == "md1_load_0.5" and record["passed"]
    assert record["checks"][0]["reference"] == pytest.approx(5.76)
    monkeypatch.setattr(validation, "SERIALIZATION_NS", validation.SERIALIZATION_NS * 1.05)
    failed = runner.invoke(app, ["validate-model", "--case", "md1_load_0.5"])
    assert failed.exit_code == 1
    assert "0 of 1 cases passed" in failed.output and "FAIL" in failed.output
    unknown = runner.invoke(app, ["validate-model", "--case", "md1_load_5"])
    assert unknown.exit_code == 2
    assert "--case" in unknown.output and "md1_load_0.5" in unknown.output
