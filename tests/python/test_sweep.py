"""Sweeps: point keys, expansion, resume, failures, executors, saturation search and the CLI."""

import contextlib
import errno
import faulthandler
import functools
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

import exanet
from exanet import api
from exanet.config import Config
from exanet.errors import ConfigError, OutputError
from exanet.sweep import (
    DaskExecutor,
    LocalExecutor,
    SubmititExecutor,
    Sweep,
    config_key,
    load_table,
)
from exanet.sweep.spec import MAX_POINTS, parse_spec

BASE = {
    "topology": {"kind": "torus", "dims": [4, 4]},
    "traffic": {"load": 0.2},
    "run": {"warmup": "1us", "measure": "2us"},
}
SWEEP_TOML = """
seed = 3
[topology]
kind = "torus"
dims = [4, 4]
[traffic]
load = 0.2
[run]
warmup = "1us"
measure = "2us"

[[sweep.grid]]
key = "traffic.load"
values = [0.1, 0.3]

[[sweep.grid]]
key = "topology.dims"
values = [[4, 4], [1, 4]]   # a torus dimension of 1 router cannot exist
"""
# Wall-clock statistics differ between any two runs of the same point.
WALL_CLOCK_COLUMNS = ["wall_s", "events_per_s", "packet_hops_per_s"]


def toml_key(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config_key(Config.from_toml(path))


def test_key_ignores_order_and_explicit_defaults_but_not_values(tmp_path):
    plain = toml_key(tmp_path, '[topology]\nkind = "torus"\ndims = [4, 4]\n[traffic]\nload = 0.2\n')
    reordered = toml_key(
        tmp_path, '[traffic]\nload = 0.2\n[topology]\ndims = [4, 4]\nkind = "torus"\n'
    )
    explicit = toml_key(
        tmp_path,
        'seed = 1\n[topology]\nkind = "torus"\ndims = [4, 4]\n[traffic]\nload = 0.2\n'
        '[router]\nvcs = 2\nlatency = "50000ps"\n[routing]\nkind = "dor"\n',
    )
    changed = toml_key(
        tmp_path, '[topology]\nkind = "torus"\ndims = [4, 4]\n[traffic]\nload = 0.3\n'
    )
    assert plain == reordered == explicit
    assert changed != plain
    assert plain == config_key(Config.from_dict(BASE | {"run": {}}))


def test_points_are_the_product_of_grid_zip_points_and_repetitions():
    sweep = Sweep(
        BASE,
        grid={"traffic.load": [0.1, 0.2]},
        zip={"links.latency": ["10ns", "20ns"], "links.bandwidth": ["25GB/s", "50GB/s"]},
        points=[{"router": {"vcs": 2}}, {"router.vcs": 3}],
        repetitions=2,
    )
    points = sweep.points
    assert len(points) == 2 * 2 * 2 * 2
    assert len({point.key for point in points}) == 16
    pairs = {(p.config.links.latency, p.config.links.bandwidth) for p in points}
    assert pairs == {(10_000, 25 * 10**9), (20_000, 50 * 10**9)}  # lock-step, not a product
    assert {p.config.seed for p in points} == {1, 2}
    assert points[0].axes == {
        "traffic.load": 0.1,
        "links.latency": "10ns",
        "links.bandwidth": "25GB/s",
        "router.vcs": 2,
    }


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        ({"grid": [{"key": "traffic.load", "values": []}]}, "sweep.grid[0].values", "at least 1"),
        ({"grid": [{"key": "traffic..load", "values": [1]}]}, "sweep.grid[0].key", "dotted"),
        ({"zip": [{"keys": ["a", "b"], "values": [[1]]}]}, "sweep.zip[0].values", "2 values"),
        ({"repetitons": 2}, "sweep.repetitons", "repetitions"),
        (
            {"grid": [{"key": "seed", "values": [1, 2]}], "repetitions": 2},
            "sweep.repetitions",
            "seed",
        ),
        (
            {"grid": [{"key": "a", "values": [1]}], "zip": [{"keys": ["a"], "values": [[2]]}]},
            "sweep.zip[0].keys",
            "sweep.grid[0].key",
        ),
        ({"repetitions": 10**8}, "sweep.repetitions", f"at most {MAX_POINTS:,} points"),
        (
            {
                "grid": [{"key": "a", "values": list(range(1000))}],
                "zip": [{"keys": ["b"], "values": [[0]] * 101}],
            },
            "sweep",
            f"at most {MAX_POINTS:,} points",
        ),
    ],
)
def test_bad_spec_names_the_key(spec, key, words):
    with pytest.raises(ConfigError) as error:
        parse_spec(spec)
    assert error.value.key == key
    assert words in error.value.expected


