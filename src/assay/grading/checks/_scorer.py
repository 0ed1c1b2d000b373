"""The composite scorer: weighted checks, critical vetoes, a threshold, and the strict
all-checks verdict beside it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from decimal import ROUND_DOWN, Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assay.cases import EMPTY_SOURCES, Case, SourceLibrary
from assay.errors import AssayConfigError
from assay.grading._judgment import Judgment, Status
from assay.grading.checks._profile import DEFAULT_PROFILE, Profile, exact
from assay.grading.checks._registry import CheckRegistry
from assay.grading.checks._types import NO_TRAJECTORY, Check, CheckInput, CheckResult
from assay.outcomes import Record, Trajectory, TrajectoryError, trajectory_of

Verdict = Literal["pass", "fail", "ungraded"]
VERDICT_STATUS: dict[Verdict, Status] = {"pass": "passed", "fail": "failed", "ungraded": "ungraded"}
NOT_RECORDED = "cannot evaluate: no result recorded for this check"


class CompositeResult(BaseModel):
    """One case-trial scored by a profile.

    ``score`` is the sum of the weights of the passed checks (None when ungraded);
    ``verdict`` is pass iff score ≥ threshold and no critical check failed;
    ``strict_verdict`` is pass iff every check passed. A check that could not be evaluated
    makes both verdicts ``ungraded`` and ``ungraded_reason`` says which and why.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_id: str
    trial: int = 1
    checks: dict[str, CheckResult]
    score: float | None
    critical_failures: tuple[str, ...]
    verdict: Verdict
    strict_verdict: Verdict
    threshold: float
    ungraded_reason: str | None = None

    @property
    def failed(self) -> tuple[str, ...]:
        """Checks that ran and failed, in profile order."""
        return tuple(n for n, r in self.checks.items() if r.passed is False)

    @property
    def diverges(self) -> bool:
        """True when the composite and strict verdicts differ (both graded)."""
        return self.verdict != self.strict_verdict

    @property
    def reason(self) -> str:
        """One line: why this verdict."""
        if self.verdict == "ungraded":
            return self.ungraded_reason or "ungraded"
        failed = f" (failed: {', '.join(self.failed)})" if self.failed else ""
        if self.critical_failures:
            name = self.critical_failures[0]
            return f"critical check {name} failed: {self.checks[name].reason}"
        op = "≥" if self.verdict == "pass" else "<"
        return f"score {self.score} {op} threshold {self.threshold}{failed}"

    @property
    def detail(self) -> str:
        """The verdict's reason followed by every failed check's own reason, e.g.
        "score 0.95 ≥ threshold 0.85 (failed: citation_valid) — citation_valid: cited
        'x' not in the source snapshot at revision 'v3'"."""
        told = self.critical_failures[:1]  # the reason already quotes the first veto
        others = [n for n in self.failed if n not in told]
        if self.verdict == "ungraded" or not others:
            return self.reason
        checks = "; ".join(f"{n}: {self.checks[n].reason}" for n in others)
        return f"{self.reason} — {checks}"


def _recorded_only(name: str) -> Check:
    def check(subject: CheckInput) -> CheckResult:
        return CheckResult.cannot(
            f"{name} is a result another tool recorded; none was recorded for this case"
        )

    return check


def _trajectory(record: Record) -> tuple[Trajectory | None, str]:
    """The record's trajectory, or None and why there is none to read."""
    try:
        return trajectory_of(record), NO_TRAJECTORY
    except TrajectoryError as err:
        return None, f"the recorded trajectory is invalid: {err}"


