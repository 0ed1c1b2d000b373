"""A case: one question put to the system under test, with its label and rationale."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from assay._fast.shared_fields import CompactModel
from assay.cases._expect import Expectation, check_kinds
from assay.cases._rubric import DisallowedClaim, Provenance, RequiredFact

ExpectedBehavior = Literal["answer", "abstain"]
Split = Literal["dev", "heldout"]


class Message(CompactModel):
    """One chat message of a case given as a conversation instead of a single question."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    role: Literal["system", "user", "assistant", "tool"]
    content: str


class Case(CompactModel):
    """One labelled case of a dataset.

    A case expects either an answer carrying ``expected_fact`` (or one of the explicitly
    ``accepted_facts``) or an abstention, which takes no fact. Unknown fields are rejected:
    free data belongs under ``metadata``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str = Field(min_length=1)
    slice: str = Field(min_length=1)
    question: str | None = None
    messages: tuple[Message, ...] | None = None
    source_revision: str | None = None
    expected_behavior: ExpectedBehavior
    expected_fact: str | None = None
    accepted_facts: tuple[str, ...] = ()
    rationale: str | None = None
    synthetic: bool = False
    split: Split = "dev"
    group: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # Rubric for free-text checks (all optional; see docs/composite.md). Left unset, they
    # stay out of the canonical record, so datasets without a rubric keep their version.
    required: tuple[RequiredFact, ...] = ()
    disallowed: tuple[DisallowedClaim, ...] = ()
    requires_citation: bool = False
    sources: dict[str, str] | None = None
    provenance: Provenance | None = None
    # For agents (see docs/agents.md): the state the case starts from, which the tools
    # receive as a fresh copy for each case-trial, and what the final state and the path
    # must show (docs/agent-checks.md). Left unset, they stay out of the canonical record too.
    state: dict[str, Any] | None = None
    expect: tuple[Expectation, ...] = ()

    @field_validator("expect", mode="before")
    @classmethod
    def _known_kinds(cls, value: Any) -> Any:
        return check_kinds(value)

    @model_validator(mode="after")
    def _labels_agree(self) -> Case:
        if self.question is None and not self.messages:
            raise ValueError("a case needs a question (or messages)")
        if self.expected_behavior == "answer" and not self.expected_fact:
            raise ValueError('expected_fact is required when expected_behavior is "answer"')
        if self.expected_behavior == "abstain" and self.expected_fact is not None:
            raise ValueError('expected_fact must be null when expected_behavior is "abstain"')
        if self.expected_behavior == "abstain" and self.accepted_facts:
            raise ValueError('accepted_facts must be empty when expected_behavior is "abstain"')
        if self.provenance is not None and not self.synthetic:
            raise ValueError("a case with provenance is derived from another: set synthetic: true")
        return self

    @property
    def facts(self) -> frozenset[str]:
        """Every fact that counts as correct: the expected fact and the accepted alternatives."""
        found = set(self.accepted_facts)
        if self.expected_fact is not None:
            found.add(self.expected_fact)
        return frozenset(found)

    @property
    def prompt(self) -> str:
        """The question, or the last user message of a conversation."""
        if self.question is not None:
            return self.question
        users = [m.content for m in self.messages or () if m.role == "user"]
        return users[-1] if users else ""
