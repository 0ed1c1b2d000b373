"""The interval setting: one value for the level and method of every interval."""

from __future__ import annotations

import inspect
import math

import pytest

from assay.compare import compare_runs
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, clopper_pearson, rate, wilson
from assay.report import build_composite_report, build_report, summarize
from assay.runner import matrix_report
from assay.runs import compare_stored, report_for_run, run_side
from assay.view import create_app


def test_the_default_is_95_percent_clopper_pearson() -> None:
    assert IntervalSetting(0.95, "clopper-pearson") == DEFAULT_INTERVAL
    assert DEFAULT_INTERVAL.limits(4, 20) == clopper_pearson(4, 20, 0.95)


def test_limits_follow_the_method_and_level() -> None:
    assert IntervalSetting(0.9, "wilson").limits(81, 263) == wilson(81, 263, 0.9)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, math.nan, True])
def test_a_level_outside_0_1_is_refused(level: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        IntervalSetting(level)


def test_an_unknown_method_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="clopper-pearson, wilson"):
        IntervalSetting(0.95, "wald")  # type: ignore[arg-type]


def test_the_setting_is_frozen_and_hashable() -> None:
    setting = IntervalSetting(0.9, "wilson")
    with pytest.raises(AttributeError):
        setting.confidence = 0.5  # type: ignore[misc]
    assert {setting: 1}[IntervalSetting(0.9, "wilson")] == 1


def test_a_rate_carries_the_setting_it_was_computed_at() -> None:
    r = rate(1, 3, "cases", interval=IntervalSetting(0.9, "wilson"))
    assert (r.confidence, r.method, r.ci) == (0.9, "wilson", wilson(1, 3, 0.9))


def test_the_old_keywords_are_gone() -> None:
    with pytest.raises(TypeError, match="confidence"):
        rate(1, 3, "cases", confidence=0.9)  # type: ignore[call-arg]


def test_the_public_functions_take_the_interval_as_one_setting() -> None:
    for fn in (
        rate,
        summarize,
        build_report,
        build_composite_report,
        compare_runs,
        report_for_run,
        matrix_report,
        run_side,
        compare_stored,
        create_app,
    ):
        params = inspect.signature(fn).parameters
        assert params["interval"].default == DEFAULT_INTERVAL, fn.__name__
        assert not {"confidence", "method"} & set(params), fn.__name__
