"""A labels file as the review page appends it: a later label of a case-trial by the same
reviewer supersedes the earlier one; two reviewers' labels of one answer are refused,
named by line and reviewer, as are two labels without a reviewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.errors import AssayInputError, InputFormatError
from assay.load import read_labels


def _write(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_later_label_by_the_same_reviewer_supersedes(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "labels.jsonl",
        {"id": "C1", "trial": 1, "human_score": 0, "reviewer": "rk"},
        {"id": "C1", "trial": 2, "human_score": 1, "reviewer": "mt"},
        {"id": "C2", "human": "pass", "reviewer": "rk"},
        {"id": "C1", "trial": 1, "human_score": 2, "reviewer": "rk", "note": "again",
         "items": {"R1": "present"}, "labelled_at": "2026-01-02T03:04:05Z", "seed": 4},
    )  # fmt: skip
    found = {(lab.id, lab.trial): lab for lab in read_labels(path)}
    assert sorted(found, key=str) == [("C1", 1), ("C1", 2), ("C2", None)]
    assert found[("C1", 1)].human_score == 2 and found[("C1", 1)].items == {"R1": "present"}


@pytest.mark.parametrize(
    ("second", "said"),
    [
        ({"id": "C1", "trial": 1, "human_score": 1, "reviewer": "mt"}, "by rk"),
        ({"id": "C1", "human_score": 1, "reviewer": "rk"}, "by rk"),  # every trial of C1
    ],
)
def test_two_labels_of_one_answer_by_others_are_refused(
    tmp_path: Path, second: dict[str, Any], said: str
) -> None:
    first = {"id": "C1", "trial": 1, "human_score": 0, "reviewer": "rk"}
    path = _write(tmp_path / "labels.jsonl", first, second)
    with pytest.raises(InputFormatError) as err:
        read_labels(path)
    assert f"{path}:2" in str(err.value) and "labelled twice" in str(err.value)
    assert f"first at {path}:1 {said}" in str(err.value)


def test_without_reviewers_a_second_label_is_still_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "l.jsonl", {"id": "C1", "human": "pass"}, {"id": "C1", "human": "fail"}
    )
    with pytest.raises(InputFormatError, match="labelled twice"):
        read_labels(path)


def test_an_empty_file_is_no_labels_only_when_allowed(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("")
    assert read_labels(path, allow_empty=True) == []
    with pytest.raises(AssayInputError):
        read_labels(path)
