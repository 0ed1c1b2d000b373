"""Synthetic cases built from real ones, to exercise behaviour real data does not reach."""

from __future__ import annotations

from collections.abc import Mapping

from assay.cases import Case, Provenance
from assay.errors import AssayInputError, did_you_mean
from assay.grading.checks._recorded import RecordedChecks
from assay.grading.checks._types import CheckResult


def flip_check(
    case: Case,
    checks: Mapping[str, CheckResult],
    check: str,
    *,
    new_id: str | None = None,
) -> tuple[Case, RecordedChecks]:
    """A synthetic copy of a real case whose check results are ``checks`` with exactly one,
    ``check``, flipped (passed becomes failed, failed becomes passed).

    The new case (id ``<case>.flip-<check>`` unless ``new_id`` is given) is
    ``synthetic: true`` and records its provenance; every other label and check result is
    copied unchanged. Raises ``AssayInputError`` when the source case is itself synthetic,
    the check was not recorded, or it could not be evaluated (nothing to flip).
    """
    if case.synthetic:
        raise AssayInputError(f"flip-check starts from a real case; {case.id} is synthetic")
    if check not in checks:
        names = sorted(checks)
        raise AssayInputError(
            f'{case.id} has no result for check "{check}"{did_you_mean(check, names)}; '
            f"recorded: {', '.join(names)}"
        )
    old = checks[check]
    if old.passed is None:
        raise AssayInputError(
            f"{case.id}: {check} was not evaluated ({old.reason}); only a passed or failed "
            "check can be flipped"
        )
    was, now = ("passed", "failed") if old.passed else ("failed", "passed")
    provenance = Provenance(
        source_case=case.id,
        method="flip-check",
        check=check,
        from_value=old.passed,
        to_value=not old.passed,
        note=f"{case.id}'s recorded check results with only {check} flipped ({was} -> {now})",
    )
    data = case.model_dump()
    data.update(
        id=new_id or f"{case.id}.flip-{check}",
        synthetic=True,
        provenance=provenance,
        rationale=f"SYNTHETIC: {provenance.note}. Source rationale: {case.rationale or 'none'}",
    )
    flipped = dict(checks)
    flipped[check] = CheckResult(
        passed=not old.passed,
        reason=f"SYNTHETIC: flipped from {was} to {now} (copied from {case.id})",
    )
    new_case = Case.model_validate(data)
    return new_case, RecordedChecks(case_id=new_case.id, trial=1, checks=flipped)
