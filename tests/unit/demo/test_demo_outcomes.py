"""The demo assistant's outcomes per configuration, and the spans each stage records."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from assay.cases import Case
from assay.demo import CONFIGURATIONS, DemoTarget, configuration
from assay.errors import AssayConfigError
from assay.load import load_dataset
from assay.outcomes import Answer, Outcome, Span
from assay.targets import Target, TargetContext
from assay.tracing import start_tracing

DATASET = Path(__file__).resolve().parents[3] / "examples" / "demo" / "policy-demo.jsonl"
CASES = {c.id: c for c in load_dataset(DATASET)}


def outcome_of(config: str, case_id: str) -> Outcome:
    reply = asyncio.run(DemoTarget(config).run(CASES[case_id], TargetContext(run_id="t")))
    return reply.outcome


def short(outcome: Outcome) -> str:
    return f"answer {outcome.fact}" if isinstance(outcome, Answer) else outcome.kind


def passes(case: Case, outcome: Outcome) -> bool:
    if case.expected_behavior == "abstain":
        return outcome.kind == "abstain"
    return isinstance(outcome, Answer) and outcome.fact in case.facts


def failing(config: str) -> set[str]:
    return {cid for cid, case in CASES.items() if not passes(case, outcome_of(config, cid))}


def test_v1_reproduces_the_seeds_recorded_outcomes() -> None:
    recorded = {
        "E1": "answer return_window_30_days",
        "E2": "answer return_window_30_days",
        "E3": "abstain",
        "E4": "answer shipping_fee_10",
        "E5": "error",
        "E6": "abstain",
    }
    assert {cid: short(outcome_of("v1", cid)) for cid in recorded} == recorded


def test_v1_error_names_the_defect_lookup() -> None:
    outcome = outcome_of("v1", "E5")
    assert outcome.kind == "error"
    assert outcome.error_class == "exception:LookupError"
    assert (outcome.message or "").startswith("defect policy lookup failed")


def test_the_dataset_covers_six_slices_with_several_cases_each() -> None:
    slices: dict[str, int] = {}
    for case in CASES.values():
        slices[case.slice] = slices.get(case.slice, 0) + 1
    assert set(slices) == {"standard", "exception", "missing", "conflicting", "access", "tool"}
    assert min(slices.values()) >= 3


def test_v2_fixes_some_and_breaks_nothing() -> None:
    v1, v2 = failing("v1"), failing("v2")
    assert v2 < v1
    assert v2 == {"T2", "T3", "T4"}


def test_v3_passes_every_case() -> None:
    assert failing("v3") == set()


@pytest.mark.parametrize(
    ("config", "broken"),
    [
        ("e2-generation", {"E2", "C1", "C2", "C3"}),
        ("e2-context", {"E2", "C1", "C2", "C3"}),
        ("e2-retrieval", {"E2", "E6", "X2"}),
        ("tenant-leak", {"E4", "M2", "A1", "A3"}),
    ],
)
def test_each_variant_breaks_only_what_its_fault_reaches(config: str, broken: set[str]) -> None:
    assert failing(config) == broken


def test_e2_variants_all_answer_the_standard_window() -> None:
    for config in ("e2-generation", "e2-context", "e2-retrieval"):
        assert short(outcome_of(config, "E2")) == "answer return_window_30_days"


def test_the_assistant_is_deterministic() -> None:
    assert [outcome_of("v1", cid) for cid in CASES] == [outcome_of("v1", cid) for cid in CASES]


def test_unknown_configuration_suggests_the_closest() -> None:
    with pytest.raises(AssayConfigError, match='did you mean "v2"'):
        configuration("v22")


def test_the_target_records_its_configuration() -> None:
    target = DemoTarget("e2-context")
    assert isinstance(target, Target)
    config = target.config()
    assert config["type"] == "demo"
    assert config["config"] == "e2-context"
    assert config["context_budget"] == 1
    assert set(CONFIGURATIONS) >= {"v1", "v2", "e2-generation", "e2-context", "e2-retrieval"}


class Sink:
    def __init__(self) -> None:
        self.spans: list[Span] = []

    def add_spans(self, run_id: str, spans: Sequence[Span]) -> None:
        self.spans.extend(spans)


def traced(config: str, case_id: str) -> list[Span]:
    sink = Sink()
    session = start_tracing(sink, "run-1")

    async def run() -> None:
        attributes = {"assay.case.id": case_id, "assay.trial": 1}
        with session.tracer.start_as_current_span("assay.request", attributes=attributes):
            ctx = TargetContext(run_id="run-1", tracer=session.tracer)
            await DemoTarget(config).run(CASES[case_id], ctx)

    asyncio.run(run())
    session.close()
    return sink.spans


def test_every_stage_is_a_child_span_with_its_fields() -> None:
    spans = {s.name: s for s in traced("v3", "E2")}
    root = spans["assay.request"]
    for name in ("retrieval", "context_assembly", "chat policy-reader-1"):
        assert spans[name].parent_id == root.span_id
        assert spans[name].case_id == "E2"
    retrieval = spans["retrieval"].attributes
    assert retrieval["assay.corpus.version"] == "returns-v3"
    assert retrieval["assay.retrieval.selected_ids"] == [
        "acme/custom-exception",
        "acme/standard-window",
    ]
    assert len(retrieval["assay.retrieval.candidate_scores"]) == len(
        retrieval["assay.retrieval.candidate_ids"]
    )
    generation = spans["chat policy-reader-1"].attributes
    assert generation["gen_ai.request.model"] == "policy-reader-1"
    assert generation["assay.prompt.version"] == "p2-context-only"
    assert generation["gen_ai.response.finish_reasons"] == ["stop"]
    assert generation["gen_ai.usage.input_tokens"] > 0


def test_selected_sections_are_fetched_concurrently() -> None:
    fetches = [s for s in traced("v3", "E2") if s.name == "fetch_section"]
    assert len(fetches) == 2
    first, second = fetches
    assert first.start_ns < second.end_ns and second.start_ns < first.end_ns


def test_the_tool_span_records_the_authoritative_state() -> None:
    tool = next(s for s in traced("v1", "T2") if s.name == "execute_tool start_return")
    assert tool.status == "error"
    assert tool.attributes["gen_ai.tool.name"] == "start_return"
    assert tool.attributes["assay.tool.status"] == "error"
    assert tool.attributes["assay.tool.result.fact"] == "return_not_started"
    assert str(tool.attributes["assay.tool.args_hash"]).startswith("sha256:")
    assert "A1002" not in str(tool.attributes)
