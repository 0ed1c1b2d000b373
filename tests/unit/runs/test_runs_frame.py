"""``assay.runs_frame``: one row per stored run, with the figures its JSON report gives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay
from assay._frames import PANDAS_DTYPES, POLARS_DTYPES
from assay.render import render
from assay.runs._runs_frame import RUN_COLUMNS
from assay.store import RunStore, open_store

DEMO = Path(__file__).parents[3] / "examples" / "demo"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.db'}")
    first = assay.run_suite(DEMO / "v1.yaml", opened)
    assay.run_suite(DEMO / "v2.yaml", opened)
    opened.tag_run(first.run_id, "baseline")
    yield opened
    opened.close()


def _rows(frame: Any) -> list[dict[str, Any]]:
    if hasattr(frame, "to_dicts"):
        return list(frame.to_dicts())
    import pandas as pd

    return [
        {k: None if pd.isna(v) else v for k, v in row.items()}
        for row in frame.astype(object).to_dict("records")
    ]


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_one_row_per_run_with_its_report_s_figures(store: RunStore, backend: str) -> None:
    pytest.importorskip(backend)
    frame = assay.runs_frame(store, backend=backend)
    assert list(frame.columns) == [c.name for c in RUN_COLUMNS]
    table = PANDAS_DTYPES if backend == "pandas" else POLARS_DTYPES
    dtypes = frame.schema if backend == "polars" else frame.dtypes
    assert {n: str(t) for n, t in dtypes.items()} == {c.name: table[c.kind] for c in RUN_COLUMNS}
    rows = _rows(frame)
    infos = store.list_runs()
    assert [r["run_id"] for r in rows] == [i.id for i in infos] and len(rows) == 2
    for row, info in zip(rows, infos, strict=True):
        data = json.loads(render(assay.report_for_run(store, info.id), "json"))
        rate = data["task_success"]
        assert row["task_success"] == rate["value"]
        assert row["task_success_fraction"] == f"{rate['numerator']}/{rate['denominator']}"
        assert [row["ci_low"], row["ci_high"]] == rate["ci"]
        assert row["dataset_version"] == data["dataset"]["version"]
        assert row["config_hash"] == info.target_hash != ""
        assert row["suite"] == info.suite_name and row["status"] == "completed"
    assert [r["tags"] for r in rows] == ["", "baseline"]  # newest first


def test_a_suite_s_runs_alone(store: RunStore) -> None:
    pytest.importorskip("polars")
    names = {i.suite_name for i in store.list_runs()}
    for name in names:
        frame = assay.runs_frame(store, suite=name, backend="polars")
        assert set(frame["suite"].to_list()) == {name}
    assert assay.runs_frame(store, suite="no-such-suite", backend="polars").height == 0
