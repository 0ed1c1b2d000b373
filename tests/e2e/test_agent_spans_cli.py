"""An application that runs its own agent loop behind HTTP and exports GenAI spans to
`assay run --receive-spans`: the trajectory its spans describe is graded, kept with the
record, diagnosed, and built again by `assay regrade`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.exporting_app import exporting_app

from assay.outcomes import trajectory_of
from assay.store import open_store

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs assay[otlp]")

APP = Path(__file__).resolve().parent / "apps" / "span_agent_app.py"
SUITE = """\
name: returns-agent
dataset: cases.jsonl
target:
  type: http
  url: http://127.0.0.1:{port}/ask
  request: {{question: "{{{{question}}}}"}}
  response: {{text: text}}
grader: {{type: composite, profile: agent}}
retries: 0
"""
CASE = {
    "id": "R1",
    "slice": "returns",
    "question": "Start a return for order A1002, please.",
    "expected_behavior": "answer",
    "expected_fact": "return_started",
    "expect": [{"tool_called": "start_return"}],
}


@pytest.fixture
def app() -> Iterator[tuple[int, int]]:
    """The application on a free port, exporting to a receiver port: (app, receiver)."""
    with exporting_app(APP) as ports:
        yield ports


def test_the_spans_trajectory_fails_a_false_success_claim(
    run_assay: RunAssay, app: tuple[int, int], tmp_path: Path
) -> None:
    port, receiver = app
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.format(port=port), encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay(
        "run", suite, "--receive-spans", "--receive-port", str(receiver), "--store", store
    )
    assert done.returncode == 0, done.stderr
    assert "1 case-trial(s) judged on the trajectory their spans describe" in done.stderr
    assert "passed 0 + failed 1 + error 0 + missing 0 + ungraded 0 = 1 case" in done.stdout
    run_id = done.stdout.split()[1]
    opened = open_store(store)
    try:
        (record,) = opened.records(run_id)
        (judgment,) = opened.judgments(run_id)
    finally:
        opened.close()
    assert record.extra["trajectory_from"] == "spans"
    trajectory = trajectory_of(record)
    assert trajectory is not None
    assert [(s.tool, s.status) for s in trajectory.tool_steps] == [
        ("lookup_order", "ok"),
        ("start_return", "error"),
    ]
    assert judgment.status == "failed"
    assert "claims_match_tools" in judgment.reason
    assert "returns service unavailable" in judgment.reason

    diagnosed = run_assay("diagnose", run_id, "--all", "--store", store)
    assert diagnosed.returncode == 0, diagnosed.stderr
    assert "start_return" in diagnosed.stdout
    assert "step 3" in diagnosed.stdout

    again = run_assay("regrade", run_id, "--store", store)
    assert again.returncode == 0, again.stderr
    assert "failed 1" in again.stdout
