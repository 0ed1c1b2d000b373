"""A judge asked several times about each recorded answer, through the real CLI against a
scripted judge on 127.0.0.1 that is unsure of one answer: ``assay regrade --repeats``, the
judge's instability apart from the system's in every report format, and a suite whose
verdict is the majority of its judge's repeats (a tie is ungraded, never a pass)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from tests.conftest import RunAssay
from tests.judge_server import candidate_of, judge_server

ANSWERS = {
    "C00": ["Within 30 days.", "Within 30 days."],
    "C01": ["Within 30 days, maybe.", "Within 30 days, maybe."],
    "C02": ["Within 30 days.", "Within 14 days."],
    "C03": ["Within 14 days.", "Within 14 days."],
}


def _unsure(period: int, passing: tuple[int, ...]) -> Any:
    """A judge that passes an answer saying "30 days", except that it is unsure of one
    saying "maybe": the n-th time it reads such an answer it passes it when n % period is
    in ``passing``."""
    asked: Counter[str] = Counter()

    def reply(body: dict[str, Any]) -> str:
        answer = candidate_of(body)
        ok = "30 days" in answer
        if "maybe" in answer:
            ok = asked[answer] % period in passing
            asked[answer] += 1
        score = 2 if ok else 0
        found = {"id": "R1", "verdict": "present", "evidence": "30 days"}
        if not ok:
            found = {"id": "R1", "verdict": "absent", "evidence": ""}
        return json.dumps({"score": score, "findings": [found], "rationale": f"scripted {score}"})

    return reply


def _suite(tmp_path: Path, url: str, **judge: Any) -> Path:
    rows = [
        {
            "id": case_id,
            "slice": "s",
            "question": f"How many days ({case_id})?",
            "expected_behavior": "answer",
            "expected_fact": "return_30",
            "required": ["30 days"],
        }
        for case_id in ANSWERS
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    outcomes = "".join(
        f"    {case_id}:\n" + "".join(f"      - {{kind: answer, text: '{t}'}}\n" for t in texts)
        for case_id, texts in ANSWERS.items()
    )
    extra = "".join(f"  {k}: {v}\n" for k, v in judge.items())
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        "trials: 2\n"
        "concurrency: 1\n"
        f"target:\n  type: scripted\n  outcomes:\n{outcomes}"
        f"grader:\n  type: judge\n  base_url: {url}\n  model: scripted\n  concurrency: 1\n"
        f"  retries: 0\n{extra}"
    )
    return suite


def _judge_file(tmp_path: Path, url: str, **extra: Any) -> Path:
    lines = [f"base_url: {url}", "model: scripted", "retries: 0", "concurrency: 1"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    path = tmp_path / "judge.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _graders(db: Path, run_id: str) -> Counter[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT grader FROM judgments WHERE run_id = ?", (run_id,))
        return Counter(g for (g,) in rows)


def test_regrade_repeats_keeps_every_judgment_and_tells_judge_noise_from_system_noise(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    db = tmp_path / ".assay" / "assay.db"
    with judge_server(_unsure(3, (0, 2))) as url:
        done = run_assay("run", _suite(tmp_path, url), "-f", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        first = json.loads(done.stdout)
        assert "judge_noise" not in first  # asked once: nothing to tell apart
        again = run_assay(
            "regrade", first["run_id"], "--grader", _judge_file(tmp_path, url),
            "--repeats", "3", "-f", "json", cwd=tmp_path,
        )  # fmt: skip
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    second = report["run_id"]
    # every repeat kept under its index beside the verdict; the first run untouched
    assert _graders(db, second) == {"judge": 8, "judge#1": 8, "judge#2": 8, "judge#3": 8}
    assert _graders(db, first["run_id"]) == {"judge": 8}
    # the verdict counted is the first repeat's: the figures are over case-trials, once
    assert report["total"] == 8 and report["statuses"]["passed"] == 5
    noise = report["judge_noise"]
    assert noise["repeats"] == 3 and noise["verdict"] == "first"
    assert (noise["judged"], noise["unstable"], noise["judge_share"]) == (8, 2, 0.25)
    assert (noise["cases"], noise["differing"], noise["system_share"]) == (4, 1, 0.25)
    # every repeat was a call of its own
    assert report["judge_usage"]["asked"] == 24 and report["judge_usage"]["failed"] == 0
    assert [(f["id"], f["trial"], f["passed"], f["failed"]) for f in noise["flips"]] == [
        ("C01", 1, 2, 1),
        ("C01", 2, 2, 1),
    ]
    # the same run's report in every format names both kinds of disagreement
    for fmt in ("text", "markdown", "html"):
        shown = run_assay("report", second, "-f", fmt, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        out = " ".join(shown.stdout.split())
        assert "Judge noise" in out, fmt
        assert "2 of 8 case-trials (25.0%)" in out, fmt
        assert "1 of 4 cases (25.0%)" in out, fmt
        assert "C01" in out, fmt
    stored = run_assay("report", second, "-f", "json", cwd=tmp_path)
    assert json.loads(stored.stdout)["judge_noise"] == noise
    # the export's rows: each case-trial's repeats, their verdicts and whether they differ
    exported = run_assay("export", second, "-f", "jsonl", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    rows = {(r["case_id"], r["trial"]): r for r in map(json.loads, exported.stdout.splitlines())}
    assert {k: r["judge_unstable"] for k, r in rows.items() if r["judge_unstable"]} == {
        ("C01", 1): True,
        ("C01", 2): True,
    }
    assert all(r["judge_repeats"] == 3 for r in rows.values())
    assert rows[("C00", 1)]["judge_verdicts"] == "passed passed passed"
    verdicts = Counter(rows[("C01", 1)]["judge_verdicts"].split())  # in repeat order
    assert verdicts == {"passed": 2, "failed": 1}
    assert rows[("C00", 1)]["judge_unstable"] is False
    # JUnit names the judge-unstable case-trials among the suite's properties
    junit = tmp_path / "gate.xml"
    gated = run_assay("gate", second, "-r", "errors==0", "--junit", junit, cwd=tmp_path)
    assert gated.returncode == 0, gated.stderr
    xml = junit.read_text(encoding="utf-8")
    assert '<property name="judge_noise.unstable_case_trials" value="C01 #1, C01 #2"' in xml
    assert '<property name="judge_noise.unstable" value="2/8"' in xml


def test_a_suite_takes_the_majority_of_its_judges_and_a_tie_is_ungraded(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    with judge_server(_unsure(2, (0,))) as url:
        suite = _suite(tmp_path, url, repeats=2, verdict="majority")
        done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = {(r["id"], r["trial"]): r for r in report["cases"]}
    for trial in (1, 2):
        tied = rows[("C01", trial)]
        assert tied["status"] == "ungraded"
        assert tied["reason"] == "judges tied 1\u20131"
    assert rows[("C00", 1)]["status"] == "passed"
    assert "majority of 2 judges (2 passed of 2)" in rows[("C00", 1)]["reason"]
    assert report["statuses"]["ungraded"] == 2 and report["statuses"]["passed"] == 3
    assert report["judge_noise"]["verdict"] == "majority"
    assert report["judge_noise"]["unstable"] == 2
    # a tie is no failed call: each of the 16 repeats was answered
    assert report["judge_usage"]["asked"] == 16 and report["judge_usage"]["failed"] == 0


def test_repeats_of_a_grader_that_judges_in_process_are_refused(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite = tmp_path / "suite.yaml"
    (tmp_path / "cases.jsonl").write_text(
        json.dumps({"id": "A", "slice": "s", "question": "q", "expected_behavior": "abstain"})
        + "\n"
    )
    suite.write_text(
        "dataset: cases.jsonl\ntarget:\n  type: scripted\n  default: {kind: abstain}\n"
    )
    done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    refused = run_assay("regrade", run_id, "--repeats", "3", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--repeats 3" in refused.stderr and "only a model judge" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_each_repeat_is_cached_as_a_request_of_its_own(run_assay: RunAssay, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with judge_server(_unsure(3, (0, 2)), seen) as url:
        suite = _suite(tmp_path, url, repeats=3)
        suite.write_text(suite.read_text() + "cache: true\ntrace: false\n")
        first = run_assay("run", suite, "-f", "json", cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        asked = len(seen)
        again = run_assay("run", suite, "-f", "json", cwd=tmp_path)
        assert again.returncode == 0, again.stderr
    # the unsure answer is asked about 3 times a trial, each time afresh
    assert asked == 24
    assert len(seen) == asked  # the second run: every repeat's reply from the cache
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    assert after["judge_usage"]["cached"] == 24
    assert after["judge_noise"] == before["judge_noise"]
    assert before["judge_noise"]["unstable"] == 2
