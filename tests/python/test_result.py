import json
import math

import numpy as np
import pandas as pd
from samples import ENDPOINTS, LINKS, SUMMARY, SampleRun

from exanet.config import Config
from exanet.result import Result, table_to_dataframe

CONFIG = Config.from_dict({"topology": {"kind": "torus", "dims": [2, 2]}, "traffic": {"load": 0.5}})


def test_table_to_dataframe_keeps_dtypes_and_values():
    frame = table_to_dataframe(ENDPOINTS)
    assert list(frame.columns) == ["endpoint", "injected_packets", "accepted_gbps", "offset"]
    assert frame["injected_packets"].dtype == np.uint64
    assert frame["injected_packets"].iloc[3] == 2**40
    assert frame["offset"].tolist() == [-1, 0, 1, 2]
    assert frame["accepted_gbps"].sum() == 12.0


def test_category_columns_become_categorical():
    frame = table_to_dataframe(LINKS)
    assert isinstance(frame["class"].dtype, pd.CategoricalDtype)
    assert frame["class"].tolist() == ["dim1", "dim0", "dim1"]
    assert list(frame["class"].cat.categories) == ["dim0", "dim1"]


def test_tables_are_built_on_first_access_only():
    run = SampleRun()
    result = Result(CONFIG, run)
    assert result.summary == SUMMARY
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