COMPACT_GRID_TOML = SWEEP_TOML.split("[[sweep.grid]]")[0] + (
    '[sweep]\ngrid = {"traffic.load" = [0.1, 0.3], "topology.dims" = [[4, 4], [1, 4]]}\n'
)


def test_the_compact_grid_mapping_gives_the_points_of_grid_tables(tmp_path):
    (tmp_path / "tables.toml").write_text(SWEEP_TOML)
    (tmp_path / "compact.toml").write_text(COMPACT_GRID_TOML)
    tables = Sweep.from_toml(tmp_path / "tables.toml")
    compact = Sweep.from_toml(tmp_path / "compact.toml")
    python = Sweep(
        tables.base, grid={"traffic.load": (0.1, 0.3), "topology.dims": [[4, 4], [1, 4]]}
    )
    assert compact.spec == tables.spec == python.spec
    keys = [(p.key, p.axes) for p in tables.points]
    assert len(keys) == 4
    assert [(p.key, p.axes) for p in compact.points] == keys
    assert [(p.key, p.axes) for p in python.points] == keys


@pytest.mark.parametrize(
    ("grid", "key", "words"),
    [
        ({"traffic.load": []}, 'sweep.grid."traffic.load"', "at least 1"),
        ({"traffic.load": 0.1}, 'sweep.grid."traffic.load"', "list"),
        ({"traffic..load": [1]}, 'sweep.grid."traffic..load"', "dotted"),
        ({"seed": [1, 2], "a": [1]}, "sweep.repetitions", 'sweep.grid."seed"'),
    ],
)
def test_bad_compact_grid_names_the_key(grid, key, words):
    repetitions = 2 if "seed" in grid else 1
    with pytest.raises(ConfigError) as error:
        parse_spec({"grid": grid, "repetitions": repetitions})
    assert error.value.key == key
    assert words in error.value.expected
    with pytest.raises(ConfigError) as error:
        Sweep(BASE, zip={"a": [2]}, grid={"a": [1]})
    assert error.value.key == "sweep.zip[0].keys"
    assert 'sweep.grid."a" sets it' in error.value.expected


