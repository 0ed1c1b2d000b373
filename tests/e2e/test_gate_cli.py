"""``assay gate`` end to end: exit codes, messages, JUnit and Markdown files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.inprocess import run_cli

ROOT = Path(__file__).parents[2]
POLICY = ROOT / "examples" / "policy"


def assay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=ROOT, env=env)


@pytest.fixture
def report_json(tmp_path: Path) -> Path:
    out = tmp_path / "report.json"
    done = assay(
        "score", str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl"),
        "-f", "json", "-o", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_passing_rules_exit_0(report_json: Path) -> None:
    done = assay("gate", str(report_json), "-r", "task_success>=0.3", "-r", "errors<=1")
    assert done.returncode == 0, done.stderr
    assert "gate passed: all 2 rule(s) hold" in done.stdout


def test_failing_rule_exits_1_naming_rule_and_margin(report_json: Path, tmp_path: Path) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    junit, md = tmp_path / "out" / "junit.xml", tmp_path / "gate.md"
    done = assay(
        "gate", str(report_json),
        "--rule", "task_success>=0.8", "--rule", "answered_accuracy.low>=0.6",
        "--rule", "errors==0", "--rule", "slice[exception].task_success>=0.5",
        "--junit", str(junit), "--markdown", str(md),
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "FAIL  task_success>=0.8" in done.stdout
    assert "short by 0.4667" in done.stdout
    assert "GATE FAILED: 4 of 4 rule(s) failed" in done.stdout
    assert junit.read_text(encoding="utf-8").count("<testcase") == 4 + 6
    written = md.read_text(encoding="utf-8")
    assert "❌ assay gate" in written
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + written + "\n"


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("task_sucess>=0.8", 'did you mean "task_success"'),
        ("task_success>>0.8", "is not a number"),
    ],
)
def test_bad_rule_exits_2_without_stdout(report_json: Path, rule: str, message: str) -> None:
    done = assay("gate", str(report_json), "--rule", rule)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr


def test_not_a_report_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"total": 3}\n', encoding="utf-8")
    done = assay("gate", str(bad), "--rule", "errors==0")
    assert done.returncode == 2 and done.stdout == ""
    assert "bad.json" in done.stderr and "not an assay JSON report" in done.stderr


def test_gate_a_stored_run_by_id(run_store: tuple[str, Path], tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    done = assay(
        "gate", "cand", "--store", run_store[0], "-r", "task_success>=0.6",
        "-r", "missing==0", "--junit", str(junit),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "PASS  task_success>=0.6" in done.stdout
    assert "FAIL  missing==0" in done.stdout and "missing = 1" in done.stdout
    assert 'type="missing"' in junit.read_text(encoding="utf-8")
    unknown = assay("gate", "cnd", "--store", run_store[0], "-r", "errors==0")
    assert unknown.returncode == 2 and "did you mean" in unknown.stderr


def test_stored_run_html_report_carries_its_spans(
    run_store: tuple[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "run.html"
    done = assay("report", "base", "--store", run_store[0], "-f", "html", "-o", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert '"name":"retrieve"' in html and "2/6" in html


def test_outputs_never_overwrite_the_source(report_json: Path) -> None:
    before = report_json.read_text(encoding="utf-8")
    done = assay("gate", str(report_json), "-r", "errors==0", "--junit", str(report_json))
    assert done.returncode == 2 and "inputs" in done.stderr
    assert report_json.read_text(encoding="utf-8") == before


def test_a_gate_on_the_worst_case_of_answer_coverage_and_of_a_slice(report_json: Path) -> None:
    # the seed: 3 of 6 answered and 1 error; slice standard 1/2 with that error
    done = assay(
        "gate", str(report_json),
        "-r", "answer_coverage.worst>=0.5", "-r", "answer_coverage.best.low>0.2",
        "-r", "slice[standard].task_success.best>=1",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "answer_coverage.worst = 0.5 (3/6)" in done.stdout
    done = assay("gate", str(report_json), "-r", "answer_coverage.worst>=0.6")
    assert done.returncode == 1
    assert "answer_coverage.worst = 0.5 (3/6), needs >= 0.6: short by 0.1" in done.stdout
    done = assay("gate", str(report_json), "-r", "answer_coverage.wrost>=0.6")
    assert done.returncode == 2 and 'did you mean "worst"' in done.stderr
    done = assay("gate", str(report_json), "-r", "not_worse_than_baseline(0.02)")
    assert done.returncode == 2 and "give --baseline RUN_OR_REPORT" in done.stderr


def test_not_worse_than_baseline_against_the_report_given_as_baseline(
    report_json: Path, tmp_path: Path
) -> None:
    rule = "not_worse_than_baseline(0.9)"
    done = assay("gate", str(report_json), "-r", rule, "--baseline", str(report_json))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"PASS  {rule}" in done.stdout and f"(baseline: report {report_json})" in done.stdout
    done = assay("gate", str(report_json), "-r", "not_worse_than_baseline(0.02)",
                 "--baseline", str(report_json))  # fmt: skip
    assert done.returncode == 1 and "may be worse than the baseline" in done.stdout
    done = assay("gate", str(report_json), "-r", "errors<=1", "--baseline", str(report_json))
    assert done.returncode == 2 and "give that rule with it" in done.stderr
    base = tmp_path / "base.json"
    base.write_text(report_json.read_text(encoding="utf-8"), encoding="utf-8")
    before = base.read_bytes()
    junit = assay("gate", str(report_json), "-r", rule, "--baseline", str(base),
                  "--junit", str(base))  # fmt: skip
    assert junit.returncode == 2 and "inputs" in junit.stderr
    assert base.read_bytes() == before  # the baseline is an input, never overwritten
