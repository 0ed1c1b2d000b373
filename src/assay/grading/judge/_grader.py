"""The judge as a sans-I/O grader: ``prepare`` says what to ask, ``conclude`` turns the
reply into a judgment. Whoever holds the connection sends the request in between."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay._urls import HttpUrl
from assay.cases import Case, SourceLibrary, content_hash
from assay.grading._judgment import Judgment
from assay.grading._repeats import RepeatVerdict
from assay.grading.judge._calibration import CalibrationBounds
from assay.grading.judge._reply import Rejection, Verdict, parse_judge_reply
from assay.grading.judge._request import (
    PROMPT_VERSION,
    Candidate,
    JudgeConfig,
    build_judge_request,
    candidate_view,
)
from assay.grading.judge._rubric import JudgeRubric, rubric_for
from assay.outcomes import Abstain, Answer, Record

GRADER_VERSION = "1"


class JudgeEndpoint(BaseModel):
    """Where the judge model is and how to call it: an OpenAI-compatible base URL, the
    name of the environment variable holding its key (read by the caller, never stored),
    and the same concurrency, timeout, retry and rate settings as a target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    base_url: HttpUrl
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    concurrency: int = Field(default=4, ge=1, le=1000)
    timeout_s: float = Field(default=120.0, gt=0)
    retries: int = Field(default=2, ge=0, le=20)
    rpm: float | None = Field(default=None, gt=0)


@dataclass(frozen=True)
class JudgeCall:
    """One request to put to the judge model for one case-trial."""

    case_id: str
    trial: int
    body: dict[str, Any]
    rubric: JudgeRubric
    candidate: Candidate


@dataclass(frozen=True)
class JudgeAnswer:
    """What came back: the reply text, or the failure (``error``) after every retry."""

    text: str | None
    error: str | None = None
    attempts: int = 1
    input_tokens: int | None = None
    output_tokens: int | None = None


