"""Every rate's bounds over its unknowns equal a brute-force recount of the report's case
rows with their unknown case-trials relabelled failed, then passed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import Abstain, Answer, Case, Dataset, Error, Record, summarize
from assay.grading import grade_all
from assay.report import CaseRow, Report, build_report
from assay.report._correction import UnknownBound

FACTS = ("f1", "f2")
SLICES = ("s1", "s2")
UNKNOWN = ("error", "missing", "ungraded")

# An answer with text and no fact key is one the structured grader leaves ungraded.
outcomes = st.one_of(
    st.builds(Answer, fact=st.sampled_from(FACTS)),
    st.builds(Answer, text=st.just("free text")),
    st.builds(Abstain),
    st.builds(Error),
)


@st.composite
def scored(draw: st.DrawFn) -> tuple[Dataset, list[Record]]:
    n = draw(st.integers(min_value=1, max_value=10))
    cases = [
        Case(
            id=f"C{i}",
            slice=draw(st.sampled_from(SLICES)),
            question="q",
            expected_behavior="answer",
            expected_fact="f1",
        )
        for i in range(n)
    ]
    trials = draw(st.integers(min_value=1, max_value=2))
    records = [
        Record(case_id=c.id, trial=t, outcome=draw(outcomes))
        for c in cases
        for t in range(1, trials + 1)
        if draw(st.integers(min_value=0, max_value=5))  # now and then missing
    ]
    return Dataset(name="d", cases=tuple(cases)), records


def _count(rows: list[CaseRow], hit: object, unit: object) -> tuple[int, int]:
    kept = [r for r in rows if unit(r)]  # type: ignore[operator]
    return sum(1 for r in kept if hit(r)), len(kept)  # type: ignore[operator]


def _relabelled(rows: list[CaseRow], passed: bool) -> dict[str, tuple[int, int]]:
    """Each rate's (numerator, denominator) with every unknown row counted passed (or
    failed): answered when coverage counts it, passing when the others do."""

    def unknown(r: CaseRow) -> bool:
        return r.status in UNKNOWN

    def passes(r: CaseRow) -> bool:
        return passed if unknown(r) else r.status == "passed"

    def answers(r: CaseRow) -> bool:
        return passed if unknown(r) else r.outcome == "answer"

    def answered(r: CaseRow) -> bool:  # the denominator of answered accuracy never moves
        return r.outcome == "answer"

    found = {
        "task_success": _count(rows, passes, lambda r: True),
        "answer_coverage": _count(rows, answers, lambda r: True),
        "answered_accuracy": _count(rows, passes, answered),
    }
    for name in SLICES:
        found[f"slice:{name}"] = _count(rows, passes, lambda r, n=name: r.slice == n)
    return found


def _bounds(report: Report) -> dict[str, UnknownBound | None]:
    b = report.unknown_bounds
    assert b is not None
    found: dict[str, UnknownBound | None] = {
        "task_success": b.task_success,
        "answer_coverage": b.answer_coverage,
        "answered_accuracy": b.answered_accuracy,
    }
    for name in SLICES:
        found[f"slice:{name}"] = b.slices.get(name)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scored())
def test_bounds_are_the_rates_recounted_with_unknowns_relabelled(
    data: tuple[Dataset, list[Record]],
) -> None:
    dataset, records = data
    report = build_report(dataset, grade_all(dataset, records))
    # counted from packed verdicts, as stored runs are, the count is the same
    assert summarize(dataset, records).answered_unknown == report.answered_unknown
    rows = list(report.cases)
    if not any(r.status in UNKNOWN for r in rows):
        assert report.unknown_bounds is None
        return
    worst, best = _relabelled(rows, passed=False), _relabelled(rows, passed=True)
    for name, bound in _bounds(report).items():
        if worst[name] == best[name]:  # nothing unknown in this rate's denominator
            assert bound is None, name
            continue
        assert bound is not None, name
        assert (bound.worst.numerator, bound.worst.denominator) == worst[name], name
        assert (bound.best.numerator, bound.best.denominator) == best[name], name
    # and a reread report keeps them
    assert Report.model_validate_json(report.model_dump_json()) == report
