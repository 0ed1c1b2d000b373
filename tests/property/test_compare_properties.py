"""Properties of comparisons: every paired case-trial lands in exactly one bucket."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.compare import RunSide, compare_runs
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Record
from assay.report import build_report

STATUS = st.sampled_from(["passed", "failed", "error", "missing"])


def _run(n: int, statuses: list[str], revisions: list[str], ref: str) -> RunSide:
    cases = tuple(
        Case(
            id=f"C{i}",
            slice=f"s{i % 3}",
            question="q?",
            expected_behavior="answer",
            expected_fact="f",
            source_revision=revisions[i],
        )
        for i in range(n)
    )
    records = []
    for i, status in enumerate(statuses):
        if status == "passed":
            records.append(Record(case_id=f"C{i}", outcome=Answer(fact="f")))
        elif status == "failed":
            records.append(Record(case_id=f"C{i}", outcome=Abstain()))
        elif status == "error":
            records.append(Record(case_id=f"C{i}", outcome=Error(message="x")))
    data = Dataset(name="p", cases=cases)
    return RunSide.from_report(build_report(data, grade_all(data, records)), ref=ref)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_buckets_add_up_to_all_pairs(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 12))
    base = data.draw(st.lists(STATUS, min_size=n, max_size=n))
    cand = data.draw(st.lists(STATUS, min_size=n, max_size=n))
    revs_b = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    revs_c = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    c = compare_runs(_run(n, base, revs_b, "b"), _run(n, cand, revs_c, "c"), matching_only=True)
    buckets = len(c.fixed) + len(c.broken) + len(c.moved) + sum(c.unchanged.values())
    assert buckets == c.paired
    assert c.paired + len(c.excluded) == n
    assert c.paired == sum(1 for i in range(n) if revs_b[i] == revs_c[i])
    passed_b = c.baseline.task_success.numerator
    passed_c = c.candidate.task_success.numerator
    assert passed_c - passed_b == c.mcnemar.fixed - c.mcnemar.broken
    if c.task_success_delta.value is not None:
        low, high = c.task_success_delta.ci or (0.0, 0.0)
        assert low - 1e-12 <= c.task_success_delta.value <= high + 1e-12
    assert sum(s.paired for s in c.slices) == c.paired


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
def test_holm_never_lowers_a_p_value_and_keeps_their_order(p_values: list[float]) -> None:
    from assay.metrics import holm_adjust

    adjusted = holm_adjust(p_values)
    assert all(p <= a <= 1.0 for p, a in zip(p_values, adjusted, strict=True))
    ranked = sorted(range(len(p_values)), key=lambda i: p_values[i])
    assert all(adjusted[i] <= adjusted[j] for i, j in itertools.pairwise(ranked))
    # Bonferroni bounds Holm from above.
    assert all(a <= min(1.0, len(p_values) * p) for p, a in zip(p_values, adjusted, strict=True))
