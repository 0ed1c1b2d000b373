"""Grading a dataset's results in one call: ids checked first, then every case-trial judged."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from assay.cases import Case, Dataset, check_unique_ids
from assay.grading._grade import CaseResult, grade
from assay.grading._judgment import Grader
from assay.grading._structured import StructuredGrader
from assay.outcomes import Outcome, Record, Results, as_results, check_results


def validate_inputs(
    dataset: Dataset | Sequence[Case],
    results: Results | Mapping[str, Outcome] | Iterable[Record],
) -> tuple[tuple[Case, ...], Results]:
    """Check ids before anything is scored: duplicate case ids, unknown or repeated results."""
    if isinstance(dataset, Dataset):
        cases = dataset.cases
    else:
        cases = tuple(dataset)
        check_unique_ids(cases)
    checked = as_results(results)
    check_results(checked, (c.id for c in cases))
    return cases, checked


def grade_all(
    dataset: Dataset | Sequence[Case],
    results: Results | Mapping[str, Outcome] | Iterable[Record],
    grader: Grader | None = None,
    trials: int | None = None,
) -> list[CaseResult]:
    """Validate, then grade every case-trial (real and synthetic) in dataset order."""
    cases, checked = validate_inputs(dataset, results)
    return grade(cases, checked, grader or StructuredGrader(), trials)
