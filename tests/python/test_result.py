import errno
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from samples import ENDPOINTS, LINKS, SUMMARY, SampleRun, core_table

import exanet
from exanet.config import Config
from exanet.errors import ConfigError, InternalError, OutputError
from exanet.result import Result, check_output_directory, table_to_dataframe

CONFIG = Config.from_dict({"topology": {"kind": "torus", "dims": [2, 2]}, "traffic": {"load": 0.5}})


def test_table_to_dataframe_keeps_dtypes_and_values():
    frame = table_to_dataframe(ENDPOINTS)
    assert list(frame.columns) == ["endpoint", "injected_packets", "accepted_gbps", "offset"]
    assert frame["injected_packets"].dtype == np.int64
    assert frame["injected_packets"].iloc[3] == 2**40
    assert frame["offset"].tolist() == [-1, 0, 1, 2]
    assert frame["accepted_gbps"].sum() == 12.0


def test_unsigned_counters_become_signed_so_differences_can_be_negative():
    frame = table_to_dataframe(ENDPOINTS)
    assert frame["endpoint"].dtype == np.int64
    difference = frame["endpoint"] - frame["injected_packets"]
    assert difference.tolist() == [-10, -10, -10, 3 - 2**40]


def test_a_counter_beyond_int64_is_refused_not_wrapped():
    table = core_table([("injected_packets", "<u8", [1, 2**63])])
    with pytest.raises(InternalError, match="injected_packets"):
        table_to_dataframe(table)


def test_written_tables_keep_signed_counters(tmp_path):
    outdir = Result(CONFIG, SampleRun()).write(tmp_path / "out")
    endpoints = pd.read_parquet(outdir / "endpoints.parquet")
    assert endpoints["injected_packets"].dtype == np.int64
    assert endpoints["endpoint"].dtype == np.int64


def test_category_columns_become_categorical():
    frame = table_to_dataframe(LINKS)
    assert isinstance(frame["class"].dtype, pd.CategoricalDtype)
    assert frame["class"].tolist() == ["dim1", "dim0", "dim1"]
    assert list(frame["class"].cat.categories) == ["dim0", "dim1"]


def test_tables_are_built_on_first_access_only():
    run = SampleRun()
    result = Result(CONFIG, run)
    assert result.summary == {**SUMMARY, "steady_state": True}
    assert run.tables_built == []
    assert len(result.endpoints) == 4
    assert len(result.links) == 3
    assert len(result.endpoints) == 4
    assert run.tables_built == ["endpoints", "links"]
    assert "2x2 torus" in repr(result)


def test_write(tmp_path):
    result = Result(CONFIG, SampleRun({**SUMMARY, "hops_mean": math.nan}))
    outdir = result.write(tmp_path / "out")
    summary = json.loads((outdir / "summary.json").read_text())
    assert summary["hops_mean"] is None
    assert summary["latency_ns_mean"] == SUMMARY["latency_ns_mean"]
    assert json.loads((outdir / "config.json").read_text()) == CONFIG.to_core()
    endpoints = pd.read_parquet(outdir / "endpoints.parquet")
    pd.testing.assert_frame_equal(endpoints, result.endpoints)
    links = pd.read_parquet(outdir / "links.parquet")
    assert links["class"].tolist() == ["dim1", "dim0", "dim1"]
    assert isinstance(links["class"].dtype, pd.CategoricalDtype)


def disk_full_after(data):
    """A DataFrame.to_parquet that writes `data`, then finds the disk full."""

    def to_parquet(frame, file, **options):
        file.write(data)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return to_parquet


def test_write_publishes_summary_last_and_leaves_no_temporaries(tmp_path, monkeypatch):
    published = []
    replace = Path.replace

    def recording_replace(self, target):
        published.append(Path(target).name)
        return replace(self, target)

    monkeypatch.setattr(Path, "replace", recording_replace)
    outdir = Result(CONFIG, SampleRun()).write(tmp_path / "out")
    assert published == ["config.json", "endpoints.parquet", "links.parquet", "summary.json"]
    assert sorted(path.name for path in outdir.iterdir()) == sorted(published)


def test_a_full_disk_leaves_nothing_and_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full_after(b"PAR1"))
    with pytest.raises(OutputError) as error:
        Result(CONFIG, SampleRun()).write(tmp_path / "out")
    assert error.value.path == str(tmp_path / "out" / "endpoints.parquet")
    assert error.value.reason == "disk full"
    assert "endpoints.parquet: disk full" in str(error.value)
    assert list((tmp_path / "out").iterdir()) == []  # config.json was staged, then removed


def test_a_failed_write_keeps_the_previous_result_whole(tmp_path, monkeypatch):
    outdir = Result(CONFIG, SampleRun()).write(tmp_path / "out")
    before = {path.name: path.read_bytes() for path in outdir.iterdir()}
    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full_after(b""))
    with pytest.raises(OutputError):
        Result(CONFIG, SampleRun({**SUMMARY, "latency_ns_mean": 1.0})).write(outdir)
    assert {path.name: path.read_bytes() for path in outdir.iterdir()} == before


