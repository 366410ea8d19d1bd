"""`exanet topo`: describe, draw and iso on the command line."""

import json

import pytest
from typer.testing import CliRunner

from exanet import cli
from exanet.cli_topo import parse_spec
from exanet.errors import ConfigError

runner = CliRunner()


def invoke(*args):
    return runner.invoke(cli.app, ["topo", *args])


def test_topo_is_mounted():
    result = runner.invoke(cli.app, ["--help"])
    assert result.exit_code == 0
    assert "topo" in result.output
    result = invoke("--help")
    for command in ("describe", "draw", "iso"):
        assert command in result.output


def test_parse_spec_values():
    path, params = parse_spec(["kind=express_mesh", "dims=12,10,10", "gap=2", "base.q=5"])
    assert path is None
    assert params == {"kind": "express_mesh", "dims": [12, 10, 10], "gap": 2, "base": {"q": 5}}
    path, params = parse_spec(["net.toml", "topology.dims=[4,4]", "taper=3:1"])
    assert str(path) == "net.toml"
    assert params == {"dims": [4, 4], "taper": "3:1"}


def test_parse_spec_rejects_a_bare_word_after_the_first():
    with pytest.raises(ConfigError) as caught:
        parse_spec(["kind=torus", "dims"])
    assert caught.value.key == "SPEC"


def test_describe_table_groups():
    result = invoke("describe", "kind=dragonfly", "a=4", "h=2", "p=2")
    assert result.exit_code == 0, result.output
    for group in ("Size", "Links", "Distance", "Bisection", "Cost"):
        assert group in result.output
    assert "local links" in result.output and "global links" in result.output
    assert "GB/s (per direction)" in result.output


def test_describe_json_torus():
    result = invoke("describe", "kind=torus", "dims=4,4", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["diameter"] == 4
    assert data["bisection_links"] == 8
    assert data["topology"] == {"kind": "torus", "dims": [4, 4], "concentration": 1}


def test_describe_kind_as_first_word_and_json_dragonfly():
    result = invoke("describe", "dragonfly", "p=2", "a=4", "h=2", "g=9", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["routers"], data["endpoints"], data["diameter"]) == (36, 72, 3)
    assert data["links_by_class"] == {"local": 54, "global": 36}


def test_describe_a_toml_with_overrides(tmp_path):
    path = tmp_path / "net.toml"
    path.write_text(
        '[topology]\nkind = "torus"\ndims = [8, 8]\n[links]\nbandwidth = "50GB/s"\n'
        "[traffic]\nload = 0.2\n"
    )
    result = invoke("describe", str(path), "dims=4,4", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["routers"] == 16
    assert data["bisection_gbytes_per_s"] == pytest.approx(400.0)


def test_describe_options_reach_the_core():
    result = invoke(
        "describe", "kind=jellyfish", "routers=200", "degree=6", "p=3",
        "--exact-limit", "10", "--samples", "7", "--seed", "3", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["distance_exact"] is False
    assert data["distance_sources"] == 7
    assert data["diameter_method"] == "sampled"


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["kind=fat_tree", "radix=40", "taper=2:1"], "topology.taper"),
        (["kind=slim_fly", "q=6"], "topology.q"),
        (["kind=dragonfly", "a=4"], "topology.h"),
        (["kind=hypercube"], "topology.kind"),
        (["kind=torus", "dims"], "SPEC"),
        (["kind=custom", "edges=/nonexistent/graph.edges"], "topology.edges"),
    ],
)
def test_describe_bad_input_exits_2_with_one_line(args, key):
    result = invoke("describe", *args)
    assert result.exit_code == 2
    assert f"config key '{key}'" in result.stderr
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_describe_bad_edge_line(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("0 1\n1 2 3 4\n")
    result = invoke("describe", "kind=custom", f"edges={path}")
    assert result.exit_code == 2
    assert "topology.edges" in result.stderr and "line 2" in result.stderr


def test_draw_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "df.png"
    result = invoke("draw", "kind=dragonfly", "a=4", "h=2", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"\x89PNG")
    assert str(out) in result.output


def test_draw_refuses_large_networks(tmp_path):
    result = invoke("draw", "kind=torus", "dims=50,50", "-o", str(tmp_path / "x.png"))
    assert result.exit_code == 2
    assert "2,000 routers" in result.stderr


def test_iso_prints_candidates_per_family():
    pytest.importorskip("exanet.iso")
    result = invoke("iso", "--radix", "40", "--constraint", "N", "--nodes", "12000", "--top", "2")
    assert result.exit_code == 0, result.output
    for family in ("dragonfly", "dragonfly_rc", "express_mesh", "fat_tree"):
        assert family in result.output
    assert "12,000" in result.output


def test_iso_json():
    iso = pytest.importorskip("exanet.iso")
    result = invoke("iso", "--radix", "40", "--constraint", "N", "--nodes", "12000", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    expected = iso.iso_designs(40, "N", nodes=12000, top=3)
    assert len(data) == len(expected)
    assert [d["topology"] for d in data] == [d.topology for d in expected]
    assert all(d["nodes"] >= 12000 for d in data)


def test_iso_paper_lists_the_twenty_designs():
    iso = pytest.importorskip("exanet.iso")
    designs = iso.bhatele2019()
    result = invoke("iso", "--paper", "bhatele2019", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data) == len(designs) == 20
    assert all(d["published"] for d in data)
    table = invoke("iso", "--paper", "bhatele2019")
    assert table.exit_code == 0, table.output
    assert "published" in table.output


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["--radix", "40", "--constraint", "X", "--nodes", "100"], "--constraint"),
        (["--radix", "40", "--constraint", "NR", "--nodes", "12000"], "--constraint"),
        (["--constraint", "N", "--nodes", "100"], "--radix"),
        (["--paper", "kim2008"], "--paper"),
    ],
)
def test_iso_bad_input_exits_2(args, key):
    pytest.importorskip("exanet.iso")
    result = invoke("iso", *args)
    assert result.exit_code == 2
    assert f"config key '{key}'" in result.stderr
    assert "Traceback" not in result.output


