"""What a check reads and what it says: ``CheckInput`` in, ``CheckResult`` out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from assay.cases import Case, Snapshot
from assay.outcomes import Abstain, Answer, Error, Trajectory

NO_TRAJECTORY = "no trajectory recorded (the target is not an agent)"


@dataclass(frozen=True)
class CheckInput:
    """One recorded outcome of one case, with the case's source snapshot (None if unknown)
    and the agent's trajectory behind the outcome (None when none was recorded; then
    ``missing_trajectory`` says why)."""

    case: Case
    outcome: Answer | Abstain | Error
    snapshot: Snapshot | None = None
    missing_snapshot: str = "no source snapshot"
    trajectory: Trajectory | None = None
    missing_trajectory: str = NO_TRAJECTORY


class CheckResult(BaseModel):
    """A check's verdict: ``passed`` True or False, or None when it could not be evaluated.

    ``reason`` is one line a person can act on, e.g. "expected 'custom_excluded' in the
    answer; not found". A None verdict makes the whole case ``ungraded``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    passed: bool | None
    reason: str

    @classmethod
    def ok(cls, reason: str) -> CheckResult:
        """A passed check."""
        return cls(passed=True, reason=reason)

    @classmethod
    def fail(cls, reason: str) -> CheckResult:
        """A failed check."""
        return cls(passed=False, reason=reason)

    @classmethod
    def cannot(cls, reason: str) -> CheckResult:
        """A check that could not be evaluated (the case becomes ungraded)."""
        return cls(passed=None, reason=f"cannot evaluate: {reason}")


@runtime_checkable
class Check(Protocol):
    """One named yes/no test of a recorded outcome: a pure function of a ``CheckInput``.

    Example (registered under the ``assay.checks`` entry-point group)::

        def mentions_policy(subject: CheckInput) -> CheckResult:
            \"\"\"Passes when the answer text contains the word "policy".\"\"\"
            text = getattr(subject.outcome, "text", None) or ""
            if "policy" in text.lower():
                return CheckResult.ok("mentions the policy")
            return CheckResult.fail("expected 'policy' in the answer; not found")
    """

    def __call__(self, subject: CheckInput, /) -> CheckResult: ...
