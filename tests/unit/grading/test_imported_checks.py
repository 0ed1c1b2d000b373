"""Another tool's per-case assertions as recorded checks, re-weighed by a profile."""

from __future__ import annotations

from typing import Any

from assay.cases import Case
from assay.grading.checks import (
    CheckResult,
    CompositeInputs,
    CompositeScorer,
    answer_not_empty,
    composite_all,
    imported_checks,
    make_profile,
)
from assay.outcomes import Answer, Error, Record, Results

NAMES = ["contains", "llm-rubric", "latency"]


def check(name: str, passed: Any, graded: bool = True) -> dict[str, Any]:
    return {"name": name, "passed": passed, "reason": f"{name} said {passed}", "graded": graded}


def record(case_id: str, checks: list[dict[str, Any]], trial: int = 1) -> Record:
    return Record(case_id=case_id, trial=trial, outcome=Answer(text="x"), extra={"checks": checks})


def scorer(weights: dict[str, float], critical: list[str], threshold: float) -> CompositeScorer:
    profile = make_profile(
        {"weights": weights, "critical": critical, "threshold": threshold}, NAMES
    )
    return CompositeScorer(profile, {}, recorded_only=NAMES)


def test_records_become_asserted_only_checks_and_errors_give_none() -> None:
    records = [
        record("a", [check("contains", True), check("latency", False)]),
        record("b", [check("llm-rubric", False, graded=False), check("contains", "maybe")]),
        Record(case_id="c", outcome=Error(error_class="provider_error", message="500")),
        Record(case_id="d", outcome=Answer(text="y")),
    ]
    found = {r.case_id: r for r in imported_checks(records)}
    assert set(found) == {"a", "b"}
    assert found["a"].asserted_only
    assert found["a"].checks["contains"] == CheckResult(passed=True, reason="contains said True")
    assert found["a"].checks["latency"].passed is False
    # a grader that could not judge and a non-boolean verdict are not evaluated, never guessed
    assert found["b"].checks["llm-rubric"].passed is None
    assert "the grader did not judge" in found["b"].checks["llm-rubric"].reason
    assert found["b"].checks["contains"].passed is None


def test_a_check_the_case_was_not_given_does_not_apply_and_weights_are_rescaled() -> None:
    weigh = scorer({"contains": 0.4, "llm-rubric": 0.4, "latency": 0.2}, [], 0.6)
    given = {"llm-rubric": CheckResult.ok("polite"), "latency": CheckResult.fail("slow")}
    result = weigh.combine("t", given, asserted_only=True)
    assert set(result.checks) == {"llm-rubric", "latency"}
    # 0.4 of the 0.6 that applies: 2/3, shown rounded down
    assert result.score == 0.666666666
    assert result.verdict == "pass" and result.strict_verdict == "fail"
    # the same results as a native file line: the absent check is not evaluated
    assert weigh.combine("t", given).verdict == "ungraded"


def test_a_critical_assertion_vetoes_and_none_applying_is_ungraded() -> None:
    weigh = scorer({"contains": 0.5, "llm-rubric": 0.5}, ["llm-rubric"], 0.5)
    vetoed = weigh.combine(
        "t",
        {"contains": CheckResult.ok("found"), "llm-rubric": CheckResult.fail("rude")},
        asserted_only=True,
    )
    assert vetoed.verdict == "fail" and vetoed.critical_failures == ("llm-rubric",)
    none = weigh.combine("t", {"latency": CheckResult.ok("fast")}, asserted_only=True)
    assert none.verdict == "ungraded"
    assert "none of the profile's checks was asserted" in (none.ungraded_reason or "")


def test_composite_all_weighs_recorded_checks_and_keeps_errors_and_missing() -> None:
    cases = [
        Case(id=i, slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in ("a", "b", "c", "d")
    ]
    records = (
        record("a", [check("contains", True), check("llm-rubric", True)]),
        record("b", [check("contains", True), check("llm-rubric", False)]),
        Record(case_id="c", outcome=Error(error_class="provider_error", message="500")),
    )
    inputs = CompositeInputs(Results(records), imported_checks(records))
    weigh = scorer({"contains": 0.5, "llm-rubric": 0.5}, ["llm-rubric"], 0.5)
    statuses = {s.case.id: s.status for s in composite_all(cases, inputs, weigh)}
    assert statuses == {"a": "passed", "b": "failed", "c": "error", "d": "missing"}


def test_a_native_check_in_the_profile_runs_on_the_imported_answer() -> None:
    case = Case(id="a", slice="s", question="q", expected_behavior="answer", expected_fact="f")
    records = (
        Record(case_id="a", outcome=Answer(text=""), extra={"checks": [check("contains", True)]}),
    )
    profile = make_profile(
        {"weights": {"answer_not_empty": 0.5, "contains": 0.5}, "threshold": 1.0},
        ["answer_not_empty", "contains"],
    )
    weigh = CompositeScorer(
        profile, {"answer_not_empty": answer_not_empty}, recorded_only=["contains"]
    )
    inputs = CompositeInputs(Results(records), imported_checks(records))
    (scored,) = composite_all([case], inputs, weigh)
    assert scored.composite is not None
    assert scored.composite.checks["answer_not_empty"].passed is False
    assert scored.composite.checks["contains"].passed is True
    assert scored.status == "failed"