def test_check_routing_proves_dor_on_a_torus_and_shows_the_one_vc_cycle(tmp_path):
    good = tmp_path / "torus.toml"
    good.write_text('[topology]\nkind = "torus"\ndims = [6, 6]\n[traffic]\nload = 0.1\n')
    result = runner.invoke(cli.app, ["check", "routing", str(good)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("acyclic")
    assert "every one of 36 source routers followed" in " ".join(result.output.split())
    bad = ["check", "routing", str(good), "--set", "router.vcs=1"]
    bad += ["--set", "routing.allow_unsafe=true"]
    result = runner.invoke(cli.app, bad)
    assert result.exit_code == 3, result.output
    assert "cycle of" in result.output and "x+" in result.output


def test_check_routing_says_when_it_samples_source_routers(tmp_path):
    torus = tmp_path / "torus.toml"
    torus.write_text('[topology]\nkind = "torus"\ndims = [6, 6]\n[traffic]\nload = 0.1\n')
    args = ["check", "routing", str(torus), "--sources", "4"]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    line = " ".join(result.output.split())
    assert "144 source-destination pairs" in line
    assert line.endswith("; sampled 4 of 36 source routers")
    checked = json.loads(runner.invoke(cli.app, [*args, "--json"]).output)
    assert checked["sources_followed"] == 4
    assert checked["sources_total"] == 36
    assert checked["exhaustive"] is False
    assert checked["pairs"] == 4 * 36
    assert checked["acyclic"] is True


def test_check_routing_progress_reaches_the_callback_and_an_exception_stops_the_check(tmp_path):
    from exanet import _core
    from exanet.config import load

    path = tmp_path / "dragonfly.toml"
    path.write_text(
        # Large enough that the check outlasts the first report (1 ms): 264 routers.
        '[topology]\nkind = "dragonfly"\np = 2\na = 8\nh = 4\ng = 33\n'
        '[routing]\nkind = "ugal_l"\n[router]\nvcs = 3\n[traffic]\nload = 0.1\n'
    )
    config_json = json.dumps(load(path).to_core())
    updates = []

    class Stop(Exception):
        pass

    def stop(update):
        updates.append(update)
        raise Stop

    with pytest.raises(Stop):
        _core.check_routing(config_json, None, 1024, stop, 0.001)
    assert len(updates) == 1
    assert set(updates[0]) == {"destinations_done", "destinations_total", "wall_s"}
    assert updates[0]["destinations_total"] == 264
    assert 0 <= updates[0]["destinations_done"] < 264
