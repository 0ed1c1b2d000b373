"""The composite report on examples/golden17 and the policy free-text answers, via the library."""

from __future__ import annotations

import json
from pathlib import Path

from assay.cases import Dataset
from assay.grading.checks import (
    DEFAULT_PROFILE,
    CheckResult,
    CompositeScorer,
    check_composite_inputs,
    composite_all,
    scored_case,
)
from assay.load import load_composite_results, load_dataset
from assay.render.composite import render_composite
from assay.report import SYNTHETIC_BANNER, CompositeReport, build_composite_report

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "examples" / "golden17"
POLICY = ROOT / "examples" / "policy"
FAILING = {"golden_002", "golden_005", "golden_008", "golden_010", "golden_013"}


def report_for(dataset_path: Path, results_path: Path) -> CompositeReport:
    dataset: Dataset = load_dataset(dataset_path)
    inputs = load_composite_results(results_path, DEFAULT_PROFILE.checks)
    check_composite_inputs(inputs, set(dataset.ids))
    scorer = CompositeScorer(DEFAULT_PROFILE, sources=dataset.sources)
    scored = composite_all(dataset.cases, inputs, scorer)
    if inputs.records.records:
        return build_composite_report(
            dataset, scored, DEFAULT_PROFILE, input_kind="free-text answers"
        )
    return build_composite_report(dataset, scored, DEFAULT_PROFILE, input_kind="recorded checks")


