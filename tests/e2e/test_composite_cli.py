"""``assay composite`` and ``assay synthesize flip-check`` run as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

RunAssay = Callable[..., subprocess.CompletedProcess[str]]

GOLDEN = Path("examples/golden17")
POLICY = Path("examples/policy")
BANNER = "SYNTHETIC — NOT A REAL RUN"


def test_golden17_text_report(run_assay: RunAssay) -> None:
    done = run_assay("composite", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Composite pass  12/17" in out and "Strict pass     12/17" in out
    assert "composite passes / real cases" in out
    assert (
        "composite scoring changes nothing on these 17 real cases: every failure hits a "
        "critical check" in out
    )
    assert "passed 12 + failed 5 + error 0 + missing 0 + ungraded 0 = 17 cases (adds up)" in out
    assert BANNER not in out


def test_golden17_with_the_synthetic_case_json(run_assay: RunAssay) -> None:
    done = run_assay(
        "composite",
        GOLDEN / "golden17.synthetic.jsonl",
        GOLDEN / "checks.synthetic.jsonl",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["composite_pass"]["numerator"] == data["strict_pass"]["numerator"] == 12
    assert data["composite_pass"]["denominator"] == 17
    assert data["diverging"] == []
    fails = {c["id"] for c in data["cases"] if not c["synthetic"] and c["verdict"] == "fail"}
    assert fails == {"golden_002", "golden_005", "golden_008", "golden_010", "golden_013"}
    (synthetic,) = [c for c in data["cases"] if c["synthetic"]]
    assert synthetic["id"] == "golden_001.flip-citation_valid"
    assert (synthetic["score"], synthetic["verdict"], synthetic["strict_verdict"]) == (
        0.95,
        "pass",
        "fail",
    )
    assert data["synthetic"]["banner"] == BANNER


def test_the_shipped_synthetic_files_are_what_flip_check_writes(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    done = run_assay(
        "synthesize", "flip-check", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl",
        "--from", "golden_001", "--check", "citation_valid", "--output-dir", tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    for name in ("golden17.synthetic.jsonl", "checks.synthetic.jsonl"):
        shipped = (Path(__file__).parents[2] / GOLDEN / name).read_text(encoding="utf-8")
        assert (tmp_path / name).read_text(encoding="utf-8") == shipped


def test_flip_check_never_overwrites(run_assay: RunAssay, tmp_path: Path) -> None:
    target = tmp_path / "checks.synthetic.jsonl"
    target.write_text("mine\n", encoding="utf-8")
    done = run_assay(
        "synthesize", "flip-check", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl",
        "--from", "golden_001", "--check", "citation_valid", "--output-dir", tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "checks.synthetic.jsonl exists" in done.stderr
    assert target.read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "golden17.synthetic.jsonl").exists()


def test_flip_check_to_stdout_and_its_refusals(run_assay: RunAssay) -> None:
    done = run_assay(
        "synthesize", "flip-check", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl",
        "--from", "golden_008", "--check", "content_present",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    case_line, checks_line = (json.loads(x) for x in done.stdout.splitlines())
    assert case_line["synthetic"] is True
    assert case_line["provenance"]["source_case"] == "golden_008"
    assert checks_line["checks"]["content_present"]["passed"] is True
    bad = run_assay(
        "synthesize", "flip-check", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl",
        "--from", "golden_01", "--check", "citation_valid",
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == ""
    assert "no such case" in bad.stderr and "Traceback" not in bad.stderr


def test_policy_free_text_with_the_header_sources(run_assay: RunAssay) -> None:
    done = run_assay(
        "composite", POLICY / "policy-rubric.yaml", POLICY / "answers-text.jsonl", "-f", "json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["input"] == "free-text answers"
    assert data["sources_version"].startswith("sha256:")
    statuses = {c["id"]: c["status"] for c in data["cases"]}
    assert statuses == {
        "E1": "passed", "E2": "failed", "E3": "passed", "E4": "failed",
        "E5": "error", "E6": "failed", "E7": "missing",
    }  # fmt: skip
    assert data["composite_pass"]["numerator"] == 2


def test_a_jsonl_rubric_without_sources_is_ungraded_until_given_sources(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.jsonl"
    rubric.write_text(
        json.dumps({
            "id": "E1", "slice": "standard", "question": "How many days?",
            "source_revision": "returns-v3", "expected_behavior": "answer",
            "expected_fact": "return_window_30_days", "required": ["30 days"],
        }) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        '{"id": "E1", "kind": "answer", "text": "30 days.", "citations": ["standard-window"]}\n',
        encoding="utf-8",
    )
    without = run_assay("composite", rubric, answers, "-f", "json")
    row = json.loads(without.stdout)["cases"][0]
    assert (row["verdict"], row["status"], row["score"]) == ("ungraded", "ungraded", None)
    assert "no source snapshot for revision 'returns-v3'" in row["reason"]
    sources = Path(__file__).parents[2] / POLICY / "policy-sources.yaml"
    with_sources = run_assay("composite", rubric, answers, "--sources", sources, "-f", "json")
    assert json.loads(with_sources.stdout)["cases"][0]["verdict"] == "pass"


def test_bad_profile_and_unknown_check_exit_2_without_traceback(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(
        "threshold: 0.85\ncritical: [content_present]\n"
        "weights: {content_present: 0.5, citation_vaild: 0.4}\n",
        encoding="utf-8",
    )
    done = run_assay(
        "composite", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl", "--profile", profile
    )
    assert done.returncode == 2 and done.stdout == ""
    assert 'unknown check "citation_vaild" (did you mean "citation_valid"?)' in done.stderr
    assert "Traceback" not in done.stderr
    results = tmp_path / "r.jsonl"
    results.write_text('{"id": "golden_001", "checks": {"format_vaild": true}}\n', "utf-8")
    bad = run_assay("composite", GOLDEN / "golden17.jsonl", results)
    assert bad.returncode == 2 and bad.stdout == ""
    assert f"{results}:1" in bad.stderr and 'did you mean "format_valid"' in bad.stderr


def test_a_profile_raising_the_threshold_changes_the_verdicts(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    profile = tmp_path / "strict-ish.yaml"
    profile.write_text(
        "name: tight\nthreshold: 0.96\ncritical: [content_present, content_absent]\n"
        "weights: {answer_not_empty: 0.05, content_present: 0.25, content_absent: 0.20,\n"
        "  citation_valid: 0.05, citation_supports: 0.15, abstention_correct: 0.20,\n"
        "  format_valid: 0.10}\n",
        encoding="utf-8",
    )
    done = run_assay(
        "composite", GOLDEN / "golden17.synthetic.jsonl", GOLDEN / "checks.synthetic.jsonl",
        "--profile", profile, "-f", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["profile"]["name"] == "tight"
    (synthetic,) = [c for c in data["cases"] if c["synthetic"]]
    assert (synthetic["score"], synthetic["verdict"]) == (0.95, "fail")


def test_score_still_reads_outcome_files_and_rejects_checks_lines(run_assay: RunAssay) -> None:
    done = run_assay("score", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    assert done.returncode == 2 and done.stdout == ""
    assert "kind is required" in done.stderr
    ok = run_assay("score", POLICY / "policy.jsonl", POLICY / "results.jsonl")
    assert ok.returncode == 0, ok.stderr


def test_output_never_replaces_a_user_file_but_refreshes_its_own(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    args = ("composite", GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n", encoding="utf-8")
    refused = run_assay(*args, "--output", notes, "-f", "markdown")
    assert refused.returncode == 2 and "not an assay report" in refused.stderr
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    report = tmp_path / "composite.md"
    for _ in range(2):
        done = run_assay(*args, "--output", report, "-f", "markdown")
        assert done.returncode == 0, done.stderr
    assert report.read_text(encoding="utf-8").startswith("## assay composite")
    refused_input = run_assay(*args, "--output", GOLDEN / "checks.jsonl")
    assert refused_input.returncode == 2 and "inputs" in refused_input.stderr


def test_flip_check_carries_the_dataset_header_sources_into_its_copy(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_assay(
        "synthesize", "flip-check", POLICY / "policy-rubric.yaml", POLICY / "answers-text.jsonl",
        "--from", "E1", "--check", "citation_valid", "--output-dir", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    copy = out / "policy-rubric.synthetic.yaml"
    assert "wrote" in done.stderr and "note:" not in done.stderr
    header = copy.read_text(encoding="utf-8")
    assert "name: policy-rubric.synthetic\n" in header
    sources = Path(__file__).parents[2] / POLICY / "policy-sources.yaml"
    assert f"sources: {Path(os.path.relpath(sources, out)).as_posix()}\n" in header

    scored = run_assay("composite", copy, out / "answers-text.synthetic.jsonl", "-f", "json")
    assert scored.returncode == 0, scored.stderr
    data = json.loads(scored.stdout)
    assert data["sources_version"].startswith("sha256:")
    (synthetic,) = [c for c in data["cases"] if c["synthetic"]]
    assert (synthetic["score"], synthetic["verdict"], synthetic["strict_verdict"]) == (
        0.95, "pass", "fail",
    )  # fmt: skip
    real = run_assay(
        "composite", POLICY / "policy-rubric.yaml", POLICY / "answers-text.jsonl", "-f", "json"
    )
    assert data["composite_pass"] == json.loads(real.stdout)["composite_pass"]