def test_too_many_points_are_refused_before_expanding():
    started_s = time.monotonic()
    with pytest.raises(ConfigError) as error:
        Sweep(BASE, grid={"traffic.load": [0.1, 0.2]}, repetitions=MAX_POINTS // 2 + 1)
    assert time.monotonic() - started_s < 1  # expanding would take minutes
    assert error.value.key == "sweep"
    assert error.value.value.startswith(f"{MAX_POINTS + 2:,} points")
    assert len(Sweep(BASE, grid={"traffic.load": [0.1, 0.2]}, repetitions=3).points) == 6


def test_failing_points_are_recorded_and_the_sweep_goes_on(tmp_path):
    sweep = Sweep(BASE, grid={"topology.dims": [[4, 4], [1, 4]], "router.vcs": [1, 2]})
    run = sweep.run(tmp_path, executor=LocalExecutor(2), progress=False)
    ok = run.points[run.points["status"] == "ok"]
    assert ok["router.vcs"].tolist() == [2]
    assert ok["accepted_load"].iloc[0] == pytest.approx(0.2, abs=0.05)
    assert len(run.failures) == 3
    schema_error = run.failures[run.failures["topology.dims"].map(lambda d: list(d) == [1, 4])]
    assert schema_error["error"].str.contains("topology.dims").all()
    # vcs = 1 passes the schema but the core refuses it: the worker records that failure.
    core_error = run.failures[run.failures["topology.dims"].map(lambda d: list(d) == [4, 4])]
    assert core_error["error"].str.contains("router.vcs").all()
    assert exanet.load(tmp_path)["status"].tolist() == run.points["status"].tolist()


class InterruptedExecutor(LocalExecutor):
    """Runs points in this process and is interrupted (as by Ctrl-C or a kill) after `after`."""

    def __init__(self, after):
        super().__init__(1)
        self.after = after

    def map_unordered(self, function, tasks):
        for task in tasks[: self.after]:
            yield task, function(task)
        raise KeyboardInterrupt


def test_resume_runs_only_the_missing_points(tmp_path):
    sweep = Sweep(BASE, grid={"traffic.load": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(KeyboardInterrupt):
        sweep.run(tmp_path, executor=InterruptedExecutor(after=3), progress=False)
    stored = [d.name for d in (tmp_path / "points").iterdir() if not d.name.startswith(".")]
    assert len(stored) == 3
    resumed = sweep.run(tmp_path, executor=LocalExecutor(2), progress=False)
    assert (resumed.ran, resumed.skipped) == (1, 3)
    assert (resumed.points["status"] == "ok").all()
    again = sweep.run(tmp_path, executor=LocalExecutor(2), progress=False)
    assert (again.ran, again.skipped) == (0, 4)
    pd.testing.assert_frame_equal(again.points, resumed.points)
    grown = Sweep(BASE, grid={"traffic.load": [0.1, 0.2, 0.3, 0.4, 0.5]})
    assert grown.run(tmp_path, executor=LocalExecutor(2), progress=False).ran == 1


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("point.json", b'{"key": "x", "sta'),
        ("point.json", b"\xff\xfe"),
        ("point.json", b"[1]"),
        ("summary.json", b"{"),
    ],
)
def test_a_damaged_stored_point_is_run_again_on_resume(tmp_path, name, damage):
    # A point.json cut short (written by hand, or by a tool without atomic writes) raised
    # JSONDecodeError out of Sweep.run.
    sweep = Sweep(BASE, grid={"traffic.load": [0.1, 0.2]})
    first = sweep.run(tmp_path, executor=LocalExecutor(1), progress=False)
    damaged = next(d for d in (tmp_path / "points").iterdir() if not d.name.startswith("."))
    (damaged / name).write_bytes(damage)
    resumed = sweep.run(tmp_path, executor=LocalExecutor(1), progress=False)
    assert (resumed.ran, resumed.skipped) == (1, 1)
    columns = [c for c in first.points.columns if c not in WALL_CLOCK_COLUMNS]
    pd.testing.assert_frame_equal(resumed.points[columns], first.points[columns])


def test_resume_after_killing_a_sweep_process(tmp_path):
    slow = SWEEP_TOML.replace("[[4, 4], [1, 4]]", "[[8, 8]]").replace('"2us"', '"40us"')
    slow = slow.replace(
        "values = [0.1, 0.3]", "values = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45]"
    )
    (tmp_path / "slow.toml").write_text(slow)
    command = [sys.executable, "-m", "exanet", "sweep", "slow.toml", "-j", "1", "-o", "out", "-q"]
    process = subprocess.Popen(command, cwd=tmp_path, start_new_session=True)
    points_dir = tmp_path / "out" / "points"

    def stored():
        if not points_dir.exists():
            return 0
        return sum(not entry.name.startswith(".") for entry in points_dir.iterdir())

    deadline_s = time.monotonic() + 60
    while stored() < 2 and process.poll() is None and time.monotonic() < deadline_s:
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)  # the sweep and its pool workers, at once
    process.wait()
    killed_at = stored()
    assert 2 <= killed_at < 8, "the sweep finished before it could be killed"
    resumed = Sweep.from_toml(tmp_path / "slow.toml").run(
        tmp_path / "out", executor=LocalExecutor(2), progress=False
    )
    assert (resumed.ran, resumed.skipped) == (8 - killed_at, killed_at)
    assert (resumed.points["status"] == "ok").all()


