"""Trial counts and clustering as a user sees them: synthetic rows never move real figures,
and every rate over case-trials is clustered by case in every command."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

RunAssay = Callable[..., subprocess.CompletedProcess[str]]

ALL_PASS = {
    "answer_not_empty": True,
    "content_present": True,
    "content_absent": True,
    "citation_valid": True,
    "citation_supports": True,
    "abstention_correct": True,
    "format_valid": True,
}
ALL_FAIL = {**ALL_PASS, "content_present": False}


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _synthetic_dataset(tmp_path: Path) -> tuple[Path, Path]:
    case = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}
    dataset = _jsonl(
        tmp_path / "ds.jsonl",
        [
            {"id": "A", **case},
            {"id": "B", **case},
            {"id": "S", **case, "synthetic": True},
        ],
    )
    results = _jsonl(
        tmp_path / "res.jsonl",
        [
            {"id": "A", "kind": "answer", "fact": "f"},
            {"id": "B", "kind": "answer", "fact": "f"},
            {"id": "S", "kind": "answer", "fact": "f"},
            {"id": "S", "kind": "answer", "fact": "f", "trial": 3},
        ],
    )
    return dataset, results


def test_a_synthetic_third_trial_leaves_real_cases_at_one_trial(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset, results = _synthetic_dataset(tmp_path)
    done = run_assay("score", dataset, results)
    assert done.returncode == 0, done.stderr
    assert "2 cases" in done.stdout and "trials" not in done.stdout.split("SYNTHETIC")[0]
    assert "Task success            2/2" in done.stdout
    assert "flaky" not in done.stdout.split("SYNTHETIC")[0].lower()
    data = json.loads(run_assay("score", dataset, results, "--format", "json").stdout)
    assert data["trials"] == 1 and "trial_summary" not in data
    assert (data["task_success"]["numerator"], data["task_success"]["denominator"]) == (2, 2)
    assert data["statuses"]["missing"] == 0
    assert data["synthetic"]["total"] == 3  # S at trials 1..3, trial 2 missing


def test_composite_ignores_synthetic_trials_for_real_cases(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset, _ = _synthetic_dataset(tmp_path)
    checks = _jsonl(
        tmp_path / "checks.jsonl",
        [
            {"id": "A", "checks": ALL_PASS},
            {"id": "B", "checks": ALL_PASS},
            {"id": "S", "checks": ALL_PASS},
            {"id": "S", "checks": ALL_PASS, "trial": 3},
        ],
    )
    done = run_assay("composite", dataset, checks, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["trials"] == 1 and data["total"] == 2
    assert data["composite_pass"]["numerator"] == data["composite_pass"]["denominator"] == 2
    assert data["composite_pass"]["denominator_name"] == "real cases"
    assert data["statuses"]["missing"] == 0


def test_composite_clusters_identical_trials_like_score(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    """10 cases x 5 identical trials: 25/50 is 5 of 10 cases, not 50 independent draws."""
    case = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}
    dataset = _jsonl(tmp_path / "ds.jsonl", [{"id": f"c{i}", **case} for i in range(10)])
    checks = _jsonl(
        tmp_path / "checks.jsonl",
        [
            {"id": f"c{i}", "trial": t, "checks": ALL_PASS if i < 5 else ALL_FAIL}
            for i in range(10)
            for t in range(1, 6)
        ],
    )
    answers = _jsonl(
        tmp_path / "res.jsonl",
        [
            {"id": f"c{i}", "trial": t, "kind": "answer", "fact": "f" if i < 5 else "g"}
            for i in range(10)
            for t in range(1, 6)
        ],
    )
    comp = json.loads(run_assay("composite", dataset, checks, "--format", "json").stdout)
    score = json.loads(run_assay("score", dataset, answers, "--format", "json").stdout)
    composite_pass = comp["composite_pass"]
    assert (composite_pass["numerator"], composite_pass["denominator"]) == (25, 50)
    assert composite_pass["denominator_name"] == "real case-trials"
    assert composite_pass["ci"] == score["task_success"]["ci"]
    low, high = composite_pass["ci"]
    assert low < 0.19 and high > 0.81  # the interval of 5 of 10 cases, not 25 of 50 trials


def _pass_hat_suite(tmp_path: Path, policy: str = "pass^2") -> Path:
    """4 cases x 2 trials; every case passes exactly one of its two trials."""
    case = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}
    _jsonl(tmp_path / "ds.jsonl", [{"id": f"c{i}", **case} for i in range(4)])
    outcomes = "\n".join(
        f"    c{i}: [{{kind: answer, fact: f}}, {{kind: answer, fact: g}}]" for i in range(4)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: ds.jsonl\n"
        f"target:\n  type: scripted\n  outcomes:\n{outcomes}\n"
        f"trials: 2\ntrial_policy: {policy}\n",
        encoding="utf-8",
    )
    return suite


def test_a_declared_policy_is_the_headline_of_runs_report_and_gate(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite = _pass_hat_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", suite, "--store", store, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    run_id = report["run_id"]
    assert report["trial_summary"]["declared"] is True
    assert report["trial_summary"]["task_success"]["value"] == 0.0
    listing = run_assay("runs", "--store", store, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "0/4 (0.0%)" in listing.stdout and "pass^2 of 2 trials" in listing.stdout
    assert "per trial 4/8" in listing.stdout
    text = run_assay("report", run_id, "--store", store, cwd=tmp_path).stdout
    lines = text.splitlines()
    headline = next(x for x in lines if x.startswith("Task success"))
    assert headline.startswith("Task success (pass^2)") and " 0/4 " in headline
    per_trial = next(x for x in lines if x.startswith("Task success (per trial)"))
    assert " 4/8 " in per_trial and "50.0%" in per_trial
    gate = run_assay("gate", run_id, "--store", store, "--rule", "task_success>=0.3", cwd=tmp_path)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "0/4 cases, pass^2 of 2 trials" in gate.stdout
    per_trial = run_assay(
        "gate", run_id, "--store", store, "--rule", "task_success_per_trial>=0.3", cwd=tmp_path
    )
    assert per_trial.returncode == 0, per_trial.stdout + per_trial.stderr
    assert "(4/8)" in per_trial.stdout


def test_report_and_run_take_a_trial_policy(run_assay: RunAssay, tmp_path: Path) -> None:
    suite = _pass_hat_suite(tmp_path, policy="mean")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay(
        "run", suite, "--store", store, "--format", "json", "--trial-policy", "pass^2",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["trial_summary"]["policy"] == "pass^2"
    again = run_assay(
        "report", report["run_id"], "--store", store, "--format", "json",
        "--trial-policy", "majority", cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["trial_summary"]["policy"] == "majority"
    refused = run_assay("run", suite, "--store", store, "--trial-policy", "pass@2", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--product-selects-best" in refused.stderr and "Traceback" not in refused.stderr


def test_comparing_one_trial_with_three_names_the_trial_counts(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    case = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}
    dataset = _jsonl(tmp_path / "ds.jsonl", [{"id": f"c{i}", **case} for i in range(4)])
    one = _jsonl(
        tmp_path / "one.jsonl", [{"id": f"c{i}", "kind": "answer", "fact": "f"} for i in range(4)]
    )
    three = _jsonl(
        tmp_path / "three.jsonl",
        [
            {"id": f"c{i}", "trial": t, "kind": "answer", "fact": "f" if i else "g"}
            for i in range(4)
            for t in (1, 2, 3)
        ],
    )
    reports = []
    for name, results in (("a", one), ("b", three)):
        out = tmp_path / f"{name}.json"
        done = run_assay("score", dataset, results, "-f", "json", "-o", out)
        assert done.returncode == 0, done.stderr
        reports.append(out)
    refused = run_assay("compare", *reports)
    assert refused.returncode == 2
    assert "the baseline ran 1 trial per case and the candidate 3" in refused.stderr
    assert "case definitions" not in refused.stderr
    matched = run_assay("compare", *reports, "--matching-only")
    assert matched.returncode == 0, matched.stderr
    assert "mean over the paired trial 1 of each case" in matched.stdout
    assert "mean of 3 trials" not in matched.stdout
    data = json.loads(run_assay("compare", *reports, "--matching-only", "-f", "json").stdout)
    assert data["paired_trials"] == [1] and data["paired"] == 4


def test_a_stray_trial_number_is_flagged_and_trials_can_be_declared(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset, _ = _synthetic_dataset(tmp_path)
    results = _jsonl(
        tmp_path / "stray.jsonl",
        [
            {"id": "A", "kind": "answer", "fact": "f"},
            {"id": "B", "kind": "answer", "fact": "f"},
            {"id": "A", "trial": 2, "kind": "answer", "fact": "f"},
            {"id": "B", "trial": 2, "kind": "answer", "fact": "f"},
            {"id": "A", "trial": 50, "kind": "answer", "fact": "f"},
        ],
    )
    done = run_assay("score", dataset, results)
    assert done.returncode == 0, done.stderr
    assert f"warning: {results}:5: A trial 50: no case has trials 3-49" in done.stderr
    declared = run_assay("score", dataset, results, "--trials", "2")
    assert declared.returncode == 2
    assert f"{results}:5: A: trial 50 is past --trials 2" in declared.stderr
    clean = _jsonl(tmp_path / "clean.jsonl", [{"id": "A", "kind": "answer", "fact": "f"}])
    data = json.loads(run_assay("score", dataset, clean, "--trials", "2", "-f", "json").stdout)
    assert data["trials"] == 2 and data["statuses"]["missing"] == 3  # A#2, B#1, B#2


def test_a_text_only_answer_where_abstention_is_expected_fails(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset = _jsonl(
        tmp_path / "ds.jsonl",
        [{"id": "X", "slice": "s", "question": "q", "expected_behavior": "abstain"}],
    )
    results = _jsonl(tmp_path / "res.jsonl", [{"id": "X", "kind": "answer", "text": "Sure!"}])
    data = json.loads(run_assay("score", dataset, results, "-f", "json").stdout)
    (row,) = data["cases"]
    assert row["status"] == "failed"
    assert row["reason"] == "expected an abstention; answered without a fact key"


def test_composite_scores_an_empty_results_file_as_every_case_missing(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    done = run_assay("composite", "examples/golden17/golden17.jsonl", empty, "-f", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["statuses"]["missing"] == data["total"] == 17
    assert (data["composite_pass"]["numerator"], data["composite_pass"]["denominator"]) == (0, 17)
