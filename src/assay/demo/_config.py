"""The demo's configurations: each one a version of the assistant with known faults.

``v1`` reproduces the seed's recorded outcomes for E1–E6; ``v2`` fixes context assembly,
the generation prompt and the defect lookup, and breaks nothing else (it still reports a
return as started whatever the tool said); ``v3`` fixes that too. The ``e2-*``
configurations are ``v3`` with one fault each, the three ways E2 can fail;
``tenant-leak`` is ``v3`` with the tenant filter switched off.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from assay.demo._policy import CURRENT_REVISION
from assay.errors import AssayConfigError, did_you_mean


class DemoConfig(BaseModel):
    """Every setting of the demo assistant (recorded with each run)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    description: str
    corpus_revision: str = CURRENT_REVISION
    tenant_filter: bool = True
    top_k: int = 3
    relative_cutoff: float = 0.4
    context_kinds: tuple[str, ...] = ("rule", "exception", "note")
    context_budget: int | None = None
    budget_by: str = "rank"  # rank | policy: which sections a budget keeps
    model: str = "policy-reader-1"
    prompt_version: str = "p2-context-only"
    answer_from_memory: bool = False
    honour_precedence: bool = True
    broken_lookups: tuple[str, ...] = ()
    tool_report: str = "authoritative"  # authoritative | optimistic


_V1 = DemoConfig(
    name="v1",
    description="First release: drops exception sections from the context, answers from "
    "memory when the context is silent, cannot fetch the defect section, and reports a "
    "return as started whatever the tool said.",
    context_kinds=("rule", "note"),
    prompt_version="p1-helpful",
    answer_from_memory=True,
    broken_lookups=("acme/defect-window",),
    tool_report="optimistic",
)
_V2 = _V1.model_copy(
    update={
        "name": "v2",
        "description": "Keeps exceptions in the context, answers only from the context and "
        "fetches the defect section; still reports a return as started whatever the tool said.",
        "context_kinds": ("rule", "exception", "note"),
        "prompt_version": "p2-context-only",
        "answer_from_memory": False,
        "broken_lookups": (),
    }
)
_V3 = _V2.model_copy(
    update={
        "name": "v3",
        "description": "v2 reporting the returns service's authoritative state.",
        "tool_report": "authoritative",
    }
)


def _variant(name: str, description: str, **changes: object) -> DemoConfig:
    return _V3.model_copy(update={"name": name, "description": description, **changes})


CONFIGURATIONS: dict[str, DemoConfig] = {
    c.name: c
    for c in (
        _V1,
        _V2,
        _V3,
        _variant(
            "e2-generation",
            "v3 with a prompt that answers from the first relevant section and ignores the "
            "policy's precedence: the context holds both sections, the answer is wrong.",
            prompt_version="p2-first-match",
            honour_precedence=False,
        ),
        _variant(
            "e2-context",
            "v3 with a one-section context budget applied in policy order instead of rank "
            "order: the exception is retrieved and selected but cut from the context.",
            context_budget=1,
            budget_by="policy",
        ),
        _variant(
            "e2-retrieval",
            "v3 searching a stale index built from returns-v2, which predates the "
            "custom-printed exception: retrieval never returns it.",
            corpus_revision="returns-v2",
        ),
        _variant(
            "tenant-leak",
            "v3 without the tenant filter: another tenant's sections can answer.",
            tenant_filter=False,
        ),
    )
}


def configuration(name: str) -> DemoConfig:
    """The named configuration; an unknown name is a config error with a suggestion."""
    try:
        return CONFIGURATIONS[name]
    except KeyError:
        names = list(CONFIGURATIONS)
        raise AssayConfigError(
            f"demo configuration {name!r} is unknown{did_you_mean(name, names)}; "
            f"choose one of {', '.join(names)}"
        ) from None