def crash_at_load(load, crash, function, task):
    """Run `function(task)`, except that the point at traffic.load `load` ends its process."""
    if task.config.traffic.load == load:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file from os.abort
        faulthandler.disable()  # pytest's would print this process's stack
        crash()
    return function(task)


class CrashingPointExecutor(LocalExecutor):
    """A local pool whose worker running the point at traffic.load `load` dies by `crash`."""

    def __init__(self, load, crash):
        super().__init__(2)
        self.crash = functools.partial(crash_at_load, load, crash)

    def map_unordered(self, function, tasks):
        return super().map_unordered(functools.partial(self.crash, function), tasks)


@pytest.mark.parametrize(
    ("crash", "error"),
    [
        (os.abort, "worker process died (signal 6, SIGABRT)"),
        (functools.partial(os._exit, 3), "worker process died (exit status 3)"),
    ],
)
def test_a_point_that_kills_its_worker_fails_alone_and_runs_again_on_resume(tmp_path, crash, error):
    sweep = Sweep(BASE, grid={"traffic.load": [0.1, 0.2, 0.3, 0.4, 0.5]})
    run = sweep.run(tmp_path, executor=CrashingPointExecutor(0.3, crash), progress=False)
    assert run.failures["traffic.load"].tolist() == [0.3]
    assert run.failures["error"].tolist() == [error]
    ok = run.points[run.points["status"] == "ok"]
    assert ok["traffic.load"].tolist() == [0.1, 0.2, 0.4, 0.5]
    assert (ok["accepted_load"] > 0).all()
    resumed = sweep.run(tmp_path, executor=LocalExecutor(2), progress=False)
    assert (resumed.ran, resumed.skipped) == (1, 4)
    assert (resumed.points["status"] == "ok").all()


def process_state(pid):
    """The state letter of process `pid` (R, S, Z, ...), or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def alive(pid):
    return process_state(pid) not in (None, "Z", "X")  # a zombie has ended


def children(pid):
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit():
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def wait_until(condition, timeout_s):
    deadline_s = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline_s:
        time.sleep(0.02)
    return condition()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes in /proc")
def test_killing_a_sweep_ends_its_workers(tmp_path):
    # Points of about 30 s each: the workers are busy simulating when the sweep is killed.
    slow = SWEEP_TOML.replace("[[4, 4], [1, 4]]", "[[16, 16]]").replace('"2us"', '"400us"')
    (tmp_path / "slow.toml").write_text(slow)
    command = [sys.executable, "-m", "exanet", "sweep", "slow.toml", "-j", "2", "-o", "out", "-q"]
    process = subprocess.Popen(command, cwd=tmp_path, start_new_session=True)
    try:
        assert wait_until(lambda: len(children(process.pid)) >= 2, 60)
        workers = children(process.pid)
        os.kill(process.pid, signal.SIGKILL)  # the sweep only, not its process group
        process.wait()
        assert wait_until(lambda: not any(alive(pid) for pid in workers), 5)
    finally:  # whatever is left, so that a failure leaks no process
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes in /proc")
@pytest.mark.parametrize("mechanism", ["set_parent_death_signal", "watch_parent"])
def test_a_worker_ends_when_its_parent_is_killed(mechanism):
    """Each of the two ways a worker notices its parent's death works alone: the kernel's
    parent-death signal (Linux) and the thread that watches the parent (everywhere)."""
    script = textwrap.dedent(
        f"""
        import os, time
        from exanet.sweep import executors

        parent = os.getpid()
        if os.fork() == 0:
            try:
                executors.{mechanism}({"parent" if mechanism == "watch_parent" else ""})
            except BaseException as error:
                print(repr(error), flush=True)
                os._exit(1)
            print(os.getpid(), flush=True)  # watching its parent from now on
            time.sleep(60)
            os._exit(0)
        time.sleep(60)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        line = process.stdout.readline()
        assert line.strip().isdigit(), line
        child = int(line)
        assert alive(child)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert wait_until(lambda: not alive(child), 5)
    finally:
        process.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


