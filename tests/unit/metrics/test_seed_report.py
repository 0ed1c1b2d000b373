"""The seed's "Predict the report" table, both columns, through ``summarize``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay import (
    Abstain,
    Answer,
    AssayInputError,
    Case,
    Error,
    UnknownResultIdError,
    load_dataset,
    load_results,
    summarize,
)
from assay.metrics import ANSWERS, CASES, SLICE_CASES

Figures = Callable[[dict[str, object]], dict[str, str | int]]


@pytest.mark.parametrize("variant", ["policy", "policy-e7"])
def test_summarize_reproduces_the_seed_table(
    variant: str,
    policy_dir: Path,
    seed_table: dict[str, dict[str, str | int]],
    seed_figures: Figures,
) -> None:
    summary = summarize(
        load_dataset(policy_dir / f"{variant}.jsonl"), load_results(policy_dir / "results.jsonl")
    )
    assert seed_figures(summary.model_dump()) == seed_table[variant]


@pytest.mark.parametrize("variant", ["policy", "policy-e7"])
def test_every_field_of_the_summary_is_consistent(variant: str, policy_dir: Path) -> None:
    summary = summarize(
        load_dataset(policy_dir / f"{variant}.jsonl"), load_results(policy_dir / "results.jsonl")
    )
    total = 7 if variant == "policy-e7" else 6
    assert summary.total == total
    assert summary.success == 2
    assert summary.answered == 3
    assert summary.correct_answers == 1
    assert summary.ungraded == 0
    assert summary.statuses.model_dump() == {
        "passed": 2,
        "failed": 3,
        "error": 1,
        "missing": total - 6,
        "ungraded": 0,
    }
    assert summary.task_success.denominator_name == CASES
    assert summary.answer_coverage.denominator_name == CASES
    assert summary.answered_accuracy.denominator_name == ANSWERS
    assert summary.task_success.value == pytest.approx(2 / total)
    assert summary.answer_coverage.value == pytest.approx(3 / total)
    assert summary.answered_accuracy.value == pytest.approx(1 / 3)
    for sl in summary.slices.values():
        assert sl.task_success.denominator_name == SLICE_CASES
        assert sl.total == sl.task_success.denominator
        assert sl.success == sl.task_success.numerator
    assert summary.synthetic is None


def _seed_cases() -> list[Case]:
    rows = [
        ("E1", "standard", "answer", "return_window_30_days"),
        ("E2", "exception", "answer", "custom_excluded"),
        ("E3", "missing", "abstain", None),
        ("E4", "missing", "abstain", None),
        ("E5", "standard", "answer", "defect_window_7_days"),
        ("E6", "exception", "answer", "custom_excluded"),
    ]
    return [
        Case(id=i, slice=s, question=f"question {i}", expected_behavior=b, expected_fact=f)  # type: ignore[arg-type]
        for i, s, b, f in rows
    ]


def test_the_seed_contract_takes_cases_and_a_mapping_of_outcomes(
    seed_table: dict[str, dict[str, str | int]], seed_figures: Figures
) -> None:
    outcomes = {
        "E1": Answer(fact="return_window_30_days"),
        "E2": Answer(fact="return_window_30_days"),
        "E3": Abstain(),
        "E4": Answer(fact="shipping_fee_10"),
        "E5": Error(),
        "E6": Abstain(),
    }
    summary = summarize(_seed_cases(), outcomes)
    assert seed_figures(summary.model_dump()) == seed_table["policy"]


def test_e7_without_output_is_missing_not_dropped(
    seed_table: dict[str, dict[str, str | int]], seed_figures: Figures
) -> None:
    cases = [
        *_seed_cases(),
        Case(
            id="E7",
            slice="standard",
            question="q",
            expected_behavior="answer",
            expected_fact="return_window_30_days",
        ),
    ]
    outcomes = {
        "E1": Answer(fact="return_window_30_days"),
        "E2": Answer(fact="return_window_30_days"),
        "E3": Abstain(),
        "E4": Answer(fact="shipping_fee_10"),
        "E5": Error(),
        "E6": Abstain(),
    }
    summary = summarize(cases, outcomes)
    assert seed_figures(summary.model_dump()) == seed_table["policy-e7"]


def test_results_for_unknown_cases_are_rejected_before_scoring() -> None:
    with pytest.raises(UnknownResultIdError, match="Unknown result ID: E9, X"):
        summarize(_seed_cases(), {"E1": Abstain(), "E9": Abstain(), "X": Error()})


def test_input_errors_share_one_base_class() -> None:
    with pytest.raises(AssayInputError):
        summarize([*_seed_cases(), _seed_cases()[0]], {})
