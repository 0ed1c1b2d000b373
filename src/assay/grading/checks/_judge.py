"""A model judge's verdict as composite checks.

``judge`` passes when the judge's 0–2 score reaches the rubric's pass minimum;
``judge_grounded`` and ``judge_citations`` carry its groundedness and citation-support
dimensions when the rubric asks for them. A judgment the judge left ungraded makes each of
them "cannot evaluate", so the composite verdict is ungraded too (never a default score).
A judge check the profile does not weigh joins it as a critical check of weight 0: it can
veto a pass and adds nothing to the score.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from assay.grading._judgment import Judgment
from assay.grading.checks._profile import Profile
from assay.grading.checks._types import CheckInput, CheckResult

JUDGE_CHECK = "judge"
JUDGE_GROUNDED = "judge_grounded"
JUDGE_CITATIONS = "judge_citations"
JUDGE_CHECKS = (JUDGE_CHECK, JUDGE_GROUNDED, JUDGE_CITATIONS)
_DIMENSIONS = {
    JUDGE_GROUNDED: ("grounded", "every claim supported by the sources"),
    JUDGE_CITATIONS: ("citations_supported", "the cited sections support the answer"),
}


def judge_check_names(groundedness: bool, citations: bool) -> tuple[str, ...]:
    """The judge checks a rubric yields: ``judge``, plus each dimension it asks for."""
    return (
        JUDGE_CHECK,
        *((JUDGE_GROUNDED,) if groundedness else ()),
        *((JUDGE_CITATIONS,) if citations else ()),
    )


def judge_not_supplied(subject: CheckInput) -> CheckResult:
    """Stands for a judge check whose verdict was not supplied: it cannot be evaluated."""
    return CheckResult.cannot(
        f"no model judge's verdict for {subject.case.id} (give the judge with --grader)"
    )


def with_judge(profile: Profile, names: Collection[str]) -> Profile:
    """``profile`` with every judge check in ``names`` it does not weigh added as a
    critical check of weight 0 (a veto that adds nothing to the score)."""
    added = [n for n in names if n not in profile.weights]
    if not added:
        return profile
    return profile.model_copy(
        update={
            "weights": {**profile.weights, **dict.fromkeys(added, 0.0)},
            "critical": (*profile.critical, *added),
        }
    )


def judge_check_results(judgment: Judgment, names: Sequence[str]) -> dict[str, CheckResult]:
    """The judge checks ``names`` from one judgment of the judge."""
    if judgment.status not in ("passed", "failed"):
        why = CheckResult.cannot(f"the judge left it {judgment.status}: {judgment.reason}")
        return dict.fromkeys(names, why)
    labels: Mapping[str, str] = dict(
        label.split("=", 1) for label in judgment.labels if "=" in label
    )
    results: dict[str, CheckResult] = {}
    for name in names:
        if name == JUDGE_CHECK:
            make = CheckResult.ok if judgment.status == "passed" else CheckResult.fail
            results[name] = make(judgment.reason)
            continue
        label, meaning = _DIMENSIONS[name]
        said = labels.get(label)
        if said == "yes":
            results[name] = CheckResult.ok(f"the judge found {meaning}")
        elif said == "no":
            results[name] = CheckResult.fail(f"the judge did not find {meaning}")
        elif "judge_score" not in labels:  # judged without a call: an abstention
            results[name] = CheckResult.ok(f"no claim to check: {judgment.reason}")
        else:
            results[name] = CheckResult.cannot(f"the judge gave no {label} verdict")
    return results
