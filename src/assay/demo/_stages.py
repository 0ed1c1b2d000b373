"""The assistant's retrieval and context-assembly stages, each recorded as its own span."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from opentelemetry.trace import Tracer

from assay.demo._bm25 import BM25, tokenize
from assay.demo._config import DemoConfig
from assay.demo._policy import CORPORA, Section, corpus
from assay.outcomes import span_names

FETCH_LATENCY_S = 0.002


@dataclass(frozen=True)
class Ranked:
    """A candidate section and its BM25 score."""

    section: Section
    score: float


def rank(question: str, sections: tuple[Section, ...]) -> list[Ranked]:
    """Sections with a positive BM25 score for the question, best first (ties: corpus order)."""
    index = BM25.index([tokenize(f"{s.title} {s.text}") for s in sections])
    scores = index.scores(tokenize(question))
    ranked = [Ranked(s, score) for s, score in zip(sections, scores, strict=True) if score > 0]
    return sorted(ranked, key=lambda r: -r.score)


def select(candidates: list[Ranked], config: DemoConfig) -> list[Ranked]:
    """At most ``top_k`` candidates scoring at least ``relative_cutoff`` of the best."""
    if not candidates:
        return []
    floor = candidates[0].score * config.relative_cutoff
    return [c for c in candidates if c.score >= floor][: config.top_k]


async def _fetch(section: Section, config: DemoConfig, tracer: Tracer) -> Section:
    with tracer.start_as_current_span("fetch_section") as span:
        span.set_attribute(span_names.STAGE, "retrieval")
        span.set_attribute(span_names.SECTION_ID, section.id)
        await asyncio.sleep(FETCH_LATENCY_S)
        if section.id in config.broken_lookups:
            raise LookupError(f"section {section.id} is not in the document store")
        return section


async def retrieve(question: str, tenant: str, config: DemoConfig, tracer: Tracer) -> list[Section]:
    """BM25 over the eligible corpus, then fetch the selected sections concurrently."""
    with tracer.start_as_current_span("retrieval") as span:
        eligible = corpus(config.corpus_revision, tenant if config.tenant_filter else None)
        candidates = rank(question, eligible)
        selected = select(candidates, config)
        span.set_attributes(
            {
                span_names.STAGE: "retrieval",
                span_names.RETRIEVAL_METHOD: "bm25",
                span_names.CORPUS_VERSION: config.corpus_revision,
                span_names.TENANT_ID: tenant,
                span_names.RETRIEVAL_TENANT_FILTER: config.tenant_filter,
                span_names.RETRIEVAL_CANDIDATE_IDS: [c.section.id for c in candidates],
                span_names.RETRIEVAL_CANDIDATE_SCORES: [round(c.score, 4) for c in candidates],
                span_names.RETRIEVAL_SELECTED_IDS: [c.section.id for c in selected],
                span_names.RETRIEVAL_TOP_K: config.top_k,
            }
        )
        fetched = await asyncio.gather(
            *(_fetch(c.section, config, tracer) for c in selected), return_exceptions=True
        )
        for item in fetched:
            if isinstance(item, BaseException):
                raise item
        return [s for s in fetched if isinstance(s, Section)]


def assemble(selected: list[Section], config: DemoConfig, tracer: Tracer) -> list[Section]:
    """The selected sections that enter the context, in policy order; each drop has a reason.

    A budget keeps the best-ranked sections (or, with ``budget_by="policy"``, the first
    ones in policy order); the kept ones are given in policy order, as a person reads them.
    """
    with tracer.start_as_current_span("context_assembly") as span:
        order = {s.id: i for i, s in enumerate(CORPORA[config.corpus_revision])}
        if config.budget_by == "policy":
            selected = sorted(selected, key=lambda s: order[s.id])
        kept: list[Section] = []
        dropped: list[str] = []
        for section in selected:
            if section.kind not in config.context_kinds:
                dropped.append(f"{section.id}: kind {section.kind!r} is not allowed in context")
            elif config.context_budget is not None and len(kept) >= config.context_budget:
                dropped.append(f"{section.id}: over the {config.context_budget}-section budget")
            else:
                kept.append(section)
        kept.sort(key=lambda s: order[s.id])
        span.set_attributes(
            {
                span_names.STAGE: "context_assembly",
                span_names.CONTEXT_SECTION_IDS: [s.id for s in kept],
                span_names.CONTEXT_DROPPED: dropped,
                span_names.CONTEXT_ALLOWED_KINDS: list(config.context_kinds),
            }
        )
        if config.context_budget is not None:
            span.set_attribute(span_names.CONTEXT_BUDGET, config.context_budget)
        return kept
