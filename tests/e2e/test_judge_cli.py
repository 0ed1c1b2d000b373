"""The rubric judge through the real CLI, against a scripted judge on 127.0.0.1: score
--grader, calibrate, suites with grader type judge (interrupted and resumed), regrade, and
compare refusing runs graded by different judges."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import RunAssay
from tests.judge_server import candidate_of, judge_server, keyword_verdict

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ROOT / "examples" / "judge"


def _judge_file(tmp_path: Path, url: str, name: str = "judge.yaml", **extra: Any) -> Path:
    lines = [f"base_url: {url}", "model: scripted", "retries: 0"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _shipped_calibration(run_assay: RunAssay, tmp_path: Path, url: str) -> Path:
    """The shipped calibration set judged by the judge at ``url`` (``judged.json`` in
    ``tmp_path``) and calibrated against its labels: the calibration report's path
    (``calibration.json`` in ``tmp_path``)."""
    judged = tmp_path / "judged.json"
    done = run_assay(
        "score",
        JUDGE / "calibration.yaml",
        JUDGE / "calibration-answers.jsonl",
        "--grader",
        _judge_file(tmp_path, url, concurrency=1),
        "-f",
        "json",
        "-o",
        judged,
    )
    assert done.returncode == 0, done.stderr
    cal = tmp_path / "calibration.json"
    done = run_assay(
        "calibrate", JUDGE / "calibration-labels.jsonl", judged, "-f", "json", "-o", cal
    )
    assert done.returncode == 0, done.stderr
    return cal


def test_score_with_the_judge_then_calibrate(run_assay: RunAssay, tmp_path: Path) -> None:
    report = tmp_path / "judged.json"
    with judge_server(keyword_verdict) as url:
        done = run_assay(
            "score",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "--grader",
            _judge_file(tmp_path, url),
            "-f",
            "json",
            "-o",
            report,
        )
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert data["total"] == 44 and data["graders"][0]["name"] == "judge"
    assert all(row["judge"]["score"] in (0, 1, 2) for row in data["cases"])
    # the judge's own calls and tokens, apart from the target's (the recorded answers have
    # no usage: no target usage section)
    assert "usage" not in data
    assert data["judge_usage"] == {
        "asked": 44,
        "cached": 0,
        "failed": 0,
        "attempts": 44,
        "input_tokens": 4400,
        "input_reported": 44,
        "output_tokens": 880,
        "output_reported": 44,
    }

    done = run_assay("calibrate", JUDGE / "calibration-labels.jsonl", report, "-f", "json")
    assert done.returncode == 0, done.stderr
    cal = json.loads(done.stdout)
    assert cal["judged"] == 44 and cal["ungraded"] == []
    # the keyword judge cannot see a wrong citation: the three wrong-citation answers
    # (human 1) are its false accepts, and it never rejects a human pass
    fa, fr = cal["false_accepts"], cal["false_rejects"]
    assert (fa["numerator"], fa["denominator"]) == (3, 26)
    assert (fr["numerator"], fr["denominator"]) == (0, 18)
    assert fa["ci"][0] > 0 and fa["ci"][1] < 0.35
    assert cal["confusion"] == [[16, 0, 0], [1, 6, 3], [0, 0, 18]]
    assert 0.8 < cal["kappa"]["value"] < 1
    assert {d["id"] for d in cal["disagreements"]} == {"C09", "C18", "C24", "C27"}

    text = run_assay("calibrate", JUDGE / "calibration-labels.jsonl", report)
    assert "False accepts          3/26  11.5%" in text.stdout
    assert "wrong-citation" in text.stdout


def test_a_failing_judge_leaves_every_case_ungraded_in_every_format(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    replies = iter(["not json", None, '{"score": 3, "findings": [], "rationale": ""}'] * 20)
    with judge_server(lambda body: next(replies)) as url:
        grader = _judge_file(tmp_path, url, concurrency=1)
        for fmt in ("text", "json", "markdown", "html", "junit"):
            done = run_assay(
                "score",
                ROOT / "examples/policy/policy-rubric.yaml",
                ROOT / "examples/policy/answers-text.jsonl",
                "--grader",
                grader,
                "-f",
                fmt,
            )
            assert done.returncode == 0, done.stderr
            assert "ungraded" in done.stdout, fmt
            if fmt in ("text", "markdown", "html"):  # the judge's calls, apart
                assert re.search(
                    r"Judge \(apart from the target\S+ usage\): calls 3 of 3", done.stdout
                ), fmt
            if fmt == "json":
                data = json.loads(done.stdout)
                assert data["statuses"]["passed"] == 1  # E3's abstention, no call needed
                assert data["ungraded"] == 3 and data["success"] == 1  # E1, E2, E4 judged
                saved = tmp_path / "report.json"
                saved.write_text(done.stdout)
                gate = run_assay("gate", saved, "--rule", "ungraded==0")
                assert gate.returncode == 1, gate.stderr  # ungraded cases fail the gate
                reasons = {r["id"]: r["reason"] for r in data["cases"]}
                assert any(
                    "invalid_json" in r or "off_scale" in r or "http_5xx" in r
                    for r in reasons.values()
                )


def test_bad_labels_and_bad_judge_settings_exit_2(run_assay: RunAssay, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"id": "C01", "human_score": 2}\n{"id": "C02", "human_score": 5}\n')
    report = tmp_path / "r.json"
    report.write_text("{}")
    done = run_assay("calibrate", labels, report)
    assert done.returncode == 2
    assert f"{labels}:2" in done.stderr and "human_score" in done.stderr
    assert "Traceback" not in done.stderr

    bad = tmp_path / "judge.yaml"
    bad.write_text("base_url: http://127.0.0.1:1/v1\nmodel: m\nrubric:\n  pass_minimum: 3\n")
    done = run_assay(
        "score",
        ROOT / "examples/policy/policy-rubric.yaml",
        ROOT / "examples/policy/answers-text.jsonl",
        "--grader",
        bad,
    )
    assert done.returncode == 2
    assert f"{bad}:4" in done.stderr and "rubric.pass_minimum" in done.stderr
    assert "Traceback" not in done.stderr


def _suite(tmp_path: Path, url: str, cases: int = 12) -> Path:
    rows = [
        {
            "id": f"C{i:02d}",
            "slice": "s",
            "question": "How many days?",
            "expected_behavior": "answer",
            "expected_fact": "return_30",
            "required": ["30 days"],
        }
        for i in range(cases)
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        "target:\n  type: scripted\n  default: {kind: answer, text: Within 30 days.}\n"
        f"grader:\n  type: judge\n  base_url: {url}\n  model: scripted\n  concurrency: 1\n"
        "concurrency: 2\n"
    )
    return suite


def _popen(*args: str | Path, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "assay", *map(str, args)],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _judgments(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=10) as conn:
        try:
            return list(conn.execute("SELECT case_id, grader FROM judgments"))
        except sqlite3.OperationalError:
            return []


def test_a_judged_run_interrupted_mid_judging_resumes_to_every_case_once(tmp_path: Path) -> None:
    def slow(body: dict[str, Any]) -> str:
        time.sleep(0.3)
        return keyword_verdict(body)

    db = tmp_path / ".assay" / "assay.db"
    with judge_server(slow) as url:
        suite = _suite(tmp_path, url)
        proc = _popen("run", suite, cwd=tmp_path)
        for _ in range(1200):
            if len(_judgments(db)) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be stopped"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        first = _judgments(db)
        assert 0 < len(first) < 12
        with sqlite3.connect(db) as conn:
            run_id = conn.execute("SELECT id FROM runs").fetchone()[0]
        resumed = _popen("run", "--resume", run_id, "-f", "json", cwd=tmp_path)
        out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    report = json.loads(out)
    assert report["statuses"]["passed"] == 12
    judged = _judgments(db)
    assert sorted(c for c, _ in judged) == [f"C{i:02d}" for i in range(12)]
    assert {g for _, g in judged} == {"judge"}


def test_regrade_makes_a_linked_run_and_compare_refuses_another_judge(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    db = tmp_path / ".assay" / "assay.db"
    with judge_server(keyword_verdict) as url:
        suite = _suite(tmp_path, url, cases=4)
        done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        first = json.loads(done.stdout)["run_id"]
        other = _judge_file(tmp_path, url, "other.yaml", temperature=0.5)
        again = run_assay("regrade", first, "--grader", other, "-f", "json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    assert second["run_id"] != first and second["statuses"]["passed"] == 4
    assert second["metadata"]["run"]["metadata"]["regrade_of"] == first
    with sqlite3.connect(db) as conn:
        assert (
            conn.execute(
                "SELECT COUNT(*) FROM records WHERE run_id = ?", (second["run_id"],)
            ).fetchone()[0]
            == 4
        )

    refused = run_assay("compare", first, second["run_id"], cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "not graded by the same judge" in refused.stderr
    assert "--across-graders" in refused.stderr
    allowed = run_assay("compare", first, second["run_id"], "--across-graders", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "graders.judge" in allowed.stdout


def test_a_suite_gate_requires_the_judges_calibration(run_assay: RunAssay, tmp_path: Path) -> None:
    with judge_server(keyword_verdict) as url:
        cal = _shipped_calibration(run_assay, tmp_path, url)
        judged = tmp_path / "judged.json"  # the judged answers it calibrated against
        suite = _suite(tmp_path, url, cases=2)
        base = suite.read_text()
        # false accepts 3/26 [2.4%, 30.2%], false rejects 0/18 [0%, 18.5%], kappa 0.906
        # [0.817, 0.995]
        for bounds, code, said in (
            ("max_false_accept_upper: 0.35", 0, "gate passed"),
            ("max_false_accept_upper: 0.2", 1, "upper bound 30.2% is above the maximum 20.0%"),
            (
                "max_false_accept_upper: 0.35, max_false_reject_upper: 0.2, min_kappa_lower: 0.8",
                0,
                "gate passed",
            ),
            (
                "max_false_accept_upper: 0.35, max_false_reject_upper: 0.1",
                1,
                "false rejects 0/18: upper bound 18.5% is above the maximum 10.0%",
            ),
            (
                "max_false_accept_upper: 0.35, min_kappa_lower: 0.9",
                1,
                "weighted kappa 0.906: lower bound 0.817 is below the minimum 0.9",
            ),
        ):
            suite.write_text(
                base.replace(
                    "  concurrency: 1\n",
                    f"  concurrency: 1\n  calibration: {{report: calibration.json, {bounds}}}\n",
                )
                + "gates: ['task_success>=0']\n"
            )
            done = run_assay("run", suite, cwd=tmp_path)
            assert done.returncode == code, done.stderr
            assert said in done.stderr
        # a calibration that counted a human pass at 1 (written before judgments recorded
        # their pass minimum) does not vouch for a judge that passes at 2
        lenient = json.loads(cal.read_text())
        lenient["pass_minimum"] = 1
        del lenient["judge"]["pass_minimum"]
        (tmp_path / "lenient.json").write_text(json.dumps(lenient))
        suite.write_text(
            base.replace(
                "  concurrency: 1\n",
                "  concurrency: 1\n"
                "  calibration: {report: lenient.json, max_false_accept_upper: 0.9}\n",
            )
            + "gates: ['task_success>=0']\n"
        )
        done = run_assay("run", suite, cwd=tmp_path)
        assert done.returncode == 1
        assert "counts a human pass at score 1, but the judge passes a case at score 2" in (
            done.stderr
        )
        # and assay calibrate refuses to count human passes at another score than the judge
        done = run_assay(
            "calibrate", JUDGE / "calibration-labels.jsonl", judged, "--pass-minimum", "1"
        )
        assert done.returncode == 2 and "passed cases at score 2" in done.stderr
        assert "Traceback" not in done.stderr
        suite.write_text(
            base.replace(
                "  concurrency: 1\n",
                "  concurrency: 1\n  calibration:\n    report: calibration.json\n"
                "    max_false_accept_upper: 0.35\n",
            )
            + "gates: ['task_success>=0']\n"
        )
        # another judge model: the report does not vouch for it
        suite.write_text(suite.read_text().replace("model: scripted", "model: other"))
        done = run_assay("run", suite, cwd=tmp_path)
        assert done.returncode == 1
        assert "not the current judge v1+" in done.stderr


def test_the_judge_call_has_its_own_span_with_its_usage(tmp_path: Path) -> None:
    db = tmp_path / ".assay" / "assay.db"
    with judge_server(keyword_verdict) as url:
        suite = _suite(tmp_path, url, cases=2)
        suite.write_text(suite.read_text() + "trace: true\n")
        done = _popen("run", suite, cwd=tmp_path)
        _out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT name, parent_id, attributes FROM spans").fetchall()
    judges = [(parent, json.loads(attrs)) for name, parent, attrs in rows if name == "assay.judge"]
    assert len(judges) == 2
    assert "assay.evaluation" in {name for name, _, _ in rows}
    for parent, attrs in judges:
        assert parent is not None
        assert attrs["gen_ai.request.model"] == "scripted"
        assert attrs["gen_ai.usage.input_tokens"] == 100
        assert attrs["assay.judgment.status"] == "passed"


def test_groundedness_and_citation_support_are_rates_of_their_own(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    def with_dimensions(body: dict[str, Any]) -> str:
        verdict = json.loads(keyword_verdict(body))
        text = body["messages"][-1]["content"]
        if '"citations_supported"' in body["messages"][0]["content"]:
            verdict["citations_supported"] = "standard-window" in text.split("CITED SECTIONS")[-1]
        return json.dumps(verdict)

    with judge_server(with_dimensions) as url:
        grader = _judge_file(tmp_path, url)
        done = run_assay(
            "score",
            ROOT / "examples/policy/policy-rubric.yaml",
            ROOT / "examples/policy/answers-text.jsonl",
            "--grader",
            grader,
            "-f",
            "json",
        )
        text = run_assay(
            "score",
            ROOT / "examples/policy/policy-rubric.yaml",
            ROOT / "examples/policy/answers-text.jsonl",
            "--grader",
            grader,
        )
    assert done.returncode == 0, done.stderr
    dims = json.loads(done.stdout)["judge_dimensions"]
    # E1 and E2 require a citation (E4 does not); groundedness was not asked for
    assert set(dims) == {"citations_supported"}
    cited = dims["citations_supported"]
    assert cited["denominator"] == 2 and cited["denominator_name"] == "answers rated for citations"
    assert "Citations (judge)" in text.stdout


def _distinct_questions(path: Path) -> None:
    """Make each case's judge request its own (identical requests share a cached verdict)."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        row["question"] = f"How many days? ({row['id']})"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_judge_replies_are_cached_like_target_replies_and_counted_apart(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    seen: list[dict[str, Any]] = []
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    with judge_server(keyword_verdict, seen) as url:
        suite = _suite(tmp_path, url, cases=3)
        suite.write_text(suite.read_text() + "cache: true\ntrials: 2\ntrace: false\n")
        _distinct_questions(tmp_path / "cases.jsonl")
        first = run_assay("run", suite, "--store", store, "-f", "json")
        assert first.returncode == 0, first.stderr
        assert len(seen) == 6  # three cases × two trials: each trial its own judge request
        nonces = {re.search(r"<<CANDIDATE-(\w+)>>", json.dumps(b)).group(1) for b in seen}  # type: ignore[union-attr]
        assert len(nonces) == 6  # each request has its own nonce, yet the rerun hits
        again = run_assay("run", suite, "--store", store, "-f", "json")
        assert again.returncode == 0, again.stderr
        assert len(seen) == 6  # no judge call: every verdict came from the cache
    report = json.loads(again.stdout)
    assert report["statuses"]["passed"] == 6
    assert (report["cache"]["served"], report["cache"]["judge_served"]) == (6, 6)
    assert json.loads(first.stdout)["cache"]["judge_served"] == 0
    text = run_assay("report", report["run_id"], "--store", store).stdout
    assert "judge replies from cache: 6" in " ".join(text.split())


