"""What an agent did, in every format: the counts in the text, Markdown, HTML and JSON
reports, the trajectory step by step in the HTML drawer's data and ``assay trace``,
diagnose naming the step, and compare naming where two trajectories part."""

from __future__ import annotations

import json
import re

from tests.agent_runs import (
    CASES,
    XSS,
    Verdicts,
    agent_report,
    base_records,
    fixed_records,
    refund_failed,
)

from assay.compare import RunSide, compare_runs
from assay.diagnose import TraceView, diagnose
from assay.render import render
from assay.render.html import render_html

TOTAL = "11 steps · 5 tool calls · 1 tool error · 2 malformed calls over 2 case-trials"


def _embedded(html: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="assay-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_text_and_markdown_state_the_totals_per_slice_and_per_case_trial() -> None:
    report = agent_report()
    for fmt in ("text", "markdown"):
        shown = render(report, fmt)
        assert TOTAL + " (1 stopped at the step limit)" in shown
        assert "refunds: 5 steps · 2 tool calls · 1 tool error · 0 malformed calls" in shown
        assert "orders: 6 steps · 3 tool calls · 0 tool errors · 2 malformed calls" in shown
    markdown = render(report, "markdown")
    assert "| refund | refunds | failed | 5 | 2 | 1 | 0 | answered |" in markdown
    assert "| status | orders | failed | 6 | 3 | 0 | 2 | step_limit |" in markdown
    assert "| plain |" not in markdown.split("Agent steps per case-trial")[1].split("Slices")[0]


def test_json_has_the_section_and_each_row_s_counts_and_trajectory() -> None:
    data = json.loads(render(agent_report(), "json"))
    assert data["agent"]["tool_errors"] == 1 and data["agent"]["malformed_calls"] == 2
    assert data["agent"]["slices"]["orders"]["step_limit"] == 1
    rows = {row["id"]: row for row in data["cases"]}
    assert rows["refund"]["agent"]["steps"] == 5
    assert rows["refund"]["trajectory"]["steps"][3]["error"] == "payment service unavailable"
    assert "agent" not in rows["plain"] and "trajectory" not in rows["plain"]


def test_junit_states_the_totals_as_suite_properties() -> None:
    xml = render(agent_report(), "junit")
    assert '<property name="agent.tool_errors" value="1" />' in xml
    assert '<property name="agent.malformed_calls" value="2" />' in xml
    assert '<property name="agent.step_limit" value="1" />' in xml
    assert f'<property name="agent.counts" value="{TOTAL} (1 stopped at the step limit)" />' in xml


def test_html_shows_the_counts_and_embeds_the_trajectory_escaped() -> None:
    html = render_html(agent_report())
    assert 'id="agents"' in html and TOTAL in html
    assert XSS not in html and "alert('tool')" in html  # only inside the escaped JSON
    assert html.count("<script") == 2  # the JSON data block and the page's own script
    rows = {row["id"]: row for row in _embedded(html)["cases"]}  # type: ignore[attr-defined]
    assert rows["refund"]["trajectory"]["steps"][1]["result"]["note"] == XSS
    assert rows["refund"]["agent"]["tool_errors"] == 1


def test_a_report_without_trajectories_shows_no_agent_section(report: object) -> None:
    assert 'id="agents"' not in render_html(report)  # type: ignore[arg-type]


def test_trace_prints_each_step_with_arguments_results_errors_and_state() -> None:
    view = TraceView.of("r1", "refund", 1, (), 0, {}, trajectory=refund_failed())
    text = render(view, "text")
    assert "state before:" in text and "state after:" in text
    assert 'step 3 · model\n    calls: issue_refund {"amount": 30, "order": "o1"}' in text
    assert "step 4 · tool issue_refund · error" in text
    assert "    error: payment service unavailable" in text
    assert XSS in text and "ended: the model answered" in text
    data = json.loads(render(view, "json"))
    assert data["trajectory"]["steps"][3]["status"] == "error"


def test_diagnose_names_the_step_of_the_ignored_tool_error_and_the_step_limit() -> None:
    findings = {}
    for case, record in zip(CASES, base_records(), strict=True):
        judgment = Verdicts("agents-base").grade(case, record)
        findings[case.id] = diagnose(case, record, judgment, [])
    refund = findings["refund"]
    assert (refund.rule, refund.stage, refund.step) == ("tool-error-ignored", "tool_handling", 4)
    assert "step 4 (tool execution): issue_refund" in refund.evidence[1]
    assert refund.contract()["step"] == 4
    assert "stage: tool_handling, step 4  (rule: tool-error-ignored)" in render(refund, "text")
    limit = findings["status"]
    assert (limit.rule, limit.stage, limit.step) == ("step-limit", "generation", 6)
    assert "step" not in findings["plain"].contract()  # no trajectory: the span rules


def test_compare_names_where_the_trajectories_part_in_every_format() -> None:
    sides = []
    for run_id in ("agents-base", "agents-fixed"):
        report = agent_report(run_id)
        sides.append(RunSide.from_report(report, ref=run_id))
    comparison = compare_runs(*sides)
    (fixed,) = comparison.fixed
    assert fixed.divergence is not None and fixed.divergence.call == 2
    assert fixed.divergence.baseline is not None and fixed.divergence.candidate is not None
    assert fixed.divergence.candidate.arguments == {"order": "o1", "amount": 30, "method": "card"}
    said = "call 2: baseline step 4 issue_refund"
    for fmt in ("text", "markdown", "html"):
        assert said in render(comparison, fmt), fmt
    data = json.loads(render(comparison, "json"))
    assert data["fixed"][0]["divergence"]["baseline"]["status"] == "error"
    assert fixed_records()[0].extra != base_records()[0].extra
