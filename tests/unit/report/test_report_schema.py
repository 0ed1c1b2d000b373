"""docs/report.schema.json is generated from the ``Report`` model, is fresh, and real reports
conform to it (checked with a small validator for the keywords the schema uses)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay import build_report, load_dataset, load_results
from assay.grading import grade_all
from assay.metrics import JudgeFlip, JudgeNoise
from assay.report import report_schema

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_FILE = ROOT / "docs" / "report.schema.json"
POLICY = ROOT / "examples" / "policy"
TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def _errors(value: Any, schema: dict[str, Any], root: dict[str, Any], at: str) -> list[str]:
    """Where ``value`` breaks ``schema`` (draft 2020-12 keywords pydantic emits)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return _errors(value, root["$defs"][name], root, at)
    if "anyOf" in schema:
        options = [_errors(value, s, root, at) for s in schema["anyOf"]]
        return [] if any(not o for o in options) else [f"{at}: matches no anyOf branch"]
    found: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        expected = TYPES[kind]
        bad_bool = isinstance(value, bool) and kind in ("integer", "number")
        if not isinstance(value, expected) or bad_bool:
            return [f"{at}: expected {kind}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{at}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        found.append(f"{at}: {value!r} is not {schema['const']!r}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                found.append(f"{at}: missing {key}")
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                found += _errors(item, props[key], root, f"{at}.{key}")
            elif extra is False:
                found.append(f"{at}: unexpected {key}")
            elif isinstance(extra, dict):
                found += _errors(item, extra, root, f"{at}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1 << 30):
            found.append(f"{at}: wrong number of items")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if isinstance(sub, dict):
                found += _errors(item, sub, root, f"{at}[{i}]")
    return found


def test_published_schema_is_fresh() -> None:
    expected = json.dumps(report_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected, (
        "docs/report.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py "
        "and commit the result"
    )


def test_schema_names_the_contract_fields() -> None:
    schema = report_schema()
    contract = {
        "schema_version",
        "assay_version",
        "dataset",
        "total",
        "success",
        "answered",
        "correct_answers",
        "errors",
        "missing",
        "ungraded",
        "statuses",
        "task_success",
        "answer_coverage",
        "answered_accuracy",
        "slices",
    }
    assert contract <= set(schema["required"])
    rate = schema["$defs"]["Rate"]
    assert {"numerator", "denominator", "denominator_name", "value", "ci"} <= set(rate["required"])
    statuses = schema["$defs"]["StatusCounts"]["properties"]
    assert set(statuses) == {"passed", "failed", "error", "missing", "ungraded"}


@pytest.mark.parametrize("variant", ["policy", "policy-e7"])
def test_reports_conform_to_the_published_schema(variant: str) -> None:
    dataset = load_dataset(POLICY / f"{variant}.jsonl")
    report = build_report(dataset, grade_all(dataset, load_results(POLICY / "results.jsonl")))
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert _errors(json.loads(report.model_dump_json()), schema, schema, "$") == []


def test_the_validator_rejects_a_broken_report() -> None:
    dataset = load_dataset(POLICY / "policy.jsonl")
    report = build_report(dataset, grade_all(dataset, load_results(POLICY / "results.jsonl")))
    data = json.loads(report.model_dump_json())
    data["task_success"]["value"] = "33%"
    del data["statuses"]["missing"]
    data["surprise"] = 1
    schema = report_schema()
    problems = _errors(data, schema, schema, "$")
    assert any("task_success.value" in p for p in problems)
    assert any("missing missing" in p for p in problems)
    assert any("unexpected surprise" in p for p in problems)


def test_a_report_with_judge_noise_conforms_and_one_without_is_unchanged() -> None:
    dataset = load_dataset(POLICY / "policy.jsonl")
    report = build_report(dataset, grade_all(dataset, load_results(POLICY / "results.jsonl")))
    assert "judge_noise" not in json.loads(report.model_dump_json())
    noise = JudgeNoise(
        repeats=3,
        verdict="majority",
        judged=4,
        unstable=1,
        judge_share=0.25,
        ungraded_repeats=0,
        trials=1,
        cases=0,
        differing=0,
        system_share=None,
        flips=[JudgeFlip(id="E1", trial=1, passed=2, failed=1, repeats=3)],
    )
    data = json.loads(report.model_copy(update={"judge_noise": noise}).model_dump_json())
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert _errors(data, schema, schema, "$") == []
    data["judge_noise"]["judge_share"] = "25%"
    assert _errors(data, schema, schema, "$") != []
