"""One rule for the shape of the report and the other JSON documents: a block (a key whose
value is an object, a list of them or a map) that does not apply is omitted, never written
as null; the report's schema requires every other key. A report written before the rule,
with such blocks null, still loads and is written again without them."""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from tests.unit.report.test_report_schema import _errors as schema_errors

from assay._json_schema import does_not_apply
from assay.compare import Comparison, MatrixReport
from assay.render.json import render_json
from assay.report import CaseRow, CompositeReport, DatasetInfo, Report, report_schema
from assay.trend import Trend

ROOT = Path(__file__).resolve().parents[3]
OLD_REPORT = ROOT / "tests" / "data" / "reports" / "policy-null-blocks.json"
SCHEMA_FILE = ROOT / "docs" / "report.schema.json"


def _is_block(annotation: Any) -> bool:
    """An object, a list or a map, or None: a key that holds a block."""
    kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    return any(
        (isinstance(k, type) and issubclass(k, BaseModel)) or typing.get_origin(k) in (list, dict)
        for k in kinds
    )


def _blocks(model: type[BaseModel]) -> list[str]:
    return [name for name, f in model.model_fields.items() if _is_block(f.annotation)]


DOCUMENTS: tuple[type[BaseModel], ...] = (Report, Comparison, MatrixReport, Trend, CompositeReport)
"""The JSON documents assay writes whose objects may hold blocks (a calibration report
holds none)."""

NOT_KNOWN = {
    "UsageSummary.latency": "no case-trial reported its latency",
    "UsageSummary.prices": "no price is known for the model",
    "PriceInfo.price": "no price is known for the model",
    "UnknownBounds.answer_coverage": "bounds of a rate whose denominator holds no unknown",
    "UnknownBounds.answered_accuracy": "bounds of a rate whose denominator holds no unknown",
    "JudgeCorrection.corrected": "no correction is made (the block says why)",
    "JudgeCorrection.calibration": "no calibration was found (the block says why)",
    "Divergence.baseline": "that run made no call at the step",
    "Divergence.candidate": "that run made no call at the step",
    "DivergedCall.arguments": "the call's arguments were not a JSON object",
}
"""Blocks inside a block that applies, null when not known (each with its meaning): the
rule leaves them null."""


def _models(model: type[BaseModel], seen: set[type[BaseModel]]) -> Iterator[type[BaseModel]]:
    """``model`` and every model its fields hold, each once; not a recorded outcome's
    models (a trajectory is written as it was recorded)."""
    if model in seen or model.__module__.startswith("assay.outcomes"):
        return
    seen.add(model)
    yield model
    for field in model.model_fields.values():
        for kind in _kinds(field.annotation):
            yield from _models(kind, seen)


def _kinds(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _kinds(arg)


def test_every_block_of_each_document_is_omitted_when_it_does_not_apply() -> None:
    seen: set[type[BaseModel]] = set()
    checked = 0
    for model in (m for document in DOCUMENTS for m in _models(document, seen)):
        for name in _blocks(model):
            if f"{model.__name__}.{name}" in NOT_KNOWN:
                continue
            field = model.model_fields[name]
            assert field.exclude_if is does_not_apply, f"{model.__name__}.{name}"
            assert "omitted when" in (field.description or "").lower(), f"{model.__name__}.{name}"
            checked += 1
    assert checked >= 25


def test_the_schema_requires_every_key_but_the_blocks_that_may_be_omitted() -> None:
    schema = report_schema()
    for model, node in (
        (Report, schema),
        (CaseRow, schema["$defs"]["CaseRow"]),
        (DatasetInfo, schema["$defs"]["DatasetInfo"]),
    ):
        omitted = {n for n, f in model.model_fields.items() if f.exclude_if is not None}
        assert set(node["required"]) == set(model.model_fields) - omitted, model.__name__
    assert {"cache", "sequential", "budget", "agent", "judge_noise"} <= set(Report.model_fields)
    assert not {"cache", "sequential", "budget", "agent", "judge_noise"} & set(schema["required"])


def _without_null_blocks(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as the rule writes it: the null blocks of the report, its dataset and its
    rows left out."""
    out = {k: v for k, v in data.items() if not (v is None and k in _blocks(Report))}
    out["dataset"] = {
        k: v for k, v in data["dataset"].items() if not (v is None and k in _blocks(DatasetInfo))
    }
    out["cases"] = [
        {k: v for k, v in row.items() if not (v is None and k in _blocks(CaseRow))}
        for row in data["cases"]
    ]
    return out


def test_a_report_written_with_null_blocks_loads_and_is_written_without_them() -> None:
    old = json.loads(OLD_REPORT.read_text(encoding="utf-8"))
    assert old["cache"] is None and old["sequential"] is None and old["agent"] is None
    assert all(row["judge"] is None and row["trajectory"] is None for row in old["cases"])
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert _errors(old, schema) == []  # the old shape still conforms: null is allowed

    report = Report.model_validate(old)
    assert report.cache is None and report.agent is None and report.cases[0].judge is None
    again = json.loads(render_json(report))
    assert again == _without_null_blocks(old)
    assert "cache" not in again and "agent" not in again and "change" not in again["dataset"]
    assert all("judge" not in row and "agent" not in row for row in again["cases"])
    assert _errors(again, schema) == []


def _errors(data: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return schema_errors(data, schema, schema, "$")
