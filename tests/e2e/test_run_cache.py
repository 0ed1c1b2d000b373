"""The response cache through the real CLI, against a mock server that counts requests."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]

CASES = [
    {
        "id": "A",
        "slice": "s",
        "question": "qa",
        "expected_behavior": "answer",
        "expected_fact": "fa",
    },
    {
        "id": "B",
        "slice": "s",
        "question": "qb",
        "expected_behavior": "answer",
        "expected_fact": "fb",
    },
    {
        "id": "C",
        "slice": "t",
        "question": "qc",
        "expected_behavior": "answer",
        "expected_fact": "fc",
    },
    {"id": "D", "slice": "t", "question": "qd", "expected_behavior": "abstain"},
]


class Counting:
    """A mock endpoint: answers each case with its expected fact (usage 10/2 tokens), fails
    every request for the case ids in ``failing`` with HTTP 500, and counts requests."""

    def __init__(self, failing: frozenset[str] = frozenset()) -> None:
        self.failing = failing
        self.requests: list[dict[str, object]] = []
        self.lock = threading.Lock()


@pytest.fixture
def mock() -> Iterator[tuple[str, Counting]]:
    state = Counting(frozenset({"C"}))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
            if body["id"] in state.failing:
                self._send(500, {"error": "down"})
                return
            fact = "f" + str(body["id"]).lower()
            reply = {"kind": "answer", "fact": fact, "usage": {"in": 10, "out": 2}}
            if body["id"] == "D":
                reply = {"kind": "abstain", "usage": {"in": 10, "out": 2}}
            self._send(200, reply)

        def _send(self, status: int, data: object) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()


def _suite(tmp_path: Path, url: str, cache: str = "true") -> Path:
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"""dataset: cases.jsonl
target:
  type: http
  url: {url}/answer
  request: {{id: "{{{{id}}}}", question: "{{{{prompt}}}}"}}
  response: {{kind: kind, fact: fact, input_tokens: usage.in, output_tokens: usage.out}}
retries: 0
trials: 2
trace: false
cache: {cache}
""",
        encoding="utf-8",
    )
    return suite


def _run(run_assay: RunAssay, suite: Path, tmp_path: Path, *args: str) -> dict[str, object]:
    done = run_assay(
        "run", suite, "--store", f"sqlite:///{tmp_path / 'runs.db'}", "-f", "json", *args
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_a_rerun_calls_the_target_only_for_what_was_not_cached(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path
) -> None:
    url, state = mock
    suite = _suite(tmp_path, url)
    first = _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 8  # four cases × two trials, each trial its own request
    assert first["cache"] == {
        "key_version": 1,
        "served": 0,
        "case_trials": 8,
        "called": 8,
        "input_tokens_avoided": 0,
        "output_tokens_avoided": 0,
        "judge_served": 0,
    }
    assert (tmp_path / "cache.db").is_file()  # beside the store's file

    second = _run(run_assay, suite, tmp_path)
    # Only case C's two trials are asked again: its errors were never cached.
    assert [r["id"] for r in state.requests[8:]] == ["C", "C"]
    cache = second["cache"]
    assert isinstance(cache, dict)
    assert (cache["served"], cache["called"], cache["case_trials"]) == (6, 2, 8)
    assert (cache["input_tokens_avoided"], cache["output_tokens_avoided"]) == (60, 12)
    assert second["task_success"] == first["task_success"]  # the same replies, the same figures
    rows = second["cases"]
    assert isinstance(rows, list)
    served = {(r["id"], r["trial"]) for r in rows if r["cached_from"] == first["run_id"]}
    assert served == {(c, t) for c in "ABD" for t in (1, 2)}
    assert all(r["cached_from"] is None for r in rows if r["id"] == "C")


def test_an_unchanged_rerun_makes_zero_target_calls(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path
) -> None:
    url, state = mock
    state.failing = frozenset()
    suite = _suite(tmp_path, url)
    _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 8
    again = _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 8  # not one more request
    cache = again["cache"]
    assert isinstance(cache, dict) and (cache["served"], cache["called"]) == (8, 0)


def test_a_deterministic_target_shares_one_reply_across_trials(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path
) -> None:
    url, state = mock
    state.failing = frozenset()
    suite = _suite(tmp_path, url, cache="{deterministic: true}")
    report = _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 4  # trial 2 of each case reused trial 1's reply
    cache = report["cache"]
    assert isinstance(cache, dict) and (cache["served"], cache["called"]) == (4, 4)


def test_without_the_cache_every_run_calls_and_no_report_mentions_it(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path
) -> None:
    url, state = mock
    suite = _suite(tmp_path, url, cache="false")
    report = _run(run_assay, suite, tmp_path)
    report = _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 16
    assert "cache" not in report
    on = _run(run_assay, suite, tmp_path, "--cache")  # the flag turns it on for one run
    assert len(state.requests) == 24 and isinstance(on["cache"], dict)


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("text", "Cache: 8 of 8 recorded case-trials served from the cache (key version 1)"),
        (
            "markdown",
            "**Cache:** 8 of 8 recorded case-trials served from the cache (key version 1)",
        ),
        ("html", "8 of 8 recorded case-trials served from the cache (key version 1)"),
        ("junit", '<property name="cache.served" value="8" />'),
        ("json", '"served": 8'),
    ],
)
def test_every_report_format_states_the_cache_hits_and_key_version(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path, fmt: str, expected: str
) -> None:
    url, state = mock
    state.failing = frozenset()
    suite = _suite(tmp_path, url)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    assert run_assay("run", suite, "--store", store, "-f", "json").returncode == 0
    done = run_assay("run", suite, "--store", store, "-f", fmt)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
    if fmt == "junit":
        assert '<property name="cache.key_version" value="1" />' in done.stdout
    found = re.search(r"^run (\S+) \(completed\)", done.stdout + done.stderr, re.MULTILINE)
    assert found is not None
    shown = run_assay("report", found.group(1), "--store", store, "-f", fmt)  # stored: the same
    assert expected in shown.stdout


def test_cache_stats_and_clear(
    run_assay: RunAssay, mock: tuple[str, Counting], tmp_path: Path
) -> None:
    url, state = mock
    state.failing = frozenset()
    suite = _suite(tmp_path, url)
    _run(run_assay, suite, tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    stats = run_assay("cache", "stats", "--store", store, "-f", "json")
    assert stats.returncode == 0, stats.stderr
    data = json.loads(stats.stdout)
    assert data["entries"] == 8 and data["by_key_version"] == {"1": 8} and data["key_version"] == 1
    assert "entries: 8 (v1: 8" in run_assay("cache", "stats", "--store", store).stdout

    kept = run_assay("cache", "clear", "--older-than", "7d", "--store", store)
    assert kept.returncode == 0 and "removed 0 entries older than 7d" in kept.stdout
    bad = run_assay("cache", "clear", "--older-than", "seven days", "--store", store)
    assert bad.returncode == 2 and "--older-than 'seven days'" in bad.stderr
    assert "Traceback" not in bad.stderr
    gone = run_assay("cache", "clear", "--store", store)
    assert "removed 8 entries" in gone.stdout and "0 left" in gone.stdout
    _run(run_assay, suite, tmp_path)
    assert len(state.requests) == 16  # an emptied cache serves nothing
