"""A third-party calling grader as a user would write it, in one file made available to suites
by one entry-point line (see tests/unit/test_calling_plugin.py and docs/extending.md): it asks
a chat model whether an answer states the case's expected fact. It does no I/O: ``prepare``
says what to send, assay's runner sends it, ``conclude`` reads what came back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.grading import GraderType, Judgment
from assay.grading.judge import JudgeAnswer, JudgeEndpoint
from assay.outcomes import Abstain, Answer, Record


class YesNoSettings(BaseModel):
    """``grader: {type: yes_no, base_url: ..., model: ...}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str
    model: str
    timeout_s: float = 30.0
    retries: int = 1


@dataclass(frozen=True)
class YesNoCall:
    """What to send for one case-trial: ``body`` is posted to ``{base_url}/chat/completions``."""

    trial: int
    body: dict[str, Any]


class YesNoGrader:
    name = "yes_no"
    version = "1"

    def __init__(self, settings: YesNoSettings) -> None:
        self.settings = settings
        self.endpoint = JudgeEndpoint(
            base_url=settings.base_url, timeout_s=settings.timeout_s, retries=settings.retries
        )

    def _judgment(self, case: Case, trial: int, status: Any, reason: str) -> Judgment:
        return Judgment(
            case_id=case.id,
            trial=trial,
            status=status,
            reason=reason,
            grader=self.name,
            grader_version=self.version,
        )

    def prepare(self, case: Case, record: Record, nonce: str) -> YesNoCall | Judgment:
        outcome = record.outcome
        if isinstance(outcome, Abstain):  # no call needed
            ok = case.expected_behavior == "abstain"
            return self._judgment(case, record.trial, "passed" if ok else "failed", "abstained")
        if not isinstance(outcome, Answer) or not outcome.text or case.expected_fact is None:
            return self._judgment(case, record.trial, "ungraded", "nothing to ask the model")
        question = (
            f"Does this answer state the fact {case.expected_fact!r}? "
            f"Reply with one word, yes or no.\n\nAnswer: {outcome.text}"
        )
        body = {"model": self.settings.model, "messages": [{"role": "user", "content": question}]}
        return YesNoCall(record.trial, body)

    def conclude(self, case: Case, call: YesNoCall, answer: JudgeAnswer) -> Judgment:
        if answer.text is None:  # the call failed after every retry: never a score
            return self._judgment(
                case, call.trial, "ungraded", f"the model call failed: {answer.error}"
            )
        word = answer.text.strip().strip(".!").lower()
        if word in ("yes", "no"):
            status = "passed" if word == "yes" else "failed"
            return self._judgment(case, call.trial, status, f"the model said {word}")
        return self._judgment(
            case, call.trial, "ungraded", f"unreadable reply: {answer.text[:80]!r}"
        )

    def grade(self, case: Case, record: Record) -> Judgment:
        prepared = self.prepare(case, record, "")
        if isinstance(prepared, Judgment):
            return prepared
        return self._judgment(case, record.trial, "ungraded", "the model was not called")


def _build(settings: YesNoSettings, base_dir: Path) -> YesNoGrader:
    return YesNoGrader(settings)


YES_NO = GraderType(YesNoSettings, _build)
