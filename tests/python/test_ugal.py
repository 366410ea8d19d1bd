"""UGAL-L against the references the literature compares it with (Kim et al. 2008, Jiang et al.
2009): close to Valiant under the dragonfly's adversarial group shift, close to minimal routing
under uniform traffic, with small and deep buffers."""

import pytest

import exanet


def accepted(routing, pattern, vc_buffer):
    summary = exanet.simulate(
        {
            "topology": {"kind": "dragonfly", "p": 2, "a": 4, "h": 2},
            "router": {"vc_buffer": vc_buffer, "vcs": 4},
            "routing": {"kind": routing},
            "traffic": {"kind": "synthetic", "pattern": pattern, "load": 1.0, "packet": "64B"},
            "run": {"warmup": "2us", "measure": "4us", "drain": "none"},
        }
    ).summary
    return summary["accepted_load"]


@pytest.mark.parametrize(
    ("pattern", "vc_buffer", "reference", "fraction"),
    [
        # before the queued packets counted: 0.314 of Valiant's 0.459 (0.68)
        ("group_shift", "2KiB", "valiant", 0.85),
        ("group_shift", "64KiB", "valiant", 0.9),
        ("uniform", "2KiB", "minimal", 0.95),
        # before: 0.673 of minimal's 0.847 (0.79), no bias toward minimal ways
        ("uniform", "64KiB", "minimal", 0.95),
    ],
)
def test_ugal_l_tracks_valiant_under_group_shift_and_minimal_under_uniform(
    pattern, vc_buffer, reference, fraction
):
    assert accepted("ugal_l", pattern, vc_buffer) >= fraction * accepted(
        reference, pattern, vc_buffer
    )


def test_par_keeps_minimal_throughput_under_uniform_traffic_with_deep_buffers():
    # before: 0.579 against minimal's 0.847, its in-transit decision weighing credits only
    assert accepted("par", "uniform", "64KiB") >= 0.9 * accepted("minimal", "uniform", "64KiB")


def test_the_summary_gives_the_spread_of_injection_over_sources():
    summary = exanet.simulate(
        {
            "topology": {"kind": "torus", "dims": [4, 4]},
            "traffic": {"kind": "synthetic", "pattern": "uniform", "load": 0.2},
            "run": {"warmup": "1us", "measure": "2us"},
        }
    ).summary
    assert 0 < summary["injected_load_min"] <= summary["injected_load"]
    assert summary["injected_load"] <= summary["injected_load_max"] <= 1
