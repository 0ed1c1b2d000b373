"""A stored run graded by the scripted keyword judge, for the review page's tests: eight
answers the judge passes (they say "30 days") and six it fails, by default."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import run_process
from tests.judge_server import judge_server, keyword_verdict

PASSING = 8
FAILING = 6


def judged_store(tmp_path: Path, passing: int = PASSING, failing: int = FAILING) -> tuple[str, str]:
    """A store in ``tmp_path`` holding one run of suite ``review`` (``suite.yaml``) judged
    by the keyword judge: its store URL and run id. Cases ``C00``… pass, ``F00``… fail."""
    ids = [f"C{i:02d}" for i in range(passing)] + [f"F{i:02d}" for i in range(failing)]
    rows = [
        {
            "id": case_id,
            "slice": "returns",
            "question": f"How many days do I have to return item {case_id}?",
            "expected_behavior": "answer",
            "expected_fact": "return_30",
            "required": ["30 days"],
            "disallowed": ["no returns"],
        }
        for case_id in ids
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    outcomes = {
        case_id: {
            "kind": "answer",
            "text": f"Within 30 days ({case_id})." if case_id < "D" else f"Two weeks ({case_id}).",
        }
        for case_id in ids
    }
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    with judge_server(keyword_verdict) as url:
        (tmp_path / "suite.yaml").write_text(
            "name: review\n"
            "dataset: cases.jsonl\n"
            f"target: {json.dumps({'type': 'scripted', 'outcomes': outcomes})}\n"
            f"grader:\n  type: judge\n  base_url: {url}\n  model: scripted\n  retries: 0\n"
        )
        done = run_process("run", "suite.yaml", "--store", store, "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return store, json.loads(done.stdout)["run_id"]
