"""``assay run`` with the composite grader: a free-text target, its checks' reasons stored
with each judgment and shown again by ``assay report``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from assay.store import open_store

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def test_a_free_text_suite_is_graded_by_the_composite_scorer_end_to_end(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", policy_dir / "suite-composite.yaml", "--store", store)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.splitlines()[0].split()[1]
    assert "graders: composite v1" in done.stdout
    assert "Task success            5/7" in done.stdout
    assert "critical check content_present failed: expected 'excluded from returns'" in (
        done.stdout.replace("\n                         ", " ")
    )

    runs = open_store(store)
    try:
        judgments = {j.case_id: j for j in runs.judgments(run_id)}
        (entry,) = runs.get_run(run_id).graders
    finally:
        runs.close()
    assert json.loads(entry["profile"])["critical"] == ["content_present", "content_absent"]
    assert {j.grader for j in judgments.values()} == {"composite"}
    # E5 cites a stale section beside the right one: composite forgives it, strict does not.
    e5 = judgments["E5"]
    assert (e5.status, e5.score) == ("passed", 0.95)
    assert {"failed:citation_valid", "strict:fail"} <= set(e5.labels)
    assert "citation_valid: cited 'defects-v2' not in the source snapshot" in e5.reason
    e6 = judgments["E6"]
    assert e6.status == "failed" and "critical:content_present" in e6.labels
    assert "content_absent: disallowed claim 'the standard 30-day window applies'" in e6.reason

    shown = run_assay("report", run_id, "--store", store, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    cases = {c["id"]: c for c in report["cases"]}
    assert (report["task_success"]["numerator"], report["task_success"]["denominator"]) == (5, 7)
    assert cases["E5"]["reason"] == e5.reason and cases["E6"]["reason"] == e6.reason
    assert report["graders"] == [{"name": "composite", "version": "1"}]


def test_assay_composite_scores_a_stored_run_with_strict_and_divergence(
    run_assay: RunAssay, policy_dir: Path, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", policy_dir / "suite-composite.yaml", "--store", store, "--limit", "5")
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.splitlines()[0].split()[1]
    rubric = policy_dir / "policy-rubric.yaml"

    scored = run_assay("composite", rubric, run_id, "--store", store, "-f", "json")
    assert scored.returncode == 0, scored.stderr
    data = json.loads(scored.stdout)
    assert [c["id"] for c in data["cases"]] == ["E1", "E2", "E3", "E4", "E5"]  # as run
    assert (data["composite_pass"]["numerator"], data["composite_pass"]["denominator"]) == (5, 5)
    assert data["strict_pass"]["numerator"] == 4 and data["diverging"] == ["E5"]
    assert scored.stderr == ""  # the five cases are the dataset version the run ran

    for missing in ("nope.jsonl", "no-such-run"):
        bad = run_assay("composite", rubric, missing, "--store", store)
        assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
        assert missing in bad.stderr
