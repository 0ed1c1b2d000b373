"""The composite scorer: weights, critical vetoes, the exact threshold, ungraded cases."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import pytest

from assay.cases import Case, SourceLibrary
from assay.grading import Grader
from assay.grading.checks import (
    DEFAULT_PROFILE,
    DEFAULT_WEIGHTS,
    CheckInput,
    CheckResult,
    CompositeScorer,
    exact,
    make_profile,
)
from assay.outcomes import Abstain, Answer, Record

NAMES = list(DEFAULT_WEIGHTS)


def results(
    failed: frozenset[str] | set[str] = frozenset(),
    unknown: frozenset[str] | set[str] = frozenset(),
) -> dict[str, CheckResult]:
    out: dict[str, CheckResult] = {}
    for name in NAMES:
        if name in unknown:
            out[name] = CheckResult(passed=None, reason="cannot evaluate: no snapshot")
        else:
            out[name] = CheckResult(passed=name not in failed, reason=f"{name} reason")
    return out


def test_default_profile_matches_the_lesson() -> None:
    assert DEFAULT_PROFILE.threshold == 0.85
    assert set(DEFAULT_PROFILE.critical) == {"content_present", "content_absent"}
    assert sum(exact(w) for w in DEFAULT_WEIGHTS.values()) == Decimal(1)
    assert DEFAULT_WEIGHTS["content_present"] == 0.25
    assert DEFAULT_WEIGHTS["citation_valid"] == DEFAULT_WEIGHTS["answer_not_empty"] == 0.05


def test_all_passed_scores_one_and_passes_both_ways() -> None:
    result = CompositeScorer().combine("c", results())
    assert (result.score, result.verdict, result.strict_verdict) == (1.0, "pass", "pass")
    assert result.critical_failures == ()


def test_a_critical_failure_beats_an_otherwise_passing_score() -> None:
    # content_absent fails; the score (0.80) alone would fail at 0.85, so lower the
    # threshold to make the score pass and show the veto is independent of it.
    profile = DEFAULT_PROFILE.model_copy(update={"threshold": 0.5})
    result = CompositeScorer(profile).combine("c", results({"content_absent"}))
    assert result.score == 0.8
    assert result.verdict == "fail"
    assert result.critical_failures == ("content_absent",)
    assert result.reason == "critical check content_absent failed: content_absent reason"


def test_a_non_critical_failure_passes_composite_and_fails_strict() -> None:
    result = CompositeScorer().combine("golden_001", results({"citation_valid"}))
    assert result.score == 0.95
    assert (result.verdict, result.strict_verdict) == ("pass", "fail")
    assert result.diverges
    assert result.reason == "score 0.95 ≥ threshold 0.85 (failed: citation_valid)"


def subsets_scoring(target: Decimal) -> list[frozenset[str]]:
    found = []
    for k in range(len(NAMES) + 1):
        for failed in itertools.combinations(NAMES, k):
            passed = [n for n in NAMES if n not in failed]
            if sum((exact(DEFAULT_WEIGHTS[n]) for n in passed), Decimal(0)) == target:
                found.append(frozenset(failed))
    return found


def test_exactly_the_threshold_passes_to_the_float() -> None:
    critical = set(DEFAULT_PROFILE.critical)
    at_threshold = [f for f in subsets_scoring(Decimal("0.85")) if not f & critical]
    assert at_threshold, "the default weights have non-critical subsets worth exactly 0.85"
    naive_below = False
    for failed in at_threshold:
        passed = [n for n in NAMES if n not in failed]
        for order in itertools.permutations(passed):
            naive_below |= sum(DEFAULT_WEIGHTS[n] for n in order) < 0.85
            # The scorer adds in profile order: permute the profile's weights too.
            profile = DEFAULT_PROFILE.model_copy(
                update={"weights": {n: DEFAULT_WEIGHTS[n] for n in (*order, *failed)}}
            )
            result = CompositeScorer(profile).combine("c", results(set(failed)))
            assert (result.score, result.verdict) == (0.85, "pass"), (failed, order)
    # The naive float sum really does fall short for some order: the test is not vacuous.
    assert naive_below


def test_just_below_the_threshold_fails() -> None:
    result = CompositeScorer().combine("c", results({"abstention_correct"}))
    assert result.score == 0.8
    assert (result.verdict, result.critical_failures) == ("fail", ())
    assert result.reason == "score 0.8 < threshold 0.85 (failed: abstention_correct)"


def test_awkward_float_weights_still_meet_their_threshold() -> None:
    weights = {"answer_not_empty": 0.1, "content_present": 0.2, "format_valid": 0.7}
    profile = make_profile({"weights": weights, "critical": [], "threshold": 0.3}, NAMES)
    assert 0.1 + 0.2 != 0.3
    scorer = CompositeScorer(profile)
    result = scorer.combine(
        "c", {n: CheckResult(passed=n != "format_valid", reason="r") for n in weights}
    )
    assert (result.score, result.verdict) == (0.3, "pass")


def test_a_check_that_cannot_be_evaluated_makes_the_case_ungraded() -> None:
    result = CompositeScorer().combine("c", results(unknown={"citation_valid"}))
    assert (result.verdict, result.strict_verdict, result.score) == ("ungraded", "ungraded", None)
    assert result.ungraded_reason == "citation_valid: cannot evaluate: no snapshot"


def test_an_unrecorded_check_is_ungraded_not_passed() -> None:
    partial = {n: r for n, r in results().items() if n != "format_valid"}
    result = CompositeScorer().combine("c", partial)
    assert result.verdict == "ungraded"
    assert "format_valid" in (result.ungraded_reason or "")


def test_ungraded_still_lists_the_critical_failures_it_saw() -> None:
    result = CompositeScorer().combine(
        "c", results({"content_present"}, unknown={"citation_supports"})
    )
    assert result.verdict == "ungraded"
    assert result.critical_failures == ("content_present",)


def _case(**fields: Any) -> Case:
    base: dict[str, Any] = {
        "id": "E1",
        "slice": "standard",
        "question": "How many days?",
        "source_revision": "returns-v3",
        "expected_behavior": "answer",
        "expected_fact": "return_window_30_days",
        "required": ["30 days"],
        "requires_citation": True,
    }
    return Case.model_validate({**base, **fields})


LIBRARY = SourceLibrary({"returns-v3": {"standard-window": "Return within 30 days."}})


def test_the_scorer_is_a_grader_running_the_checks_on_free_text() -> None:
    scorer = CompositeScorer(sources=LIBRARY)
    assert isinstance(scorer, Grader)
    record = Record(
        case_id="E1", outcome=Answer(text="You have 30 days.", citations=("standard-window",))
    )
    judgment = scorer.grade(_case(), record)
    assert (judgment.status, judgment.score, judgment.grader) == ("passed", 1.0, "composite")
    assert "strict:pass" in judgment.labels


def test_grading_without_a_snapshot_is_ungraded_with_the_reason() -> None:
    record = Record(case_id="E1", outcome=Answer(text="30 days.", citations=("standard-window",)))
    judgment = CompositeScorer().grade(_case(), record)
    assert judgment.status == "ungraded"
    assert judgment.score is None
    assert "no source snapshot for revision 'returns-v3'" in judgment.reason


def test_a_failed_judgment_carries_critical_labels() -> None:
    record = Record(case_id="E1", outcome=Abstain(reason="not sure"))
    judgment = CompositeScorer(sources=LIBRARY).grade(_case(), record)
    assert judgment.status == "failed"
    assert "critical:content_present" in judgment.labels


def test_a_check_that_raises_makes_the_case_ungraded() -> None:
    def broken(subject: CheckInput) -> CheckResult:
        raise RuntimeError("boom")

    profile = make_profile(
        {"weights": {"answer_not_empty": 1.0}, "critical": [], "threshold": 1.0}, NAMES
    )
    scorer = CompositeScorer(profile, {"answer_not_empty": broken})
    result = scorer.evaluate(_case(), Record(case_id="E1", outcome=Answer(text="x")))
    assert result.verdict == "ungraded"
    assert "the check raised RuntimeError: boom" in (result.ungraded_reason or "")


def test_a_profile_check_without_a_function_is_refused() -> None:
    from assay.errors import AssayConfigError

    profile = make_profile(
        {"weights": {"answer_not_empty": 1.0}, "critical": [], "threshold": 1.0}, NAMES
    )
    with pytest.raises(AssayConfigError, match="no check function for answer_not_empty"):
        CompositeScorer(profile, {})


def test_a_judgment_gives_every_failed_check_its_own_reason() -> None:
    result = CompositeScorer().combine(
        "c", results({"content_absent", "citation_valid", "format_valid"})
    )
    reason = CompositeScorer().judgment(result).reason
    assert reason.startswith("critical check content_absent failed: content_absent reason — ")
    assert reason.count("content_absent reason") == 1
    assert "citation_valid: citation_valid reason" in reason
    assert "format_valid: format_valid reason" in reason


def test_a_judgment_of_a_passing_case_names_the_check_it_forgave() -> None:
    result = CompositeScorer().combine("golden_001", results({"citation_valid"}))
    assert CompositeScorer().judgment(result).reason == (
        "score 0.95 ≥ threshold 0.85 (failed: citation_valid) — "
        "citation_valid: citation_valid reason"
    )
