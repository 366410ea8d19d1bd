"""The seeds' figures: radix needed vs system size (Li et al., Fig. 2) from the structure
builders against the families' closed forms, performance per dollar vs balance (Bhatele et al.,
Fig. 9) against the ratios, and injected-packet maps (Izu et al., Figs. 3-4) against the
endpoints table's sums."""

import math

import numpy as np
import pandas as pd
import pytest

import exanet
from exanet import iso, plots
from exanet.errors import ConfigError
from exanet.radix import radix_needed, radix_scaling
from exanet.topologies import slim_fly_degree

RUN = {"traffic": {"load": 0.4}, "run": {"warmup": "500ns", "measure": "2us"}}


@pytest.fixture(scope="module")
def scaling():
    series = ["fat_tree_2", "fat_tree_3", "fat_tree_4", "dragonfly", "slim_fly", "fishnet_lite"]
    return radix_scaling(series, max_endpoints=20_000, max_radix=64)


def test_fat_trees_reach_their_closed_forms(scaling):
    for levels in (2, 3, 4):
        rows = scaling[scaling["series"] == f"fat_tree_{levels}"]
        k = rows["radix"].to_numpy()
        assert list(k[:3]) == [4, 6, 8]
        assert (rows["endpoints"].to_numpy() == 2 * (k // 2) ** levels).all()  # k^3/4 at 3 levels
    three = scaling[scaling["series"] == "fat_tree_3"]
    # the series stops at the first tree of 20,000 endpoints or more: 42^3/4 = 18,522 < 20,000
    assert three["radix"].max() == 44 and three["endpoints"].max() == 44**3 // 4 == 21_296
    # 2 levels stop at the radix limit: 64^2/2 endpoints
    assert scaling[scaling["series"] == "fat_tree_2"]["endpoints"].max() == 2_048


def test_dragonfly_slim_fly_and_fishnet_lite_match_the_formulas(scaling):
    dragonfly = scaling[scaling["series"] == "dragonfly"]
    for h, (radix, endpoints) in enumerate(dragonfly[["radix", "endpoints"]].values, start=1):
        assert radix == 4 * h - 1  # p = h, a - 1 = 2h - 1 local, h global ports
        assert endpoints == 2 * h * h * (2 * h * h + 1)  # a p (a h + 1)
    # prime powers q != 2 mod 4, up to the first of 20,000 endpoints or more (q = 25: 23,750)
    qs = [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25]
    slim = scaling[scaling["series"] == "slim_fly"]
    values = slim[["radix", "routers", "endpoints"]].values
    for q, (radix, routers, endpoints) in zip(qs, values, strict=True):
        k, p = slim_fly_degree(q), math.ceil(slim_fly_degree(q) / 2)
        assert (radix, routers, endpoints) == (k + p, 2 * q * q, 2 * q * q * p)
    assert slim.iloc[2][["radix", "endpoints"]].tolist() == [11, 200]  # q = 5: k' = 7, p = 4
    lite = scaling[scaling["series"] == "fishnet_lite"]
    for q, (radix, routers) in zip([3, 4, 5, 7], lite[["radix", "routers"]].values, strict=True):
        k, n = slim_fly_degree(q), 2 * q * q
        assert (radix, routers) == (k + 1 + math.ceil(k / 2), n * (n + 1))


def test_radix_needed_and_its_plot(scaling):
    needed = radix_needed(scaling, [1_000, 10_000, 20_000]).set_index(["series", "endpoints"])
    assert needed.loc[("fat_tree_3", 10_000), "radix_needed"] == 36  # 34^3/4 = 9,826 < 10^4
    assert needed.loc[("fat_tree_4", 1_000), "radix_needed"] == 10  # 10^4/8 = 1,250
    assert needed.loc[("dragonfly", 10_000), "radix_needed"] == 31  # h = 8: 16,512 endpoints
    assert np.isnan(needed.loc[("fat_tree_2", 10_000), "radix_needed"])  # beyond radix 64
    fig = plots.radix_vs_size(scaling)
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    for name, rows in scaling.groupby("series"):
        assert list(lines[name].get_xdata()) == rows["endpoints"].tolist()
        assert list(lines[name].get_ydata()) == rows["radix"].tolist()
    assert ax.get_xscale() == "log"


def test_dragonfly_reaches_100k_endpoints_with_51_ports():
    """Li et al. §2: the balanced dragonfly scales to 100k nodes with 51 ports per router."""
    table = radix_scaling(["dragonfly"], max_endpoints=100_000)
    needed = radix_needed(table, [100_000]).iloc[0]
    assert needed["radix_needed"] == 51 and needed["topology"].startswith("dragonfly a=26 h=13")
    assert table["endpoints"].iloc[-1] == 114_582


def test_radix_scaling_refuses_an_unknown_series():
    with pytest.raises(ConfigError) as error:
        radix_scaling(["dragonfly", "torus"])
    assert error.value.key == "radix.series" and "fat_tree_3" in error.value.expected


def test_performance_per_dollar_plots_the_ratios_at_the_balances():
    designs = iso.designs_frame(iso.bhatele2019())
    assert designs["design"].is_unique and len(designs) == 20
    fat_tree = designs.set_index("design").loc["N/fat_tree/1"]
    assert (fat_tree["nodes"], fat_tree["balance"], fat_tree["cost"]) == (12_000, 1.0, 43_920)
    rates = np.arange(len(designs)) * 10.0 + 500.0
    runs = pd.DataFrame({"design": designs["design"], "communication_rate_gbytes_per_s": rates})
    runs = pd.concat([runs, runs.assign(communication_rate_gbytes_per_s=rates + 20)])
    fig = plots.performance_per_dollar(runs, designs)
    (ax,) = fig.axes
    plotted = {
        (x, y)
        for line in ax.get_lines()
        if line.get_linestyle() == "None"
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
    }
    balances, costs = designs["balance"], designs["cost"]
    expected = {(b, (r + 10) / c) for b, r, c in zip(balances, rates, costs, strict=True)}
    assert len(plotted) == len(expected)
    for x, y in expected:  # repeated runs of a design are averaged: rate + 10
        assert any(math.isclose(x, px) and math.isclose(y, py) for px, py in plotted)
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours["fat_tree, iso-N"] == "gold" and colours["dragonfly, iso-NR"] == "tab:red"
    with pytest.raises(ConfigError) as error:
        plots.performance_per_dollar(runs, designs.drop(columns="balance"))
    assert error.value.key == "plots.designs"


def test_injection_heat_map_sums_endpoints_over_the_other_coordinates():
    config = RUN | {"topology": {"kind": "torus", "dims": [4, 3, 2], "concentration": 2}}
    endpoints = exanet.simulate(config, progress=False).endpoints
    for dims, (x, y) in (((0, 1), ("coord0", "coord1")), ((0, 2), ("coord0", "coord2"))):
        fig = plots.injected_packets_map(endpoints, dims=dims)
        image = fig.axes[0].images[0]
        array = np.asarray(image.get_array())
        expected = endpoints.groupby([y, x])["packets_injected"].sum().unstack().to_numpy()
        assert (array == expected).all() and array.sum() == endpoints["packets_injected"].sum()
        assert image.get_clim() == (0, array.max())
    assert array.shape == (2, 4)  # coord2 rows, coord0 columns
    with pytest.raises(ConfigError) as error:
        plots.injected_packets_map(endpoints, dims=(0, 3))
    assert error.value.key == "plots.dims"


def test_injection_bars_sum_endpoints_per_group():
    spec = {"kind": "dragonfly", "a": 4, "h": 2}
    endpoints = exanet.simulate(RUN | {"topology": spec}, progress=False).endpoints
    groups = exanet.topology(**spec).router_graph().groups
    assert len(groups) == 36 and len(set(groups)) == 9
    fig = plots.injected_packets_map(endpoints, groups=groups)
    heights = [bar.get_height() for bar in fig.axes[0].patches]
    by_group = endpoints.groupby(endpoints["router"].map(lambda r: groups[r]))
    assert heights == by_group["packets_injected"].sum().tolist()
    assert len(heights) == 9 and sum(heights) == endpoints["packets_injected"].sum()
    with pytest.raises(ConfigError) as error:
        plots.injected_packets_map(endpoints)
    assert error.value.key == "plots.groups"
    with pytest.raises(ConfigError, match="one per router"):
        plots.injected_packets_map(endpoints, groups=groups[:10])
