"""What the system under test produced for one case and trial.

An outcome is an ``Answer`` (a fact key and/or free text, with citations), an ``Abstain``
or an ``Error``. A missing outcome is the absence of a record, never a fabricated one.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from assay._fast.shared_fields import CompactModel


class Answer(CompactModel):
    """A substantive answer: a structured ``fact`` key and/or free ``text``, with citations."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["answer"] = "answer"
    fact: str | None = None
    text: str | None = None
    citations: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _has_content(self) -> Answer:
        if self.fact is None and self.text is None:
            raise ValueError("an answer requires fact (or text, for free-text grading)")
        return self


class Abstain(CompactModel):
    """The system declined to answer, optionally saying why."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["abstain"] = "abstain"
    reason: str | None = None
    text: str | None = None


class Error(CompactModel):
    """The system under test failed to produce an outcome.

    ``error_class`` is a short machine-readable class (``timeout``, ``http_429``,
    ``http_5xx``, ``parse_error``, ``exception:<Type>``); ``raw`` keeps an unparsable reply.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["error"] = "error"
    error_class: str | None = None
    message: str | None = None
    raw: str | None = None


Outcome = Annotated[Answer | Abstain | Error, Field(discriminator="kind")]
"""What a system did for one case-trial: an ``Answer``, an ``Abstain`` or an ``Error``,
told apart by ``kind``."""
OUTCOME_ADAPTER: TypeAdapter[Outcome] = TypeAdapter(Outcome, config=ConfigDict(defer_build=True))
"""Validates any outcome: one adapter for the process, built when first used."""
OutcomeKind = Literal["answer", "abstain", "error"]
