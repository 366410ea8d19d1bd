import math

from exanet.bench import QUICK_TIME_DIVISOR, SCENARIOS, scenario_config
from exanet.config import load


def test_scenarios_are_valid_configs():
    for scenario in SCENARIOS.values():
        for quick in (False, True):
            config = load(scenario_config(scenario, quick))
            assert config.router.vcs == 2
            assert config.traffic.packet == 256
            assert config.links.bandwidth == 25_000_000_000


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
