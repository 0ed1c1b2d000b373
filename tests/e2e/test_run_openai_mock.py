"""`assay run` with the openai target against a scripted OpenAI-compatible mock: every
response format, a reply that cannot be parsed (its raw text in every report format),
partial usage, cost from the suite's price table, and gates on cost and latency."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import RunAssay

CASES = [
    {
        "id": "A1",
        "slice": "s",
        "question": "How long?",
        "expected_behavior": "answer",
        "expected_fact": "thirty",
    },
    {"id": "A2", "slice": "s", "question": "Gift wrap?", "expected_behavior": "abstain"},
    {
        "id": "A3",
        "slice": "s",
        "question": "Broken?",
        "expected_behavior": "answer",
        "expected_fact": "seven",
    },
]
GARBAGE = "Sure! The answer is thirty days. " + "blah " * 200


class Mock:
    """Replies by the question: A1 answers, A2 abstains, A3 replies with unparsable text;
    A2's reply carries no usage. Keeps every request body."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                mock.bodies.append(body)
                question = body["messages"][-1]["content"]
                text = body.get("response_format") is None and "kind" not in json.dumps(body)
                if question == "How long?":
                    content = (
                        "Thirty days."
                        if text
                        else json.dumps(
                            {"kind": "answer", "fact": "thirty", "text": "30 days", "citations": []}
                        )
                    )
                elif question == "Gift wrap?":
                    content = "I don't know." if text else '```json\n{"kind": "abstain"}\n```'
                else:
                    content = GARBAGE
                reply: dict[str, Any] = {
                    "model": "mock-1",
                    "choices": [
                        {
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                }
                if question != "Gift wrap?":
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


def _suite(tmp_path: Path, base_url: str, extra: str = "", **target: Any) -> Path:
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    (tmp_path / "prices.yaml").write_text("mock-model: {input: 2.0, output: 10.0}\n")
    settings = {"type": "openai", "base_url": base_url, "model": "mock-model", **target}
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"dataset: cases.jsonl\ntarget: {json.dumps(settings)}\nprices: prices.yaml\n"
        f"retries: 0\n{extra}"
    )
    return path


@pytest.mark.parametrize("response_format", ["json_schema", "json_object", "none"])
def test_each_response_format_runs_and_keeps_the_unparsable_reply(
    run_assay: RunAssay, tmp_path: Path, mock: Mock, response_format: str
) -> None:
    suite = _suite(tmp_path, mock.base_url, response_format=response_format)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    sent = {b["messages"][-1]["content"]: b for b in mock.bodies}
    kind = sent["How long?"].get("response_format", {}).get("type")
    assert (
        kind
        == {"json_schema": "json_schema", "json_object": "json_object", "none": None}[
            response_format
        ]
    )
    statuses = {c["id"]: c["status"] for c in report["cases"]}
    assert statuses["A1"] == "passed"
    # a fenced JSON block is read only when no response_format promised bare JSON
    assert statuses["A2"] == ("passed" if response_format == "none" else "error")
    a3 = next(c for c in report["cases"] if c["id"] == "A3")
    assert a3["status"] == "error" and a3["reason"].startswith("error: parse_error")
    assert a3["raw"] == GARBAGE  # under 4,000 characters: kept whole
    assert a3["transcript"]["reply"] == GARBAGE
    run_id = report["run_id"]
    for fmt in ("text", "markdown", "html"):
        shown = run_assay("report", run_id, "--store", store, "-f", fmt)
        assert shown.returncode == 0, shown.stderr
        assert "Sure! The answer is thirty days." in " ".join(shown.stdout.split()), fmt
    text = " ".join(run_assay("report", run_id, "--store", store).stdout.split())
    assert f"[{len(GARBAGE)} characters; all of it in the JSON report]" in text


def test_usage_partial_cost_and_gates(run_assay: RunAssay, tmp_path: Path, mock: Mock) -> None:
    suite = _suite(
        tmp_path,
        mock.base_url,
        "gates: [cost_usd<=0.001, latency_p95_s<=60, output_tokens<=1000]\n",
        output="text",
    )
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--store", store, "-f", "json")
    assert done.returncode == 1, done.stderr  # the cost gate fails
    assert "cost_usd" in done.stderr and "over by" in done.stderr
    a2 = next(c for c in json.loads(done.stdout)["cases"] if c["id"] == "A2")
    assert (a2["outcome"], a2["text"]) == ("abstain", "I don't know.")
    assert a2["abstain_reason"].startswith("the reply matched the abstain rule /")
    usage = json.loads(done.stdout)["usage"]
    # A2's reply carried no usage: it is left out, never counted as 0
    assert (usage["case_trials"], usage["usage_reported"]) == (3, 2)
    assert (usage["input_tokens"], usage["output_tokens"]) == (2000, 200)
    assert usage["cost_usd"] == pytest.approx(2 * (1000 * 2.0 + 100 * 10.0) / 1e6)
    assert usage["cost_reported"] == 2
    assert usage["prices"]["model"] == "mock-model"
    assert usage["prices"]["hash"].startswith("sha256:")
    text = run_assay("report", json.loads(done.stdout)["run_id"], "--store", store).stdout
    text = " ".join(text.split())
    assert "Tokens: usage reported by 2 of 3 case-trials" in text
    cheaper = tmp_path / "cheaper.yaml"
    cheaper.write_text("mock-model: {input: 0, output: 0}\n")
    again = run_assay(
        "report",
        json.loads(done.stdout)["run_id"],
        "--store",
        store,
        "--prices",
        cheaper,
        "-f",
        "json",
    )
    assert json.loads(again.stdout)["usage"]["cost_usd"] == 0
    run_id = json.loads(done.stdout)["run_id"]
    traced = run_assay("trace", run_id, "A1", "--store", store)
    assert traced.returncode == 0, traced.stderr
    assert "chat mock-model" in traced.stdout  # the chat span, with GenAI attributes
    assert "gen_ai.usage.input_tokens = 1000" in traced.stdout
    assert "gen_ai.response.finish_reasons = stop" in traced.stdout
    assert "--- user\nHow long?" in traced.stdout  # the transcript
    assert "--- reply (finish_reason stop, mock-1)\nThirty days." in traced.stdout
    listed = run_assay("runs", "--store", store, "-f", "json")
    row = json.loads(listed.stdout)[0]
    assert (row["usage_reported"], row["output_tokens"]) == (2, 200)


def test_a_bad_price_table_stops_the_run_before_it_starts(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    suite = _suite(tmp_path, mock.base_url)
    (tmp_path / "prices.yaml").write_text("mock-model: {input: cheap, output: 1}\n")
    done = run_assay("run", suite, "--store", f"sqlite:///{tmp_path / 'runs.db'}")
    assert done.returncode == 2
    assert "prices.yaml:1: mock-model: input" in done.stderr
    assert "Traceback" not in done.stderr
    assert mock.bodies == []


def test_a_cached_rerun_shows_cost_avoided_not_cost_paid_again(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    suite = _suite(tmp_path, mock.base_url, "cache: true\n", output="text")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    first = json.loads(run_assay("run", suite, "--store", store, "-f", "json").stdout)
    calls = len(mock.bodies)
    done = run_assay("run", suite, "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert len(mock.bodies) == calls  # every reply served from the cache
    paid = first["usage"]["cost_usd"]
    assert paid == pytest.approx(2 * (1000 * 2.0 + 100 * 10.0) / 1e6)
    assert (usage["cached"], usage["cost_usd"], usage["input_tokens"]) == (3, 0, None)
    assert usage["cost_avoided_usd"] == pytest.approx(paid)
    text = " ".join(
        run_assay("report", json.loads(done.stdout)["run_id"], "--store", store).stdout.split()
    )
    assert "Cost paid: $0 (no call was made: all 3 case-trials served from the cache)" in text
    assert "Cost avoided by the cache: $0.006 over 2 of 3 cached case-trials" in text
    listed = " ".join(run_assay("runs", "--store", store).stdout.split())
    assert "3 cached; $0.006 avoided" in listed
    rows = json.loads(run_assay("runs", "--store", store, "-f", "json").stdout)
    assert sorted((r["cost_usd"], r["cached"]) for r in rows) == [(0, 3), (pytest.approx(paid), 0)]
    assert "3 cached; $0.006 avoided" in _viewer_page(store, "/")


def _viewer_page(store: str, route: str) -> str:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    from assay.store import open_store
    from assay.view import create_app

    reader = open_store(store, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            return client.get(route).text
    finally:
        reader.close()


def test_a_cached_matrix_rerun_shows_each_variants_cost_paid_and_avoided(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    suite = _suite(tmp_path, mock.base_url, "cache: true\ntrace: false\n", output="text")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    matrix = ("run", suite, "--store", store, "--set", "target.temperature=0,0.5")
    assert run_assay(*matrix).returncode == 0
    calls = len(mock.bodies)
    done = run_assay(*matrix)
    assert done.returncode == 0, done.stderr
    assert len(mock.bodies) == calls
    matrix_id = re.search(r"^matrix (mx-\S+)", done.stdout, re.MULTILINE)
    assert matrix_id is not None, done.stdout
    data = json.loads(
        run_assay("matrix", matrix_id.group(1), "--store", store, "-f", "json").stdout
    )
    for variant in data["variants"]:
        usage = variant["usage"]
        assert (usage["cached"], usage["cost_usd"]) == (3, 0)
        assert usage["cost_avoided_usd"] == pytest.approx(2 * (1000 * 2.0 + 100 * 10.0) / 1e6)
    text = " ".join(run_assay("matrix", matrix_id.group(1), "--store", store).stdout.split())
    assert "$0 paid · 3 cached ($0.006 avoided)" in text


def test_the_transcript_is_on_the_viewers_case_page_and_in_trace_json(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    from assay.store import open_store
    from assay.view import create_app

    suite = _suite(tmp_path, mock.base_url, output="text", system_prompt="Answer <briefly>.")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    traced = json.loads(run_assay("trace", run_id, "A1", "--store", store, "-f", "json").stdout)
    assert (traced["run_id"], traced["case_id"], traced["trial"]) == (run_id, "A1", 1)
    assert traced["spans"] and traced["traceback"] is None
    transcript = traced["transcript"]
    assert transcript["messages"][-1] == {"role": "user", "content": "How long?"}
    assert (transcript["reply"], transcript["finish_reason"]) == ("Thirty days.", "stop")
    reader = open_store(store, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            page = client.get("/case?id=A1").text
    finally:
        reader.close()
    assert 'id="transcripts"' in page
    assert '<pre class="message">How long?</pre>' in page
    assert '<pre class="message">Answer &lt;briefly&gt;.</pre>' in page  # escaped
    assert '<pre class="message reply">Thirty days.</pre>' in page
    assert "reply (finish reason stop, mock-1)" in page


def test_compare_shows_usage_and_cost_deltas_in_every_format(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    suite = _suite(tmp_path, mock.base_url, "cache: true\ntrace: false\n", output="text")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    ids = [
        json.loads(run_assay("run", suite, "--store", store, "-f", "json").stdout)["run_id"]
        for _ in range(2)
    ]
    compare = ("compare", *ids, "--store", store)
    data = json.loads(run_assay(*compare, "-f", "json").stdout)["usage"]
    assert data["cost_usd_delta"] == pytest.approx(-0.006)
    assert data["cost_avoided_usd_delta"] is None  # the baseline was not served from a cache
    assert data["candidate"]["cost_avoided_usd"] == pytest.approx(0.006)
    assert (data["baseline"]["cached"], data["candidate"]["cached"]) == (0, 3)
    assert data["input_tokens_delta"] is None  # the candidate paid for no tokens: unknown
    rows = [
        ("cost paid", "$0.006", "$0", "−$0.006"),
        ("served from the cache", "0", "3", "+3"),
        ("cost avoided by the cache", "n/a", "$0.006", "n/a"),
    ]
    text = run_assay(*compare).stdout
    markdown = run_assay(*compare, "-f", "markdown").stdout
    html = run_assay(*compare, "-f", "html").stdout
    for label, base, cand, delta in rows:
        assert re.search(
            rf"{label}\s+{re.escape(base)}\s+{re.escape(cand)}\s+{re.escape(delta)}", text
        )
        assert f"| {label} | {base} | {cand} | {delta} |" in markdown
        cells = "".join(f'<td class="num">{v}</td>' for v in (base, cand, delta))
        assert f'<td class="id">{label}</td>{cells}' in html


def test_run_prices_from_the_command_line_and_records_the_tables_hash(
    run_assay: RunAssay, tmp_path: Path, mock: Mock
) -> None:
    suite = _suite(tmp_path, mock.base_url, "trace: false\n", output="text")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    dearer = tmp_path / "dearer.yaml"
    dearer.write_text("mock-model: {input: 20.0, output: 100.0}\n")
    done = run_assay("run", suite, "--store", store, "--prices", dearer, "-f", "json")
    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert usage["cost_usd"] == pytest.approx(2 * (1000 * 20.0 + 100 * 100.0) / 1e6)
    assert usage["prices"]["source"].endswith("dearer.yaml")
    suites = json.loads(run_assay("run", suite, "--store", store, "-f", "json").stdout)["usage"]
    assert suites["prices"]["source"].endswith("prices.yaml")
    assert suites["prices"]["hash"] != usage["prices"]["hash"]
    run_id = json.loads(done.stdout)["run_id"]
    again = json.loads(run_assay("report", run_id, "--store", store, "-f", "json").stdout)
    assert again["usage"]["cost_usd"] == usage["cost_usd"]  # the table is kept with the run

    broken = tmp_path / "broken.yaml"
    broken.write_text("mock-model: {input: cheap, output: 1}\n")
    calls = len(mock.bodies)
    bad = run_assay("run", suite, "--store", store, "--prices", broken)
    assert bad.returncode == 2 and "broken.yaml:1: mock-model: input" in bad.stderr
    assert "Traceback" not in bad.stderr and len(mock.bodies) == calls
    resumed = run_assay("run", "--resume", run_id, "--store", store, "--prices", dearer)
    assert resumed.returncode == 2 and f"assay report {run_id} --prices" in resumed.stderr
