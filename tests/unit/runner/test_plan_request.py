"""A plan request refuses a figure out of its range before anything is read, and makes the
plan from the figures, the dataset and the suite it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.errors import AssayConfigError
from assay.runner import PlanRequest, plan_request

SUITE = Path(__file__).resolve().parents[3] / "examples" / "policy" / "suite.yaml"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"question": "size"}, "assay plan size: unknown question; choose one of rate"),
        ({"question": "rate", "power": 1.0}, "--power 1: must be between 0 and 1 (exclusive)"),
        ({"question": "drop", "drop": 0.0}, "--drop 0: must be between 0 and 1 (exclusive)"),
        ({"question": "rate", "expected_rate": 1.5}, "--expected-rate 1.5: must be between"),
        ({"question": "noninferiority", "difference": 1.0}, "--difference 1: must be between"),
        ({"question": "detectable", "cases": 1}, "--cases 1: must be at least 2"),
        ({"question": "noninferiority", "replications": 99}, "--replications 99: must be at"),
        ({"question": "rate", "trials": 0}, "--trials 0: must be at least 1"),
    ],
)
def test_a_figure_out_of_range_is_refused_naming_its_option(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(AssayConfigError, match=re.escape(message)):
        PlanRequest(**given)  # type: ignore[arg-type]


def test_detectable_needs_a_number_of_cases() -> None:
    with pytest.raises(AssayConfigError, match="give --cases N, --dataset FILE or --suite"):
        plan_request(PlanRequest("detectable"))


def test_a_suite_gives_its_dataset_s_cases_and_is_an_input() -> None:
    planned = plan_request(PlanRequest("detectable", suite=SUITE))
    assert planned.inputs == (SUITE,)
    assert planned.plan.question == "detectable"
    with pytest.raises(AssayConfigError, match="--cases and --dataset: give one of them"):
        plan_request(PlanRequest("detectable", cases=40, dataset=SUITE))
