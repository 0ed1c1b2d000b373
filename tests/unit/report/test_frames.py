"""A report's case-trials and rates as pandas and polars dataframes: the documented
columns and dtypes, and the same numbers as the JSON report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.unit.report.conftest import seed_report
from tests.unit.report.test_composite_report import GOLDEN, report_for

from assay._frames import PANDAS_DTYPES, POLARS_DTYPES
from assay.render import render
from assay.report._frames import (
    CASE_COLUMNS,
    CHECK_PREFIX,
    COMPOSITE_CASE_COLUMNS,
    RATE_COLUMNS,
)

DOCS = Path(__file__).parents[3] / "docs" / "notebooks.md"
BACKENDS = ("pandas", "polars")


def _rows(frame: Any) -> list[dict[str, Any]]:
    """The frame's rows as dicts, a missing value as None, for either backend."""
    if hasattr(frame, "to_dicts"):
        return list(frame.to_dicts())
    return [
        {k: (None if v is not None and _na(v) else v) for k, v in row.items()}
        for row in frame.astype(object).to_dict("records")
    ]


def _na(value: Any) -> bool:
    import pandas as pd

    return bool(pd.isna(value)) if not isinstance(value, list | tuple) else False


def _dtypes(frame: Any) -> dict[str, str]:
    if hasattr(frame, "schema"):
        return {name: str(dtype) for name, dtype in frame.schema.items()}
    return {name: str(dtype) for name, dtype in frame.dtypes.items()}


def _expected(columns: Any, backend: str) -> dict[str, str]:
    table = PANDAS_DTYPES if backend == "pandas" else POLARS_DTYPES
    return {c.name: table[c.kind] for c in columns}


@pytest.mark.parametrize("backend", BACKENDS)
def test_cases_frame_has_the_json_report_s_rows(backend: str) -> None:
    pytest.importorskip(backend)
    report = seed_report()
    frame = report.cases_frame(backend=backend)
    assert list(frame.columns) == [c.name for c in CASE_COLUMNS]
    assert _dtypes(frame) == _expected(CASE_COLUMNS, backend)
    cases = json.loads(render(report, "json"))["cases"]
    rows = _rows(frame)
    assert len(rows) == len(cases) == 6
    for row, case in zip(rows, cases, strict=True):
        assert row["id"] == case["id"] and row["trial"] == case["trial"]
        assert (row["slice"], row["status"], row["reason"]) == (
            case["slice"],
            case["status"],
            case["reason"],
        )
        assert row["outcome"] == case["outcome"] and row["fact"] == case.get("fact")
        assert row["answer"] == case.get("text")
        assert row["input_tokens"] == case.get("input_tokens")
    statuses = [r["status"] for r in rows]
    assert statuses.count("passed") == report.statuses.passed == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_rates_frame_has_the_json_report_s_rates(backend: str) -> None:
    pytest.importorskip(backend)
    report = seed_report()
    frame = report.rates_frame(backend=backend)
    assert list(frame.columns) == [c.name for c in RATE_COLUMNS]
    assert _dtypes(frame) == _expected(RATE_COLUMNS, backend)
    data = json.loads(render(report, "json"))
    expected = [
        (k, None, data[k]) for k in ("task_success", "answer_coverage", "answered_accuracy")
    ]
    expected += [("task_success", n, s["task_success"]) for n, s in data["slices"].items()]
    rows = _rows(frame)
    assert len(rows) == len(expected)
    for row, (name, slice_name, rate) in zip(rows, expected, strict=True):
        assert (row["rate"], row["slice"]) == (name, slice_name)
        assert (row["numerator"], row["denominator"]) == (rate["numerator"], rate["denominator"])
        assert row["value"] == rate["value"]
        assert [row["ci_low"], row["ci_high"]] == rate["ci"]
        assert (row["confidence"], row["method"]) == (rate["confidence"], rate["method"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_n_a_rate_is_null_never_zero(backend: str, abstain_only: Any) -> None:
    pytest.importorskip(backend)
    rows = _rows(abstain_only.rates_frame(backend=backend))
    accuracy = next(r for r in rows if r["rate"] == "answered_accuracy")
    assert accuracy["denominator"] == 0
    assert accuracy["value"] is None and accuracy["ci_low"] is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_composite_report_has_a_column_per_check(backend: str) -> None:
    pytest.importorskip(backend)
    composite = report_for(GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    frame = composite.cases_frame(backend=backend)
    names = list(composite.profile.weights)
    assert list(frame.columns) == [c.name for c in COMPOSITE_CASE_COLUMNS] + [
        f"{CHECK_PREFIX}{n}" for n in names
    ]
    for row, case in zip(_rows(frame), composite.cases, strict=True):
        assert row["score"] == case.score and row["verdict"] == case.verdict
        for name in names:
            found = case.checks.get(name)
            assert row[f"{CHECK_PREFIX}{name}"] == (found.passed if found else None)


def test_a_missing_backend_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'assay\[polars\]'"):
        seed_report().cases_frame(backend="polars")


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="choose pandas or polars"):
        seed_report().rates_frame(backend="arrow")  # type: ignore[arg-type]


def test_the_notebooks_page_documents_every_column() -> None:
    from assay.runs._runs_frame import RUN_COLUMNS

    text = DOCS.read_text(encoding="utf-8")
    for columns in (CASE_COLUMNS, RATE_COLUMNS, COMPOSITE_CASE_COLUMNS, RUN_COLUMNS):
        for c in columns:
            row = f"| `{c.name}` | {PANDAS_DTYPES[c.kind]} | {POLARS_DTYPES[c.kind]} |"
            assert row in text, f"docs/notebooks.md does not document {c.name}: {row}"
