"""The interval setting: one value for the level and method of every interval."""

from __future__ import annotations

import math

import pytest

from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, clopper_pearson, rate, wilson
from assay.metrics._setting import chosen_interval


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


def test_the_old_keywords_still_work_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"rate\(confidence=..., method=...\)"):
        old = rate(1, 3, "cases", confidence=0.9, method="wilson")
    assert old == rate(1, 3, "cases", interval=IntervalSetting(0.9, "wilson"))


def test_one_old_keyword_keeps_the_other_part_of_the_setting() -> None:
    with pytest.warns(DeprecationWarning):
        chosen = chosen_interval(IntervalSetting(0.9, "wilson"), None, "clopper-pearson", "f")
    assert chosen == IntervalSetting(0.9, "clopper-pearson")
    assert chosen_interval(DEFAULT_INTERVAL, None, None, "f") is DEFAULT_INTERVAL


def test_the_public_functions_keep_the_old_keywords_for_one_release() -> None:
    import inspect

    from assay.compare import compare_runs
    from assay.report import build_composite_report, build_report, summarize
    from assay.runner import matrix_report, report_for_run
    from assay.stored import compare_stored, run_side, stored_report
    from assay.view import create_app

    for fn in (
        rate,
        summarize,
        build_report,
        build_composite_report,
        compare_runs,
        report_for_run,
        matrix_report,
        stored_report,
        run_side,
        compare_stored,
        create_app,
    ):
        params = inspect.signature(fn).parameters
        assert params["interval"].default == DEFAULT_INTERVAL, fn.__name__
        for old in ("confidence", "method"):
            assert params[old].kind is inspect.Parameter.KEYWORD_ONLY, (fn.__name__, old)
            assert params[old].default is None, (fn.__name__, old)
