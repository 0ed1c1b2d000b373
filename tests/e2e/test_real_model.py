"""The openai target against a real OpenAI-compatible server: llama-cpp-python serving
SmolLM2-135M-Instruct (tests/real_model.py). Every output mode and response format either
works or fails with its documented error class; usage totals equal the sum of the server's
own ``usage`` fields; transcripts and chat spans are stored; a run is resumable; the
statuses reconcile."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import RunAssay
from tests.real_model import RealModel

from assay.grading import grade_all
from assay.metrics import summarize_results
from assay.report import summarize

pytestmark = pytest.mark.real_model

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "shop-v1": {
        "returns": "Items bought online can be returned within 30 days of delivery.",
        "defects": "Defective items must be reported within 7 days.",
    }
}
CASES = [
    {
        "id": "R1",
        "slice": "answerable",
        "question": "How many days do I have to return an item?",
        "expected_behavior": "answer",
        "expected_fact": "30 days",
        "source_revision": "shop-v1",
        "required": [{"fact": "30 days", "variations": ["thirty days", "30"]}],
    },
    {
        "id": "R2",
        "slice": "answerable",
        "question": "Within how many days must a defect be reported?",
        "expected_behavior": "answer",
        "expected_fact": "7 days",
        "source_revision": "shop-v1",
        "required": [{"fact": "7 days", "variations": ["seven days", "7"]}],
    },
    {
        "id": "R3",
        "slice": "unanswerable",
        "question": "Do you offer gift wrapping?",
        "expected_behavior": "abstain",
        "source_revision": "shop-v1",
    },
    {
        "id": "R4",
        "slice": "unanswerable",
        "question": "What does return shipping cost?",
        "expected_behavior": "abstain",
        "source_revision": "shop-v1",
    },
]
PROMPT = {
    "system": "Answer from the policy below; if it does not say, say you don't know.\n\n"
    "{{ context }}",
    "user": "{{ question }}",
}
# What each response format is documented to end in when it is not an outcome.
DOCUMENTED_ERRORS = {"parse_error", "http_4xx", "http_5xx"}


class _Recorder:
    """A loopback proxy in front of the model server that keeps every reply's ``usage``."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.usages: list[dict[str, Any]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = urllib.request.Request(
                    recorder.upstream + self.path.removeprefix("/v1"),
                    data=body,
                    headers={"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=120) as reply:
                        status, payload = reply.status, reply.read()
                except urllib.error.HTTPError as err:
                    status, payload = err.code, err.read()
                if status == 200:
                    recorder.usages.append(json.loads(payload).get("usage") or {})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder(real_model: RealModel) -> Iterator[_Recorder]:
    proxy = _Recorder(real_model.base_url)
    yield proxy
    proxy.close()


def _write_suite(tmp_path: Path, base_url: str, model: str, **target: Any) -> Path:
    import yaml

    (tmp_path / "sources.yaml").write_text(yaml.safe_dump(SOURCES), encoding="utf-8")
    dataset = {"name": "shop", "sources": "sources.yaml", "cases": CASES}
    (tmp_path / "cases.yaml").write_text(yaml.safe_dump(dataset), encoding="utf-8")
    suite = {
        "dataset": "cases.yaml",
        "target": {"type": "openai", "base_url": base_url, "model": model, **target},
        "grader": "composite" if target.get("output") == "text" else "structured",
        "concurrency": 2,
        "timeout_s": 120,
        "retries": 0,
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite), encoding="utf-8")
    return path


MODES = [
    ("structured", "json_schema"),
    ("structured", "json_object"),
    ("structured", "none"),
    ("text", "none"),
]


