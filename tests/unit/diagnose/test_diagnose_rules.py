"""The diagnosis rules on hand-built span lists: each rule, and the three E2 variants."""

from __future__ import annotations

from typing import Any

from assay.cases import Case
from assay.diagnose import Finding, diagnose, group_by_stage
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Error, Outcome, Record, Span

E2 = Case(
    id="E2",
    slice="exception",
    question="Can a custom-printed product use the standard return window?",
    source_revision="returns-v3",
    expected_behavior="answer",
    expected_fact="custom_excluded",
    metadata={"tenant": "acme", "evidence": ["acme/custom-exception"]},
)
E4 = Case(id="E4", slice="missing", question="How much is shipping?", expected_behavior="abstain")
T2 = Case(
    id="T2",
    slice="tool",
    question="Start a return for order A1002.",
    expected_behavior="answer",
    expected_fact="return_not_started",
)
STANDARD, EXCEPTION = "acme/standard-window", "acme/custom-exception"
_clock = iter(range(1, 10_000))


def span(name: str, stage: str | None = None, status: str = "unset", **attributes: Any) -> Span:
    start = next(_clock) * 1000
    if stage is not None:
        attributes["assay.stage"] = stage
    return Span(
        trace_id="t" * 32,
        span_id=f"{start:016x}",
        parent_id="root",
        name=name,
        start_ns=start,
        end_ns=start + 500,
        status=status,  # type: ignore[arg-type]
        status_message="LookupError: gone" if status == "error" else None,
        attributes=attributes,
        case_id="E2",
    )


def retrieval(candidates: list[str], selected: list[str], corpus: str = "returns-v3") -> Span:
    return span(
        "retrieval",
        "retrieval",
        **{
            "assay.retrieval.candidate_ids": candidates,
            "assay.retrieval.candidate_scores": [5.4, 3.3][: len(candidates)],
            "assay.retrieval.selected_ids": selected,
            "assay.corpus.version": corpus,
            "assay.tenant.id": "acme",
        },
    )


def context(kept: list[str], dropped: list[str] = ()) -> Span:  # type: ignore[assignment]
    attributes = {"assay.context.section_ids": kept, "assay.context.dropped": list(dropped)}
    return span("context_assembly", "context_assembly", **attributes)


def chat(**attributes: Any) -> Span:
    base = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "policy-reader-1",
        "assay.prompt.version": "p2-first-match",
        "gen_ai.response.finish_reasons": ["stop"],
    }
    return span("chat policy-reader-1", None, **base, **attributes)


def judged(case: Case, outcome: Outcome, spans: list[Span], status: str = "failed") -> Finding:
    record = Record(case_id=case.id, outcome=outcome)
    judgment = Judgment(
        case_id=case.id,
        status=status,
        reason="r",
        grader="structured",
        grader_version="1",  # type: ignore[arg-type]
    )
    return diagnose(case, record, judgment, spans)


WRONG = Answer(fact="return_window_30_days", citations=(STANDARD,))


def test_e2_context_keeps_both_yet_the_answer_is_wrong_implicates_generation() -> None:
    spans = [
        retrieval([EXCEPTION, STANDARD], [EXCEPTION, STANDARD]),
        context([STANDARD, EXCEPTION]),
        chat(),
    ]
    finding = judged(E2, WRONG, spans)
    assert finding.stage == "generation"
    assert any("is in the context" in e for e in finding.evidence)
    assert any("prompt p2-first-match" in e for e in finding.evidence)


def test_e2_context_omits_the_exception_implicates_context_assembly() -> None:
    reason = f"{EXCEPTION}: over the 1-section budget"
    spans = [
        retrieval([EXCEPTION, STANDARD], [EXCEPTION, STANDARD]),
        context([STANDARD], [reason]),
        chat(),
    ]
    finding = judged(E2, WRONG, spans)
    assert finding.stage == "context_assembly"
    assert f"dropped by context assembly: {reason}" in finding.evidence


def test_e2_retrieval_never_returns_the_exception_implicates_retrieval() -> None:
    spans = [retrieval([STANDARD], [STANDARD], corpus="returns-v2"), context([STANDARD]), chat()]
    finding = judged(E2, WRONG, spans)
    assert finding.stage == "retrieval"
    assert any("never appears among the 1 retrieval candidates" in e for e in finding.evidence)
    assert any("corpus returns-v2" in e and "returns-v3" in e for e in finding.evidence)


