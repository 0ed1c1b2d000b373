"""A model judge's verdict as composite checks: a critical veto of weight 0 unless the
profile weighs it, its dimensions as checks of their own, and an ungraded judgment making
the composite verdict ungraded (never a default score)."""

from __future__ import annotations

from assay.cases import Case
from assay.grading import Judgment, Status
from assay.grading.checks import (
    BUILTIN_CHECKS,
    DEFAULT_PROFILE,
    Check,
    CheckResult,
    CompositeScorer,
    judge_check_names,
    judge_check_results,
    judge_not_supplied,
    make_profile,
    with_judge,
)
from assay.outcomes import Answer, Record

CASE = Case(
    id="J1",
    slice="s",
    question="How many days?",
    expected_behavior="answer",
    expected_fact="return_30",
    required=("30 days",),
)
RECORD = Record(case_id="J1", outcome=Answer(text="Within 30 days.", citations=()))


def _judgment(status: Status, *labels: str, reason: str = "judge score 2/2: fine") -> Judgment:
    return Judgment(
        case_id="J1",
        status=status,
        reason=reason,
        grader="judge",
        grader_version="1+abc",
        labels=labels,
    )


def test_names_follow_the_rubric_dimensions() -> None:
    assert judge_check_names(False, False) == ("judge",)
    assert judge_check_names(True, True) == ("judge", "judge_grounded", "judge_citations")


def test_an_unweighed_judge_joins_as_a_critical_check_of_weight_zero() -> None:
    profile = with_judge(DEFAULT_PROFILE, ("judge",))
    assert profile.weights["judge"] == 0.0 and profile.critical[-1] == "judge"
    assert sum(profile.weights.values()) == sum(DEFAULT_PROFILE.weights.values())
    weighed = make_profile(
        {"weights": {"judge": 0.5, "answer_not_empty": 0.5}, "threshold": 1},
        ["judge", "answer_not_empty"],
    )
    assert with_judge(weighed, ("judge",)) is weighed  # the profile's own weighing stands


def test_a_judge_pass_leaves_the_checks_verdict_and_a_fail_vetoes_it() -> None:
    profile = with_judge(DEFAULT_PROFILE, ("judge",))
    scorer = CompositeScorer(profile, {**_builtin(), "judge": judge_not_supplied})
    passed = judge_check_results(_judgment("passed", "judge_score=2"), ["judge"])
    failed = judge_check_results(
        _judgment("failed", "judge_score=0", reason="judge score 0/2: wrong"), ["judge"]
    )
    ok = scorer.evaluate(CASE, RECORD, passed)
    assert ok.verdict == "pass" and ok.checks["judge"].reason == "judge score 2/2: fine"
    vetoed = scorer.evaluate(CASE, RECORD, failed)
    assert vetoed.verdict == "fail" and vetoed.critical_failures == ("judge",)
    assert vetoed.score == ok.score  # weight 0: the score is the checks' alone
    assert vetoed.strict_verdict == "fail"


def test_an_ungraded_judgment_makes_every_judge_check_unevaluated() -> None:
    names = ["judge", "judge_grounded"]
    results = judge_check_results(
        _judgment("ungraded", reason="judge reply rejected (invalid_json): x"), names
    )
    assert all(r.passed is None for r in results.values())
    assert "invalid_json" in results["judge"].reason
    profile = with_judge(DEFAULT_PROFILE, names)
    checks = {**_builtin(), "judge": judge_not_supplied, "judge_grounded": judge_not_supplied}
    scored = CompositeScorer(profile, checks).evaluate(CASE, RECORD, results)
    assert scored.verdict == "ungraded" and scored.score is None
    # a judge check with no verdict supplied is never a pass either
    alone = CompositeScorer(profile, checks).evaluate(CASE, RECORD)
    assert alone.verdict == "ungraded" and "--grader" in (alone.ungraded_reason or "")


def test_dimensions_are_checks_of_their_own() -> None:
    names = ["judge", "judge_grounded", "judge_citations"]
    got = judge_check_results(
        _judgment("passed", "judge_score=2", "grounded=yes", "citations_supported=no"), names
    )
    assert got["judge"].passed is True
    assert got["judge_grounded"] == CheckResult.ok(
        "the judge found every claim supported by the sources"
    )
    assert got["judge_citations"].passed is False
    silent = judge_check_results(_judgment("passed", "judge_score=2"), names)
    assert silent["judge_grounded"].passed is None  # asked, not answered: not a pass
    abstained = judge_check_results(_judgment("passed", reason="abstained, as expected"), names)
    assert abstained["judge_citations"].passed is True  # no claim, nothing to support


def _builtin() -> dict[str, Check]:
    return dict(BUILTIN_CHECKS)