class JudgeGrader:
    """Grades free-text answers with a model against a rubric (see docs/judge.md).

    ``grade`` alone cannot call a model: it answers ``ungraded``. The runner, ``assay
    score --grader`` and ``assay regrade`` call ``prepare``, send the request, then
    ``conclude``.
    """

    name = "judge"

    def __init__(
        self,
        config: JudgeConfig,
        rubric: JudgeRubric | None = None,
        sources: SourceLibrary | None = None,
        endpoint: JudgeEndpoint | None = None,
        *,
        repeats: int = 1,
        verdict: RepeatVerdict = "first",
    ) -> None:
        self.config = config
        self.endpoint = endpoint
        self.repeats = repeats
        self.verdict: RepeatVerdict = verdict
        self.calibration: tuple[str, CalibrationBounds] | None = None
        self.rubric = rubric or JudgeRubric()
        self.sources = sources or SourceLibrary()
        self.version = f"{GRADER_VERSION}+{self.identity_hash()}"

    def repeated(self, repeats: int) -> JudgeGrader:
        """This judge, asking ``repeats`` times about each answer (same verdict rule)."""
        judge = JudgeGrader(
            self.config,
            self.rubric,
            self.sources,
            self.endpoint,
            repeats=repeats,
            verdict=self.verdict,
        )
        judge.calibration = self.calibration
        return judge

    def identity(self) -> dict[str, Any]:
        """What the judgment depends on: grader, prompt and rubric versions, judge model
        (and, when the verdict is the majority of several repeats, their number)."""
        found: dict[str, Any] = {
            "grader_version": GRADER_VERSION,
            "prompt_version": PROMPT_VERSION,
            "rubric_version": self.rubric.version,
            "judge_model": self.config.model,
            "temperature": self.config.temperature,
            "seed": self.config.seed,
            "response_mode": self.config.response_mode,
            "max_candidate_chars": self.config.max_candidate_chars,
        }
        if self.verdict == "majority" and self.repeats > 1:
            found |= {"verdict": "majority", "repeats": self.repeats}
        return found

    def identity_hash(self) -> str:
        return content_hash(self.identity()).split(":")[-1][:10]

    def _judgment(self, case: Case, trial: int, status: Any, reason: str, **more: Any) -> Judgment:
        labels = (
            f"judge_model={self.config.model}",
            f"prompt_version={PROMPT_VERSION}",
            f"pass_minimum={self.rubric.pass_minimum}",
            *more.pop("labels", ()),
        )
        return Judgment(
            case_id=case.id,
            trial=trial,
            status=status,
            reason=reason,
            grader=self.name,
            grader_version=self.version,
            labels=labels,
            **more,
        )

    def prepare(self, case: Case, record: Record, nonce: str) -> JudgeCall | Judgment:
        """The request for ``record``, or the judgment when no call is needed: an
        abstention is judged by the case's label, an answer without text is ungraded."""
        outcome = record.outcome
        rubric = rubric_for(case, self.rubric)
        if isinstance(outcome, Abstain):
            ok = case.expected_behavior == "abstain"
            reason = "abstained, as expected" if ok else "abstained; an answer was expected"
            return self._judgment(
                case, record.trial, "passed" if ok else "failed", reason, score=2.0 if ok else 0.0
            )
        if not isinstance(outcome, Answer) or not (outcome.text or "").strip():
            return self._judgment(
                case, record.trial, "ungraded", "the answer has no text for the judge to read"
            )
        view = candidate_view(
            outcome.text or "", outcome.citations, self.config.max_candidate_chars
        )
        snapshot = self.sources.snapshot_for(case)
        body = build_judge_request(case, rubric, view, snapshot, self.config, nonce)
        return JudgeCall(case.id, record.trial, body, rubric, view)

    def conclude(self, case: Case, call: JudgeCall, answer: JudgeAnswer) -> Judgment:
        """The judgment from the judge's ``answer`` to ``call``: passed or failed by the
        score against the rubric's minimum, or ungraded with the reason."""
        labels = [f"rubric_version={call.rubric.version}"]
        if call.candidate.truncated:
            labels.append(
                f"candidate_truncated={len(call.candidate.text)}/{call.candidate.original_chars}"
            )
        if answer.input_tokens is not None:
            labels.append(f"judge_input_tokens={answer.input_tokens}")
        if answer.output_tokens is not None:
            labels.append(f"judge_output_tokens={answer.output_tokens}")
        if answer.attempts > 1:
            labels.append(f"judge_attempts={answer.attempts}")
        if answer.text is None:
            reason = f"the judge call failed: {answer.error or 'no reply'}"
            return self._judgment(case, call.trial, "ungraded", reason, labels=labels)
        parsed = parse_judge_reply(answer.text, call.rubric, call.candidate.text)
        if isinstance(parsed, Rejection):
            labels.append(f"rejected={parsed.kind}")
            if parsed.claimed_score is not None:
                labels.append(f"claimed_score={parsed.claimed_score}")
            return self._judgment(case, call.trial, "ungraded", parsed.reason, labels=labels)
        return self._verdict(case, call, parsed, labels)

    def _verdict(
        self, case: Case, call: JudgeCall, verdict: Verdict, labels: list[str]
    ) -> Judgment:
        labels.append(f"judge_score={verdict.score}")
        for key, value in (
            ("grounded", verdict.grounded),
            ("citations_supported", verdict.citations_supported),
        ):
            if value is not None:
                labels.append(f"{key}={'yes' if value else 'no'}")
        passed = verdict.score >= call.rubric.pass_minimum
        cut = " (answer truncated for the judge)" if call.candidate.truncated else ""
        reason = f"judge score {verdict.score}/2{cut}: {' '.join(verdict.rationale.split())}"
        return self._judgment(
            case,
            call.trial,
            "passed" if passed else "failed",
            reason,
            score=float(verdict.score),
            labels=labels,
        )

    def grade(self, case: Case, record: Record) -> Judgment:
        prepared = self.prepare(case, record, "0" * 16)
        if isinstance(prepared, Judgment):
            return prepared
        return self._judgment(
            case, record.trial, "ungraded", "the judge model was not called for this answer"
        )
