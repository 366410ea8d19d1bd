"""Partitions for the parallel engine: balance, the links they cut and the lookahead those
links allow, through the API and `exanet validate --threads`."""

import pytest
from typer.testing import CliRunner

import exanet
from exanet import cli

TORUS = {"kind": "torus", "dims": [16, 16]}


def test_torus_slabs_cut_one_dimension_and_its_latency_is_the_lookahead():
    config = {
        "topology": TORUS,
        "links": {"dim0": {"latency": "10ns"}, "dim1": {"latency": "50ns"}},
        "traffic": {"load": 0.1},
    }
    split = exanet.partition(config, 4)
    assert split["method"] == "slabs"
    assert split["endpoints_per_part"] == [64, 64, 64, 64]
    # Four slabs of a 16-ring, across the last of the equally long dimensions: four boundaries,
    # each cutting 16 dim1 links; no dim0 link is cut, so the window is dim1's 50 ns, not dim0's
    # 10 ns.
    assert split["cut_links"] == 4 * 16
    assert split["lookahead_ps"] == 50_000
    assert exanet.partition(config, 1)["lookahead_ps"] is None


def test_torus_blocks_cut_both_dimensions_past_the_longest_ring():
    config = {
        "topology": {"kind": "torus", "dims": [4, 4]},
        "links": {"dim0": {"latency": "50ns"}, "dim1": {"latency": "10ns"}},
        "traffic": {"load": 0.1},
    }
    split = exanet.partition(config, 8)
    assert split["method"] == "blocks"
    assert split["endpoints_per_part"] == [2] * 8
    # 4 x 2 blocks: four boundaries across dim0 and two across dim1, each cutting 4 links; a
    # dim1 link is cut now, so the window is its 10 ns.
    assert split["cut_links"] == 4 * 4 + 2 * 4
    assert split["lookahead_ps"] == 10_000


def test_too_many_parts_name_the_threads_key():
    with pytest.raises(exanet.ConfigError) as error:
        exanet.partition(
            {"topology": {"kind": "torus", "dims": [4, 4]}, "traffic": {"load": 0.1}}, 17
        )
    assert error.value.key == "threads"
    assert "16" in str(error.value)


def test_validate_shows_the_partition(tmp_path):
    path = tmp_path / "df.toml"
    path.write_text(
        '[topology]\nkind = "dragonfly"\np = 2\na = 4\nh = 2\ng = 9\n'
        '[links.global]\nlatency = "100ns"\n[traffic]\nload = 0.3\n'
    )
    result = CliRunner().invoke(cli.app, ["validate", str(path), "--threads", "3"])
    assert result.exit_code == 0, result.output
    assert "groups" in result.output
    assert "24 / 24" in result.output
    # Whole groups per part: only global links are cut, so the window is their 100 ns.
    assert "100ns" in result.output


@pytest.mark.parametrize(
    ("call", "key"),
    [
        (lambda c: exanet.partition(c, 10**30), "parts"),
        (lambda c: exanet.partition(c, 0), "parts"),
        (lambda c: exanet.check_routing(c, sources=10**30), "sources"),
        (lambda c: exanet.check_routing(c, max_draws=-1), "max_draws"),
        (lambda c: exanet.check_routing(c, max_draws=True), "max_draws"),
        (lambda c: exanet.job_program(c, 2**70), "job"),
    ],
)
def test_counts_beyond_what_the_core_takes_are_refused_by_name(call, key):
    # These were OverflowErrors from the extension's argument conversion.
    config = {"topology": {"kind": "torus", "dims": [4, 4]}, "traffic": {"load": 0.1}}
    with pytest.raises(exanet.ConfigError) as error:
        call(config)
    assert error.value.key == key
    assert "4294967295" in error.value.expected
