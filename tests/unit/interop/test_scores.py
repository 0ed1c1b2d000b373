"""The documented rule mapping another tool's score values to pass, fail or ungraded."""

from __future__ import annotations

import pytest

from assay.interop import ScoreRule, map_score, parse_threshold


@pytest.mark.parametrize(
    ("value", "status"),
    [
        ("C", "passed"),
        ("I", "failed"),
        ("N", "failed"),
        ("P", "failed"),
        (True, "passed"),
        (False, "failed"),
        (1, "passed"),
        (1.0, "passed"),
        (0.99, "failed"),
        (0, "failed"),
    ],
)
def test_default_rule(value: object, status: str) -> None:
    assert map_score("match", value, ScoreRule())[0] == status


@pytest.mark.parametrize("value", ["yes", "A", None, {"a": 1}, [1], float("nan")])
def test_anything_unmapped_is_ungraded_never_guessed(value: object) -> None:
    status, reason = map_score("match", value, ScoreRule())
    assert status == "ungraded"
    assert "match" in reason


def test_thresholds_are_per_scorer_and_partial_credit_is_configurable() -> None:
    rule = ScoreRule(thresholds={"judge": 0.5}, partial_passes=True)
    assert map_score("judge", 0.5, rule)[0] == "passed"
    assert map_score("judge", 0.49, rule)[0] == "failed"
    assert map_score("other", 0.5, rule)[0] == "failed"  # default threshold 1.0
    assert map_score("match", "P", rule)[0] == "passed"


def test_parse_threshold() -> None:
    assert parse_threshold("judge=0.5") == ("judge", 0.5)
    for bad in ("judge", "=0.5", "judge=high"):
        with pytest.raises(ValueError, match="--threshold"):
            parse_threshold(bad)