def test_golden17_reproduces_the_lessons_result() -> None:
    report = report_for(GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    assert report.total == 17
    assert (report.composite_pass.numerator, report.composite_pass.denominator) == (12, 17)
    assert (report.strict_pass.numerator, report.strict_pass.denominator) == (12, 17)
    assert report.composite_pass.denominator_name == "real cases"
    assert report.composite_pass.ci is not None
    failing = {r.id for r in report.cases if r.verdict == "fail"}
    assert failing == FAILING
    for row in report.cases:
        if row.id in FAILING:
            assert set(row.critical_failures) & {"content_present", "content_absent"}
    by_id = {r.id: r for r in report.cases}
    assert "content_present" in by_id["golden_008"].critical_failures
    assert report.diverging == []
    assert report.agreement == (
        "composite scoring changes nothing on these 17 real cases: "
        "every failure hits a critical check"
    )
    assert report.synthetic is None


def test_the_synthetic_case_diverges_and_stays_out_of_real_figures() -> None:
    real = report_for(GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    both = report_for(GOLDEN / "golden17.synthetic.jsonl", GOLDEN / "checks.synthetic.jsonl")
    assert both.composite_pass == real.composite_pass
    assert both.strict_pass == real.strict_pass
    assert both.check_failures == real.check_failures
    assert both.diverging == [] and both.agreement == real.agreement
    assert both.synthetic is not None
    assert both.synthetic.case_ids == ["golden_001.flip-citation_valid"]
    assert both.synthetic.diverging == ["golden_001.flip-citation_valid"]
    row = next(r for r in both.cases if r.synthetic)
    assert (row.score, row.verdict, row.strict_verdict) == (0.95, "pass", "fail")
    assert row.provenance is not None and row.provenance["check"] == "citation_valid"


def test_the_json_contract() -> None:
    report = report_for(GOLDEN / "golden17.synthetic.jsonl", GOLDEN / "checks.synthetic.jsonl")
    data = json.loads(render_composite(report, "json"))
    assert set(data["profile"]) >= {"weights", "critical", "threshold"}
    assert data["profile"]["threshold"] == 0.85
    for row in data["cases"]:
        assert set(row) >= {
            "id", "synthetic", "score", "critical_failures", "verdict", "strict_verdict", "checks"
        }  # fmt: skip
        assert row["verdict"] in ("pass", "fail", "ungraded")
        for check in row["checks"].values():
            assert set(check) == {"passed", "reason"}
    for key in ("composite_pass", "strict_pass"):
        assert set(data[key]) >= {"numerator", "denominator", "denominator_name", "value", "ci"}
    assert data["diverging"] == []


def test_text_and_markdown_show_the_synthetic_section_apart() -> None:
    report = report_for(GOLDEN / "golden17.synthetic.jsonl", GOLDEN / "checks.synthetic.jsonl")
    for fmt in ("text", "markdown"):
        out = render_composite(report, fmt)
        assert out.count(SYNTHETIC_BANNER) == 1
        real_part, synthetic_part = out.split(SYNTHETIC_BANNER)
        assert "golden_001.flip-citation_valid" not in real_part
        assert "golden_001.flip-citation_valid" in synthetic_part
        assert "12/17" in real_part
        assert "every failure hits a critical check" in real_part


def test_the_policy_free_text_answers_are_checked_on_their_text() -> None:
    report = report_for(POLICY / "policy-rubric.yaml", POLICY / "answers-text.jsonl")
    by_id = {r.id: r for r in report.cases}
    assert {i: r.status for i, r in by_id.items()} == {
        "E1": "passed", "E2": "failed", "E3": "passed", "E4": "failed",
        "E5": "error", "E6": "failed", "E7": "missing",
    }  # fmt: skip
    assert (report.composite_pass.numerator, report.composite_pass.denominator) == (2, 7)
    assert report.statuses.total == report.total == 7
    assert by_id["E2"].checks["content_present"].reason == (
        "expected 'excluded from returns' in the answer; not found"
    )
    assert by_id["E4"].checks["citation_valid"].reason == (
        "cited 'shipping-fees' not in the source snapshot at revision 'returns-v3'"
    )
    assert by_id["E4"].critical_failures == ["content_absent"]
    assert by_id["E6"].checks["content_present"].passed is False
    assert by_id["E5"].checks == {} and by_id["E7"].score is None
    assert report.agreement is not None and "not scored: error 1, missing 1" in report.agreement


def test_diverging_real_cases_are_listed_instead_of_the_sentence() -> None:
    dataset = load_dataset(GOLDEN / "golden17.jsonl")
    inputs = load_composite_results(GOLDEN / "checks.jsonl", DEFAULT_PROFILE.checks)
    scored = composite_all(dataset.cases, inputs, CompositeScorer())
    first = scored[0]
    assert first.composite is not None
    stale = {**first.composite.checks, "citation_valid": CheckResult(passed=False, reason="stale")}
    scorer = CompositeScorer()
    scored[0] = scored_case(first.case, first.record, scorer.combine(first.case.id, stale), scorer)
    rebuilt = build_composite_report(dataset, scored, DEFAULT_PROFILE, input_kind="recorded checks")
    assert rebuilt.diverging == ["golden_001"]
    assert rebuilt.agreement is None
    text = render_composite(rebuilt, "text")
    assert "composite and strict verdicts differ on 1 of 17 real cases: golden_001" in text


def test_the_schema_file_is_fresh_and_lists_the_contract_names() -> None:
    from assay.report import composite_schema

    expected = json.dumps(composite_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    schema_file = ROOT / "docs" / "composite.schema.json"
    assert schema_file.read_text(encoding="utf-8") == expected, (
        "docs/composite.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py"
    )
    required = set(composite_schema()["required"])
    assert {"profile", "cases", "composite_pass", "strict_pass", "diverging"} <= required
    report = report_for(GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    assert required <= set(json.loads(render_composite(report, "json")))


def test_the_schema_says_score_is_a_number_or_null_and_always_present() -> None:
    from assay.report import composite_schema

    row = composite_schema()["$defs"]["CompositeCaseRow"]
    assert "score" in row["required"]
    assert row["properties"]["score"]["anyOf"] == [{"type": "number"}, {"type": "null"}]
    assert "null when the case is ungraded" in row["properties"]["score"]["description"]
    report = report_for(POLICY / "policy-rubric.yaml", POLICY / "answers-text.jsonl")
    scores = {c["id"]: c["score"] for c in json.loads(render_composite(report, "json"))["cases"]}
    assert isinstance(scores["E1"], float) and scores["E5"] is None and scores["E7"] is None