def test_failed_and_refused_judge_replies_are_never_cached(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    seen: list[dict[str, Any]] = []
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    mode = {"reply": "fail"}

    def reply(body: dict[str, Any]) -> str | None:
        if mode["reply"] == "fail":
            return None  # HTTP 500
        if mode["reply"] == "refused":
            return "not json at all"  # a reply the judge's checks refuse: ungraded
        return keyword_verdict(body)

    def calls_of_two_runs() -> tuple[int, int]:
        counts = []
        for _ in range(2):
            before = len(seen)
            run_assay("run", suite, "--store", store)
            counts.append(len(seen) - before)
        return counts[0], counts[1]

    with judge_server(reply, seen) as url:
        suite = _suite(tmp_path, url, cases=2)
        _distinct_questions(tmp_path / "cases.jsonl")
        text = suite.read_text().replace("concurrency: 1\n", "concurrency: 1\n  retries: 0\n", 1)
        suite.write_text(text + "cache: true\ntrace: false\n")
        assert calls_of_two_runs() == (2, 2)  # failed calls: asked again
        mode["reply"] = "refused"
        assert calls_of_two_runs() == (2, 2)  # refused replies: asked again
        mode["reply"] = "verdict"
        assert calls_of_two_runs() == (2, 0)  # verdicts: kept


def test_assay_gate_requires_the_calibration_of_the_judge_that_graded(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    with judge_server(keyword_verdict) as url:
        judged = tmp_path / "judged.json"
        for model, out in (("scripted", judged), ("other", tmp_path / "other.json")):
            judge = _judge_file(tmp_path, url, name=f"{model}.yaml", concurrency=1)
            judge.write_text(judge.read_text().replace("model: scripted", f"model: {model}"))
            done = run_assay(
                "score",
                JUDGE / "calibration.yaml",
                JUDGE / "calibration-answers.jsonl",
                "--grader",
                judge,
                "-f",
                "json",
                "-o",
                out,
            )
            assert done.returncode == 0, done.stderr
        cal = tmp_path / "calibration.json"
        done = run_assay(
            "calibrate", JUDGE / "calibration-labels.jsonl", judged, "-f", "json", "-o", cal
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(cal.read_text())["judge"] == {
            "judge_model": "scripted",
            "prompt_version": "judge-prompt-2",
            "pass_minimum": "2",
        }

        # a report file: the calibration named on the command line
        gate = ["gate", "--rule", "task_success>=0", "--calibration", cal]
        done = run_assay(*gate, judged, "--max-false-accept-upper", "0.35")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS  judge_calibration.false_accepts.high<=0.35" in done.stdout
        assert "false accepts 3/26, upper bound 30.2% <= 35.0%" in done.stdout
        junit = tmp_path / "gate.xml"
        done = run_assay(
            *gate,
            judged,
            "--max-false-accept-upper",
            "0.2",
            "--junit",
            junit,
            "--markdown",
            tmp_path / "gate.md",
        )
        assert done.returncode == 1
        assert "FAIL  judge_calibration.false_accepts.high<=0.2" in done.stdout
        assert "upper bound 30.2% is above the maximum 20.0%" in done.stdout
        assert "upper bound 30.2% is above the maximum 20.0%" in junit.read_text()
        assert "judge_calibration" in (tmp_path / "gate.md").read_text()
        # the optional bounds: false rejects and kappa, each a rule of its own
        done = run_assay(
            *gate,
            judged,
            "--max-false-accept-upper",
            "0.35",
            "--max-false-reject-upper",
            "0.1",
            "--min-kappa-lower",
            "0.8",
        )
        assert done.returncode == 1
        assert "PASS  judge_calibration.false_accepts.high<=0.35" in done.stdout
        assert "FAIL  judge_calibration.false_rejects.high<=0.1" in done.stdout
        assert "PASS  judge_calibration.kappa.low>=0.8" in done.stdout
        done = run_assay("gate", judged, "-r", "task_success>=0", "--min-kappa-lower", "0.5")
        assert done.returncode == 2 and "go with --calibration" in done.stderr
        # graded by another judge model: the report does not vouch for it, and says why
        done = run_assay(*gate, tmp_path / "other.json", "--max-false-accept-upper", "0.35")
        assert done.returncode == 1
        assert "not the current judge v1+" in done.stdout
        assert "judge_model: scripted → other" in done.stdout
        # no calibration report at all
        done = run_assay(
            "gate",
            judged,
            "-r",
            "task_success>=0",
            "--calibration",
            tmp_path / "none.json",
            "--max-false-accept-upper",
            "0.35",
        )
        assert done.returncode == 1
        assert "no usable calibration report" in done.stdout
        # a report no judge graded, or half the option pair: exit 2
        plain = tmp_path / "plain.json"
        done = run_assay(
            "score",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "-f",
            "json",
            "-o",
            plain,
        )
        assert done.returncode in (0, 1), done.stderr
        done = run_assay(*gate, plain, "--max-false-accept-upper", "0.35")
        assert done.returncode == 2 and "was not graded by a model judge" in done.stderr
        assert "Traceback" not in done.stderr
        done = run_assay("gate", judged, "-r", "task_success>=0", "--calibration", cal)
        assert done.returncode == 2 and "go together" in done.stderr

        # a stored run: the requirement of the suite it was started with, as stored
        suite = _suite(tmp_path, url, cases=2)
        suite.write_text(
            suite.read_text().replace(
                "  concurrency: 1\n",
                "  concurrency: 1\n  calibration:\n    report: calibration.json\n"
                "    max_false_accept_upper: 0.35\n",
            )
        )
        db = f"sqlite:///{tmp_path / 'runs.db'}"
        done = run_assay("run", suite, "--store", db, "-f", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        run_id = json.loads(done.stdout)["run_id"]
        done = run_assay("gate", run_id, "-r", "task_success>=0", "--store", db, cwd=ROOT)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS  judge_calibration.false_accepts.high<=0.35" in done.stdout
        cal.rename(tmp_path / "moved.json")
        done = run_assay("gate", run_id, "-r", "task_success>=0", "--store", db, cwd=ROOT)
        assert done.returncode == 1
        assert "no usable calibration report" in done.stdout
        trend = run_assay(
            "gate", "--trend", "suite", "-r", "no_new_failures_vs_last", "--store", db
        )
        assert trend.returncode == 1 and "no usable calibration report" in trend.stdout
        # finishing the run again checks the stored suite's requirement too
        done = run_assay("run", "--resume", run_id, "--store", db, cwd=tmp_path)
        assert "judge calibration: no usable calibration report" in done.stderr


def test_composite_with_the_judge_as_a_critical_check(run_assay: RunAssay, tmp_path: Path) -> None:
    def judge_or_fail(body: dict[str, Any]) -> str | None:
        # the keyword judge, except that it sends no verdict for C04 and C20
        return None if candidate_of(body).startswith(UNJUDGED) else keyword_verdict(body)

    answers = [json.loads(line) for line in (JUDGE / "calibration-answers.jsonl").open()]
    texts = {a["id"]: a.get("text", "") for a in answers}
    UNJUDGED = (texts["C04"], texts["C20"])
    with judge_server(judge_or_fail) as url:
        judge = _judge_file(tmp_path, url, concurrency=2)
        plain = run_assay(
            "composite",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "-f",
            "json",
        )
        done = run_assay(
            "composite",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "--grader",
            judge,
            "-f",
            "json",
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        # the judge joins the default profile as a critical check of weight 0
        assert report["profile"]["weights"]["judge"] == 0
        assert report["profile"]["critical"][-1] == "judge"
        assert report["metadata"]["judge"]["judge_model"] == "scripted"
        assert report["metadata"]["judge"]["grader"].startswith("judge v1+")
        rows = {r["id"]: r for r in report["cases"]}
        before = {r["id"]: r for r in json.loads(plain.stdout)["cases"]}
        assert set(rows) == set(before) and len(rows) == 44
        statuses = report["statuses"]
        assert sum(statuses.values()) == 44
        for ident, row in rows.items():
            judged = row["checks"]["judge"]
            if ident in ("C04", "C20"):  # no verdict: ungraded with the reason, in no pass
                assert row["status"] == "ungraded" and row["verdict"] == "ungraded"
                assert judged["passed"] is None
                assert "the judge left it ungraded" in judged["reason"]
                assert row["score"] is None
            elif judged["passed"] is False:  # a veto: the checks' pass cannot stand
                assert row["verdict"] == "fail" and "judge" in row["critical_failures"]
            else:  # a pass by the judge changes nothing the checks decided
                assert row["verdict"] == before[ident]["verdict"]
                assert row["score"] == before[ident]["score"]
        vetoed = [i for i, r in rows.items() if "judge" in r["critical_failures"]]
        assert vetoed and all(before[i]["checks"] for i in vetoed)
        assert report["check_failures"]["judge"]["not_evaluated"] == 2
        assert statuses["ungraded"] >= 2
        assert (
            report["composite_pass"]["numerator"]
            <= json.loads(plain.stdout)["composite_pass"]["numerator"]
        )

        # a profile that weighs the judge: its pass adds to the score
        weighed = tmp_path / "profile.yaml"
        weighed.write_text(
            "threshold: 0.5\ncritical: []\nweights: {judge: 0.6, answer_not_empty: 0.4}\n"
        )
        done = run_assay(
            "composite",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "--grader",
            judge,
            "--profile",
            weighed,
            "-f",
            "json",
        )
        assert done.returncode == 0, done.stderr
        rows = {r["id"]: r for r in json.loads(done.stdout)["cases"]}
        assert rows["C01"]["score"] == 1.0 and rows["C01"]["verdict"] == "pass"
        judged_fail = [r for r in rows.values() if r["checks"]["judge"]["passed"] is False]
        assert judged_fail and all(r["score"] == 0.4 for r in judged_fail)
        text = run_assay(
            "composite",
            JUDGE / "calibration.yaml",
            JUDGE / "calibration-answers.jsonl",
            "--grader",
            judge,
        )
        assert "judge" in text.stdout and "C04" in text.stdout
    # a profile naming the judge without --grader: refused, exit 2
    done = run_assay(
        "composite",
        JUDGE / "calibration.yaml",
        JUDGE / "calibration-answers.jsonl",
        "--profile",
        weighed,
    )
    assert done.returncode == 2 and "judge" in done.stderr and "Traceback" not in done.stderr


def test_ungraded_judgments_move_in_compare_and_fail_a_comparison_gate(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    broken = {"now": True}

    def reply(body: dict[str, Any]) -> str | None:
        return "not json at all" if broken["now"] else keyword_verdict(body)

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    ids = []
    with judge_server(reply) as url:
        suite = _suite(tmp_path, url, cases=3)
        for now in (False, True, False):  # judged, every reply refused, judged again
            broken["now"] = now
            done = run_assay("run", suite, "--store", db, "-f", "json", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            ids.append(json.loads(done.stdout)["run_id"])
    # the same judge graded all three: the comparison is made, and the moves are listed
    worse = run_assay("compare", ids[0], ids[1], "--store", db, "-f", "json")
    assert worse.returncode == 0, worse.stderr
    data = json.loads(worse.stdout)
    assert {(m["id"], m["from"], m["to"]) for m in data["moved"]} == {
        (f"C{i:02d}", "passed", "ungraded") for i in range(3)
    }
    text = run_assay("compare", ids[0], ids[1], "--store", db)
    assert "Moved (3)" in text.stdout and "ungraded" in text.stdout
    # a pass that became ungraded is no improvement a gate may wave through
    gate = run_assay("compare", ids[0], ids[1], "--store", db, "--gate", "no-new-failures")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    back = run_assay("compare", ids[1], ids[2], "--store", db, "-f", "json")
    assert {(m["from"], m["to"]) for m in json.loads(back.stdout)["moved"]} == {
        ("ungraded", "passed")
    }


def test_a_run_shows_task_success_corrected_for_its_judges_measured_errors(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    with judge_server(keyword_verdict) as url:
        _shipped_calibration(run_assay, tmp_path, url)
        suite = _suite(tmp_path, url, cases=12)
        suite.write_text(
            suite.read_text().replace(
                "  concurrency: 1\n",
                "  concurrency: 1\n"
                "  calibration: {report: calibration.json, max_false_accept_upper: 0.35}\n",
            )
            + "gates: ['task_success.corrected>=0', 'task_success.worst>=0']\n"
        )
        done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        correction = report["judge_correction"]
        # false accepts 3/26 and false rejects 0/18, as the calibration measured them
        assert correction["calibration"]["false_accepts"] == 3
        assert correction["calibration"]["human_fail"] == 26
        assert correction["calibration"]["human_pass"] == 18
        fixed = correction["corrected"]
        low, high = fixed["ci"]
        assert low <= fixed["value"] <= high
        # every case passed and the judge rejected no human pass (sensitivity 1): the
        # estimate stays at 100%, its interval does not
        assert fixed["value"] == correction["judge"]["value"] == 1.0
        assert 0.5 < low < 0.95 and high == 1.0
        run_id = report["run_id"]
        shown = run_assay("report", run_id, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        said = " ".join(shown.stdout.split())  # the text report wraps long lines
        assert "Judge: 100.0% [73.5%, 100.0%]; corrected for the judge's measured errors:" in said
        assert "calibration: 44 labels, prompt judge-prompt-" in said
        assert "false accepts 3/26, false rejects 0/18" in said
        # another judge model: the calibration does not apply, says why, shows no
        # corrected rate, and a gate on the corrected rate fails with the reason
        suite.write_text(suite.read_text().replace("model: scripted", "model: other"))
        done = run_assay("run", suite, cwd=tmp_path)
        assert done.returncode == 1
        said = " ".join(done.stdout.split())
        assert "not corrected for the judge's measured errors: the calibration report is for" in (
            said
        )
        assert "judge_model: scripted → other" in said
        assert "corrected for the judge's measured errors: " not in said.replace("not corr", "")
        assert "gate FAILED: judge calibration" in done.stderr
        stale = re.search(r"^run (\S+) \(", done.stdout, re.M)
        assert stale is not None
        gated = run_assay("gate", stale[1], "-r", "task_success.corrected>=0", cwd=tmp_path)
        assert gated.returncode == 1
        assert "n/a: not corrected for the judge's measured errors: the calibration" in (
            gated.stdout
        )


def test_assay_runs_says_which_runs_a_calibration_applies_to(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    with judge_server(keyword_verdict) as url:
        _shipped_calibration(run_assay, tmp_path, url)
        suite = _suite(tmp_path, url, cases=2)
        base = suite.read_text().replace(
            "  concurrency: 1\n",
            "  concurrency: 1\n  calibration: {report: calibration.json, "
            "max_false_accept_upper: 0.9}\n",
        )
        suite.write_text(base)
        assert run_assay("run", suite, cwd=tmp_path).returncode == 0
        # another judge model: the calibration does not vouch for it
        suite.write_text(base.replace("model: scripted", "model: other"))
        done = run_assay("run", suite, cwd=tmp_path)
        assert "not the current judge" in done.stderr
        # no model judge at all
        suite.write_text(base.split("grader:")[0])
        assert run_assay("run", suite, cwd=tmp_path).returncode == 0
    done = run_assay("runs", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    states = [row["calibration"] for row in json.loads(done.stdout)]  # newest first
    assert states[0] == "-"
    assert states[1].startswith("stale: the calibration report is for judge v1+")
    assert "judge_model: scripted → other" in states[1]
    assert states[2] == "applies"
    text = run_assay("runs", cwd=tmp_path).stdout
    assert "Calibration" in text and "applies" in text
    assert "stale: the calibration report is for ju…" in text  # cut: the JSON has it whole


def test_calibrating_a_report_file_of_a_stored_run_records_the_runs_judge(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    labels = JUDGE / "calibration-labels.jsonl"
    with judge_server(keyword_verdict) as url:
        done = run_assay("run", _suite(tmp_path, url), "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    report = tmp_path / "report.json"
    report.write_text(done.stdout, encoding="utf-8")
    stored = run_assay("calibrate", labels, run_id, "-f", "json", cwd=tmp_path)
    from_file = run_assay("calibrate", labels, report, "-f", "json", cwd=tmp_path)
    assert stored.returncode == 0 and from_file.returncode == 0, stored.stderr + from_file.stderr
    judge = json.loads(stored.stdout)["judge"]
    assert len(judge) > 3, judge  # the model, and the versions and settings it recorded
    assert json.loads(from_file.stdout)["judge"] == judge  # measured against the same judge
    # without the store the file's rows say what they recorded, no more
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    alone = run_assay("calibrate", labels, report, "-f", "json", cwd=elsewhere)
    assert alone.returncode == 0, alone.stderr
    assert set(json.loads(alone.stdout)["judge"]) < set(judge)


def test_with_trials_that_agree_the_corrected_interval_is_the_one_trial_run_s(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    """Three trials of a case that answers the same each time carry no more information
    than one: the corrected interval of the run with three trials, clustered by case, is
    the one-trial run's, not three times as sure."""
    with judge_server(keyword_verdict) as url:
        _shipped_calibration(run_assay, tmp_path, url)
        suite = _suite(tmp_path, url, cases=20)
        wrong = {f"C{i:02d}": {"kind": "answer", "text": "Within 60 days."} for i in range(8)}
        text = suite.read_text().replace(
            "  default: {kind: answer, text: Within 30 days.}\n",
            "  default: {kind: answer, text: Within 30 days.}\n"
            f"  outcomes: {json.dumps(wrong)}\n",
        )
        text = text.replace(
            "  concurrency: 1\n",
            "  concurrency: 1\n"
            "  calibration: {report: calibration.json, max_false_accept_upper: 0.35}\n",
        )
        found = {}
        for trials in (1, 3):
            suite.write_text(text + f"trials: {trials}\n")
            done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            report = json.loads(done.stdout)
            assert report["statuses"]["passed"] == 12 * trials
            found[trials] = report["judge_correction"]["corrected"]
    one, three = found[1], found[3]
    assert three["value"] == pytest.approx(one["value"])
    assert three["ci"] == pytest.approx(one["ci"], abs=1e-9)
    low, high = one["ci"]
    assert 0 < low < one["value"] < high < 1


# A judge of known error rates, built from how a keyword judge errs: it misses the fact
# written in words (a false reject) and finds it in an answer that names it only to deny
# it (a false accept). Every answer is of one of four kinds whose truth is known.
_RIGHT, _MISSED = "Within 30 days.", "Within thirty days."
_WRONG, _FOOLING = "Within 60 days.", "Not 30 days: 60 days."


def _answers(right: int, missed: int, wrong: int, fooling: int) -> list[tuple[str, bool]]:
    """(answer, truly correct) in a fixed interleaved order."""
    kinds = [(_RIGHT, True)] * right + [(_MISSED, True)] * missed
    kinds += [(_WRONG, False)] * wrong + [(_FOOLING, False)] * fooling
    return kinds[::2] + kinds[1::2]


def test_a_judge_of_known_error_rates_is_corrected_to_the_known_truth(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    """False rejects 10% and false accepts 40%, as measured on 200 labelled answers and
    as the judge makes them on a run of 400 whose true task success is 60%: the judge's
    own rate (70%) misses the truth; the corrected one is 60% and its interval covers it."""
    calibration = _answers(right=90, missed=10, wrong=60, fooling=40)
    run = _answers(right=216, missed=24, wrong=96, fooling=64)
    truth = sum(ok for _, ok in run) / len(run)
    assert truth == 0.6

    def dataset(path: Path, n: int) -> None:
        rows = [
            {"id": f"K{i:03d}", "slice": "s", "question": "How many days?",
             "expected_behavior": "answer", "expected_fact": "return_30",
             "required": ["30 days"]}
            for i in range(n)
        ]  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    dataset(tmp_path / "labelled.jsonl", len(calibration))
    (tmp_path / "answers.jsonl").write_text(
        "".join(
            json.dumps({"id": f"K{i:03d}", "kind": "answer", "text": text}) + "\n"
            for i, (text, _) in enumerate(calibration)
        )
    )
    (tmp_path / "labels.jsonl").write_text(
        "".join(
            json.dumps({"id": f"K{i:03d}", "human": "pass" if ok else "fail"}) + "\n"
            for i, (_, ok) in enumerate(calibration)
        )
    )
    with judge_server(keyword_verdict) as url:
        judge = _judge_file(tmp_path, url, concurrency=4)
        judged = tmp_path / "judged.json"
        done = run_assay(
            "score", tmp_path / "labelled.jsonl", tmp_path / "answers.jsonl",
            "--grader", judge, "-f", "json", "-o", judged,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        done = run_assay(
            "calibrate", tmp_path / "labels.jsonl", judged, "-f", "json",
            "-o", tmp_path / "calibration.json",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        measured = json.loads((tmp_path / "calibration.json").read_text())
        assert measured["false_rejects"]["numerator"] == 10  # of 100 human passes
        assert measured["false_accepts"]["numerator"] == 40  # of 100 human fails
        dataset(tmp_path / "cases.jsonl", len(run))
        outcomes = {f"K{i:03d}": {"kind": "answer", "text": t} for i, (t, _) in enumerate(run)}
        suite = tmp_path / "suite.yaml"
        suite.write_text(
            "dataset: cases.jsonl\n"
            f"target:\n  type: scripted\n  outcomes: {json.dumps(outcomes)}\n"
            f"grader:\n  type: judge\n  base_url: {url}\n  model: scripted\n  retries: 0\n"
            "  concurrency: 4\n"
            "  calibration: {report: calibration.json, max_false_accept_upper: 0.6}\n"
            "concurrency: 4\n"
        )
        done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    raw = report["task_success"]
    assert raw["value"] == 0.7 and not raw["ci"][0] <= truth <= raw["ci"][1]
    fixed = report["judge_correction"]["corrected"]
    assert fixed["value"] == pytest.approx(truth)
    assert fixed["ci"][0] < truth < fixed["ci"][1]


def test_a_stored_run_gated_against_a_report_file_still_needs_its_calibration(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    """The calibration a run's suite requires is checked when the run is gated, whatever
    file its baseline comes from."""
    with judge_server(keyword_verdict) as url:
        _shipped_calibration(run_assay, tmp_path, url)
        suite = _suite(tmp_path, url, cases=2)
        suite.write_text(
            suite.read_text().replace(
                "  concurrency: 1\n",
                "  concurrency: 1\n"
                "  calibration: {report: calibration.json, max_false_accept_upper: 0.2}\n",
            )
            + "gates: ['task_success>=0']\n"
        )
        done = run_assay("run", suite, "-f", "json", cwd=tmp_path)
    assert done.returncode == 1  # false accepts 3/26: upper bound 30.2% above 20%
    run_id = json.loads(done.stdout)["run_id"]
    base = tmp_path / "base.json"
    shown = run_assay("report", run_id, "-f", "json", "-o", base, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    for extra in (
        ["-r", "task_success>=0"],
        ["-r", "not_worse_than_baseline(0.5)", "--baseline", str(base)],
    ):
        gated = run_assay("gate", run_id, *extra, cwd=tmp_path)
        assert gated.returncode == 1, (extra, gated.stdout, gated.stderr)
        assert "upper bound 30.2% is above the maximum 20.0%" in gated.stdout + gated.stderr
