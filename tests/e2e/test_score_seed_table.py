"""The seed's "Predict the report" table, both columns, through ``assay score --format json``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
Figures = Callable[[dict[str, object]], dict[str, str | int]]


@pytest.mark.parametrize("variant", ["policy", "policy-e7"])
def test_cli_json_reproduces_the_seed_table(
    variant: str,
    policy_dir: Path,
    run_assay: RunAssay,
    seed_table: dict[str, dict[str, str | int]],
    seed_figures: Figures,
) -> None:
    done = run_assay(
        "score", policy_dir / f"{variant}.jsonl", policy_dir / "results.jsonl", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    report = json.loads(done.stdout)
    assert seed_figures(report) == seed_table[variant]


@pytest.mark.parametrize("variant", ["policy", "policy-e7"])
def test_cli_json_has_the_contract_fields(
    variant: str, policy_dir: Path, run_assay: RunAssay
) -> None:
    done = run_assay(
        "score", policy_dir / f"{variant}.jsonl", policy_dir / "results.jsonl", "-f", "json"
    )
    report = json.loads(done.stdout)
    total = report["total"]
    assert report["schema_version"] == 1
    assert isinstance(report["assay_version"], str)
    assert report["dataset"]["name"] == variant
    assert report["dataset"]["version"].startswith("sha256:")
    assert len(report["dataset"]["version"]) == len("sha256:") + 64
    assert report["dataset"]["cases"] == total
    assert sum(report["statuses"].values()) == total
    assert report["statuses"]["error"] == report["errors"]
    assert report["statuses"]["missing"] == report["missing"]
    assert report["statuses"]["ungraded"] == report["ungraded"]
    assert report["success"] == report["statuses"]["passed"]
    assert report["answered"] == report["answer_coverage"]["numerator"]
    assert report["correct_answers"] == report["answered_accuracy"]["numerator"]
    for name in ("task_success", "answer_coverage", "answered_accuracy"):
        r = report[name]
        assert set(r) >= {"numerator", "denominator", "denominator_name", "value", "ci"}
        assert r["value"] == pytest.approx(r["numerator"] / r["denominator"])
        low, high = r["ci"]
        assert 0 <= low <= r["value"] <= high <= 1
    assert sum(s["total"] for s in report["slices"].values()) == total
    for sl in report["slices"].values():
        assert set(sl) >= {"total", "success", "task_success"}


def test_text_report_shows_the_issue_line(policy_dir: Path, run_assay: RunAssay) -> None:
    done = run_assay("score", policy_dir / "policy.jsonl", policy_dir / "results.jsonl")
    assert done.returncode == 0
    line = next(x for x in done.stdout.splitlines() if x.startswith("Answered accuracy"))
    assert line.split() == [
        "Answered",
        "accuracy",
        "1/3",
        "33.3%",
        "[0.8%,",
        "90.6%]",
        "passing",
        "answers",
        "/",
        "substantive",
        "answers",
    ]
    assert "= 6 cases (adds up)" in done.stdout
