"""Reports written before a block that does not apply came to be omitted (each such block
null: tests/data/reports/) are still read by every command that reads a report file, with
the same result as the same report in the current shape."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunAssay

from assay.render.json import render_json
from assay.report import Report

ROOT = Path(__file__).resolve().parents[2]
OLD = ROOT / "tests" / "data" / "reports"
POLICY = ROOT / "examples" / "policy"
LABELS = ROOT / "examples" / "judge" / "calibration-labels.jsonl"


def _current_shape(old: Path, tmp_path: Path) -> Path:
    """``old`` written again as assay writes a report now (its null blocks left out)."""
    text = render_json(Report.model_validate_json(old.read_text(encoding="utf-8")))
    assert ": null" in old.read_text(encoding="utf-8") and '"cache"' not in text
    path = tmp_path / f"current-{old.name}"
    path.write_text(text, encoding="utf-8")
    return path


def test_gate_reads_an_old_report_as_it_reads_the_current_shape(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    old = OLD / "policy-null-blocks.json"
    rules = ("--rule", "task_success>=0.3", "--rule", "errors<=0")
    before = run_assay("gate", old, *rules)
    now = run_assay("gate", _current_shape(old, tmp_path), *rules)
    assert before.returncode == now.returncode == 1, before.stderr
    assert "task_success = 0.3333 (2/6), needs >= 0.3" in before.stdout
    assert before.stdout == now.stdout


def test_compare_pairs_an_old_report_with_a_new_one(run_assay: RunAssay, tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    scored = run_assay(
        "score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", "json", "-o", new
    )
    assert scored.returncode == 0, scored.stderr
    assert '"cache"' not in new.read_text(encoding="utf-8")
    done = run_assay("compare", OLD / "policy-null-blocks.json", new, "-f", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["paired"] == 6 and found["fixed"] == [] and found["broken"] == []


def test_calibrate_reads_the_judgments_of_an_old_report(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    old = OLD / "judged-null-blocks.json"
    before = run_assay("calibrate", LABELS, old, "-f", "json")
    assert before.returncode == 0, before.stderr
    cal = json.loads(before.stdout)
    assert cal["judged"] == 44 and cal["confusion"] == [[16, 0, 0], [1, 6, 3], [0, 0, 18]]
    now = run_assay("calibrate", LABELS, _current_shape(old, tmp_path), "-f", "json")
    assert {k: v for k, v in json.loads(now.stdout).items() if k != "judged_from"} == {
        k: v for k, v in cal.items() if k != "judged_from"
    }
