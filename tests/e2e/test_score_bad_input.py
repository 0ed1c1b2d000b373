"""Every bad input to ``assay score``: exit code 2, one message on stderr naming file, line
and field, nothing on stdout, no traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def _case(case_id: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": case_id,
        "slice": "standard",
        "question": f"question {case_id}",
        "expected_behavior": "answer",
        "expected_fact": "return_window_30_days",
    }
    base.update(fields)
    return base


def _jsonl(path: Path, *rows: Any) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _refused(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("assay: ")
    for needle in needles:
        assert needle in done.stderr, done.stderr


@pytest.fixture
def work(tmp_path: Path, policy_dir: Path) -> Path:
    for name in ("policy.jsonl", "results.jsonl"):
        shutil.copy(policy_dir / name, tmp_path / name)
    return tmp_path


def test_duplicate_case_id(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "d.jsonl", _case("E1"), _case("E2"), _case("E1"), _case("E2"))
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(done, "Duplicate case ID: E1, E2", "d.jsonl:1, d.jsonl:3", "d.jsonl:2, d.jsonl:4")
    assert "nothing was scored" in done.stderr


def test_unknown_result_id(work: Path, run_assay: RunAssay) -> None:
    _jsonl(
        work / "r.jsonl",
        {"id": "E1", "kind": "abstain"},
        {"id": "E9", "kind": "abstain"},
        {"id": "X1", "kind": "error"},
    )
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "Unknown result ID: E9, X1", "E9: r.jsonl:2", "X1: r.jsonl:3")


def test_duplicate_result_for_the_same_case_and_trial(work: Path, run_assay: RunAssay) -> None:
    _jsonl(
        work / "r.jsonl",
        {"id": "E1", "kind": "abstain"},
        {"id": "E3", "kind": "abstain", "trial": 2},
        {"id": "E1", "kind": "answer", "fact": "x"},
        {"id": "E3", "kind": "abstain", "trial": 2},
    )
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "Duplicate result", "E1: r.jsonl:1, r.jsonl:3", "E3 (trial 2): r.jsonl:2")


def test_repeated_case_in_another_trial_is_not_a_duplicate(work: Path, run_assay: RunAssay) -> None:
    _jsonl(
        work / "r.jsonl",
        {"id": "E1", "kind": "abstain"},
        {"id": "E1", "kind": "abstain", "trial": 2},
    )
    done = run_assay("score", "policy.jsonl", "r.jsonl", "-f", "json", cwd=work)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total"] == 12


def test_malformed_json_line(work: Path, run_assay: RunAssay) -> None:
    (work / "r.jsonl").write_text('{"id": "E1", "kind": "abstain"}\n{"id": "E2", kind}\n')
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "r.jsonl:2: malformed JSON")


def test_malformed_json_in_the_dataset(work: Path, run_assay: RunAssay) -> None:
    (work / "d.jsonl").write_text(json.dumps(_case("E1")) + "\n\n{not json\n")
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(done, "d.jsonl:3: malformed JSON")


def test_empty_dataset_file(work: Path, run_assay: RunAssay) -> None:
    (work / "empty.jsonl").write_text("\n  \n")
    done = run_assay("score", "empty.jsonl", "results.jsonl", cwd=work)
    _refused(done, "empty.jsonl", "is empty")


@pytest.mark.parametrize(("name", "text"), [("empty.jsonl", "\n  \n"), ("empty.json", "[]")])
def test_an_empty_results_file_scores_every_case_missing(
    work: Path, run_assay: RunAssay, name: str, text: str
) -> None:
    (work / name).write_text(text)
    done = run_assay("score", "policy.jsonl", name, "-f", "json", cwd=work)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    n = data["dataset"]["cases"]
    assert (data["task_success"]["numerator"], data["task_success"]["denominator"]) == (0, n)
    assert data["statuses"]["missing"] == n == data["total"]
    assert f"{name}: no results recorded; every case is missing" in done.stderr


@pytest.mark.parametrize("which", ["dataset", "results"])
def test_missing_file(work: Path, run_assay: RunAssay, which: str) -> None:
    args = ["nope.jsonl", "results.jsonl"] if which == "dataset" else ["policy.jsonl", "nope.jsonl"]
    done = run_assay("score", *args, cwd=work)
    _refused(done, "nope.jsonl", "no such file")


def test_directory(work: Path, run_assay: RunAssay) -> None:
    (work / "cases.jsonl").mkdir()
    done = run_assay("score", "cases.jsonl", "results.jsonl", cwd=work)
    _refused(done, "cases.jsonl", "is a directory")


def test_unknown_file_type(work: Path, run_assay: RunAssay) -> None:
    (work / "cases.txt").write_text("E1\n")
    done = run_assay("score", "cases.txt", "results.jsonl", cwd=work)
    _refused(done, "cases.txt", "unknown file type")


def test_unknown_dataset_field_suggests_the_closest(work: Path, run_assay: RunAssay) -> None:
    row = _case("E1")
    row["expected_fatc"] = row.pop("expected_fact")
    _jsonl(work / "d.jsonl", _case("E0"), row)
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(
        done,
        'd.jsonl:2: unknown field "expected_fatc" (did you mean "expected_fact"?)',
        "metadata",
    )


def test_every_problem_in_a_file_is_reported_at_once(work: Path, run_assay: RunAssay) -> None:
    _jsonl(
        work / "d.jsonl",
        _case("E1", expected_fact=None),
        _case("E2"),
        _case("E3", expected_behavior="abstain"),
        _case("E4", slice=None),
    )
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(
        done,
        'd.jsonl:1: expected_fact is required when expected_behavior is "answer"',
        'd.jsonl:3: expected_fact must be null when expected_behavior is "abstain"',
        "d.jsonl:4: slice",
    )
    assert "d.jsonl:2" not in done.stderr


def test_answer_without_expected_fact(work: Path, run_assay: RunAssay) -> None:
    row = _case("E1")
    del row["expected_fact"]
    _jsonl(work / "d.jsonl", row)
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(done, 'd.jsonl:1: expected_fact is required when expected_behavior is "answer"')


def test_abstain_with_a_fact(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "d.jsonl", _case("E3", expected_behavior="abstain", expected_fact="fee"))
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(done, 'd.jsonl:1: expected_fact must be null when expected_behavior is "abstain"')


def test_bad_expected_behavior(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "d.jsonl", _case("E1", expected_behavior="maybe"))
    done = run_assay("score", "d.jsonl", "results.jsonl", cwd=work)
    _refused(done, "d.jsonl:1: expected_behavior must be 'answer' or 'abstain'")


def test_answer_result_without_fact(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E3", "kind": "abstain"}, {"id": "E1", "kind": "answer"})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, 'r.jsonl:2: fact is required when kind is "answer"')


def test_abstain_result_with_a_fact(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E3", "kind": "abstain", "fact": "x"})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, 'r.jsonl:1: fact is only allowed when kind is "answer"')


def test_bad_kind_suggests_the_closest(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E1", "kind": "answr", "fact": "x"})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "r.jsonl:1: kind must be", "'answr'", '(did you mean "answer"?)')


def test_missing_kind(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E1", "fact": "x"})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "r.jsonl:1: kind is required")


def test_unknown_result_field_suggests_the_closest(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E1", "kind": "answer", "fcat": "x", "fact": "y"})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, 'r.jsonl:1: unknown field "fcat" (did you mean "fact"?)')


def test_bad_trial(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E1", "kind": "abstain", "trial": 0})
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "r.jsonl:1: trial")


def test_result_that_is_not_an_object(work: Path, run_assay: RunAssay) -> None:
    _jsonl(work / "r.jsonl", {"id": "E1", "kind": "abstain"}, ["E2", "abstain"])
    done = run_assay("score", "policy.jsonl", "r.jsonl", cwd=work)
    _refused(done, "r.jsonl:2: a result must be an object")


def test_dataset_and_results_swapped(work: Path, run_assay: RunAssay) -> None:
    done = run_assay("score", "results.jsonl", "policy.jsonl", cwd=work)
    _refused(done, "results.jsonl:1:")


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--format", "jsn", '(did you mean "json"?)'),
        ("--interval", "wilsn", '(did you mean "wilson"?)'),
        ("--confidence", "1.5", "--confidence 1.5"),
    ],
)
def test_bad_option_values(
    work: Path, run_assay: RunAssay, option: str, value: str, needle: str
) -> None:
    done = run_assay("score", "policy.jsonl", "results.jsonl", option, value, cwd=work)
    _refused(done, needle)


def test_yaml_dataset_problems_name_their_lines(work: Path, run_assay: RunAssay) -> None:
    (work / "d.yaml").write_text(
        "name: policy\n"
        "cases:\n"
        "  - id: E1\n"
        "    slice: standard\n"
        "    question: How many days?\n"
        "    expected_behavior: answer\n"
        "  - id: E3\n"
        "    slice: missing\n"
        "    question: Gift wrap?\n"
        "    expected_behavior: abstain\n"
        "    rationle: no section mentions it\n"
    )
    done = run_assay("score", "d.yaml", "results.jsonl", cwd=work)
    _refused(
        done,
        'd.yaml:3: expected_fact is required when expected_behavior is "answer"',
        'd.yaml:7: unknown field "rationle" (did you mean "rationale"?)',
    )


def test_csv_dataset_problems_name_their_lines(work: Path, run_assay: RunAssay) -> None:
    (work / "d.csv").write_text(
        "id,slice,question,expected_behavior,expected_fact\n"
        "E1,standard,How many days?,answer,return_window_30_days\n"
        "E3,missing,Gift wrap?,abstain,gift_wrap\n"
    )
    done = run_assay("score", "d.csv", "results.jsonl", cwd=work)
    _refused(done, 'd.csv:3: expected_fact must be null when expected_behavior is "abstain"')


def test_yaml_and_csv_datasets_score(work: Path, run_assay: RunAssay) -> None:
    (work / "d.csv").write_text(
        "id,slice,question,expected_behavior,expected_fact\n"
        "E1,standard,How many days?,answer,return_window_30_days\n"
        "E3,missing,Gift wrap?,abstain,\n"
    )
    (work / "r.jsonl").write_text(
        '{"id": "E1", "kind": "answer", "fact": "return_window_30_days"}\n'
        '{"id": "E3", "kind": "answer", "fact": "gift_wrap_free"}\n'
    )
    done = run_assay("score", "d.csv", "r.jsonl", "-f", "json", cwd=work)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["success"], report["answered"], report["correct_answers"]) == (1, 2, 1)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["policy.jsonl"], "Missing argument"),
        (["policy.jsonl", "results.jsonl", "--bogus"], "No such option: --bogus"),
    ],
)
def test_usage_errors(work: Path, run_assay: RunAssay, args: list[str], needle: str) -> None:
    done = run_assay("score", *args, cwd=work)
    assert done.returncode == 2
    assert done.stdout == ""
    assert needle in done.stderr
    assert "Traceback" not in done.stderr