def test_a_candidate_below_the_cut_off_is_a_retrieval_finding() -> None:
    spans = [retrieval([STANDARD, EXCEPTION], [STANDARD]), context([STANDARD]), chat()]
    finding = judged(E2, Abstain(), spans)
    assert finding.stage == "retrieval"
    assert any("candidate #2 of 2, score 3.3" in e for e in finding.evidence)


def test_without_a_context_span_the_selection_is_the_context() -> None:
    finding = judged(E2, WRONG, [retrieval([EXCEPTION], [EXCEPTION]), chat()])
    assert finding.stage == "generation"


def test_an_answer_citing_another_tenant_is_an_access_boundary_finding() -> None:
    leaked = Answer(fact="shipping_fee_10", citations=("globex/shipping-fee",))
    spans = [
        retrieval(["globex/shipping-fee"], ["globex/shipping-fee"]),
        context(["globex/shipping-fee"]),
        chat(),
    ]
    finding = judged(E4, leaked, spans)
    assert finding.stage == "access_boundary"
    assert finding.evidence[0] == "outcome: answer shipping_fee_10"
    assert "tenant globex" in finding.evidence[1] and "tenant acme" in finding.evidence[1]


def test_a_citation_in_the_generation_span_counts_too() -> None:
    spans = [retrieval([], []), chat(**{"assay.answer.citations": ["globex/shipping-fee"]})]
    finding = judged(E4, Answer(fact="shipping_fee_10"), spans)
    assert finding.stage == "access_boundary"


def test_an_answer_with_no_supporting_section_is_a_generation_finding() -> None:
    spans = [
        retrieval([STANDARD], [STANDARD]),
        context([STANDARD]),
        chat(**{"assay.answer.source": "memory"}),
    ]
    finding = judged(E4, Answer(fact="shipping_fee_10"), spans)
    assert finding.stage == "generation"
    assert finding.rule == "unsupported-answer"
    assert "the answer's source is 'memory'" in finding.evidence


def tool(status: str, fact: str) -> Span:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "start_return",
        "assay.tool.status": status,
        "assay.tool.args_hash": "sha256:abcd",
        "assay.tool.result.fact": fact,
    }
    return span(
        "execute_tool start_return", None, "error" if status == "error" else "unset", **attributes
    )


def test_claiming_success_after_a_failed_tool_is_a_tool_handling_finding() -> None:
    finding = judged(
        T2, Answer(fact="return_started"), [chat(), tool("error", "return_not_started"), chat()]
    )
    assert finding.stage == "tool_handling"
    assert "ended error" in finding.evidence[0]
    assert "return_not_started" in finding.evidence[1]


def test_reporting_the_authoritative_state_after_a_failure_is_not_blamed_on_the_tool() -> None:
    finding = judged(
        T2, Answer(fact="return_not_started"), [tool("error", "return_not_started")], "passed"
    )
    assert finding.stage is None and finding.status == "passed"


def test_an_error_outcome_points_at_the_failed_span() -> None:
    fetch = span(
        "fetch_section", "retrieval", "error", **{"assay.section.id": "acme/defect-window"}
    )
    outcome = Error(error_class="exception:LookupError", message="defect policy lookup failed")
    finding = judged(E2, outcome, [retrieval([], []), fetch], status="error")
    assert finding.stage == "retrieval"
    assert finding.status == "error"
    assert "while fetching section acme/defect-window" in finding.evidence


def test_missing_passed_and_untraced_cases_name_no_stage() -> None:
    missing = diagnose(E2, None, None, [])
    assert (missing.status, missing.stage, missing.rule) == ("missing", None, "missing")
    untraced = judged(E2, WRONG, [])
    assert (untraced.stage, untraced.rule) == (None, "no-spans")
    unknown = judged(
        Case(id="Z", slice="s", question="q", expected_behavior="answer", expected_fact="f"),
        WRONG,
        [chat()],
    )
    assert (unknown.stage, unknown.rule) == (None, "undetermined")


def test_the_json_contract_has_exactly_the_documented_keys() -> None:
    finding = judged(E2, WRONG, [retrieval([STANDARD], [STANDARD])])
    assert list(finding.contract()) == ["case", "status", "stage", "evidence", "next_step"]


def test_findings_group_by_stage_in_pipeline_order() -> None:
    a = judged(E2, WRONG, [retrieval([STANDARD], [STANDARD])])
    b = judged(T2, Answer(fact="return_started"), [tool("error", "return_not_started")])
    c = judged(E2, WRONG, [])
    ok = judged(E2, Answer(fact="custom_excluded"), [], status="passed")
    groups = group_by_stage([b, c, ok, a])
    assert list(groups) == ["retrieval", "tool_handling", None]
    assert groups["retrieval"] == [a]