@pytest.mark.parametrize(("output", "response_format"), MODES)
def test_every_output_mode_against_the_real_server(
    real_model: RealModel, recorder: _Recorder, tmp_path: Path, output: str, response_format: str
) -> None:
    from assay.runner import run_suite
    from assay.store import open_store

    suite = _write_suite(
        tmp_path,
        recorder.base_url,
        real_model.model,
        output=output,
        response_format=response_format,
        prompt=PROMPT,
        max_tokens=64 if output == "structured" else 24,
        seed=1,
    )
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(suite, store)
        records = store.records(result.run_id)
        spans = store.spans(result.run_id)
        dataset = store.load_dataset(result.run_id)
    finally:
        store.close()
    report = result.report
    assert report.statuses.total == report.total == len(CASES)
    # the library's summary of the model's records, counted, equals the one graded record
    # by record (and, with the structured grader, the run's own figures)
    counted = summarize(dataset, records)
    assert counted == summarize_results(grade_all(dataset, records))
    if output == "structured":
        assert counted.statuses == report.statuses
    for record in records:
        outcome = record.outcome
        if outcome.kind == "error":
            assert outcome.error_class in DOCUMENTED_ERRORS, outcome
            assert outcome.message
            if outcome.error_class == "parse_error":
                assert outcome.raw is not None  # the text that could not be parsed is kept
        transcript = record.extra["transcript"]
        assert transcript["messages"][0]["role"] == "system"
        assert (
            "Items bought online can be returned within 30 days"
            in (transcript["messages"][0]["content"])
        )
        assert transcript["messages"][-1] == {
            "role": "user",
            "content": next(c["question"] for c in CASES if c["id"] == record.case_id),
        }
        if outcome.kind != "error" or outcome.error_class == "parse_error":
            assert isinstance(transcript["reply"], str)
            assert transcript["finish_reason"] in ("stop", "length")
    usage = report.usage
    assert usage is not None and usage.latency is not None
    assert usage.latency.count == len(CASES)
    if response_format == "json_schema":
        # llama-cpp-python's server takes response_format text or json_object only: every
        # call is an HTTP 500 whose body says so, kept as the raw reply (docs/running.md)
        for record in records:
            assert record.outcome.kind == "error"
            assert record.outcome.error_class == "http_5xx"
            assert "Input should be 'text' or 'json_object'" in (record.outcome.raw or "")
        assert (usage.usage_reported, usage.input_tokens, usage.output_tokens) == (0, None, None)
        assert recorder.usages == []
        return
    # JSON mode and plain text are what this server supports: no HTTP errors
    assert not [
        r for r in records if str(getattr(r.outcome, "error_class", "")).startswith("http_")
    ]
    # usage in the report = the sum of the server's own usage fields, call by call
    assert len(recorder.usages) == usage.usage_reported == len(records)
    assert usage.input_tokens == sum(u["prompt_tokens"] for u in recorder.usages)
    assert usage.output_tokens == sum(u["completion_tokens"] for u in recorder.usages)
    chats = [s for s in spans if s.name == f"chat {real_model.model}"]
    assert len(chats) == len(CASES)
    for span in chats:
        attrs = span.attributes
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == real_model.model
        assert isinstance(attrs["gen_ai.usage.input_tokens"], int)
        assert isinstance(attrs["gen_ai.usage.output_tokens"], int)
        assert attrs["gen_ai.response.finish_reasons"]


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_an_interrupted_run_on_the_real_model_resumes(
    real_model: RealModel, tmp_path: Path, run_assay: RunAssay
) -> None:
    suite = _write_suite(
        tmp_path,
        real_model.base_url,
        real_model.model,
        output="text",
        prompt=PROMPT,
        max_tokens=24,
    )
    db = tmp_path / "runs.db"
    store = f"sqlite:///{db}"
    env = {**os.environ, "NO_COLOR": "1"}
    started = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "assay",
            "run",
            str(suite),
            "--store",
            store,
            "--concurrency",
            "1",
            "--trials",
            "2",
            "-f",
            "json",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 180
    while _count(db) < 2 and time.monotonic() < deadline and started.poll() is None:
        time.sleep(0.1)
    started.send_signal(signal.SIGINT)
    _out, err = started.communicate(timeout=120)
    assert started.returncode == 130, err
    run_id = err.split("assay run --resume ")[1].split("`")[0]
    before = _count(db)
    assert 0 < before < len(CASES) * 2
    resumed = run_assay("run", "--resume", run_id, "--store", store, "-f", "json")
    assert resumed.returncode in (0, 1), resumed.stderr  # 1 only if nothing was graded
    report = json.loads(resumed.stdout)
    assert report["total"] == len(CASES) * 2
    assert sum(report["statuses"].values()) == report["total"]
    assert _count(db) == len(CASES) * 2
    assert report["usage"]["usage_reported"] == len(CASES) * 2
    # the report read back from the store (rows made off the stored texts of the model's
    # replies and the cases) holds the rows the run reported
    stored = run_assay("report", run_id, "--store", store, "-f", "json")
    assert stored.returncode == 0, stored.stderr
    again = json.loads(stored.stdout)
    assert again["cases"] == report["cases"]
    assert again["statuses"] == report["statuses"]
    # the library's summary of the stored replies (two trials: counted per case) equals
    # the one graded record by record
    from assay.store import open_store

    opened = open_store(store, create=False)
    try:
        dataset, records = opened.load_dataset(run_id), opened.records(run_id)
    finally:
        opened.close()
    assert summarize(dataset, records) == summarize_results(grade_all(dataset, records))


def test_dry_run_prints_the_request_without_calling_the_model(
    real_model: RealModel, recorder: _Recorder, tmp_path: Path, run_assay: RunAssay
) -> None:
    suite = _write_suite(tmp_path, recorder.base_url, real_model.model, prompt=PROMPT)
    done = run_assay("run", suite, "--dry-run", "--ids", "R3")
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)[0]
    assert request["url"] == f"{recorder.base_url}/chat/completions"
    assert request["body"]["messages"][-1] == {
        "role": "user",
        "content": "Do you offer gift wrapping?",
    }
    assert recorder.usages == []  # nothing was sent