class InProcessExecutor(LocalExecutor):
    """Runs points one after the other in this process (where monkeypatches apply)."""

    def __init__(self):
        super().__init__(1)

    def map_unordered(self, function, tasks):
        for task in tasks:
            try:
                outcome = function(task)
            except Exception as exc:
                outcome = exc
            yield task, outcome


def test_a_full_disk_stops_the_sweep_and_leaves_no_partial_point(tmp_path, monkeypatch):
    def disk_full(frame, file, **options):
        file.write(b"PAR1")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    sweep = Sweep(BASE, grid={"traffic.load": [0.1, 0.2]})
    with pytest.raises(OutputError) as error:
        sweep.run(tmp_path, executor=InProcessExecutor(), progress=False)
    assert error.value.reason == "disk full"
    key = sweep.points[0].key
    assert error.value.path == str(tmp_path / "points" / key / "endpoints.parquet")
    assert list((tmp_path / "points").iterdir()) == []  # neither a point nor its staging
    assert not (tmp_path / "points.parquet").exists()
    monkeypatch.undo()
    resumed = sweep.run(tmp_path, executor=InProcessExecutor(), progress=False)
    assert (resumed.ran, resumed.skipped) == (2, 0)
    assert (resumed.points["status"] == "ok").all()


def test_output_that_is_a_file_is_refused_before_running(tmp_path):
    (tmp_path / "taken").write_text("not a directory")
    sweep = Sweep(BASE, grid={"traffic.load": [0.1]})
    with pytest.raises(ConfigError) as error:
        sweep.run(tmp_path / "taken" / "sweep", executor=InProcessExecutor(), progress=False)
    assert error.value.key == "out"
    assert "taken is a file, not a directory" in error.value.expected


def test_local_submitit_and_dask_executors_give_identical_rows(tmp_path):
    sweep = Sweep(BASE, grid={"traffic.load": [0.1, 0.3]})
    executors = {
        "local": LocalExecutor(2),
        "submitit": SubmititExecutor(tmp_path / "submitit-jobs", 2, cluster="local"),
        "dask": DaskExecutor(2, processes=False),
    }
    frames = {
        name: sweep.run(tmp_path / name, executor=executor, progress=False).points.drop(
            columns=WALL_CLOCK_COLUMNS
        )
        for name, executor in executors.items()
    }
    assert (frames["local"]["status"] == "ok").all()
    pd.testing.assert_frame_equal(frames["local"], frames["submitit"])
    pd.testing.assert_frame_equal(frames["local"], frames["dask"])


def test_per_point_tables_are_stored_and_loaded_with_their_key(tmp_path):
    run = Sweep(BASE, grid={"traffic.load": [0.1, 0.3]}).run(
        tmp_path, executor=LocalExecutor(2), progress=False
    )
    endpoints = load_table(tmp_path, "endpoints")
    assert len(endpoints) == 2 * 16
    assert set(endpoints["key"]) == set(run.points["key"])
    assert endpoints.columns[0] == "key"


def fake_simulate(curve):
    """A simulate whose network accepts and delays according to `curve(offered)`."""

    def simulate(config, progress=None):
        offered = config.traffic.load
        accepted, latency_ns = curve(offered)
        summary = {
            "offered_load": offered,
            "accepted_load": accepted,
            "latency_ns_mean": latency_ns,
        }
        return SimpleNamespace(summary=summary)

    return simulate


def test_saturation_brackets_where_accepted_falls_below_offered(monkeypatch):
    monkeypatch.setattr(api, "simulate", fake_simulate(lambda x: (min(x, 0.6), 100.0)))
    found = exanet.saturation(BASE, tolerance=0.01, accepted_margin=0.05)
    # Saturated once accepted < 0.95 x offered: from offered = 0.6 / 0.95 on.
    assert found.load <= 0.6 / 0.95 < found.upper
    assert found.upper - found.load <= 0.01
    assert found.probes["saturated"].iloc[1] == "throughput"  # the probe at high = 1


