"""A case-trial judged several times: where each repeat is kept, and the verdict counted
(the first repeat's, or the majority's; a tie is ungraded, never a pass)."""

from __future__ import annotations

import pytest

from assay.grading import Judgment, kept_repeats, repeat_of, repeat_verdict


def _j(status: str, score: float | None = None, reason: str = "why") -> Judgment:
    return Judgment.model_validate(
        {
            "case_id": "C1",
            "trial": 2,
            "status": status,
            "reason": reason,
            "grader": "judge",
            "grader_version": "1+abc",
            "score": score,
            "labels": ["judge_model=m", f"judge_score={score}"],
        }
    )


def test_first_is_the_first_repeat_whatever_the_others_say() -> None:
    repeats = [_j("failed", 0), _j("passed", 2), _j("passed", 2)]
    assert repeat_verdict(repeats, "first") == repeats[0]


def test_majority_takes_the_status_more_than_half_gave() -> None:
    repeats = [
        _j("failed", 0),
        _j("passed", 2, "good"),
        _j("passed", 2),
        _j("failed"),
        _j("passed"),
    ]
    found = repeat_verdict(repeats, "majority")
    assert found.status == "passed" and found.score == 2
    assert found.reason == "majority of 5 judges (3 passed, 2 failed of 5): good"
    assert "judge_votes=3/2/5" in found.labels


@pytest.mark.parametrize(
    ("statuses", "reason"),
    [
        (["passed", "failed", "failed", "passed"], "judges tied 2\u20132"),
        (["passed", "failed"], "judges tied 1\u20131"),
        (
            ["passed", "failed", "ungraded", "ungraded"],
            "judges tied 1\u20131 (1 passed, 1 failed, 2 ungraded of 4)",
        ),
        (
            ["passed", "passed", "failed", "ungraded", "ungraded"],
            "no majority of 5 judges: 2 passed, 1 failed, 2 ungraded of 5",
        ),
        (["ungraded", "ungraded", "ungraded"], "no majority of 3 judges: 3 ungraded of 3"),
    ],
)
def test_without_a_majority_the_case_trial_is_ungraded_never_passed(
    statuses: list[str], reason: str
) -> None:
    found = repeat_verdict([_j(s, 2 if s == "passed" else 0) for s in statuses], "majority")
    assert found.status == "ungraded"
    assert found.reason == reason
    assert found.score is None
    assert not any(label.startswith("judge_score=") for label in found.labels)
    assert (found.case_id, found.trial, found.grader) == ("C1", 2, "judge")


def test_one_repeat_is_its_own_verdict_and_none_is_refused() -> None:
    one = [_j("failed")]
    assert repeat_verdict(one, "majority") == one[0]
    with pytest.raises(ValueError):
        repeat_verdict([], "majority")


def test_each_repeat_is_kept_under_its_index() -> None:
    kept = kept_repeats([_j("passed"), _j("failed"), _j("passed")])
    assert [j.grader for j in kept] == ["judge#1", "judge#2", "judge#3"]
    assert kept[1].labels[-1] == "judge_repeat=2/3" and kept[1].status == "failed"
    assert [repeat_of(j.grader) for j in kept] == [("judge", 1), ("judge", 2), ("judge", 3)]
    assert repeat_of("judge") is None and repeat_of("my#grader") is None
    assert repeat_of("judge#0") is None
