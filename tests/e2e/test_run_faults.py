"""A run against a server that injects faults into 30% of requests (500, 429 with
Retry-After, reset connections, hangs, garbage, truncated and empty bodies, key echoes):
every case-trial is recorded once, every request the server saw is an attempt the
run recorded, every Retry-After is honoured, and the echoed key is stored nowhere."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from _mockproc import mock_server  # noqa: E402

from assay.outcomes import Answer, Error  # noqa: E402
from assay.runner import run_suite  # noqa: E402
from assay.store import open_store  # noqa: E402

CASES, TRIALS = 40, 2
KEY = "sk-fault/Injected+KEY_0042"
pytestmark = pytest.mark.timeout(300)


def test_every_fault_is_survived_and_accounted_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"id": f"F{i:02d}", "slice": "s", "question": f"q{i} [fact:ok]",
         "expected_behavior": "answer", "expected_fact": "ok"}
        for i in range(CASES)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    stats = tmp_path / "faults.json"
    monkeypatch.setenv("ASSAY_FAULT_KEY", KEY)
    flags = ("--fault-rate", "0.3", "--seed", "11", "--retry-after", "0.2", "--hang-s", "3")
    with mock_server(*flags, "--stats", str(stats), script=BENCH / "mock_faults.py") as url:
        suite = tmp_path / "suite.yaml"
        suite.write_text(
            f"dataset: cases.jsonl\ntarget:\n  type: openai\n  base_url: {url}\n  model: m\n"
            "  api_key_env: ASSAY_FAULT_KEY\n"
            f"concurrency: 8\ntrials: {TRIALS}\ntimeout_s: 1\nretries: 3\n"
        )
        store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
        try:
            result = run_suite(suite, store)
            records = store.records(result.run_id)
        finally:
            store.close()
    seen = json.loads(stats.read_text())

    assert result.status == "completed"
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == CASES * TRIALS  # none lost, none twice
    assert sum(r.attempts for r in records) == seen["requests"]  # every attempt recorded
    failed_attempts = [a for r in records for a in r.extra.get("failed_attempts", [])]
    final_errors = [r for r in records if isinstance(r.outcome, Error)]
    answers = [r for r in records if isinstance(r.outcome, Answer)]
    assert len(answers) == seen["answered"]
    assert len(failed_attempts) + len(final_errors) == seen["faulted"] > 0.2 * seen["requests"]
    assert set(seen["faults"]) == {
        "http_500", "http_429", "reset", "hang", "garbage", "truncated", "empty", "echo"
    }  # fmt: skip
    waited = [a for a in failed_attempts if a["error_class"] == "http_429"]
    assert waited and all(a["waited_s"] >= a["retry_after_s"] == 0.2 for a in waited)
    statuses = result.report.statuses
    assert statuses.passed + statuses.failed + statuses.error + statuses.missing == CASES * TRIALS
    for path in tmp_path.iterdir():
        if path.name.startswith("runs.db") and path.is_file():
            assert KEY.encode() not in path.read_bytes()
    assert os.environ["ASSAY_FAULT_KEY"] == KEY
