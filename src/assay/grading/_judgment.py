"""Judgments: the status a grader gives one case-trial, with its reason and provenance."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import ConfigDict

from assay._fast.shared_fields import CompactModel
from assay.cases import Case
from assay.outcomes import Record

Status = Literal["passed", "failed", "error", "missing", "ungraded"]
"""A case-trial's one status: passed, failed, error, missing or ungraded."""
STATUSES: tuple[Status, ...] = ("passed", "failed", "error", "missing", "ungraded")


class Judgment(CompactModel):
    """What a grader decided about one record.

    ``status`` is exactly one of passed, failed, error, missing or ungraded; ``reason`` is
    one line a person can act on; ``grader`` and ``grader_version`` make it reproducible.
    A grader that cannot judge returns ``ungraded`` with the reason, never a default score.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_id: str
    trial: int = 1
    status: Status
    reason: str
    grader: str
    grader_version: str
    score: float | None = None
    labels: tuple[str, ...] = ()


@runtime_checkable
class Grader(Protocol):
    """Turns a recorded outcome into a ``Judgment``.

    Example::

        class ExactFact:
            name = "exact-fact"
            version = "1"

            def grade(self, case: Case, record: Record) -> Judgment:
                ok = getattr(record.outcome, "fact", None) == case.expected_fact
                return Judgment(case_id=case.id, trial=record.trial,
                                status="passed" if ok else "failed",
                                reason="fact matches" if ok else "fact differs",
                                grader=self.name, grader_version=self.version)

    ``grade`` is only called for answers and abstentions: errors and missing outcomes get
    their status without a grader.
    """

    name: str
    version: str

    def grade(self, case: Case, record: Record) -> Judgment:
        """The judgment of ``record`` (an answer or an abstention) against ``case``."""
        ...


@runtime_checkable
class CallingGrader(Grader, Protocol):
    """A grader that needs a model call, written sans-I/O: ``prepare`` says what to send
    (or returns the judgment when no call is needed), whoever holds the connection sends
    it, and ``conclude`` turns what came back into the judgment. ``endpoint`` says where
    to send it (None: nowhere, and ``grade`` answers ``ungraded``).

    ``assay.grading.judge.JudgeGrader`` is one; the runner, ``assay score --grader`` and
    ``assay regrade`` drive any such grader through ``assay.runner.JudgeRunner``.
    """

    endpoint: Any

    def prepare(self, case: Case, record: Record, nonce: str) -> Any:
        """The call to send for ``record`` (``nonce`` marks this request), or the
        ``Judgment`` itself when no call is needed."""
        ...

    def conclude(self, case: Case, call: Any, answer: Any) -> Judgment:
        """The judgment from what came back (``answer``) for the prepared ``call``."""
        ...
