"""A gate's outcome, a diagnosis, a finding, a trace and a report with its traces are drawn
through the one ``render(obj, fmt)``, in the formats ``assay.formats`` lists for each."""

from __future__ import annotations

import json

import pytest
from tests.golden._inputs import golden_report
from tests.golden.test_diagnostic_pages import FINDINGS, SPANS

from assay.diagnose import Diagnosis, TraceView, span_tree
from assay.formats import formats
from assay.gates import GateOutcome, evaluate_gates
from assay.render import kind_of, render
from assay.render.diagnosis import render_finding, render_groups
from assay.render.gates import MARKER, render_gates_markdown, render_gates_text
from assay.render.html import render_html
from assay.render.junit import render_junit
from assay.render.trace import render_trace
from assay.report import TracedReport

RULES = ["task_success >= 0.6", "statuses.error <= 1"]


def test_a_gate_outcome_is_the_summaries_and_junit_of_its_results() -> None:
    report = golden_report("policy")
    results = evaluate_gates(report, RULES)
    outcome = GateOutcome.of(results, report)
    assert kind_of(outcome) == "gate"
    assert formats("gate") == ("text", "markdown", "junit")
    assert render(outcome, "text") == render_gates_text(results)
    assert render(outcome, "markdown") == render_gates_markdown(report, results)
    assert render(outcome, "markdown").startswith(MARKER)
    assert render(outcome, "junit") == render_junit(report, results)
    assert outcome.passed is False  # task success is 2/6
    assert GateOutcome.of(results[1:], report).passed is True


def test_a_composite_gate_is_text_only() -> None:
    report = golden_report("policy")
    outcome = GateOutcome.of(evaluate_gates(report, RULES))
    assert "FAIL" in render(outcome, "text")
    with pytest.raises(ValueError, match="composite report has no markdown summary"):
        render(outcome, "markdown")
    with pytest.raises(ValueError, match=r"choose one of text, markdown, junit$"):
        render(outcome, "json")


def test_a_finding_and_a_diagnosis_in_text_and_json() -> None:
    finding, diagnosis = FINDINGS[0], Diagnosis("run-1", tuple(FINDINGS))
    assert kind_of(finding) == kind_of(diagnosis) == "diagnosis"
    assert render(finding, "text") == render_finding(finding)
    assert json.loads(render(finding, "json")) == finding.contract()
    assert render(diagnosis, "text") == render_groups("run-1", list(FINDINGS))
    grouped = json.loads(render(diagnosis, "json"))
    assert (grouped["run"], grouped["case_trials"], grouped["not_passed"]) == ("run-1", 4, 3)
    stages = [g["stage"] for g in grouped["groups"]]
    assert stages == ["retrieval", "generation", None]
    assert grouped["groups"][2]["cases"][0] == {**FINDINGS[1].contract(), "trial": 2}


def test_a_trace_view_draws_the_tree_then_the_transcript() -> None:
    rows = tuple(span_tree(SPANS))
    extra = {
        "transcript": {
            "messages": [{"role": "user", "content": "why?"}],
            "reply": "because",
            "finish_reason": "stop",
        },
        "traceback": "Traceback: boom\n",
    }
    view = TraceView.of("run-1", "c1", 1, rows, len(SPANS), extra)
    assert kind_of(view) == "trace"
    head = "trace of c1 (trial 1) in run run-1: 5 spans"
    told = (
        "\ntranscript\n--- user\nwhy?\n--- reply (finish_reason stop)\nbecause\n"
        "\ntraceback (last frames)\nTraceback: boom\n"
    )
    assert render(view, "text") == render_trace(head, list(rows)) + told
    drawn = json.loads(render(view, "json"))
    assert [s["name"] for s in drawn["spans"]] == [
        "root",
        "retrieval",
        "fetch-a",
        "fetch-b",
        "chat",
    ]
    assert drawn["transcript"] == extra["transcript"]
    assert drawn["traceback"] == "Traceback: boom\n"
    bare = TraceView.of("run-1", "c1", 1, rows, 5, {"transcript": "not a dict", "traceback": ""})
    assert (bare.transcript, bare.traceback) == (None, None)
    assert render(bare, "text") == render_trace(head, list(rows))


def test_a_report_with_traces_draws_them_only_on_its_page() -> None:
    report = golden_report("policy")
    case = report.cases[0].id
    spans = tuple(s.model_copy(update={"case_id": case, "trial": 1}) for s in SPANS)
    traced = TracedReport(report, spans)
    assert kind_of(traced) == "report"
    assert render(traced, "html") == render_html(report, spans=spans)
    assert render(traced, "html") != render(report, "html")
    for fmt in ("text", "json", "markdown", "junit"):
        assert render(traced, fmt) == render(report, fmt), fmt


def test_an_aside_is_assay_s_own_sentence_in_italics_and_plain_on_a_terminal() -> None:
    from assay.render.document import Document, Paragraph, Span
    from assay.render.markdown_writer import write_markdown
    from assay.render.text_writer import write_text

    doc = Document((Paragraph.of(Span("flagged when p < alpha\x1b", "aside")),))
    assert write_markdown(doc) == "_flagged when p < alpha\\u001b_\n"
    assert write_text(doc) == "flagged when p < alpha\\u001b\n"


def test_the_trend_is_one_document_both_writers_draw() -> None:
    from tests.golden.test_diagnostic_pages import _trend

    from assay.render.document import Only
    from assay.render.trend import trend_document

    trend = _trend()
    blocks = trend_document(trend).blocks
    assert [b.fmt for b in blocks if isinstance(b, Only)] == ["text", "markdown"]
    text, markdown = render(trend, "text"), render(trend, "markdown")
    for point in trend.points:
        assert point.shown in text
        assert point.shown.replace("[", "\\[").replace("]", "\\]") in markdown
    assert trend.summary in text and f"**{trend.summary}**" in markdown
    assert f"_{trend.rule}_" in markdown and trend.rule not in text


def test_the_calibration_s_text_is_blocks_the_writer_lays_out() -> None:
    from tests.unit.report.test_calibration import _report

    from assay.render.calibration import calibration_document
    from assay.render.document import BulletList, Only, Preformatted, Table

    text = calibration_document(_report()).blocks[0]
    assert isinstance(text, Only) and text.fmt == "text"
    tables = [b for b in text.blocks if isinstance(b, Table)]
    assert [c.title for c in tables[0].columns][:3] == ["Metric", "Fraction", "Value"]
    # Only the confusion grid is laid out by hand.
    grids = [b for b in text.blocks if isinstance(b, Preformatted)]
    assert len(grids) == 1 and grids[0].lines[1].strip() == "judge 0  judge 1  judge 2"
    titles = [b.title for b in text.blocks if isinstance(b, BulletList) and b.title]
    assert titles == [
        "Agreement per slice",
        "Without a judgment (count in no rate; investigate)",
        "Disagreements",
    ]


def test_a_transcript_s_control_characters_are_shown_escaped() -> None:
    extra = {"transcript": {"messages": [], "reply": "ok\x1b[2J\r\nbye"}, "traceback": "\x07"}
    view = TraceView.of("run-1", "c1", 1, (), 0, extra)
    assert render(view, "text").endswith(
        "\ntranscript\n--- reply\nok\\u001b[2J\\u000d\nbye\n\ntraceback (last frames)\n\\u0007\n"
    )
