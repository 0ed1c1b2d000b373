"""Following a case's expected evidence through retrieval, context and generation spans."""

from __future__ import annotations

from typing import NamedTuple

from assay.cases import Case
from assay.diagnose._finding import Stage
from assay.diagnose._spans import Stages, strings, text
from assay.outcomes import Abstain, Answer, Error, Record, span_names


class Verdict(NamedTuple):
    """A rule's conclusion: the stage, the evidence, what to do next, the rule's name and,
    for an agent, the step of its trajectory behind it (numbered from 1)."""

    stage: Stage | None
    evidence: tuple[str, ...]
    next_step: str
    rule: str
    step: int | None = None


def got(record: Record) -> str:
    """The outcome in a few words: ``answer <fact>``, ``abstain`` or ``error <class>``."""
    outcome = record.outcome
    if isinstance(outcome, Answer):
        return f"answer {outcome.fact or repr((outcome.text or '')[:40])}"
    if isinstance(outcome, Abstain):
        return "abstain"
    assert isinstance(outcome, Error)
    return " ".join(p for p in ("error", outcome.error_class, outcome.message) if p)


def _expected(case: Case) -> list[str]:
    listed = case.metadata.get("evidence")
    if isinstance(listed, str):
        return [listed]
    return [str(e) for e in listed] if isinstance(listed, list) else []


def _model_line(stages: Stages) -> str | None:
    span = stages.last("generation")
    if span is None:
        return None
    model = text(span, span_names.GEN_AI_REQUEST_MODEL) or "unrecorded"
    prompt = text(span, span_names.PROMPT_VERSION) or "unrecorded"
    finish = ", ".join(strings(span, span_names.GEN_AI_RESPONSE_FINISH_REASONS)) or "unrecorded"
    return f"generation: model {model}, prompt {prompt}, finish reason {finish}"


def _ranked(candidates: list[str], scores: list[str], section: str) -> str:
    rank = candidates.index(section)
    score = f", score {scores[rank]}" if rank < len(scores) else ""
    return f"#{rank + 1} of {len(candidates)}{score}"


def evidence_chain(case: Case, record: Record, stages: Stages) -> Verdict | None:
    """Where the expected evidence was lost: retrieval, context assembly, or generation."""
    expected = _expected(case)
    retrieval = stages.first("retrieval")
    if case.expected_behavior != "answer" or not expected or retrieval is None:
        return None
    candidates = strings(retrieval, span_names.RETRIEVAL_CANDIDATE_IDS)
    scores = strings(retrieval, span_names.RETRIEVAL_CANDIDATE_SCORES)
    selected = strings(retrieval, span_names.RETRIEVAL_SELECTED_IDS)
    assembly = stages.last("context_assembly")
    context = strings(assembly, span_names.CONTEXT_SECTION_IDS) if assembly else selected
    head = f"expected answer {case.expected_fact}, got {got(record)}"
    if missing := [e for e in expected if e not in candidates]:
        evidence = [
            head,
            f"{', '.join(missing)} never appears among the "
            f"{len(candidates)} retrieval candidates: {', '.join(candidates) or 'none'}",
        ]
        corpus = text(retrieval, span_names.CORPUS_VERSION)
        if corpus and case.source_revision and corpus != case.source_revision:
            evidence.append(
                f"retrieval searched corpus {corpus}; the case is about "
                f"source revision {case.source_revision}"
            )
        return Verdict(
            "retrieval",
            tuple(evidence),
            "Check the index against the case's source revision (a stale or "
            "partial index), then the query and tokenization; reindex and rerun.",
            "evidence-chain",
        )
    if unselected := [e for e in expected if e not in selected]:
        ranks = "; ".join(f"{e} is candidate {_ranked(candidates, scores, e)}" for e in unselected)
        return Verdict(
            "retrieval",
            (head, f"{ranks}, but was not selected (selected: {', '.join(selected)})"),
            "Check the selection cut-off and top-k, or the ranking that put the "
            "evidence below them.",
            "evidence-chain",
        )
    if lost := [e for e in expected if e not in context]:
        dropped = strings(assembly, span_names.CONTEXT_DROPPED)
        reasons = [d for d in dropped if any(d.startswith(e) for e in lost)]
        evidence = [
            head,
            f"{', '.join(lost)} was retrieved and selected but is missing from "
            f"the context ({', '.join(context) or 'empty'})",
        ]
        evidence += [f"dropped by context assembly: {r}" for r in reasons]
        return Verdict(
            "context_assembly",
            tuple(evidence),
            "Fix context assembly so selected evidence reaches the model: check its "
            "filters, budget and ordering against the reason above.",
            "evidence-chain",
        )
    evidence = [
        head,
        f"{', '.join(expected)} is in the context ({', '.join(context)}), yet the answer is wrong",
    ]
    if isinstance(record.outcome, Answer) and record.outcome.citations:
        evidence.append(f"the answer cites {', '.join(record.outcome.citations)}")
    if line := _model_line(stages):
        evidence.append(line)
    return Verdict(
        "generation",
        tuple(evidence),
        "Inspect the prompt and the model's reading of this context: does it apply "
        "the policy's precedence (an exception over the rule it qualifies)? Rerun "
        "the case with the same context and a revised prompt.",
        "evidence-chain",
    )


def unsupported_answer(case: Case, record: Record, stages: Stages) -> Verdict | None:
    """An answer where the case expects an abstention: what, if anything, it rests on."""
    if case.expected_behavior != "abstain" or not isinstance(record.outcome, Answer):
        return None
    generation = stages.last("generation")
    assembly = stages.last("context_assembly")
    context = strings(assembly, span_names.CONTEXT_SECTION_IDS)
    cited = [*record.outcome.citations, *strings(generation, span_names.ANSWER_CITATIONS)]
    grounded = [c for c in dict.fromkeys(cited) if c in context]
    evidence = [f"the case expects an abstention; got {got(record)}"]
    if grounded:
        evidence.append(f"the answer cites {', '.join(grounded)} from the context")
        step = (
            "Check whether the cited section really states this fact; if it does, the "
            "case's label is wrong, otherwise tighten the prompt."
        )
    else:
        evidence.append(
            f"the answer cites no section of the context ({', '.join(context) or 'empty'})"
        )
        if source := text(generation, span_names.ANSWER_SOURCE):
            evidence.append(f"the answer's source is {source!r}")
        step = (
            "The prompt lets the model answer without evidence: require every answer to "
            "rest on a context section, and abstain otherwise."
        )
    if line := _model_line(stages):
        evidence.append(line)
    return Verdict("generation", tuple(evidence), step, "unsupported-answer")
