"""The composite report shows each case's question and answer text: in full in JSON and
HTML, cut visibly in text and Markdown, so a free-text failure can be reviewed in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.report.test_composite_report import POLICY, report_for

from assay.render._composite_format import clip
from assay.render.composite import render_composite

QUESTION = "Can a custom-printed product use the standard return window?"


def _text_answers(tmp_path: Path, long: str) -> Path:
    lines = (POLICY / "answers-text.jsonl").read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        if record["id"] == "E2":
            record["text"] = long
        out.append(json.dumps(record))
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def long_answer() -> str:
    return "Yes, custom-printed products follow the standard window. " * 5


def test_json_carries_the_question_and_the_full_answer(tmp_path: Path, long_answer: str) -> None:
    report = report_for(POLICY / "policy.jsonl", _text_answers(tmp_path, long_answer))
    row = next(r for r in report.cases if r.id == "E2")
    assert row.question == QUESTION
    assert row.answer == long_answer
    data = json.loads(render_composite(report, "json"))
    e2 = next(c for c in data["cases"] if c["id"] == "E2")
    assert (e2["question"], e2["answer"]) == (QUESTION, long_answer)
    errored = next(r for r in report.cases if r.status == "error")
    assert errored.answer is None and errored.question


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_text_and_markdown_cut_the_answer_visibly(
    fmt: str, tmp_path: Path, long_answer: str
) -> None:
    report = report_for(POLICY / "policy.jsonl", _text_answers(tmp_path, long_answer))
    out = render_composite(report, fmt)
    flat = " ".join(long_answer.split())
    assert f"(+{len(flat) - 80} chars)" in out
    assert "(+" in out and "chars)" in out
    assert "Yes, custom-printed" in out
    assert "Can a custom-printed" in out
    if fmt == "markdown":
        assert flat[:80] + "…" in out and QUESTION in out


def test_html_drawer_data_has_both_in_full(tmp_path: Path, long_answer: str) -> None:
    report = report_for(POLICY / "policy.jsonl", _text_answers(tmp_path, long_answer))
    page = render_composite(report, "html")
    assert QUESTION in page
    assert json.dumps(long_answer.strip())[1:-1] in page


def test_clip() -> None:
    assert clip(None) == "–"
    assert clip("a\n b") == "a b"
    assert clip("x" * 85) == "x" * 80 + "… (+5 chars)"
