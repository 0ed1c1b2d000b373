"""``assay run --dry-run`` end to end: nothing is called (a target that counts its calls, a
mock server that counts its requests), nothing is stored, and the forecast's figures are
those computed by hand from the stored run's usage, against the run's budget."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import RunAssay

from assay.store import open_store

QUESTIONS = ["How long?", "Gift wrap?", "Is the return window thirty days long?"]


def _cases(folder: Path) -> None:
    rows = [
        {
            "id": f"D{i}",
            "slice": "s",
            "question": q,
            "expected_behavior": "answer",
            "expected_fact": "thirty",
        }
        for i, q in enumerate(QUESTIONS)
    ]
    (folder / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


# -- a target with no request to show, counting its calls ------------------------------

APP = """
from pathlib import Path

from assay.outcomes import Answer, Usage
from assay.targets import Reply


def answer(case):
    with Path(__file__).with_name("calls.txt").open("a") as calls:  # one byte, appended
        calls.write("x")
    return Reply(
        Answer(fact="thirty", text="30 days"),
        usage=Usage(input_tokens=10 * len(case.question), output_tokens=len(case.id) + 5),
    )
"""


def _function_suite(folder: Path, name: str = "dry", extra: str = "") -> Path:
    _cases(folder)
    (folder / "dry_run_app.py").write_text(APP)
    path = folder / "suite.yaml"
    path.write_text(
        f"name: {name}\ndataset: cases.jsonl\n"
        "target: {type: function, callable: 'dry_run_app:answer'}\n"
        f"concurrency: 3\n{extra}"
    )
    return path


def _calls(folder: Path) -> int:
    counted = folder / "calls.txt"
    return len(counted.read_text()) if counted.exists() else 0


def _stored(store: str) -> list[str]:
    opened = open_store(store, create=False)
    try:
        return [r.id for r in opened.list_runs()]
    finally:
        opened.close()


def _usage_per_call(store: str, run_id: str) -> tuple[float, float, float]:
    """Mean input tokens, output tokens and latency (s) per call of a stored run, by hand."""
    opened = open_store(store, create=False)
    try:
        records = opened.records(run_id)
    finally:
        opened.close()
    inputs = [r.usage.input_tokens for r in records if r.usage and r.usage.input_tokens]
    outputs = [r.usage.output_tokens for r in records if r.usage and r.usage.output_tokens]
    latencies = [r.latency_ms / 1000 for r in records if r.latency_ms is not None]
    assert len(inputs) == len(outputs) == len(latencies) == len(records)
    return (
        sum(inputs) / len(inputs),
        sum(outputs) / len(outputs),
        sum(latencies) / len(latencies),
    )


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def test_a_target_without_requests_is_forecast_without_a_call(
    tmp_path: Path, run_assay: RunAssay
) -> None:
    suite = _function_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    first = run_assay("run", suite, "--trials", "2", "--store", store, "-f", "json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    assert _calls(tmp_path) == 6
    per_input, per_output, latency = _usage_per_call(store, run_id)

    done = run_assay(
        "run", suite, "--dry-run", "--trials", "4", "--store", store,
        "--max-calls", "10", "--max-tokens", "100000", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _calls(tmp_path) == 6  # no call
    assert _stored(store) == [run_id]  # nothing stored
    assert done.stdout == ""
    err = done.stderr
    assert "the function target has no request to show; nothing is sent" in err
    assert f"forecast from run {run_id} (the last stored run of suite 'dry'" in err
    calls = 3 * 4
    inputs, outputs = round(per_input * calls), round(per_output * calls)
    assert "12 calls (3 cases × 4 trials)" in err
    assert f"{inputs:,} input tokens, {outputs:,} output tokens" in err
    assert "cost unknown (the run has no priced usage)" in err
    assert f"about {_duration(calls * latency / 3)} at concurrency 3" in err
    assert f"forecast 12 calls exceeds max_calls 10: about 10 of {calls} case-trials" in err
    assert f"forecast {inputs + outputs:,} tokens fits max_tokens 100,000" in err

    tight = inputs + outputs - 1
    cut = run_assay(
        "run", suite, "--dry-run", "--trials", "4", "--store", store,
        "--max-tokens", str(tight), cwd=tmp_path,
    )  # fmt: skip
    assert cut.returncode == 0, cut.stderr
    runs = math.floor(tight / ((inputs + outputs) / calls))
    assert runs == calls - 1
    assert f"exceeds max_tokens {tight:,}: about {runs} of {calls} case-trials" in cut.stderr
    assert _calls(tmp_path) == 6


def test_no_past_run_leaves_the_forecast_unknown(tmp_path: Path, run_assay: RunAssay) -> None:
    suite = _function_suite(tmp_path, extra="max_calls: 2\n")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--dry-run", "--store", store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "forecast unknown: no run store yet, so no stored run of suite 'dry'" in done.stderr
    assert "the budget cannot be checked without a forecast" in done.stderr
    assert not (tmp_path / "runs.db").exists()  # a dry run creates no store
    assert _calls(tmp_path) == 0


def test_another_target_configuration_is_not_forecast_from(
    tmp_path: Path, run_assay: RunAssay, run_assay_process: RunAssay
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    _function_suite(other)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    # a process of its own: its app module is imported afresh, whatever ran before
    first = run_assay_process("run", "suite.yaml", "--store", store, "-f", "json", cwd=other)
    assert first.returncode == 0, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    _cases(tmp_path)
    changed = tmp_path / "suite.yaml"  # the same suite name, another target
    changed.write_text(
        "name: dry\ndataset: cases.jsonl\ntarget: {type: demo, config: v1}\nconcurrency: 2\n"
    )
    done = run_assay("run", changed, "--dry-run", "--store", store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        f"no stored run of suite 'dry' with this target configuration (its last run, {run_id}, "
        "ran another one)" in done.stderr
    )
    given = run_assay("run", changed, "--dry-run", "--store", store, "--pilot", run_id[:10])
    assert given.returncode == 0, given.stderr
    assert f"forecast from run {run_id} (the pilot run given)" in given.stderr
    assert "3 calls (3 cases × 1 trial)" in given.stderr
    assert _calls(other) == 3


def test_bad_dry_runs_are_refused(tmp_path: Path, run_assay: RunAssay) -> None:
    suite = _function_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    alone = run_assay("run", suite, "--pilot", "x", "--store", store, cwd=tmp_path)
    assert alone.returncode == 2 and "--pilot gives a dry run's forecast" in alone.stderr
    matrix = run_assay(
        "run", suite, "--dry-run", "--set", "concurrency=1,2", "--store", store, cwd=tmp_path
    )
    assert matrix.returncode == 2 and "--dry-run needs a suite file" in matrix.stderr
    variants = tmp_path / "variants.yaml"
    variants.write_text(suite.read_text() + "variants:\n  a: {}\n  b: {}\n")
    both = run_assay("run", variants, "--dry-run", "--store", store, cwd=tmp_path)
    assert both.returncode == 2 and "not a matrix's" in both.stderr
    run_assay("run", suite, "--store", store, cwd=tmp_path)
    missing = run_assay("run", suite, "--dry-run", "--pilot", "nosuch", "--store", store)
    assert missing.returncode == 2 and "no run 'nosuch'" in missing.stderr
    assert _calls(tmp_path) == 3  # the one real run only


# -- the openai target against a mock server that counts its requests -------------------


class Mock:
    """An OpenAI-compatible server: every reply answers 'thirty' after 50 ms; the second
    question's replies carry no usage. Counts its requests."""

    def __init__(self) -> None:
        self.requests = 0
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                mock.requests += 1
                time.sleep(0.05)
                content = json.dumps(
                    {"kind": "answer", "fact": "thirty", "text": "30 days", "citations": []}
                )
                reply: dict[str, Any] = {
                    "model": "mock-1",
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                }
                if body["messages"][-1]["content"] != QUESTIONS[1]:
                    reply["usage"] = {"prompt_tokens": 1000, "completion_tokens": 100}
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
def mock() -> Iterator[Mock]:
    server = Mock()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_an_openai_run_is_forecast_against_its_cost_budget(
    tmp_path: Path, run_assay: RunAssay, mock: Mock
) -> None:
    _cases(tmp_path)
    (tmp_path / "prices.yaml").write_text("mock-model: {input: 2.0, output: 10.0}\n")
    target = {"type": "openai", "base_url": mock.base_url, "model": "mock-model"}
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {json.dumps(target)}\nprices: prices.yaml\nretries: 0\n"
    )
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    env = {"OPENAI_API_KEY": "sk-test"}
    first = run_assay("run", suite, "--trials", "2", "--store", store, "-f", "json", env=env)
    assert first.returncode == 0, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    assert mock.requests == 6
    opened = open_store(store, create=False)
    try:
        records = opened.records(run_id)
    finally:
        opened.close()
    # by hand: 4 of the 6 calls reported 1,000 + 100 tokens, each $0.003 at the suite's prices
    priced = [r for r in records if r.usage is not None]
    assert len(priced) == 4
    per_call_cost = (1000 * 2.0 + 100 * 10.0) / 1e6
    latency = sum(r.latency_ms or 0 for r in records) / len(records) / 1000

    done = run_assay(
        "run", suite, "--dry-run", "--trials", "3", "--concurrency", "2",
        "--max-cost", "0.02", "--store", store, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert mock.requests == 6  # nothing sent
    assert _stored(store) == [run_id]
    shown = json.loads(done.stdout)
    assert [r["case"] for r in shown] == ["D0", "D1", "D2"]
    assert shown[0]["url"] == f"{mock.base_url}/chat/completions"
    err = done.stderr
    calls = 3 * 3
    assert f"forecast from run {run_id} (the last stored run of suite 'suite'" in err
    assert "9 calls (3 cases × 3 trials)" in err
    assert f"{1000 * calls:,} input tokens, {100 * calls:,} output tokens" in err
    cost = per_call_cost * calls
    assert f"cost ${cost:,.4f}" in err
    assert f"about {_duration(calls * latency / 2)} at concurrency 2" in err
    runs = math.floor(0.02 / per_call_cost)
    assert runs == 6
    assert f"forecast ${cost:.4f} exceeds max_cost $0.0200: about {runs} of {calls} " in err
    fits = run_assay("run", suite, "--dry-run", "--max-cost", "0.5", "--store", store, env=env)
    assert "forecast $0.0090 fits max_cost $0.5000" in fits.stderr
    assert mock.requests == 6


def test_a_sequential_run_s_forecast_is_the_most_it_can_take(
    tmp_path: Path, run_assay: RunAssay
) -> None:
    suite = _function_suite(tmp_path, extra="gates: ['task_success >= 0.5']\n")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    assert run_assay("run", suite, "--store", store, cwd=tmp_path).returncode == 0
    most = "a sequential run stops once its gates are decided: this is the most it can take"
    fixed = run_assay("run", suite, "--dry-run", "--store", store, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "3 calls (3 cases × 1 trial" in fixed.stderr and most not in fixed.stderr
    sequential = run_assay(
        "run", suite, "--dry-run", "--until-decided", "--store", store, cwd=tmp_path
    )
    assert sequential.returncode == 0, sequential.stderr
    assert most in sequential.stderr
    assert _calls(tmp_path) == 3
