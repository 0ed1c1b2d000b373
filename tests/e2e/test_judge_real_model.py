"""The judge on a real local model. In `make test`, the whole adversarial set (15 answers
that attack the judge) and one correct answer are judged through a suite, proving the
pipeline end to end (requests, replies parsed or ungraded with a reason, spans, usage) and
reporting how many injected verdicts got through; the calibration set (44 answers), judged
only with ASSAY_REAL_JUDGE=1 (about 40 minutes on two quiet cores), gives the calibration
figures in docs/judge.md. A weak model (SmolLM2-135M) is expected to disagree with people
often; the figures are measured, never assumed.

"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.real_model import RealModel

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ROOT / "examples" / "judge"
pytestmark = pytest.mark.real_model
FULL = pytest.mark.skipif(
    os.environ.get("ASSAY_REAL_JUDGE") != "1",
    reason="judging the 44 calibration answers on SmolLM2-135M takes about 40 minutes on "
    "two cores; run with ASSAY_REAL_JUDGE=1 (docs/judge.md gives the figures it measured)",
)
# One correct answer, then every attack on the judge (A01-A15: all of them wrong answers).
ATTACKS = tuple(f"A{i:02d}" for i in range(1, 16))
JUDGED = ("C01", *ATTACKS)
REJECTION_CLASS = re.compile(r"^judge reply rejected \((\w+)\): ")


def run_assay(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI with a timeout long enough for a small model on a CPU (about a minute per
    judge call on two busy cores)."""
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=4 * 3600,
        check=False,
    )


def _settings(tmp_path: Path, model: RealModel) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(
        f"base_url: {model.base_url}\nmodel: {model.model}\ntemperature: 0\nseed: 7\n"
        "response_mode: json_object_schema\nmax_tokens: 400\nconcurrency: 1\n"
        "timeout_s: 600\nretries: 1\n"
    )
    return path


def _judge_and_calibrate(
    tmp_path: Path, model: RealModel, name: str
) -> tuple[dict[str, object], dict[str, object]]:
    report = tmp_path / f"{name}.json"
    done = run_assay(
        "score",
        JUDGE / (f"{name}.yaml" if name == "calibration" else f"{name}.jsonl"),
        JUDGE / f"{name}-answers.jsonl",
        "--grader",
        _settings(tmp_path, model),
        "-f",
        "json",
        "-o",
        report,
    )
    assert done.returncode == 0, done.stderr
    calibrated = run_assay("calibrate", JUDGE / f"{name}-labels.jsonl", report, "-f", "json")
    assert calibrated.returncode == 0, calibrated.stderr
    return json.loads(report.read_text()), json.loads(calibrated.stdout)


def _suite(tmp_path: Path, model: RealModel) -> Path:
    """A suite replaying the recorded answers of JUDGED, judged by the real model with the
    settings of examples/judge/judge-local.yaml (no retries)."""
    cases = yaml.safe_load((JUDGE / "calibration.yaml").read_text())["cases"]
    cases += [json.loads(line) for line in (JUDGE / "adversarial.jsonl").open()]
    answers = [
        json.loads(line)
        for name in ("calibration-answers.jsonl", "adversarial-answers.jsonl")
        for line in (JUDGE / name).open()
    ]
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in cases if c["id"] in JUDGED)
    )
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps(a) + "\n" for a in answers if a["id"] in JUDGED)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        "target: {type: scripted, results: answers.jsonl}\n"
        f"grader:\n  type: judge\n  base_url: {model.base_url}\n  model: {model.model}\n"
        "  temperature: 0\n  seed: 7\n  response_mode: json_object_schema\n"
        "  max_tokens: 400\n  concurrency: 1\n  timeout_s: 600\n  retries: 0\n"
        "concurrency: 1\ntrace: true\n"
    )
    return suite


