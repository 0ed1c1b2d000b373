"""Report files read by ``gate``, ``compare`` and ``calibrate`` are checked against their own
counts and read at the level asked for, never trusted as written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
POLICY = Path("examples/policy")


def _score(run_assay: RunAssay, out: Path, *flags: str) -> dict[str, Any]:
    done = run_assay(
        "score", POLICY / "policy.jsonl", POLICY / "results.jsonl", "-f", "json", "-o", out, *flags
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def test_a_bound_rule_reads_the_asked_level_not_the_written_one(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    _score(run_assay, report, "--confidence", "0.5")
    done = run_assay("gate", report, "--rule", "task_success.low>=0.15")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "task_success.low = 0.04327 (2/6, 95% exact interval)" in done.stdout
    assert "recomputed from its counts at 0.95" in done.stderr
    at_half = run_assay("gate", report, "--rule", "task_success.low>=0.15", "--confidence", "0.5")
    assert at_half.returncode == 0, at_half.stdout + at_half.stderr
    assert "task_success.low = 0.1612 (2/6, 50% exact interval)" in at_half.stdout


def _edit(data: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    node = copy
    *parents, last = path.split(".")
    for name in parents:
        node = node[int(name)] if isinstance(node, list) else node[name]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return copy


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("task_success.value", 0.9, "task_success.value is 0.9 but task_success is 2/6"),
        ("statuses.failed", 4, "= 7, but total is 6"),
        ("task_success.ci.0", 0.01, "task_success.ci is [0.01, 0.777222] but 2/6"),
        ("answered_accuracy.numerator", 3, "answered_accuracy.numerator is 3"),
        ("cases.0.status", "failed", "statuses.passed is 2 but the number of real case rows"),
        ("slices.standard.task_success.value", 1.0, "slices.standard.task_success.value"),
    ],
)
def test_an_inconsistent_report_file_is_refused_naming_the_field(
    run_assay: RunAssay, tmp_path: Path, path: str, value: object, message: str
) -> None:
    data = _score(run_assay, tmp_path / "r.json", "--confidence", "0.95")
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(_without_ci95(_edit(data, path, value))), encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": data["cases"][0]["id"], "human": "pass"}) + "\n")
    for args in (
        ("gate", edited, "--rule", "task_success>=0"),
        ("compare", edited, edited),
        ("calibrate", labels, edited),
    ):
        done = run_assay(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert message in done.stderr, done.stderr
        assert f"{edited}: the report contradicts its own counts" in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""


def _without_ci95(node: Any) -> Any:
    """A report as it is written once the former key ``ci95`` is gone: ``ci`` alone."""
    if isinstance(node, dict):
        return {k: _without_ci95(v) for k, v in node.items() if k != "ci95"}
    if isinstance(node, list):
        return [_without_ci95(v) for v in node]
    return node


def _ci95_only(node: Any) -> Any:
    """A report as an older assay wrote it: each interval under ``ci95`` alone."""
    if isinstance(node, dict):
        return {k: _ci95_only(v) for k, v in node.items() if not (k == "ci" and "ci95" in node)}
    if isinstance(node, list):
        return [_ci95_only(v) for v in node]
    return node


def test_a_report_file_with_the_former_key_alone_reads_the_same(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    data = _score(run_assay, tmp_path / "r.json")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_ci95_only(data)), encoding="utf-8")
    assert '"ci":' not in old.read_text(encoding="utf-8")
    rule = ("--rule", "task_success.low>=0.04", "--rule", "task_success.high<=0.78")
    for report in (tmp_path / "r.json", old):
        gate = run_assay("gate", report, *rule)
        assert gate.returncode == 0, gate.stdout + gate.stderr
        assert "task_success.low = 0.04327" in gate.stdout
    compared = run_assay("compare", old, tmp_path / "r.json", "-f", "json")
    assert compared.returncode == 0, compared.stderr
    both = json.loads(compared.stdout)["baseline"]["task_success"]
    assert both["ci"] == both["ci95"] == data["task_success"]["ci"]


def test_a_report_file_whose_ci_and_ci95_differ_is_refused(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    data = _score(run_assay, tmp_path / "r.json")
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(_edit(data, "task_success.ci95.0", 0.2)), encoding="utf-8")
    done = run_assay("gate", edited, "--rule", "task_success>=0")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "task_success" in done.stderr and "but ci95 (its former name) is" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_schema_version_is_refused(run_assay: RunAssay, tmp_path: Path) -> None:
    data = _score(run_assay, tmp_path / "r.json")
    edited = tmp_path / "v2.json"
    edited.write_text(json.dumps({**data, "schema_version": 2}), encoding="utf-8")
    done = run_assay("gate", edited, "--rule", "task_success>=0")
    assert done.returncode == 2
    assert "schema_version is 2; this assay reads version 1" in done.stderr


def test_a_consistent_report_with_trials_reads_back_unchanged(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset = tmp_path / "ds.jsonl"
    case = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}
    dataset.write_text(
        "".join(json.dumps({"id": f"c{i}", **case}) + "\n" for i in range(5)), encoding="utf-8"
    )
    results = tmp_path / "res.jsonl"
    results.write_text(
        "".join(
            json.dumps(
                {"id": f"c{i}", "trial": t, "kind": "answer", "fact": "f" if i + t < 6 else "g"}
            )
            + "\n"
            for i in range(5)
            for t in (1, 2, 3)
        ),
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    done = run_assay(
        "score", dataset, results, "-f", "json", "-o", report, "--trial-policy", "pass^2"
    )
    assert done.returncode == 0, done.stderr
    gate = run_assay("gate", report, "--rule", "task_success.high<=1")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert gate.stderr == ""
