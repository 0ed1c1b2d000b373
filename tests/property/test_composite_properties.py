"""Properties of the composite scorer and its report, over random profiles and results."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.grading.checks import (
    DEFAULT_WEIGHTS,
    CheckResult,
    CompositeInputs,
    CompositeScorer,
    Profile,
    RecordedChecks,
    composite_all,
    make_profile,
)
from assay.outcomes import Results
from assay.report import build_composite_report

NAMES = list(DEFAULT_WEIGHTS)


@st.composite
def profiles(draw: st.DrawFn) -> Profile:
    """Random valid profiles: weights in hundredths summing to 1, any critical subset."""
    cuts = sorted(draw(st.lists(st.integers(0, 100), min_size=6, max_size=6)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100], strict=True)]
    weights = {n: p / 100 for n, p in zip(NAMES, parts, strict=True)}
    critical = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    threshold = draw(st.integers(1, 100)) / 100
    data = {"weights": weights, "critical": critical, "threshold": threshold}
    return make_profile(data, NAMES)


outcomes = st.dictionaries(st.sampled_from(NAMES), st.booleans(), min_size=len(NAMES))


def checks_of(passed: dict[str, bool]) -> dict[str, CheckResult]:
    return {n: CheckResult(passed=v, reason="r") for n, v in passed.items()}


@given(profiles(), outcomes)
@settings(max_examples=300, deadline=None)
def test_a_composite_pass_with_a_strict_fail_has_only_non_critical_failures(
    profile: Profile, passed: dict[str, bool]
) -> None:
    result = CompositeScorer(profile).combine("c", checks_of(passed))
    if result.verdict == "pass" and result.strict_verdict == "fail":
        assert result.critical_failures == ()
        assert result.failed and not set(result.failed) & set(profile.critical)
    if result.strict_verdict == "pass":
        assert result.verdict == "pass"
    expected = math.fsum(profile.weights[n] for n, ok in passed.items() if ok)
    assert result.score is not None and math.isclose(result.score, expected, abs_tol=1e-12)


def _case(i: int, synthetic: bool) -> Case:
    return Case(
        id=f"{'s' if synthetic else 'r'}{i}",
        slice="x",
        question="q?",
        expected_behavior="answer",
        expected_fact="f",
        synthetic=synthetic,
    )


check_rows = st.lists(outcomes, min_size=0, max_size=8)


@given(profiles(), check_rows.filter(bool), check_rows.filter(bool))
@settings(max_examples=100, deadline=None)
def test_adding_synthetic_cases_never_changes_real_figures(
    profile: Profile, real_rows: list[dict[str, bool]], fake_rows: list[dict[str, bool]]
) -> None:
    real = [_case(i, False) for i in range(len(real_rows))]
    fake = [_case(i, True) for i in range(len(fake_rows))]
    recorded = [
        RecordedChecks(case_id=c.id, checks=checks_of(row))
        for c, row in zip(real + fake, real_rows + fake_rows, strict=True)
    ]
    scorer = CompositeScorer(profile)

    def report(cases: list[Case]):  # type: ignore[no-untyped-def]
        ids = {c.id for c in cases}
        inputs = CompositeInputs(Results(()), tuple(r for r in recorded if r.case_id in ids))
        scored = composite_all(cases, inputs, scorer)
        return build_composite_report(
            Dataset("d", tuple(cases)), scored, profile, input_kind="recorded checks"
        )

    alone, mixed = report(real), report(real + fake)
    for field in ("total", "statuses", "composite_pass", "strict_pass", "check_failures",
                  "diverging", "agreement"):  # fmt: skip
        assert getattr(alone, field) == getattr(mixed, field), field
    assert alone.dataset.cases == mixed.dataset.cases
    assert mixed.synthetic is not None and len(mixed.synthetic.case_ids) == len(fake)


@given(
    profiles(),
    check_rows.filter(bool),
    check_rows.filter(bool),
    st.lists(st.integers(1, 4), min_size=8, max_size=8),
    st.lists(st.integers(1, 9), min_size=8, max_size=8),
)
@settings(max_examples=100, deadline=None)
def test_synthetic_trials_never_change_real_figures(
    profile: Profile,
    real_rows: list[dict[str, bool]],
    fake_rows: list[dict[str, bool]],
    real_trials: list[int],
    fake_trials: list[int],
) -> None:
    """Real and synthetic rows at any trial numbers: the real cases' trial count, statuses
    and clustered intervals are those computed with the synthetic rows deleted."""
    real = [_case(i, False) for i in range(len(real_rows))]
    fake = [_case(i, True) for i in range(len(fake_rows))]
    recorded = [
        RecordedChecks(case_id=c.id, trial=t, checks=checks_of(row))
        for c, row, t in zip(real, real_rows, real_trials, strict=False)
    ] + [
        RecordedChecks(case_id=c.id, trial=t, checks=checks_of(row))
        for c, row, t in zip(fake, fake_rows, fake_trials, strict=False)
    ]
    scorer = CompositeScorer(profile)

    def report(cases: list[Case]):  # type: ignore[no-untyped-def]
        ids = {c.id for c in cases}
        inputs = CompositeInputs(Results(()), tuple(r for r in recorded if r.case_id in ids))
        scored = composite_all(cases, inputs, scorer)
        return build_composite_report(
            Dataset("d", tuple(cases)), scored, profile, input_kind="recorded checks"
        )

    alone, mixed = report(real), report(real + fake)
    for field in ("trials", "total", "statuses", "composite_pass", "strict_pass",
                  "check_failures", "diverging", "agreement"):  # fmt: skip
        assert getattr(alone, field) == getattr(mixed, field), field
    assert [r for r in mixed.cases if not r.synthetic] == alone.cases