def test_saturation_stops_on_latency_growth(monkeypatch):
    monkeypatch.setattr(
        api, "simulate", fake_simulate(lambda x: (x, 100.0 if x < 0.7 else 1_000.0))
    )
    found = exanet.saturation(BASE, tolerance=0.01, latency_factor=5.0)
    assert found.load < 0.7 <= found.upper
    assert found.zero_load_latency_ns == 100.0
    assert set(found.probes["saturated"]) == {"", "latency"}


def test_saturation_not_reached_below_high(monkeypatch):
    monkeypatch.setattr(api, "simulate", fake_simulate(lambda x: (x, 100.0)))
    found = exanet.saturation(BASE)
    assert (found.load, found.upper, len(found.probes)) == (1.0, None, 2)


def test_saturation_of_a_real_torus():
    found = exanet.saturation(BASE, tolerance=0.02)
    below = api.simulate(exanet.config.load(BASE, [f"traffic.load={found.load}"])).summary
    above = api.simulate(exanet.config.load(BASE, [f"traffic.load={found.upper}"])).summary
    assert below["accepted_load"] >= 0.95 * below["offered_load"]
    assert above["accepted_load"] < 0.95 * above["offered_load"]
    assert found.upper - found.load <= 0.02
    assert 0.5 < found.load < 1.0


def exanet_cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "exanet", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,  # a hang fails the test rather than the suite
    )


def test_cli_sweep_writes_the_dataset_and_lists_failures(tmp_path):
    (tmp_path / "sweep.toml").write_text(SWEEP_TOML)
    done = exanet_cli("sweep", "sweep.toml", "-j", "2", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    points = exanet.load(tmp_path / "out")
    assert len(points) == 4
    assert points.loc[points["status"] == "ok", "traffic.load"].tolist() == [0.1, 0.3]
    assert (points["seed"].dropna() == 3).all()
    assert "2 failed" in done.stdout
    assert "topology.dims" in done.stdout
    rerun = exanet_cli("sweep", "sweep.toml", "--out", "out", "-q", cwd=tmp_path)
    assert "0 run, 4 already stored" in rerun.stdout


def test_cli_bad_sweep_spec_exits_2_naming_the_key(tmp_path):
    bad = SWEEP_TOML.replace('key = "traffic.load"', 'kee = "traffic.load"')
    (tmp_path / "bad.toml").write_text(bad)
    done = exanet_cli("sweep", "bad.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "sweep.grid[0].key" in done.stderr
    assert "Traceback" not in done.stderr
    (tmp_path / "plain.toml").write_text(SWEEP_TOML.split("[[sweep.grid]]")[0])
    done = exanet_cli("sweep", "plain.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "[sweep]" in done.stderr
    (tmp_path / "huge.toml").write_text(SWEEP_TOML + "[sweep]\nrepetitions = 100000000\n")
    done = exanet_cli("sweep", "huge.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "'sweep.repetitions' = 100000000" in done.stderr
    assert f"at most {MAX_POINTS:,} points" in done.stderr
    (tmp_path / "taken").write_text("not a directory")
    (tmp_path / "sweep.toml").write_text(SWEEP_TOML)
    done = exanet_cli("sweep", "sweep.toml", "--out", "taken", cwd=tmp_path)
    assert done.returncode == 2
    assert "'--out' = \"taken\"" in done.stderr
    assert "Traceback" not in done.stderr


def test_saturation_reports_each_probe_and_the_most_it_can_take(monkeypatch):
    monkeypatch.setattr(api, "simulate", fake_simulate(lambda x: (min(x, 0.6), 100.0)))
    seen = []
    found = exanet.saturation(
        BASE, tolerance=0.1, on_probe=lambda row, at_most: seen.append((row["load"], at_most))
    )
    # 0.05 and 1.0, then halving the 0.95 bracket to 0.1 or less: 4 more.
    assert [at_most for _, at_most in seen] == [6] * 6
    assert [load for load, _ in seen] == found.probes["load"].tolist()


def test_saturation_refuses_a_tolerance_that_never_ends():
    with pytest.raises(ConfigError, match="tolerance"):
        exanet.saturation(BASE, tolerance=0.0)
