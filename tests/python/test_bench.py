import math

from exanet.bench import QUICK_TIME_DIVISOR, SCENARIOS, scenario_config
from exanet.config import load


def test_scenarios_are_valid_configs():
    for scenario in SCENARIOS.values():
        for quick in (False, True):
            config = load(scenario_config(scenario, quick))
            # The fewest VCs each routing accepts: UGAL-L on a dragonfly needs 3.
            assert config.router.vcs == (3 if scenario.name in "eijk" else 2)
            assert config.links.bandwidth == 25_000_000_000
            if config.traffic.kind == "synthetic":
                assert config.traffic.packet == 256


def test_routing_cost_scenarios_carry_the_same_packets():
    # g and h differ only in routing, at a load both carry: their packet counts compare the
    # per-hop cost of the two routing functions.
    g, h = (load(SCENARIOS[name].config).to_core() for name in "gh")
    assert g["routing"]["kind"] == "minimal" and g["routing"]["escape"] == "bubble"
    assert h["routing"]["kind"] == "dor"
    assert {**g, "routing": None} == {**h, "routing": None}


def test_largest_scenario_has_a_million_endpoints_and_fixed_duration():
    config = load(SCENARIOS["d"].config)
    assert math.prod(config.topology.dims) * config.topology.concentration == 1_048_576
    assert config.run.duration == 1_000_000


def test_quick_divides_run_times():
    full = load(scenario_config(SCENARIOS["a"], quick=False))
    quick = load(scenario_config(SCENARIOS["a"], quick=True))
    assert quick.run.warmup * QUICK_TIME_DIVISOR == full.run.warmup
    assert quick.run.measure * QUICK_TIME_DIVISOR == full.run.measure
    assert quick.traffic == full.traffic


def test_quick_divides_job_messages():
    full = load(scenario_config(SCENARIOS["j"], quick=False))
    quick = load(scenario_config(SCENARIOS["j"], quick=True))
    for big, small in zip(full.traffic.jobs, quick.traffic.jobs, strict=True):
        assert small.message == big.message // QUICK_TIME_DIVISOR
        assert (small.app, small.ranks) == (big.app, big.ranks)
