"""Suite files: every key validated, every problem named with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import AssayError, InputFormatError
from assay.load import load_suite

DATASET = (
    '{"id": "E1", "slice": "s", "question": "q", "expected_behavior": "abstain", '
    '"expected_fact": null}\n'
)


def _suite(tmp_path: Path, text: str) -> Path:
    (tmp_path / "cases.jsonl").write_text(DATASET)
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    return path


def test_a_valid_suite_resolves_the_dataset_beside_it(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "dataset: cases.jsonl\ntarget:\n  type: scripted\n  default: {kind: abstain}\n"
        "trials: 3\nconcurrency: 2\ntimeout_s: 5\nretries: 1\nrpm: 120\n"
        "gates: ['task_success>=0.5']\n",
    )
    suite = load_suite(path)
    assert suite.dataset_path == tmp_path / "cases.jsonl"
    assert suite.settings.trials == 3 and suite.settings.rpm == 120
    assert suite.settings.gates == ["task_success>=0.5"]
    assert suite.load_dataset().ids == ("E1",)
    assert suite.build_target().name == "scripted"


def test_unknown_keys_and_bad_values_are_located(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "dataset: cases.jsonl\ntarget: {type: scripted}\nconcurency: 4\ntrials: 0\n",
    )
    with pytest.raises(InputFormatError) as err:
        load_suite(path)
    message = str(err.value)
    assert f'{path}:3: unknown field "concurency" (did you mean "concurrency"?)' in message
    assert f"{path}:4: trials" in message


def test_target_settings_errors_point_at_their_line(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "dataset: cases.jsonl\ntarget:\n  type: http\n  url: http://127.0.0.1:1/\n  reqest: {}\n",
    )
    with pytest.raises(InputFormatError) as err:
        load_suite(path).build_target()
    assert f'{path}:5: unknown field "target.reqest" (did you mean "request"?)' in str(err.value)


def test_an_unknown_target_type_or_grader_suggests_the_closest(tmp_path: Path) -> None:
    path = _suite(tmp_path, "dataset: cases.jsonl\ntarget:\n  type: functon\n")
    with pytest.raises(InputFormatError, match=r':3: target.type "functon".*"function"'):
        load_suite(path).build_target()
    path = _suite(tmp_path, "dataset: cases.jsonl\ntarget: {type: scripted}\ngrader: structurd\n")
    with pytest.raises(InputFormatError, match=r':3: grader "structurd".*"structured"'):
        load_suite(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dataset: nowhere.jsonl\ntarget: {type: scripted}\n", ":1: dataset nowhere.jsonl"),
        ("- just\n- a list\n", ":1: a suite is a mapping"),
        ("dataset: [unclosed\n", "malformed YAML"),
        (
            "retries: 1\ndataset: c.jsonl\ntarget: {type: scripted}\nretries: 5\n",
            ':4: duplicate key "retries"',
        ),
        ("target: {type: scripted}\n", "dataset is required"),
    ],
)
def test_broken_suites_are_clear_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = _suite(tmp_path, text)
    with pytest.raises(AssayError, match=expected):
        load_suite(path).load_dataset()


def test_best_of_k_needs_the_product_to_select_too(tmp_path: Path) -> None:
    head = "dataset: cases.jsonl\ntarget: {type: scripted}\ntrials: 3\n"
    path = _suite(tmp_path, head + "trial_policy: pass@3\n")
    with pytest.raises(InputFormatError) as err:
        load_suite(path)
    assert f"{path}:4: trial_policy: pass@3 counts a case as passed when any one" in str(err.value)
    assert "product_selects_best: true" in str(err.value)
    declared = _suite(tmp_path, head + "trial_policy: pass@k\nproduct_selects_best: true\n")
    assert load_suite(declared).settings.trial_policy == "pass@k"
    plain = _suite(tmp_path, head + "trial_policy: pass@1\n")
    assert load_suite(plain).settings.trial_policy == "pass@1"
