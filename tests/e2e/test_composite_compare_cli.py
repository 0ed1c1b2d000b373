"""``assay compare`` reads JSON composite reports: case-trials paired by their composite
status, the profile as configuration; a composite is never compared with a report of
another grader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.inprocess import run_inprocess

GOLDEN = Path(__file__).resolve().parents[2] / "examples" / "golden17"
POLICY = GOLDEN.parent / "policy"


def _composite(capsys: pytest.CaptureFixture[str], checks: Path, out: Path) -> Path:
    done = run_inprocess(capsys, "composite", GOLDEN / "golden17.jsonl", checks, "-o", out)
    assert done.returncode == 0, done.stderr
    return out


def test_compare_pairs_two_composite_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _composite(capsys, GOLDEN / "checks.jsonl", tmp_path / "base.json")
    lines = []
    for line in (GOLDEN / "checks.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == "golden_002":
            record["checks"] = dict.fromkeys(record["checks"], True)
        lines.append(json.dumps(record))
    fixed = tmp_path / "checks-fixed.jsonl"
    fixed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cand = _composite(capsys, fixed, tmp_path / "cand.json")
    done = run_inprocess(capsys, "compare", base, cand, "-f", "json", "--gate", "no-new-failures")
    assert done.returncode == 0, done.stderr
    comparison = json.loads(done.stdout)
    assert comparison["paired"] == 17
    assert comparison["newly_fixed"] == ["golden_002"] and comparison["newly_broken"] == []
    text = run_inprocess(capsys, "compare", base, cand)
    assert "1 fixed, 0 broken" in text.stdout


def test_a_composite_is_not_compared_with_another_graders_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    composite = _composite(capsys, GOLDEN / "checks.jsonl", tmp_path / "c.json")
    scored = tmp_path / "s.json"
    made = run_inprocess(
        capsys, "score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-o", scored
    )
    assert made.returncode == 0, made.stderr
    done = run_inprocess(capsys, "compare", composite, scored)
    assert done.returncode == 2
    assert f"{composite} is a composite report and the other side is not" in done.stderr
