"""Reading a case-trial's spans: which span is which stage, and its attribute values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.outcomes import Span, span_names

_GENERATION_OPS = {"chat", "text_completion", "generate_content"}


def stage_of(span: Span) -> str | None:
    """The pipeline stage a span records: its ``assay.stage``, else what its name and GenAI
    operation say (``retrieval``, ``context_assembly``, ``generation``, ``tool_execution``)."""
    declared = span.attributes.get(span_names.STAGE)
    if isinstance(declared, str):
        return declared
    operation = span.attributes.get(span_names.GEN_AI_OPERATION_NAME)
    if operation == "execute_tool":
        return "tool_execution"
    if operation in _GENERATION_OPS:
        return "generation"
    if span.name in ("retrieval", "context_assembly"):
        return span.name
    return None


def strings(span: Span | None, key: str) -> list[str]:
    """A list attribute as strings (a scalar becomes a one-item list; absent: empty)."""
    if span is None or key not in span.attributes:
        return []
    value = span.attributes[key]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


def text(span: Span | None, key: str) -> str | None:
    if span is None or key not in span.attributes:
        return None
    return str(span.attributes[key])


@dataclass(frozen=True)
class Stages:
    """The stage spans of one case-trial, in start order."""

    spans: tuple[Span, ...]

    @classmethod
    def of(cls, spans: Sequence[Span]) -> Stages:
        return cls(tuple(sorted(spans, key=lambda s: (s.start_ns, s.span_id))))

    def all(self, stage: str) -> list[Span]:
        return [s for s in self.spans if stage_of(s) == stage and not self._is_child_fetch(s)]

    def first(self, stage: str) -> Span | None:
        found = self.all(stage)
        return found[0] if found else None

    def last(self, stage: str) -> Span | None:
        found = self.all(stage)
        return found[-1] if found else None

    def _is_child_fetch(self, span: Span) -> bool:
        # A span whose parent records the same stage is part of that stage, not the stage.
        parent = next((s for s in self.spans if s.span_id == span.parent_id), None)
        return parent is not None and stage_of(parent) == stage_of(span)

    def failed(self) -> list[Span]:
        """Spans with error status that record a stage, innermost first."""
        errored = [s for s in self.spans if s.status == "error" and stage_of(s) is not None]
        return sorted(errored, key=lambda s: -s.start_ns)
