"""A run's report is built from the records and judgments the runner holds, without
reading them back from the store: it must be byte for byte the report read from the
store, in every format, for fresh, cached, failing, retried, matrix and resumed runs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case
from assay.render import render
from assay.report import Report
from assay.runner import Overrides, report_for_run, run_matrix, run_suite
from assay.runner._execute import Done, WorkItem
from assay.runner._plan import Plan
from assay.store import RunStore, open_store

CASES = [
    {
        "id": f"C{i}",
        "slice": "odd" if i % 2 else "even",
        "question": f"Question {i}: how long? é ✓",
        "expected_behavior": "abstain" if i % 3 == 0 else "answer",
        **({} if i % 3 == 0 else {"expected_fact": "thirty"}),
    }
    for i in range(9)
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def _suite(folder: Path, target: dict[str, Any], extra: str = "") -> Path:
    (folder / "cases.jsonl").write_text(
        "\n".join(json.dumps(c, ensure_ascii=False) for c in CASES) + "\n", encoding="utf-8"
    )
    (folder / "prices.yaml").write_text("mock-model: {input: 2.0, output: 10.0}\n")
    suite = folder / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {json.dumps(target)}\nprices: prices.yaml\n{extra}",
        encoding="utf-8",
    )
    return suite


def _same_as_stored(store: RunStore, report: Report) -> None:
    assert report.run_id is not None
    stored = report_for_run(store, report.run_id)
    for fmt in ("json", "text", "markdown", "html", "junit"):
        assert render(report, fmt) == render(stored, fmt), fmt


CASE = Case(id="C0", slice="s", question="q", expected_behavior="abstain")
SCRIPT = {
    "type": "scripted",
    "default": {"kind": "answer", "fact": "thirty", "text": "30 days"},
    "outcomes": {
        "C0": {"kind": "abstain"},
        "C1": [{"kind": "answer", "fact": "seven"}, {"kind": "answer", "fact": "thirty"}],
        "C2": {"fail": "http_5xx", "message": "upstream down"},
        "C4": {"fail": "http_429", "fail_attempts": 1, "retry_after_s": 0.0},
        "C5": {"fail": "raise", "message": "the system under test crashed"},
        "C7": {"kind": "error", "error_class": "bad_output", "message": "not JSON"},
    },
}


@pytest.mark.parametrize("trace", ["true", "false"])
def test_a_fresh_run_and_its_cached_rerun_report_as_read_from_the_store(
    tmp_path: Path, store: RunStore, trace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path, SCRIPT, f"trials: 2\nretries: 2\ncache: true\ntrace: {trace}\n")
    read: list[str] = []
    reading = RunStore.records
    monkeypatch.setattr(
        RunStore, "records", lambda s, run_id: read.append(run_id) or reading(s, run_id)
    )
    first = run_suite(suite, store)
    again = run_suite(suite, store)
    assert read == []  # both reports were built from the records in memory
    assert again.report.cache is not None and again.report.cache.served > 0
    for result in (first, again):
        _same_as_stored(store, result.report)


def test_a_declared_trial_policy_and_a_selection_report_as_stored(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _suite(tmp_path, SCRIPT, "trials: 3\ntrial_policy: majority\nretries: 1\n")
    from assay.runner import Selection

    result = run_suite(suite, store, selection=Selection(slices=("odd",)))
    _same_as_stored(store, result.report)


def test_a_resumed_run_reads_its_report_back(tmp_path: Path, store: RunStore) -> None:
    from assay.runner import resume_run

    suite = _suite(tmp_path, SCRIPT, "trials: 2\nretries: 0\n")
    first = run_suite(suite, store)
    from assay.store._schema import judgments, records

    with store.engine.begin() as conn:  # as if the run had been killed half-way
        for table in (records, judgments):
            conn.execute(table.delete().where(table.c.case_id.in_(["C3", "C6", "C8"])))
    store.set_status(first.run_id, "interrupted")
    resumed = resume_run(store, first.run_id)
    assert resumed.ran == 6 and resumed.skipped == 12
    _same_as_stored(store, resumed.report)


def test_only_a_fresh_run_whose_every_case_trial_was_stored_skips_the_reading(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _suite(tmp_path, SCRIPT, "trials: 2\nretries: 0\n")
    result = run_suite(suite, store)
    records = store.records(result.run_id)
    plan = Plan.__new__(Plan)
    plan.store, plan.run_id, plan.done, plan.status = store, result.run_id, set(), "completed"
    plan.finished = [Done(WorkItem(i, CASE, r.trial), r, None) for i, r in enumerate(records)]
    found = plan.results()
    assert found is not None and found[0] == records
    plan.done = {("C1", 1)}
    assert plan.results() is None  # resumed: the stored records come first
    plan.done, plan.status = set(), "interrupted"
    assert plan.results() is None  # stopped: read back, as stored
    plan.status, plan.finished = "completed", plan.finished[1:]
    assert plan.results() is None  # one stored record was not finished here: read them


class _Mock:
    """An OpenAI-compatible server: answers with usage, abstains without, and once
    replies with text that is not JSON."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                question = body["messages"][-1]["content"]
                number = int(question.split(":")[0].split()[-1])
                outcome = (
                    {"kind": "abstain"}
                    if number % 3 == 0
                    else {"kind": "answer", "fact": "thirty", "text": "30 ✓", "citations": []}
                )
                content = "Sure, thirty." if number == 4 else json.dumps(outcome)
                reply: dict[str, Any] = {
                    "model": "mock-1",
                    "choices": [
                        {
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                }
                if number % 3:
                    reply["usage"] = {"prompt_tokens": 100 + number, "completion_tokens": 7}
                payload = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def mock() -> Iterator[_Mock]:
    server = _Mock()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_an_openai_matrix_with_transcripts_usage_and_cost_reports_as_stored(
    tmp_path: Path, store: RunStore, mock: _Mock
) -> None:
    target = {"type": "openai", "base_url": mock.base_url, "model": "mock-model"}
    suite = _suite(tmp_path, target, "retries: 0\ncache: true\n")
    sets = ("target.seed=1,2",)
    for result in (run_matrix(suite, store, sets=sets), run_matrix(suite, store, sets=sets)):
        for run in result.runs:
            assert run.report.usage is not None and run.report.usage.case_trials == 9
            _same_as_stored(store, run.report)
    single = run_suite(suite, store, overrides=Overrides(cache=False))
    assert any(c.transcript for c in single.report.cases)
    _same_as_stored(store, single.report)