class CompositeScorer:
    """Scores a case with a ``Profile``; usable as a ``Grader`` (status passed, failed or
    ungraded, ``score`` the composite score).

    ``checks`` maps each profile check name to its function (default: the built-ins);
    ``sources`` supplies the source snapshots citation checks read.
    """

    name = "composite"
    version = "1"

    def __init__(
        self,
        profile: Profile = DEFAULT_PROFILE,
        checks: Mapping[str, Check] | None = None,
        sources: SourceLibrary = EMPTY_SOURCES,
        recorded_only: Collection[str] = (),
    ) -> None:
        self.profile = profile
        found = (
            dict(checks)
            if checks is not None
            else CheckRegistry.builtin().resolve(
                n for n in profile.checks if n in CheckRegistry.builtin()
            )
        )
        missing = [n for n in profile.checks if n not in found and n not in recorded_only]
        if missing:
            raise AssayConfigError(f"no check function for {', '.join(missing)}")
        self.computable = tuple(n for n in profile.checks if n in found)
        self.checks = {n: found.get(n) or _recorded_only(n) for n in profile.checks}
        self.sources = sources

    def combine(
        self,
        case_id: str,
        results: Mapping[str, CheckResult],
        trial: int = 1,
        *,
        asserted_only: bool = False,
    ) -> CompositeResult:
        """Weigh already-known check results (run or recorded); absent ones are unevaluated.

        With ``asserted_only`` the results are every check the case was given: absent
        profile checks do not apply, and the applying checks' weights are rescaled to
        sum to 1 (how promptfoo weighs a test's own assertions).
        """
        profile = self.profile
        names = [n for n in profile.checks if not asserted_only or n in results]
        checks = {n: results.get(n) or CheckResult(passed=None, reason=NOT_RECORDED) for n in names}
        if not checks:
            return CompositeResult(
                case_id=case_id,
                trial=trial,
                checks={},
                critical_failures=(),
                threshold=profile.threshold,
                score=None,
                verdict="ungraded",
                strict_verdict="ungraded",
                ungraded_reason="cannot evaluate: none of the profile's checks was asserted "
                f"for this case (it has {', '.join(results) or 'none'})",
            )
        unknown = [n for n, r in checks.items() if r.passed is None]
        failed = [n for n, r in checks.items() if r.passed is False]
        critical = tuple(n for n in failed if n in profile.critical)
        common = {
            "case_id": case_id,
            "trial": trial,
            "checks": checks,
            "critical_failures": critical,
            "threshold": profile.threshold,
        }
        if unknown:
            why = "; ".join(f"{n}: {checks[n].reason}" for n in unknown)
            return CompositeResult(
                **common,
                score=None,
                verdict="ungraded",
                strict_verdict="ungraded",
                ungraded_reason=why,
            )
        total = sum((exact(profile.weights[n]) for n, r in checks.items() if r.passed), Decimal(0))
        if len(checks) < len(profile.checks):
            applying = sum((exact(profile.weights[n]) for n in checks), Decimal(0))
            # rounded down so that a shown score never crosses the threshold it missed
            total = (total / applying if applying else Decimal(0)).quantize(
                Decimal("1e-9"), rounding=ROUND_DOWN
            )
        passes = total >= exact(profile.threshold) and not critical
        return CompositeResult(
            **common,
            score=float(total),
            verdict="pass" if passes else "fail",
            strict_verdict="fail" if failed else "pass",
        )

    def run_checks(
        self,
        case: Case,
        record: Record,
        names: Collection[str] | None = None,
        skip: Collection[str] = (),
    ) -> dict[str, CheckResult]:
        """Every profile check's result on ``record`` (or only ``names``' results), but those
        in ``skip``; a check that raises cannot be evaluated."""
        snapshot = self.sources.snapshot_for(case)
        trajectory, why = _trajectory(record)
        subject = CheckInput(
            case, record.outcome, snapshot, self.sources.why_missing(case), trajectory, why
        )
        results: dict[str, CheckResult] = {}
        for name, check in self.checks.items():
            if (names is not None and name not in names) or name in skip:
                continue
            try:
                result = check(subject)
            except Exception as err:  # a broken check must not pass or fail a case silently
                result = CheckResult.cannot(f"the check raised {type(err).__name__}: {err}")
            if not isinstance(result, CheckResult):
                result = CheckResult.cannot(f"the check returned {type(result).__name__}")
            results[name] = result
        return results

    def evaluate(
        self, case: Case, record: Record, given: Mapping[str, CheckResult] | None = None
    ) -> CompositeResult:
        """Run every check on ``record`` (but those ``given``, such as a model judge's
        verdict) and weigh the results."""
        given = given or {}
        results = {**self.run_checks(case, record, skip=given), **given}
        return self.combine(case.id, results, record.trial)

    def judgment(self, result: CompositeResult) -> Judgment:
        """The ``Judgment`` carrying a composite result: status, score, labels, and a reason
        that gives every failed check's own reason (``CompositeResult.detail``)."""
        status = VERDICT_STATUS[result.verdict]
        labels = [f"critical:{n}" for n in result.critical_failures]
        labels += [f"failed:{n}" for n in result.failed]
        if result.verdict != "ungraded":
            labels.append(f"strict:{result.strict_verdict}")
        return Judgment(
            case_id=result.case_id,
            trial=result.trial,
            status=status,
            reason=result.detail,
            grader=self.name,
            grader_version=self.version,
            score=result.score,
            labels=tuple(labels),
        )

    def grade(self, case: Case, record: Record) -> Judgment:
        """The ``Grader`` protocol: run the checks, weigh them, report the verdict."""
        return self.judgment(self.evaluate(case, record))
