"""docs/matrix.schema.json is generated from the matrix model and kept fresh; the JSON
output carries the documented names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assay.compare import MatrixReport, VariantInput, build_matrix, matrix_schema
from assay.grading import StructuredGrader, grade
from assay.outcomes import Answer, Record, Results
from assay.render.matrix import render_matrix
from assay.report import build_report

from .helpers import case

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "docs" / "matrix.schema.json"


def test_schema_file_is_fresh() -> None:
    expected = json.dumps(matrix_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected, (
        "docs/matrix.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py"
    )


def _variant(name: str, facts: dict[str, str]) -> VariantInput:
    from assay.cases import Dataset

    cases = [case(i) for i in ("A", "B", "C")]
    dataset = Dataset(name="d", cases=tuple(cases))
    found = Results(tuple(Record(case_id=i, outcome=Answer(fact=f)) for i, f in facts.items()))
    report = build_report(dataset, grade(dataset.cases, found, StructuredGrader()))
    return VariantInput(name, f"run-{name}", "completed", {"target.model": name}, report)


def test_json_output_has_the_contract_names() -> None:
    right = {c: case(c).expected_fact or "" for c in ("A", "B", "C")}
    wrong = {**right, "A": "nope"}
    m = build_matrix("mx-1", [_variant("x", wrong), _variant("y", right), _variant("z", right)])
    data = json.loads(render_matrix(m, "json"))
    assert MatrixReport.model_validate(data) == m  # the JSON is the model, losslessly
    assert data["matrix_id"] == "mx-1"
    assert [v["name"] for v in data["variants"]] == ["x", "y", "z"]
    assert data["variants"][0]["run_id"] == "run-x"
    assert data["variants"][0]["overrides"] == {"target.model": "x"}
    for rate in ("task_success", "answer_coverage", "answered_accuracy"):
        assert {"numerator", "denominator", "denominator_name", "ci"} <= set(
            data["variants"][0][rate]
        )
    xy = data["pairs"][0]
    assert (xy["a"], xy["b"], xy["newly_fixed"], xy["newly_broken"]) == ("x", "y", 1, 0)
    assert set(xy["mcnemar"]) >= {"p_value", "p_holm"}
    assert set(xy["delta"]) >= {"value", "ci"}
    assert [g["disagree"] for g in data["grid"]] == [True, False, False]


def test_best_not_worse_than_a_baseline() -> None:
    from assay.compare import best_not_worse
    from assay.errors import AssayInputError

    right = {c: case(c).expected_fact or "" for c in ("A", "B", "C")}
    m = build_matrix(
        "mx-1",
        [
            _variant("base", {**right, "A": "nope"}),
            _variant("worse", {**right, "A": "nope", "B": "nope"}),
            _variant("better", right),
        ],
    )
    check = best_not_worse(m, "base")
    assert check.passed and check.best == "better" and check.pair is not None
    assert (check.pair.a, check.pair.b) == ("base", "better")
    assert not best_not_worse(m, "better").passed  # the best of the others is base: 2/3 < 3/3
    with pytest.raises(AssayInputError, match='did you mean "base"'):
        best_not_worse(m, "bsae")


def test_markdown_makes_variant_names_inert() -> None:
    right = {c: case(c).expected_fact or "" for c in ("A", "B", "C")}
    hostile = "<img src=x onerror=alert(1)>[x](javascript:alert(1))"
    m = build_matrix("mx-1", [_variant(hostile, {**right, "A": "nope"}), _variant("y", right)])
    markdown = re.sub(r"`[^`]*`", "", render_matrix(m, "markdown"))  # code spans are inert
    assert re.search(r"(?<!\\)<img", markdown) is None
    assert "\\<img src=x onerror=alert(1)\\>" in markdown
    assert re.search(r"(?<!\\)\]\(javascript:", markdown) is None