def test_a_write_failing_while_publishing_leaves_no_summary(tmp_path, monkeypatch):
    outdir = Result(CONFIG, SampleRun()).write(tmp_path / "out")
    replace = Path.replace

    def failing_second_replace(self, target):
        if Path(target).name == "endpoints.parquet":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return replace(self, target)

    monkeypatch.setattr(Path, "replace", failing_second_replace)
    with pytest.raises(OutputError) as error:
        Result(CONFIG, SampleRun()).write(outdir)
    assert error.value.reason == os.strerror(errno.EIO)
    names = {path.name for path in outdir.iterdir()}
    assert "summary.json" not in names  # the old one is gone: the rest is not its result
    assert not any(name.startswith(".tmp-") for name in names)


def test_a_rewrite_removes_tables_the_new_result_lacks(tmp_path):
    outdir = Result(CONFIG, SampleRun()).write(tmp_path / "out")
    (outdir / "bursts.parquet").write_bytes(b"from an earlier result")
    Result(CONFIG, SampleRun()).write(outdir)
    assert not (outdir / "bursts.parquet").exists()


@pytest.mark.parametrize("path", ["taken", "taken/run"])
def test_output_under_a_file_is_refused(tmp_path, path):
    (tmp_path / "taken").write_text("a file")
    with pytest.raises(ConfigError) as error:
        check_output_directory(tmp_path / path, "--output")
    assert error.value.key == "--output"
    assert error.value.value == f'"{tmp_path / path}"'
    assert f"{tmp_path / 'taken'} is a file, not a directory" in error.value.expected


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.ENOSPC, "disk full"),
        (errno.EROFS, "read-only file system"),
        (errno.EACCES, "permission denied"),
    ],
)
def test_output_that_cannot_take_a_file_is_refused(tmp_path, monkeypatch, code, reason):
    def failing_write_bytes(self, data):  # tests run as root: say what the system would
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(Path, "write_bytes", failing_write_bytes)
    with pytest.raises(ConfigError) as error:
        check_output_directory(tmp_path / "out", "--output")
    assert error.value.key == "--output"
    assert reason in error.value.expected
    assert not (tmp_path / "out").exists()  # created to try, then removed


def test_output_check_leaves_no_trace(tmp_path):
    assert check_output_directory(tmp_path / "a" / "b", "--output") == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []  # it created a/b to try, then removed them
    (tmp_path / "kept").mkdir()
    check_output_directory(tmp_path / "kept", "--output")
    assert [path.name for path in tmp_path.rglob("*")] == ["kept"]


def test_a_core_panic_building_a_table_is_exanet_s_internal_error():
    # Tables are built by the core on first access, outside simulate's error conversion.
    import exanet
    from exanet import _core

    class PanickingRun(SampleRun):
        def table(self, name):
            _core._raise_panic(f"no {name}")

    result = Result(CONFIG, PanickingRun())
    with pytest.raises(exanet.InternalError, match="_raise_panic: no links"):
        _ = result.links


@pytest.mark.parametrize(
    ("run", "summary", "steady"),
    [
        ({}, {}, True),  # accepted 0.49 of 0.5 offered, drained
        ({}, {"accepted_load": 0.47}, False),  # below (1 - 0.05) x 0.5 = 0.475
        ({}, {"accepted_load": 0.476}, True),
        ({}, {"drained": False}, False),  # stopped at run.drain_limit
        ({"drain": "none"}, {"drained": False}, True),  # does not drain: nothing to miss
        ({"duration": "10us"}, {"drained": False}, True),
        ({"duration": "10us"}, {"drained": False, "accepted_load": 0.2}, False),
    ],
)
def test_steady_state_means_accepted_what_was_offered_and_drained(run, summary, steady):
    config = Config.from_dict({**CONFIG.model_dump(exclude_none=True), "run": run})
    result = Result(config, SampleRun({**SUMMARY, **summary}))
    assert result.summary["steady_state"] is steady


def test_only_synthetic_traffic_has_a_steady_state_verdict():
    config = Config.from_dict(
        {
            "topology": {"kind": "torus", "dims": [2, 2]},
            "router": {"vc_buffer": "8KiB"},
            "traffic": {"kind": "jobs", "jobs": [{"app": "allreduce", "ranks": 4}]},
        }
    )
    assert "steady_state" not in Result(config, SampleRun()).summary


def test_a_table_too_large_for_memory_is_refused_and_the_summary_stays(monkeypatch):
    result = exanet.simulate(
        {"topology": {"kind": "torus", "dims": [8, 8]}, "traffic": {"load": 0.1}}, progress=False
    )
    # 64 endpoint rows and 64 x 5 router ports + 64 injection links: 384 link rows of 256 B.
    monkeypatch.setenv("EXANET_MEMORY_LIMIT", str(64 * 256))
    assert len(result.endpoints) == 64
    with pytest.raises(ConfigError) as refused:
        result.links  # noqa: B018
    assert refused.value.key == "table"
    assert refused.value.value == "links: 384 rows"
    assert "this needs ~96 KiB" in str(refused.value)
    assert result.summary["endpoints"] == 64