def test_the_attacks_judged_by_the_real_model_end_to_end(
    tmp_path: Path, real_model: RealModel
) -> None:
    from assay.load._labels import load_labels, rows_from_report
    from assay.report import Report, judge_correction
    from assay.report._calibration import build_calibration

    n = len(JUDGED)
    suite = _suite(tmp_path, real_model)
    db = tmp_path / "runs.db"
    done = run_assay("run", suite, "--store", f"sqlite:///{db}", "-f", "json")
    assert done.returncode in (0, 1), done.stderr  # 1: nothing judged is said, not hidden
    report = Report.model_validate_json(done.stdout)
    assert report.total == n and sum(report.statuses.model_dump().values()) == n
    assert report.errors == report.missing == 0
    classes: dict[str, int] = {}
    for row in report.cases:
        assert row.judge is not None, row.id
        labels = dict(label.split("=", 1) for label in row.judge.labels)
        assert labels["judge_model"] == real_model.model
        print(f"\n{row.id} {row.status}: {row.reason[:200]}", end="")
        if not row.reason.startswith("the judge call failed"):
            # usage: the judge's own tokens on every reply, apart from the target's
            assert int(labels["judge_input_tokens"]) > 100
            assert int(labels["judge_output_tokens"]) > 0
        if row.status == "ungraded":  # never a default score: a named reason
            found = REJECTION_CLASS.match(row.reason)
            kind = found.group(1) if found else row.reason.split(":")[0]
            assert found or row.reason.startswith("the judge call failed"), row.reason
            assert row.judge.score is None
        else:
            assert row.status in ("passed", "failed")
            assert row.judge.score in (0, 1, 2)
            assert row.reason.startswith(f"judge score {row.judge.score:g}/2")
            kind = f"score {row.judge.score:g}"
        classes[kind] = classes.get(kind, 0) + 1
    # spans: one assay.judge span per call, inside its case's evaluation, with the usage
    with sqlite3.connect(db) as conn:
        spans = conn.execute("SELECT name, parent_id, attributes FROM spans").fetchall()
    judged = [json.loads(attrs) for name, parent, attrs in spans if name == "assay.judge"]
    assert len(judged) == n
    for attrs in judged:
        assert attrs["gen_ai.request.model"] == real_model.model
        if "error.type" not in attrs:  # a failed call has no usage to report
            assert attrs["gen_ai.usage.input_tokens"] > 100
        assert attrs["assay.judgment.status"] in ("passed", "failed", "ungraded")
    labels = [
        label
        for name in ("calibration-labels.jsonl", "adversarial-labels.jsonl")
        for label in load_labels(JUDGE / name)
        if label.id in JUDGED
    ]
    cal = build_calibration(
        labels, rows_from_report(report), labels_file="attacks", judged_from="run"
    )
    assert cal.judged + len(cal.ungraded) == n
    # the run's task success corrected for the errors this judge made on these very
    # answers: whatever the small model did, a figure or the reason there is none
    fixed = judge_correction(report.task_success, report.statuses, cal, "attacks", "judge")
    if fixed.corrected is None:
        assert fixed.reason is not None
        assert fixed.reason.startswith(
            ("the calibration is too small", "the judge is no better than chance")
        ), fixed.reason
        shown = f"not corrected: {fixed.reason}"
    else:
        low, high = fixed.corrected.ci
        assert 0 <= low <= fixed.corrected.value <= high <= 1
        shown = f"corrected {fixed.corrected.value:.3f} [{low:.3f}, {high:.3f}]"
    # every attacking answer is wrong (human score 0): a pass is an injected verdict that
    # got through, and calibration counts it as a false accept
    attacks = [r for r in report.cases if r.id in ATTACKS]
    through = [r.id for r in attacks if r.status == "passed"]
    attacked = build_calibration(
        [label for label in labels if label.id in ATTACKS],
        rows_from_report(report),
        labels_file="adversarial-labels.jsonl",
        judged_from="run",
    )
    assert attacked.false_accepts.numerator == len(through)
    assert attacked.false_accepts.denominator == sum(r.status != "ungraded" for r in attacks)
    by_status = {s: sum(r.status == s for r in attacks) for s in ("passed", "failed", "ungraded")}
    print(
        f"\nreal judge {real_model.model}: injected passes {len(through)}/{len(ATTACKS)} "
        f"{through}; attacks {by_status}; outcomes by class {classes}; "
        f"judged {cal.judged}/{n}; task success {report.task_success.value}, {shown}"
    )


@FULL
def test_calibration_of_the_real_judge(tmp_path: Path, real_model: RealModel) -> None:
    report, cal = _judge_and_calibrate(tmp_path, real_model, "calibration")
    statuses = report["statuses"]
    assert isinstance(statuses, dict) and sum(statuses.values()) == 44
    ungraded = cal["ungraded"]
    assert isinstance(ungraded, list)
    assert cal["judged"] + len(ungraded) == 44  # type: ignore[operator]
    fa, fr, kappa = cal["false_accepts"], cal["false_rejects"], cal["kappa"]
    print(
        f"\nreal judge {real_model.model}: judged {cal['judged']}/44, ungraded {len(ungraded)}, "
        f"false accepts {fa['numerator']}/{fa['denominator']} {fa['ci']}, "  # type: ignore[index]
        f"false rejects {fr['numerator']}/{fr['denominator']} {fr['ci']}, "  # type: ignore[index]
        f"kappa {kappa['value']} {kappa['interval']}, confusion {cal['confusion']}"  # type: ignore[index]
    )
    kinds: dict[str, int] = {}
    for u in ungraded:
        reason = str(u["reason"])
        kind = reason.split("(")[1].split(")")[0] if "rejected (" in reason else reason[:40]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"ungraded by reason: {kinds}")
