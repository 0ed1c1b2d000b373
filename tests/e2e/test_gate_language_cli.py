"""One gate language: ``assay gate``, ``assay compare --gate`` and a suite's ``gates:``
refuse a rate threshold off the 0–1 scale alike, suggesting the fraction."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.inprocess import run_inprocess

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"


@pytest.fixture
def report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "r.json"
    done = run_inprocess(
        capsys, "score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-o", out
    )
    assert done.returncode == 0, done.stderr
    return out


def test_gate_refuses_a_rate_written_as_a_percentage_number(
    report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_inprocess(capsys, "gate", report, "--rule", "task_success>=80")
    assert done.returncode == 2
    assert "task_success is a rate from 0 to 1" in done.stderr
    assert "did you mean 'task_success>=0.80' (or 80%)?" in done.stderr
    passed = run_inprocess(capsys, "gate", report, "--rule", "task_success>=30%")
    assert passed.returncode == 0, passed.stderr


def test_compare_gate_speaks_the_same_language(
    report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_inprocess(capsys, "compare", report, report, "--gate", "task_success_delta>=5")
    assert done.returncode == 2
    assert (
        "--gate 'task_success_delta>=5': task_success_delta is a rate from -1 to 1" in done.stderr
    )
    allowed = run_inprocess(
        capsys, "compare", report, report, "--gate", "task_success_delta>=-2%", "--gate",
        "newly_broken<=0",
    )  # fmt: skip
    assert allowed.returncode == 0, allowed.stderr
    assert "gate passed: task_success_delta>=-2%" in allowed.stderr


def test_a_suite_gate_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        (POLICY / "suite.yaml")
        .read_text(encoding="utf-8")
        .replace("policy.jsonl", str(POLICY / "policy.jsonl"))
        + "gates:\n  - task_success>=80\n",
        encoding="utf-8",
    )
    store = tmp_path / "assay.db"
    done = run_inprocess(capsys, "run", suite, "--store", store)
    assert done.returncode == 2
    assert f"{suite}:14: gates[0]: gate rule 'task_success>=80'" in done.stderr
    assert not store.exists()


def test_gate_reads_a_composite_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = POLICY.parent / "golden17"
    out = tmp_path / "composite.json"
    made = run_inprocess(
        capsys, "composite", golden / "golden17.jsonl", golden / "checks.jsonl", "-o", out
    )
    assert made.returncode == 0, made.stderr
    done = run_inprocess(
        capsys, "gate", out, "--rule", "composite_pass>=0.5", "--rule", "strict_pass.low>=0.2"
    )
    assert done.returncode == 0, done.stderr
    assert "PASS  composite_pass>=0.5" in done.stdout
    assert "composite_pass = 0.7059 (12/17)" in done.stdout
    failed = run_inprocess(capsys, "gate", out, "--rule", "composite_pass>=0.9")
    assert failed.returncode == 1
    assert "FAIL  composite_pass>=0.9" in failed.stdout
    for rule, message in (
        ("composite_pass>=70", "did you mean 'composite_pass>=0.70' (or 70%)?"),
        ("task_success>=0.5", "unknown field 'task_success'"),
    ):
        refused = run_inprocess(capsys, "gate", out, "--rule", rule)
        assert refused.returncode == 2 and message in refused.stderr
    no_junit = run_inprocess(
        capsys, "gate", out, "--rule", "composite_pass>=0.5", "--junit", tmp_path / "j.xml"
    )
    assert no_junit.returncode == 2 and "is a composite report" in no_junit.stderr
